#!/usr/bin/python3
"""Outputs that the documentation shows, produced again and compared line by line.

  check_documented_outputs.py DCTWIN SOURCE_DIR

- README.md, "A mistake in a scenario is reported ... for example": each example line is the
  message `dctwin check single-node.yaml` prints for scenarios/single-node.yaml with the edit the
  line describes (a pump's max_flow of -20 L/min; gpu_count misspelt gpu_cuont), line and column
  included.
- docs/sweeps.md: the first lines and the closing line of the supply-margin sweep's output (the
  members' counts by status), run as documented in a scratch directory.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

dctwin, source = sys.argv[1:3]
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def fenced_block_after(text, marker):
    """The first fenced block after `marker`, as a list of lines."""
    start = text.index(marker) + len(marker)
    block = re.search(r"```[a-z]*\n(.*?)```", text[start:], re.S)
    return block.group(1).splitlines()


with open(os.path.join(source, "README.md")) as f:
    readme = f.read()
with open(os.path.join(source, "scenarios", "single-node.yaml")) as f:
    scenario = f.read()

# Each README example line names the key it is about; the edit that produces it.
edits = {
    "loop.pump.max_flow": ("    max_flow: 20 L/min\n", "    max_flow: -20 L/min\n"),
    "server.gpu_cuont": ("\n  gpu_count: 8\n", "\n  gpu_cuont: 8\n"),
}
examples = fenced_block_after(readme, "in a scenario is reported with its place")
check(len(examples) == len(edits), f"README shows {len(examples)} example messages, the test knows {len(edits)}")
with tempfile.TemporaryDirectory() as tmp:
    for line in examples:
        key = next((k for k in edits if f": {k}" in line), None)
        if key is None:
            check(False, f"README example without a known edit: {line}")
            continue
        old, new = edits[key]
        check(scenario.count(old) == 1, f"scenarios/single-node.yaml no longer holds {old!r} once")
        with open(os.path.join(tmp, "single-node.yaml"), "w") as f:
            f.write(scenario.replace(old, new, 1))
        p = subprocess.run([dctwin, "check", "single-node.yaml"], cwd=tmp, capture_output=True, text=True)
        check(p.returncode == 65, f"{key}: exit {p.returncode}")
        check(p.stderr.strip() == line, f"README shows\n  {line}\nthe command prints\n  {p.stderr.strip()}")

# The supply-margin sweep's output in docs/sweeps.md.
with open(os.path.join(source, "docs", "sweeps.md")) as f:
    sweeps = f.read()
documented = fenced_block_after(sweeps, "dctwin sweep scenarios/sweeps/supply-margin.yaml -o supply-margin -j 2\n```")
with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "scenarios"))
    shutil.copytree(os.path.join(source, "scenarios", "sweeps"), os.path.join(tmp, "scenarios", "sweeps"))
    shutil.copy(os.path.join(source, "scenarios", "single-node.yaml"), os.path.join(tmp, "scenarios"))
    p = subprocess.run([dctwin, "sweep", "scenarios/sweeps/supply-margin.yaml", "-o", "supply-margin", "-j", "2"],
                       cwd=tmp, capture_output=True, text=True)
    printed = (p.stdout + p.stderr).splitlines()
    check(printed[:2] == documented[:2], f"sweep's first lines: documented {documented[:2]}, printed {printed[:2]}")
    check(printed[-1] == documented[-1], f"sweep's last line: documented\n  {documented[-1]}\nprinted\n  {printed[-1]}")
    # Every member line shown is printed, but for its wall time and its place in the order.
    shape = re.compile(r"\[\s*\d+/30\] (member \d{4} \w+) after [0-9.e-]+ s (.*)")
    printed_members = {m.group(1, 2) for m in map(shape.match, printed) if m}
    for line in documented:
        m = shape.match(line)
        if m:
            check(m.group(1, 2) in printed_members, f"sweep member line not printed: {line}")

if failures:
    print(f"check_documented_outputs: {len(failures)} failure(s)")
    sys.exit(1)
print("check_documented_outputs: OK")
