#!/bin/sh
# chart/record.sh: record ChartDriver (Debian's libjfreechart-java,
# JFreeChart 1.0.19, rendering charts headless) and import a model.
#
#   tools/realapps/chart/record.sh [OUT_DIR]
#
# Installs libjfreechart-java if it is missing (needs root and apt),
# records 5 s from 8 s into the run and writes OUT_DIR (default
# out/realapps/chart) /chart.json and /chart-real.yaml; the import's
# report, with the model's truth against the recording, goes to stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:-$root/out/realapps/chart}
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
jars=/usr/share/java/jfreechart.jar:/usr/share/java/jcommon.jar
if [ ! -f /usr/share/java/jfreechart.jar ]; then
	apt-get install -y --no-install-recommends libjfreechart-java
fi
mkdir -p "$out"
javac -d "$out/classes" -cp "$jars" "$here/ChartDriver.java"
"$here/../record.sh" "$out/chart.json" 8s 5s -- -Djava.awt.headless=true -cp "$out/classes:$jars" ChartDriver
cd "$root"
jm=$java_home/jmods
go run ./cmd/profsim import --jfr-json "$out/chart.json" \
	--classpath "$out/classes:$(readlink -f /usr/share/java/jfreechart.jar):$(readlink -f /usr/share/java/jcommon.jar):$jm/java.base.jmod:$jm/java.desktop.jmod" \
	--out "$out/chart-real.yaml" --name chart-real --check --seed 2
