#!/bin/sh
# hsqldb/record.sh: record HsqldbDriver (Debian's libhsqldb1.8.0-java,
# HSQLDB 1.8, the version DaCapo 2006's hsqldb ran) and import a model.
#
#   tools/realapps/hsqldb/record.sh [OUT_DIR]
#
# Installs libhsqldb1.8.0-java if it is missing (needs root and apt),
# records 5 s from 8 s into the run and writes OUT_DIR (default
# out/realapps/hsqldb) /hsqldb.json and /hsqldb-real.yaml; the import's
# report, with the model's truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/hsqldb}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
jars=/usr/share/java/hsqldb1.8.0.jar
if [ ! -f "$jars" ]; then
	apt-get install -y --no-install-recommends libhsqldb1.8.0-java
fi
mkdir -p "$out"
javac -d "$out/classes" "$here/HsqldbDriver.java"
"$here/../record.sh" "$out/hsqldb.json" 8s 5s -- -cp "$out/classes:$jars" HsqldbDriver
cd "$root"
jm=$java_home/jmods
go run ./cmd/profsim import --jfr-json "$out/hsqldb.json" \
	--classpath "$out/classes:$(readlink -f $jars):$jm/java.base.jmod:$jm/java.sql.jmod" \
	--out "$out/hsqldb-real.yaml" --name hsqldb-real --check --seed 2
