#!/usr/bin/python3
"""Independent check of an HDF5 telemetry file written by `dctwin import` (h5py, not dctwin's reader).

    check_telemetry.py FILE [EXPECTED_GPUS]
    check_telemetry.py --self-test DIR     (the checker must reject broken files)

Prints `check_telemetry: OK` or the problems found and exits 1.
"""
import math
import sys

import h5py
import numpy as np

UNITS = {
    "power": "W", "power_instant": "W", "power_limit": "W", "energy": "J",
    "gpu_temperature": "K", "memory_temperature": "K",
    "sm_clock": "Hz", "memory_clock": "Hz", "graphics_clock": "Hz",
    "gpu_utilization": "1", "memory_utilization": "1", "sm_active": "1", "tensor_active": "1",
    "clock_event_reasons": "1",
}
# Plausible ranges in SI, wide enough for any GPU.
RANGES = {
    "power": (0.0, 2000.0), "gpu_temperature": (250.0, 400.0), "memory_temperature": (250.0, 400.0),
    "sm_clock": (0.0, 5e9), "memory_clock": (0.0, 1e10), "gpu_utilization": (0.0, 1.0),
    "memory_utilization": (0.0, 1.0), "sm_active": (0.0, 1.0), "tensor_active": (0.0, 1.0),
}


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def check(path, expected_gpus):
    problems = []
    with h5py.File(path, "r") as f:
        if "telemetry" not in f:
            return ["no /telemetry group"]
        g = f["telemetry"]
        for name in ("source", "format", "options", "notes", "skipped_line_count", "skipped_lines"):
            if name not in g.attrs:
                problems.append("/telemetry has no attribute %s" % name)
        t = g["time"][:]
        if text(g["time"].attrs.get("units", "")) != "s":
            problems.append("time units are not s")
        if len(t) == 0 or not np.all(np.diff(t) > 0):
            problems.append("time is empty or not strictly increasing")
        labels = [text(x) for x in g["gpu"][:]]
        if expected_gpus is not None and len(labels) != expected_gpus:
            problems.append("%d GPUs, expected %d" % (len(labels), expected_gpus))
        for name in ("gpu_index", "gpu_uuid", "gpu_hostname"):
            if g[name].shape != (len(labels),):
                problems.append("%s has shape %s" % (name, g[name].shape))
        quantities = [k for k in g if k in UNITS]
        if not quantities:
            problems.append("no quantity datasets")
        for k in g:
            if k not in UNITS and k not in ("time", "gpu", "gpu_index", "gpu_uuid", "gpu_hostname"):
                problems.append("unexpected dataset %s" % k)
        for q in quantities:
            d = g[q]
            if d.shape != (len(t), len(labels)):
                problems.append("%s has shape %s, expected %s" % (q, d.shape, (len(t), len(labels))))
            if d.dtype != np.float64:
                problems.append("%s is %s, not float64" % (q, d.dtype))
            if text(d.attrs.get("units", "")) != UNITS[q]:
                problems.append("%s units %r, expected %r" % (q, text(d.attrs.get("units", "")), UNITS[q]))
            if not text(d.attrs.get("long_name", "")):
                problems.append("%s has no long_name" % q)
            values = d[:]
            finite = values[np.isfinite(values)]
            if q in RANGES and finite.size:
                lo, hi = RANGES[q]
                if finite.min() < lo or finite.max() > hi:
                    problems.append("%s outside %g..%g: %g..%g" % (q, lo, hi, finite.min(), finite.max()))
        # Every time point carries at least one finite value for some GPU.
        if quantities:
            stacked = np.stack([g[q][:] for q in quantities])
            empty = ~np.any(np.isfinite(stacked), axis=(0, 2))
            if np.any(empty):
                problems.append("%d time points without any value" % int(empty.sum()))
    return problems


def self_test(directory):
    """Writes broken telemetry files and requires the checker to find each problem."""
    import os
    os.makedirs(directory, exist_ok=True)

    def write(name, units="W", times=(1.0, 2.0), values=((500.0,), (510.0,)), group=True):
        path = os.path.join(directory, name)
        with h5py.File(path, "w") as f:
            if not group:
                return path
            g = f.create_group("telemetry")
            for a in ("source", "format", "options", "notes", "skipped_lines"):
                g.attrs[a] = ""
            g.attrs["skipped_line_count"] = 0
            g["time"] = np.array(times)
            g["time"].attrs["units"] = "s"
            g["gpu"] = np.array([b"gpu0"])
            g["gpu_index"] = np.array([0])
            g["gpu_uuid"] = np.array([b""])
            g["gpu_hostname"] = np.array([b""])
            g["power"] = np.array(values, dtype=np.float64)
            g["power"].attrs["units"] = units
            g["power"].attrs["long_name"] = "power"
        return path

    failures = 0
    if check(write("good.h5"), 1):
        print("check_telemetry: self-test: a good file was rejected")
        failures += 1
    cases = [
        (write("no-group.h5", group=False), "no /telemetry group"),
        (write("units.h5", units="kW"), "power units 'kW', expected 'W'"),
        (write("order.h5", times=(2.0, 1.0)), "time is empty or not strictly increasing"),
        (write("range.h5", values=((500.0,), (5e5,))), "power outside 0..2000: 500..500000"),
        (write("empty.h5", values=((500.0,), (math.nan,))), "1 time points without any value"),
    ]
    for path, expected in cases:
        problems = check(path, 1)
        if expected not in problems:
            print("check_telemetry: self-test: %s: expected %r, got %r" % (path, expected, problems))
            failures += 1
    if failures:
        return 1
    print("check_telemetry: self-test OK")
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        return self_test(sys.argv[2])
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    expected = int(sys.argv[2]) if len(sys.argv) == 3 else None
    problems = check(sys.argv[1], expected)
    if problems:
        for p in problems:
            print("check_telemetry: %s: %s" % (sys.argv[1], p))
        return 1
    print("check_telemetry: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
