#!/bin/sh
# antlr/record.sh: record AntlrDriver (Debian's antlr, ANTLR 2.7.7, the
# version DaCapo 2006's antlr ran) and import a model (../app.sh).
#
#   tools/realapps/antlr/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=${1:-${OUT_DIR:-}} exec "$here/../app.sh" antlr "$here" antlr /usr/share/java/antlr.jar java.base AntlrDriver
