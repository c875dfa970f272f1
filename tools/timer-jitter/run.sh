#!/usr/bin/env bash
# Measures timer / sampler jitter on this machine. See README.md.
# Usage: tools/timer-jitter/run.sh [all|jfr|sleep|c]
# Env:   SECS  (JFR run length, default 25)   ITERS (sleep-loop iterations, default 2000)
#        TICKS (C timer ticks, default 1500)  OUT   (output dir, default: a new temp dir)
#        NICE  (if set, run every measurement under `nice -n $NICE`, e.g. -10, to
#               shield it from unrelated load on a shared machine)
#        IDLE_WAIT (seconds to wait for the machine to go idle before each run, default 60)
# Nothing is written into the repository; everything goes to $OUT.
# Before each measurement the script waits (up to IDLE_WAIT s) for the machine to be
# idle, and after it prints the CPU used by OTHER processes during the run
# ("foreign load", in cores), because unrelated load inflates every tail.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
WHAT=${1:-all}
SECS=${SECS:-25}
ITERS=${ITERS:-2000}
TICKS=${TICKS:-1500}
OUT=${OUT:-$(mktemp -d /tmp/timer-jitter.XXXXXX)}
mkdir -p "$OUT"
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}

echo "# output: $OUT"
echo "# machine: nproc=$(nproc) kernel=$(uname -r) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "# CONFIG_HZ: $( (zcat /proc/config.gz 2>/dev/null || cat /boot/config-"$(uname -r)" 2>/dev/null) | grep -E '^CONFIG_HZ=' || echo unknown)"
echo "# timerslack_ns: $(cat /proc/self/timerslack_ns 2>/dev/null || echo unknown)   loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
java -version 2>&1 | sed 's/^/# /'
echo

javac -d "$OUT/classes" "$HERE/TimerJitter.java"
PFX=()
if [[ -n ${NICE:-} ]]; then PFX=(nice -n "$NICE"); echo "# running measurements under nice -n $NICE"; fi
TJ=("${PFX[@]}" java -cp "$OUT/classes" TimerJitter)
IDLE_WAIT=${IDLE_WAIT:-60}

busy_jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
wait_idle() { # wait until a 2 s window shows < 10% of one core busy, at most IDLE_WAIT s
  local t=0 a b
  while (( t < IDLE_WAIT )); do
    a=$(busy_jiffies); sleep 2; b=$(busy_jiffies); t=$((t + 2))
    (( b - a < 20 )) && return 0
  done
  echo "# (machine not idle after ${IDLE_WAIT}s; measuring anyway)"
}
measure() { # measure cmd...: run cmd, then report CPU used by other processes meanwhile
  wait_idle
  local a b t0 t1 own
  a=$(busy_jiffies); t0=$(date +%s.%N)
  local TIMEFORMAT='%U %S'
  exec 4>&1
  own=$( { time "$@" 1>&4 2>&4; } 2>&1 ) || true
  exec 4>&-
  b=$(busy_jiffies); t1=$(date +%s.%N)
  # the command's own output went straight to stdout (fd 4); own = "user sys"
  awk -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" -v own="$own" 'BEGIN{
    split(own, o, " "); w = t1 - t0; f = ((b - a) / 100 - o[1] - o[2]) / w;
    if (f < 0) f = 0;
    printf "  foreign load during run: %.2f cores (wall %.1fs, own cpu %.1fs)\n\n", f, w, o[1] + o[2] }'
}

jfc() { # jfc <periodMs> <file>: default.jfc with ExecutionSample period set, native sampling off
  if ! jfr configure --input default "jdk.ExecutionSample#period=$1ms" \
        "jdk.NativeMethodSample#enabled=false" --output "$2" >/dev/null 2>&1; then
    # Fallback for JDKs without `jfr configure`: edit a copy of default.jfc.
    sed -e "s|\(control=\"method-sampling-java-interval\">\)[^<]*<|\1$1 ms<|" \
        -e '/<event name="jdk.NativeMethodSample">/,/<\/event>/ s|\(control="method-sampling-enabled">\)true<|\1false<|' \
        "$JAVA_HOME/lib/jfr/default.jfc" > "$2"
  fi
  grep -A2 '"jdk.ExecutionSample"' "$2" | grep -q ">$1 ms<" || { echo "jfc edit failed" >&2; exit 1; }
}

if [[ $WHAT == all || $WHAT == jfr ]]; then
  for cfg in "10 1" "20 1" "10 2"; do
    set -- $cfg; P=$1; T=$2
    jfc "$P" "$OUT/p$P.jfc"
    REC="$OUT/rec-p$P-t$T.jfr"
    echo "## JFR: java -XX:StartFlightRecording=filename=$REC,settings=p$P.jfc TimerJitter spin $T $SECS"
    measure "${PFX[@]}" java -XX:StartFlightRecording=filename="$REC",settings="$OUT/p$P.jfc" \
         -cp "$OUT/classes" TimerJitter spin "$T" "$SECS"
    jfr print --json --events jdk.ExecutionSample "$REC" > "$OUT/rec-p$P-t$T.json"
    "${TJ[@]}" jfr "$REC" "$P" "JFR ExecutionSample period=${P}ms spinning-threads=$T"
  done
fi

if [[ $WHAT == all || $WHAT == sleep ]]; then
  for how in sleep park; do
    for busy in 0 1 2; do
      echo "## java TimerJitter sleep $how 10 $ITERS $busy"
      measure "${TJ[@]}" sleep "$how" 10 "$ITERS" "$busy" "Java $how(10ms) loop, busy-threads=$busy"
    done
  done
fi

if [[ $WHAT == all || $WHAT == c ]]; then
  gcc -O2 -Wall -o "$OUT/itimer" "$HERE/itimer.c" -lrt -lpthread
  # CPU-time timers (itimer, proc-cpu, thread-cpu) are analysed against the CPU clock
  # they count (column 1), so unrelated load does not stretch them; monotonic against
  # wall time (column 0). For itimer/proc-cpu, wall time is shown too.
  for cfg in "itimer 0" "itimer 1" "proc-cpu 0" "thread-cpu 0" "thread-cpu 1" "monotonic 0" "monotonic 1"; do
    set -- $cfg; M=$1; E=$2
    echo "## itimer $M 10000 $TICKS $E"
    measure "${PFX[@]}" "$OUT/itimer" "$M" 10000 "$TICKS" "$E" "$OUT/c-$M-$E.txt"
    if [[ $M == monotonic ]]; then
      "${TJ[@]}" ts "$OUT/c-$M-$E.txt" 0 10000 "C $M 10ms, extra-busy-threads=$E (wall clock)"
    else
      "${TJ[@]}" ts "$OUT/c-$M-$E.txt" 1 10000 "C $M 10ms, extra-busy-threads=$E (CPU clock the timer counts)"
      if [[ $E == 0 ]]; then
        "${TJ[@]}" ts "$OUT/c-$M-$E.txt" 0 10000 "C $M 10ms, extra-busy-threads=$E (wall clock)"
      fi
    fi
  done
fi

