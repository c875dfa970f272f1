# apps.sh: the validation harness's applications (sourced by run.sh).
#
# app_def NAME sets app_dir (the driver's directory under tools/realapps),
# app_pkg (the Debian packages holding the jars, space-separated, "-" for none), app_jars
# (a path list), app_opts (JVM options) and app_main (the class and its
# arguments), as tools/realapps/APP/record.sh passes them to app.sh.
# shellcheck shell=bash
APPS="antlr chart fop hsqldb javac jython luindex lusearch xalan"

app_def() {
	local j=/usr/share/java
	app_opts="" app_pkg=- app_jars=""
	case $1 in
	antlr) app_dir=antlr app_pkg=antlr app_jars=$j/antlr.jar app_main=AntlrDriver ;;
	chart)
		app_dir=chart app_pkg=libjfreechart-java app_jars="$j/jfreechart.jar:$j/jcommon.jar"
		app_opts=-Djava.awt.headless=true app_main=ChartDriver
		;;
	fop)
		# xalan2.jar: batik-all.jar's Class-Path names it, and FOP's
		# transforms run on Xalan-J where it is installed (the JDK's own
		# XSLT otherwise): installed, named, so every run is the same.
		app_dir=fop app_pkg="libfop-java libxalan2-java"
		app_jars="$j/fop.jar:$j/xmlgraphics-commons.jar:$j/batik-all.jar:$j/commons-io.jar:$j/commons-logging.jar:$j/fontbox2.jar:$j/xalan2.jar"
		app_opts=-Djava.awt.headless=true app_main=FopDriver
		;;
	hsqldb) app_dir=hsqldb app_pkg=libhsqldb1.8.0-java app_jars=$j/hsqldb1.8.0.jar app_main=HsqldbDriver ;;
	javac) app_dir=javac app_main=JavacDriver ;;
	jython) app_dir=jython app_pkg=jython app_jars=$j/jython.jar app_main=JythonDriver ;;
	luindex | lusearch)
		app_dir=lucene app_pkg=liblucene4.10-java
		app_jars="$j/lucene-core-4.10.4.jar:$j/lucene-analyzers-common-4.10.4.jar:$j/lucene-queryparser-4.10.4.jar"
		app_main="LuceneDriver $1"
		;;
	xalan) app_dir=xalan app_pkg=libxalan2-java app_jars="$j/xalan2.jar:$j/serializer.jar:$j/xercesImpl.jar" app_main=XalanDriver ;;
	*) return 1 ;;
	esac
}
