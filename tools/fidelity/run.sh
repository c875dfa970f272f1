#!/bin/bash
# run.sh: the real side of the fidelity harness (README.md): run each
# micro-program of Fidelity.java under each real profiler, REPS times, and
# make the table of real shares against profsim's twins (collect).
#
#   tools/fidelity/run.sh [--modes a,b] [--profilers p,q] [--seconds N]
#       [--reps N] [--warmup N] [--out DIR] [--no-table]
#
# Defaults (also from the environment): every mode and profiler,
# --seconds $RUN_SECONDS or 5, --reps $REPS or 3, --warmup $WARMUP or 3,
# --out $OUT_DIR or out/fidelity in this repository (not tracked). A run
# takes warm-up + seconds + about 2 s; the whole default set (7 modes x
# 8 profilers x 3 reps = 168 runs) about 168 x 10 s = 28 minutes, then
# collect runs the twins (about 2 minutes on 2 cores). Runs are rep-major
# (for each rep, each mode, each profiler) so drift of the machine
# spreads evenly. A run whose OUT/MODE/PROFILER/REP/meta exists is
# skipped (resume). Progress goes to stderr, one line a run. A run without
# samples stops the script with status 1; bad arguments give status 2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

ALL_MODES=hotcold,hotcold-noinline,calledges,blockhalf,oversub,returnpoll,deeprec
ALL_PROFILERS=jfr25,jfr25-cpu,jfr17,jfr17-dns,ap-cpu,ap-itimer,ap-ctimer,ap-wall
JDK25=${JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}
JDK17=${JDK17:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
# async-profiler runs on this JDK (JDK 25: what its users run in 2026).
AP_JDK=${AP_JDK:-$JDK25}
ap_home=${ASYNC_PROFILER_HOME:-/work/build/async-profiler-4.5}

die() {
	echo "run.sh: $*" >&2
	exit 2
}
usage() { die "usage: run.sh [--modes $ALL_MODES] [--profilers $ALL_PROFILERS] [--seconds N] [--reps N] [--warmup N] [--out DIR] [--no-table]"; }

modes=$ALL_MODES profilers=$ALL_PROFILERS
seconds=${RUN_SECONDS:-5} reps=${REPS:-3} warmup=${WARMUP:-3}
out=${OUT_DIR:-$root/out/fidelity} table=1
while [ $# -gt 0 ]; do
	case $1 in
	--no-table) table=0; shift; continue ;;
	esac
	[ $# -ge 2 ] || usage
	case $1 in
	--modes) modes=$2 ;;
	--profilers) profilers=$2 ;;
	--seconds) seconds=$2 ;;
	--reps) reps=$2 ;;
	--warmup) warmup=$2 ;;
	--out) out=$2 ;;
	*) usage ;;
	esac
	shift 2
done
posint() { case $2 in '' | *[!0-9]* | 0*) die "$1 $2: want a positive integer" ;; esac; }
posint --seconds "$seconds"
posint --reps "$reps"
posint --warmup "$warmup"
IFS=, read -r -a mode_list <<<"$modes"
IFS=, read -r -a prof_list <<<"$profilers"
for m in "${mode_list[@]}"; do
	case ,$ALL_MODES, in *,"$m",*) ;; *) die "--modes: unknown mode '$m' (want some of $ALL_MODES)" ;; esac
done
for p in "${prof_list[@]}"; do
	case ,$ALL_PROFILERS, in *,"$p",*) ;; *) die "--profilers: unknown profiler '$p' (want some of $ALL_PROFILERS)" ;; esac
done
[ -x "$JDK25/bin/java" ] || die "no JDK 25 at $JDK25 (set JDK25)"
[ -x "$JDK17/bin/java" ] || die "no JDK 17 at $JDK17 (set JDK17)"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# class MODE: the program's class; opts MODE: its JVM options.
class() {
	case $1 in
	hotcold | hotcold-noinline) echo HotCold ;; calledges) echo CallEdges ;; blockhalf) echo BlockHalf ;;
	oversub) echo Oversub ;; returnpoll) echo ReturnPoll ;; deeprec) echo DeepRec ;;
	esac
}
mode_opts() {
	case $1 in
	returnpoll) echo "-XX:CompileCommand=quiet -XX:CompileCommand=dontinline,ReturnPoll::callee" ;;
	hotcold-noinline) echo "-XX:-Inline" ;;
	deeprec) echo "-Xss16m" ;;
	*) echo "" ;;
	esac
}
jversion() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p'; }

