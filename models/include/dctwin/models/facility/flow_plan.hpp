// The coolant flows of a site over time. Hydraulics settle in seconds, far faster than the
// temperatures, so flows are solved as an algebraic network whenever pump states or speeds change
// (known times: a failure, a restart) and are constant in between. A FlowPlan holds those phases.
#pragma once

#include <limits>
#include <vector>

#include "dctwin/core/check.hpp"

namespace dctwin::models::facility {

struct FlowPhase {
  double start = 0.0;                  ///< [s] time from which this phase holds
  std::vector<double> rack_flow;       ///< [m3/s] coolant through each rack
  std::vector<double> plate_flow;      ///< [m3/s] coolant through each GPU's cold plate
  std::vector<double> rack_pressure_drop;  ///< [Pa] supply tap to return tap of each rack
  std::vector<double> pod_pump_power;  ///< [W] shaft power of each pod's pumps (heat into the coolant)
  std::vector<int> pod_pumps_running;  ///< pumps running in each pod
};

class FlowPlan {
 public:
  explicit FlowPlan(std::vector<FlowPhase> phases) : phases_(std::move(phases)) {
    DCTWIN_DEMAND(!phases_.empty(), "a flow plan needs at least one phase");
    for (std::size_t k = 1; k < phases_.size(); ++k)
      DCTWIN_DEMAND(phases_[k].start > phases_[k - 1].start, "flow phases must be in time order");
  }
  /// Index of the phase in effect on a segment starting at `segment_start`.
  [[nodiscard]] std::size_t phase_index(double segment_start) const {
    std::size_t k = 0;
    while (k + 1 < phases_.size() && phases_[k + 1].start <= segment_start) ++k;
    return k;
  }
  [[nodiscard]] const FlowPhase& at(double segment_start) const { return phases_[phase_index(segment_start)]; }
  /// First phase change strictly after t, or +infinity.
  [[nodiscard]] double next_change(double t) const {
    for (const auto& p : phases_)
      if (p.start > t) return p.start;
    return std::numeric_limits<double>::infinity();
  }
  [[nodiscard]] const std::vector<FlowPhase>& phases() const { return phases_; }

 private:
  std::vector<FlowPhase> phases_;
};

}  // namespace dctwin::models::facility
