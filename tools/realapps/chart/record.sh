#!/bin/sh
# chart/record.sh: record ChartDriver (Debian's libjfreechart-java,
# JFreeChart 1.0.19, rendering charts headless) and import a model
# (../app.sh).
#
#   tools/realapps/chart/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
j=/usr/share/java
OUT_DIR=${1:-${OUT_DIR:-}} JVM_OPTS=-Djava.awt.headless=true exec "$here/../app.sh" chart "$here" libjfreechart-java \
	"$j/jfreechart.jar:$j/jcommon.jar" "java.base java.desktop" ChartDriver
