#!/usr/bin/env python3
"""Checks the source citations of the tree against docs/sources.md.

Every citation key in square brackets (lower-case letters and digits, words joined by '-', at least
one letter, e.g. [meta-llama3-2024])
in the docs, code, tests and scripts must be defined in docs/sources.md, where an entry starts a
list item with the key in bold: "- **[key]** ...". Keys are defined once. No file may cite the
fact sheet the figures were first collected in (it is not part of the repository); cite the source
itself.

Usage: check_sources.py <source dir>. Prints "check_sources: OK ..." and exits 0 when all hold;
otherwise prints one "<file>:<line>: <problem>" per finding and exits 1.
"""
import os
import re
import sys

TEXT_SUFFIXES = (".md", ".cpp", ".hpp", ".h", ".txt", ".py", ".cmake", ".yaml", ".yml", ".sh", ".json")
SKIP_DIRS = {".git", "data"}
SKIP_PREFIXES = ("build", os.path.join("tests", "fuzz", "corpus"))
KEY_TEXT = r"(?=[a-z0-9-]*[a-z])[a-z0-9]{2,}(?:-[a-z0-9]+)+"  # holds a letter: "[10-20]" is no key
KEY = re.compile(r"\[(" + KEY_TEXT + r")\]")
DEFINITION = re.compile(r"^- \*\*\[(" + KEY_TEXT + r")\]\*\*")
OLD_SHEET = re.compile("FACTS" + r"\.md")


def text_files(root):
    for directory, subdirs, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        subdirs[:] = sorted(d for d in subdirs
                            if d not in SKIP_DIRS and not os.path.join(relative, d).lstrip("./").startswith(SKIP_PREFIXES))
        for name in sorted(files):
            if name.endswith(TEXT_SUFFIXES):
                yield os.path.join(directory, name)


def is_citation(line, match):
    """A Catch2 tag ("[tag]" or "[a][tag]") and a Markdown link ([text](url)) are not citations."""
    before = line[match.start() - 1] if match.start() > 0 else ""
    after = line[match.end()] if match.end() < len(line) else ""
    if after == "(":
        return False
    if before in ('"', "]") and after in ('"', "["):
        return False
    return True


def main():
    if len(sys.argv) != 2:
        print("usage: check_sources.py <source dir>", file=sys.stderr)
        return 2
    root = sys.argv[1]
    sources = os.path.join(root, "docs", "sources.md")
    problems = []
    defined = {}
    with open(sources, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = DEFINITION.match(line)
            if m:
                if m.group(1) in defined:
                    problems.append(f"docs/sources.md:{number}: [{m.group(1)}] defined again "
                                    f"(first at line {defined[m.group(1)]})")
                defined.setdefault(m.group(1), number)
    if not defined:
        problems.append("docs/sources.md: no entries found")

    this_file = os.path.abspath(__file__)
    citations = 0
    citing_files = set()
    for path in text_files(root):
        if os.path.abspath(path) == this_file:
            continue
        relative = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, 1):
            if OLD_SHEET.search(line):
                problems.append(f"{relative}:{number}: cites a fact sheet outside the repository; cite "
                                f"the source itself (docs/sources.md)")
            for m in KEY.finditer(line):
                if not is_citation(line, m):
                    continue
                citations += 1
                citing_files.add(relative)
                if m.group(1) not in defined:
                    problems.append(f"{relative}:{number}: [{m.group(1)}] is not defined in docs/sources.md")

    for problem in problems:
        print(problem)
    if problems:
        print(f"check_sources: {len(problems)} problem(s)")
        return 1
    print(f"check_sources: OK ({len(defined)} sources, {citations} citations in {len(citing_files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
