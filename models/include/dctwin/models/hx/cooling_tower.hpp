// Open (wet) cooling tower with a variable-speed fan: leaving water temperature as wet bulb plus
// an approach from a published empirical correlation, as in EnergyPlus' CoolingTower:VariableSpeed
// (EnergyPlus Engineering Reference, "Variable Speed Cooling Towers Empirical Models"; the same
// correlations are in Modelica Buildings, Buildings.Fluid.HeatExchangers.CoolingTowers).
//
//   T_w,out = T_wb + approach,     range T_r = T_w,in - T_w,out,     Q = m_w cp_w T_r
//
// Correlations (T_wb and T_r in degC / K, coefficients in EnergyPlus Eng. Ref. Table 63, valid
// ranges Table 64):
//   YorkCalc (York International, YORKcalc software 2002; counter-flow tower), 27 terms:
//     approach = sum_{i,j,k = 0..2} c_ijk T_wb^i T_r^j LG^k,   LG = FR_water / FR_air (<= 8)
//     (term order: T_wb fastest, then T_r, then LG)
//     valid: T_wb -34.4 to 26.7 degC, T_r 1.1 to 22.2 K, approach 1.1 to 40 K, FR_water 0.75-1.25
//   CoolTools cross-flow (Benton, Bowman, Hydeman, Miller, ASHRAE Trans. 108(1) 2002), 35 terms,
//     a cubic polynomial in FR_air, FR_water, T_wb, T_r (order of EnergyPlus Eq. and Table 63)
//     valid: T_wb -1.0 to 26.7 degC, T_r 1.1 to 11.1 K, approach 1.1 to 11.1 K, FR_water 0.75-1.25
// Both were fitted to a "model tower" whose reference condition is 25.6 degC (78 F) wet bulb,
// 35 -> 29.4 degC (95 -> 85 F) water, i.e. approach 3.89 K and range 5.56 K at FR = 1, with
// 2.4 gal/min per ton (0.000043 m3/s per kW).
//
// Calibration to an actual tower (EnergyPlus method): the model tower's water flow ratio FR_0
// that gives the design approach at the design wet bulb and range with FR_air = 1 is found by
// bisection; then the reference flow is m_ref = m_w,design / FR_0 and at run time
// FR_water = m_w / m_ref. The design point is thus reproduced exactly.
//
// Fan: FR_air = fan speed s in [s_min, 1] (air flow ~ speed), P_fan = P_fan,design s^3.
// Below s_min the fan is off and the tower runs in free convection (EnergyPlus):
//   T_w,out,off = T_w,in - f_fc (T_w,in - T_w,out at full fan speed),  f_fc = 0.125 default.
//
// Input handling, as EnergyPlus and Modelica Buildings do: the wet bulb is clamped to the
// correlation's range before the polynomial is evaluated, and for YorkCalc the air flow ratio is
// raised to FR_water / 8 so that LG <= 8; range, approach and FR_water are used as they are, and
// outside_correlation_bounds reports any excursion. The approach is floored at 0 (a polynomial
// excursion must not cool the water below the wet bulb).
//
// Make-up water (EnergyPlus "Cooling Tower Makeup Water Usage", with evaporation from the heat):
//   evaporation  m_e = f_lat Q / h_fg         (f_lat = 1: all heat rejected as latent heat, an
//                                              upper bound; EnergyPlus' default loss factor
//                                              0.2 %/K of flow per K of range equals 1.16 Q/h_fg)
//   drift        m_d = f_drift m_w            (0.008 % of circulating water, EnergyPlus default)
//   blowdown     m_b = max(0, m_e / (N - 1) - m_d)   (concentration ratio N = 3, EnergyPlus default)
//   make-up      m_e + m_d + m_b
//
// Defaults: design point of the EnergyPlus / Modelica Buildings examples (25.56 degC wet bulb,
// 3.89 K approach, 5.56 K range); 100 kg/s design water flow (2.32 MW at the design range, sized
// for one 2 MW CDU plus its chiller's compressor heat); design fan power 0.0105 W per W of design
// heat rejection (EnergyPlus CoolingTower:VariableSpeed:Merkel sizing default) = 24.4 kW.
#pragma once

#include <array>
#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::hx {

enum class TowerCorrelation {
  yorkcalc,
  cooltools_cross_flow,
};

/// The published coefficients and validity ranges of one correlation.
struct TowerCorrelationData {
  double min_wet_bulb;        ///< [degC]
  double max_wet_bulb;        ///< [degC]
  double min_range;           ///< [K]
  double max_range;           ///< [K]
  double min_approach;        ///< [K]
  double max_approach;        ///< [K]
  double min_water_flow_ratio;
  double max_water_flow_ratio;
  double max_liquid_to_gas_ratio;  ///< infinity where the correlation has no such limit
};
[[nodiscard]] const TowerCorrelationData& correlation_data(TowerCorrelation correlation);
/// "YorkCalc" or "CoolTools cross-flow", for messages.
[[nodiscard]] const char* correlation_name(TowerCorrelation correlation);

/// The raw polynomial: approach [K] at wet bulb T_wb [K], range [K] and the model tower's flow
/// ratios, no clamping, no floor. Exactly the published correlation.
[[nodiscard]] double correlation_approach(TowerCorrelation correlation, double wet_bulb_temperature, double range,
                                          double water_flow_ratio, double air_flow_ratio);

