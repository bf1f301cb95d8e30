#!/usr/bin/python3
"""Independent check of a dctwin sweep index with h5py: every column is a 1-D dataset over the
members with `units` and `long_name`, the member ids are a dimension scale attached to every
column, string columns decode as UTF-8, and the counts match the status column.

usage: check_index.py INDEX.h5   (prints "check_index: OK, N members, P parameters")
"""
import sys

import h5py
import numpy as np


def fail(message):
    print("check_index: " + message)
    sys.exit(1)


def text(values):
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]


def main(path):
    with h5py.File(path, "r") as f:
        members = text(f["member"][:])
        n = len(members)
        if n == 0 or len(set(members)) != n:
            fail("member ids are empty or not unique")
        if f["member"].attrs.get("CLASS") != b"DIMENSION_SCALE":
            fail("/member is not a dimension scale")
        columns = ["status", "reason", "report", "end_time", "wall_time"]
        columns += ["parameters/" + k for k in f["parameters"]]
        columns += ["summary/" + k for k in f["summary"]]
        for name in columns + ["member"]:
            d = f[name]
            if d.shape != (n,):
                fail(f"/{name} has shape {d.shape}, not ({n},)")
            for attribute in ("units", "long_name"):
                if attribute not in d.attrs:
                    fail(f"/{name} has no {attribute}")
            if name != "member":
                scales = [f[ref].name for ref in d.dims[0]]
                if scales != ["/member"]:
                    fail(f"/{name} is not attached to /member ({scales})")
            if d.dtype.kind == "f" and name.startswith("summary/") and not np.isfinite(d[:]).any():
                fail(f"/{name} holds no finite value")
        status = text(f["status"][:])
        for word in ("complete", "incomplete", "failed", "missing"):
            if int(f.attrs[word]) != status.count(word):
                fail(f"attribute {word} = {f.attrs[word]}, but the status column has {status.count(word)}")
        if int(f.attrs["members"]) != n:
            fail("attribute members does not match the columns")
        reasons = text(f["reason"][:])
        for s, r in zip(status, reasons):
            if (s == "complete") != (r == ""):
                fail(f"status {s} with reason '{r}'")
        for key in f["parameters"]:
            if f["parameters"][key].attrs["key"] != key.encode() and f["parameters"][key].attrs["key"] != key:
                fail(f"parameter column {key} names another key")
        source = f["sweep/source"][()]
        if not (source.decode() if isinstance(source, bytes) else source).startswith("name:"):
            fail("/sweep/source is not the sweep file")
        print(f"check_index: OK, {n} members, {len(f['parameters'])} parameters")


if __name__ == "__main__":
    main(sys.argv[1])
