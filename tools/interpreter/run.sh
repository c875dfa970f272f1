#!/bin/sh
# run.sh [REPS] [N]: generate Block.java (one straight-line method of N
# statements), compile it with Interp.java into a temp dir and run it on
# the installed JVM with -Xint, pinned to one CPU. Nothing is written into
# the repository.
set -e
reps=${1:-20}
n=${2:-8000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
	echo "public class Block {"
	echo "    static final int N = $n;"
	echo "    static int pos;"
	echo "    static void block() {"
	i=1
	while [ "$i" -le "$n" ]; do
		echo "        pos = $i;"
		i=$((i + 1))
	done
	echo "    }"
	echo "    static void calls() {"
	i=1
	while [ "$i" -le "$n" ]; do
		echo "        f($i);"
		i=$((i + 1))
	done
	echo "    }"
	echo "    static void branches() {"
	i=1
	while [ "$i" -le "$n" ]; do
		echo "        pos = $i; if (pos < 0) pos = 0;"
		i=$((i + 1))
	done
	echo "    }"
	echo "    static void f(int k) {"
	echo "        pos = k;"
	echo "    }"
	echo "}"
} >"$dir/Block.java"
javac -d "$dir" "$dir/Block.java" "$(dirname "$0")/Interp.java"
java -version 2>&1 | head -2
echo "== -Xint, block() of $n statements (line k+4 is pos = k)"
jvm() {
	log=$1
	shift
	taskset -c 0 java -Xint -XX:+UseG1GC -Xlog:safepoint=info:file="$dir/$log" -cp "$dir" Interp "$@"
	echo "-Xlog:safepoint, time to reach the ThreadDump safepoints (ns):"
	grep ThreadDump "$dir/$log" | sed -n 's/.*Reaching safepoint: \([0-9]*\) ns.*/\1/p' | sort -n |
		awk '{a[NR]=$1} END {if (NR) printf "  n=%d min %d median %d max %d\n", NR, a[1], a[int((NR+1)/2)], a[NR]}'
}
jvm block.log "$reps" block
echo "== -Xint, calls() of $n statements f(k) (line $((n + 6)) + k calls f(k); line $((2 * n + 9)) is f's pos = k, line $((2 * n + 10)) its return)"
jvm calls.log "$reps" calls
echo "== -Xint, branches() of $n statements 'pos = k; if (pos < 0) pos = 0;' (a forward branch taken; line $((2 * n + 8)) + k is statement k)"
jvm branches.log "$reps" branches
