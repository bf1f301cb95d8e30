// Weather series: interpolation, validation messages; the ASHRAE design-day profile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/facility/weather.hpp"
#include "dctwin/models/thermal/air.hpp"

using namespace dctwin::models::facility;
namespace psy = dctwin::models::thermal::psychrometrics;
using dctwin::core::InputError;

namespace {

constexpr double k0 = 273.15;

template <typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Weather series: piecewise-linear interpolation, held ends, sample times", "[models][weather]") {
  const WeatherSeries w({0.0, 3600.0, 10800.0}, {k0 + 20.0, k0 + 24.0, k0 + 22.0}, {k0 + 15.0, k0 + 16.0, k0 + 17.0});
  CHECK(w.at(0.0).dry_bulb == k0 + 20.0);
  CHECK(w.at(1800.0).dry_bulb == Approx(k0 + 22.0).epsilon(1e-15));
  CHECK(w.at(1800.0).wet_bulb == Approx(k0 + 15.5).epsilon(1e-15));
  CHECK(w.at(7200.0).dry_bulb == Approx(k0 + 23.0).epsilon(1e-15));
  CHECK(w.at(3600.0).wet_bulb == k0 + 16.0);
  CHECK(w.at(-100.0).dry_bulb == k0 + 20.0);      // before the first sample: held
  CHECK(w.at(1e6).wet_bulb == k0 + 17.0);         // after the last sample: held
  CHECK(w.next_sample_time(0.0) == 3600.0);
  CHECK(w.next_sample_time(3600.0) == 10800.0);
  CHECK(w.next_sample_time(10800.0) == std::numeric_limits<double>::infinity());
  CHECK(w.start_time() == 0.0);
  CHECK(w.end_time() == 10800.0);
  // One sample: constant weather.
  const WeatherSeries one({0.0}, {k0 + 30.0}, {k0 + 20.0});
  CHECK(one.at(5000.0).dry_bulb == k0 + 30.0);
  // A wet bulb a hair above the dry bulb (rounding) is clipped to it.
  const WeatherSeries rounded({0.0, 60.0}, {k0 + 20.0, k0 + 20.0}, {k0 + 20.03, k0 + 19.0});
  CHECK(rounded.at(0.0).wet_bulb == k0 + 20.0);
}

TEST_CASE("Weather series: monotone cubic passes the samples without overshoot", "[models][weather]") {
  const std::vector<double> t{0.0, 3600.0, 7200.0, 9000.0, 14400.0, 18000.0};
  const std::vector<double> db{k0 + 20.0, k0 + 21.0, k0 + 30.0, k0 + 30.0, k0 + 31.0, k0 + 25.0};
  const std::vector<double> wb{k0 + 15.0, k0 + 15.5, k0 + 18.0, k0 + 18.0, k0 + 18.2, k0 + 17.0};
  const WeatherSeries w(t, db, wb, WeatherInterpolation::monotone_cubic);
  for (std::size_t k = 0; k < t.size(); ++k) CHECK(w.at(t[k]).dry_bulb == Approx(db[k]).epsilon(1e-14));
  // Between samples the value stays within the neighbouring samples (no overshoot), and is
  // monotone where the data are.
  for (std::size_t k = 0; k + 1 < t.size(); ++k) {
    const double lo = std::min(db[k], db[k + 1]), hi = std::max(db[k], db[k + 1]);
    double previous = db[k];
    for (int i = 1; i <= 100; ++i) {
      const double value = w.at(t[k] + (t[k + 1] - t[k]) * i / 100.0).dry_bulb;
      CHECK(value >= lo - 1e-9);
      CHECK(value <= hi + 1e-9);
      if (db[k + 1] >= db[k]) CHECK(value >= previous - 1e-9);
      else CHECK(value <= previous + 1e-9);
      previous = value;
    }
  }
  // Smooth: unlike the linear interpolant, the slope is continuous at an interior sample.
  const double h = 1e-3;
  const double left = (w.at(3600.0).dry_bulb - w.at(3600.0 - h).dry_bulb) / h;
  const double right = (w.at(3600.0 + h).dry_bulb - w.at(3600.0).dry_bulb) / h;
  CHECK(left == Approx(right).epsilon(1e-4));
}

