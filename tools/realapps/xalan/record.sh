#!/bin/sh
# xalan/record.sh: record XalanDriver (Debian's libxalan2-java, Xalan-J
# 2.7.2's interpretive XSLT processor, with xerces) and import a model.
#
#   tools/realapps/xalan/record.sh [OUT_DIR]
#
# Installs libxalan2-java if it is missing (needs root and apt), records
# 5 s from 8 s into the run, and writes OUT_DIR (default out/realapps/xalan)
# /xalan.json and /xalan-real.yaml; the import's report, with the model's
# truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/xalan}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
jars=/usr/share/java/xalan2.jar:/usr/share/java/serializer.jar:/usr/share/java/xercesImpl.jar
if [ ! -f /usr/share/java/xalan2.jar ]; then
	apt-get install -y --no-install-recommends libxalan2-java
fi
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/XalanDriver.java"
"$here/../record.sh" "$out/xalan.json" 8s 5s -- -cp "$out/classes:$jars" XalanDriver
cd "$root"
go run ./cmd/profsim import --jfr-json "$out/xalan.json" \
	--classpath "$out/classes:$jars:$java_home/jmods/java.base.jmod:$java_home/jmods/java.xml.jmod" \
	--out "$out/xalan-real.yaml" --name xalan-real --check --seed 2
