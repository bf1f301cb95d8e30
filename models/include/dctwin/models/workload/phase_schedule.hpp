// A training step as a repeating two-phase power schedule: compute, then exposed communication.
//
//   P_i(t) = s_i * P_compute        for  t mod T_step  in [0, T_compute)
//          = s_i * P_communication  otherwise,         T_step = T_compute + T_communication
//
// s_i is GPU i's power scale (manufacturing and placement spread). The phase edges are known in
// advance, so the simulator stops exactly at each one; within a phase the power is constant.
#pragma once

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

}  // namespace dctwin::models::workload
