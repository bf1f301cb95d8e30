#include "dctwin/models/thermal/air.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "message_text.hpp"

namespace dctwin::models::thermal {

using detail::format_celsius;
using detail::format_decimals;
using detail::format_significant;
using detail::kelvin_offset;

namespace {

void check_air_temperature(double temperature) {
  if (!std::isfinite(temperature))
    throw core::InputError("air: temperature " + format_decimals(temperature) + " K is not a finite number");
  if (temperature < air_min_temperature || temperature > air_max_temperature)
    throw core::InputError("air: temperature " + format_celsius(temperature) +
                             " is outside the property range (-40 to 80 degC)");
}

double dry_air_specific_heat(double t) {
  // Quadratic through Incropera & DeWitt Table A.4 (1 atm): 1006, 1007, 1009 J/(kg K) at 250, 300, 350 K.
  const double x = t - 300.0;
  return 1007.0 + 0.03 * x + 2.0e-4 * x * x;
}

double sutherland(double t, double reference_value, double reference_temperature, double constant) {
  return reference_value * std::pow(t / reference_temperature, 1.5) * (reference_temperature + constant) /
         (t + constant);
}

double dry_air_viscosity(double t) { return sutherland(t, 1.716e-5, 273.15, 110.4); }
double dry_air_conductivity(double t) { return sutherland(t, 0.0241, 273.15, 194.0); }

}  // namespace

core::ParameterTable AirParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("pressure", "Pa", "Absolute pressure of the air (site barometric pressure)",
                          standard_atmospheric_pressure,
                          "Standard atmosphere at sea level; use the station pressure at altitude "
                          "(ASHRAE Handbook-Fundamentals 2017 ch. 1 Table 1)");
  p.display_unit = "kPa";
  greater_than(p, 0.0);
  t.push_back(at_most(p, 2.0e5));
  return t;
}

AirParameters AirParameters::from(const core::ParameterTree& s) {
  AirParameters p;
  p.pressure = s.number("pressure");
  return p;
}

Air::Air(AirParameters p) : p_(p) {
  if (!std::isfinite(p_.pressure) || p_.pressure <= 0.0)
    throw core::InputError("air: pressure " + format_decimals(p_.pressure) + " Pa must be > 0");
}

Air::Properties Air::properties(double temperature) const {
  check_air_temperature(temperature);
  return {p_.pressure / (dry_air_gas_constant * temperature), dry_air_specific_heat(temperature),
          dry_air_conductivity(temperature), dry_air_viscosity(temperature)};
}

double Air::density(double temperature) const { return properties(temperature).density; }
double Air::specific_heat(double temperature) const { return properties(temperature).specific_heat; }
double Air::conductivity(double temperature) const { return properties(temperature).conductivity; }
double Air::viscosity(double temperature) const { return properties(temperature).viscosity; }

double Air::prandtl(double temperature) const {
  const Properties q = properties(temperature);
  return q.viscosity * q.specific_heat / q.conductivity;
}

double Air::volumetric_heat_capacity(double temperature) const {
  const Properties q = properties(temperature);
  return q.density * q.specific_heat;
}

