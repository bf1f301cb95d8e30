#!/usr/bin/python3
"""Every command block of a Markdown page run as written, in order, in a scratch directory.

  check_command_blocks.py BUILD_DIR SOURCE_DIR PAGE [--list]

A command block is a fenced block tagged `sh`, `bash`, `shell` or `console`. The blocks of one page
run one after the other with `bash -e -o pipefail` in one scratch directory, so a later block may
use a file an earlier one wrote (`report.h5`, say). The scratch directory sees the source tree's
scenarios/, data/, tests/, scripts/ and python/ (links), the build tree as build/release, and
`dctwin`, `dctwin-gui` and the system's python3 on PATH. A block passes when it exits 0.

An HTML comment on the line before the fence changes how its block is run:

  <!-- docs-check: given NAME=PATH [NAME=PATH ...] -->
      the block names a file of the reader's own (a scenario, a trace): PATH, relative to the
      source tree, is copied to NAME first;
  <!-- docs-check: display -->
      the block opens a window: it runs under xvfb-run (skipped, and said so, without one or
      without the GUI);
  <!-- docs-check: skip REASON -->
      the block cannot run here (a GPU, a cluster scheduler, a package manager): REASON says why,
      and the test prints it. A skipped block is still listed, so the skips stay visible.

`--list` prints the blocks and how each would be run, without running them.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(sh|bash|shell|console)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*docs-check:\s*(given|display|skip)\b(.*?)-->\s*$")
LINKED = ("scenarios", "data", "tests", "scripts", "python")


class Block:
    def __init__(self, line, text, directive, argument):
        self.line = line            # 1-based line of the opening fence
        self.text = text
        self.directive = directive  # None, "given", "display" or "skip"
        self.argument = argument.strip()


def command_blocks(path):
    """The page's command blocks, each with the directive of the line before it (if any)."""
    with open(path) as f:
        lines = f.read().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}:{start + 1}: the command block is never closed")
            previous = lines[start - 1] if start > 0 else ""
            m = DIRECTIVE.match(previous)
            if previous.lstrip().startswith("<!--") and "docs-check" in previous and not m:
                raise SystemExit(f"{path}:{start}: unknown docs-check directive: {previous.strip()}")
            blocks.append(Block(start + 1, "\n".join(body) + "\n", m.group(1) if m else None,
                                m.group(2) if m else ""))
        i += 1
    return blocks


def scratch_directory(tmp, build, source):
    """Links to the source tree and the build, and a bin/ with the tools."""
    for name in LINKED:
        if os.path.isdir(os.path.join(source, name)):
            os.symlink(os.path.join(source, name), os.path.join(tmp, name))
    os.makedirs(os.path.join(tmp, "build"))
    os.symlink(build, os.path.join(tmp, "build", "release"))
    tools = os.path.join(tmp, ".bin")
    os.makedirs(tools)
    for tool, place in (("dctwin", "cli/dctwin"), ("dctwin-gui", "gui/dctwin-gui")):
        if os.path.exists(os.path.join(build, place)):
            os.symlink(os.path.join(build, place), os.path.join(tools, tool))
    # The docs address a Debian 12 machine set up by scripts/setup.sh: its python3 has numpy and h5py.
    if os.path.exists("/usr/bin/python3"):
        os.symlink("/usr/bin/python3", os.path.join(tools, "python3"))
    return tools


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    listing = "--list" in sys.argv[1:]
    if len(args) != 3:
        raise SystemExit(__doc__)
    build, source, page = (os.path.abspath(a) if i < 2 else a for i, a in enumerate(args))
    path = os.path.join(source, page)
    blocks = command_blocks(path)
    if not blocks:
        raise SystemExit(f"{page}: no command block (the test is registered for a page with none)")
    has_gui = os.path.exists(os.path.join(build, "gui", "dctwin-gui"))
    xvfb = shutil.which("xvfb-run")
    failures, ran, skipped = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="docs-check-") as tmp:
        tools = scratch_directory(tmp, build, source)
        env = dict(os.environ, PATH=tools + os.pathsep + os.environ.get("PATH", ""),
                   LIBGL_ALWAYS_SOFTWARE="1", QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "xcb"))
        for block in blocks:
            where = f"{page}:{block.line}"
            if block.directive == "skip":
                if not block.argument:
                    failures.append(f"{where}: a skip must say why")
                print(f"{where}: skipped: {block.argument}")
                skipped += 1
                continue
            command = ["bash", "-e", "-o", "pipefail", "-c", block.text]
            if block.directive == "display":
                if not (has_gui and xvfb):
                    print(f"{where}: skipped: needs {'xvfb-run' if has_gui else 'the GUI build'}")
                    skipped += 1
                    continue
                command = [xvfb, "-a", "-s", "-screen 0 1600x1000x24"] + command
            if block.directive == "given":
                for pair in block.argument.split():
                    name, _, origin = pair.partition("=")
                    if not name or not origin or not os.path.isfile(os.path.join(source, origin)):
                        failures.append(f"{where}: bad 'given' {pair!r} (NAME=PATH of a file in the source tree)")
                        continue
                    shutil.copy(os.path.join(source, origin), os.path.join(tmp, name))
            if listing:
                print(f"{where}: would run{' under xvfb-run' if block.directive == 'display' else ''}:")
                print("    " + block.text.rstrip().replace("\n", "\n    "))
                continue
            print(f"{where}: running", flush=True)
            p = subprocess.run(command, cwd=tmp, env=env, capture_output=True, text=True)
            ran += 1
            if p.returncode != 0:
                tail = "\n".join((p.stdout + p.stderr).rstrip().splitlines()[-15:])
                failures.append(f"{where}: exit {p.returncode}\n{block.text}--- output (last lines):\n{tail}")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print(f"check_command_blocks: OK ({page}: {ran} run, {skipped} skipped)")


if __name__ == "__main__":
    main()
