// Dry cooler (air-cooled fluid cooler): a finned-tube coil with fans that rejects the facility
// fluid's heat to the outdoor air, sensible only, so its leaving fluid temperature follows the
// dry bulb.
//
//   air   (stream 1): T_db, m_a = s m_a,0 (fan speed s in [0, 1], air flow ~ speed)
//   fluid (stream 2): T_f,in, m_f, cp_f (water or glycol)
//   UA(m_a, m_f)  hx/ua_scaling.hpp (air 0.8, fluid 0.85, r = hA_a,0 / hA_f,0 = 2/3)
//   Q = eps C_min (T_f,in - T_db)     heat rejected [W]
//   T_f,out = T_f,in - Q / C_f,   T_a,out = T_db + Q / C_a
//   P_fan = P_fan,0 s^3               (affinity laws: flow ~ s, pressure ~ s^2, power ~ s^3)
//
// Leaving-fluid temperature for a given heat load (eps does not depend on temperatures):
//
//   T_f,out = T_db + Q / (eps C_min) - Q / C_f
//
// i.e. a fixed "approach to dry bulb" for given flows and load, which is what a plant model and
// the economizer need. fan_speed_for_outlet() returns the lowest speed in [s_min, 1] that meets a
// leaving-fluid target (bisection; T_f,out decreases monotonically with s).
//
// Sizing from a rating point (catalogue data): heat Q_r, fluid in/out T_f,in,r / T_f,out,r, air
// T_a,r, nominal (full-speed) air flow; the fluid flow follows as m_f,0 = Q_r / (cp_f (T_f,in,r -
// T_f,out,r)) and UA_0 from the inverse eps-NTU relation of the arrangement.
//
// Defaults [E/U]: 500 kW at fluid 40 -> 35 degC and air 25 degC (a common catalogue rating point;
// the standard conditions of EN 1048 were not checked), PG25 (cp 3980 J/(kg K), for freeze
// protection outdoors), air rise 8 K (62.1 kg/s, ~187,000 m3/h), fans 10 kW (2 % of capacity),
// minimum fan speed 0.2. With these, eps = 0.533, C_r = 0.625, NTU = 1.03, UA_0 = 64.5 kW/K.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/hx/effectiveness.hpp"
#include "dctwin/models/hx/ua_scaling.hpp"

namespace dctwin::models::hx {

struct DryCoolerParameters {
  StreamArrangement arrangement = StreamArrangement::cross_flow_unmixed;  ///< first = air, second = fluid
  double rating_heat_flow = 500e3;                 ///< [W]
  double rating_fluid_inlet_temperature = 313.15;  ///< [K] (40 degC)
  double rating_fluid_outlet_temperature = 308.15; ///< [K] (35 degC)
  double rating_air_temperature = 298.15;          ///< [K] (25 degC)
  double nominal_air_flow = 62.1;                  ///< [kg/s] at full fan speed
  double fluid_specific_heat = 3980.0;             ///< [J/(kg K)] at the rating point
  double air_specific_heat = 1006.0;               ///< [J/(kg K)]
  double conductance_ratio = 2.0 / 3.0;            ///< hA_air,0 / hA_fluid,0 [1]
  double air_flow_exponent = 0.8;                  ///< [1]
  double fluid_flow_exponent = 0.85;               ///< [1]
  double fan_power_at_full_speed = 10e3;           ///< [W]
  double minimum_fan_speed = 0.2;                  ///< [1]

  static core::ParameterTable table();
  static DryCoolerParameters from(const core::ParameterTree& section);
};

struct DryCoolerOperatingPoint {
  double heat_flow = 0.0;                 ///< [W] rejected to the air
  double fluid_inlet_temperature = 0.0;   ///< [K]
  double fluid_outlet_temperature = 0.0;  ///< [K]
  double air_outlet_temperature = 0.0;    ///< [K]
  double air_flow = 0.0;                  ///< [kg/s]
  double fan_speed = 0.0;                 ///< [1]
  double fan_power = 0.0;                 ///< [W]
  double ua = 0.0;                        ///< [W/K]
  double effectiveness = 0.0;             ///< [1]
};

class DryCooler {
 public:
  /// Checks the parameters and sizes UA_0 from the rating point; throws core::InputError.
  explicit DryCooler(DryCoolerParameters p, std::string section = "dry_cooler");

  /// Steady state for a fluid entering at T_f,in [K] with flow m_f [kg/s], air at dry bulb T_db
  /// [K], fan speed s in [0, 1].
  [[nodiscard]] DryCoolerOperatingPoint evaluate(double dry_bulb_temperature, double fluid_inlet_temperature,
                                                 double fluid_flow, double fan_speed,
                                                 double fluid_specific_heat) const;
  /// Steady state that rejects `heat_flow` >= 0 [W]: fluid inlet and outlet temperatures follow.
  /// Needs s > 0 and m_f > 0 when heat_flow > 0.
  [[nodiscard]] DryCoolerOperatingPoint evaluate_for_load(double dry_bulb_temperature, double heat_flow,
                                                          double fluid_flow, double fan_speed,
                                                          double fluid_specific_heat) const;
  /// Lowest fan speed in [s_min, 1] whose leaving fluid temperature is <= the target; 1 if even
  /// full speed cannot reach it, s_min if the minimum speed already does.
  [[nodiscard]] double fan_speed_for_outlet(double dry_bulb_temperature, double heat_flow, double fluid_flow,
                                            double target_outlet_temperature, double fluid_specific_heat) const;

  [[nodiscard]] double air_flow(double fan_speed) const;
  [[nodiscard]] double fan_power(double fan_speed) const;
  [[nodiscard]] double ua(double air_flow_rate, double fluid_flow) const { return scaling_.ua(air_flow_rate, fluid_flow); }
  [[nodiscard]] double nominal_ua() const { return scaling_.parameters().nominal_ua; }
  [[nodiscard]] double nominal_fluid_flow() const { return scaling_.parameters().second_nominal_flow; }
  [[nodiscard]] const DryCoolerParameters& parameters() const { return p_; }

 private:
  DryCoolerParameters p_;
  UaScaling scaling_;
};

}  // namespace dctwin::models::hx
