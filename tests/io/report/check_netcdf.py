#!/usr/bin/python3
"""Check that dctwin reports are valid netCDF-4 files that netCDF tools read as documented.

Usage:
    check_netcdf.py REPORT.h5 [REPORT.h5 ...]

For each report:
  - `ncdump -h` (the netCDF C library) lists it without an error, with the unlimited `time`
    dimension at the root;
  - netCDF4-python and xarray, with both its netcdf4 and its h5netcdf engine, open the root and
    every group; no dimension is a phony one (every dimension of every variable has a name);
  - every time axis (`/time`, `/<group>/time`, `/events/time`) has units
    "s since 2000-01-01T00:00:00Z" and calendar "standard", and xarray decodes `/time` to dates
    starting at that epoch;
  - every variable that runs over an entity (attribute `entity`) has, in its own group, the
    coordinate variable of that entity: strings equal to `/index/<entity>`, and xarray shows them
    as the coordinate of the variable's dimension;
  - every variable with CF flags is stored as uint32 with `flag_masks` (bit fields) or
    `flag_values` (enumerations) of the same type, as many words in `flag_meanings`, and values
    that the flags describe (a bit field's bits within its masks, an enumeration's values among
    its values); the GPUs' throttle reasons, the job's phase and the plant's mode are such
    variables wherever a report has them, and at least one report given has each.
Exit 0 when every report passes, 1 otherwise, with each problem on its own line.
"""

import subprocess
import sys

import netCDF4
import numpy as np
import xarray as xr

TIME_UNITS = "s since 2000-01-01T00:00:00Z"
EPOCH = np.datetime64("2000-01-01T00:00:00", "ns")
ENGINES = ("netcdf4", "h5netcdf")
# Categorical series of the simulator: (group, name) -> the CF attribute that lists their values.
CATEGORICAL = {("gpu", "throttle_reasons"): "flag_masks", ("job", "phase"): "flag_values",
               ("plant", "mode"): "flag_values"}


def groups_of(dataset, prefix=""):
    """(path, netCDF4 group) of the root and every group below it, parents first."""
    found = [(prefix or "/", dataset)]
    for name, group in dataset.groups.items():
        found.extend(groups_of(group, prefix + "/" + name))
    return found


def check_flags(where, variable, problems):
    kind = "flag_masks" if "flag_masks" in variable.ncattrs() else "flag_values"
    flags = np.atleast_1d(variable.getncattr(kind))
    meanings = variable.getncattr("flag_meanings").split()
    if variable.dtype != np.uint32:
        problems.append(f"{where} has {kind} but is stored as {variable.dtype}, not uint32")
    if flags.dtype != np.uint32:
        problems.append(f"{where}: {kind} are {flags.dtype}, not uint32")
    if len(meanings) != len(flags):
        problems.append(f"{where}: {len(flags)} {kind} but {len(meanings)} flag_meanings")
    values = np.asarray(variable[:]).ravel()
    if kind == "flag_masks":
        allowed = np.bitwise_or.reduce(flags.astype(np.uint64))
        stray = values[(values.astype(np.uint64) & ~allowed) != 0]
        if stray.size:
            problems.append(f"{where}: value {stray[0]} has bits outside its flag_masks")
    else:
        stray = values[~np.isin(values, flags)]
        if stray.size:
            problems.append(f"{where}: value {stray[0]} is not one of its flag_values")
    return kind


def check_ncdump(path, problems):
    result = subprocess.run(["ncdump", "-h", path], capture_output=True, text=True)
    if result.returncode != 0:
        problems.append(f"ncdump -h failed ({result.returncode}): {result.stderr.strip()}")
        return
    header = result.stdout
    if "time = UNLIMITED" not in header:
        problems.append("ncdump -h shows no unlimited time dimension")
    if f'time:units = "{TIME_UNITS}"' not in header:
        problems.append(f"ncdump -h does not show time:units = \"{TIME_UNITS}\"")
    if "phony_dim" in header:
        problems.append("ncdump -h shows a phony dimension (a dataset without dimension scales)")


