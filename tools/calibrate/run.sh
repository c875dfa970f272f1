#!/usr/bin/env bash
# Measures the model's costs on the installed JVM. See README.md.
# Usage: tools/calibrate/run.sh
# Env:   REPS (repetitions of every measurement, default 3)
#        OUT  (output dir, default: a new temp dir)
#        IDLE_WAIT (seconds to wait for an idle machine first, default 120)
#        ONLY (measurements to run, comma-separated: dump jvmti felt jfr interp
#              compile throw; default all)
#        UPDATE=1 copies calibration.csv and machine.txt into tools/calibrate/;
#              with ONLY, replaces (or adds) only the rows measured and adds
#              a line to machine.txt
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPS=${REPS:-3}
OUT=${OUT:-$(mktemp -d /tmp/calibrate.XXXXXX)}
IDLE_WAIT=${IDLE_WAIT:-120}
mkdir -p "$OUT"
command -v java >/dev/null || { echo "run.sh: java is not installed" >&2; exit 2; }

busy_jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
wait_idle() { # until a 2 s window shows < 10 % of one core busy, at most IDLE_WAIT s
  local t=0 a b
  while (( t < IDLE_WAIT )); do
    a=$(busy_jiffies); sleep 2; b=$(busy_jiffies); t=$((t + 2))
    (( b - a < 20 )) && return 0
  done
  echo "# (machine not idle after ${IDLE_WAIT}s; measuring anyway)"
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "machine: nproc=$(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r), timerslack_ns $(cat /proc/self/timerslack_ns 2>/dev/null || echo unknown)"
  echo "jvm: $(java -version 2>&1 | tr '\n' ' ' | sed 's/  */ /g')"
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"

javac -d "$OUT/classes" "$HERE/Calibrate.java"
AGENT=""
JH=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
if command -v gcc >/dev/null && gcc -O2 -shared -fPIC -Wall -I"$JH/include" -I"$JH/include/linux" \
     "$HERE/jvmti/agent.c" -o "$OUT/libcalib.so"; then
  AGENT="$OUT/libcalib.so"
else
  echo "# no C compiler or JVMTI headers: the JVMTI rows are skipped"
fi
wait_idle
a=$(busy_jiffies); t0=$(date +%s)
java -Dcalibrate.agent="$AGENT" -Dcalibrate.only="${ONLY:-}" -cp "$OUT/classes" Calibrate all "$OUT" "$REPS" "$HERE/Calibrate.java"
b=$(busy_jiffies); t1=$(date +%s)
# children's CPU (user, sys) from bash's `times`, e.g. "0m12.345s 0m1.234s"
times > "$OUT/times.txt"   # in this shell: a subshell would see no children
own=$(tail -1 "$OUT/times.txt" | awk '{for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } print s}')
awk -v a="$a" -v b="$b" -v w="$((t1 - t0))" -v own="$own" 'BEGIN {
  f = ((b - a) / 100 - own) / w; if (f < 0) f = 0
  printf "foreign load during the measurements: %.2f cores (wall %d s, own CPU %.0f s)\n", f, w, own }' | tee -a "$OUT/machine.txt"
if [[ ${UPDATE:-} == 1 && -n ${ONLY:-} ]]; then
  # Rows measured now replace their namesakes in place; new ones go last.
  awk -F, 'NR == FNR { if (FNR > 1) { row[$1] = $0; order[++n] = $1 } next }
    FNR == 1 || !($1 in row) { print; next }
    { print row[$1]; done[$1] = 1 }
    END { for (i = 1; i <= n; i++) if (!done[order[i]]) print row[order[i]] }' \
    "$OUT/calibration.csv" "$HERE/calibration.csv" > "$OUT/merged.csv"
  cp "$OUT/merged.csv" "$HERE/calibration.csv"
  { echo "--- ONLY=$ONLY:"; cat "$OUT/machine.txt"; } >> "$HERE/machine.txt"
  echo "merged the rows of $ONLY into $HERE/calibration.csv"
elif [[ ${UPDATE:-} == 1 ]]; then
  cp "$OUT/calibration.csv" "$OUT/machine.txt" "$HERE/"
  echo "copied calibration.csv and machine.txt into $HERE"
fi
