#!/bin/sh
# run.sh [REPS]: compile StripMining.java into a temp dir and run its three
# experiments on the installed JVM (C2 only, run() and the A loops compiled
# at their first call). Nothing is written into the repository.
set -e
reps=${1:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
javac -d "$dir" "$(dirname "$0")/StripMining.java"
java -version 2>&1 | head -2
jvm() {
	taskset -c 0 java -XX:+UseG1GC -XX:-TieredCompilation -Xcomp -XX:CompileCommand=quiet \
		-XX:CompileCommand=compileonly,StripMining::run -XX:CompileCommand=compileonly,StripMining::a* \
		-XX:CompileCommand=compileonly,StripMining::b -XX:CompileCommand=dontinline,StripMining::a* -XX:CompileCommand=dontinline,StripMining::b \
		-cp "$dir" "$@"
}
echo "== exit: -XX:LoopStripMiningIter=100000000 (so LoopStripMiningIterShortLoop=10000000)"
jvm -XX:LoopStripMiningIter=100000000 StripMining exit "$reps"
echo "== align: -XX:LoopStripMiningIter=10000000 -XX:LoopMaxUnroll=1 (strips of exactly 10^7)"
jvm -XX:LoopStripMiningIter=10000000 -XX:LoopMaxUnroll=1 StripMining align "$reps" 10000000
echo "== unroll: -XX:LoopStripMiningIter=10000000 (C2's own unrolling)"
jvm -XX:LoopStripMiningIter=10000000 StripMining unroll "$reps" 10000000
echo "== unroll: -XX:LoopStripMiningIter=10000000 -XX:LoopMaxUnroll=1 (no unrolling)"
jvm -XX:LoopStripMiningIter=10000000 -XX:LoopMaxUnroll=1 StripMining unroll 1 10000000
