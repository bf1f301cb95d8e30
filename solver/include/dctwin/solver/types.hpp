// Basic types shared by the solver and everything built on it.
#pragma once

#include <cstdint>
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

}  // namespace dctwin::solver
