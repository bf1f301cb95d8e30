#!/usr/bin/env python3
"""Writes synthetic 8-GPU power telemetry for the power and clock replay of `dctwin validate` and
`dctwin calibrate` (tests/io/validation/test_power_replay.cpp, docs/validation.md).

The traces are made by a model of its own, with other parameters than the replay scenarios
(tests/io/validation/power-h100.yaml, power-a100.yaml), so that a replay at its defaults is wrong
by what calibration has to find:

- synchronous training steps on all GPUs: compute, exposed communication, a short optimizer step
  (an activity between the two, which the replay has no phase for), a checkpoint stall every 12
  steps, idle at the start (H100 only);
- two stretches of a heavier job whose compute would exceed the board power limit: the firmware
  holds the power a little below the limit, lowers the SM clock to the highest 15 MHz step that
  fits and reports the clock-event reason SwPowerCap (0x4, NVML nvmlClocksEventReasonSwPowerCap);
  idle samples report GpuIdle (0x1);
- board power P = P_static + L(T_j) + s_i a P_dyn(f), P_dyn(f) = P_dyn,max (f / f_max) (V(f) / V_max)^2
  with a voltage floor below a knee clock, per-GPU scales s_i, leakage exponential in T_j, and
  correlated noise (AR(1), 50 ms) on a 5-ms grid;
- power.draw is NVML's mean over the second before each reading (Hopper and Ampere report a 1-s
  average; NVML nvmlDeviceGetPowerUsage), read every 100 ms (`nvidia-smi -lms 100`) with the
  loop's drift, each GPU's row a few ms after the previous one; SM clock and reasons are read at
  the row's time;
- H100: junction temperature from a first-order model per GPU (air-cooled slots 0-12 K apart),
  printed in whole degrees; A100: power only (no temperature column).

Device figures: H100 SXM5 700 W maximum TDP (NVIDIA H100 Tensor Core GPU datasheet, 2023); SM
clock up to 1980 MHz (`nvidia-smi -q -d CLOCK`, Max Clocks, H100 SXM5); A100 SXM 400 W maximum
TDP (NVIDIA A100 Tensor Core GPU datasheet, 2021); boost clock 1410 MHz (NVIDIA A100 Tensor Core
GPU Architecture whitepaper, 2020, table 1).

The same truth is also written as the other tools record it:

- `dcgmi dmon -e 100,112,150,155 -d 100` (H100): SM clock [MHz], clock-event reasons (decimal),
  GPU temperature [degC] and power usage (field 155, the same 1-s mean) [W], every GPU at each
  100-ms tick of DCGM's own sampling timer, no timestamps (imported with `--interval 0.1`);
- a pynvml loop at 1 Hz (A100): `time.time()`, the GPU index, nvmlDeviceGetPowerUsage in mW
  (integer), nvmlDeviceGetClockInfo(NVML_CLOCK_SM) in MHz and
  nvmlDeviceGetCurrentClocksEventReasons, one row per GPU a few ms apart, the loop drifting by
  its own run time; imported with the column map `a100-pynvml-map.yaml`.

    /usr/bin/python3 tests/io/validation/make_power_traces.py OUTPUT_DIR [--duration S] [--seed N]

writes OUTPUT_DIR/h100-10hz.csv, h100-dcgm-10hz.txt, a100-10hz.csv, a100-pynvml-1hz.csv and
a100-pynvml-map.yaml (seeded: a second run gives the same files).
"""

import argparse
import bisect
import math
import os
import time

import numpy as np

DT = 0.005          # truth grid [s]
WINDOW = 1.0        # NVML power averaging [s]
START = 1764979200  # 2025-12-06T00:00:00Z

# The truth: other values than the replay scenarios' (see the YAML files beside this script).
DEVICES = {
    "h100": dict(
        gpus=8, power_limit=700.0, cap_below=10.0, max_clock=1.98e9, idle_clock=0.345e9, clock_step=15e6,
        voltage_floor=0.68, knee=1.25e9, static=62.0, dynamic_max=620.0, leak_ref=40.0, leak_t_ref=333.15,
        leak_k=0.025, compute=0.70, communication=0.33, optimizer=0.45, stall=0.13, heavy=1.15,
        idle_time=20.0, temperature=True, scale_sd=0.012, noise_sd=20.0,
        inlet=[0.0, 3.0, 6.0, 9.0, 2.0, 5.0, 8.0, 12.0]),
    "a100": dict(
        gpus=8, power_limit=400.0, cap_below=5.0, max_clock=1.41e9, idle_clock=0.21e9, clock_step=15e6,
        voltage_floor=0.70, knee=0.90e9, static=50.0, dynamic_max=380.0, leak_ref=25.0, leak_t_ref=333.15,
        leak_k=0.02, compute=0.68, communication=0.30, optimizer=0.42, stall=0.12, heavy=1.05,
        idle_time=0.0, temperature=False, scale_sd=0.012, noise_sd=12.0,
        inlet=[0.0, 3.0, 6.0, 9.0, 2.0, 5.0, 8.0, 12.0]),
}


