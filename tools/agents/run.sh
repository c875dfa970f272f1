#!/bin/bash
# run.sh: what a JVMTI agent's capabilities alone cost the real JVM
# (README.md): each driver of tools/realapps for a fixed time, without an
# agent and with caps.c requesting each capability set, its work done
# (the driver's count) and what the JIT made (compilations and code heap).
#
#   tools/agents/run.sh [--apps a,b] [--sets s,t] [--reps N] [--seconds S] [--out DIR]
#
# Defaults: apps antlr,fop,hsqldb,jython,lusearch (drivers that count
# their work finely enough in 10 s; xalan's never stops), sets baseline
# (no agent), none (the agent, no capability), hprof-cpu-samples,
# async-profiler, jdwp (caps.c holding each set) and the profilers
# themselves sampling every 10 ms from the start with their output:
# prof:safepoint (validate's JVMTI agent), prof:jfr (validate's
# sample10ms.jfc), prof:async (async-profiler's cpu engine, from
# $ASYNC_PROFILER_HOME, default /work/build/async-profiler-4.5);
# 3 repetitions of 10 s; --out out/agents. Runs are rep-major, the sets'
# order rotating from one rep to the next, so drift of the machine
# spreads over them all.
# Writes OUT/runs.csv (one row a run, with the 1-minute load before and
# after) and prints OUT/summary.csv: per app and set, the median work a
# second over the reps and its ratio to baseline's median; then CatchCost
# under each set (OUT/catch.csv: ns per exception caught in compiled code)
# and CatchScopes (OUT/scopes.csv: the same by the scopes in the catcher);
# OUT/agent.csv holds the JVMTI sampler's (prof:safepoint) time a tick;
# OUT/throws-APP.tsv each driver's throws by class (throws.c).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
realapps=$root/tools/realapps
# shellcheck source=../realapps/validate/apps.sh
. "$realapps/validate/apps.sh"

die() {
	echo "run.sh: $*" >&2
	exit 2
}
usage() { die "usage: run.sh [--apps a,b] [--sets s,t] [--reps N] [--seconds S] [--out DIR]"; }

apps=antlr,fop,hsqldb,javac,jython,lusearch sets=baseline,none,hprof-cpu-samples,async-profiler,jdwp,prof:safepoint,prof:jfr,prof:async reps=3 seconds=10
out=$root/out/agents
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage
	case $1 in
	--apps) apps=$2 ;;
	--sets) sets=$2 ;;
	--reps) reps=$2 ;;
	--seconds) seconds=$2 ;;
	--out) out=$2 ;;
	*) usage ;;
	esac
	shift 2
done
case $reps in '' | *[!0-9]* | 0) die "--reps $reps: want a whole number ≥ 1" ;; esac
case $seconds in '' | *[!0-9]* | 0) die "--seconds $seconds: want a whole number ≥ 1" ;; esac
IFS=, read -r -a app_list <<<"$apps"
IFS=, read -r -a set_list <<<"$sets"
for a in "${app_list[@]}"; do
	app_def "$a" || die "--apps: unknown application $a (want some of: $APPS)"
	[ "$a" != xalan ] || die "--apps: xalan's driver does not count its work"
done

java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
[ -f "$java_home/include/jvmti.h" ] || die "no $java_home/include/jvmti.h (want a JDK with javac on PATH)"
mkdir -p "$out/bin" "$out/log"
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -shared -fPIC \
	-I"$java_home/include" -I"$java_home/include/linux" -o "$out/bin/libcaps.so" "$here/caps.c"
ap_home=${ASYNC_PROFILER_HOME:-/work/build/async-profiler-4.5}
for s in "${set_list[@]}"; do
	case $s in
	baseline) ;;
	prof:safepoint) "$root/tools/realapps/validate/agent/build.sh" "$out/bin" >/dev/null ;;
	prof:jfr) ;;
	prof:async)
		[ -f "$ap_home/build/lib/libasyncProfiler.so" ] ||
			die "--sets prof:async: no $ap_home/build/lib/libasyncProfiler.so (tools/realapps/validate/build-async-profiler.sh builds it; ASYNC_PROFILER_HOME names another)"
		;;
	prof:*) die "--sets $s: want prof:safepoint, prof:jfr or prof:async" ;;
	*)
		java -agentpath:"$out/bin/libcaps.so=$s" -version >/dev/null 2>"$out/log/check.txt" ||
			die "--sets: the agent refuses $s: $(head -1 "$out/log/check.txt")"
		;;
	esac
done

