// Water-side economizer plant: heat rejection (cooling tower or dry cooler), a plate heat
// exchanger between the condenser water and the facility (chilled) water, and an electric chiller
// in series after it. Steady state for one weather condition, load and set-point.
//
//   facility water: return T_ret = T_set + Q / (m_chw cp_chw) -> economizer HX -> T_pre
//                   -> chiller evaporator -> supply T_set
//   condenser water (flow m_cw): leaves the heat rejection at T_cw and feeds both the economizer
//                   HX and the chiller condenser (parallel branches, lumped: both see T_cw, the
//                   heat rejection sees the sum of their heat at the total flow m_cw)
//   economizer HX:  represented by a constant approach a: it can cool the facility water down to
//                   T_cw + a.
//
// Modes (T_cw(s, Q_rej) = leaving temperature of the heat rejection at fan speed s rejecting
// Q_rej; wet bulb for a tower, dry bulb for a dry cooler):
//
//   free cooling   T_cw(1, Q) + a <= T_set - m     (m = change-over margin; m = 0 when the plant
//                                                  was already in free cooling: hysteresis)
//                  chiller off, Q_econ = Q, fan at the lowest speed in [s_min, 1] with
//                  T_cw + a <= T_set (a bypass trims any over-cooling).
//   partial        else, if T_pre = T_cw + a < T_ret with the fans at full speed:
//                  Q_econ = m_chw cp_chw (T_ret - max(T_pre, T_set)), chiller load Q - Q_econ.
//   mechanical     else: Q_econ = 0, the chiller carries Q.
//   In partial and mechanical modes the fans run at full speed (coldest condenser water, best
//   chiller COP and most economizer heat) and the heat rejected is Q_rej = Q_econ + Q_ch +
//   f_cond P_ch, which itself depends on T_cw through the chiller power: solved by fixed-point
//   iteration on P_ch (a contraction: dT_cw/dP_ch ~ 1 / (m_cw cp_cw), dP/dT_cw ~ 2 %/K).
//   The chiller runs at the set-point as leaving chilled-water temperature and T_cw as entering
//   condenser temperature; load beyond its capacity is reported as unmet.
//
//   Power = fans + chiller + pumps (the pump power is given by the hydraulic model).
//
// Weather is checked: a wet bulb above the dry bulb throws core::InputError
//   "weather: wet-bulb temperature 25 degC is above the dry-bulb temperature 20 degC".
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/hx/chiller.hpp"
#include "dctwin/models/hx/cooling_tower.hpp"
#include "dctwin/models/hx/dry_cooler.hpp"

namespace dctwin::models::hx {

enum class PlantMode {
  free_cooling,          ///< economizer only, chiller off
  partial_free_cooling,  ///< economizer pre-cools, chiller trims (integrated economizer)
  mechanical,            ///< chiller only
};

[[nodiscard]] const char* plant_mode_name(PlantMode mode);

struct Weather {
  double dry_bulb_temperature = 0.0;  ///< [K]
  double wet_bulb_temperature = 0.0;  ///< [K]
};

/// Throws core::InputError when the wet bulb is above the dry bulb or a value is not finite.
void check_weather(const Weather& weather);

struct EconomizerParameters {
  double heat_exchanger_approach = 1.5;        ///< a [K]
  double changeover_margin = 1.0;              ///< m [K]
  double condenser_water_flow = 100.0;         ///< m_cw [kg/s]
  double condenser_water_specific_heat = 4180.0;  ///< [J/(kg K)] (use the glycol's with a dry cooler)

  static core::ParameterTable table();
  static EconomizerParameters from(const core::ParameterTree& section);
};

/// What the plant must deliver.
struct PlantDemand {
  double heat_flow = 0.0;                        ///< Q [W] >= 0, load on the facility water
  double supply_setpoint = 0.0;                  ///< T_set [K]
  double facility_water_flow = 0.0;              ///< m_chw [kg/s] > 0
  double facility_water_specific_heat = 4180.0;  ///< [J/(kg K)]
  double pump_power = 0.0;                       ///< [W] from the hydraulic model
  std::optional<PlantMode> previous_mode;        ///< for the change-over hysteresis
};

struct PlantOperatingPoint {
  PlantMode mode = PlantMode::mechanical;
  double economizer_heat_flow = 0.0;      ///< Q_econ [W]
  double chiller_heat_flow = 0.0;         ///< Q_ch [W] delivered by the chiller
  double unmet_heat_flow = 0.0;           ///< [W] beyond the chiller's capacity
  double heat_rejected = 0.0;             ///< Q_rej [W]
  double return_temperature = 0.0;        ///< T_ret [K]
  double precooled_temperature = 0.0;     ///< after the economizer HX [K]
  double supply_temperature = 0.0;        ///< [K] (above T_set when load is unmet)
  double condenser_water_temperature = 0.0;  ///< T_cw leaving the heat rejection [K]
  double fan_speed = 0.0;                 ///< [1]
  double fan_power = 0.0;                 ///< [W]
  double chiller_power = 0.0;             ///< [W]
  double chiller_cop = 0.0;               ///< [1]
  double pump_power = 0.0;                ///< [W]
  double total_power = 0.0;               ///< fans + chiller + pumps [W]
};

/// The heat-rejection unit of the plant.
using HeatRejection = std::variant<CoolingTower, DryCooler>;

class WaterSideEconomizer {
 public:
  /// Checks the parameters; throws core::InputError ("economizer.heat_exchanger_approach = 0 K
  /// (must be > 0)").
  WaterSideEconomizer(EconomizerParameters p, HeatRejection heat_rejection, Chiller chiller,
                      std::string section = "economizer");

  [[nodiscard]] PlantOperatingPoint evaluate(const Weather& weather, const PlantDemand& demand) const;

  /// Leaving condenser-water temperature [K] of the heat rejection at fan speed s rejecting
  /// Q_rej [W] (wet bulb for a tower, dry bulb for a dry cooler).
  [[nodiscard]] double condenser_water_temperature(const Weather& weather, double heat_rejected, double fan_speed) const;

  [[nodiscard]] const EconomizerParameters& parameters() const { return p_; }
  [[nodiscard]] const HeatRejection& heat_rejection() const { return heat_rejection_; }
  [[nodiscard]] const Chiller& chiller() const { return chiller_; }

 private:
  [[nodiscard]] double fan_speed_for(const Weather& weather, double heat_rejected, double target) const;
  [[nodiscard]] double fan_power(double fan_speed) const;

  EconomizerParameters p_;
  HeatRejection heat_rejection_;
  Chiller chiller_;
};

}  // namespace dctwin::models::hx
