#!/usr/bin/env python3
"""Held-out power and clock errors of a `dctwin validate` file against two naive baselines.

    /usr/bin/python3 tests/io/validation/power_baselines.py validation.h5 [--train-fraction 0.5]

The split is the one `dctwin calibrate --train-fraction F` uses: F times the trace's time span
after its first sample. Metrics are over the samples after the split, pooled over GPUs, with
ASHRAE Guideline 14's CV(RMSE) and NMBE (n - 1 degrees of freedom, residual measured minus
predicted), as docs/validation.md writes them. Baselines:

- per-GPU mean: each GPU's mean over the training part, held;
- persistence 1 s: the GPU's own reading one second earlier (a nowcast that needs the measurement).
"""

import argparse

import h5py
import numpy as np


def metrics(predicted, measured):
    ok = np.isfinite(predicted) & np.isfinite(measured)
    p, m = predicted[ok], measured[ok]
    n = len(m)
    residual = m - p
    return dict(n=n, cv=np.sqrt(np.sum(residual ** 2) / (n - 1)) / np.mean(m),
                nmbe=np.sum(residual) / ((n - 1) * np.mean(m)), mae=np.mean(np.abs(residual)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--train-fraction", type=float, default=0.5)
    args = parser.parse_args()
    with h5py.File(args.file, "r") as f:
        for quantity, scale, unit in (("power", 1.0, "W"), ("sm_clock", 1e6, "MHz")):
            if "series/" + quantity not in f["validation"]:
                continue
            s = f["validation/series/" + quantity]
            time, measured, simulated = s["time"][()], s["measured"][()], s["simulated"][()]
            start = np.nanmin(time[:, 0])
            split = start + args.train_fraction * (np.nanmax(time) - start)
            held = time >= split
            rows = {"model": [], "per-GPU mean": [], "persistence 1 s": []}
            for g in range(time.shape[0]):
                train = (time[g] < split) & np.isfinite(measured[g])
                mean = np.mean(measured[g][train])
                # The reading one second (or more) before each sample.
                earlier = np.searchsorted(time[g], time[g] - 1.0, side="right") - 1
                persistence = np.where(earlier >= 0, measured[g][np.maximum(earlier, 0)], np.nan)
                h = held[g] & np.isfinite(time[g])
                rows["model"].append((simulated[g][h], measured[g][h]))
                rows["per-GPU mean"].append((np.full(h.sum(), mean), measured[g][h]))
                rows["persistence 1 s"].append((persistence[h], measured[g][h]))
            for name, parts in rows.items():
                p = np.concatenate([a for a, _ in parts])
                m = np.concatenate([b for _, b in parts])
                r = metrics(p, m)
                print("%-9s %-16s n %6d  CV(RMSE) %6.2f %%  NMBE %+6.2f %%  MAE %8.2f %s" %
                      (quantity, name, r["n"], 100 * r["cv"], 100 * r["nmbe"], r["mae"] / scale, unit))


if __name__ == "__main__":
    main()
