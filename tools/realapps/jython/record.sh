#!/bin/sh
# jython/record.sh: record JythonDriver (Debian's jython, Jython 2.7, on
# a pybench-like script) and import a model (../app.sh).
#
#   tools/realapps/jython/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=${1:-${OUT_DIR:-}} exec "$here/../app.sh" jython "$here" jython /usr/share/java/jython.jar java.base JythonDriver
