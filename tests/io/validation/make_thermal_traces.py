#!/usr/bin/env python3
"""Synthetic nvidia-smi telemetry of an air-cooled 8-GPU H100 server, for the thermal round trip of
`dctwin calibrate` (docs/validation.md, "Air-cooled round trip").

The truth is an air-cooled server written here on its own (numpy), with parameters that differ
from the replay's preset (scenarios/servers/hgx-h100-air.yaml) and a few effects the replay does
not model:

  per GPU i (junction T_j, HBM T_h, base and heatsink T_b):
    C_j,i dT_j/dt = (1 - f_h) P_i(t) + L(T_j) - (T_j - T_b) / R_jb
    C_h   dT_h/dt = f_h P_i(t) - (T_h - T_b) / R_hb
    C_b,i dT_b/dt = (T_j - T_b) / R_jb + (T_h - T_b) / R_hb - (T_b - T_a,i) / (h_i R_hs)
    T_a,i = T_in(t) + d_i + phi_i (sum_k P_k + L_k + Q_other + P_fan) / (rho c_p V_s)
  L(T_j) = 40 W exp(0.025 (T_j - 333.15 K))      (preset: 50 W, 0.02 1/K)
  T_in(t) = 24 degC + 0.4 K sin(2 pi t / 1500 s)   a slowly drifting cold aisle (the replay holds it)
  R_jb = 0.027 K/W (preset 0.025), C_b,i = 1000 J/K x 0.8..1.2 (preset 800), C_j,i = 30 J/K x 0.8..1.3,
  h_i = 0.85..1.3, d_i = -1..+4 K, phi_i = 0..0.05 front row and 0.40..0.60 rear row (preset 0 / 0.45).

Power: an instantaneous board power at 50 Hz (idle, then training steps of compute 2.0 s at ~560 W,
communication 0.6 s at ~260 W and optimizer 0.2 s at ~350 W, a 25-s checkpoint stall at ~150 W every
300 s, two power-capped stretches at the 690 W cap, a 60-s idle restart), a per-GPU power scale and
10 W of noise. The thermal truth is driven by it; nvidia-smi's `power.draw` is its mean over the
second before each row (NVML's 1-s average), printed with two decimals. `temperature.gpu` is the
junction plus 0.25 K of sensor noise, rounded to whole degrees Celsius. Rows every second, one per
GPU, 2 ms apart within a tick, as `nvidia-smi --query-gpu=timestamp,index,power.draw,temperature.gpu
--format=csv -l 1` prints them.

Usage: make_thermal_traces.py OUT.csv [--duration 2400] [--seed 7] [--baseline]
  --baseline  also print the naive per-GPU single-RC baseline on the second half (fit on the first).
"""
import argparse
import math
import sys

import numpy as np

GPUS = 8
DT = 0.02  # s, truth integration step (50 Hz)
EPOCH = 1753572729.0  # 2025-07-26T23:32:09Z


def power_schedule(t, rng_phase):
    """Instantaneous board power of the job's phase at times t (before per-GPU scale and noise) [W]."""
    p = np.empty_like(t)
    for n, tt in enumerate(t):
        if tt < 60.0 or 1500.0 <= tt < 1560.0:
            p[n] = 95.0
            continue
        if (tt % 300.0) >= 275.0:
            p[n] = 150.0
            continue
        capped = 900.0 <= tt < 1300.0 or 1800.0 <= tt < 2150.0
        phase = (tt - 60.0 + rng_phase) % 2.8
        if phase < 2.0:
            p[n] = 690.0 if capped else 560.0
        elif phase < 2.6:
            p[n] = 260.0
        else:
            p[n] = 350.0
    return p


class Truth:
    def __init__(self, rng):
        self.c_j = 30.0 * rng.uniform(0.8, 1.3, GPUS)
        self.c_h = 20.0
        self.c_b = 1000.0 * rng.uniform(0.8, 1.2, GPUS)
        self.r_jb = 0.027
        self.r_hb = 0.15
        self.f_h = 0.12
        self.h = rng.uniform(0.85, 1.3, GPUS)
        self.d = rng.uniform(-1.0, 4.0, GPUS)
        self.phi = np.concatenate([rng.uniform(0.0, 0.05, 4), rng.uniform(0.40, 0.60, 4)])
        # Heatsink at the preset's fan speed 0.8: V_s = 0.8 sqrt(1200 / (750 / 0.5^2 + 1200 / 0.8^2))
        # m3/s, 17.5 % of it through each heatsink, R = 0.015 + 0.035 (V / 0.0875)^-0.7 K/W.
        v_s = 0.8 * math.sqrt(1200.0 / (750.0 / 0.25 + 1200.0 / 0.64))
        self.r_hs = 0.015 + 0.035 * (0.175 * v_s / 0.0875) ** -0.7
        self.fan_power = 1500.0 * 0.8**3
        self.other_heat = 1700.0
        self.rho_cp_v = 1.19 * 1006.0 * v_s  # W/K
        self.scale = rng.uniform(0.97, 1.04, GPUS)

    def leakage(self, tj):
        return 40.0 * np.exp(0.025 * (tj - 333.15))

    def inlet(self, t):
        return 297.15 + 0.4 * math.sin(2.0 * math.pi * t / 1500.0)

    def air(self, t, board):
        return self.inlet(t) + self.d + self.phi * (board.sum() + self.other_heat + self.fan_power) / self.rho_cp_v

    def rates(self, x, p, ta):
        tj, th, tb = x
        leak = self.leakage(tj)
        djdt = ((1 - self.f_h) * p + leak - (tj - tb) / self.r_jb) / self.c_j
        dhdt = (self.f_h * p - (th - tb) / self.r_hb) / self.c_h
        dbdt = ((tj - tb) / self.r_jb + (th - tb) / self.r_hb - (tb - ta) / (self.h * self.r_hs)) / self.c_b
        return np.array([djdt, dhdt, dbdt]), leak


