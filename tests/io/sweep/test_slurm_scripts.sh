#!/bin/bash
# The shipped Slurm scripts (scripts/slurm/) run as Slurm would run them, with Slurm's variables set
# by hand: a job array of 3 tasks over a 5-member sweep (2 members per task; the last task holds
# one), then the collect job; the index must hold all 5 members complete. With an MPI build, the
# MPI script as well, on 3 ranks. usage: test_slurm_scripts.sh DCTWIN_EXE SOURCE_DIR WORK_DIR [MPIEXEC]
set -euo pipefail
exe="$1"
source_dir="$2"
work="$3"
mpiexec="${4:-}"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
cat > tiny.yaml <<YAML
name: tiny
description: five short runs of one node for the Slurm scripts' test
base: $source_dir/scenarios/single-node.yaml
design: list
set:
  simulation.duration: 5 s
parameters:
  loop.pump.speed: [0.6, 0.7, 0.8, 0.9, 1.0]
YAML

check() {  # index file, expected member count
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    status = [s.decode() if isinstance(s, bytes) else str(s) for s in f["status"][:]]
expected = int(sys.argv[2])
if len(status) != expected or any(s != "complete" for s in status):
    print(f"index {sys.argv[1]}: {status}, expected {expected} complete members")
    sys.exit(1)
print(f"index {sys.argv[1]}: {expected} members complete")
PY
}

# Without SLURM_ARRAY_TASK_ID the array script refuses to run.
if DCTWIN="$exe" bash "$source_dir/scripts/slurm/sweep-array.sbatch" tiny.yaml out 2 2> refused.txt; then
  echo "sweep-array.sbatch ran outside a job array"
  exit 1
fi
grep -q "SLURM_ARRAY_TASK_ID is not set" refused.txt

for task in 0 1 2 3; do
  SLURM_ARRAY_TASK_ID=$task SLURM_CPUS_PER_TASK=2 DCTWIN="$exe" \
    bash "$source_dir/scripts/slurm/sweep-array.sbatch" tiny.yaml out 2
done
DCTWIN="$exe" bash "$source_dir/scripts/slurm/sweep-collect.sbatch" out
check out/index.h5 5

if [[ -n "$mpiexec" ]]; then
  SLURM_CPUS_PER_TASK=1 MPIRUN="$mpiexec" DCTWIN="$exe" \
    DCTWIN_MPIRUN_FLAGS="--allow-run-as-root --oversubscribe -np 3" \
    bash "$source_dir/scripts/slurm/sweep-mpi.sbatch" tiny.yaml out-mpi
  check out-mpi/index.h5 5
fi
echo "slurm scripts: OK"
