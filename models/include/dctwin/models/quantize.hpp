// What a digital controller writes to an actuator: an output on a grid of steps (a fan's whole
// percent of duty, a valve positioner's dead band) inside the actuator's range.
#pragma once

#include <algorithm>
#include <cmath>

namespace dctwin::models {

/// The value clamped to [low, high], rounded to the nearest multiple of `step` (step 0: not
/// rounded), and clamped again, so an edge that is not on the grid is still reached.
[[nodiscard]] inline double quantize_to_step(double value, double step, double low, double high) {
  const double inside = std::clamp(value, low, high);
  if (step == 0.0) return inside;
  return std::clamp(std::round(inside / step) * step, low, high);
}

}  // namespace dctwin::models