# Tools: the programs (compiled by each JDK's javac for its own runs),
# the engine probe, async-profiler, collect.
bin=$out/bin
mkdir -p "$bin/classes17" "$bin/classes25"
"$JDK17/bin/javac" -d "$bin/classes17" "$here/Fidelity.java"
"$JDK25/bin/javac" -d "$bin/classes25" "$here/Fidelity.java"
v17=$(jversion "$JDK17") v25=$(jversion "$JDK25") vap=$(jversion "$AP_JDK")
for p in "${prof_list[@]}"; do
	case $p in ap-*)
		"$root/tools/realapps/validate/build-async-profiler.sh" "$ap_home" >/dev/null
		"$root/tools/realapps/validate/agent/build.sh" "$bin" >/dev/null
		break ;;
	esac
done
ap_version=$("$ap_home/build/bin/asprof" --version 2>/dev/null | head -1 || echo "(none)")
[ -f "$ap_home/TAG" ] && ap_version="$ap_version, tag $(cat "$ap_home/TAG")"
(cd "$root" && go build -o "$bin/collect" ./tools/fidelity/collect)

load() { cut -d' ' -f1-3 /proc/loadavg; }

# The JVM of the run under way (its timeout's pid) is ended if run.sh is.
pid=""
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; fi' EXIT
trap 'exit 130' INT TERM

