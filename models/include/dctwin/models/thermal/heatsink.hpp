// Air-cooled GPU heatsink (H100 SXM on an air-cooled 8-GPU baseboard, Grand Teton / HGX class) and
// the air path through the server that feeds it.
//
// Heatsink: case (lid) to local air, as a function of the volumetric air flow V through this one
// heatsink:
//
//   R(V)  = R_spread + R_conv,0 (V / V_0)^(-n)      R_spread: TIM, base and vapour chamber (flow-free)
//                                                   R_conv: fins to air, n ~ 0.5 (laminar) .. 0.8
//   dp(V) = dp_0 (V / V_0)^m                        m ~ 1.5 .. 2 (developing channel flow)
//
// Server air path: the server's fans move V_s through the chassis; a fixed share
// V = f_hs V_s passes each GPU heatsink (parallel columns of GPUs). All the heat Q dissipated in
// the server (GPUs, CPUs, switches, memory, fans) warms the air from inlet to outlet by
//
//   dT_server = Q / (rho(T_in) c_p(T_in) V_s)
//
// and a GPU placed downstream of other heat sources (the rear row of the baseboard, or behind the
// CPUs) breathes air that has already taken up a fraction phi_i of that rise:
//
//   T_local,i = T_in + phi_i dT_server         phi_i = 0 front row, ~0.45 rear row (see the docs)
//   T_case,i  = T_local,i + P_i R(f_hs V_s)
//
// The junction is one package resistance above the case (thermal/gpu_package.hpp). The defaults are
// chosen so that a 700 W H100 at 25 degC inlet holds its 87 degC slowdown target in the rear row only
// above about 88 % fan speed, as air-cooled H100 servers do; they are engineering estimates, not
// vendor data (docs/models/air.md, "Heatsink" gives the derivation and what is uncertain).
#pragma once

#include <cstddef>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/thermal/air.hpp"

namespace dctwin::models::thermal {

struct HeatsinkParameters {
  double spreading_resistance = 0.015;                     ///< R_spread [K/W], case to fin base
  double convective_resistance_at_reference_flow = 0.035;  ///< R_conv,0 [K/W] at V_0
  double reference_flow = 0.0875;                          ///< V_0 [m3/s] through one heatsink
  double flow_exponent = 0.7;                              ///< n [1]
  double pressure_drop_at_reference_flow = 250.0;          ///< dp_0 [Pa] at V_0
  double pressure_drop_flow_exponent = 1.8;                ///< m [1]

  static core::ParameterTable table();
  static HeatsinkParameters from(const core::ParameterTree& section);
};

class Heatsink {
 public:
  explicit Heatsink(HeatsinkParameters p) : p_(p) {}
  /// Case-to-local-air resistance at air flow V > 0 through this heatsink [K/W].
  [[nodiscard]] double resistance(double flow) const;
  /// d R / d V [K/W per m3/s] (negative), for Jacobians of flow-dependent models.
  [[nodiscard]] double resistance_flow_derivative(double flow) const;
  /// Air-side pressure drop at flow V >= 0 [Pa].
  [[nodiscard]] double pressure_drop(double flow) const;
  [[nodiscard]] const HeatsinkParameters& parameters() const { return p_; }

 private:
  HeatsinkParameters p_;
};

/// Where one GPU sits in the server's air stream.
struct GpuAirSlot {
  double position_fraction = 0.0;  ///< phi [1]: share of the server's air temperature rise upstream

  static core::ParameterTable table();
  static GpuAirSlot from(const core::ParameterTree& section);
};

/// The 8-GPU baseboard of an HGX / Grand Teton GPU tray: two rows of four in the air flow, front
/// row on fresh inlet air (phi = 0), rear row behind it (phi = 0.45, see docs/models/air.md).
[[nodiscard]] std::vector<GpuAirSlot> eight_gpu_baseboard_slots();

struct ServerAirPathParameters {
  double heatsink_flow_fraction = 0.175;  ///< f_hs [1]: share of the server air flow through one GPU heatsink
  double pressure = standard_atmospheric_pressure;  ///< [Pa] air pressure, for the density

  static core::ParameterTable table();
  static ServerAirPathParameters from(const core::ParameterTree& section);
};

/// The air side of one air-cooled GPU server: heatsink, air path and GPU positions.
class ServerAirPath {
 public:
  /// Throws core::InputError if a position fraction is outside [0, 1], the flow fraction is
  /// outside (0, 1], or there is no GPU.
  ServerAirPath(ServerAirPathParameters air_path, HeatsinkParameters heatsink, std::vector<GpuAirSlot> slots);

  [[nodiscard]] std::size_t gpu_count() const { return slots_.size(); }
  /// Air flow through one GPU heatsink [m3/s] for the server air flow V_s [m3/s].
  [[nodiscard]] double heatsink_flow(double server_flow) const;
  /// Inlet-to-outlet air temperature rise [K] for server heat Q [W], air flow V_s > 0 and inlet
  /// temperature T_in [K] (density and c_p at the inlet).
  [[nodiscard]] double temperature_rise(double server_heat, double server_flow, double inlet_temperature) const;
  /// T_local of GPU i [K].
  [[nodiscard]] double local_air_temperature(std::size_t gpu, double inlet_temperature, double server_heat,
                                             double server_flow) const;
  /// Case-to-local-air resistance of every GPU at server flow V_s [K/W].
  [[nodiscard]] double case_to_air_resistance(double server_flow) const;
  /// Steady case temperature of GPU i dissipating P_i [K].
  [[nodiscard]] double case_temperature(std::size_t gpu, double gpu_power, double inlet_temperature,
                                        double server_heat, double server_flow) const;
  [[nodiscard]] const Heatsink& heatsink() const { return heatsink_; }
  [[nodiscard]] const Air& air() const { return air_; }
  [[nodiscard]] const std::vector<GpuAirSlot>& slots() const { return slots_; }
  [[nodiscard]] const ServerAirPathParameters& parameters() const { return p_; }

 private:
  ServerAirPathParameters p_;
  Heatsink heatsink_;
  std::vector<GpuAirSlot> slots_;
  Air air_;
};

}  // namespace dctwin::models::thermal
