#!/usr/bin/python3
"""Check the scenario's `output` section end to end on a shipped scenario.

Usage:
    check_storage.py DCTWIN SCENARIO.yaml DURATION WORK_DIR

Writes two copies of SCENARIO (run for DURATION seconds, sampled every second) into WORK_DIR: `full.yaml` as shipped and
`chosen.yaml` with an `output` section that leaves the HBM temperatures out, stores every series
float32 and rounds the temperatures to 0.01 K and the powers to 1 W. Runs both, then checks:
  - `dctwin check --json` estimates each report's size: the real file is at most the uncompressed
    bound and within a factor of SIZE_FACTOR of the expected size either way;
  - with h5py: the left-out series are absent, the others are float32 (categorical ones uint32),
    the rounded ones carry `resolution` and `quantization_step`, and every value of chosen.h5 is
    within half its quantization step (plus float32's rounding) of the same value in full.h5,
    the two runs being the same simulation;
  - netCDF4-python and xarray (both engines) read chosen.h5's rounded series with the same values.
Prints `check_storage: OK ...` and exits 0, or prints the problems and exits 1.
"""

import json
import os
import subprocess
import sys

import h5py
import netCDF4
import numpy as np
import xarray as xr
import yaml

# The expected size (ReportSizeEstimate::expected_bytes) is within this factor of the real file. The
# estimate uses one deflate share per storage type; series that stay constant (the UPS and BBU
# energies of a run without a utility event, zero-filled storage series) compress to almost nothing,
# and pod-l2a's chosen report lands at 0.65 of its estimate.
SIZE_FACTOR = 2.0
OUTPUT_SECTION = {
    "float_type": "float32",
    "variables": [
        {"match": "gpu/hbm_temperature", "write": False},
        {"match": "*", "units": "K", "resolution": "0.01 K"},
        {"match": "*power*", "units": "W", "resolution": "1 W"},
    ],
}

problems = []


def check(condition, message):
    if not condition:
        problems.append(message)


def write_scenario(source, duration, path, output):
    with open(source) as f:
        scenario = yaml.safe_load(f)
    scenario.setdefault("simulation", {})["duration"] = f"{duration} s"
    scenario["simulation"]["output_interval"] = "1 s"  # the per-GPU series make most of the file
    if output is not None:
        scenario["output"] = output
    with open(path, "w") as f:
        yaml.safe_dump(scenario, f, sort_keys=False)


def run(dctwin, *arguments):
    return subprocess.run([dctwin, *arguments], capture_output=True, text=True)


def numeric_datasets(f):
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "fiu" and obj.ndim >= 1:
            found[name] = obj

    f.visititems(visit)
    return found


