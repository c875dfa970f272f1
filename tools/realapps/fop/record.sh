#!/bin/sh
# fop/record.sh: record FopDriver (Debian's libfop-java, Apache FOP 2.8,
# rendering XSL-FO to PDF) and import a model.
#
#   tools/realapps/fop/record.sh [OUT_DIR]
#
# Installs libfop-java if it is missing (needs root and apt), records 5 s
# from 8 s into the run and writes OUT_DIR (default out/realapps/fop)
# /fop.json and /fop-real.yaml; the import's report, with the model's
# truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/fop}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
j=/usr/share/java
if [ ! -f $j/fop.jar ]; then
	apt-get install -y --no-install-recommends libfop-java
fi
jars=$j/fop.jar:$j/xmlgraphics-commons.jar:$j/batik-all.jar:$j/commons-io.jar:$j/commons-logging.jar:$j/fontbox2.jar
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/FopDriver.java"
"$here/../record.sh" "$out/fop.json" 8s 5s -- -Djava.awt.headless=true -cp "$out/classes:$jars" FopDriver
cd "$root"
real=""
for f in $(echo "$jars" | tr ':' ' '); do real="$real:$(readlink -f "$f")"; done
jm=$java_home/jmods
go run ./cmd/profsim import --jfr-json "$out/fop.json" \
	--classpath "$out/classes$real:$jm/java.base.jmod:$jm/java.xml.jmod:$jm/java.desktop.jmod" \
	--out "$out/fop-real.yaml" --name fop-real --check --seed 2
