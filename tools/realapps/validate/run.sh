#!/bin/bash
# run.sh: the real side of the validation harness (README.md): run the
# drivers under four profilers and write what collect makes of each run.
#
#   tools/realapps/validate/run.sh [--apps a,b] [--profilers p,q] [--reps N]
#       [--warmup 8s] [--window 10s] [--out DIR] [--data DIR] [--lines 0|1]
#
# Defaults: the nine applications, profilers safepoint,jfr,jfr-dns,async,
# 3 repetitions, 8 s warm-up, 10 s window, --out out/validate/real,
# --data tools/realapps/validate/data. Runs are rep-major (for each rep, each
# app, each profiler), so drift of the machine spreads over all of them.
# A run whose OUT/APP/PROFILER/REP/meta.json exists is skipped (resume);
# its self.tsv, meta.json and stacks.folded (gzipped, stacks.folded.gz) are
# copied to DATA/APP/PROFILER/REP/ when they are missing there. Progress goes to stderr, one line a run. A run that
# gives no samples (or none on thread main) stops the script with status 1.
# --lines 1 has the safepoint agent record where in its leaf method each
# thread stopped (lines=1: "@BCI:LINE" after the leaf in raw.folded; the
# self.tsv is the same as without).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
realapps=$(cd "$here/.." && pwd)
root=$(cd "$realapps/../.." && pwd)
# shellcheck source=apps.sh
. "$here/apps.sh"

die() {
	echo "run.sh: $*" >&2
	exit 2
}
usage() { die "usage: run.sh [--apps a,b] [--profilers p,q] [--reps N] [--warmup 8s] [--window 10s] [--out DIR] [--data DIR] [--lines 0|1]"; }

apps=${APPS// /,} profilers=safepoint,jfr,jfr-dns,async reps=3 warmup=8s window=10s
out=$root/out/validate/real data=$here/data lines=0
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--apps) apps=$2 ;;
	--profilers) profilers=$2 ;;
	--reps) reps=$2 ;;
	--warmup) warmup=$2 ;;
	--window) window=$2 ;;
	--out) out=$2 ;;
	--data) data=$2 ;;
	--lines) lines=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $lines in 0 | 1) ;; *) die "--lines $lines: want 0 or 1" ;; esac

# secs D: whole seconds of "8s", "1m" or "8".
secs() {
	case $1 in
	*[!0-9smh]* | "") die "duration $1: want whole seconds like 8s or 1m" ;;
	*s) echo "${1%s}" ;;
	*m) echo $((${1%m} * 60)) ;;
	*) echo "$1" ;;
	esac
}
warmup_s=$(secs "$warmup") window_s=$(secs "$window")
[ "$window_s" -gt 0 ] || die "--window $window: want at least 1s"
case $reps in '' | *[!0-9]* | 0) die "--reps $reps: want a positive integer" ;; esac
IFS=, read -r -a app_list <<<"$apps"
IFS=, read -r -a prof_list <<<"$profilers"
for a in "${app_list[@]}"; do app_def "$a" || die "--apps: unknown application $a (want some of: $APPS)"; done
for p in "${prof_list[@]}"; do
	case $p in safepoint | jfr | jfr-dns | async) ;; *) die "--profilers: unknown profiler $p (want safepoint, jfr, jfr-dns, async)" ;; esac
done
mkdir -p "$out" "$data"
out=$(cd "$out" && pwd) data=$(cd "$data" && pwd)

# Tools: the agent and engine probe, async-profiler, collect.
bin=$root/out/validate/bin
"$here/agent/build.sh" "$bin" >/dev/null
ap_home=${ASYNC_PROFILER_HOME:-/work/build/async-profiler-4.5}
for p in "${prof_list[@]}"; do
	if [ "$p" = async ]; then "$here/build-async-profiler.sh" "$ap_home" >/dev/null; fi
