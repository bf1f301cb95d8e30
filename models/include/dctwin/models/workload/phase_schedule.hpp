// A training step as a repeating two-phase power schedule: compute, then exposed communication.
//
//   P_i(t) = s_i * P_compute        for  t mod T_step  in [0, T_compute)
//          = s_i * P_communication  otherwise,         T_step = T_compute + T_communication
//
// s_i is GPU i's power scale (manufacturing and placement spread). The phase edges are known in
// advance, so the simulator stops exactly at each one; within a phase the power is constant.
#pragma once

#include <vector>

#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/solver/parameters.hpp"

namespace dctwin::models::workload {

struct TwoPhaseScheduleParameters {
  double compute_power = 540.0;          ///< [W] per GPU during compute
  double communication_power = 250.0;    ///< [W] per GPU during exposed communication
  double compute_duration = 5.0;         ///< [s]
  double communication_duration = 1.0;   ///< [s]

  static solver::ParameterTable table();
  static TwoPhaseScheduleParameters from(const solver::ParameterTree& section);
};

class TwoPhaseSchedule {
 public:
  explicit TwoPhaseSchedule(TwoPhaseScheduleParameters p);
  /// True when the segment starting at `segment_start` is a compute phase.
  [[nodiscard]] bool computing(double segment_start) const;
  /// Power per GPU (before the GPU's scale) on the segment starting at `segment_start` [W].
  [[nodiscard]] double power(double segment_start) const;
  /// First phase edge strictly after t [s].
  [[nodiscard]] double next_edge(double t) const;
  /// Energy per GPU (before scale) delivered on [0, t] [J]: the exact integral of `power`.
  [[nodiscard]] double energy(double t) const;
  [[nodiscard]] double step_duration() const { return p_.compute_duration + p_.communication_duration; }
  [[nodiscard]] const TwoPhaseScheduleParameters& parameters() const { return p_; }

 private:
  TwoPhaseScheduleParameters p_;
};

/// A fixed schedule as the GPUs' power source: P_i = s_i P(t), without governor or job (for
/// verification against closed forms, and for replaying a measured power trace's phases).
class ScheduledGpuPower final : public thermal::GpuPowerSource {
 public:
  ScheduledGpuPower(TwoPhaseSchedule schedule, std::vector<double> scales)
      : schedule_(schedule), scales_(std::move(scales)) {}
  [[nodiscard]] double power(std::size_t gpu, const solver::EvalContext& ctx) const override {
    return scales_[gpu] * schedule_.power(ctx.segment_start);
  }
  [[nodiscard]] double next_change(double t) const override { return schedule_.next_edge(t); }
  [[nodiscard]] const TwoPhaseSchedule& schedule() const { return schedule_; }

 private:
  TwoPhaseSchedule schedule_;
  std::vector<double> scales_;
};

}  // namespace dctwin::models::workload
