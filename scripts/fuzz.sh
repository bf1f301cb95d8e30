#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (AddressSanitizer + UndefinedBehaviorSanitizer,
# build/fuzz) and runs each for a bounded time, starting from its seed corpus.
#
#   bash scripts/fuzz.sh                  every target, 10 s each
#   bash scripts/fuzz.sh 60               every target, 60 s each
#   bash scripts/fuzz.sh 30 report scenario   only these targets (names: see tests/fuzz/CMakeLists.txt)
#
# Exits 1 if any target found a crash, a sanitizer report or an undocumented exception; the input is
# left in build/fuzz/artifacts/ (reproduce with build/fuzz/tests/fuzz/fuzz-NAME FILE). New inputs that
# reach new code go to build/fuzz/corpus/NAME, never into the source tree; copy the interesting ones
# to tests/fuzz/corpus/NAME by hand (the regular test suite then runs them on every build).
# The `report` target stops within seconds on a known hang inside libhdf5 1.10 (a damaged global
# heap; docs/reliability.md); run it on its own when looking at the report reader.
# Environment: DCTWIN_FUZZ_BUILD_DIR (default build/fuzz), DCTWIN_JOBS (default: number of cores),
# DCTWIN_FUZZ_WORKERS (parallel fuzzing processes per target, default 1).
set -euo pipefail

top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
seconds="${1:-10}"
shift || true
build_dir="${DCTWIN_FUZZ_BUILD_DIR:-build/fuzz}"
jobs="${DCTWIN_JOBS:-$(nproc)}"
workers="${DCTWIN_FUZZ_WORKERS:-1}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
  echo "usage: bash scripts/fuzz.sh [SECONDS-PER-TARGET] [TARGET...]" >&2
  exit 64
fi

all_targets=(scenario scenario-site weather report telemetry-auto telemetry-nvidia-smi-csv telemetry-nvidia-smi-dmon
             telemetry-dcgmi-dmon telemetry-prometheus telemetry-prometheus-json telemetry-csv)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")

for tool in clang clang++; do
  if ! command -v "$tool" >/dev/null; then
    echo "fuzz: $tool not found (Debian: apt-get install clang; libFuzzer comes with it)" >&2
    exit 69
  fi
done

# ---- Build -------------------------------------------------------------------------------------
# -O1 with line tables only keeps the instrumented build shorter than -O2 -g; stack traces still
# name files and lines.
if [[ ! -f "$build_dir/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" \
    -DDCTWIN_BUILD_TESTS=OFF -DDCTWIN_BUILD_GUI=OFF -DDCTWIN_FUZZ=ON >/dev/null
fi
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz-$t"); done
cmake --build "$build_dir" -j "$jobs" --target "${build_targets[@]}"

# ---- Run ---------------------------------------------------------------------------------------
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$top/tests/fuzz/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
mkdir -p "$build_dir/artifacts" "$build_dir/logs"
failed=()
for t in "${targets[@]}"; do
  exe="$build_dir/tests/fuzz/fuzz-$t"
  seeds="tests/fuzz/corpus/$t"
  work="$build_dir/corpus/$t"
  log="$build_dir/logs/$t.log"
  mkdir -p "$work"
  parallel=()
  ((workers > 1)) && parallel=(-fork="$workers")
  # -timeout: one input taking longer is a finding (a hang); -rss_limit_mb: so is using more memory.
  if "$exe" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -max_len=65536 \
       "${parallel[@]}" -print_final_stats=1 \
       -artifact_prefix="$build_dir/artifacts/$t-" "$work" "$seeds" >"$log" 2>&1; then
    runs="$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
    echo "fuzz: $t: OK ($runs inputs in $seconds s)"
  else
    echo "fuzz: $t: FAILED (log: $log)"
    grep -m5 -E 'ERROR: |runtime error|terminate called|what\(\)|SUMMARY' "$log" | sed 's/^/    /' || true
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]} (inputs in $build_dir/artifacts)"
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, no finding"
