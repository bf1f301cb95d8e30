#!/usr/bin/env bash
# Benchmarks of whole `dctwin run` processes. Prints wall time, speed (simulated / wall) and peak
# memory of each run; quote medians. Usage: bash bench/run.sh [BUILD_DIR] [RUNS]
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$top/build/release}"
runs="${2:-5}"
exe="$build/cli/dctwin"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

bench() {  # name, simulated seconds, dctwin arguments...
  local name="$1" simulated="$2"
  shift 2
  echo "== $name: dctwin $*"
  for ((i = 1; i <= runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$exe" "$@" -o "$out/report.h5" -q
    read -r wall kib < "$out/time"
    awk -v w="$wall" -v k="$kib" -v s="$simulated" -v i="$i" \
      'BEGIN { printf "  run %d: wall %.3f s, speed %.0fx real time, peak %.1f MiB\n", i, w, (w > 0 ? s / w : 0), k / 1024 }'
  done
}

bench "single node, 10 min" 600 run "$top/scenarios/single-node.yaml"
bench "single node, 24 h, 10 s samples" 86400 run "$top/scenarios/single-node.yaml" --duration "24 h" --output-interval 10
bench "pod (3,072 GPUs, liquid-to-air), 10 min" 600 run "$top/scenarios/pod-l2a.yaml"
bench "24,576 GPUs (liquid-to-air), 3 min" 180 run "$top/scenarios/llama3-24k-l2a.yaml"
