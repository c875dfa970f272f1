#!/bin/sh
# app.sh: record one of the drivers here and import its model; what each
# APP/record.sh runs.
#
#   tools/realapps/app.sh NAME DRIVER_DIR PACKAGE JARS MODULES MAIN [ARGS...]
#
# NAME names the outputs: OUT/NAME.json and OUT/NAME-real.yaml, OUT being
# $OUT_DIR or out/realapps/NAME. PACKAGE is the Debian packages holding
# JARS (a space-separated list; JARS a path list; installed with apt if a
# jar is missing; "-" for none); MODULES the JDK modules (java.base ...) the import reads
# beside the driver's classes and the jars. MAIN [ARGS...] is the driver's
# class and arguments; $JVM_OPTS go before it. The recording is
# $RECORD_DURATION (default 5s) from 8 s in (record.sh); the import refines
# three times and prints its check.
# RECORD_ONLY=1 stops after the recording; IMPORT_ONLY=1 imports the
# recording OUT/NAME.json made before; $IMPORT_FLAGS go to profsim import.
set -eu
name=$1 dir=$2 pkg=$3 jars=$4 modules=$5
shift 5
realapps=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$realapps/../.." && pwd)
out=${OUT_DIR:-$root/out/realapps/$name}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
# Every jar must be there: the JVM leaves a missing one off the class path
# silently, and with it what the program runs (fop transforms with Xalan-J
# when libxalan2-java is installed, with the JDK's own XSLT otherwise).
missing=
old_ifs=$IFS
IFS=:
for jar in $jars; do
	[ -f "$jar" ] || missing=1
done
IFS=$old_ifs
if [ "$pkg" != - ] && [ -n "$missing" ]; then
	# shellcheck disable=SC2086 # PACKAGE is a list of packages
	apt-get install -y --no-install-recommends $pkg
fi
mkdir -p "$out"
if [ "${IMPORT_ONLY:-}" != 1 ]; then
	javac -d "$out/classes" -cp "$jars" "$dir"/*.java
	# shellcheck disable=SC2086 # JVM_OPTS is a list of options
	"$realapps/record.sh" "$out/$name.json" 8s "${RECORD_DURATION:-5s}" -- ${JVM_OPTS:-} -cp "$out/classes:$jars" "$@"
fi
[ "${RECORD_ONLY:-}" = 1 ] && exit 0
cp="$out/classes"
for j in $(echo "$jars" | tr ':' ' '); do cp="$cp:$(readlink -f "$j")"; done
for m in $modules; do cp="$cp:$java_home/jmods/$m.jmod"; done
cd "$root"
go run ./cmd/profsim import --jfr-json "$out/$name.json" --classpath "$cp" \
	--out "$out/$name-real.yaml" --name "$name-real" --check --seed 2 ${IMPORT_FLAGS:-}
