// GPU package on a cold plate: a two-node RC network per GPU.
//
//   C_j dT_j/dt = P_i(t) - (T_j - T_b) / R_jb,i                         junction (die and package)
//   C_b dT_b/dt = (T_j - T_b) / R_jb,i - (T_b - T_c,i) / R_cp,i          cold-plate base (lid, copper)
//   dE_gen/dt   = sum_i P_i(t)                                           heat generated (bookkeeping)
//
// T_c,i is the temperature of the coolant inside GPU i's cold plate (thermal/coolant_channel.hpp),
// R_cp,i that plate's base-to-coolant resistance at its flow, R_jb,i = r_i R_jb with a per-GPU
// resistance scale r_i, P_i = s_i P(t) with a per-GPU power scale s_i and the phase schedule P(t).
// At steady state T_j = T_c + P (R_jb + R_cp).
//
// A GPU whose junction reaches the shutdown temperature trips: the run ends early (event
// `junction_shutdown` on g = max_i T_j,i - T_shutdown).
#pragma once

#include <string>
#include <vector>

#include "dctwin/models/workload/phase_schedule.hpp"
#include "dctwin/solver/component.hpp"
#include "dctwin/solver/parameters.hpp"

namespace dctwin::models::thermal {

class CoolantChannel;

struct GpuPackageParameters {
  double junction_capacitance = 30.0;          ///< C_j [J/K]
  double base_capacitance = 150.0;             ///< C_b [J/K]
  double junction_to_base_resistance = 0.025;  ///< R_jb [K/W]
  double max_operating_temperature = 360.15;   ///< [K] (87 degC) software thermal slowdown target
  double shutdown_temperature = 365.15;        ///< [K] (92 degC)

  static solver::ParameterTable table();
  static GpuPackageParameters from(const solver::ParameterTree& section);
};

/// Per-GPU spread: power and junction-to-base resistance scales.
struct GpuSpread {
  double power_scale = 1.0;
  double resistance_scale = 1.0;
  static solver::ParameterTable table();
  static GpuSpread from(const solver::ParameterTree& section);
};

class GpuPackageArray final : public solver::Component {
 public:
  GpuPackageArray(std::string name, GpuPackageParameters parameters, std::vector<GpuSpread> spread,
                  workload::TwoPhaseSchedule schedule, std::vector<std::string> labels,
                  double initial_temperature);

  /// Wires the coolant each GPU's plate sits in (before assembly).
  void connect(const CoolantChannel& coolant) { coolant_ = &coolant; }

  [[nodiscard]] std::size_t count() const { return spread_.size(); }
  [[nodiscard]] solver::Index junction_index(std::size_t i) const { return index(junction_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index base_index(std::size_t i) const { return index(base_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index heat_generated_index() const { return index(heat_generated_); }
  /// Power of GPU i on the segment starting at `segment_start` [W].
  [[nodiscard]] double power(std::size_t i, double segment_start) const;
  /// Sum over GPUs of C T [J] (thermal energy above 0 K, for balances).
  [[nodiscard]] double stored_energy(const double* x) const;
  [[nodiscard]] const GpuPackageParameters& parameters() const { return p_; }
  [[nodiscard]] const workload::TwoPhaseSchedule& schedule() const { return schedule_; }

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;
  void event_functions(const solver::EvalContext& ctx, const double* x, double* g) const override;
  solver::EventOutcome on_event(int k, bool rising, const solver::EvalContext& ctx, const double* x) const override;

 private:
  GpuPackageParameters p_;
  std::vector<GpuSpread> spread_;
  workload::TwoPhaseSchedule schedule_;
  std::vector<std::string> labels_;
  double initial_temperature_;
  const CoolantChannel* coolant_ = nullptr;
  int junction_ = 0, base_ = 0, heat_generated_ = 0;
  int out_junction_ = 0, out_base_ = 0, out_power_ = 0, out_total_power_ = 0;
};

}  // namespace dctwin::models::thermal
