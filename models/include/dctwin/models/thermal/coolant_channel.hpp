// The coolant inside a server's cold plates: one well-mixed volume per plate, plates arranged as
// B parallel branches of S plates in series (N = B S; S = 1 all parallel, B = 1 all in series).
//
//   C_c dT_c,i/dt = mdot_b c_p (T_in,i - T_c,i) + (T_b,i - T_c,i) / R_cp,i
//   T_in,i = T_supply for the first plate of a branch, else the previous plate's T_c
//   dE_rem/dt = sum_b mdot_b c_p (T_out,b - T_supply)          heat carried away (bookkeeping)
//
// with C_c = rho V c_p, mdot_b = rho Q / B. The outlet of a plate is its volume's temperature
// (upwind, first order). Summing the equations, the advective terms telescope, so
// sum C T + E_rem - E_gen is conserved exactly: the energy balance is a linear invariant that
// the BDF method preserves to round-off and solver tolerance.
#pragma once

#include <string>
#include <vector>

#include "dctwin/models/thermal/cold_plate.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/solver/component.hpp"

namespace dctwin::models::thermal {

/// Constant coolant properties (PG25 at 30 degC by default).
struct CoolantProperties {
  double density = 1015.2;       ///< [kg/m3]
  double specific_heat = 3979.0; ///< [J/(kg K)]
  static core::ParameterTable table();
  static CoolantProperties from(const core::ParameterTree& section);
};

class CoolantChannel final : public solver::Component, public GpuEnvironment {
 public:
  CoolantChannel(std::string name, const GpuPackageArray& gpus, ColdPlate plate, CoolantProperties coolant,
                 std::size_t plates_in_series, double total_flow, double supply_temperature,
                 double initial_temperature);

  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] std::size_t branches() const { return count_ / series_; }
  [[nodiscard]] solver::Index temperature_index(std::size_t i) const { return index(temperature_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index heat_removed_index() const { return index(heat_removed_); }
  /// Base-to-coolant resistance of plate i at its flow [K/W].
  [[nodiscard]] double plate_resistance(std::size_t) const { return plate_resistance_; }
  [[nodiscard]] double branch_flow() const { return total_flow_ / static_cast<double>(branches()); }
  [[nodiscard]] double total_flow() const { return total_flow_; }
  [[nodiscard]] double supply_temperature() const { return supply_temperature_; }
  /// Mass-flow-weighted mixed return temperature [K].
  [[nodiscard]] double return_temperature(const double* x) const;
  /// Heat flow carried away by the coolant, mdot c_p (T_return - T_supply) [W].
  [[nodiscard]] double heat_removal_rate(const double* x) const;
  [[nodiscard]] double volume_capacitance() const { return capacitance_; }
  [[nodiscard]] double stored_energy(const double* x) const;
  [[nodiscard]] const CoolantProperties& coolant() const { return coolant_; }

  // GpuEnvironment: each GPU's base sits on the coolant of its own plate.
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t gpu) const override {
    return {{{temperature_index(gpu), 1.0}, {temperature_index(gpu), 0.0}}};
  }
  [[nodiscard]] double environment_resistance(std::size_t gpu, const solver::EvalContext&) const override {
    return plate_resistance(gpu);
  }

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  const GpuPackageArray& gpus_;
  ColdPlate plate_;
  CoolantProperties coolant_;
  std::size_t count_, series_;
  double total_flow_, supply_temperature_, initial_temperature_;
  double plate_resistance_ = 0.0;  // at the branch flow
  double capacitance_ = 0.0;       // rho V c_p
  double branch_capacity_rate_ = 0.0;  // mdot_b c_p [W/K]
  int temperature_ = 0, heat_removed_ = 0;
  int out_outlet_ = 0, out_supply_ = 0, out_return_ = 0, out_flow_ = 0, out_heat_ = 0;
};

}  // namespace dctwin::models::thermal
