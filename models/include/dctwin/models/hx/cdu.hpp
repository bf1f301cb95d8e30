// Coolant distribution unit (CDU): a liquid-to-liquid counter-flow plate heat exchanger between
// the IT (secondary, rack) loop and the facility (primary) water, with a PI controller that moves
// the facility-side valve to hold the IT-loop supply temperature at its set-point.
//
//   IT loop   (hot,  stream 1): enters at the IT return T_it,ret, leaves as IT supply T_it,sup
//   facility  (cold, stream 2): enters at the facility supply T_fac,sup, leaves as T_fac,ret
//   approach  = T_it,sup - T_fac,sup   (the "approach" of CDU datasheets: secondary supply minus
//                                       primary supply, [liquid-loop-practice] 3-5 K)
//
// Sizing from the nominal approach (counter flow, hx/effectiveness.hpp eq. 11.30b):
//   C_it = m_it,0 cp_it, C_fac = m_fac,0 cp_fac, dT_it = Q_0 / C_it, dT_max = dT_it + approach_0
//   eps_0 = Q_0 / (C_min dT_max), NTU_0 = counter_flow_ntu(eps_0, C_min / C_max), UA_0 = NTU_0 C_min
// which needs the facility side's rise Q_0 / C_fac to stay below dT_max (else no exchanger can
// reach the approach; core::InputError). eps depends only on the flows, so at the rating flows
// the model returns approach = (1 - eps_it) (T_it,ret - T_fac,sup), eps_it = eps C_min / C_it,
// which is the nominal approach whenever T_it,ret - T_fac,sup equals the rating's dT_max.
//
// Off-design UA: hx/ua_scaling.hpp with both sides liquid. Plate-exchanger Nusselt numbers scale
// as Re^(0.728 + 0.0543 sin(pi beta / 45 + 3.7)) = Re^0.70-0.78 for chevron angles 30-60 deg
// (Muley & Manglik, J. Heat Transfer 121 (1999) 110-117); 0.75 (beta ~ 45 deg) on both sides.
// The IT side carries PG25, whose film coefficient at equal mass flow and geometry is lower than
// water's: h ~ k Re^0.75 Pr^(1/3) with PG25 at 37 degC and water at 34 degC (the sides' mean
// temperatures at the rating point; fluid/coolant.hpp tables) gives Re^0.75 x0.60,
// Pr^(1/3) x1.34, k x0.78, so hA_it,0 / hA_fac,0 = 0.62 [E] (equal plate areas).
//
// Default rating ([modelica-buildings-deschutes-cdu], Google "Deschutes" CDU in the Modelica Buildings data record): 2 MW,
// 3 K approach, 31.48 kg/s PG25 IT loop (cp 3991 J/(kg K) at 40 degC), 45 degC rack outlet. The
// facility flow is not published: 30 kg/s of water (cp 4180) balances the capacity rates [E].
// => dT_it = 15.92 K, dT_max = 18.92 K, C_min = C_fac = 125.4 kW/K, C_r = 0.998, eps_0 = 0.8430,
//    NTU_0 = 5.343, UA_0 = 670 kW/K.
//
// Valve: facility flow = position x nominal facility flow (linear characteristic; the valve's
// authority and the pump curve belong to the hydraulic network, hydraulic/). The position travels
// towards the controller output (below), limited to [output_min, output_max] (default 0.05 to 1),
// in steps of output_resolution (default 0.5 % of stroke [E]: a valve positioner does not move for
// a smaller change of its command, so a sample that leaves the step unchanged moves nothing).
// The controller is direct acting: a warm IT supply opens the valve.
//
// Actuator travel: the valve does not jump to a new command. An electric actuator drives the stem
// at a constant speed, the full stroke in `valve_stroke_time` T_v; from the position u_0 at the
// command's time t_c towards the command u_c,
//   u(t) = u_0 + sign(u_c - u_0) min(|u_c - u_0|, (t - t_c) / T_v)      (u_c at once for T_v = 0)
// (travel()), so the position, and with it the exchanger's conductance, is continuous at a command.
//
// Tuning note [E]: the path from valve to IT supply temperature is nearly static (the exchanger
// answers in seconds; the IT loop's thermal mass acts on the return, i.e. as a disturbance), with
// a gain |dT_sup/du| of ~8 K per unit opening near full flow and ~20 K at small openings for
// the default CDU. A sampled proportional gain K must keep K |dT_sup/du| well below 2 (else the
// valve chatters), so K = 0.03 per K (loop gain <= 0.6); the integral time T_i = 20 s then sets
// the speed (a 25 % load step on a 10 m3 IT loop moves the supply by ~0.13 K and settles in ~8 min,
// tests/models/hx/test_cdu.cpp). Sensor and valve-actuator lags of the real plant call for
// re-tuning on site.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/hx/pi_controller.hpp"
#include "dctwin/models/hx/ua_scaling.hpp"

