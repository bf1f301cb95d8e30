#!/usr/bin/env bash
# Benchmarks of whole `dctwin run` processes; quote medians.
#
#   bash bench/run.sh [BUILD_DIR] [RUNS]          the standard set (single node, pod, 24k hall)
#   bash bench/run.sh --sizes [BUILD_DIR] [RUNS]  the 24k liquid-to-air hall cut to 1, 2, 4 and 8
#                                                 pods (3,072 / 6,144 / 12,288 / 24,576 GPUs)
#   bash bench/run.sh --hour [BUILD_DIR] [RUNS]   the 24k hall for one simulated hour (RUNS default 3)
#   bash bench/run.sh --day [BUILD_DIR] [RUNS]    the 24k hall for a simulated day (RUNS default 1;
#                                                 each run takes ~10 min on 2 cores)
#   bash bench/run.sh --air-hour [BUILD_DIR] [RUNS]  the air-cooled 24k hall (llama3-24k-air) and the
#                                                 liquid-to-liquid one (llama3-24k-l2l), one
#                                                 simulated hour each, 60 s samples (RUNS default 3)
#   bash bench/run.sh --air-day [BUILD_DIR] [RUNS]   the air-cooled hall's hot day
#                                                 (llama3-24k-air-diurnal, 24 h, its 5-min samples;
#                                                 RUNS default 1)
#
# Each run prints simulated time, wall time, speed (simulated / wall), CVODE's steps, right-hand
# side and Jacobian evaluations, segments (integrator restarts) and continued segments (forcing
# steps taken without a restart) from the report's root attributes, the peak resident memory,
# and the run's wall time by part (the report's wall_time_* attributes). Environment: DCTWIN_BENCH_DURATION (simulated time of the --sizes runs,
# default 3 min).
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=standard
default_runs=5
case "${1:-}" in
  --sizes) mode=sizes ;;
  --hour) mode=hour default_runs=3 ;;
  --day) mode=day default_runs=1 ;;
  --air-hour) mode=air-hour default_runs=3 ;;
  --air-day) mode=air-day default_runs=1 ;;
esac
[[ "$mode" == standard ]] || shift
build="${1:-$top/build/release}"
runs="${2:-$default_runs}"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "bench: RUNS must be a positive whole number, not '$runs'" >&2; exit 1; }
exe="$build/cli/dctwin"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
python=/usr/bin/python3
"$python" -c 'import h5py' 2>/dev/null || { echo "bench: needs h5py (apt-get install python3-h5py)" >&2; exit 1; }

bench() {  # name, simulated seconds, dctwin arguments...
  local name="$1" simulated="$2"
  shift 2
  echo "== $name: dctwin $*"
  local walls=() peaks=()
  for ((i = 1; i <= runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$exe" "$@" -o "$out/report.h5" -q
    read -r wall kib < "$out/time"
    walls+=("$wall")
    peaks+=("$kib")
    local counts
    counts="$("$python" -c '
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
print(" ".join(str(int(a[k])) for k in ("solver_steps", "solver_rhs_evaluations", "solver_jacobian_evaluations", "solver_segments", "solver_continued_segments", "solver_ticks_at_rest")))
' "$out/report.h5")"
    read -r steps rhs jacobians segments continued at_rest <<< "$counts"
    awk -v w="$wall" -v k="$kib" -v s="$simulated" -v i="$i" -v st="$steps" -v r="$rhs" -v j="$jacobians" -v sg="$segments" -v c="$continued" -v z="$at_rest" \
      'BEGIN { printf "  run %d: simulated %g s, wall %.2f s, speed %.2fx real time, %d steps, %d RHS, %d Jacobians, %d segments (%d continued), %d ticks left out at rest, peak %.0f MiB\n",
               i, s, w, (w > 0 ? s / w : 0), st, r, j, sg, c, z, k / 1024 }'
    # Where the run's time went, from the report (docs/reports.md, wall_time_*).
    "$python" -c '
import sys, h5py
a = h5py.File(sys.argv[1], "r").attrs
p = lambda k: float(a["wall_time_" + k])
print("         by part: start %.2f s, integration %.2f s (states at requested times %.2f s), periodic updates %.2f s, "
      "scheduled updates %.2f s, knots %.2f s, continuations %.2f s, restarts %.2f s, samples %.2f s" % (
      float(a["wall_time"]) - p("run_loop"), p("integration"), p("interpolation"), p("periodic_updates"),
      p("scheduled_updates"), p("knots"), p("continuations"), p("restarts"), p("samples")))
' "$out/report.h5"
  done
  # The figure to quote: the median wall time (of an even count, the mean of the middle two) and
  # the largest peak memory of the runs.
  printf '%s\n' "${walls[@]}" | sort -g | awk -v s="$simulated" -v n="$runs" -v k="$(printf '%s\n' "${peaks[@]}" | sort -g | tail -1)" \
    '{ w[NR] = $1 } END { m = (n % 2 == 1) ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2;
       printf "  median of %d: wall %.2f s (%.2f-%.2f s), speed %.2fx real time, peak %.0f MiB\n", n, m, w[1], w[n], (m > 0 ? s / m : 0), k / 1024 }'
}

