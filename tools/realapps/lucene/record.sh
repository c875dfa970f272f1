#!/bin/sh
# lucene/record.sh: record LuceneDriver (Debian's liblucene4.10-java) as
# luindex or lusearch and import a model (../app.sh).
#
#   tools/realapps/lucene/record.sh luindex|lusearch [OUT_DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:?usage: record.sh luindex|lusearch}
case $bench in luindex | lusearch) ;; *) echo "record.sh: want luindex or lusearch, got $bench" >&2; exit 2 ;; esac
j=/usr/share/java
OUT_DIR=${2:-${OUT_DIR:-}} exec "$here/../app.sh" "$bench" "$here" liblucene4.10-java \
	"$j/lucene-core-4.10.4.jar:$j/lucene-analyzers-common-4.10.4.jar:$j/lucene-queryparser-4.10.4.jar" \
	java.base LuceneDriver "$bench"
