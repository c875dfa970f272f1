#!/bin/sh
# javac/record.sh: record JavacDriver (the JDK's own javac compiling a
# generated program) and import a model (../app.sh). The import fails
# today (README.md).
#
#   tools/realapps/javac/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=${1:-${OUT_DIR:-}} exec "$here/../app.sh" javac "$here" - "" "jdk.compiler java.compiler java.base" JavacDriver