namespace dctwin::models::hx {

struct CduParameters {
  double nominal_heat_flow = 2.0e6;        ///< Q_0 [W]
  double nominal_approach = 3.0;           ///< [K] IT supply minus facility supply at the rating point
  double nominal_it_flow = 31.48;          ///< [kg/s] IT (secondary) loop
  double nominal_facility_flow = 30.0;     ///< [kg/s] facility (primary) water, valve fully open
  double it_specific_heat = 3991.0;        ///< [J/(kg K)] at the rating point (PG25, 40 degC)
  double facility_specific_heat = 4180.0;  ///< [J/(kg K)] at the rating point (water)
  double conductance_ratio = 0.62;         ///< hA_it,0 / hA_fac,0 [1]
  double it_flow_exponent = 0.75;          ///< [1]
  double facility_flow_exponent = 0.75;    ///< [1]
  double valve_stroke_time = 60.0;         ///< T_v [s]: the actuator's full stroke, 0 = at once
  PiParameters controller = default_controller();

  /// The CDU's valve controller tuning: K = 0.03 per K, T_i = 20 s, h = 1 s, T_t = 10 s, valve
  /// 0.05 to 1, direct acting, back-calculation [E: starting values; see the tuning note above];
  /// valve commands in steps of 0.5 % of stroke [E: the dead band of a valve positioner].
  static PiParameters default_controller();
  static core::ParameterTable table();
  /// Table plus the sub-section "controller" (PiParameters::table with the CDU's defaults).
  static core::SectionSchema schema();
  /// Reads the CDU's parameters and, if present, its "controller" sub-section.
  static CduParameters from(const core::ParameterTree& section);
};

struct CduOperatingPoint {
  double heat_flow = 0.0;                    ///< [W] from the IT loop to the facility water
  double it_supply_temperature = 0.0;        ///< [K]
  double facility_return_temperature = 0.0;  ///< [K]
  double approach = 0.0;                     ///< [K] IT supply minus facility supply
  double ua = 0.0;                           ///< [W/K]
  double effectiveness = 0.0;                ///< [1]
  double ntu = 0.0;                          ///< [1]
};

class Cdu {
 public:
  /// Checks the parameters and sizes UA_0 from the nominal approach; throws core::InputError.
  explicit Cdu(CduParameters p, std::string section = "cdu");

  /// Steady state at IT return T_it,ret [K], IT flow [kg/s], facility supply [K], facility flow
  /// [kg/s] and the two specific heats [J/(kg K)].
  [[nodiscard]] CduOperatingPoint evaluate(double it_return_temperature, double it_flow,
                                           double facility_supply_temperature, double facility_flow,
                                           double it_specific_heat, double facility_specific_heat) const;

  /// UA_0 sized from the nominal approach [W/K].
  [[nodiscard]] double nominal_ua() const { return scaling_.parameters().nominal_ua; }
  [[nodiscard]] double ua(double it_flow, double facility_flow) const { return scaling_.ua(it_flow, facility_flow); }
  /// Facility flow [kg/s] at a valve position in [0, 1] (linear characteristic).
  [[nodiscard]] double facility_flow(double valve_position) const;
  /// The valve's position `elapsed` [s] after it was at `from` and commanded to `command`:
  /// exactly `from` at 0 (and before), exactly `command` once the actuator has covered the
  /// distance, never beyond it.
  [[nodiscard]] double travel(double from, double command, double elapsed) const;
  /// One controller sample: new valve position from the IT supply set-point and measurement.
  double control(PiState& state, double it_supply_setpoint, double it_supply_temperature) const {
    return controller_.step(state, it_supply_setpoint, it_supply_temperature);
  }
  [[nodiscard]] const PiController& controller() const { return controller_; }
  [[nodiscard]] const CduParameters& parameters() const { return p_; }

 private:
  CduParameters p_;
  UaScaling scaling_;
  PiController controller_;
};

}  // namespace dctwin::models::hx