# stop_jvm PID: end the JVM (TERM, then KILL after 10 s) and reap it.
stop_jvm() {
	kill -TERM "$1" 2>/dev/null || true
	local i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

fail_run() {
	echo "run.sh: $2" >&2
	for f in "$1/java.stderr" "$1/java.stdout" "$1/asprof.log"; do
		if [ -s "$f" ]; then
			echo "--- $f (last 20 lines)" >&2
			tail -n 20 "$f" >&2
		fi
	done
	exit 1
}

grace=60
total=$((reps * ${#mode_list[@]} * ${#prof_list[@]}))
per_run=$((warmup + seconds + 2))
echo "run.sh: $total runs of ${warmup} s warm-up + ${seconds} s, about $(((total * per_run + 59) / 60)) minutes; JDK 17 $v17, JDK 25 $v25, $ap_version on $vap; out $out" >&2
n=0 start=$(date +%s)
for rep in $(seq 1 "$reps"); do
	for m in "${mode_list[@]}"; do
		cls=$(class "$m")
		# shellcheck disable=SC2207 # a word list
		mopts=($(mode_opts "$m"))
		for p in "${prof_list[@]}"; do
			n=$((n + 1))
			dir=$out/$m/$p/$rep
			if [ -f "$dir/meta" ]; then
				echo "[$n/$total] $m $p rep $rep: done before, skipped" >&2
				continue
			fi
			rm -rf "$dir"
			mkdir -p "$dir"
			engine="" events=jdk.ExecutionSample jfc=$here/exec10ms.jfc
			case $p in
			jfr25 | jfr25-cpu) jdk=$JDK25 version=$v25 classes=$bin/classes25 ;;
			jfr17 | jfr17-dns) jdk=$JDK17 version=$v17 classes=$bin/classes17 ;;
			ap-*)
				jdk=$AP_JDK version=$vap classes=$bin/classes25
				[ "$jdk" = "$JDK17" ] && classes=$bin/classes17
				;;
			esac
			prof_opts=()
			case $p in
			jfr*)
				[ "$p" = jfr17-dns ] && prof_opts=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints)
				if [ "$p" = jfr25-cpu ]; then events=jdk.CPUTimeSample,jdk.CPUTimeSamplesLost jfc=$here/cputime10ms.jfc; fi
				prof_opts+=("-XX:StartFlightRecording=delay=${warmup}s,duration=${seconds}s,settings=$jfc,filename=$dir/raw.jfr")
				raw=$dir/raw.jfr
				tool="JFR ${events%%,*} every 10 ms ($(basename "$jfc")), default stackdepth 64"
				;;
			ap-*)
				engine=${p#ap-}
				prof_opts=("-agentpath:$ap_home/build/lib/libasyncProfiler.so")
				[ "$jdk" != "$JDK17" ] && prof_opts+=(-XX:+EnableDynamicAgentLoading)
				raw=$dir/raw.collapsed
				tool="$ap_version: loaded with -agentpath, asprof -d $seconds -e $engine -i 10ms -t -a -o collapsed at ${warmup} s"
				;;
			esac
			load_before=$(load)
			started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
			timeout --signal=TERM $((warmup + seconds + grace)) \
				"$jdk/bin/java" "${prof_opts[@]}" "${mopts[@]}" -cp "$classes" "$cls" >"$dir/java.stdout" 2>"$dir/java.stderr" &
			pid=$!
			case $p in
			jfr*)
				# JFR writes the file when the recording ends: wait until
				# it is not empty and its size has settled for a second.
				sleep $((warmup + seconds))
				prev=0 same=0 i=0
				while kill -0 "$pid" 2>/dev/null && [ $same -lt 2 ] && [ $i -lt $((grace * 2)) ]; do
					sleep 0.5
					size=$(stat -c %s "$raw" 2>/dev/null || echo 0)
					if [ "$size" -gt 0 ] && [ "$size" = "$prev" ]; then same=$((same + 1)); else same=0; fi
					prev=$size i=$((i + 1))
				done
				;;
			ap-*)
				if [ "$engine" = cpu ]; then
					engine="cpu ($("$bin/engine-probe" 2>>"$dir/asprof.log"))"
				fi
				sleep "$warmup"
				jpid=$(pgrep -P "$pid" -n java || true)
				[ -n "$jpid" ] || fail_run "$dir" "$m $p rep $rep: the JVM ended before the window"
				timeout $((seconds + grace)) "$ap_home/build/bin/asprof" -d "$seconds" -e "${p#ap-}" -i 10ms -t -a \
					-o collapsed -f "$raw" "$jpid" >>"$dir/asprof.log" 2>&1 ||
					fail_run "$dir" "$m $p rep $rep: asprof failed"
				;;
			esac
			stop_jvm "$pid"
			pid=""
			load_after=$(load)
			[ -s "$raw" ] || fail_run "$dir" "$m $p rep $rep: no samples: $raw was not written"
			if [ "$raw" = "$dir/raw.jfr" ]; then
				"$jdk/bin/jfr" print --json --events "$events" "$raw" >"$dir/raw.json" ||
					fail_run "$dir" "$m $p rep $rep: jfr print failed"
			fi
			{
				echo "mode=$m"
				echo "profiler=$p"
				echo "rep=$rep"
				echo "java_version=$version"
				echo "java_home=$jdk"
				echo "jvm_options=${prof_opts[*]} ${mopts[*]}"
				echo "async_profiler=$ap_version"
				echo "engine=$engine"
				echo "tool=$tool"
				echo "warmup_s=$warmup"
				echo "window_s=$seconds"
				echo "started=$started"
				echo "load_before=$load_before"
				echo "load_after=$load_after"
			} >"$dir/meta.part"
			msg=$("$bin/collect" --check "$dir" 2>&1) || fail_run "$dir" "$m $p rep $rep: $msg"
			mv "$dir/meta.part" "$dir/meta"
			el=$(($(date +%s) - start))
			echo "[$n/$total] $m $p rep $rep: $msg; load ${load_before%% *} -> ${load_after%% *}; $((el / 60))m$((el % 60))s elapsed" >&2
		done
	done
done
echo "run.sh: $total runs in $out" >&2
if [ "$table" = 1 ]; then
	"$bin/collect" --out "$out" --md "$out/fidelity.md" --csv "$out/fidelity.csv" --seeds "$reps"
	echo "run.sh: table in $out/fidelity.md and $out/fidelity.csv" >&2
fi
