#!/bin/sh
# hsqldb/record.sh: record HsqldbDriver (Debian's libhsqldb1.8.0-java,
# HSQLDB 1.8, the version DaCapo 2006's hsqldb ran) and import a model
# (../app.sh).
#
#   tools/realapps/hsqldb/record.sh [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=${1:-${OUT_DIR:-}} exec "$here/../app.sh" hsqldb "$here" libhsqldb1.8.0-java /usr/share/java/hsqldb1.8.0.jar \
	"java.base java.sql" HsqldbDriver