def simulate(duration, seed):
    rng = np.random.default_rng(seed)
    truth = Truth(rng)
    t = np.arange(0.0, duration + 1e-9, DT)
    base = power_schedule(t, rng.uniform(0.0, 2.8))
    # Board power of each GPU (leakage included, as NVML measures it) [GPU x time].
    board = truth.scale[:, None] * base[None, :] + rng.normal(0.0, 10.0, (GPUS, t.size))
    # Steady state at the first power: iterate the algebraic balance.
    x = np.full((3, GPUS), 320.0)
    for _ in range(200):
        p = board[:, 0] - truth.leakage(x[0])
        ta = truth.air(0.0, board[:, 0])
        tb = ta + board[:, 0] * truth.h * truth.r_hs
        x = np.array([tb + ((1 - truth.f_h) * p + truth.leakage(x[0])) * truth.r_jb, tb + truth.f_h * p * truth.r_hb, tb])
    junction = np.empty((GPUS, t.size))
    for n in range(t.size):
        junction[:, n] = x[0]
        # The board power is what the GPU dissipates; its leakage part follows the junction.
        p = board[:, n] - truth.leakage(x[0])
        ta = truth.air(t[n], board[:, n])
        k1, _ = truth.rates(x, p, ta)
        k2, _ = truth.rates(x + DT * k1, p, ta)
        x = x + 0.5 * DT * (k1 + k2)
    return truth, t, board, junction, rng


def sample(t, board, junction, rng):
    """Rows every second from t = 1 s: NVML's 1-s mean power and the rounded junction temperature."""
    per_second = int(round(1.0 / DT))
    rows = []
    for s in range(1, int(t[-1]) + 1):
        end = s * per_second
        window = slice(end - per_second + 1, end + 1)
        power = board[:, window].mean(axis=1)
        temperature = np.round(junction[:, end] - 273.15 + rng.normal(0.0, 0.25, GPUS))
        rows.append((float(s), power, temperature))
    return rows


def write_csv(path, rows):
    with open(path, "w") as f:
        f.write("timestamp, index, power.draw [W], temperature.gpu\n")
        for s, power, temperature in rows:
            for g in range(GPUS):
                stamp = EPOCH + s + 0.002 * g
                whole = math.floor(stamp)
                ms = int(round((stamp - whole) * 1000.0))
                import time as _time

                text = _time.strftime("%Y/%m/%d %H:%M:%S", _time.gmtime(whole)) + f".{ms:03d}"
                f.write(f"{text}, {g}, {power[g]:.2f} W, {int(temperature[g])}\n")


def single_rc_baseline(rows, train_fraction=0.5):
    """Per GPU: T = a + R y, tau dy/dt = P - y (steady at the first sample), fitted by least squares on
    the first part for tau on a grid of 1 to 1000 s; the MAE [K] on the rest, per GPU and pooled."""
    times = np.array([r[0] for r in rows])
    power = np.array([r[1] for r in rows]).T
    temperature = np.array([r[2] for r in rows]).T
    split = times[0] + train_fraction * (times[-1] - times[0] + 1.0) - 1.0
    train = times < split
    test = ~train
    errors = []
    for g in range(GPUS):
        best = None
        for tau in np.geomspace(1.0, 1000.0, 120):
            y = np.empty_like(power[g])
            y[0] = power[g][0]
            a = math.exp(-1.0 / tau)
            for k in range(1, y.size):
                y[k] = a * y[k - 1] + (1.0 - a) * power[g][k]
            design = np.stack([np.ones(int(train.sum())), y[train]], axis=1)
            coef, *_ = np.linalg.lstsq(design, temperature[g][train], rcond=None)
            sse = float(np.sum((design @ coef - temperature[g][train]) ** 2))
            if best is None or sse < best[0]:
                best = (sse, coef, y)
        _, coef, y = best
        errors.append(np.abs(coef[0] + coef[1] * y[test] - temperature[g][test]))
    per_gpu = [float(e.mean()) for e in errors]
    pooled = float(np.concatenate(errors).mean())
    return per_gpu, pooled


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output")
    parser.add_argument("--duration", type=float, default=2400.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--baseline", action="store_true")
    args = parser.parse_args()
    truth, t, board, junction, rng = simulate(args.duration, args.seed)
    rows = sample(t, board, junction, rng)
    write_csv(args.output, rows)
    spread = [float(np.mean(r[2])) for r in rows]
    print(f"wrote {args.output}: {len(rows)} ticks x {GPUS} GPUs; slot spread at compute "
          f"{np.ptp(rows[400][2]):.0f} K (tick 400)")
    if args.baseline:
        per_gpu, pooled = single_rc_baseline(rows)
        print("single-RC baseline MAE on the second half [K]: " + " ".join(f"{v:.3f}" for v in per_gpu) +
              f" all {pooled:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
