// Data-hall air: a cold aisle and a hot aisle as two well-mixed zones, the servers between them,
// leakage both ways (recirculation and bypass), and air handlers (CRAH: a fan and a coil to chilled or
// facility water, holding a supply-air set-point).
//
//        supply m_s, T_s                     servers m_it: T_C -> T_C + Q_it / (m_it c_p)
//  CRAH ------------------> [ cold aisle C ] ------------------------------> [ hot aisle H ] --+
//   ^                         ^     |  bypass m_byp (leaks to the hot side)        |            |
//   |                         |     +--------------------------------------------->|            |
//   |                         +---- recirculation m_rec (hot air leaking back) ----+            |
//   +-------------------------------------- return m_ret = m_s, T_H ---------------------------+
//
// Mass (algebraic, every flow >= 0 for any m_s, m_it >= 0): with r the recirculation fraction (of the
// server flow) and b the bypass fraction (of the supply) that leak even at balanced flows,
//
//   E = (1 - b) m_s + r m_it - m_it                     supply surplus at the server intakes
//   E >= 0:  m_byp = b m_s + E,   m_rec = r m_it
//   E <  0:  m_byp = b m_s,       m_rec = r m_it - E    (servers starved: they pull hot air back)
//   cold aisle:  m_s + m_rec = m_it + m_byp        hot aisle:  m_it + m_byp = m_ret + m_rec,  m_ret = m_s
//
// Energy (constant c_p; zone heat capacities C = rho_ref c_p V_zone + C_extra):
//
//   C_C dT_C/dt = c_p [ m_s (T_s - T_C) + m_rec (T_H - T_C) ]
//   C_H dT_H/dt = c_p (m_it + m_byp) (T_C - T_H) + Q_it
//
// CRAH (all units lumped, count N, each at the same speed s): m_s = N rho_ref V_rated s,
// P_fan = N P_rated s^3, the fan heat warms the supply by dT_fan = P_fan / (m_s c_p) (if enabled). The
// coil cools the return air T_H towards the water supply T_w with at most the effectiveness eps:
//
//   T_coil = clamp(T_set - dT_fan,  T_H - eps max(0, T_H - T_w),  T_H)      (cooling only)
//   T_s    = T_coil + dT_fan,        Q_coil = m_s c_p (T_H - T_coil)  (heat to the water)
//
// so that d/dt (C_C T_C + C_H T_H) = Q_it + P_fan - Q_coil exactly (tests/models/air). The partial
// derivatives of both zone rates with respect to T_C and T_H are given for the Jacobian; dT_s/dT_H is
// 0 while the set-point holds, 1 - eps when the coil is at its limit, 1 when the coil is off.
#pragma once

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/thermal/air.hpp"

namespace dctwin::models::thermal {

struct RoomAirParameters {
  double cold_aisle_volume = 400.0;                ///< [m3]
  double hot_aisle_volume = 1500.0;                ///< [m3] hot aisle and return plenum
  double cold_aisle_extra_heat_capacity = 0.0;     ///< [J/K] floor, rack fronts, ... coupled to the cold aisle
  double hot_aisle_extra_heat_capacity = 0.0;      ///< [J/K]
  double recirculation_fraction = 0.05;            ///< r [1]
  double bypass_fraction = 0.05;                   ///< b [1]
  double reference_temperature = 298.15;           ///< [K] for rho_ref and c_p
  double pressure = standard_atmospheric_pressure; ///< [Pa]

  static core::ParameterTable table();
  static RoomAirParameters from(const core::ParameterTree& section);
};

struct CrahParameters {
  int count = 16;                              ///< N, identical units operated together
  double rated_air_flow = 15.0;                ///< [m3/s] per unit at full fan speed
  double rated_fan_power = 11000.0;            ///< [W] per unit at full fan speed
  double supply_temperature_setpoint = 298.15; ///< T_set [K] (25 degC)
  double coil_effectiveness = 0.75;            ///< eps [1] at full water flow
  bool fan_heat_to_air = true;                 ///< fan motor heat warms the supply air