case "$mode" in
  hour)
    bench "24,576 GPUs (liquid-to-air), 1 h, 60 s samples" 3600 \
      run "$top/scenarios/llama3-24k-l2a.yaml" --duration "1 h" --output-interval 60
    exit 0 ;;
  day)
    bench "24,576 GPUs (liquid-to-air), 24 h, 600 s samples" 86400 \
      run "$top/scenarios/llama3-24k-l2a.yaml" --duration "24 h" --output-interval 600
    exit 0 ;;
  air-hour)
    bench "24,576 GPUs (air-cooled), 1 h, 60 s samples" 3600 \
      run "$top/scenarios/llama3-24k-air.yaml" --duration "1 h" --output-interval 60
    bench "24,576 GPUs (liquid-to-liquid), 1 h, 60 s samples" 3600 \
      run "$top/scenarios/llama3-24k-l2l.yaml" --duration "1 h" --output-interval 60
    exit 0 ;;
  air-day)
    bench "24,576 GPUs (air-cooled, hot day), 24 h, 300 s samples" 86400 \
      run "$top/scenarios/llama3-24k-air-diurnal.yaml"
    exit 0 ;;
esac

if [[ "$mode" == sizes ]]; then
  duration="${DCTWIN_BENCH_DURATION:-3 min}"
  simulated="$("$python" -c '
import sys
value, unit = sys.argv[1].split()
print(float(value) * {"s": 1, "min": 60, "h": 3600}[unit])' "$duration")"
  for pods in 1 2 4 8; do
    # The hall of scenarios/llama3-24k-l2a.yaml with fewer pods: the same racks, loops and job
    # shape (data parallelism shrinks with the GPUs), the same plant.
    sed "s/^    pods: 8$/    pods: $pods/" "$top/scenarios/llama3-24k-l2a.yaml" > "$out/hall-$pods.yaml"
    grep -q "^    pods: $pods$" "$out/hall-$pods.yaml" || { echo "bench: cannot set pods in the scenario" >&2; exit 1; }
    bench "$((pods * 3072)) GPUs ($pods pods, liquid-to-air), $duration" "$simulated" \
      run "$out/hall-$pods.yaml" --duration "$duration"
  done
  exit 0
fi

bench "single node, 10 min" 600 run "$top/scenarios/single-node.yaml"
bench "single node, 24 h, 10 s samples" 86400 run "$top/scenarios/single-node.yaml" --duration "24 h" --output-interval 10
bench "pod (3,072 GPUs, liquid-to-air), 10 min" 600 run "$top/scenarios/pod-l2a.yaml"
bench "24,576 GPUs (liquid-to-air), 3 min" 180 run "$top/scenarios/llama3-24k-l2a.yaml"