def dynamic_unit(d, f):
    """P_dyn(a = 1, f) [W]."""
    v = np.where(f <= d["knee"], d["voltage_floor"],
                 d["voltage_floor"] + (1.0 - d["voltage_floor"]) * (f - d["knee"]) / (d["max_clock"] - d["knee"]))
    return d["dynamic_max"] * (f / d["max_clock"]) * v * v


def schedule(d, duration, rng):
    """Phase segments (start, end, activity name) shared by all GPUs; heavy compute in two stretches."""
    segments = []
    t = 0.0
    if d["idle_time"] > 0:
        segments.append((0.0, d["idle_time"], "idle"))
        t = d["idle_time"]
    step = 0
    while t < duration + 2.0:
        heavy = 0.22 <= t / duration < 0.36 or 0.72 <= t / duration < 0.86
        for name, mean, sd in (("heavy" if heavy else "compute", 4.0, 0.3), ("communication", 1.2, 0.15),
                               ("optimizer", 0.3, 0.03)):
            length = max(0.2, rng.normal(mean, sd))
            segments.append((t, t + length, name))
            t += length
        step += 1
        if step % 12 == 0:
            length = rng.uniform(12.0, 18.0)
            segments.append((t, t + length, "stall"))
            t += length
    return segments


def simulate(d, duration, rng):
    n = int(round((duration + WINDOW + 1.0) / DT))
    grid = np.arange(n) * DT - WINDOW - 0.5  # starts before 0 so the first reading has a full window
    activity = np.zeros(n)
    heavy = np.zeros(n, dtype=bool)
    idle = np.zeros(n, dtype=bool)
    for start, end, name in schedule(d, duration, rng):
        sel = (grid >= start) & (grid < end)
        if name == "idle":
            idle[sel] = True
        elif name == "heavy":
            heavy[sel] = True
            activity[sel] = d["heavy"]
        else:
            activity[sel] = d[name]
    # Before the first reading the GPUs were doing what they do at its time.
    first = np.argmax(grid >= 0)
    idle[:first], heavy[:first], activity[:first] = idle[first], heavy[first], activity[first]
    gpus = []
    ladder = np.arange(0.0, d["max_clock"] + 1.0, d["clock_step"])
    for g in range(d["gpus"]):
        scale = 1.0 + rng.normal(0.0, d["scale_sd"])
        jitter = int(round(rng.uniform(-0.02, 0.02) / DT))  # the GPU's own edges, +-20 ms
        a = np.roll(activity, jitter)
        hv = np.roll(heavy, jitter)
        idl = np.roll(idle, jitter)
        # Junction temperature: first order towards T_in + R P, 15 s, from the previous power.
        t_in = 303.15 + d["inlet"][g]
        resistance = 0.062 * (1.0 + rng.normal(0.0, 0.03))
        tau = 15.0
        # AR(1) noise with a 50-ms correlation time.
        phi = np.exp(-DT / 0.05)
        e = rng.normal(0.0, d["noise_sd"] * np.sqrt(1 - phi * phi), n)
        noise = np.empty(n)
        acc = 0.0
        for i, x in enumerate(e.tolist()):
            acc = phi * acc + x
            noise[i] = acc
        power = np.empty(n)
        clock = np.empty(n)
        reasons = np.zeros(n, dtype=np.int64)
        tj = np.empty(n)
        temp = t_in + resistance * 300.0
        cap = d["power_limit"] - d["cap_below"]
        unit_max = float(dynamic_unit(d, np.array([d["max_clock"]]))[0])
        units = [float(u) for u in dynamic_unit(d, ladder)]  # increasing with the clock
        a_list, hv_list, idle_list, noise_list = a.tolist(), hv.tolist(), idl.tolist(), noise.tolist()
        for i in range(n):
            leak = d["leak_ref"] * math.exp(d["leak_k"] * (temp - d["leak_t_ref"]))
            if idle_list[i]:
                f = d["idle_clock"]
                p = d["static"] + leak + noise_list[i] * 0.2
                reasons[i] = 0x1
            else:
                budget = cap - d["static"] - leak
                demand = a_list[i] * scale * unit_max
                if demand > budget:
                    # The highest clock step whose dynamic power fits the budget.
                    top = bisect.bisect_right(units, budget / (a_list[i] * scale)) - 1
                    f = ladder[max(top, 0)]
                    p = cap + noise_list[i] * 0.5
                    reasons[i] = 0x4
                else:
                    f = d["max_clock"]
                    p = d["static"] + leak + demand + noise_list[i]
            power[i] = p
            clock[i] = f
            tj[i] = temp
            temp += DT / tau * (t_in + resistance * p - temp)
        gpus.append(dict(power=power, clock=clock, reasons=reasons, temperature=tj))
    return grid, gpus


