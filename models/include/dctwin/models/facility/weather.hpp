// Outdoor weather for the heat-rejection plant: dry bulb and wet bulb against time.
//
// WeatherSeries holds samples (t_k [s], T_db,k [K], T_wb,k [K]) and interpolates them:
//   linear          piecewise linear between samples (the default; keeps T_wb <= T_db exactly, since
//                   both are convex combinations of valid samples)
//   monotone_cubic  C1 piecewise cubic Hermite with Fritsch-Butland slopes (Fritsch & Carlson, SIAM J.
//                   Numer. Anal. 17 (1980) 238; weighted harmonic mean of the neighbouring secants,
//                   zero at local extrema, shape-preserving three-point end slopes): no overshoot
//                   between samples; T_wb is clipped at T_db after interpolation
// Before the first and after the last sample the end values are held. Samples are the kinks of the
// interpolant: next_sample_time(t) tells an integrator where to stop.
//
// Validation (core::InputError; the messages exactly as below; temperatures in degC, time in s,
// numbers with up to 3 decimals):
//   "weather series: no samples"
//   "weather series: time has 3 values, dry_bulb 3, wet_bulb 2 (they must have the same length)"
//   "weather series: time[2] = nan s is not a finite number"     (also dry_bulb[k], wet_bulb[k] in K)
//   "weather series: time[3] = 3600 s is not after time[2] = 3600 s (time must increase)"
//   "weather series: dry_bulb[0] = -253.15 degC is outside the plausible range -90 to 60 degC"
//   "weather series: wet_bulb[4] = 31 degC is above dry_bulb[4] = 30 degC (by more than 0.05 K)"
// A wet bulb above the dry bulb by at most 0.05 K (rounding in published data) is stored as the dry
// bulb.
//
// Synthetic design days: the ASHRAE Handbook-Fundamentals (2009, 2013, 2017, 2021) ch. 14 procedure,
// "Generating Design-Day Data", Table 6 "Fraction of Daily Temperature Range": the temperature at
// hour h of the design day is
//
//   T_db(h) = T_db,design - f(h) DR             DR: mean coincident daily (dry-bulb) range
//   T_wb(h) = T_wb,coincident - f(h) WBR        WBR: mean coincident wet-bulb daily range
//
// with the 24 published fractions f (hour 1 .. 24, local standard time; f = 0 at 14:00 and 15:00,
// f = 1 at 05:00):
//   0.88 0.92 0.95 0.98 1.00 0.98 0.91 0.74 0.55 0.38 0.23 0.13
//   0.05 0.00 0.00 0.06 0.14 0.24 0.39 0.50 0.59 0.68 0.75 0.82
// Fraction f(h) applies at clock time h:00 (24:00 = 0:00 of the next day), linear in between. Where
// only the wet bulb coincident with the design dry bulb is known (EnergyPlus .ddy design days of type
// "Wetbulb" carry no wet-bulb range), wet_bulb_method = constant_humidity_ratio keeps the humidity
// ratio of (T_db,design, T_wb,coincident) at the station pressure all day and computes T_wb(h) from
// T_db(h) (an assumption: the moisture content of the air changes little over a clear design day);
// air that would be supersaturated is saturated (T_wb = T_db).
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::facility {

enum class WeatherInterpolation {
  linear,          ///< piecewise linear
  monotone_cubic,  ///< C1, shape-preserving (Fritsch-Butland slopes)
};

/// Outdoor air at one instant.
struct WeatherSample {
  double dry_bulb = 0.0;  ///< [K]
  double wet_bulb = 0.0;  ///< [K]
};

class WeatherSeries {
 public:
  /// Wet bulbs up to this far above the dry bulb are accepted (and clipped) [K].
  static constexpr double wet_bulb_tolerance = 0.05;
  /// Plausible outdoor temperatures [K]: -90 to 60 degC (the world records are -89.2 and 56.7 degC).
  static constexpr double min_plausible_temperature = 183.15;
  static constexpr double max_plausible_temperature = 333.15;

  /// Validates the samples (see the header comment) and prepares the interpolant.
  WeatherSeries(std::vector<double> time, std::vector<double> dry_bulb, std::vector<double> wet_bulb,
                WeatherInterpolation interpolation = WeatherInterpolation::linear);

  /// Dry and wet bulb at time t [s] (end values held outside the samples).
  [[nodiscard]] WeatherSample at(double time) const;
  [[nodiscard]] double dry_bulb_at(double time) const { return at(time).dry_bulb; }
  [[nodiscard]] double wet_bulb_at(double time) const { return at(time).wet_bulb; }
  /// First sample time strictly after t, or +infinity after the last sample.
  [[nodiscard]] double next_sample_time(double time) const;

  [[nodiscard]] std::size_t size() const { return time_.size(); }
  [[nodiscard]] double start_time() const { return time_.front(); }
  [[nodiscard]] double end_time() const { return time_.back(); }
  [[nodiscard]] const std::vector<double>& times() const { return time_; }
  [[nodiscard]] const std::vector<double>& dry_bulbs() const { return dry_bulb_; }
  [[nodiscard]] const std::vector<double>& wet_bulbs() const { return wet_bulb_; }
  [[nodiscard]] WeatherInterpolation interpolation() const { return interpolation_; }

 private:
  std::vector<double> time_, dry_bulb_, wet_bulb_;
  std::vector<double> dry_bulb_slope_, wet_bulb_slope_;  ///< Hermite slopes [K/s] (cubic only)
  WeatherInterpolation interpolation_;
};

/// ASHRAE Handbook-Fundamentals ch. 14 Table 6: fraction of the daily range below the daily maximum
/// at hours 1 .. 24 (index 0 .. 23).
inline constexpr std::array<double, 24> ashrae_daily_range_fractions = {
    0.88, 0.92, 0.95, 0.98, 1.00, 0.98, 0.91, 0.74, 0.55, 0.38, 0.23, 0.13,
    0.05, 0.00, 0.00, 0.06, 0.14, 0.24, 0.39, 0.50, 0.59, 0.68, 0.75, 0.82};

/// f at a clock time of day [s since midnight] (any real number: taken modulo one day), linear
/// between the hourly values.
[[nodiscard]] double daily_range_fraction(double time_of_day);

struct DesignDayParameters {
  double design_dry_bulb = 308.25;       ///< T_db,design [K] (35.1 degC)
  double daily_range = 13.2;             ///< DR [K]
  double coincident_wet_bulb = 288.75;   ///< T_wb,coincident [K] (15.6 degC)
  double wet_bulb_range = 0.0;           ///< WBR [K], daily_range method
  std::string wet_bulb_method = "constant_humidity_ratio";  ///< "daily_range" or "constant_humidity_ratio"
  double pressure = 83328.0;             ///< station pressure [Pa], constant_humidity_ratio method
  double start_time_of_day = 0.0;        ///< clock time at t = 0 [s since midnight] ("start hour")
  int days = 1;                          ///< length of the series [days]

  static core::ParameterTable table();
  static DesignDayParameters from(const core::ParameterTree& section);
};

/// Samples at t = 0, at every full clock hour after it and at t = days x 86400 s, by the ASHRAE
/// procedure above. Throws core::InputError for a negative range, a coincident wet bulb above the
/// design dry bulb, days < 1 or an unknown method.
[[nodiscard]] WeatherSeries design_day_series(const DesignDayParameters& p,
                                              WeatherInterpolation interpolation = WeatherInterpolation::linear);

}  // namespace dctwin::models::facility
