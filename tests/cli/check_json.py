#!/usr/bin/python3
"""The command line's JSON output, read as a program would.

  check_json.py DCTWIN SOURCE_DIR REPORT

- `dctwin schema --json` is a valid JSON Schema (draft 2020-12) that accepts every shipped
  scenario and refuses an unknown key, a wrong choice and a number out of range;
- `dctwin check --json` reports a valid scenario, and a bad one with its file, line, column, key
  path and message, with the text form's exit code;
- design warnings: none for the shipped scenarios but the air-cooled diurnal hall's token chiller,
  one for a pod on a dry cooler too small for its chiller, on stderr and in the report of a run;
- `dctwin info --json` gives the report's status, time and datasets, and a summary whose names,
  values and units are those of the report's /summary datasets (read with h5py).
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

import h5py
import jsonschema
import yaml

dctwin, source, report = sys.argv[1:4]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    p = subprocess.run([dctwin, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


# --- schema ---------------------------------------------------------------------------------
code, out, err = run("schema", "--json")
check(code == 0, f"schema --json exit {code}: {err}")
schema = json.loads(out)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
scenarios = sorted(glob.glob(os.path.join(source, "scenarios", "*.yaml")))
check(len(scenarios) >= 9, f"shipped scenarios found: {len(scenarios)}")
for path in scenarios:
    with open(path) as f:
        document = yaml.safe_load(f)
    errors = [e.message for e in validator.iter_errors(document)]
    check(not errors, f"{os.path.basename(path)} refused by the schema: {errors[:3]}")

with open(os.path.join(source, "scenarios", "single-node.yaml")) as f:
    base = yaml.safe_load(f)
unknown = dict(base, simulaton={"duration": 10})
check(not validator.is_valid(unknown), "an unknown top-level key is accepted")
wrong_choice = json.loads(json.dumps(base))
wrong_choice["simulation"]["mode"] = "fastest"
check(not validator.is_valid(wrong_choice), "a wrong choice is accepted")
out_of_range = json.loads(json.dumps(base))
out_of_range["server"]["gpu_count"] = 0
check(not validator.is_valid(out_of_range), "gpu_count 0 is accepted")
check(schema["properties"]["simulation"]["properties"]["relative_tolerance"]["x-unit"] == "1",
      "relative_tolerance has no unit")

# --- check ----------------------------------------------------------------------------------
code, out, err = run("check", "--json", os.path.join(source, "scenarios", "single-node.yaml"))
result = json.loads(out)
check(code == 0 and result["valid"] is True and result["site"].startswith("site 'single-node'"), f"check --json on a good file: {code} {out}")

with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("name: bad\nsimulation:\n  duration: 10 min\n  mode: fastest\n")
    code, out, err = run("check", "--json", bad)
    result = json.loads(out)
    check(code == 65, f"check --json on a bad choice: exit {code}")
    check(result["valid"] is False and len(result["errors"]) == 1, f"check --json result: {out}")
    e = result["errors"][0]
    check((e.get("file"), e.get("line"), e.get("column"), e.get("path")) == (bad, 4, 9, "simulation.mode"),
          f"check --json location: {e}")
    code_text, _, err_text = run("check", bad)
    check(code_text == 65 and err_text.strip() == e["message"], f"text and JSON messages differ: {err_text!r}")
    code, out, err = run("check", "--json", os.path.join(tmp, "missing.yaml"))
    check(code == 66 and json.loads(out)["valid"] is False, f"check --json on a missing file: {code} {out}")

# --- design warnings ------------------------------------------------------------------------
# Every shipped scenario's plant holds its set-point at the design load, except the air-cooled
# diurnal hall's, whose token chiller lets the supply float by design (the scenario says so).
for path in scenarios:
    code, out, err = run("check", "--json", path)
    warnings = json.loads(out).get("warnings")
    name = os.path.basename(path)
    if name == "llama3-24k-air-diurnal.yaml":
        check(code == 0 and len(warnings) == 1 and warnings[0].startswith(
            "facility.plant cannot hold the 18.0 degC supply set-point at the design load: 24576 GPUs at their "
            "700 W limit and 3072 servers' other DC load of 2350 W (24.42 MW), in the weather at t = 14.00 h"),
            f"{name}: warnings {warnings}")
    else:
        check(code == 0 and warnings == [], f"{name}: warnings {warnings}")

# The pod's 3.05 MW (3,072 x 700 W + 384 x 2,350 W) on the default 500 kW dry cooler: the chiller
# could carry it only with condenser water far above its curves' 35 degC. A 5 MW dry cooler is fine.
with open(os.path.join(source, "scenarios", "pod-l2a.yaml")) as f:
    pod = f.read()
chiller_line = "    chiller: {reference_capacity: 4.5 MW}\n"
check(chiller_line in pod, "pod-l2a.yaml has changed: the test edits its chiller line")
with tempfile.TemporaryDirectory() as tmp:
    small = os.path.join(tmp, "pod-small-dry-cooler.yaml")
    with open(small, "w") as f:
        f.write(pod.replace(chiller_line, chiller_line + "    heat_rejection: dry_cooler\n"))
    code, out, err = run("check", "--json", small)
    warnings = json.loads(out).get("warnings", [])
    check(code == 0 and len(warnings) == 1 and warnings[0].startswith(
        "facility.plant.dry_cooler is too small for the plant at the design load: 3072 GPUs at their 700 W limit "
        "and 384 servers' other DC load of 2350 W (3.05 MW)") and "above the 35.0 degC at which the chiller's "
        "performance curves end" in warnings[0], f"small dry cooler: {warnings}")
    code, out, err = run("check", small)
    check(code == 0 and err.startswith("warning: facility.plant.dry_cooler is too small"), f"check text: {err!r}")
    # A run says it before it starts and keeps it in the report.
    pod_report = os.path.join(tmp, "pod.h5")
    code, out, err = run("run", small, "-o", pod_report, "-q", "--duration", "2", "--output-interval", "1")
    check(code == 0 and "warning: facility.plant.dry_cooler is too small" in err, f"run: {code} {err[-300:]!r}")
    with h5py.File(pod_report, "r") as h5:
        stored = h5.attrs.get("design_warnings", b"")
        stored = stored.decode() if isinstance(stored, bytes) else str(stored)
        check(stored == warnings[0], f"design_warnings attribute: {stored[:120]!r}")
        # The run counts the chiller above its curves' 35 degC condenser edge from the first sample.
        first = float(h5["summary/envelope_chiller_condenser_water_first"][()])
        worst = float(h5["summary/envelope_chiller_condenser_water_worst"][()])
        check(first == 0.0 and worst > 273.15 + 40.0, f"condenser envelope: first {first}, worst {worst - 273.15} degC")
    large = os.path.join(tmp, "pod-large-dry-cooler.yaml")
    with open(large, "w") as f:
        f.write(pod.replace(chiller_line, chiller_line + "    heat_rejection: dry_cooler\n"
                            "    dry_cooler: {rating_heat_flow: 5 MW, nominal_air_flow: 621 kg/s, "
                            "fan_power_at_full_speed: 100 kW}\n"))
    code, out, err = run("check", "--json", large)
    check(code == 0 and json.loads(out).get("warnings") == [], f"5 MW dry cooler: {out}")

# --- info -----------------------------------------------------------------------------------
code, out, err = run("info", "--json", "--attributes", report)
check(code == 0, f"info --json exit {code}: {err}")
info = json.loads(out)
with h5py.File(report, "r") as h5:
    status = h5.attrs["status"]
    status = status.decode() if isinstance(status, bytes) else str(status)
    check(info["status"] == status, f"status {info['status']!r} against the report's {status!r}")
    check(info["time"]["samples"] == h5["time"].shape[0] and info["time"]["unit"] == "s", f"time: {info['time']}")
    check(math.isclose(info["time"]["end"], float(h5["time"][-1])), "time end differs")
    paths = {d["path"] for d in info["datasets"]}
    check("/time" in paths, "no /time among the datasets")
    summary = {f["name"]: f for f in info["summary"]}
    check(len(summary) == len(h5["summary"]), f"summary has {len(summary)} figures, the report {len(h5['summary'])}")
    for name, dataset in h5["summary"].items():
        figure = summary.get(name)
        if figure is None:
            check(False, f"summary figure {name} missing")
            continue
        value = float(dataset[()])
        check(figure["value"] is None if not math.isfinite(value) else math.isclose(figure["value"], value, rel_tol=1e-15),
              f"{name}: {figure['value']} against {value}")
        units = dataset.attrs.get("units", b"")
        units = units.decode() if isinstance(units, bytes) else str(units)
        check(figure["unit"] == units, f"{name}: unit {figure['unit']!r} against {units!r}")
    check("scenario_name" in info["attributes"], "--attributes gave no scenario_name")

if failures:
    print(f"check_json: {len(failures)} failure(s)")
    sys.exit(1)
print("check_json: OK")
