#!/usr/bin/python3
"""Check that every extreme in a report's /summary is the extreme of the series it names.

Usage:
    check_summary_extremes.py REPORT.h5 [REPORT.h5 ...]

A summary figure is an extreme when its name ends in _max, _min, _nadir, _zenith, _peak_to_peak or
_swing. Each must be listed below with the series it is the extreme of, and:

* `same samples`: the figure is computed from exactly the samples the report stores, so it must equal
  the series' max (min, max - min) to a relative 1e-12;
* `finer record`: the figure is taken on a record finer than the stored series (for example the
  training job's updates against the report's samples), so it may be more extreme than the series
  but never less: max >= series max, min <= series min, range >= series range;
* `derived`: the figure is a stated function of a series (ramp rates, RoCoF, voltage change),
  recomputed here from the stored series by the same definition;
* `not recorded`: no series of it is stored; the reason is given.

An extreme that is not listed fails the check, so a new one cannot be added without saying which
series it describes.
"""

import re
import sys

import h5py
import numpy as np

RELATIVE = 1e-12


def relative_close(a, b, tolerance=RELATIVE):
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-300)


def max_ramp_rate(samples, dt, window):
    """models::electrical::max_ramp_rate: the largest change between the means of two adjacent
    windows of n = round(window / dt) samples, per second."""
    n = max(1, int(round(window / dt)))
    count = len(samples)
    n = min(n, count // 2)
    if count < 2 or n < 1:
        return 0.0
    prefix = np.concatenate(([0.0], np.cumsum(np.asarray(samples, dtype=np.longdouble))))
    m = np.arange(n, count - n + 1)
    older = prefix[m] - prefix[m - n]
    newer = prefix[m + n] - prefix[m]
    return float(np.max(np.abs(newer - older)) / n / (n * dt))


def first_of(report, paths):
    for path in paths:
        if path in report:
            return report[path][...].astype(float)
    return None


# name -> (kind, series paths (the first present is used), reduction)
SAME = "same samples"
FINER = "finer record"
EXTREMES = {
    "gpu_junction_temperature_max": (SAME, ["/gpu/junction_temperature"], "max"),
    "gpu_hbm_temperature_max": (SAME, ["/gpu/hbm_temperature"], "max"),
    "coolant_supply_temperature_max": (
        SAME, ["/pod/coolant_supply_temperature", "/plant/water_supply_temperature", "/coolant/supply_temperature"],
        "max"),
    "coolant_return_temperature_max": (SAME, ["/coolant/return_temperature"], "max"),
    "cold_aisle_temperature_max": (SAME, ["/pod/cold_aisle_temperature"], "max"),
    "rack_coolant_flow_min": (SAME, ["/rack/coolant_flow"], "min"),
    "rack_coolant_flow_max": (SAME, ["/rack/coolant_flow"], "max"),
    "grid_power_peak_to_peak": (SAME, ["/grid/power"], "range"),
    "grid_frequency_nadir": (SAME, ["/grid/frequency"], "min"),
    "grid_frequency_zenith": (SAME, ["/grid/frequency"], "max"),
    "transformer_hot_spot_max": (SAME, ["/grid/transformer_hot_spot"], "max"),
    "capacitor_energy_swing": (SAME, ["/grid/capacitor_energy"], "range"),
    # The job takes its GPUs' total power at every governor update and phase edge, finer than the
    # report's samples of /gpu/total_power.
    "gpu_total_power_peak_to_peak": (FINER, ["/gpu/total_power"], "range"),
}
DERIVED = {
    "grid_voltage_change_max": "max |V - V_0| of /grid/voltage",
    "grid_rocof_max": "max |f(t) - f(t - 0.5 s)| / 0.5 s of /grid/frequency",
}
NOT_RECORDED = {
    "psu_bulk_voltage_min": "the PSUs' bulk capacitor voltages are not a report series",
    "torsional_amplitude_max": "the nearby unit's shaft twist is not a report series",
    # The battery's energy is stored as its state of charge (/grid/battery_soc), a different unit.
    "battery_energy_swing": "stored as /grid/battery_soc (1), not in J",
}
RAMP = re.compile(r"^grid_ramp_rate_max_(\d+(?:p\d+)?)(ms|s|min)$")
EXTREME = re.compile(r"(_max|_min|_nadir|_zenith|_peak_to_peak|_swing)$")


def ramp_window(name):
    match = RAMP.match(name)
    if not match:
        return None
    value = float(match.group(1).replace("p", "."))
    return value * {"ms": 1e-3, "s": 1.0, "min": 60.0}[match.group(2)]


def reduce(values, how):
    if how == "max":
        return float(np.max(values))
    if how == "min":
        return float(np.min(values))
    return float(np.max(values) - np.min(values))


def grid_record_is_stored_whole(report):
    """True when the feed's series are stored at its own step (electrical.output_interval equal to
    electrical.time_step in the resolved scenario): the grid figures then come from exactly the
    stored samples; otherwise from a finer record."""
    text = report["/scenario/resolved"][()]
    text = text.decode() if isinstance(text, bytes) else str(text)
    section = re.search(r"^electrical:\n((?:  .*\n)+)", text, re.MULTILINE)
    if not section:
        return False
    step = re.search(r"^  time_step: (\S+) s$", section.group(1), re.MULTILINE)
    interval = re.search(r"^  output_interval: (\S+) s$", section.group(1), re.MULTILINE)
    return bool(step and interval and float(step.group(1)) == float(interval.group(1)))


def check(path):
    problems = []
    checked = 0
    with h5py.File(path, "r") as report:
        grid_whole = "/grid/power" in report and grid_record_is_stored_whole(report)
        summary = report["summary"]
        for name in summary:
            value = float(summary[name][()])
            window = ramp_window(name)
            if window is not None and not grid_whole:
                continue  # the ramp needs the feed's own step; the stored series is decimated
            if window is not None:
                grid_time = report["/grid/time"][...]
                dt = float(np.median(np.diff(grid_time)))
                expected = max_ramp_rate(report["/grid/power"][...], dt, window)
                if not relative_close(value, expected, 1e-9):
                    problems.append(f"{name} = {value!r}, but /grid/power over {window} s windows gives {expected!r}")
                checked += 1
                continue
            if not EXTREME.search(name):
                continue
            if name in NOT_RECORDED:
                continue
            if name in DERIVED and not grid_whole:
                continue
            if name in DERIVED:
                if name == "grid_voltage_change_max":
                    v = report["/grid/voltage"][...]
                    expected = float(np.max(np.abs(v - v[0])))
                else:
                    f = report["/grid/frequency"][...]
                    dt = float(np.median(np.diff(report["/grid/time"][...])))
                    r = max(1, int(round(0.5 / dt)))
                    expected = float(np.max(np.abs(f[r:] - f[:-r])) / (r * dt)) if len(f) > r else 0.0
                if not relative_close(value, expected, 1e-9):
                    problems.append(f"{name} = {value!r}, but {DERIVED[name]} gives {expected!r}")
                checked += 1
                continue
            if name not in EXTREMES:
                problems.append(f"{name}: an extreme whose series this check does not know (add it to EXTREMES, "
                                f"DERIVED or NOT_RECORDED)")
                continue
            kind, paths, how = EXTREMES[name]
            if paths[0].startswith("/grid/") and not grid_whole:
                kind = FINER
            series = first_of(report, paths)
            if series is None:
                problems.append(f"{name}: none of its series {paths} is in the report")
                continue
            expected = reduce(series, how)
            if kind == SAME:
                ok = relative_close(value, expected)
            elif how == "min":
                ok = value <= expected * (1 + RELATIVE)
            else:
                ok = value >= expected * (1 - RELATIVE)
            if not ok:
                problems.append(f"{name} = {value!r}, but the {how} of {paths} ({kind}) is {expected!r}")
            checked += 1
    return problems, checked


def main(paths):
    failed = False
    for path in paths:
        problems, checked = check(path)
        for p in problems:
            print(f"{path}: {p}")
        print(f"{path}: {checked} extremes checked, {len(problems)} problems")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(64)
    sys.exit(main(sys.argv[1:]))
