// Air-cooled servers at facility scale (how Meta's 24K-GPU Llama 3 clusters actually ran): GPUs
// on heatsinks in their server's air stream, server fans under a BMC-style controller.
//
// Per server s (inlet = its pod's cold aisle T_C, exhaust T_x,s, a lumped node for the air and
// the chassis parts it touches):
//   C_x dT_x,s/dt = sum_{g in s} (T_b,g - T_e,g) / R_hs(V_s) + Q_other + P_fan(u_s) + P_psu,s
//                   - m_s c_p (T_x,s - T_C)
//   P_psu,s = P_dc,s (1 / eta(P_dc,s) - 1),  P_dc,s = P_base + P_fan(u_s)   the server's PSU loss,
//                                                P_base its other DC load at the step-mean power
//   T_e,g = (1 - phi_g) T_C + phi_g T_x,s        local air at GPU g: phi_g of the server's air rise
//                                                has happened upstream of it (baseboard position)
//   V_s = fan/chassis operating point at speed u_s,  m_s = rho V_s
// The fan controller (thermal/server_fans.hpp) writes a speed w_s every controller period from the
// hottest GPU junction of the server, like a BMC fan loop; the rotors follow it with a first-order
// lag (thermal/server_fans.hpp, "Rotor lag"), in closed form between writes:
//   u_s(t) = w_s + (u_s(t_w) - w_s) a(t - t_w),   V_s(t) = V_op(w_s) + (V_s(t_w) - V_op(w_s)) a(t - t_w)
// so that u_s, V_s and every coefficient they set stay continuous at a write: the integrator goes
// on across it without a restart in the fast mode (docs/models/air.md, "Fan rotor lag").
#pragma once

#include <optional>
#include <vector>

#include "dctwin/models/facility/layout.hpp"
#include "dctwin/models/facility/liquid_cooling.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/thermal/heatsink.hpp"
#include "dctwin/models/electrical/conversion.hpp"
#include "dctwin/models/thermal/server_fans.hpp"
#include "dctwin/solver/component.hpp"

namespace dctwin::models::facility {

class AirCooledServers final : public solver::Component, public thermal::GpuEnvironment, public HallAirSource {
 public:
  AirCooledServers(const FacilityLayout& layout, thermal::ServerAirPath path, thermal::ServerFans fans,
                   thermal::FanController controller, double other_heat, double chassis_capacitance,
                   const thermal::GpuPackageArray& gpus, double initial_temperature);
  void connect(const HallAir& hall) { hall_ = &hall; }

  [[nodiscard]] solver::Index exhaust_index(std::size_t s) const { return index(exhaust_, static_cast<solver::Index>(s)); }
  [[nodiscard]] solver::Index server_heat_index() const { return index(server_heat_); }
  /// The fans' speed u_s(t), air flow V_s(t) [m3/s] and fan power P_fan(u_s(t)) [W] of server s
  /// at ctx.t, and the speed w_s the controller last wrote.
  [[nodiscard]] double fan_speed(std::size_t s, const solver::EvalContext& ctx) const;
  [[nodiscard]] double written_fan_speed(std::size_t s, const solver::EvalContext& ctx) const;
  [[nodiscard]] double air_flow(std::size_t s, const solver::EvalContext& ctx) const;
  [[nodiscard]] double fan_power(std::size_t s, const solver::EvalContext& ctx) const;
  [[nodiscard]] double stored_energy(const double* x) const;
  /// Adds each pod's server fan power at ctx.t [W] to power[pod].
  void add_pod_fan_power(const solver::EvalContext& ctx, std::vector<double>& power) const;
  /// Non-GPU DC load of each server besides its fans (CPUs, memory, NICs, ...) [W].
  [[nodiscard]] double other_heat() const { return other_heat_; }
  /// The fan controller's highest speed s_max [1]: a server there has no cooling left to add.
  [[nodiscard]] double max_fan_speed() const { return controller_.parameters().max_speed; }
  /// Sets each server's supplies and its DC load besides the fans P_base [W] (before the run
  /// starts): its PSU loss is then P_dc (1 / eta(P_dc) - 1) with P_dc = P_base + its fan power.
  void set_psu(const electrical::PsuParameters& psu, double base_load) {
    psu_.emplace(psu, 1);
    psu_base_load_ = base_load;
  }
  /// PSU loss of a server whose fans draw `fan_power` [W] (0 before set_psu).
  [[nodiscard]] double psu_loss(double fan_power) const {
    if (!psu_) return 0.0;
    const double dc = psu_base_load_ + fan_power;
    return dc * (1.0 / psu_->efficiency(dc) - 1.0);
  }

  // GpuEnvironment
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t g) const override;
  [[nodiscard]] double environment_resistance(std::size_t g, const solver::EvalContext& ctx) const override;
  void environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                Coefficients* out) const override;
  // HallAirSource
  [[nodiscard]] double pod_air_flow(std::size_t pod, const solver::EvalContext& ctx) const override;
  [[nodiscard]] double pod_air_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const override;
  void pod_air_heat_pattern(std::size_t pod, std::vector<solver::Index>& states) const override;
  void pod_air_heat_jacobian(std::size_t pod, const solver::EvalContext& ctx, const double* x,
                             std::vector<std::pair<solver::Index, double>>& terms) const override;
  [[nodiscard]] double heat_generated(const double* x) const override { return x[server_heat_index()]; }

  void initial_state(double* x) const override;
  void initial_discrete(double* d) const override;
  [[nodiscard]] double update_period() const override { return controller_.parameters().sample_period; }
  bool update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const override;
  /// A write moves the rotors on from where they are (unless tau = 0: then the speed jumps).
  [[nodiscard]] bool updates_are_continuous() const override { return fans_.parameters().rotor_time_constant > 0.0; }
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  /// a(t - t_w) at ctx.t: the part of the last write's change still to come.
  [[nodiscard]] double lag_remaining(const solver::EvalContext& ctx) const;
  /// u_s, V_s at a known a.
  [[nodiscard]] double fan_speed(std::size_t s, const solver::EvalContext& ctx, double remaining) const;
  [[nodiscard]] double air_flow(std::size_t s, const solver::EvalContext& ctx, double remaining) const;
  /// V_op(speed): from the table of the speeds the controller can write, else by bisection.
  [[nodiscard]] double flow_at(double speed) const;
  const FacilityLayout& layout_;
  thermal::ServerAirPath path_;
  thermal::ServerFans fans_;
  thermal::FanController controller_;
  double other_heat_, capacitance_, initial_temperature_;
  std::optional<electrical::PsuBank> psu_;  // one server's supplies (set_psu)
  double psu_base_load_ = 0.0;              // [W] DC load besides the fans at the step-mean load
  const thermal::GpuPackageArray& gpus_;
  const HallAir* hall_ = nullptr;
  double density_, specific_heat_;
  std::vector<double> phi_;  // per GPU slot of a server
  // V_op at each speed on the controller's grid of written speeds, by speed (sorted): the
  // operating point's bisection once per grid speed, not once per server and write.
  std::vector<std::pair<double, double>> flow_table_;
  int exhaust_ = 0, server_heat_ = 0;
  // Discrete: the written speed w_s, the PI integral, V_op(w_s), u_s and V_s at the write, t_w.
  int speed_ = 0, integral_ = 0, flow_ = 0, speed_at_write_ = 0, flow_at_write_ = 0, write_time_ = 0;
  int out_exhaust_ = 0, out_speed_ = 0, out_written_speed_ = 0, out_fan_power_ = 0;
};

}  // namespace dctwin::models::facility
