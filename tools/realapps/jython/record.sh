#!/bin/sh
# jython/record.sh: record JythonDriver (Debian's jython, Jython 2.7, on
# a pybench-like script) and import a model.
#
#   tools/realapps/jython/record.sh [OUT_DIR]
#
# Installs jython if it is missing (needs root and apt), records 5 s from
# 8 s into the run and writes OUT_DIR (default out/realapps/jython)
# /jython.json and /jython-real.yaml; the import's report, with the
# model's truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/jython}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
jars=/usr/share/java/jython.jar
if [ ! -f "$jars" ]; then
	apt-get install -y --no-install-recommends jython
fi
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/JythonDriver.java"
"$here/../record.sh" "$out/jython.json" 8s 5s -- -cp "$out/classes:$jars" JythonDriver
cd "$root"
go run ./cmd/profsim import --jfr-json "$out/jython.json" \
	--classpath "$out/classes:$(readlink -f $jars):$java_home/jmods/java.base.jmod" \
	--out "$out/jython-real.yaml" --name jython-real --check --seed 2