def window_mean(cumulative, grid, t):
    """NVML's power: the mean over the second before t of one GPU's truth (cumulative energy)."""
    i = int(np.floor((t - grid[0]) / DT))  # the grid cell holding t
    w = int(round(WINDOW / DT))
    return (cumulative[i + 1] - cumulative[i + 1 - w]) / (w * DT), i


def write(path, d, duration, rng, grid, gpus):
    cumulative = [np.concatenate([[0.0], np.cumsum(g["power"]) * DT]) for g in gpus]
    header = "timestamp, index, power.draw [W]"
    if d["temperature"]:
        header += ", temperature.gpu"
    header += ", clocks.current.sm [MHz], clocks_event_reasons.active"
    lines = [header]
    tick = 0.0
    while tick < duration:
        for g, series in enumerate(gpus):
            t = tick + 0.002 * g + rng.uniform(0.0, 0.0005)
            mean, i = window_mean(cumulative[g], grid, t)
            stamp = START + t
            text = time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(np.floor(stamp))) + ".%03d" % int(
                (stamp - np.floor(stamp)) * 1000)
            row = "%s, %d, %.2f W" % (text, g, mean)
            if d["temperature"]:
                row += ", %d" % int(round(series["temperature"][i] - 273.15))
            row += ", %d MHz, 0x%016x" % (int(round(series["clock"][i] / 1e6)), series["reasons"][i])
            lines.append(row)
        tick += 0.1 + rng.uniform(0.0, 0.004)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def write_dcgm_dmon(path, d, duration, grid, gpus):
    """dcgmi dmon -e 100,112,150,155 -d 100: every GPU at each tick, no time column."""
    cumulative = [np.concatenate([[0.0], np.cumsum(g["power"]) * DT]) for g in gpus]
    lines = ["#Entity   SMCLK  DVCCTR  TMPTR  POWER", "ID"]
    k = 0
    while 0.1 * k < duration:
        t = 0.1 * k
        for g, series in enumerate(gpus):
            mean, i = window_mean(cumulative[g], grid, t)
            lines.append("GPU %-6d%-7d%-8d%-7d%.3f" % (g, int(round(series["clock"][i] / 1e6)), series["reasons"][i],
                                                       int(round(series["temperature"][i] - 273.15)), mean))
        k += 1
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


PYNVML_MAP = """# Column map of a100-pynvml-1hz.csv (a pynvml loop): dctwin import a100-pynvml-1hz.csv --map a100-pynvml-map.yaml
time: {column: time, unit: s}
gpu: {column: gpu}
power: {column: power_mW, unit: mW}
sm_clock: {column: sm_clock_MHz, unit: MHz}
clock_event_reasons: {column: clocks_event_reasons}
"""


def write_pynvml(path, duration, rng, grid, gpus):
    """A pynvml loop at 1 Hz: Unix time, power in mW, SM clock in MHz, clock-event reasons."""
    cumulative = [np.concatenate([[0.0], np.cumsum(g["power"]) * DT]) for g in gpus]
    lines = ["time,gpu,power_mW,sm_clock_MHz,clocks_event_reasons"]
    tick = 0.5
    while tick < duration:
        for g, series in enumerate(gpus):
            t = tick + 0.003 * g + rng.uniform(0.0, 0.001)
            mean, i = window_mean(cumulative[g], grid, t)
            lines.append("%.6f,%d,%d,%d,%d" % (START + t, g, int(round(mean * 1000.0)),
                                               int(round(series["clock"][i] / 1e6)), series["reasons"][i]))
        tick += 1.0 + rng.uniform(0.0, 0.03)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(os.path.dirname(path), "a100-pynvml-map.yaml"), "w", encoding="utf-8", newline="\n") as f:
        f.write(PYNVML_MAP)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output")
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of trace (600)")
    parser.add_argument("--seed", type=int, default=20251206)
    args = parser.parse_args()
    os.makedirs(args.output, exist_ok=True)
    for k, (name, d) in enumerate(DEVICES.items()):
        rng = np.random.default_rng(args.seed + k)
        grid, gpus = simulate(d, args.duration, rng)
        write(os.path.join(args.output, name + "-10hz.csv"), d, args.duration, rng, grid, gpus)
        if name == "h100":
            write_dcgm_dmon(os.path.join(args.output, "h100-dcgm-10hz.txt"), d, args.duration, grid, gpus)
        else:
            write_pynvml(os.path.join(args.output, "a100-pynvml-1hz.csv"), args.duration,
                         np.random.default_rng(args.seed + 100 + k), grid, gpus)


if __name__ == "__main__":
    main()