done
(cd "$root" && go build -o "$bin/collect" ./tools/realapps/validate/collect)
java_version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.version = //p')
[ -n "$java_version" ] || die "cannot read java.version from java -XshowSettings:properties"

# Drivers: install the Debian packages if a jar is missing (the JVM would
# leave it off the class path silently), compile.
classes=$root/out/validate/classes
declare -A compiled
for a in "${app_list[@]}"; do
	app_def "$a"
	missing=
	IFS=: read -ra jar_list <<< "$app_jars"
	for jar in "${jar_list[@]}"; do
		[ -f "$jar" ] || missing=1
	done
	if [ "$app_pkg" != - ] && [ -n "$missing" ]; then
		echo "run.sh: installing $app_pkg for $a" >&2
		# shellcheck disable=SC2086 # app_pkg is a list of packages
		apt-get install -y --no-install-recommends $app_pkg >&2
	fi
	if [ -z "${compiled[$app_dir]:-}" ]; then
		javac -d "$classes/$app_dir" -cp "$app_jars" "$realapps/$app_dir"/*.java
		compiled[$app_dir]=1
	fi
done

load() { cut -d' ' -f1-3 /proc/loadavg; }

# keep DIR DEST: a run's self.tsv and meta.json, and its stacks gzipped
# without a name or time in the header (the same stacks, the same bytes).
keep() {
	mkdir -p "$2"
	cp "$1/self.tsv" "$1/meta.json" "$2/"
	gzip -9 -n -c "$1/stacks.folded" > "$2/stacks.folded.gz"
}

# The JVM of the run under way (its timeout's pid) is ended if run.sh is.
pid=""
trap 'if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; fi' EXIT
trap 'exit 130' INT TERM

# wait_for FILE PID LIMIT: wait until FILE exists or PID ends, at most LIMIT s.
wait_for() {
	local i=0
	while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null && [ $i -lt $(($3 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

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

# fail_run DIR MESSAGE: show the JVM's last words and stop.
fail_run() {
	echo "run.sh: $2" >&2
	for f in "$1/java.stderr" "$1/asprof.log"; do
		if [ -s "$f" ]; then
			echo "--- $f (last 20 lines)" >&2
			tail -n 20 "$f" >&2
		fi
	done
	exit 1
}

# Safety limit of a JVM's life past its window (the JVM is ended as soon as
# its profile is written; this only catches a hang).
grace=60
total=$((reps * ${#app_list[@]} * ${#prof_list[@]}))
n=0
for rep in $(seq 1 "$reps"); do
	for a in "${app_list[@]}"; do
		app_def "$a"
		cp=$classes/$app_dir${app_jars:+:$app_jars}
		# shellcheck disable=SC2206 # app_opts and app_main are word lists
		opts=($app_opts) main=($app_main)
		for p in "${prof_list[@]}"; do
			n=$((n + 1))
			dir=$out/$a/$p/$rep
			dest=$data/$a/$p/$rep
			if [ -f "$dir/meta.json" ]; then
				if [ ! -f "$dest/meta.json" ]; then
					keep "$dir" "$dest"
				fi
				echo "[$n/$total] $a $p rep $rep: done before, skipped" >&2
				continue
			fi
			rm -rf "$dir"
			mkdir -p "$dir"
			engine=""
			case $p in
			safepoint)
				prof_opts=("-agentpath:$bin/libsafepoint.so=interval=10ms,delay=${warmup_s}s,duration=${window_s}s,depth=2048,lines=$lines,file=$dir/raw.folded")
				tool="safepoint agent (tools/realapps/validate/agent/safepoint.c): GetAllStackTraces every 10 ms, RUNNABLE threads"
				raw=$dir/raw.folded
				;;
			jfr | jfr-dns)
				prof_opts=()
				if [ "$p" = jfr-dns ]; then prof_opts=(-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints); fi
				prof_opts+=(-XX:FlightRecorderOptions=stackdepth=2048
					"-XX:StartFlightRecording=delay=${warmup_s}s,duration=${window_s}s,settings=$here/sample10ms.jfc,filename=$dir/raw.jfr")
				tool="JFR (OpenJDK $java_version): jdk.ExecutionSample every 10 ms (validate/sample10ms.jfc), stack depth 2048"
				raw=$dir/raw.jfr
				;;
			async)
				prof_opts=("-agentpath:$ap_home/build/lib/libasyncProfiler.so")
				engine=$("$bin/engine-probe" 2>>"$dir/asprof.log")
				tool="async-profiler $(cat "$ap_home/TAG" 2>/dev/null || echo '(no TAG file)'): loaded with -agentpath, asprof -d ${window_s} -e cpu -i 10ms -t -a -o collapsed at ${warmup_s} s"
				raw=$dir/raw.collapsed
				;;
			esac
			load_before=$(load)
			started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
			timeout --signal=TERM $((warmup_s + window_s + grace)) \
				java "${prof_opts[@]}" "${opts[@]}" -cp "$cp" "${main[@]}" >"$dir/java.stdout" 2>"$dir/java.stderr" &
			pid=$!
			case $p in
			safepoint)
				wait_for "$raw" "$pid" $((warmup_s + window_s + grace))
				;;
			jfr | jfr-dns)
				# JFR creates the file empty and writes it when the
				# recording ends: wait until it is not empty and its size
				# has settled for a second.
				sleep $((warmup_s + window_s))
				prev=0 same=0 i=0
				while kill -0 "$pid" 2>/dev/null && [ $same -lt 2 ] && [ $i -lt $((grace * 2)) ]; do
					sleep 0.5
					size=$(stat -c %s "$raw" 2>/dev/null || echo 0)
					if [ "$size" -gt 0 ] && [ "$size" = "$prev" ]; then same=$((same + 1)); else same=0; fi
					prev=$size i=$((i + 1))
				done
				;;
			async)
				sleep "$warmup_s"
				# The timeout's pid is the JVM's parent: find the JVM.
				jpid=$(pgrep -P "$pid" -n java || true)
				[ -n "$jpid" ] || fail_run "$dir" "$a $p rep $rep: the JVM ended before the window"
				timeout $((window_s + grace)) "$ap_home/build/bin/asprof" -d "$window_s" -e cpu -i 10ms -t -a \
					-o collapsed -f "$raw" "$jpid" >>"$dir/asprof.log" 2>&1 ||
					fail_run "$dir" "$a $p rep $rep: asprof failed"
				;;
			esac
			stop_jvm "$pid"
			pid=""
			load_after=$(load)
			[ -s "$raw" ] || fail_run "$dir" "$a $p rep $rep: no samples: $raw was not written"
			collect=("$bin/collect" --out "$dir" --app "$a" --profiler "$p" --rep "$rep"
				--java-version "$java_version" --interval 10ms --warmup "${warmup_s}s" --window "${window_s}s"
				--started "$started" --load-before "$load_before" --load-after "$load_after" --tool "$tool")
			for o in "${prof_opts[@]}" "${opts[@]}"; do collect+=(--jvm-option "$o"); done
			if [ -n "$engine" ]; then collect+=(--engine "$engine"); fi
			if [ "$p" = jfr ] || [ "$p" = jfr-dns ]; then
				msg=$(jfr print --json --events jdk.ExecutionSample --stack-depth 2048 "$raw" |
					"${collect[@]}" --in - 2>&1) || fail_run "$dir" "$a $p rep $rep: $msg"
			else
				msg=$("${collect[@]}" --in "$raw" 2>&1) || fail_run "$dir" "$a $p rep $rep: $msg"
			fi
			keep "$dir" "$dest"
			echo "[$n/$total] $a $p rep $rep: $msg, load ${load_after%% *}${engine:+, engine $engine}" >&2
		done
	done
done
echo "run.sh: $total runs in $out, self.tsv, meta.json and stacks.folded.gz in $data" >&2
