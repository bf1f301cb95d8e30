#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then a program outside the project built against the
# installed package (find_package(dctwin)) runs the installed single-node scenario.
#   test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build="$1" source="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"

fail() { echo "FAIL: $*" >&2; exit 1; }
for f in bin/dctwin bin/dctwin-report-probe include/dctwin/io/run.hpp include/dctwin/solver/types.hpp \
         include/dctwin/core/parameters.hpp \
         include/dctwin/models/facility/site.hpp lib/cmake/dctwin/dctwinConfig.cmake \
         lib/cmake/dctwin/dctwinConfigVersion.cmake share/dctwin/scenarios/single-node.yaml \
         share/dctwin/python/dctwin_report.py share/doc/dctwin/README.md; do
  [[ -e "$prefix/$f" ]] || fail "$f was not installed"
done
"$prefix/bin/dctwin" --version | grep -q '^dctwin ' || fail "the installed dctwin does not run"

generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$source/tests/install/consumer" -B "$work/consumer" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" \
  || { cat "$work/configure.log"; fail "find_package(dctwin) failed"; }
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; fail "the consumer does not build"; }
out="$("$work/consumer/consumer" "$prefix/share/dctwin/scenarios/single-node.yaml" "$work/report.h5")"
echo "$out"
[[ "$out" == "finished 60 s, energy balance "* ]] || fail "unexpected output: $out"
[[ -s "$work/report.h5" ]] || fail "no report"
echo "PASS"