TEST_CASE("Weather series: invalid samples are reported exactly", "[models][weather]") {
  const auto series = [](std::vector<double> t, std::vector<double> db, std::vector<double> wb) {
    return error_message([&] { WeatherSeries w(t, db, wb); });
  };
  CHECK(series({}, {}, {}) == "weather series: no samples");
  CHECK(series({0, 1, 2}, {300, 300, 300}, {290, 290}) ==
        "weather series: time has 3 values, dry_bulb 3, wet_bulb 2 (they must have the same length)");
  CHECK(series({0, std::nan(""), 2}, {300, 300, 300}, {290, 290, 290}) ==
        "weather series: time[1] = nan s is not a finite number");
  CHECK(series({0, 1, 2}, {300, std::numeric_limits<double>::infinity(), 300}, {290, 290, 290}) ==
        "weather series: dry_bulb[1] = inf K is not a finite number");
  CHECK(series({0, 3600, 3600, 7200}, {300, 300, 300, 300}, {290, 290, 290, 290}) ==
        "weather series: time[2] = 3600 s is not after time[1] = 3600 s (time must increase)");
  CHECK(series({0}, {20.0}, {10.0}) ==
        "weather series: dry_bulb[0] = -253.15 degC is outside the plausible range -90 to 60 degC");
  CHECK(series({0, 1, 2, 3, 4}, {300, 300, 300, 300, k0 + 30.0}, {290, 290, 290, 290, k0 + 31.0}) ==
        "weather series: wet_bulb[4] = 31 degC is above dry_bulb[4] = 30 degC (by more than 0.05 K)");
}

TEST_CASE("ASHRAE daily-range fractions: max at fraction 0 (14-15 h), min at 5 h", "[models][weather]") {
  CHECK(daily_range_fraction(14 * 3600.0) == 0.0);
  CHECK(daily_range_fraction(15 * 3600.0) == 0.0);
  CHECK(daily_range_fraction(5 * 3600.0) == 1.0);
  CHECK(daily_range_fraction(0.0) == 0.82);                       // midnight is hour 24
  CHECK(daily_range_fraction(3600.0) == 0.88);                    // 01:00 is hour 1
  CHECK(daily_range_fraction(1.5 * 3600.0) == Approx(0.90));      // linear in between
  CHECK(daily_range_fraction(86400.0 + 3600.0) == 0.88);          // periodic
  CHECK(daily_range_fraction(-3600.0) == 0.75);                   // 23:00 of the day before
  // All fractions between 0 and 1.
  for (int s = 0; s < 86400; s += 600) {
    CHECK(daily_range_fraction(s) >= 0.0);
    CHECK(daily_range_fraction(s) <= 1.0);
  }
}

