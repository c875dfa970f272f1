#!/usr/bin/env bash
# Where JFR places an interpreted top frame: the bcp saved in the frame, or
# where the thread runs? See README.md ("The saved bytecode pointer").
# Usage: tools/interpreter/bcp.sh       (~10 s; needs java, javac and jfr)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d /tmp/bcp.XXXXXX)
JH=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
javac -g -d "$OUT" "$HERE/Bcp.java"
# default.jfc with jdk.ExecutionSample every 10 ms
sed -e 's|\(control="method-sampling-java-interval">\)[^<]*<|\110 ms<|' "$JH/lib/jfr/default.jfc" > "$OUT/p10.jfc"
java -Xint -XX:StartFlightRecording=filename="$OUT/bcp.jfr",settings="$OUT/p10.jfc" -cp "$OUT" Bcp > /dev/null
jfr print --json --events jdk.ExecutionSample "$OUT/bcp.jfr" > "$OUT/bcp.json"
echo "samples  method  line  bci  (top frame; java -Xint, JFR every 10 ms)"
python3 - "$OUT/bcp.json" <<'PY'
import collections, json, sys
c = collections.Counter()
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    fr = e["values"]["stackTrace"]["frames"]
    if fr:
        top = fr[0]
        c[(top["method"]["name"], top["lineNumber"], top["bytecodeIndex"])] += 1
for (m, line, bci), n in sorted(c.items(), key=lambda kv: -kv[1]):
    print(f"{n:7d}  {m:8s} {line:5d} {bci:4d}")
PY
