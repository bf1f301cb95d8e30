"""Read a dctwin report into xarray and pandas, with labels and units, in one call.

    import dctwin_report
    report = dctwin_report.open_report("report.h5")
    report["gpu"]                      # xarray.Dataset: junction_temperature [time x gpu], ...
    report["gpu"].junction_temperature.sel(gpu="server0/gpu3").plot()
    report.summary                     # pandas.DataFrame: value, units, long_name by figure
    report.dataframe("gpu/power")      # pandas.DataFrame: time x GPU label
    report.attrs["status"]             # root attributes (status, seed, solver statistics, ...)

Every series keeps its `units` and `long_name` as attributes; its dimensions are named after the
HDF5 dimension scales attached to it (`time`, `gpu`, `rack`, `pod`, `grid_time` for the grid's own
time axis), and the scales' values (times in s, entity labels) are its coordinates. The report is
read with h5py only (Debian: python3-h5py python3-xarray python3-pandas); no netCDF library is
needed. Layout: docs/reports.md.
"""
from __future__ import annotations

import h5py
import numpy as np
import pandas as pd
import xarray as xr

__all__ = ["Report", "open_report"]


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.dtype.kind in "SO":
        return [_text(v) for v in value.tolist()]
    return value.item() if isinstance(value, np.generic) else value


def _scale_name(scale: h5py.Dataset, time_scales: dict) -> str:
    """The dimension name of a dimension scale: `time` for /time, `<group>_time` for another time
    axis (/grid/time -> grid_time), the scale's NAME otherwise (/index/gpu -> gpu)."""
    if scale.name == "/time":
        return "time"
    if scale.name.endswith("/time"):
        return time_scales.setdefault(scale.name, scale.name.strip("/").replace("/", "_"))
    name = scale.attrs.get("NAME")
    name = _text(name) if name is not None else None
    if not name or name.startswith("This is a netCDF dimension"):
        name = scale.name.rsplit("/", 1)[-1]
    return name


class Report:
    """A report file read into memory, group by group (see the module's docstring)."""

    def __init__(self, path):
        self.path = str(path)
        self._groups: dict[str, xr.Dataset] = {}
        with h5py.File(self.path, "r") as f:
            self.attrs = {k: _text(v) for k, v in f.attrs.items()}
            time_scales: dict = {}
            for group_name, group in f.items():
                if not isinstance(group, h5py.Group) or group_name in ("summary", "scenario", "index"):
                    continue
                variables, coords = {}, {}
                for name, dataset in group.items():
                    if not isinstance(dataset, h5py.Dataset) or dataset.attrs.get("CLASS") == b"DIMENSION_SCALE":
                        continue
                    dims = []
                    for axis in range(dataset.ndim):
                        scales = list(dataset.dims[axis].values()) if dataset.ndim else []
                        if scales:
                            scale = scales[0]
                            dim = _scale_name(scale, time_scales)
                            if dim not in coords:
                                values = scale[()]
                                if values.dtype.kind in "SO":
                                    values = np.array([_text(v) for v in values.tolist()], dtype=object)
                                coords[dim] = xr.Variable(dim, values, {k: _text(v) for k, v in scale.attrs.items()
                                                                        if k in ("units", "long_name")})
                        else:
                            # No scale (the events' columns): one row axis shared by the group.
                            dim = f"{group_name}_row" if axis == 0 else f"{group_name}_dim{axis}"
                        dims.append(dim)
                    data = dataset[()]
                    if data.dtype.kind in "SO":
                        data = np.array([_text(v) for v in np.atleast_1d(data).tolist()], dtype=object).reshape(data.shape)
                    attrs = {k: _text(v) for k, v in dataset.attrs.items()
                             if k not in ("DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid",
                                          "_Netcdf4Coordinates")}
                    variables[name] = xr.Variable(dims, data, attrs)
                self._groups[group_name] = xr.Dataset(variables, coords=coords)
            self.summary = pd.DataFrame(
                [(name, float(d[()]), _text(d.attrs.get("units", b"")), _text(d.attrs.get("long_name", b"")))
                 for name, d in f["summary"].items()] if "summary" in f else [],
                columns=["name", "value", "units", "long_name"]).set_index("name")
            self.scenario = {name: _text(d[()]) for name, d in f["scenario"].items()} if "scenario" in f else {}

    def __getitem__(self, group: str) -> xr.Dataset:
        return self._groups[group]

    def __contains__(self, group: str) -> bool:
        return group in self._groups

    @property
    def groups(self) -> list[str]:
        return sorted(self._groups)

    def dataframe(self, variable: str) -> pd.DataFrame:
        """A series as a pandas DataFrame: time as the index, one column per entity label (or one
        column named after the series); `units` and `long_name` in `DataFrame.attrs`."""
        group, name = variable.strip("/").split("/", 1)
        array = self._groups[group][name]
        frame = array.to_pandas()
        frame = frame.to_frame(name) if isinstance(frame, pd.Series) else frame
        frame.attrs.update({k: array.attrs[k] for k in ("units", "long_name") if k in array.attrs})
        return frame


def open_report(path) -> Report:
    """Reads the report at `path` (every group, the summary, the scenario, the root attributes)."""
    return Report(path)
