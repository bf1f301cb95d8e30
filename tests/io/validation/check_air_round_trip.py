#!/usr/bin/env python3
"""Air-cooled thermal round trip (docs/validation.md, "Air-cooled round trip"): a synthetic
8-GPU trace from make_thermal_traces.py, calibrated by `dctwin calibrate` on its first half against
scenarios/servers/hgx-h100-air.yaml, scored on the second half. Fails unless the pooled held-out
junction temperature MAE is <= 1.0 K, every GPU's is <= 1.2 K, the calibrated model beats the
naive per-GPU single-RC fit on the same split, and the pooled held-out power has CV(RMSE) <= 3 %
and |NMBE| <= 1 % (the trace's 1-s readings mix the sub-second phases of its training steps).

Usage: check_air_round_trip.py DCTWIN SOURCE_DIR WORK_DIR
"""
import os
import subprocess
import sys

import h5py

LIMIT_POOLED = 1.0  # K
LIMIT_PER_GPU = 1.2  # K
LIMIT_POWER_CV = 0.03  # CV(RMSE)
LIMIT_POWER_NMBE = 0.01  # |NMBE|


def main():
    dctwin, source, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    here = os.path.join(source, "tests", "io", "validation")
    sys.path.insert(0, here)
    import make_thermal_traces as traces

    truth, t, board, junction, rng = traces.simulate(2400.0, 7)
    rows = traces.sample(t, board, junction, rng)
    trace = os.path.join(work, "air-h100.csv")
    traces.write_csv(trace, rows)
    baseline_per_gpu, baseline = traces.single_rc_baseline(rows, 0.5)

    scenario = os.path.join(source, "scenarios", "servers", "hgx-h100-air.yaml")
    fit = subprocess.run([dctwin, "calibrate", trace, "--scenario", scenario, "--train-fraction", "0.5", "-o",
                          "fit.yaml", "--metrics", "fit.h5", "--merged", "calibrated.yaml"],
                         cwd=work, capture_output=True, text=True)
    print(fit.stdout)
    if fit.returncode != 0:
        print(fit.stderr, file=sys.stderr)
        return 1
    with h5py.File(os.path.join(work, "fit.h5"), "r") as f:
        mae = f["/validation/metrics/junction_temperature/mae"]
        per_gpu = [float(v) for v in mae[()]]
        pooled = float(mae.attrs["overall"])
        count = int(f["/validation/metrics/junction_temperature/count"].attrs["overall"])
        power_cv = float(f["/validation/metrics/power/cv_rmse"].attrs["overall"])
        power_nmbe = float(f["/validation/metrics/power/nmbe"].attrs["overall"])
    print("held-out junction MAE [K]: " + " ".join(f"{v:.3f}" for v in per_gpu) + f" all {pooled:.3f} ({count} pairs)")
    print("single-RC baseline   [K]: " + " ".join(f"{v:.3f}" for v in baseline_per_gpu) + f" all {baseline:.3f}")
    print(f"held-out power: CV(RMSE) {100 * power_cv:.2f} %, NMBE {100 * power_nmbe:+.2f} %")
    ok = pooled <= LIMIT_POOLED and max(per_gpu) <= LIMIT_PER_GPU and pooled < baseline and count >= 8 * 1100
    ok = ok and power_cv <= LIMIT_POWER_CV and abs(power_nmbe) <= LIMIT_POWER_NMBE

    # The merged scenario replays the whole trace with the same held-out figures.
    check = subprocess.run([dctwin, "validate", trace, "--scenario", "calibrated.yaml", "-o", "check.h5", "-q"],
                           cwd=work, capture_output=True, text=True)
    if check.returncode != 0:
        print(check.stderr, file=sys.stderr)
        return 1
    with h5py.File(os.path.join(work, "check.h5"), "r") as f:
        whole = float(f["/validation/metrics/junction_temperature/mae"].attrs["overall"])
        whole_cv = float(f["/validation/metrics/power/cv_rmse"].attrs["overall"])
        whole_nmbe = float(f["/validation/metrics/power/nmbe"].attrs["overall"])
    print(f"merged scenario, whole trace: junction MAE {whole:.3f} K, power CV(RMSE) {100 * whole_cv:.2f} %, "
          f"NMBE {100 * whole_nmbe:+.2f} %")
    ok = ok and whole <= LIMIT_POOLED and whole_cv <= LIMIT_POWER_CV and abs(whole_nmbe) <= LIMIT_POWER_NMBE
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
