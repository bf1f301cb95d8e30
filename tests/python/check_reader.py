#!/usr/bin/python3
"""python/dctwin_report.py against h5py: every series of a report, its labels and units.

  check_reader.py SOURCE_DIR REPORT...
"""
import math
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import dctwin_report  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


for path in sys.argv[2:]:
    report = dctwin_report.open_report(path)
    with h5py.File(path, "r") as f:
        status = f.attrs["status"]
        check(report.attrs["status"] == (status.decode() if isinstance(status, bytes) else status), "status")
        series = 0
        for group_name, group in f.items():
            if group_name in ("summary", "scenario", "index") or not isinstance(group, h5py.Group):
                continue
            check(group_name in report, f"{path}: group {group_name} missing")
            for name, dataset in group.items():
                if dataset.attrs.get("CLASS") == b"DIMENSION_SCALE":
                    continue
                array = report[group_name][name]
                units = dataset.attrs.get("units", b"")
                units = units.decode() if isinstance(units, bytes) else units
                check(array.attrs.get("units") == units, f"{group_name}/{name}: units {array.attrs.get('units')!r}")
                scaled = dataset.ndim >= 1 and all(len(dataset.dims[a]) > 0 for a in range(dataset.ndim))
                if dataset.dtype.kind == "f" and scaled and dataset.shape[0] > 0:
                    check(np.array_equal(array.values, dataset[()], equal_nan=True), f"{group_name}/{name}: values differ")
                    series += 1
                    for axis in range(dataset.ndim):
                        scale = [v.decode() if isinstance(v, bytes) else v for v in dataset.dims[axis][0][()].tolist()]
                        check(list(array[array.dims[axis]].values) == scale, f"{group_name}/{name}: axis {axis} labels")
                    if dataset.ndim == 2:
                        frame = report.dataframe(f"{group_name}/{name}")
                        check(list(frame.columns) == list(array[array.dims[1]].values) and frame.shape == dataset.shape
                              and frame.attrs.get("units") == units, f"{group_name}/{name}: dataframe")
        check(series > 5, f"{path}: only {series} series compared")
        for name, dataset in f["summary"].items():
            value = float(dataset[()])
            got = report.summary.loc[name, "value"]
            check(got == value or (math.isnan(got) and math.isnan(value)), f"summary {name}")
    print(f"{os.path.basename(path)}: {len(report.groups)} groups, {series} series, {len(report.summary)} summary figures")

if failures:
    print(f"check_reader: {len(failures)} failure(s)")
    sys.exit(1)
print("check_reader: OK")
