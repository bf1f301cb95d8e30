#!/bin/bash
# The shipped Slurm scripts (scripts/slurm/) run as Slurm would run them (their bodies with bash, no
# sbatch), with Slurm's variables set by hand: a job array of 4 tasks over a 5-member sweep (2
# members per task; the third holds one, the fourth none), then the collect job; the whole sweep in
# one job on threads; with an MPI build, the MPI script on 3 ranks. Every index must hold all 5
# members complete. dctwin is called through a wrapper that logs OMP_NUM_THREADS and the arguments
# of every call (every rank's), which must be what each script promises.
# usage: test_slurm_scripts.sh DCTWIN_EXE SOURCE_DIR WORK_DIR [MPIEXEC]
set -euo pipefail
exe="$(realpath "$1")"
source_dir="$2"
work="$3"
mpiexec="${4:-}"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
# dctwin as the scripts see it: logs its environment's OMP_NUM_THREADS and its arguments.
cat > dctwin-logged <<SH
#!/bin/bash
echo "OMP_NUM_THREADS=\${OMP_NUM_THREADS:-unset} \$*" >> "$work/calls.log"
exec "$exe" "\$@"
SH
chmod +x dctwin-logged
logged="$work/dctwin-logged"

expect_calls() {  # the lines calls.log must hold (in any order), then an empty log
  local expected actual
  expected="$(printf '%s\n' "$@" | sort)"
  actual="$(sort calls.log)"
  if [[ "$expected" != "$actual" ]]; then
    printf 'dctwin was called as\n%s\nexpected\n%s\n' "$actual" "$expected"
    exit 1
  fi
  : > calls.log
}
: > calls.log

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
if DCTWIN="$logged" bash "$source_dir/scripts/slurm/sweep-array.sbatch" tiny.yaml out 2 2> refused.txt; then
  echo "sweep-array.sbatch ran outside a job array"
  exit 1
fi
grep -q "SLURM_ARRAY_TASK_ID is not set" refused.txt
if SLURM_ARRAY_TASK_ID=0 DCTWIN="$logged" bash "$source_dir/scripts/slurm/sweep-array.sbatch" tiny.yaml out 0 \
    2> refused.txt; then
  echo "sweep-array.sbatch took 0 members per task"
  exit 1
fi
grep -q "MEMBERS_PER_TASK must be a whole number >= 1, not '0'" refused.txt
expect_calls

# The job array: one member per CPU of the task, one thread each.
for task in 0 1 2 3; do
  OMP_NUM_THREADS=7 SLURM_ARRAY_TASK_ID=$task SLURM_CPUS_PER_TASK=2 DCTWIN="$logged" \
    bash "$source_dir/scripts/slurm/sweep-array.sbatch" tiny.yaml out 2
done
env -u OMP_NUM_THREADS DCTWIN="$logged" bash "$source_dir/scripts/slurm/sweep-collect.sbatch" out
check out/index.h5 5
expect_calls "OMP_NUM_THREADS=1 sweep tiny.yaml -o out --member-range 0:2 -j 2 --quiet" \
             "OMP_NUM_THREADS=1 sweep tiny.yaml -o out --member-range 2:4 -j 2 --quiet" \
             "OMP_NUM_THREADS=1 sweep tiny.yaml -o out --member-range 4:6 -j 2 --quiet" \
             "OMP_NUM_THREADS=1 sweep tiny.yaml -o out --member-range 6:8 -j 2 --quiet" \
             "OMP_NUM_THREADS=unset sweep --collect out --quiet"

# The whole sweep in one job, on threads.
OMP_NUM_THREADS=7 SLURM_CPUS_PER_TASK=2 DCTWIN="$logged" \
  bash "$source_dir/scripts/slurm/sweep-threads.sbatch" tiny.yaml out-threads
check out-threads/index.h5 5
expect_calls "OMP_NUM_THREADS=1 sweep tiny.yaml -o out-threads -j 2 --quiet"

if [[ -n "$mpiexec" ]]; then
  # Every rank's member on the task's CPUs: OMP_NUM_THREADS passed to the ranks.
  SLURM_CPUS_PER_TASK=2 MPIRUN="$mpiexec" DCTWIN="$logged" \
    DCTWIN_MPIRUN_FLAGS="--allow-run-as-root --oversubscribe -np 3" \
    bash "$source_dir/scripts/slurm/sweep-mpi.sbatch" tiny.yaml out-mpi
  check out-mpi/index.h5 5
  expect_calls "OMP_NUM_THREADS=2 sweep tiny.yaml -o out-mpi --quiet" \
               "OMP_NUM_THREADS=2 sweep tiny.yaml -o out-mpi --quiet" \
               "OMP_NUM_THREADS=2 sweep tiny.yaml -o out-mpi --quiet"
fi
echo "slurm scripts: OK"
