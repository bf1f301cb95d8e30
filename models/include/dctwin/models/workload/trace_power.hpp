// GPU power replayed from a measured trace: a GpuPowerSource that holds each sample's power over
// the interval that ends at the sample.
//
//   P_i(t) = P_i,k   for t_i,k-1 < t <= t_i,k      (k >= 1)
//   P_i(t) = P_i,0   for t <= t_i,0;   P_i(t) = P_i,n-1 for t > t_i,n-1
//
// NVML's `power.draw` on Hopper is the mean of the last second ([nvidia-smi-docs], H100 SXM5), so the
// sample at t_k describes the interval before it, not the one after: holding it backwards keeps
// the energy of each interval where the measurement put it. The values are data only (the caller
// converts, fills gaps and removes what the package adds itself, such as leakage); this class does
// no I/O. Power is constant between consecutive sample times of any GPU, so `next_change` reports
// every sample time and the solver never integrates across a jump.
#pragma once

#include <cstddef>
#include <vector>

#include "dctwin/models/thermal/gpu_package.hpp"

namespace dctwin::models::workload {

class TracePowerSource final : public thermal::GpuPowerSource {
 public:
  /// One series per GPU: `times[i]` strictly increasing [s] (at least one sample), `power[i]` the
  /// same length [W], finite. Throws core::InputError naming the GPU and sample otherwise.
  TracePowerSource(std::vector<std::vector<double>> times, std::vector<std::vector<double>> power);

  [[nodiscard]] std::size_t count() const { return times_.size(); }
  /// P_i at a time t (the rule above, evaluated at t itself).
  [[nodiscard]] double power_at(std::size_t gpu, double t) const;

  // thermal::GpuPowerSource: the segment [ctx.segment_start, next change) lies inside one sample
  // interval, so the power is that of the first sample strictly after the segment start.
  [[nodiscard]] double power(std::size_t gpu, const solver::EvalContext& ctx) const override;
  [[nodiscard]] double next_change(double t) const override;

 private:
  /// The sample whose interval holds a segment starting at t: the first with time > t.
  [[nodiscard]] std::size_t sample_after(std::size_t gpu, double t) const;

  std::vector<std::vector<double>> times_;
  std::vector<std::vector<double>> power_;
  std::vector<double> all_times_;  ///< every GPU's sample times, sorted, unique
};

}  // namespace dctwin::models::workload
