#!/bin/sh
# run.sh: build the calling-context agent (cct.c) and run one of the real
# applications of ../realapps under it, or any Java command.
#
#   tools/cct/run.sh APP SECONDS [OUT_DIR]
#   tools/cct/run.sh -- JAVA_ARGS...
#
# APP is javac, jython, antlr, xalan, luindex, lusearch, chart, fop,
# hsqldb, scalac or scaladoc: the driver of ../realapps/APP (lucene's for
# luindex and lusearch; scala's for scalac and scaladoc, over a generated
# code base of 1 + $SCALA_MODULES files, default 19) with the classpath
# of the driver's record.sh (scala has none: Debian's Scala 2.11 jars;
# the Debian package is installed with apt if missing), run for SECONDS
# of wall time (xalan, which has no time argument, is ended after SECONDS),
# the agent marking each of the driver's iterations. The report goes to
# OUT_DIR/APP.txt (OUT_DIR defaults to out/cct), a line every
# $EVERY million calls (default 10). $CCT_OPTS add agent options
# (README.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
realapps=$root/tools/realapps
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
lib=$root/out/cct/libcct.so
mkdir -p "$root/out/cct"
gcc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC \
	-I"$java_home/include" -I"$java_home/include/linux" -o "$lib" "$here/cct.c"

if [ "${1:-}" = -- ]; then
	shift
	exec java -agentpath:"$lib=${CCT_OPTS:-every=${EVERY:-10}}" "$@"
fi

app=${1:?usage: run.sh APP SECONDS [OUT_DIR] | run.sh -- JAVA_ARGS}
secs=${2:?usage: run.sh APP SECONDS [OUT_DIR]}
out=${3:-$root/out/cct}
j=/usr/share/java
opts=
case $app in
javac) dir=javac pkg=- jars= main=JavacDriver args=$secs
	mark=com/sun/tools/javac/api/JavacTool.run ;;
jython) dir=jython pkg=jython jars=$j/jython.jar main=JythonDriver args=$secs
	mark=org/python/util/PythonInterpreter.eval ;;
antlr) dir=antlr pkg=antlr jars=$j/antlr.jar main=AntlrDriver args=$secs
	mark=antlr/Tool.doEverything ;;
xalan) dir=xalan pkg=libxalan2-java jars=$j/xalan2.jar:$j/serializer.jar:$j/xercesImpl.jar main=XalanDriver args=
	mark=org/apache/xalan/templates/StylesheetRoot.newTransformer ;;
luindex | lusearch) dir=lucene pkg=liblucene4.10-java main=LuceneDriver args="$app $secs"
	jars=$j/lucene-core-4.10.4.jar:$j/lucene-analyzers-common-4.10.4.jar:$j/lucene-queryparser-4.10.4.jar
	mark=LuceneDriver.index
	[ "$app" = lusearch ] && mark=LuceneDriver.search ;;
chart) dir=chart pkg=libjfreechart-java jars=$j/jfreechart.jar:$j/jcommon.jar main=ChartDriver args=$secs
	mark=org/jfree/chart/ChartFactory.createXYLineChart opts=-Djava.awt.headless=true ;;
fop) dir=fop pkg=libfop-java main=FopDriver args=$secs opts=-Djava.awt.headless=true
	jars=$j/fop.jar:$j/xmlgraphics-commons.jar:$j/batik-all.jar:$j/commons-io.jar:$j/commons-logging.jar:$j/fontbox2.jar
	mark=org/apache/fop/apps/FopFactory.newFop ;;
hsqldb) dir=hsqldb pkg=libhsqldb1.8.0-java jars=$j/hsqldb1.8.0.jar main=HsqldbDriver args=$secs
	mark= ;;
scalac | scaladoc) dir=scala pkg=scala main=ScalaDriver args="$app $secs ${SCALA_MODULES:-19}"
	jars=$j/scala-compiler.jar:$j/scala-library.jar:$j/scala-reflect.jar:$j/scala-xml_2.11.jar:$j/scala-parser-combinators_2.11.jar
	mark=ScalaDriver.compile
	[ "$app" = scaladoc ] && mark=ScalaDriver.document ;;
*) echo "run.sh: unknown APP $app" >&2; exit 2 ;;
esac
if [ "$pkg" != - ] && [ ! -f "${jars%%:*}" ]; then
	apt-get install -y --no-install-recommends "$pkg"
fi
mkdir -p "$out/$app/classes"
javac -d "$out/$app/classes" -cp "$jars" "$realapps/$dir"/*.java
agent="$lib=out=$out/$app.txt,every=${EVERY:-10},mark=$mark${CCT_OPTS:+,$CCT_OPTS}"
# shellcheck disable=SC2086 # opts and args are lists
if [ -z "$args" ]; then
	timeout -s TERM "$secs" java -agentpath:"$agent" $opts -cp "$out/$app/classes:$jars" $main || true
else
	java -agentpath:"$agent" $opts -cp "$out/$app/classes:$jars" $main $args
fi
grep -v '^mark' "$out/$app.txt" | tail -n 30
