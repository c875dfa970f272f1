#!/bin/sh
# lucene/record.sh: record LuceneDriver (Debian's liblucene4.10-java) as
# luindex or lusearch and import a model.
#
#   tools/realapps/lucene/record.sh luindex|lusearch [OUT_DIR]
#
# Installs liblucene4.10-java if it is missing (needs root and apt),
# records 5 s from 8 s into the run and writes OUT_DIR (default
# out/realapps/BENCH) /BENCH.json and /BENCH-real.yaml; the import's
# report, with the model's truth against the recording, goes to stdout.
set -eu
bench=${1:?usage: record.sh luindex|lusearch [OUT_DIR]}
case $bench in luindex | lusearch) ;; *) echo "record.sh: want luindex or lusearch, got $bench" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${2:-$root/out/realapps/$bench}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
j=/usr/share/java
jars=$j/lucene-core-4.10.4.jar:$j/lucene-analyzers-common-4.10.4.jar:$j/lucene-queryparser-4.10.4.jar
if [ ! -f $j/lucene-core-4.10.4.jar ]; then
	apt-get install -y --no-install-recommends liblucene4.10-java
fi
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/LuceneDriver.java"
"$here/../record.sh" "$out/$bench.json" 8s 5s -- -cp "$out/classes:$jars" LuceneDriver "$bench"
cd "$root"
go run ./cmd/profsim import --jfr-json "$out/$bench.json" \
	--classpath "$out/classes:$jars:$java_home/jmods/java.base.jmod" \
	--out "$out/$bench-real.yaml" --name "$bench-real" --check --seed 2
