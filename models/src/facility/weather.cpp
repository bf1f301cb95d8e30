#include "dctwin/models/facility/weather.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../thermal/message_text.hpp"
#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/thermal/air.hpp"

namespace dctwin::models::facility {

using detail::format_celsius;
using detail::format_decimals;

namespace {

constexpr double seconds_per_hour = 3600.0;
constexpr double seconds_per_day = 86400.0;

std::string indexed(const char* name, std::size_t k) { return std::string(name) + "[" + std::to_string(k) + "]"; }

void check_finite(const std::vector<double>& values, const char* name, const char* unit) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (!std::isfinite(values[k]))
      throw core::InputError("weather series: " + indexed(name, k) + " = " + format_decimals(values[k]) + " " +
                               unit + " is not a finite number");
}

void check_plausible(const std::vector<double>& values, const char* name) {
  for (std::size_t k = 0; k < values.size(); ++k)
    if (values[k] < WeatherSeries::min_plausible_temperature || values[k] > WeatherSeries::max_plausible_temperature)
      throw core::InputError("weather series: " + indexed(name, k) + " = " + format_celsius(values[k]) +
                               " is outside the plausible range -90 to 60 degC");
}

/// Fritsch-Butland slopes of a shape-preserving cubic Hermite interpolant (as in PCHIP).
std::vector<double> monotone_slopes(const std::vector<double>& t, const std::vector<double>& y) {
  const std::size_t n = t.size();
  std::vector<double> d(n, 0.0);
  if (n < 2) return d;
  std::vector<double> h(n - 1), delta(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    h[k] = t[k + 1] - t[k];
    delta[k] = (y[k + 1] - y[k]) / h[k];
  }
  if (n == 2) {
    d[0] = d[1] = delta[0];
    return d;
  }
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (delta[k - 1] * delta[k] <= 0.0) continue;  // local extremum or flat: zero slope
    const double w1 = 2.0 * h[k] + h[k - 1], w2 = h[k] + 2.0 * h[k - 1];
    d[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k]);
  }
  // Three-point one-sided end slopes, limited so that the end intervals stay monotone.
  const auto end_slope = [](double h0, double h1, double d0, double d1) {
    double s = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    if (s * d0 <= 0.0) s = 0.0;
    else if (d0 * d1 <= 0.0 && std::abs(s) > 3.0 * std::abs(d0)) s = 3.0 * d0;
    return s;
  };
  d[0] = end_slope(h[0], h[1], delta[0], delta[1]);
  d[n - 1] = end_slope(h[n - 2], h[n - 3], delta[n - 2], delta[n - 3]);
  return d;
}

double hermite(double s, double h, double y0, double y1, double d0, double d1) {
  const double s2 = s * s, s3 = s2 * s;
  return (2.0 * s3 - 3.0 * s2 + 1.0) * y0 + (s3 - 2.0 * s2 + s) * h * d0 + (-2.0 * s3 + 3.0 * s2) * y1 +
         (s3 - s2) * h * d1;
}

}  // namespace

WeatherSeries::WeatherSeries(std::vector<double> time, std::vector<double> dry_bulb, std::vector<double> wet_bulb,
                             WeatherInterpolation interpolation)
    : time_(std::move(time)),
      dry_bulb_(std::move(dry_bulb)),
      wet_bulb_(std::move(wet_bulb)),
      interpolation_(interpolation) {
  if (time_.size() != dry_bulb_.size() || time_.size() != wet_bulb_.size())
    throw core::InputError("weather series: time has " + std::to_string(time_.size()) + " values, dry_bulb " +
                             std::to_string(dry_bulb_.size()) + ", wet_bulb " + std::to_string(wet_bulb_.size()) +
                             " (they must have the same length)");
  if (time_.empty()) throw core::InputError("weather series: no samples");
  check_finite(time_, "time", "s");
  check_finite(dry_bulb_, "dry_bulb", "K");
  check_finite(wet_bulb_, "wet_bulb", "K");
  for (std::size_t k = 1; k < time_.size(); ++k)
    if (!(time_[k] > time_[k - 1]))
      throw core::InputError("weather series: " + indexed("time", k) + " = " + format_decimals(time_[k]) +
                               " s is not after " + indexed("time", k - 1) + " = " + format_decimals(time_[k - 1]) +
                               " s (time must increase)");
  check_plausible(dry_bulb_, "dry_bulb");
  check_plausible(wet_bulb_, "wet_bulb");
  for (std::size_t k = 0; k < time_.size(); ++k) {
    if (wet_bulb_[k] > dry_bulb_[k] + wet_bulb_tolerance)
      throw core::InputError("weather series: " + indexed("wet_bulb", k) + " = " + format_celsius(wet_bulb_[k]) +
                               " is above " + indexed("dry_bulb", k) + " = " + format_celsius(dry_bulb_[k]) +
                               " (by more than " + format_decimals(wet_bulb_tolerance) + " K)");
    wet_bulb_[k] = std::min(wet_bulb_[k], dry_bulb_[k]);
  }
  if (interpolation_ == WeatherInterpolation::monotone_cubic) {
    dry_bulb_slope_ = monotone_slopes(time_, dry_bulb_);
    wet_bulb_slope_ = monotone_slopes(time_, wet_bulb_);
  }
}

