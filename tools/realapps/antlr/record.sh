#!/bin/sh
# antlr/record.sh: record AntlrDriver (Debian's antlr package, ANTLR 2.7.7,
# the version DaCapo 2006's antlr benchmark ran) and import a model.
#
#   tools/realapps/antlr/record.sh [OUT_DIR]
#
# Installs antlr if it is missing (needs root and apt), records 5 s from
# 8 s into the run, and writes OUT_DIR (default out/realapps/antlr)
# /antlr.json and /antlr-real.yaml; the import's report, with the model's
# truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/antlr}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
jars=/usr/share/java/antlr.jar
if [ ! -f "$jars" ]; then
	apt-get install -y --no-install-recommends antlr
fi
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/AntlrDriver.java"
"$here/../record.sh" "$out/antlr.json" 8s 5s -- -cp "$out/classes:$jars" AntlrDriver
cd "$root"
go run ./cmd/profsim import --jfr-json "$out/antlr.json" \
	--classpath "$out/classes:$(readlink -f $jars):$java_home/jmods/java.base.jmod" \
	--out "$out/antlr-real.yaml" --name antlr-real --check --seed 2
