#!/bin/sh
# record.sh: run a Java program under JFR as `profsim import` wants it and
# print the recording as JSON (docs/IMPORT.md).
#
#   tools/realapps/record.sh OUT.json DELAY DURATION -- JAVA_ARGS...
#
# The JVM runs with -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints
# (JFR then reports inlined frames at their own bytecode index, not at the
# nearest safepoint), stack depth 2048 (the default 64 truncates deep
# stacks), and profsim.jfc (execution and native method samples every
# 1 ms, compilations, inlining, throwables with their stacks, thread CPU
# load). The throwables are printed folded (ThrowFold.java), after. jfr print gets --stack-depth 2048 too: it prints 5 frames
# of each stack unless told otherwise. The recording starts DELAY after the JVM (past start-up and
# most of the warm-up) and lasts DURATION; the JVM is then ended, so a
# program that runs longer is fine. Needs OpenJDK 17 (java, jfr).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1 delay=$2 duration=$3
shift 3
[ "${1:-}" = "--" ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
secs() { case $1 in *ms) echo 1;; *s) echo "${1%s}";; *m) echo $(( ${1%m} * 60 ));; *) echo "$1";; esac; }
limit=$(( $(secs "$delay") + $(secs "$duration") + 5 ))
status=0
timeout --signal=TERM "$limit" java \
	-XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
	-XX:FlightRecorderOptions=stackdepth=2048 \
	"-XX:StartFlightRecording=settings=$here/profsim.jfc,delay=$delay,duration=$duration,filename=$tmp/rec.jfr" \
	"$@" >"$tmp/stdout" 2>"$tmp/stderr" || status=$?
# 124: timeout ended a program that outlived its recording, as intended.
if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] && [ "$status" -ne 143 ]; then
	cat "$tmp/stderr" >&2
	echo "record.sh: java exited with status $status" >&2
	exit 1
fi
if [ ! -s "$tmp/rec.jfr" ]; then
	cat "$tmp/stderr" >&2
	echo "record.sh: no recording written (did the program end before DELAY + DURATION?)" >&2
	exit 1
fi
jfr summary "$tmp/rec.jfr" | grep -E 'jdk\.(ExecutionSample|NativeMethodSample|Compilation|CompilerInlining|JavaExceptionThrow|ThreadCPULoad) ' >&2 || true
jfr print --json --stack-depth 2048 --events jdk.ExecutionSample,jdk.NativeMethodSample,jdk.Compilation,jdk.CompilerInlining,jdk.ThreadCPULoad,jdk.CPUInformation,jdk.ThreadStart,jdk.ActiveRecording \
	"$tmp/rec.jfr" >"$out"
# The throwables, folded by thread, class and stack (one exception-heavy
# program's would be tens of GB printed one by one), as a second document.
java "$here/ThrowFold.java" "$tmp/rec.jfr" >>"$out"