  static core::ParameterTable table();
  static CrahParameters from(const core::ParameterTree& section);
};

/// The two zone temperatures (states).
struct RoomAirState {
  double cold_aisle_temperature = 298.15;  ///< T_C [K], also the server inlet temperature
  double hot_aisle_temperature = 308.15;   ///< T_H [K], also the CRAH return temperature
};

/// What the facility supplies at each evaluation.
struct RoomAirInputs {
  double it_mass_flow = 0.0;                 ///< m_it [kg/s], sum of the server fans' flows
  double it_heat = 0.0;                      ///< Q_it [W], all heat the servers put into their air
  double crah_speed = 1.0;                   ///< s [1], fan speed of the CRAH units
  double water_supply_temperature = 291.15;  ///< T_w [K], chilled / facility water to the coils
};

/// Mass flows of the hall [kg/s], all >= 0.
struct RoomAirFlows {
  double supply = 0.0;         ///< m_s
  double it = 0.0;             ///< m_it
  double recirculation = 0.0;  ///< m_rec, hot aisle -> cold aisle
  double bypass = 0.0;         ///< m_byp, cold aisle -> hot aisle
  double return_flow = 0.0;    ///< m_ret = m_s
};

/// The CRAH's operating values at a state.
struct CrahOperation {
  double supply_temperature = 0.0;       ///< T_s [K]
  double coil_outlet_temperature = 0.0;  ///< T_coil [K]
  double coil_heat = 0.0;                ///< Q_coil [W] to the water
  double fan_power = 0.0;                ///< P_fan [W]
  double supply_temperature_slope = 0.0; ///< dT_s/dT_H [1]
};

struct RoomAirRates {
  double cold_aisle = 0.0;  ///< dT_C/dt [K/s]
  double hot_aisle = 0.0;   ///< dT_H/dt [K/s]
};

/// d(rate)/d(state) [1/s].
struct RoomAirJacobian {
  double cold_cold = 0.0;  ///< d(dT_C/dt)/dT_C
  double cold_hot = 0.0;   ///< d(dT_C/dt)/dT_H
  double hot_cold = 0.0;   ///< d(dT_H/dt)/dT_C
  double hot_hot = 0.0;    ///< d(dT_H/dt)/dT_H
};

class RoomAir {
 public:
  /// Throws core::InputError for fractions outside [0, 1), non-positive volumes or flows.
  RoomAir(RoomAirParameters room, CrahParameters crah);

  [[nodiscard]] double cold_aisle_heat_capacity() const { return capacity_cold_; }  ///< C_C [J/K]
  [[nodiscard]] double hot_aisle_heat_capacity() const { return capacity_hot_; }    ///< C_H [J/K]
  [[nodiscard]] double specific_heat() const { return cp_; }                        ///< c_p [J/(kg K)]
  [[nodiscard]] double reference_density() const { return rho_; }                  ///< rho_ref [kg/m3]

  /// CRAH supply mass flow at fan speed s [kg/s].
  [[nodiscard]] double crah_mass_flow(double speed) const;
  /// The algebraic mixing relations for supply and server flows [kg/s].
  [[nodiscard]] RoomAirFlows flows(double supply_mass_flow, double it_mass_flow) const;
  /// Coil and fan of the CRAH units for return temperature T_H.
  [[nodiscard]] CrahOperation crah(double hot_aisle_temperature, const RoomAirInputs& inputs) const;
  /// dT_C/dt and dT_H/dt.
  [[nodiscard]] RoomAirRates derivatives(const RoomAirState& state, const RoomAirInputs& inputs) const;
  /// Partial derivatives of `derivatives` with respect to T_C and T_H.
  [[nodiscard]] RoomAirJacobian jacobian(const RoomAirState& state, const RoomAirInputs& inputs) const;
  /// Server outlet air temperature [K] = T_C + Q_it / (m_it c_p) (T_C when m_it = 0).
  [[nodiscard]] double server_outlet_temperature(const RoomAirState& state, const RoomAirInputs& inputs) const;
  /// C_C T_C + C_H T_H [J] (energy above 0 K with constant c_p, for balances).
  [[nodiscard]] double stored_energy(const RoomAirState& state) const;

  [[nodiscard]] const RoomAirParameters& room_parameters() const { return room_; }
  [[nodiscard]] const CrahParameters& crah_parameters() const { return crah_; }

 private:
  RoomAirParameters room_;
  CrahParameters crah_;
  double cp_;
  double rho_;
  double capacity_cold_;
  double capacity_hot_;
};

}  // namespace dctwin::models::thermal
