#!/usr/bin/python3
"""Check that an HDF5 file follows the dctwin report conventions, independently of the C++ reader.

Usage:
    check_report.py REPORT.h5          check one report; exit 0 when it conforms, 1 otherwise
    check_report.py --self-test DIR    write broken reports into DIR and make sure each is rejected

The checks: a root attribute `status`; a dataset `/time` with `units`; a `units` attribute on every
dataset in the file; a `/summary` group holding at least one scalar dataset, each with `units`;
every 2-D dataset's second dimension as long as its entity's index table (`/index/<entity>`,
named by the dataset's `entity` attribute or attached as the dimension scale of dimension 1); and
every dataset whose first dimension is the `/time` scale as long as `/time`.
"""

import os
import sys

import h5py
import numpy as np


def as_text(value):
    """An attribute value as str (h5py returns bytes for fixed-length strings)."""
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.shape == ():
        return as_text(value[()])
    return str(value)


def all_datasets(report):
    found = []

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            found.append(("/" + name, obj))

    report.visititems(visit)
    return found


def index_table(report, dataset):
    """The index table of dimension 1 of a 2-D dataset: `/index/<entity>` when the dataset names
    its entity, else the dimension scale attached to dimension 1. Returns (table, where)."""
    if "entity" in dataset.attrs:
        name = "/index/" + as_text(dataset.attrs["entity"])
        table = report.get(name)
        return (table if isinstance(table, h5py.Dataset) else None), name
    scales = list(dataset.dims[1].values())
    return (scales[0] if scales else None), "a dimension scale of dimension 1"


def attached_to_time(dataset, time):
    if time is None or dataset.ndim == 0 or dataset.name == "/time":
        return False
    try:
        return any(scale == time for scale in dataset.dims[0].values())
    except (KeyError, RuntimeError, ValueError):
        return False


def check(path):
    """Returns (problems, number of datasets)."""
    problems = []
    try:
        report = h5py.File(path, "r")
    except (OSError, ValueError) as error:
        return [f"cannot open as HDF5: {error}"], 0
    with report:
        if "status" not in report.attrs:
            problems.append("root attribute 'status' is missing")

        time = report.get("time")
        if not isinstance(time, h5py.Dataset):
            problems.append("dataset /time is missing")
            time = None
        elif "units" not in time.attrs:
            problems.append("/time has no 'units' attribute")

        datasets = all_datasets(report)
        for name, dataset in datasets:
            if "units" not in dataset.attrs:
                problems.append(f"{name} has no 'units' attribute")

        summary = report.get("summary")
        if not isinstance(summary, h5py.Group):
            problems.append("group /summary is missing")
        else:
            scalars = 0
            for name, item in summary.items():
                if not isinstance(item, h5py.Dataset):
                    continue
                if item.shape != ():
                    problems.append(f"/summary/{name} is not a scalar (shape {item.shape})")
                    continue
                scalars += 1
                if "units" not in item.attrs:
                    problems.append(f"/summary/{name} has no 'units' attribute")
            if scalars == 0:
                problems.append("/summary holds no scalar dataset")

        for name, dataset in datasets:
            if dataset.ndim == 2:
                table, where = index_table(report, dataset)
                if table is None:
                    problems.append(f"{name} is 2-D but its index table ({where}) is missing")
                elif table.shape != (dataset.shape[1],):
                    problems.append(
                        f"{name} has {dataset.shape[1]} entities but its index table "
                        f"{table.name} has shape {table.shape}")
            if attached_to_time(dataset, time) and dataset.shape[0] != time.shape[0]:
                problems.append(
                    f"{name} has {dataset.shape[0]} time rows but /time has {time.shape[0]}")
    return problems, len(datasets)


def report_result(path):
    problems, count = check(path)
    if problems:
        print(f"check_report: FAILED {path}")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(f"check_report: OK {path} ({count} datasets)")
    return 0


def write_minimal(path, breakage=None):
    """A small conforming report, or one broken in the way `breakage` names."""
    labels = np.array(["gpu0", "gpu1", "gpu2"], dtype=h5py.string_dtype())
    with h5py.File(path, "w") as report:
        if breakage != "no status":
            report.attrs["status"] = "complete"
        report.attrs["dctwin_report_version"] = np.int64(1)
        if breakage != "no time":
            time = report.create_dataset("time", data=np.arange(4.0))
            if breakage != "time without units":
                time.attrs["units"] = "s"
            time.make_scale("time")
        index = report.create_dataset("index/gpu", data=labels)
        index.attrs["units"] = "1"
        index.make_scale("gpu")
        columns = 2 if breakage == "wrong entity count" else 3
        power = report.create_dataset("gpu/power", data=np.ones((4, columns)))
        power.attrs["entity"] = "gpu"
        if breakage != "dataset without units":
            power.attrs["units"] = "W"
        if breakage == "no index table":
            power.attrs["entity"] = "pump"
        if breakage != "no time":
            power.dims[0].attach_scale(report["time"])
        if breakage != "wrong entity count":
            power.dims[1].attach_scale(index)
        rows = 3 if breakage == "short series" else 4
        flow = report.create_dataset("coolant/flow", data=np.ones(rows))
        flow.attrs["units"] = "m3/s"
        if breakage not in ("no time", "time without units"):
            flow.dims[0].attach_scale(report["time"])
        if breakage == "no summary":
            return
        summary = report.create_group("summary")
        if breakage == "empty summary":
            return
        figure = summary.create_dataset("peak", data=1.0)
        if breakage != "summary without units":
            figure.attrs["units"] = "K"


def self_test(directory):
    os.makedirs(directory, exist_ok=True)
    failures = []
    good = os.path.join(directory, "good.h5")
    write_minimal(good)
    problems, _ = check(good)
    if problems:
        failures.append(f"a conforming report was rejected: {problems}")
    for breakage in ["no status", "no time", "time without units", "dataset without units",
                     "no summary", "empty summary", "summary without units",
                     "wrong entity count", "no index table", "short series"]:
        path = os.path.join(directory, breakage.replace(" ", "_") + ".h5")
        write_minimal(path, breakage)
        problems, _ = check(path)
        if not problems:
            failures.append(f"a report with '{breakage}' was accepted")
        else:
            print(f"check_report self-test: '{breakage}' rejected: {problems[0]}")
    text = os.path.join(directory, "text.h5")
    with open(text, "w", encoding="utf-8") as handle:
        handle.write("not HDF5\n")
    if not check(text)[0]:
        failures.append("a text file was accepted")
    if failures:
        for failure in failures:
            print(f"check_report self-test: FAILED: {failure}")
        return 1
    print("check_report self-test: OK")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return report_result(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
