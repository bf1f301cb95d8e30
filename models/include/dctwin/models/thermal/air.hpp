// Air: dry-air transport properties and the moist-air psychrometrics the plant needs.
//
// Dry air, -40 to 80 degC (233.15 to 353.15 K), at a pressure p (default 101325 Pa):
//   density       rho = p / (R_da T)                      ideal gas, R_da = 287.042 J/(kg K)
//   specific heat c_p(T) = 1007 + 0.03 (T - 300) + 2e-4 (T - 300)^2     [J/(kg K)]
//                 (quadratic through 1006 / 1007 / 1009 J/(kg K) at 250 / 300 / 350 K)
//   viscosity     mu = 1.716e-5 (T/273.15)^1.5 (273.15 + 110.4) / (T + 110.4)   [Pa s]  (Sutherland)
//   conductivity  k  = 0.0241  (T/273.15)^1.5 (273.15 + 194)   / (T + 194)     [W/(m K)] (Sutherland)
// Sources: R_da from ASHRAE Handbook-Fundamentals (2017) ch. 1; c_p, and the checks of mu and k, from
// Incropera & DeWitt, Fundamentals of Heat and Mass Transfer, Table A.4 (air at 1 atm); the Sutherland
// constants from F. M. White, Viscous Fluid Flow, Tables 1-2 and 1-3 (about 2 % over this range).
// docs/models/air.md lists the accuracy against the tables.
//
// Psychrometrics (namespace psychrometrics), ASHRAE Handbook-Fundamentals (2017) ch. 1, with
// temperatures in K, pressures in Pa, humidity ratios W in kg water / kg dry air:
//   saturation pressure  Hyland-Wexler, eq. (5) over ice below 0 degC, eq. (6) over liquid water
//   humidity ratio       W = 0.621945 p_w / (p - p_w)                                    eq. (20)
//   wet bulb             W = ((2501 - 2.326 t*) W_s* - 1.006 (t - t*)) / (2501 + 1.86 t - 4.186 t*)
//                        (eq. 33, t* >= 0 degC; eq. 35 below), solved for t* by bracketed
//                        bisection between the dew point and the dry bulb
//   dew point            the temperature where p_ws(T_d) = p_w, by Newton on eq. (5)/(6)
//   enthalpy             h = 1006 t + W (2 501 000 + 1860 t)   [J/kg dry air], t in degC     eq. (32)
//   specific volume      v = R_da T (1 + 1.607858 W) / p   [m3/kg dry air]                   eq. (28)
//
// Errors (dctwin::core::InputError, messages exactly as below, numbers with up to 3 decimals):
//   "air: temperature 90 degC is outside the property range (-40 to 80 degC)"
//   "air: temperature nan K is not a finite number"
//   "psychrometrics: temperature 250 degC is outside the range of the saturation-pressure
//    formula (-100 to 200 degC)"
//   "psychrometrics: relative humidity 1.2 is outside 0 to 1"
//   "psychrometrics: wet bulb 31 degC is above the dry bulb 30 degC"
//   "psychrometrics: humidity ratio 0.05 exceeds saturation (0.0273) at 30 degC"
//   "psychrometrics: humidity ratio -0.001 is negative"
//   "air: pressure 0 Pa must be > 0"
#pragma once

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::thermal {

/// Gas constant of dry air [J/(kg K)] (ASHRAE Handbook-Fundamentals 2017, ch. 1).
inline constexpr double dry_air_gas_constant = 287.042;
/// Standard atmospheric pressure at sea level [Pa].
inline constexpr double standard_atmospheric_pressure = 101325.0;
/// Lowest and highest temperature of the dry-air property fits [K] (-40 and 80 degC).
inline constexpr double air_min_temperature = 233.15;
inline constexpr double air_max_temperature = 353.15;

struct AirParameters {
  double pressure = standard_atmospheric_pressure;  ///< [Pa] absolute pressure of the air

  static core::ParameterTable table();
  static AirParameters from(const core::ParameterTree& section);
};

/// Dry air at a fixed pressure. A small value type: copy it into components.
class Air {
 public:
  /// Throws core::InputError unless the pressure is finite and > 0.
  explicit Air(AirParameters p = {});

  struct Properties {
    double density;        ///< kg/m3
    double specific_heat;  ///< isobaric, J/(kg K)
    double conductivity;   ///< W/(m K)
    double viscosity;      ///< dynamic, Pa s
  };

  /// All four properties at one temperature [K]; throws the documented InputError outside
  /// -40 to 80 degC.
  [[nodiscard]] Properties properties(double temperature) const;
  [[nodiscard]] double density(double temperature) const;        ///< kg/m3, ideal gas at pressure()
  [[nodiscard]] double specific_heat(double temperature) const;  ///< J/(kg K)
  [[nodiscard]] double conductivity(double temperature) const;   ///< W/(m K)
  [[nodiscard]] double viscosity(double temperature) const;      ///< Pa s
  [[nodiscard]] double prandtl(double temperature) const;        ///< mu c_p / k [1]
  /// rho c_p [J/(m3 K)]: heat carried per unit volume flow and kelvin.
  [[nodiscard]] double volumetric_heat_capacity(double temperature) const;
  [[nodiscard]] double pressure() const { return p_.pressure; }

 private:
  AirParameters p_;
};

namespace psychrometrics {

/// Saturation vapour pressure over liquid water (T >= 273.15 K) or ice (T < 273.15 K) [Pa],
/// -100 to 200 degC (Hyland-Wexler, ASHRAE 2017 ch. 1 eqs. 5 and 6).
[[nodiscard]] double saturation_pressure(double temperature);

/// W from the partial pressure of water vapour p_w [Pa] at total pressure p [Pa] (eq. 20).
[[nodiscard]] double humidity_ratio_from_vapor_pressure(double vapor_pressure, double pressure);
/// Partial pressure of water vapour [Pa] from W (inverse of eq. 20).
[[nodiscard]] double vapor_pressure_from_humidity_ratio(double humidity_ratio, double pressure);
/// Humidity ratio of saturated air at T (eq. 21, enhancement factor taken as 1).
[[nodiscard]] double saturation_humidity_ratio(double temperature, double pressure);

/// W from dry bulb and relative humidity phi = p_w / p_ws(T) in [0, 1].
[[nodiscard]] double humidity_ratio_from_relative_humidity(double dry_bulb, double relative_humidity,
                                                           double pressure);
/// Relative humidity in [0, 1] from dry bulb and W.
[[nodiscard]] double relative_humidity_from_humidity_ratio(double dry_bulb, double humidity_ratio,
                                                           double pressure);

/// W from dry bulb and thermodynamic wet bulb (eq. 33 at or above 0 degC, eq. 35 below; the result
/// is clipped at 0 for wet bulbs so low that the formula goes negative).
[[nodiscard]] double humidity_ratio_from_wet_bulb(double dry_bulb, double wet_bulb, double pressure);
/// Thermodynamic wet bulb [K] from dry bulb and W: the root of eq. 33/35, bracketed between the
/// dew point and the dry bulb, bisected to 1e-9 K.
[[nodiscard]] double wet_bulb_from_humidity_ratio(double dry_bulb, double humidity_ratio, double pressure);
/// Wet bulb [K] from dry bulb and relative humidity (the question the plant asks most).
[[nodiscard]] double wet_bulb_from_relative_humidity(double dry_bulb, double relative_humidity,
                                                     double pressure);
/// Relative humidity in [0, 1] from dry and wet bulb (the reverse).
[[nodiscard]] double relative_humidity_from_wet_bulb(double dry_bulb, double wet_bulb, double pressure);

/// Dew point [K] from W: the temperature at which p_ws = p_w (over ice below 0 degC).
[[nodiscard]] double dew_point_from_humidity_ratio(double humidity_ratio, double pressure);
/// Dew point [K] from dry bulb and relative humidity (0 < phi <= 1).
[[nodiscard]] double dew_point_from_relative_humidity(double dry_bulb, double relative_humidity);

/// Specific enthalpy of moist air [J/kg dry air], zero for dry air at 0 degC (eq. 32).
[[nodiscard]] double moist_air_enthalpy(double dry_bulb, double humidity_ratio);
/// Specific volume of moist air [m3/kg dry air] (eq. 28).
[[nodiscard]] double moist_air_specific_volume(double dry_bulb, double humidity_ratio, double pressure);
/// Density of moist air [kg moist air / m3] = (1 + W) / v.
[[nodiscard]] double moist_air_density(double dry_bulb, double humidity_ratio, double pressure);
/// Specific heat of moist air per kg of dry air [J/(kg_da K)] = 1006 + 1860 W (the slope of eq. 32).
[[nodiscard]] double moist_air_specific_heat(double humidity_ratio);

}  // namespace psychrometrics

}  // namespace dctwin::models::thermal
