#!/bin/sh
# run.sh [SECONDS]: compile DebugInfo.java into a temp dir, run each mode
# under JFR (jdk.ExecutionSample every 1 ms) with and without
# -XX:+DebugNonSafepoints, and count the samples' two innermost frames
# (method and line, with the source line); then HotCold (Mytkowicz et al.'s
# Listing 1, tools/realapps/hotcold) with -XX:-Inline for SECONDS at 1 ms and
# 10 ms. Nothing is written into the repository.
set -e
secs=${1:-4}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
hotcold=$here/../realapps/hotcold/HotCold.java
javac -d "$dir" "$here/DebugInfo.java" "$hotcold"
java -version 2>&1 | head -2
count() {
	src=$1
	printf "   samples: %s\n" "$(jfr summary "$dir/r.jfr" | awk '$1 == "jdk.ExecutionSample" { print $2 }')"
	jfr print --events jdk.ExecutionSample "$dir/r.jfr" |
		awk -v src="$src" '
			BEGIN { while ((getline l < src) > 0) text[++n] = l }
			/stackTrace = \[/ {
				getline a; getline b
				sub(/^ +/, "", a); sub(/^ +/, "", b)
				split(a, p, "line: ")
				line = p[2] + 0
				t = text[line]; sub(/^ +/, "", t)
				count[a " <- " b "   | " t]++; total++
			}
			END { for (k in count) if (count[k] * 100 >= total) printf "%6d %5.1f%%  %s\n", count[k], 100 * count[k] / total, k }' |
		sort -rn
}
run() {
	mode=$1
	shift
	echo "== $mode $*"
	java -XX:StartFlightRecording=filename="$dir/r.jfr",settings=profile,jdk.ExecutionSample#period=1ms \
		-Xlog:jfr=off -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,DebugInfo::callee \
		"$@" -cp "$dir" DebugInfo "$mode" "$secs" >/dev/null
	count "$here/DebugInfo.java"
}
# hotcold PERIOD: HotCold with -XX:-Inline, ended (SIGTERM; JFR writes its
# recording on the way out) after SECONDS.
hotcold() {
	echo "== hotcold -XX:-Inline, jdk.ExecutionSample every $1"
	timeout "$secs" java -XX:StartFlightRecording=filename="$dir/r.jfr",settings=profile,jdk.ExecutionSample#period="$1" \
		-Xlog:jfr=off -XX:-Inline -cp "$dir" HotCold >/dev/null || true
	count "$hotcold"
}
run leaf
run leaf -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
run fields
run fields -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
run counted
run counted -XX:-UseCountedLoopSafepoints
run counted -XX:LoopStripMiningIter=1
run counted -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
run standalone -XX:CompileCommand=dontinline,DebugInfo::hot
run standalone -XX:CompileCommand=dontinline,DebugInfo::hot -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
run loopOnly -XX:-UseCountedLoopSafepoints -XX:CompileCommand=dontinline,DebugInfo::loopOnly
run loopOnly -XX:-UseCountedLoopSafepoints -XX:CompileCommand=dontinline,DebugInfo::loopOnly -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
run alloc -XX:CompileCommand=dontinline,DebugInfo::two
run allocTrap -XX:CompileCommand=dontinline,DebugInfo::allocTrap
run trapRoot -XX:CompileCommand=dontinline,DebugInfo::trapRoot
run trapCallee -XX:CompileCommand=dontinline,DebugInfo::trapCallee
hotcold 1ms
hotcold 10ms