struct CoolingTowerParameters {
  TowerCorrelation correlation = TowerCorrelation::yorkcalc;
  double design_wet_bulb_temperature = 273.15 + 25.5556;  ///< [K] (78 F)
  double design_approach = 3.8889;                       ///< [K] (7 F)
  double design_range = 5.5556;                          ///< [K] (10 F)
  double design_water_flow = 100.0;                      ///< [kg/s]
  double design_fan_power = 24.4e3;                      ///< [W] at full speed
  double minimum_air_flow_ratio = 0.2;                   ///< s_min [1]
  double free_convection_capacity_fraction = 0.125;      ///< f_fc [1]
  double water_specific_heat = 4180.0;                   ///< [J/(kg K)]
  double latent_heat_of_vaporization = 2.43e6;           ///< h_fg [J/kg] (water at 30 degC)
  double evaporated_heat_fraction = 1.0;                 ///< f_lat [1]
  double drift_loss_fraction = 8e-5;                     ///< f_drift [1] (0.008 %)
  double concentration_ratio = 3.0;                      ///< N [1]

  static core::ParameterTable table();
  static CoolingTowerParameters from(const core::ParameterTree& section);
};

struct CoolingTowerOperatingPoint {
  double heat_flow = 0.0;                 ///< [W] rejected
  double water_inlet_temperature = 0.0;   ///< [K]
  double water_outlet_temperature = 0.0;  ///< [K]
  double range = 0.0;                     ///< [K]
  double approach = 0.0;                  ///< [K] outlet minus wet bulb
  double air_flow_ratio = 0.0;            ///< FR_air used in the correlation [1]
  double water_flow_ratio = 0.0;          ///< FR_water of the model tower [1]
  double fan_speed = 0.0;                 ///< [1]
  double fan_power = 0.0;                 ///< [W]
  bool free_convection = false;           ///< fan off (speed below s_min)
  bool outside_correlation_bounds = false;
  /// The correlation's inputs as evaluated (with the fan off: at full fan speed and the full-fan
  /// range T_r / f_fc), before the wet-bulb clamp and the L/G limit: what an envelope compares
  /// with the validity ranges of correlation_data().
  double correlation_range = 0.0;           ///< [K]
  double correlation_liquid_to_gas = 0.0;   ///< FR_water / fan speed asked for [1]
  double correlation_approach = 0.0;        ///< the polynomial's approach before the floor at 0 [K]
};

struct MakeupWater {
  double evaporation = 0.0;  ///< [kg/s]
  double drift = 0.0;        ///< [kg/s]
  double blowdown = 0.0;     ///< [kg/s]
  double total = 0.0;        ///< [kg/s]
};

class CoolingTower {
 public:
  /// Checks the parameters and calibrates the correlation to the design point; throws
  /// core::InputError ("cooling_tower.design_approach = 0 K (must be > 0)").
  explicit CoolingTower(CoolingTowerParameters p, std::string section = "cooling_tower");

  /// Approach [K] at wet bulb [K], range [K], water flow [kg/s] and air flow ratio, with the
  /// calibration, clamping and floor described above.
  [[nodiscard]] double approach(double wet_bulb_temperature, double range, double water_flow,
                                double air_flow_ratio) const;
  /// Steady state for water entering at T_w,in [K] (the range follows by bisection on
  /// T_r = T_w,in - T_wb - approach(T_r)).
  [[nodiscard]] CoolingTowerOperatingPoint evaluate(double wet_bulb_temperature, double water_inlet_temperature,
                                                    double water_flow, double fan_speed) const;
  /// Steady state that rejects `heat_flow` >= 0 [W] (range = Q / (m_w cp_w)).
  [[nodiscard]] CoolingTowerOperatingPoint evaluate_for_load(double wet_bulb_temperature, double heat_flow,
                                                             double water_flow, double fan_speed) const;
  /// Lowest fan speed in [s_min, 1] whose leaving water is <= the target; 1 if unreachable.
  [[nodiscard]] double fan_speed_for_outlet(double wet_bulb_temperature, double heat_flow, double water_flow,
                                            double target_outlet_temperature) const;
  /// Fan power [W]: P_design s^3 for s >= s_min, 0 below (fan off).
  [[nodiscard]] double fan_power(double fan_speed) const;
  [[nodiscard]] MakeupWater makeup_water(double heat_flow, double water_flow) const;

  /// FR_0: the model tower's water flow ratio at the design point.
  [[nodiscard]] double design_water_flow_ratio() const { return design_water_flow_ratio_; }
  [[nodiscard]] const CoolingTowerParameters& parameters() const { return p_; }

 private:
  /// The correlation's approach [K] with the wet-bulb clamp and the L/G limit, before the floor at 0.
  [[nodiscard]] double unfloored_approach(double wet_bulb_temperature, double range, double water_flow,
                                          double air_flow_ratio) const;
  /// Forced-convection state at fan speed s >= s_min with a known range.
  [[nodiscard]] CoolingTowerOperatingPoint forced(double wet_bulb, double range, double water_flow, double speed) const;
  /// Range with the fan at speed s >= s_min for water entering at T_in.
  [[nodiscard]] double forced_range(double wet_bulb, double inlet, double water_flow, double speed) const;
  [[nodiscard]] bool fan_on(double fan_speed) const { return fan_speed >= p_.minimum_air_flow_ratio; }

  CoolingTowerParameters p_;
  double design_water_flow_ratio_ = 1.0;
};

}  // namespace dctwin::models::hx
