#!/usr/bin/env bash
# Set-up and the two everyday jobs of dctwin on Debian 12, as root (or with sudo):
#
#   bash scripts/setup.sh run    install missing packages, configure, build, run scenarios/llama3-24k-l2a.yaml
#   bash scripts/setup.sh test   install missing packages, configure, build, run the whole test suite
#   bash scripts/setup.sh sanitize  the same test suite built with AddressSanitizer and
#                                UndefinedBehaviorSanitizer (preset `sanitize`, build/sanitize, no GUI)
#   bash scripts/setup.sh fuzz   install clang, build the libFuzzer targets (build/fuzz) and run each
#                                for DCTWIN_FUZZ_SECONDS (default 30) from its seed corpus, except
#                                the targets in DCTWIN_FUZZ_EXCLUDE
#
# The release build is configured with MPI (-DDCTWIN_WITH_MPI=ON): `dctwin sweep` under mpirun, and
# the test that compares a sweep run serially, on threads and on 3 MPI ranks. Run without mpirun the
# binary behaves as one without MPI.
# Idempotent: packages already installed are not touched; an existing build is reused.
# Environment: DCTWIN_BUILD_DIR (default build/release), DCTWIN_SCENARIO (default scenario of `run`),
# DCTWIN_REPORT (default report.h5), DCTWIN_JOBS (default: number of cores), DCTWIN_WARNINGS_AS_ERRORS
# (ON: compiler warnings fail the release and sanitizer builds), DCTWIN_FUZZ_SECONDS
# (default 30).
set -euo pipefail

job="${1:-}"
if [[ "$job" != "run" && "$job" != "test" && "$job" != "sanitize" && "$job" != "fuzz" ]]; then
  echo "usage: bash scripts/setup.sh run|test|sanitize|fuzz" >&2
  exit 64
fi

top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
build_dir="${DCTWIN_BUILD_DIR:-build/release}"
# ccache (when installed) shares its cache between clones: paths relative to the clone, and the
# build directory left out of the hash of builds with debug information.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$top}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
jobs="${DCTWIN_JOBS:-$(nproc)}"

# ---- 1. Debian packages -------------------------------------------------------------------------
packages=(
  g++ cmake ninja-build ccache pkg-config
  libeigen3-dev libsundials-dev libhdf5-dev libyaml-cpp-dev libcli11-dev libfmt-dev
  libudunits2-dev udunits-bin libfftw3-dev zlib1g-dev
  catch2 python3 python3-h5py python3-numpy
  # JSON output of the command line and the scenario's JSON Schema; its test checks the schema
  nlohmann-json3-dev python3-jsonschema python3-yaml
  # python/dctwin_report.py (reports into xarray and pandas) and the reports read by the netCDF
  # tools in the tests (ncdump, netCDF4-python, xarray's two engines)
  python3-xarray python3-pandas netcdf-bin python3-netcdf4 python3-h5netcdf
  # `dctwin sweep` across nodes (cmake -DDCTWIN_WITH_MPI=ON; the default build does not use MPI)
  libopenmpi-dev openmpi-bin
  # dctwin-gui (Qt 6 + VTK) and its tests under a virtual X server with Mesa's software OpenGL
  qt6-base-dev libqt6opengl6-dev libvtk9-dev xvfb xauth
)
# The fuzz targets are built with clang (libFuzzer comes with Debian's clang package).
[[ "$job" == "fuzz" ]] && packages+=(clang)
missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ "$(id -u)" -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# ---- 2. Configure and build ---------------------------------------------------------------------
if [[ "$job" == "fuzz" ]]; then
  DCTWIN_JOBS="$jobs" exec bash scripts/fuzz.sh "${DCTWIN_FUZZ_SECONDS:-30}"
fi
if [[ "$job" == "sanitize" ]]; then
  [[ -f build/sanitize/build.ninja ]] || cmake --preset sanitize
  # DCTWIN_WARNINGS_AS_ERRORS=ON (CI sets it) turns every compiler warning into an error.
  if [[ -n "${DCTWIN_WARNINGS_AS_ERRORS:-}" ]]; then
    cmake -S . -B build/sanitize -DDCTWIN_WARNINGS_AS_ERRORS="$DCTWIN_WARNINGS_AS_ERRORS" > /dev/null
  fi
  cmake --build build/sanitize -j "$jobs"
  ctest --preset sanitize -j "$jobs"
  exit 0
fi
if [[ ! -f "$build_dir/build.ninja" ]]; then
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDCTWIN_BUILD_TESTS=ON -DDCTWIN_WITH_MPI=ON
fi
if [[ -n "${DCTWIN_WARNINGS_AS_ERRORS:-}" ]]; then
  cmake -S . -B "$build_dir" -DDCTWIN_WARNINGS_AS_ERRORS="$DCTWIN_WARNINGS_AS_ERRORS" > /dev/null
fi
cmake --build "$build_dir" -j "$jobs"

# ---- 3. The job ---------------------------------------------------------------------------------
if [[ "$job" == "run" ]]; then
  scenario="${DCTWIN_SCENARIO:-scenarios/llama3-24k-l2a.yaml}"
  report="${DCTWIN_REPORT:-report.h5}"
  "$build_dir/cli/dctwin" run "$scenario" -o "$report"
else
  ctest --test-dir "$build_dir" -j "$jobs" --output-on-failure
fi