TEST_CASE("Design day (ASHRAE ch. 14): maximum at the design dry bulb, minimum = maximum - range", "[models][weather]") {
  DesignDayParameters p;
  p.design_dry_bulb = k0 + 33.0;
  p.daily_range = 11.0;
  p.coincident_wet_bulb = k0 + 23.0;
  p.wet_bulb_range = 4.0;
  p.wet_bulb_method = "daily_range";
  p.days = 2;
  const WeatherSeries w = design_day_series(p);
  REQUIRE(w.size() == 49);  // 00:00 .. 48:00 hourly
  double max_db = -1.0, min_db = 1e9;
  for (std::size_t k = 0; k < w.size(); ++k) {
    max_db = std::max(max_db, w.dry_bulbs()[k]);
    min_db = std::min(min_db, w.dry_bulbs()[k]);
  }
  CHECK(max_db == Approx(k0 + 33.0).epsilon(1e-15));
  CHECK(min_db == Approx(k0 + 22.0).epsilon(1e-15));
  CHECK(w.at(14 * 3600.0).dry_bulb == Approx(k0 + 33.0).epsilon(1e-15));
  CHECK(w.at(15 * 3600.0).dry_bulb == Approx(k0 + 33.0).epsilon(1e-15));
  CHECK(w.at(5 * 3600.0).dry_bulb == Approx(k0 + 22.0).epsilon(1e-15));
  CHECK(w.at(14 * 3600.0).wet_bulb == Approx(k0 + 23.0).epsilon(1e-15));
  CHECK(w.at(5 * 3600.0).wet_bulb == Approx(k0 + 19.0).epsilon(1e-15));
  // Every hour follows T = T_design - f DR; the second day repeats the first.
  for (int h = 0; h <= 24; ++h) {
    const double f = ashrae_daily_range_fractions[static_cast<std::size_t>((h + 23) % 24)];
    CHECK(w.at(h * 3600.0).dry_bulb == Approx(k0 + 33.0 - f * 11.0).epsilon(1e-15));
    CHECK(w.at(h * 3600.0 + 86400.0).dry_bulb == Approx(w.at(h * 3600.0).dry_bulb).epsilon(1e-15));
  }
  // The start hour shifts the clock: starting at 14:00, t = 0 is the hottest moment.
  p.start_time_of_day = 14 * 3600.0;
  p.days = 1;
  const WeatherSeries afternoon = design_day_series(p);
  CHECK(afternoon.at(0.0).dry_bulb == Approx(k0 + 33.0));
  CHECK(afternoon.at(15 * 3600.0).dry_bulb == Approx(k0 + 22.0));  // 05:00 next morning
  // A start between full hours gets a sample at t = 0 and then one on every full hour.
  p.start_time_of_day = 1.5 * 3600.0;
  const WeatherSeries offset = design_day_series(p);
  CHECK(offset.times()[1] == 1800.0);
  CHECK(offset.at(0.0).dry_bulb == Approx(k0 + 33.0 - 0.90 * 11.0));
}

TEST_CASE("Design day with constant humidity ratio (design days given as one coincident wet bulb)", "[models][weather]") {
  const DesignDayParameters p;  // Albuquerque 0.4 %: 35.1 / 15.6 degC, 13.2 K, 83328 Pa
  const WeatherSeries w = design_day_series(p);
  const double w_design = psy::humidity_ratio_from_wet_bulb(p.design_dry_bulb, p.coincident_wet_bulb, p.pressure);
  CHECK(w_design == Approx(0.005477).epsilon(1e-3));
  for (std::size_t k = 0; k < w.size(); ++k)
    CHECK(psy::humidity_ratio_from_wet_bulb(w.dry_bulbs()[k], w.wet_bulbs()[k], p.pressure) ==
          Approx(w_design).epsilon(1e-7));
  CHECK(w.at(14 * 3600.0).wet_bulb == Approx(p.coincident_wet_bulb).margin(1e-7));
  CHECK(w.at(5 * 3600.0).dry_bulb == Approx(k0 + 21.9).margin(1e-9));
  // Humid air that would be supersaturated at night is saturated instead.
  DesignDayParameters humid = p;
  humid.coincident_wet_bulb = humid.design_dry_bulb - 0.5;
  const WeatherSeries muggy = design_day_series(humid);
  CHECK(muggy.at(5 * 3600.0).wet_bulb == Approx(muggy.at(5 * 3600.0).dry_bulb));
}

TEST_CASE("Design-day parameters are checked", "[models][weather]") {
  DesignDayParameters p;
  p.coincident_wet_bulb = k0 + 36.0;
  CHECK(error_message([&] { (void)design_day_series(p); }) ==
        "design day: coincident_wet_bulb 36 degC is above design_dry_bulb 35.1 degC");
  p = {};
  p.days = 0;
  CHECK(error_message([&] { (void)design_day_series(p); }) == "design day: days 0 must be >= 1");
  p = {};
  p.daily_range = -1.0;
  CHECK(error_message([&] { (void)design_day_series(p); }) == "design day: daily_range -1 K must be >= 0");
  p = {};
  p.wet_bulb_method = "sine";
  CHECK(error_message([&] { (void)design_day_series(p); }) ==
        "design day: wet_bulb_method 'sine' is not 'daily_range' or 'constant_humidity_ratio'");
}