# agent_opts SET LOG: the JVM options that load SET, into the array agent.
agent_opts() {
	case $1 in
	baseline) agent=() ;;
	prof:safepoint) agent=("-agentpath:$out/bin/libsafepoint.so=interval=10ms,delay=0s,duration=${seconds}s,depth=2048,file=$2.folded") ;;
	prof:jfr) agent=(-XX:FlightRecorderOptions=stackdepth=2048
		"-XX:StartFlightRecording=settings=$root/tools/realapps/validate/sample10ms.jfc,filename=$2.jfr") ;;
	prof:async) agent=("-agentpath:$ap_home/build/lib/libasyncProfiler.so=start,event=cpu,interval=10ms,collapsed,file=$2.collapsed") ;;
	*) agent=("-agentpath:$out/bin/libcaps.so=$1") ;;
	esac
}

classes=$out/classes
declare -A compiled
for a in "${app_list[@]}"; do
	app_def "$a"
	if [ "$app_pkg" != - ] && [ ! -f "${app_jars%%:*}" ]; then
		apt-get install -y --no-install-recommends "$app_pkg" >&2
	fi
	if [ -z "${compiled[$app_dir]:-}" ]; then
		javac -d "$classes/$app_dir" -cp "$app_jars" "$realapps/$app_dir"/*.java
		compiled[$app_dir]=1
	fi
done

load1() { cut -d' ' -f1 /proc/loadavg; }

csv=$out/runs.csv
echo "app,set,rep,seconds,work,work_per_s,compilations,c2_compilations,c1_code_kb,c2_code_kb,load1_before,load1_after,java_version" >"$csv"
java_version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.version = //p')
n=${#set_list[@]}
for ((rep = 1; rep <= reps; rep++)); do
	for a in "${app_list[@]}"; do
		app_def "$a"
		for ((k = 0; k < n; k++)); do
			s=${set_list[$(((k + rep - 1) % n))]}
			log=$out/log/$a-${s/:/-}-$rep
			agent_opts "$s" "$log"
			before=$(load1)
			# shellcheck disable=SC2086 # app_opts and app_main are word lists
			java "${agent[@]}" -XX:+PrintCompilation -XX:+PrintCodeCache $app_opts \
				-cp "$classes/$app_dir:$app_jars" $app_main "$seconds" >"$log.out" 2>"$log.err" ||
				die "$a under $s failed: $(tail -3 "$log.err")"
			after=$(load1)
			# The count may share a line with the compiler's PrintCompilation output.
			work=$(grep -Eo '(runs|transactions) [0-9]+' "$log.out" | tail -1 | grep -Eo '[0-9]+$' || true)
			[ -n "$work" ] || die "$a under $s: no count in $log.out"
			# PrintCompilation: "  TIME ID FLAGS LEVEL METHOD (SIZE)"; the level
			# is the first lone digit 0-4 after the id.
			comp=$(grep -cE '^ +[0-9]+ +[0-9]+ ' "$log.out" || true)
			c2=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$log.out" | grep -cE '^ +[0-9]+ +[0-9]+ +[%sbn! ]* 4 ' || true)
			kb() { sed -n "s/^CodeHeap '$1': .* used=\([0-9]*\)Kb .*/\1/p" "$log.out" | head -1; }
			c1kb=$(kb 'profiled nmethods') c2kb=$(kb 'non-profiled nmethods')
			echo "$a,$s,$rep,$seconds,$work,$(awk -v w="$work" -v s="$seconds" 'BEGIN{printf "%.3f", w/s}'),$comp,$c2,$c1kb,$c2kb,$before,$after,$java_version" >>"$csv"
			echo "run.sh: rep $rep $a $s: work $work, $comp compilations ($c2 C2), load $before→$after" >&2
		done
	done
done

# The JVMTI sampler's own account of its ticks (its profile's header):
# GetAllStackTraces (safepoint and walks) and the agent's bookkeeping.
agentcsv=$out/agent.csv
echo "app,rep,ticks,samples,mean_tick_ns,mean_walk_ns,mean_agent_ns" >"$agentcsv"
for ((rep = 1; rep <= reps; rep++)); do
	for a in "${app_list[@]}"; do
		f=$out/log/$a-prof-safepoint-$rep.folded
		[ -f "$f" ] || continue
		head -1 "$f" | awk -v a="$a" -v r="$rep" '{
			for (i = 3; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] }
			printf "%s,%s,%s,%s,%s,%s,%s\n", a, r, h["ticks"], h["samples"], h["mean_tick_ns"], h["mean_walk_ns"], h["mean_agent_ns"]
		}' >>"$agentcsv"
	done
done

