#!/bin/sh
# build.sh: build the safepoint-biased JVMTI sampler (safepoint.c) and
# engine-probe (which engine async-profiler's cpu event uses here).
#
#   tools/realapps/validate/agent/build.sh [OUT_DIR]
#
# Writes OUT_DIR/libsafepoint.so and OUT_DIR/engine-probe (default out/validate/bin in the
# repository; out/ is not tracked) with gcc against the JDK's JVMTI headers
# ($JAVA_HOME/include and include/linux, JAVA_HOME being where javac is).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
out=${1:-$root/out/validate/bin}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
if [ ! -f "$java_home/include/jvmti.h" ]; then
	echo "agent/build.sh: no $java_home/include/jvmti.h (want a JDK with javac on PATH)" >&2
	exit 1
fi
mkdir -p "$out"
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -shared -fPIC \
	-I"$java_home/include" -I"$java_home/include/linux" \
	-o "$out/libsafepoint.so" "$here/safepoint.c"
gcc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -o "$out/engine-probe" "$here/engine-probe.c"
echo "$out/libsafepoint.so"
