#!/bin/sh
# fop/record.sh: record FopDriver (Debian's libfop-java, Apache FOP 2.8,
# rendering XSL-FO to PDF) and import a model (../app.sh).
#
#   tools/realapps/fop/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
j=/usr/share/java
OUT_DIR=${1:-${OUT_DIR:-}} JVM_OPTS=-Djava.awt.headless=true exec "$here/../app.sh" fop "$here" "libfop-java libxalan2-java" \
	"$j/fop.jar:$j/xmlgraphics-commons.jar:$j/batik-all.jar:$j/commons-io.jar:$j/commons-logging.jar:$j/fontbox2.jar:$j/xalan2.jar" \
	"java.base java.xml java.desktop" FopDriver