# CatchCost: one exception caught by a compiled caller; CatchScopes: the
# same, the exception entering a catcher whose frame holds K + 2 inlined
# scopes at the call (K = 0, 2, 4, 8, 12). Both under each capability set.
javac -d "$out/classes/agents" "$here/CatchCost.java" "$here/CatchScopes.java"
catch=$out/catch.csv scopes=$out/scopes.csv
echo "set,rep,thrown_ns,plain_ns,per_catch_ns,load1_before,load1_after,java_version" >"$catch"
echo "set,rep,k,scopes,thrown_ns,plain_ns,per_catch_ns,load1_before,load1_after,java_version" >"$scopes"
for ((rep = 1; rep <= reps; rep++)); do
	for ((k = 0; k < n; k++)); do
		s=${set_list[$(((k + rep - 1) % n))]}
		case $s in prof:*) continue ;; esac # the profilers: not a capability set
		agent_opts "$s" ""
		before=$(load1)
		line=$(java "${agent[@]}" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,CatchCost::* \
			-cp "$out/classes/agents" CatchCost 3000 2>/dev/null) || die "CatchCost under $s failed"
		after=$(load1)
		vals=$(echo "$line" | sed -n 's/^CATCH thrown=\([0-9.]*\) plain=\([0-9.]*\) per_catch=\([0-9.-]*\)$/\1,\2,\3/p')
		[ -n "$vals" ] || die "CatchCost under $s: unexpected output $line"
		echo "$s,$rep,$vals,$before,$after,$java_version" >>"$catch"
		echo "run.sh: rep $rep CatchCost $s: $line, load $before→$after" >&2

		before=$(load1)
		lines=$(java "${agent[@]}" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,CatchScopes::thrower \
			-XX:CompileCommand=dontinline,CatchScopes::catch* -XX:CompileCommand=inline,CatchScopes::a* \
			-cp "$out/classes/agents" CatchScopes 1500 2>/dev/null) || die "CatchScopes under $s failed"
		after=$(load1)
		vals=$(echo "$lines" | sed -n 's/^SCOPES k=\([0-9]*\) scopes=\([0-9]*\) thrown=\([0-9.]*\) plain=\([0-9.]*\) per_catch=\([0-9.-]*\)$/\1,\2,\3,\4,\5/p')
		[ "$(echo "$vals" | grep -c .)" -eq 5 ] || die "CatchScopes under $s: unexpected output $lines"
		echo "$vals" | while IFS= read -r v; do echo "$s,$rep,$v,$before,$after,$java_version"; done >>"$scopes"
		echo "run.sh: rep $rep CatchScopes $s, load $before→$after" >&2
	done
done

# How often each driver throws, by the exception's class: new objects,
# rethrows and shared objects thrown again (throws.c), once per app for
# --seconds without another agent. A recording's throwable events count
# the new ones only.
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -shared -fPIC \
	-I"$java_home/include" -I"$java_home/include/linux" -o "$out/bin/libthrows.so" "$here/throws.c" -lpthread
for a in "${app_list[@]}"; do
	app_def "$a"
	before=$(load1)
	# shellcheck disable=SC2086 # app_opts and app_main are word lists
	java -agentpath:"$out/bin/libthrows.so=$out/throws-$a.tsv" $app_opts \
		-cp "$classes/$app_dir:$app_jars" $app_main "$seconds" >"$out/log/$a-throws.out" 2>"$out/log/$a-throws.err" ||
		die "$a under throws.c failed: $(tail -3 "$out/log/$a-throws.err")"
	[ -s "$out/throws-$a.tsv" ] || die "$a under throws.c: no $out/throws-$a.tsv"
	echo "run.sh: throws $a: $(awk -F'\t' 'NR > 1 { n += $2; r += $3; g += $4 } END { printf "%d new, %d rethrown, %d thrown again", n, r, g }' "$out/throws-$a.tsv"), load $before→$(load1)" >&2
done

# summary: median work/s per (app, set) and its ratio to baseline's.
awk -F, 'NR > 1 { k = $1 "," $2; v[k] = v[k] " " $6; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	print "app,set,reps,median_work_per_s,ratio_to_baseline"
	for (i = 1; i <= m; i++) { split(order[i], p, ","); med[order[i]] = median(v[order[i]]) }
	for (i = 1; i <= m; i++) {
		split(order[i], p, ","); b = med[p[1] ",baseline"]
		printf "%s,%d,%.3f,%s\n", order[i], split(v[order[i]], x, " "), med[order[i]], (b > 0 ? sprintf("%.3f", med[order[i]] / b) : "")
	}
}' "$csv" | tee "$out/summary.csv"
