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
# The HDF5 targets (`report`, `gui-report`) meet known faults inside libhdf5 1.10 on a damaged
# global heap (docs/reliability.md): hangs, reads out of bounds and a memcpy of overlapping ranges,
# all under H5HG_read. They run in fork mode, where fuzzing goes on after a crash or a timeout;
# afterwards each such input is run again on its own and triaged by the stack of its failure (the
# first stack of the log; for a timeout, the one libFuzzer prints of the stuck input):
#   1. frames of neither libhdf5 nor dctwin are left out: the sanitizer and libFuzzer runtimes, the C
#      and C++ libraries, zlib, inline frames from system headers (/usr/include, /usr/lib, glibc's
#      sysdeps/ and csu/); the replay runs with fast_unwind_on_malloc=0, so that the stack of an
#      allocation refused inside libhdf5 reaches its caller (libhdf5 has no frame pointers);
#   2. a libhdf5 frame is one in libhdf5*.so; a dctwin frame is one with a source line of ours;
#   3. the input is a known libhdf5 fault only when what is left reads, from the innermost frame
#      out: one or more libhdf5 frames, then the reader's call into HDF5 (a dctwin frame in one of
#      the files that call HDF5 for the readers: hdf5_handles.cpp, report_reader.cpp,
#      report_probe.cpp, validation_report.cpp, report_model.cpp, validation_model.cpp), then only dctwin
#      frames (the reader's callers, the fuzz entry) and no further libhdf5 frame;
#   4. anything else is a finding: a dctwin frame innermost, a dctwin frame between two libhdf5
#      frames (HDF5 calling back into dctwin code, such as an iteration callback, which then
#      crashed inside HDF5 again), a call into HDF5 from outside the readers' files, or no
#      libhdf5 frame at all. A stack that stops inside libhdf5 (the unwinder could not go on)
#      counts as a known fault.
# Known faults are kept in build/fuzz/artifacts/libhdf5/ with their logs. An input that does not
# fail again when it runs alone is counted as not reproducible (kept in
# build/fuzz/artifacts/unreproduced/): the readers keep no state from one input to the next,
# libhdf5 does, and a damaged heap read earlier can make a later input crash.
# Input sizes: up to 1 MiB for the HDF5 targets, 256 KiB for the text readers (-max_len); the
# corpora hold seeds beyond 64 KiB (tests/fuzz/make_large_seeds.sh).
# Environment: DCTWIN_FUZZ_EXCLUDE (target names left out when none are given).
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

all_targets=(scenario scenario-site weather report sweep gui-report telemetry-auto telemetry-nvidia-smi-csv telemetry-nvidia-smi-dmon
             telemetry-dcgmi-dmon telemetry-prometheus telemetry-prometheus-json telemetry-csv)
targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in "${all_targets[@]}"; do
    [[ " ${DCTWIN_FUZZ_EXCLUDE:-} " == *" $t "* ]] || targets+=("$t")
  done
fi

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
  # -timeout: one input taking longer is a finding (a hang); -rss_limit_mb: so is using more memory.
  max_len=262144
  hdf5=0
  [[ "$t" == "report" || "$t" == "gui-report" ]] && hdf5=1 && max_len=1048576
  options=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -max_len="$max_len" -print_final_stats=1)
  ((workers > 1)) && options+=(-fork="$workers")
  asan_options="$ASAN_OPTIONS"
  artifacts="$build_dir/artifacts/$t-"
  if ((hdf5)); then
    # Fork mode: crashes and timeouts (5 s) are kept and triaged below; running out of memory stays
    # a finding.
    options+=(-fork="$workers" -timeout=5 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=0)
    rm -rf "$build_dir/artifacts/triage"
    mkdir -p "$build_dir/artifacts/triage" "$build_dir/artifacts/libhdf5" "$build_dir/artifacts/unreproduced"
    artifacts="$build_dir/artifacts/triage/"
  fi
  status=0
  ASAN_OPTIONS="$asan_options" "$exe" "${options[@]}" -artifact_prefix="$artifacts" "$work" "$seeds" >"$log" 2>&1 ||
    status=$?
  known=0
  unreproduced=0
  if ((hdf5)); then
    # In fork mode the exit code is the last job's, whatever was ignored: what counts is that the
    # run went to its end, and the triage.
    status=0
    grep -q '^INFO: exiting: ' "$log" || status=1
    for input in "$build_dir"/artifacts/triage/*; do
      [[ -f "$input" ]] || continue
      replay="$input.log"
      replayed=0
      (ASAN_OPTIONS="$asan_options:fast_unwind_on_malloc=0" timeout 120 "$exe" -timeout=5 -runs=1 "$input" >"$replay" 2>&1
       exit $?) 2>/dev/null ||
        replayed=$?
      if ((replayed == 0)); then
        unreproduced=$((unreproduced + 1))
        mv "$input" "$replay" "$build_dir/artifacts/unreproduced/"
        continue
      fi
      # The triage rule above, on the first stack of the log.
      where="$(awk '
        function kind(line) {
          if (line ~ /libhdf5[^ ]*\.so/) return "hdf5"
          if (line ~ /compiler-rt|llvm|\/usr\/include\/|\/usr\/lib\/|sysdeps\/|csu\//) return "other"
          if (line ~ /\.(cpp|hpp|cc|h):[0-9]+/) return "dctwin"
          return "other"
        }
        /^ *#[0-9]+ / {
          if ($1 == "#0" && started) exit
          started = 1
          k = kind($0)
          if (k == "other") next
          if (state == "") {
            if (k == "dctwin") { verdict = "dctwin frame innermost: " $0; exit }
            state = "hdf5"; next
          }
          if (state == "hdf5" && k == "dctwin") {
            if ($0 !~ /(hdf5_handles|report_reader|report_probe|validation_report|report_model|validation_model)\.cpp:[0-9]+/) {
              verdict = "call into libhdf5 from outside the readers: " $0; exit
            }
            state = "callers"; next
          }
          if (state == "callers" && k == "hdf5") { verdict = "dctwin frame between libhdf5 frames, then: " $0; exit }
        }
        END {
          if (verdict != "") print verdict
          else if (state == "") print "no libhdf5 frame"
          else print "libhdf5"
        }' "$replay")"
      if [[ "$where" == "libhdf5" ]]; then
        known=$((known + 1))
        mv "$input" "$replay" "$build_dir/artifacts/libhdf5/"
      else
        echo "fuzz: $t: $(basename "$input") is not a known libhdf5 fault: $where (log: $replay)"
        mv "$input" "$build_dir/artifacts/$t-$(basename "$input")"
        status=1
      fi
    done
  fi
  if ((status == 0)); then
    # Inputs run: the final statistics, or in fork mode the last status line (`#N: cov: ...`).
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)"
    [[ -n "$runs" ]] || runs="$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)"
    note=""
    ((known > 0)) && note=", $known inputs crashed or hung inside libhdf5 (known, in $build_dir/artifacts/libhdf5)"
    ((unreproduced > 0)) && note="$note, $unreproduced failed only after earlier inputs (in $build_dir/artifacts/unreproduced)"
    echo "fuzz: $t: OK (${runs:-?} inputs in $seconds s$note)"
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
