#!/bin/sh
# xalan/record.sh: record XalanDriver (Debian's libxalan2-java, Xalan-J
# 2.7.2's interpretive XSLT processor, with xerces) and import a model
# (../app.sh).
#
#   tools/realapps/xalan/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
j=/usr/share/java
OUT_DIR=${1:-${OUT_DIR:-}} exec "$here/../app.sh" xalan "$here" libxalan2-java "$j/xalan2.jar:$j/serializer.jar:$j/xercesImpl.jar" \
	"java.base java.xml" XalanDriver
