#include "dctwin/core/input_error.hpp"
#include "dctwin/models/workload/trace_power.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>


namespace dctwin::models::workload {

TracePowerSource::TracePowerSource(std::vector<std::vector<double>> times, std::vector<std::vector<double>> power)
    : times_(std::move(times)), power_(std::move(power)) {
  if (times_.size() != power_.size())
    throw core::InputError("power trace: " + std::to_string(times_.size()) + " time series but " +
                             std::to_string(power_.size()) + " power series");
  for (std::size_t i = 0; i < times_.size(); ++i) {
    const std::string gpu = "power trace: GPU " + std::to_string(i);
    if (times_[i].empty()) throw core::InputError(gpu + " has no samples");
    if (times_[i].size() != power_[i].size())
      throw core::InputError(gpu + " has " + std::to_string(times_[i].size()) + " times but " +
                               std::to_string(power_[i].size()) + " power values");
    for (std::size_t k = 0; k < times_[i].size(); ++k) {
      if (!std::isfinite(times_[i][k]) || !std::isfinite(power_[i][k]))
        throw core::InputError(gpu + " sample " + std::to_string(k) + " is not finite");
      if (k > 0 && !(times_[i][k] > times_[i][k - 1]))
        throw core::InputError(gpu + " sample " + std::to_string(k) + ": times must increase");
    }
    all_times_.insert(all_times_.end(), times_[i].begin(), times_[i].end());
  }
  std::sort(all_times_.begin(), all_times_.end());
  all_times_.erase(std::unique(all_times_.begin(), all_times_.end()), all_times_.end());
}

std::size_t TracePowerSource::sample_after(std::size_t gpu, double t) const {
  const auto& times = times_[gpu];
  const auto k = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
  return std::min(k, times.size() - 1);
}

double TracePowerSource::power_at(std::size_t gpu, double t) const {
  const auto& times = times_[gpu];
  // The first sample at or after t (an interval is closed at its end).
  const auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  return power_[gpu][std::min(k, times.size() - 1)];
}

double TracePowerSource::power(std::size_t gpu, const solver::EvalContext& ctx) const {
  return power_[gpu][sample_after(gpu, ctx.segment_start)];
}

double TracePowerSource::next_change(double t) const {
  const auto it = std::upper_bound(all_times_.begin(), all_times_.end(), t);
  return it == all_times_.end() ? std::numeric_limits<double>::infinity() : *it;
}

}  // namespace dctwin::models::workload