WeatherSample WeatherSeries::at(double time) const {
  DCTWIN_DEMAND(!std::isnan(time), "weather asked at a time that is not a number");
  if (time <= time_.front()) return {dry_bulb_.front(), wet_bulb_.front()};
  if (time >= time_.back()) return {dry_bulb_.back(), wet_bulb_.back()};
  const auto upper = std::upper_bound(time_.begin(), time_.end(), time);
  const auto k = static_cast<std::size_t>(upper - time_.begin()) - 1;
  const double h = time_[k + 1] - time_[k], s = (time - time_[k]) / h;
  if (interpolation_ == WeatherInterpolation::linear)
    return {dry_bulb_[k] + s * (dry_bulb_[k + 1] - dry_bulb_[k]), wet_bulb_[k] + s * (wet_bulb_[k + 1] - wet_bulb_[k])};
  const double db = hermite(s, h, dry_bulb_[k], dry_bulb_[k + 1], dry_bulb_slope_[k], dry_bulb_slope_[k + 1]);
  const double wb = hermite(s, h, wet_bulb_[k], wet_bulb_[k + 1], wet_bulb_slope_[k], wet_bulb_slope_[k + 1]);
  return {db, std::min(wb, db)};
}

double WeatherSeries::next_sample_time(double time) const {
  const auto upper = std::upper_bound(time_.begin(), time_.end(), time);
  return upper == time_.end() ? std::numeric_limits<double>::infinity() : *upper;
}

double daily_range_fraction(double time_of_day) {
  DCTWIN_DEMAND(std::isfinite(time_of_day), "time of day must be finite");
  double seconds = std::fmod(time_of_day, seconds_per_day);
  if (seconds < 0.0) seconds += seconds_per_day;
  const double hours = seconds / seconds_per_hour;  // [0, 24)
  const auto hour = static_cast<std::size_t>(std::floor(hours));
  const double w = hours - static_cast<double>(hour);
  // Clock time h:00 carries the fraction of ASHRAE hour h (h = 1..24); 0:00 is hour 24.
  const auto fraction_at = [](std::size_t clock_hour) {
    return ashrae_daily_range_fractions[(clock_hour + 23) % 24];
  };
  return (1.0 - w) * fraction_at(hour) + w * fraction_at(hour + 1);
}

core::ParameterTable DesignDayParameters::table() {
  using namespace core;
  ParameterTable t;
  const std::string site =
      "ASHRAE 2013 design conditions for Albuquerque Intl (WMO 723650), near Meta's Los Lunas NM data center: "
      "0.4 % cooling DB 35.1 degC, MCWB 15.6 degC, DB range 13.2 K, 83328 Pa (EnergyPlus design-day file "
      "USA_NM_Albuquerque.Intl.AP.723650_TMY3.ddy, NREL/openstudio-standards data/weather)";
  auto p = real_parameter("design_dry_bulb", "K", "Design (daily maximum) dry bulb", 308.25, site);
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("daily_range", "K", "Mean coincident daily dry-bulb range", 13.2, site);
  t.push_back(at_least(p, 0.0));
  p = real_parameter("coincident_wet_bulb", "K", "Mean coincident wet bulb at the design dry bulb", 288.75, site);
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("wet_bulb_range", "K", "Mean coincident wet-bulb daily range (daily_range method)", 0.0,
                     "ASHRAE Handbook-Fundamentals ch. 14 tables (MCWBR); not in the .ddy file of the default site");
  t.push_back(at_least(p, 0.0));
  t.push_back(choice_parameter("wet_bulb_method", {"daily_range", "constant_humidity_ratio"},
                               "How the wet bulb follows the day: ASHRAE wet-bulb range, or constant humidity ratio",
                               "constant_humidity_ratio"));
  p = real_parameter("pressure", "Pa", "Station pressure (constant_humidity_ratio method)", 83328.0, site);
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("start_time_of_day", "s", "Clock time (local standard time) at t = 0, the start hour", 0.0, "");
  p.display_unit = "h";
  at_least(p, 0.0);
  t.push_back(less_than(p, seconds_per_day));
  // Bounded: the series holds an hourly point per day (2.4e9 points, 58 GB, for 1e8 days), and
  // more days only repeat the same one.
  p = integer_parameter("days", "Number of design days in the series (at most ten years)", 1,
                        "Ten years of hourly points is 87,840 values; a longer study repeats the same day");
  at_least(p, 1.0);
  t.push_back(at_most(p, 3660.0));
  return t;
}