def main():
    dctwin, source, duration, work = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    os.makedirs(work, exist_ok=True)
    sizes = {}
    for name, output in (("full", None), ("chosen", OUTPUT_SECTION)):
        scenario = os.path.join(work, name + ".yaml")
        report = os.path.join(work, name + ".h5")
        write_scenario(source, duration, scenario, output)
        checked = run(dctwin, "check", "--json", scenario)
        if checked.returncode != 0:
            print(f"dctwin check {scenario}: exit {checked.returncode}: {checked.stdout}{checked.stderr}")
            sys.exit(1)
        estimate = json.loads(checked.stdout)["report"]
        ran = run(dctwin, "run", scenario, "-o", report, "--threads", "1")
        if ran.returncode != 0:
            print(f"dctwin run {scenario}: exit {ran.returncode}: {ran.stderr}")
            sys.exit(1)
        check("dctwin run: report " in ran.stdout and estimate["text"] in ran.stdout,
              f"{name}: dctwin run did not print the estimate {estimate['text']!r}: {ran.stdout[:300]!r}")
        real = os.path.getsize(report)
        expected, bound = estimate["expected_bytes"], estimate["uncompressed_bytes"]
        sizes[name] = (real, expected, bound)
        check(real <= bound, f"{name}: {real} bytes on disk, more than the uncompressed bound {bound:.0f}")
        check(expected / SIZE_FACTOR <= real <= expected * SIZE_FACTOR,
              f"{name}: {real} bytes on disk, expected {expected:.0f} (factor {real / expected:.2f}, allowed "
              f"{SIZE_FACTOR})")
    check(sizes["chosen"][0] < 0.6 * sizes["full"][0],
          f"the chosen report ({sizes['chosen'][0]} bytes) is not much smaller than the full one ({sizes['full'][0]})")

    full_path, chosen_path = os.path.join(work, "full.h5"), os.path.join(work, "chosen.h5")
    rounded = []
    with h5py.File(full_path, "r") as full, h5py.File(chosen_path, "r") as chosen:
        full_sets, chosen_sets = numeric_datasets(full), numeric_datasets(chosen)
        check("gpu/hbm_temperature" in full_sets and "gpu/hbm_temperature" not in chosen_sets,
              "gpu/hbm_temperature is not left out")
        for name, data in full_sets.items():
            if name == "gpu/hbm_temperature" or name.startswith(("layout/", "index/")):
                continue
            if name not in chosen_sets:
                problems.append(f"{name}: missing from the chosen report")
                continue
            stored = chosen_sets[name]
            is_time = name == "time" or name.endswith("/time")
            categorical = "flag_meanings" in data.attrs
            want = np.float64 if is_time else np.uint32 if categorical else np.float32
            check(stored.dtype == want, f"{name}: stored as {stored.dtype}, expected {np.dtype(want)}")
            exact = data[...].astype(np.float64)
            values = stored[...].astype(np.float64)
            check(values.shape == exact.shape, f"{name}: shape {values.shape}, expected {exact.shape}")
            if values.shape != exact.shape:
                continue
            units = data.attrs.get("units", b"")
            units = units.decode() if isinstance(units, bytes) else str(units)
            step = stored.attrs.get("quantization_step")
            if is_time or categorical:
                check(np.array_equal(values, exact), f"{name}: values differ")
                continue
            float32_rounding = np.abs(exact) * 2.0 ** -24
            if step is None:
                check(units != "K", f"{name}: a temperature without quantization_step")
                error = np.abs(values - exact) - float32_rounding
            else:
                resolution = float(stored.attrs["resolution"])
                expected_step = 2.0 ** np.floor(np.log2(resolution))
                check(float(step) == expected_step, f"{name}: quantization_step {step}, expected {expected_step}")
                check(abs(resolution - (0.01 if units == "K" else 1.0)) < 1e-12, f"{name}: resolution {resolution}")
                error = np.abs(values - exact) - float(step) / 2 - float32_rounding
                rounded.append((name, float(step)))
            check(np.array_equal(np.isnan(values), np.isnan(exact)), f"{name}: NaN where the simulated value is not")
            worst = float(np.nanmax(error)) if error.size and not np.all(np.isnan(error)) else 0.0
            check(worst <= 1e-12, f"{name}: a value is {worst:g} {units} further from the simulated one than allowed")
    check(any(u == 2.0 ** -7 for _, u in rounded), "no series was rounded to 2^-7 K")
    check(any(u == 1.0 for _, u in rounded), "no series was rounded to 1 W")

    # The netCDF tools read the rounded float32 series as h5py does.
    with h5py.File(chosen_path, "r") as chosen:
        for name, _ in rounded:
            group, _, variable = name.rpartition("/")
            expected = chosen[name][...]
            with netCDF4.Dataset(chosen_path) as nc:
                node = nc
                for part in filter(None, group.split("/")):
                    node = node.groups[part]
                check(np.array_equal(node.variables[variable][...], expected), f"netCDF4: {name} differs")
            for engine in ("netcdf4", "h5netcdf"):
                with xr.open_dataset(chosen_path, group=group or None, engine=engine, decode_times=False) as ds:
                    check(np.array_equal(ds[variable].values, expected), f"xarray {engine}: {name} differs")

    if problems:
        print("\n".join(problems))
        sys.exit(1)
    (full_real, full_expected, full_bound), (chosen_real, chosen_expected, chosen_bound) = sizes["full"], sizes["chosen"]
    print(f"check_storage: OK full {full_real} bytes (expected {full_expected:.0f}, bound {full_bound:.0f}), "
          f"chosen {chosen_real} bytes (expected {chosen_expected:.0f}, bound {chosen_bound:.0f}), "
          f"{len(rounded)} rounded series")


if __name__ == "__main__":
    main()
