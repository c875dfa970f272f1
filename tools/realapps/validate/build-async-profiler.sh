#!/bin/sh
# build-async-profiler.sh: build async-profiler from its public
# repository's release tag, outside this repository.
#
#   tools/realapps/validate/build-async-profiler.sh [DIR]
#
# DIR is $ASYNC_PROFILER_HOME or /work/build/async-profiler-$TAG. The source
# is `git archive $TAG` of $ASYNC_PROFILER_GIT (a git directory of
# github.com/async-profiler/async-profiler; default the mirror that the
# session's fetch tool made). Prints DIR/build/bin/asprof's version when done;
# does nothing when DIR/build/lib/libasyncProfiler.so already exists.
set -eu
tag=${ASYNC_PROFILER_TAG:-v4.5}
git_dir=${ASYNC_PROFILER_GIT:-/work/.mirror/async-profiler+async-profiler/repo}
dir=${1:-${ASYNC_PROFILER_HOME:-/work/build/async-profiler-${tag#v}}}
if [ -f "$dir/build/lib/libasyncProfiler.so" ]; then
	echo "build-async-profiler.sh: $dir already built" >&2
	"$dir/build/bin/asprof" --version
	exit 0
fi
if ! git --git-dir="$git_dir" rev-parse --verify -q "$tag^{commit}" >/dev/null; then
	echo "build-async-profiler.sh: no tag $tag in $git_dir (set ASYNC_PROFILER_GIT to a clone of github.com/async-profiler/async-profiler)" >&2
	exit 1
fi
commit=$(git --git-dir="$git_dir" rev-parse "$tag^{commit}")
java_home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
mkdir -p "$dir"
git --git-dir="$git_dir" archive "$tag" | tar -x -C "$dir"
echo "build-async-profiler.sh: building $tag ($commit) in $dir with $(gcc --version | head -1)" >&2
start=$(date +%s)
JAVA_HOME=$java_home make -C "$dir" -j"$(nproc)"
echo "build-async-profiler.sh: built in $(( $(date +%s) - start )) s" >&2
echo "$tag $commit" >"$dir/TAG"
"$dir/build/bin/asprof" --version
