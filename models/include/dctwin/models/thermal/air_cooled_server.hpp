// One air-cooled GPU server (HGX / Grand Teton class: GPUs on heatsinks in the server's own air
// stream, fans at a given speed) driven by given GPU powers: the server model that replays measured
// telemetry of air-cooled servers (io/validation.hpp).
//
// GPU i: the package's three nodes (thermal/gpu_package.hpp) with its base on a heatsink in the
// local air of its slot,
//
//   c_j,i C_j dT_j/dt = (1 - f_h) P_i + L_i(T_j) - (T_j - T_b) / R_jb,i          R_jb,i = r_i R_jb
//   C_h       dT_h/dt = f_h P_i - (T_h - T_b) / R_hb
//   c_b,i C_b dT_b/dt = (T_j - T_b) / R_jb,i + (T_h - T_b) / R_hb - (T_b - T_a,i) / R_hs,i
//   R_hs,i  = h_i R_hs(f_hs V_s)                         heatsink at its share of the server flow
//   T_a,i   = T_in + dT_i + phi_i Q_s / (rho(T_in) c_p(T_in) V_s)
//   Q_s     = sum_k (P_k + L_k) + Q_other + P_fan(s)      heat picked up by the server's air
//   V_s     = fan operating point on the chassis at speed s (thermal/server_fans.hpp)
//
// C_b is the lid, base and heatsink (fins included) lumped; h_i, c_j,i, c_b,i, dT_i and phi_i are
// the slot's (`AirCooledSlot`). The air itself is quasi-steady: it crosses the chassis in well under
// a second, against heatsink time constants of tens of seconds. The fans hold their speed (GPU
// telemetry does not carry fan speed; a BMC that changes it shows up as a changed R_hs).
//
// Integration: each GPU separately (the GPUs are coupled only through Q_s, which the caller gives
// from the measured powers), by the trapezoidal rule with Newton iterations on the leakage term, in
// steps of at most `max_step`, with powers and local air held over each call of advance(). The
// steady state solves, with P_tot = P + L(T_j),
//   T_j = T_a + P_tot R_hs,i + ((1 - f_h) P + L(T_j)) R_jb,i
// by Newton on T_j (no solution: a leakage runaway, thrown as solver::SolverError).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/thermal/heatsink.hpp"
#include "dctwin/models/thermal/server_fans.hpp"

namespace dctwin::models::thermal {

/// One GPU position of an air-cooled server.
struct AirCooledSlot {
  double position_fraction = 0.0;           ///< phi_i [1]
  double inlet_offset = 0.0;                ///< dT_i [K]: local air above the inlet besides phi_i
  double heatsink_resistance_scale = 1.0;   ///< h_i [1]
  double heatsink_capacitance_scale = 1.0;  ///< c_b,i [1]
  double junction_capacitance_scale = 1.0;  ///< c_j,i [1]

  static core::ParameterTable table();
  static AirCooledSlot from(const core::ParameterTree& section);
};

struct AirCooledServerParameters {
  double inlet_temperature = 298.15;  ///< T_in [K]
  double fan_speed = 0.8;             ///< s [1]
  double other_heat = 1500.0;         ///< Q_other [W]: CPUs, memory, NICs, switches, drives

  static core::ParameterTable table();
  /// Schema of `server.air`: these parameters, `heatsink`, `air_path`, `fans` and the list `slots`.
  static core::SectionSchema schema();
  static AirCooledServerParameters from(const core::ParameterTree& section);
};

/// Junction, HBM and base temperature of one GPU [K].
using AirCooledGpuState = std::array<double, 3>;

class AirCooledServer {
 public:
  /// `slots` and `spread` have one entry per GPU (missing slots are defaults). Throws
  /// core::InputError for an air path or fan speed that moves no air.
  AirCooledServer(AirCooledServerParameters parameters, HeatsinkParameters heatsink, ServerAirPathParameters air_path,
                  ServerFanParameters fans, GpuPackageParameters package, std::vector<GpuSpread> spread,
                  std::vector<AirCooledSlot> slots);
  /// From `server:` of a single-node scenario with `cooling: air` (sections `gpu`, `gpus`, `air`).
  static AirCooledServer from(const core::ParameterTree& server);

  [[nodiscard]] std::size_t gpu_count() const { return spread_.size(); }
  /// V_s [m3/s] at the fan speed.
  [[nodiscard]] double server_air_flow() const { return server_flow_; }
  /// Electrical fan power P_fan(s) [W] (it ends as heat in the air).
  [[nodiscard]] double fan_power() const { return fan_power_; }
  /// R_hs,i [K/W].
  [[nodiscard]] double heatsink_resistance(std::size_t gpu) const;
  /// T_a,i [K] when the GPUs dissipate `gpu_heat` W in all (leakage included).
  [[nodiscard]] double local_air_temperature(std::size_t gpu, double gpu_heat) const;
  /// L_i(T_j) [W].
  [[nodiscard]] double leakage(std::size_t gpu, double junction_temperature) const;
  /// Steady state of GPU i at power P (without leakage) in local air T_a. Throws
  /// solver::SolverError when leakage has no fixed point (runaway).
  [[nodiscard]] AirCooledGpuState steady_state(std::size_t gpu, double power, double local_air) const;
  /// GPU i after `duration` seconds at power P (without leakage) in local air T_a, from `state`.
  [[nodiscard]] AirCooledGpuState advance(std::size_t gpu, AirCooledGpuState state, double power, double local_air,
                                          double duration, double max_step = 0.05) const;

  [[nodiscard]] const GpuPackageParameters& package() const { return package_; }
  [[nodiscard]] const std::vector<AirCooledSlot>& slots() const { return slots_; }
  [[nodiscard]] const AirCooledServerParameters& parameters() const { return p_; }

 private:
  AirCooledServerParameters p_;
  GpuPackageParameters package_;
  std::vector<GpuSpread> spread_;
  std::vector<AirCooledSlot> slots_;
  ServerAirPath path_;
  double server_flow_ = 0.0;
  double fan_power_ = 0.0;
  double heatsink_resistance_ = 0.0;  ///< R_hs(f_hs V_s) before h_i
  double air_rise_per_watt_ = 0.0;    ///< 1 / (rho c_p V_s) [K/W]
};

}  // namespace dctwin::models::thermal
