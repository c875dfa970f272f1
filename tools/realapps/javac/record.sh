#!/bin/sh
# javac/record.sh: record JavacDriver (the JDK's own javac, SPECjvm98's
# javac benchmark's successor, compiling a generated program) and import
# a model.
#
#   tools/realapps/javac/record.sh [OUT_DIR]
#
# Records 5 s from 8 s into the run and writes OUT_DIR (default
# out/realapps/javac) /javac.json and /javac-real.yaml; the import's
# report, with the model's truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/javac}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
mkdir -p "$out"
javac -d "$out/classes" "$here/JavacDriver.java"
"$here/../record.sh" "$out/javac.json" 8s 5s -- -cp "$out/classes" JavacDriver
cd "$root"
jm=$java_home/jmods
go run ./cmd/profsim import --jfr-json "$out/javac.json" \
	--classpath "$out/classes:$jm/jdk.compiler.jmod:$jm/java.compiler.jmod:$jm/java.base.jmod" \
	--out "$out/javac-real.yaml" --name javac-real --check --seed 2