DesignDayParameters DesignDayParameters::from(const core::ParameterTree& s) {
  DesignDayParameters p;
  p.design_dry_bulb = s.number("design_dry_bulb");
  p.daily_range = s.number("daily_range");
  p.coincident_wet_bulb = s.number("coincident_wet_bulb");
  p.wet_bulb_range = s.number("wet_bulb_range");
  p.wet_bulb_method = s.text("wet_bulb_method");
  p.pressure = s.number("pressure");
  p.start_time_of_day = s.number("start_time_of_day");
  p.days = static_cast<int>(s.integer("days"));
  return p;
}

WeatherSeries design_day_series(const DesignDayParameters& p, WeatherInterpolation interpolation) {
  const bool daily_range_method = p.wet_bulb_method == "daily_range";
  if (!daily_range_method && p.wet_bulb_method != "constant_humidity_ratio")
    throw core::InputError("design day: wet_bulb_method '" + p.wet_bulb_method +
                             "' is not 'daily_range' or 'constant_humidity_ratio'");
  if (!(p.daily_range >= 0.0))
    throw core::InputError("design day: daily_range " + format_decimals(p.daily_range) + " K must be >= 0");
  if (!(p.wet_bulb_range >= 0.0))
    throw core::InputError("design day: wet_bulb_range " + format_decimals(p.wet_bulb_range) + " K must be >= 0");
  if (p.coincident_wet_bulb > p.design_dry_bulb)
    throw core::InputError("design day: coincident_wet_bulb " + format_celsius(p.coincident_wet_bulb) +
                             " is above design_dry_bulb " + format_celsius(p.design_dry_bulb));
  if (p.days < 1) throw core::InputError("design day: days " + std::to_string(p.days) + " must be >= 1");
  if (!(p.start_time_of_day >= 0.0 && p.start_time_of_day < seconds_per_day))
    throw core::InputError("design day: start_time_of_day " + format_decimals(p.start_time_of_day) +
                             " s is outside 0 to 86400 s");

  const double humidity_ratio =
      daily_range_method ? 0.0
                         : thermal::psychrometrics::humidity_ratio_from_wet_bulb(p.design_dry_bulb,
                                                                                 p.coincident_wet_bulb, p.pressure);
  const double end = static_cast<double>(p.days) * seconds_per_day;
  std::vector<double> times{0.0};
  // First full clock hour after the start, then every hour, then the end.
  double next = std::ceil(p.start_time_of_day / seconds_per_hour) * seconds_per_hour - p.start_time_of_day;
  if (next <= 0.0) next += seconds_per_hour;
  for (; next < end; next += seconds_per_hour) times.push_back(next);
  times.push_back(end);

  std::vector<double> dry(times.size()), wet(times.size());
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double f = daily_range_fraction(p.start_time_of_day + times[k]);
    dry[k] = p.design_dry_bulb - f * p.daily_range;
    if (daily_range_method) {
      wet[k] = std::min(p.coincident_wet_bulb - f * p.wet_bulb_range, dry[k]);
    } else if (humidity_ratio >= thermal::psychrometrics::saturation_humidity_ratio(dry[k], p.pressure)) {
      wet[k] = dry[k];  // saturated: the air cannot hold the design day's moisture at this temperature
    } else {
      wet[k] = thermal::psychrometrics::wet_bulb_from_humidity_ratio(dry[k], humidity_ratio, p.pressure);
    }
  }
  return WeatherSeries(std::move(times), std::move(dry), std::move(wet), interpolation);
}

}  // namespace dctwin::models::facility
