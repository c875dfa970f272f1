#!/bin/sh
# hotcold/record.sh: record Listing 1 and refresh the round-trip test's
# inputs in importer/testdata/hotcold (HotCold.class, hotcold.json).
#
#   tools/realapps/hotcold/record.sh [SAMPLES]
#
# The recording starts 5 s into the run, when cold() and hot() are
# compiled even on a loaded machine (on one with a load of 11 on 2 cores
# C2 took 2.6 s to get to them; until then a third of the samples show
# the interpreted cold() at its call with no hot() frame), and lasts 2 s;
# jfrtrim keeps SAMPLES (default 300) samples from 200 ms in.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
samples=${1:-300}
dest=$root/importer/testdata/hotcold
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$dest"
javac -g -d "$tmp/classes" "$here/HotCold.java"
"$here/../record.sh" "$tmp/full.json" 5s 2s -- -cp "$tmp/classes" HotCold
(cd "$root" && go run ./tools/realapps/jfrtrim --skip 200ms --samples "$samples") <"$tmp/full.json" >"$dest/hotcold.json"
cp "$tmp/classes/HotCold.class" "$dest/HotCold.class"
ls -l "$dest"