namespace psychrometrics {

namespace {

constexpr double molar_mass_ratio = 0.621945;  // M_w / M_da (ASHRAE 2017 ch. 1 eq. 20)
constexpr double triple_point = 273.15;        // boundary between eqs. 5 and 6 [K]
constexpr double formula_min = 173.15;         // -100 degC
constexpr double formula_max = 473.15;         // 200 degC

// Hyland-Wexler coefficients, ASHRAE Handbook-Fundamentals 2017 ch. 1 eq. (5) (ice) and (6) (liquid).
constexpr double c1 = -5.6745359e3, c2 = 6.3925247, c3 = -9.6778430e-3, c4 = 6.2215701e-7,
                 c5 = 2.0747825e-9, c6 = -9.4840240e-13, c7 = 4.1635019;
constexpr double c8 = -5.8002206e3, c9 = 1.3914993, c10 = -4.8640239e-2, c11 = 4.1764768e-5,
                 c12 = -1.4452093e-8, c13 = 6.5459673;

void check_temperature(double temperature, const char* what) {
  if (!std::isfinite(temperature))
    throw core::InputError(std::string("psychrometrics: ") + what + " " + format_decimals(temperature) +
                             " K is not a finite number");
  if (temperature < formula_min || temperature > formula_max)
    throw core::InputError(std::string("psychrometrics: ") + what + " " + format_celsius(temperature) +
                             " is outside the range of the saturation-pressure formula (-100 to 200 degC)");
}

void check_pressure(double pressure) {
  if (!std::isfinite(pressure) || pressure <= 0.0)
    throw core::InputError("psychrometrics: pressure " + format_decimals(pressure) + " Pa must be > 0");
}

void check_relative_humidity(double relative_humidity) {
  if (!(relative_humidity >= 0.0 && relative_humidity <= 1.0))
    throw core::InputError("psychrometrics: relative humidity " + format_decimals(relative_humidity) +
                             " is outside 0 to 1");
}

void check_humidity_ratio(double dry_bulb, double humidity_ratio, double pressure) {
  if (!std::isfinite(humidity_ratio))
    throw core::InputError("psychrometrics: humidity ratio " + format_decimals(humidity_ratio) +
                             " is not a finite number");
  if (humidity_ratio < 0.0)
    throw core::InputError("psychrometrics: humidity ratio " + format_significant(humidity_ratio) +
                             " is negative");
  const double saturated = saturation_humidity_ratio(dry_bulb, pressure);
  // A relative tolerance absorbs round-off of W computed at saturation.
  if (humidity_ratio > saturated * (1.0 + 1e-9))
    throw core::InputError("psychrometrics: humidity ratio " + format_significant(humidity_ratio) +
                             " exceeds saturation (" + format_significant(saturated) + ") at " +
                             format_celsius(dry_bulb));
}

/// ln p_ws and its derivative with respect to T, on the branch chosen by `over_ice`.
void log_saturation_pressure(double t, bool over_ice, double& value, double& slope) {
  if (over_ice) {
    value = c1 / t + c2 + t * (c3 + t * (c4 + t * (c5 + t * c6))) + c7 * std::log(t);
    slope = -c1 / (t * t) + c3 + t * (2.0 * c4 + t * (3.0 * c5 + t * 4.0 * c6)) + c7 / t;
  } else {
    value = c8 / t + c9 + t * (c10 + t * (c11 + t * c12)) + c13 * std::log(t);
    slope = -c8 / (t * t) + c10 + t * (2.0 * c11 + t * 3.0 * c12) + c13 / t;
  }
}

/// Eq. (33) / (35) without clipping: W as a function of the wet bulb (negative for very low t*).
double wet_bulb_equation(double dry_bulb, double wet_bulb, double pressure) {
  const double t = dry_bulb - kelvin_offset, ts = wet_bulb - kelvin_offset;
  const double ws = saturation_humidity_ratio(wet_bulb, pressure);
  if (ts >= 0.0) return ((2501.0 - 2.326 * ts) * ws - 1.006 * (t - ts)) / (2501.0 + 1.86 * t - 4.186 * ts);
  return ((2830.0 - 0.24 * ts) * ws - 1.006 * (t - ts)) / (2830.0 + 1.86 * t - 2.1 * ts);
}


/// The temperature at which p_ws(T) = p_w: over liquid water when p_w reaches the liquid saturation
/// pressure at 0 degC, else over ice; safeguarded Newton on ln p_ws, which is increasing and nearly
/// linear in 1/T.
double dew_point_from_vapor_pressure(double vapor_pressure) {
  const double target = std::log(vapor_pressure);
  double value = 0.0, slope = 0.0;
  log_saturation_pressure(triple_point, false, value, slope);
  const bool over_ice = target < value;
  double low = over_ice ? formula_min : triple_point, high = over_ice ? triple_point : formula_max;
  log_saturation_pressure(low, over_ice, value, slope);
  if (target < value)
    throw core::InputError("psychrometrics: vapour pressure " + format_significant(vapor_pressure) +
                             " Pa has a dew point below -100 degC");
  log_saturation_pressure(high, over_ice, value, slope);
  if (target > value)
    throw core::InputError("psychrometrics: vapour pressure " + format_significant(vapor_pressure) +
                             " Pa has a dew point above 200 degC");
  double t = 0.5 * (low + high);
  for (int i = 0; i < 100; ++i) {
    log_saturation_pressure(t, over_ice, value, slope);
    const double g = value - target;
    (g < 0.0 ? low : high) = t;
    double next = t - g / slope;
    if (!(next > low && next < high)) next = 0.5 * (low + high);
    if (std::abs(next - t) < 1e-11) return next;
    t = next;
  }
  return t;
}
}  // namespace

double saturation_pressure(double temperature) {
  check_temperature(temperature, "temperature");
  double value = 0.0, slope = 0.0;
  log_saturation_pressure(temperature, temperature < triple_point, value, slope);
  return std::exp(value);
}

double humidity_ratio_from_vapor_pressure(double vapor_pressure, double pressure) {
  check_pressure(pressure);
  if (!(vapor_pressure >= 0.0 && vapor_pressure < pressure))
    throw core::InputError("psychrometrics: vapour pressure " + format_decimals(vapor_pressure) +
                             " Pa is outside 0 to the total pressure " + format_decimals(pressure) + " Pa");
  return molar_mass_ratio * vapor_pressure / (pressure - vapor_pressure);
}

double vapor_pressure_from_humidity_ratio(double humidity_ratio, double pressure) {
  check_pressure(pressure);
  if (!(humidity_ratio >= 0.0) || !std::isfinite(humidity_ratio))
    throw core::InputError("psychrometrics: humidity ratio " + format_significant(humidity_ratio) +
                             " is negative");
  return pressure * humidity_ratio / (molar_mass_ratio + humidity_ratio);
}

double saturation_humidity_ratio(double temperature, double pressure) {
  check_pressure(pressure);
  const double pws = saturation_pressure(temperature);
  if (pws >= pressure)
    throw core::InputError("psychrometrics: air at " + format_celsius(temperature) + " and " +
                             format_decimals(pressure) + " Pa cannot be saturated (water boils)");
  return molar_mass_ratio * pws / (pressure - pws);
}

double humidity_ratio_from_relative_humidity(double dry_bulb, double relative_humidity, double pressure) {
  check_relative_humidity(relative_humidity);
  return humidity_ratio_from_vapor_pressure(relative_humidity * saturation_pressure(dry_bulb), pressure);
}

double relative_humidity_from_humidity_ratio(double dry_bulb, double humidity_ratio, double pressure) {
  check_humidity_ratio(dry_bulb, humidity_ratio, pressure);
  const double phi = vapor_pressure_from_humidity_ratio(humidity_ratio, pressure) / saturation_pressure(dry_bulb);
  return std::min(phi, 1.0);
}

double humidity_ratio_from_wet_bulb(double dry_bulb, double wet_bulb, double pressure) {
  check_temperature(dry_bulb, "dry bulb");
  check_temperature(wet_bulb, "wet bulb");
  check_pressure(pressure);
  if (wet_bulb > dry_bulb)
    throw core::InputError("psychrometrics: wet bulb " + format_celsius(wet_bulb) + " is above the dry bulb " +
                             format_celsius(dry_bulb));
  return std::max(0.0, wet_bulb_equation(dry_bulb, wet_bulb, pressure));
}

double wet_bulb_from_humidity_ratio(double dry_bulb, double humidity_ratio, double pressure) {
  check_temperature(dry_bulb, "dry bulb");
  check_pressure(pressure);
  check_humidity_ratio(dry_bulb, humidity_ratio, pressure);
  // Bracket: the wet bulb lies between the dew point and the dry bulb. The equation is increasing
  // in t*, equals W_s(T) >= W at t* = T, and is <= W at the dew point.
  double low = humidity_ratio > 0.0 ? dew_point_from_humidity_ratio(humidity_ratio, pressure) - 1.0 : formula_min;
  low = std::max(low, formula_min);
  double high = dry_bulb;
  if (wet_bulb_equation(dry_bulb, low, pressure) > humidity_ratio) low = formula_min;
  for (int i = 0; i < 200 && high - low > 1e-9; ++i) {
    const double mid = 0.5 * (low + high);
    (wet_bulb_equation(dry_bulb, mid, pressure) < humidity_ratio ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

double wet_bulb_from_relative_humidity(double dry_bulb, double relative_humidity, double pressure) {
  return wet_bulb_from_humidity_ratio(dry_bulb, humidity_ratio_from_relative_humidity(dry_bulb, relative_humidity, pressure),
                                      pressure);
}

double relative_humidity_from_wet_bulb(double dry_bulb, double wet_bulb, double pressure) {
  return relative_humidity_from_humidity_ratio(dry_bulb, humidity_ratio_from_wet_bulb(dry_bulb, wet_bulb, pressure),
                                               pressure);
}

double dew_point_from_humidity_ratio(double humidity_ratio, double pressure) {
  check_pressure(pressure);
  if (!(humidity_ratio > 0.0) || !std::isfinite(humidity_ratio))
    throw core::InputError("psychrometrics: humidity ratio " + format_significant(humidity_ratio) +
                             " has no dew point (must be > 0)");
  return dew_point_from_vapor_pressure(vapor_pressure_from_humidity_ratio(humidity_ratio, pressure));
}

double dew_point_from_relative_humidity(double dry_bulb, double relative_humidity) {
  check_relative_humidity(relative_humidity);
  if (relative_humidity == 0.0)
    throw core::InputError("psychrometrics: relative humidity 0 has no dew point (must be > 0)");
  return dew_point_from_vapor_pressure(relative_humidity * saturation_pressure(dry_bulb));
}

double moist_air_enthalpy(double dry_bulb, double humidity_ratio) {
  const double t = dry_bulb - kelvin_offset;
  return 1006.0 * t + humidity_ratio * (2501000.0 + 1860.0 * t);
}

double moist_air_specific_volume(double dry_bulb, double humidity_ratio, double pressure) {
  check_pressure(pressure);
  return dry_air_gas_constant * dry_bulb * (1.0 + 1.607858 * humidity_ratio) / pressure;
}

double moist_air_density(double dry_bulb, double humidity_ratio, double pressure) {
  return (1.0 + humidity_ratio) / moist_air_specific_volume(dry_bulb, humidity_ratio, pressure);
}

double moist_air_specific_heat(double humidity_ratio) { return 1006.0 + 1860.0 * humidity_ratio; }

}  // namespace psychrometrics

}  // namespace dctwin::models::thermal
