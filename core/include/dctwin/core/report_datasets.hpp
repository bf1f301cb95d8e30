// What a run hands to its report: the specs of the datasets (time series, index tables, static
// data, summary figures). Plain data; io/ writes them (docs/reports.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dctwin::core {

/// A time series the simulation records, as the report stores it:
/// `/<group>/<name>` with `units` and `long_name`; 1-D [time] when `entity` is empty, otherwise 2-D
/// [time x count] with the entity's index table (see `EntityTable`).
struct OutputSpec {
  std::string group;      ///< HDF5 group, e.g. "gpu", "coolant"
  std::string name;       ///< dataset name, e.g. "junction_temperature"
  std::string unit;       ///< udunits2 unit of the stored SI value, e.g. "K", "W", "m3/s"
  std::string long_name;  ///< human description, e.g. "GPU junction temperature"
  std::string entity;     ///< entity kind of the second dimension ("gpu"); empty = scalar series
  std::int64_t count = 1; ///< number of entities (1 for scalar series)
};

/// Labels of the entities of one kind, in storage order (e.g. "server0/gpu3").
struct EntityTable {
  std::string entity;
  std::vector<std::string> labels;
};

/// Data that does not change during a run (the site's geometry, the GPU-to-rack map), stored as
/// `/<group>/<name>` with `units` and `long_name`, shape `shape` (row-major `values`). When
/// `entity` is set, the first dimension runs over that entity and carries its index table.
struct StaticData {
  std::string group;      ///< e.g. "layout"
  std::string name;       ///< e.g. "rack_position"
  std::string unit;       ///< e.g. "m"; "1" for indices and counts
  std::string long_name;
  std::string entity;     ///< entity of the first dimension, or empty
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

/// A scalar figure of a run, stored as `/summary/<name>` with `units` and `long_name`.
struct SummaryFigure {
  std::string name;
  double value = 0.0;
  std::string unit;
  std::string long_name;
};

}  // namespace dctwin::core
