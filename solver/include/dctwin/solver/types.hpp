// Basic types shared by the solver and everything built on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dctwin::solver {

/// Index into the global state vector; the same width as SUNDIALS' sunindextype (64-bit here).
using Index = std::int64_t;

/// Time at which a model is evaluated, and the start of the current smooth segment.
///
/// Forcing (power schedules, set-points) is piecewise smooth with edges known in advance. The
/// simulator integrates one segment at a time, never across an edge, and passes the segment's start
/// so that a model evaluates its forcing as it is on [segment_start, next edge), including at the
/// segment's end point, where a plain `f(t)` would already see the next piece.
///
/// `discrete` points to the discrete state (sampled controllers' memory: set-points, integrator
/// terms, governor clocks), which is constant within a segment and changes only at update times.
struct EvalContext {
  double t = 0.0;
  double segment_start = 0.0;
  const double* discrete = nullptr;
};

/// The states [first, first + count) of the global state vector.
struct StateRange {
  Index first = 0;
  Index count = 0;
  friend bool operator==(const StateRange&, const StateRange&) = default;
};

/// A set of states as sorted, disjoint, non-adjacent ranges (merge_state_ranges makes them so).
/// Components and observers declare with it which states a callback reads, so that the state
/// need not be formed in full for it (docs/solver.md, "States formed where they are read").
using StateRanges = std::vector<StateRange>;

/// `ranges` sorted by start, with overlapping and adjacent ranges joined and empty ones dropped.
StateRanges merge_state_ranges(StateRanges ranges);

/// A time series the simulation records, as the report stores it:
/// `/<group>/<name>` with `units` and `long_name`; 1-D [time] when `entity` is empty, otherwise 2-D
/// [time x count] with the entity's index table (see `EntityTable`).
struct OutputSpec {
  std::string group;      ///< HDF5 group, e.g. "gpu", "coolant"
  std::string name;       ///< dataset name, e.g. "junction_temperature"
  std::string unit;       ///< udunits2 unit of the stored SI value, e.g. "K", "W", "m3/s"
  std::string long_name;  ///< human description, e.g. "GPU junction temperature"
  std::string entity;     ///< entity kind of the second dimension ("gpu"); empty = scalar series
  Index count = 1;        ///< number of entities (1 for scalar series)
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

}  // namespace dctwin::solver