def check_netcdf4(path, problems, seen):
    with netCDF4.Dataset(path) as root:
        index = {name: list(var[:]) for name, var in root["index"].variables.items()}
        for where, group in groups_of(root):
            for name, variable in group.variables.items():
                full = (where.rstrip("/") + "/" + name)
                if name == "time" and variable.dimensions == ("time",):
                    for attribute, expected in (("units", TIME_UNITS), ("calendar", "standard")):
                        if getattr(variable, attribute, None) != expected:
                            problems.append(f"{full}: {attribute} = {getattr(variable, attribute, None)!r}, "
                                            f"not {expected!r}")
                if "entity" in variable.ncattrs():
                    entity = variable.getncattr("entity")
                    coordinate = group.variables.get(entity)
                    if coordinate is None or coordinate.dimensions != (entity,):
                        problems.append(f"{full}: no coordinate variable {entity}({entity}) in its group")
                    elif list(coordinate[:]) != index.get(entity):
                        problems.append(f"{full}: the labels of {where}/{entity} differ from /index/{entity}")
                    if entity not in variable.dimensions:
                        problems.append(f"{full}: dimensions {variable.dimensions} do not include {entity}")
                key = (where.strip("/"), name)
                if "flag_masks" in variable.ncattrs() or "flag_values" in variable.ncattrs():
                    kind = check_flags(full, variable, problems)
                    if key in CATEGORICAL and kind != CATEGORICAL[key]:
                        problems.append(f"{full}: has {kind}, not {CATEGORICAL[key]}")
                    seen.add(key)
                elif key in CATEGORICAL:
                    problems.append(f"{full}: no {CATEGORICAL[key]} (stored as {variable.dtype})")
        return [where for where, _ in groups_of(root)]


def check_xarray(path, groups, problems):
    for engine in ENGINES:
        for where in groups:
            group = None if where == "/" else where
            try:
                with xr.open_dataset(path, engine=engine, group=group, decode_times=False) as ds:
                    for name, variable in ds.variables.items():
                        for dim in variable.dims:
                            if dim.startswith("phony_dim"):
                                problems.append(f"{engine}: {where} {name} has a phony dimension {dim}")
                        entity = variable.attrs.get("entity")
                        if entity and (entity not in ds.coords or ds.coords[entity].dtype.kind not in "OUS"):
                            problems.append(f"{engine}: {where} {name}: no label coordinate {entity}")
            except Exception as error:  # any failure to open is what this check reports
                problems.append(f"{engine}: cannot open group {where}: {type(error).__name__}: {error}")
        try:
            with xr.open_dataset(path, engine=engine) as ds:
                if ds["time"].dtype.kind != "M":
                    problems.append(f"{engine}: /time decodes to {ds['time'].dtype}, not dates")
                elif ds["time"].size and ds["time"].values[0] != EPOCH:
                    problems.append(f"{engine}: /time starts at {ds['time'].values[0]}, not {EPOCH}")
        except Exception as error:
            problems.append(f"{engine}: cannot decode /time: {type(error).__name__}: {error}")


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    failed = 0
    seen = set()
    for path in paths:
        problems = []
        check_ncdump(path, problems)
        groups = []
        try:
            groups = check_netcdf4(path, problems, seen)
        except Exception as error:
            problems.append(f"netCDF4: cannot read: {type(error).__name__}: {error}")
        check_xarray(path, groups, problems)
        if problems:
            failed += 1
            print(f"check_netcdf: FAILED {path}")
            for problem in problems:
                print(f"  - {problem}")
        else:
            print(f"check_netcdf: OK {path} ({len(groups)} groups)")
    for key, attribute in CATEGORICAL.items():
        if key not in seen:
            failed += 1
            print(f"check_netcdf: no report given has /{key[0]}/{key[1]} with {attribute}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
