// EnergyPlus weather files (io): times of hourly and sub-hourly records, the wet bulb from dew point
// or relative humidity against published psychrometric values, a pressure from the elevation, the
// exact messages for malformed files, and a facility run that starts part-way into a file.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/weather_epw.hpp"
#include "dctwin/models/thermal/air.hpp"

using namespace dctwin;
using models::facility::WeatherSeries;

namespace {

constexpr double k0 = 273.15;

std::filesystem::path scratch(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(DCTWIN_BINARY_DIR) / "tests" / "air_weather_epw";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// The eight header lines of an EPW file for a station at `elevation` metres.
std::string header(double elevation = 5.0) {
  std::ostringstream h;
  h << "LOCATION,Test Station,ST,USA,TMY3,999999,35.00,-106.00,-7.0," << elevation << "\n"
    << "DESIGN CONDITIONS,0\nTYPICAL/EXTREME PERIODS,0\nGROUND TEMPERATURES,0\n"
    << "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0\nCOMMENTS 1,made for a test\nCOMMENTS 2,\n"
    << "DATA PERIODS,1,1,Data,Sunday, 1/ 1,12/31\n";
  return h.str();
}

/// One record: the ten fields read, then the rest of a TMY3 row (left as TMY3 writes them).
std::string row(int month, int day, int hour, int minute, const std::string& dry, const std::string& dew,
                const std::string& humidity, const std::string& pressure) {
  std::ostringstream r;
  r << "1999," << month << "," << day << "," << hour << "," << minute
    << ",?9?9?9?9E0?9?9?9?9?9?9?9?9?9?9?9?9?9?9?9*9*9?9?9?9," << dry << "," << dew << "," << humidity << ","
    << pressure << ",0,0,315,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,999999999,0,0.0,0,0,0,0.0,0.0\n";
  return r.str();
}

std::string parse_error(const std::string& text) {
  try {
    (void)io::parse_weather_epw(text, "w.epw");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("EPW weather: record times, hourly and sub-hourly", "[io][weather]") {
  const WeatherSeries w = io::parse_weather_epw(header() + row(1, 1, 1, 60, "10.0", "0.0", "50", "101325") +
                                                    row(1, 1, 2, 0, "11.0", "0.0", "50", "101325") +
                                                    row(7, 20, 24, 60, "25.0", "10.0", "40", "101325"),
                                                "w.epw");
  REQUIRE(w.size() == 3);
  CHECK(w.times()[0] == 3600.0);  // hour 1 ends at 01:00 on 1 January
  CHECK(w.times()[1] == 7200.0);
  CHECK(w.times()[2] == 201.0 * 86400.0);  // 20 July is day 201: its hour 24 ends at 21 July 00:00
  CHECK(w.dry_bulbs()[2] == Approx(k0 + 25.0).epsilon(1e-15));

  // Sub-hourly: minute 30 of hour 1 is 00:30.
  const WeatherSeries s = io::parse_weather_epw(
      header() + row(1, 1, 1, 30, "10", "0", "50", "101325") + row(1, 1, 1, 60, "10", "0", "50", "101325"), "w.epw");
  CHECK(s.times()[0] == 1800.0);
  CHECK(s.times()[1] == 3600.0);

  // A file that holds 29 February counts it: 1 March is then day 61.
  const WeatherSeries leap = io::parse_weather_epw(
      header() + row(2, 29, 24, 60, "5", "0", "50", "101325") + row(3, 1, 24, 60, "5", "0", "50", "101325"), "w.epw");
  CHECK(leap.times()[1] == 61.0 * 86400.0);
}

TEST_CASE("EPW weather: wet bulb from dew point or relative humidity", "[io][weather]") {
  // 30 degC dry bulb, 50 % relative humidity at 101.325 kPa: dew point 18.44 degC, wet bulb 22.0 degC
  // (ASHRAE Handbook-Fundamentals 2017 ch. 1, the psychrometric chart; its example 1 gives the
  // wet bulb of such air to the chart's 0.1 K reading).
  const WeatherSeries by_dew =
      io::parse_weather_epw(header() + row(7, 1, 12, 60, "30.0", "18.44", "999", "101325"), "w.epw");
  const WeatherSeries by_humidity =
      io::parse_weather_epw(header() + row(7, 1, 12, 60, "30.0", "99.9", "50", "101325"), "w.epw");
  CHECK(by_dew.wet_bulbs()[0] - k0 == Approx(22.0).margin(0.1));
  CHECK(by_humidity.wet_bulbs()[0] - k0 == Approx(22.0).margin(0.1));
  CHECK(by_dew.wet_bulbs()[0] == Approx(by_humidity.wet_bulbs()[0]).margin(0.02));
  // Saturated air: the wet bulb is the dry bulb; a dew point above it (rounding) is saturation.
  const WeatherSeries saturated =
      io::parse_weather_epw(header() + row(1, 1, 1, 60, "12.0", "12.2", "100", "101325"), "w.epw");
  CHECK(saturated.wet_bulbs()[0] == Approx(k0 + 12.0).margin(1e-6));

  // A missing pressure (999999) is the standard atmosphere at the station's elevation
  // (ASHRAE 2017 ch. 1 eq. 3): at 1619 m, 83,328 Pa, the station pressure ASHRAE's design
  // conditions give for Albuquerque (1619 m; data/weather), which lowers the wet bulb of the same air.
  const WeatherSeries high = io::parse_weather_epw(header(1619.0) + row(7, 1, 12, 60, "30.0", "10.0", "999", "999999"),
                                                   "w.epw");
  const double p = 101325.0 * std::pow(1.0 - 2.25577e-5 * 1619.0, 5.2559);
  CHECK(p == Approx(83328.0).margin(1.0));
  namespace psy = models::thermal::psychrometrics;
  const double w_expected = psy::humidity_ratio_from_vapor_pressure(psy::saturation_pressure(k0 + 10.0), p);
  CHECK(high.wet_bulbs()[0] == Approx(psy::wet_bulb_from_humidity_ratio(k0 + 30.0, w_expected, p)).epsilon(1e-12));
}

TEST_CASE("EPW weather: malformed files, exact messages", "[io][weather]") {
  CHECK(parse_error("time,dry_bulb,wet_bulb\n0,300,290\n") ==
        "w.epw: not an EPW file (the first line must start with LOCATION)");
  CHECK(parse_error(header()) == "w.epw: no data rows");
  CHECK(parse_error(header() + "1999,1,1,1,60,x,10\n") == "w.epw:9: expected at least 10 fields, found 7");
  CHECK(parse_error(header() + row(13, 1, 1, 60, "10", "0", "50", "101325")) ==
        "w.epw:9: month: '13' is not a whole number from 1 to 12");
  CHECK(parse_error(header() + row(2, 30, 1, 60, "10", "0", "50", "101325")) ==
        "w.epw:9: day: '30' is not a day of month 2");
  CHECK(parse_error(header() + row(1, 1, 1, 60, "abc", "0", "50", "101325")) ==
        "w.epw:9: dry_bulb: 'abc' is not a number");
  CHECK(parse_error(header() + row(1, 1, 1, 60, "99.9", "0", "50", "101325")) ==
        "w.epw:9: dry bulb is missing (99.9)");
  CHECK(parse_error(header() + row(1, 1, 1, 60, "10", "99.9", "999", "101325")) ==
        "w.epw:9: dew point and relative humidity are both missing");
  CHECK(parse_error(header() + row(2, 1, 1, 60, "10", "0", "50", "101325") +
                    row(2, 1, 1, 0, "10", "0", "50", "101325")) ==
        "w.epw:10: time 02-01 01:00 is not after the previous record's 02-01 01:00 (line 9)");
}

TEST_CASE("EPW weather: a facility run starts start_offset into the file", "[io][weather]") {
  // Three July days of a made-up file; the run starts at 20 July 12:00 (4812 h after 1 January).
  std::string epw = header();
  for (int day = 19; day <= 21; ++day)
    for (int hour = 1; hour <= 24; ++hour)
      epw += row(7, day, hour, 60, std::to_string(20 + day - 19 + 0.25 * hour), "5.0", "999", "101325");
  scratch("july.epw", epw);

  std::ifstream in(std::filesystem::path(DCTWIN_SOURCE_DIR) / "scenarios" / "pod-l2a.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string design = "    source: design_day\n";
  REQUIRE(yaml.find(design) != std::string::npos);
  yaml.replace(yaml.find(design), design.size(), "    source: file\n    file: july.epw\n    start_offset: 4812 h\n");
  const auto scenario = scratch("pod-july.yaml", yaml);

  io::ScenarioOverrides overrides;
  overrides.duration = 10.0;
  overrides.output_interval = 5.0;
  const auto report_path = scratch("pod-july.h5", "");
  const auto result = io::run_scenario(io::load_scenario_file(scenario, overrides), report_path);
  REQUIRE(result.status.finished());
  const io::ReportReader report(report_path);
  const auto dry = report.read("/weather/dry_bulb_temperature");
  // 20 July 12:00 is the record of day 20, hour 12: 20 + 1 + 3 = 24 degC.
  CHECK(dry.at(0) == Approx(k0 + 24.0).epsilon(1e-12));

  // An offset past the file's end is refused with its place.
  yaml.replace(yaml.find("start_offset: 4812 h"), 20, "start_offset: 9000 h");
  const auto late = scratch("pod-late.yaml", yaml);
  try {
    (void)io::run_scenario(io::load_scenario_file(late, overrides), scratch("pod-late.h5", ""));
    FAIL("no error");
  } catch (const core::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("facility.weather.start_offset = 9000 h is not before the "
                                                      "weather file's last record at 4848 h"));
  }
}
