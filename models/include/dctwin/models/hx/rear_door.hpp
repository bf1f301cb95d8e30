// Rear-door heat exchanger (RDHx): a finned-tube water coil in the rack's rear door that cools the
// servers' exhaust air before it returns to the room. Liquid-to-air, cross flow, epsilon-NTU.
//
//   air  (stream 1): T_a,in = server exhaust, C_a = m_a cp_a
//   water(stream 2): T_w,in = supply from the CDU / facility loop, C_w = m_w cp_w
//
//   UA(m_a, m_w)  from hx/ua_scaling.hpp: 1/UA = 1/(hA_a,0 (m_a/m_a,0)^0.8) + 1/(hA_w,0 (m_w/m_w,0)^0.85)
//   Q   = eps(UA / C_min, C_min / C_max) C_min (T_a,in - T_w,in)      heat removed from the air [W]
//   T_a,out = T_a,in - Q / C_a,     T_w,out = T_w,in + Q / C_w
//
// Arrangement: cross flow with both streams unmixed by default (finned coil, Incropera eq. 11.32);
// the other arrangements of hx/effectiveness.hpp can be chosen.
//
// The door is passive (the servers' fans push the air through the coil) or active (door fans add
// airflow capability; [rdhx-capacity-ranges]: passive doors to ~35 kW per rack, active to ~60 kW per rack, fans
// 0.5-2 kW per door). For an active door the air flow through the coil is
//   m_door = max(m_servers, s m_fan)        s = fan speed fraction in [0, 1]
// (the fans can pull more air than the servers push; the extra air is drawn through the rack from
// the room; it mixes with the exhaust before the coil, which the caller accounts for in T_a,in),
// and the fan power follows the affinity law P_fan = P_fan,full s^3.
// Air-side pressure drop: dp = dp_0 (m_a / m_a,0)^k, k = 2 (fully rough quadratic law).
//
// Default UA. No published UA was found. It is derived from IBM's statements for its
// passive door (a 20-32 kW cabinet gets 55-85 % of its heat removed, air drop up to 25 K, water
// kept above the dew point, 18 degC for ASHRAE class 1) at the centre of those ranges:
//   26 kW cabinet, 70 % removed (18.2 kW), server air rise 20 K (C_a = 1300 W/K, m_a = 1.292
//   kg/s), room 24 degC (door air inlet 44 degC), water 18 degC at 0.5 kg/s (30 L/min, assumed)
//   => eps = 18200 / (1300 x 26) = 0.5385, C_r = 1300 / 2090 = 0.622, NTU = 1.050 (both
//   unmixed), UA = 1365 W/K.
// The same door then removes 58-83 % of 20-32 kW cabinets with 15-30 K server rise and cools the
// air by 9-25 K, inside IBM's ranges (tests/models/hx/test_rear_door.cpp). The value is uncertain ([U]); docs/models/hx.md shows the
// derivation and RearDoor::nominal_ua_from_rating() repeats it for any rating point.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/hx/effectiveness.hpp"
#include "dctwin/models/hx/ua_scaling.hpp"

namespace dctwin::models::hx {

struct RearDoorParameters {
  StreamArrangement arrangement = StreamArrangement::cross_flow_unmixed;  ///< first = air, second = water
  double nominal_ua = 1365.0;                   ///< [W/K] at the nominal flows (derived, see above)
  double nominal_air_flow = 1.292;              ///< [kg/s] (26 kW at 20 K server rise)
  double nominal_water_flow = 0.5;              ///< [kg/s] (30 L/min)
  double conductance_ratio = 2.0 / 3.0;         ///< hA_air,0 / hA_water,0 [1]
  double air_flow_exponent = 0.8;               ///< [1]
  double water_flow_exponent = 0.85;            ///< [1]
  bool active = false;                          ///< door fans fitted
  double fan_power_at_full_speed = 1000.0;      ///< [W] per door
  double fan_air_flow_at_full_speed = 3.0;      ///< [kg/s] (60 kW at 20 K rise)
  double air_pressure_drop_at_nominal_flow = 25.0;  ///< [Pa] across the coil at the nominal air flow
  double air_pressure_drop_exponent = 2.0;      ///< k in dp ~ m^k [1]

  static core::ParameterTable table();
  static RearDoorParameters from(const core::ParameterTree& section);
};

/// A measured or catalogue operating point of a door, from which its UA is derived.
struct RearDoorRating {
  double heat_flow = 18.2e3;                    ///< [W] removed from the air
  double air_inlet_temperature = 317.15;        ///< [K] server exhaust at the door (44 degC)
  double water_inlet_temperature = 291.15;      ///< [K] (18 degC)
  double air_flow = 26.0e3 / (20.0 * 1006.0);   ///< [kg/s]
  double water_flow = 0.5;                      ///< [kg/s]
  double air_specific_heat = 1006.0;            ///< [J/(kg K)]
  double water_specific_heat = 4180.0;          ///< [J/(kg K)]
};

/// Steady state of the door.
struct RearDoorOperatingPoint {
  double heat_flow = 0.0;                ///< [W] removed from the air (negative if the water is warmer)
  double air_outlet_temperature = 0.0;   ///< [K]
  double water_outlet_temperature = 0.0; ///< [K]
  double ua = 0.0;                       ///< [W/K]
  double effectiveness = 0.0;            ///< [1]
  double ntu = 0.0;                      ///< [1]
};

class RearDoor {
 public:
  /// Checks the parameters; throws core::InputError ("rear_door.nominal_ua = -100 W/K (must be > 0)").
  explicit RearDoor(RearDoorParameters p, std::string section = "rear_door");

  /// Door at air inlet T_a,in [K], air flow m_a >= 0 [kg/s], water inlet T_w,in [K], water flow
  /// m_w >= 0 [kg/s] and specific heats [J/(kg K)].
  [[nodiscard]] RearDoorOperatingPoint evaluate(double air_inlet_temperature, double air_flow,
                                                double water_inlet_temperature, double water_flow,
                                                double air_specific_heat, double water_specific_heat) const;

  /// UA [W/K] at the given flows.
  [[nodiscard]] double ua(double air_flow, double water_flow) const { return scaling_.ua(air_flow, water_flow); }
  /// Air flow through the coil [kg/s]: the servers' flow for a passive door, max(servers, s m_fan)
  /// for an active one; fan_speed in [0, 1].
  [[nodiscard]] double air_flow(double server_air_flow, double fan_speed) const;
  /// Door fan power [W]: 0 for a passive door, P_full s^3 for an active one.
  [[nodiscard]] double fan_power(double fan_speed) const;
  /// Air-side pressure drop across the coil [Pa].
  [[nodiscard]] double air_pressure_drop(double air_flow) const;

  [[nodiscard]] const RearDoorParameters& parameters() const { return p_; }

  /// UA at the nominal flows of `p` that reproduces the rating point (the default's derivation):
  ///   eps = Q / (C_min (T_a,in - T_w,in)), NTU = inverse eps-NTU, UA_rating = NTU C_min,
  ///   UA_0 = UA_rating / g(m_a,rating, m_w,rating)   (g from hx/ua_scaling.hpp).
  /// Throws core::InputError if the rating's effectiveness is not reachable.
  [[nodiscard]] static double nominal_ua_from_rating(const RearDoorRating& rating, const RearDoorParameters& p);

 private:
  RearDoorParameters p_;
  UaScaling scaling_;
};

}  // namespace dctwin::models::hx
