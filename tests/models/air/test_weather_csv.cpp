// Weather CSV reader (io): the shipped design day, units in the header, comments, ISO-8601 times,
// and malformed files with their exact messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/weather_csv.hpp"
#include "dctwin/models/facility/weather.hpp"

using namespace dctwin;
using models::facility::WeatherSeries;

namespace {

constexpr double k0 = 273.15;

const std::filesystem::path shipped =
    std::filesystem::path(DCTWIN_SOURCE_DIR) / "data" / "weather" / "los_lunas_nm_cooling_design_day.csv";

/// Writes `text` to a scratch file under the build tree and returns its path.
std::filesystem::path scratch(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::path(DCTWIN_BINARY_DIR) / "tests" / "air_weather_csv";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

/// The message of the InputError thrown when parsing `text` as "w.csv", or "".
std::string parse_error(const std::string& text) {
  try {
    (void)io::parse_weather_csv(text, "w.csv");
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Weather CSV: the shipped Los Lunas design day", "[io][weather]") {
  const WeatherSeries w = io::load_weather_csv(shipped);
  REQUIRE(w.size() == 25);
  CHECK(w.start_time() == 0.0);
  CHECK(w.end_time() == 86400.0);
  CHECK(w.times()[1] == 3600.0);
  CHECK(w.at(0.0).dry_bulb == Approx(k0 + 24.28).epsilon(1e-14));
  CHECK(w.at(14 * 3600.0).dry_bulb == Approx(k0 + 35.10).epsilon(1e-14));
  CHECK(w.at(14 * 3600.0).wet_bulb == Approx(k0 + 15.60).epsilon(1e-14));
  CHECK(w.at(5 * 3600.0).dry_bulb == Approx(k0 + 21.90).epsilon(1e-14));
  // The file was written by an independent Python implementation; the C++ generator with the same
  // design conditions agrees to the file's 0.01 K rounding.
  const WeatherSeries generated = models::facility::design_day_series(models::facility::DesignDayParameters{});
  REQUIRE(generated.size() == w.size());
  for (std::size_t k = 0; k < w.size(); ++k) {
    INFO("hour " << k);
    CHECK(generated.times()[k] == w.times()[k]);
    CHECK(generated.dry_bulbs()[k] == Approx(w.dry_bulbs()[k]).margin(0.005 + 1e-9));
    CHECK(generated.wet_bulbs()[k] == Approx(w.wet_bulbs()[k]).margin(0.005 + 1e-9));
  }
}

TEST_CASE("Weather CSV: units in the header, comments, blank lines, extra columns", "[io][weather]") {
  const auto path = scratch("units.csv",
                            "# a weather file\r\n"
                            "\r\n"
                            "  # indented comment\r\n"
                            "wet_bulb [degF], station, time [h], dry_bulb [K]\r\n"
                            "59, KABQ, 0, 300\r\n"
                            "# a comment between rows\r\n"
                            "68, KABQ, 0.5, 305.5\r\n"
                            "293.15 K, KABQ, 2, 30 degC\r\n");
  const WeatherSeries w = io::load_weather_csv(path);
  REQUIRE(w.size() == 3);
  CHECK(w.times()[1] == Approx(1800.0));
  CHECK(w.times()[2] == Approx(7200.0));
  CHECK(w.dry_bulbs()[0] == 300.0);
  CHECK(w.wet_bulbs()[0] == Approx(k0 + 15.0).epsilon(1e-14));  // 59 degF
  CHECK(w.wet_bulbs()[1] == Approx(k0 + 20.0).epsilon(1e-14));  // 68 degF
  CHECK(w.wet_bulbs()[2] == Approx(293.15));                    // a cell's own unit wins
  CHECK(w.dry_bulbs()[2] == Approx(k0 + 30.0));
  // No unit: seconds and kelvin.
  const WeatherSeries si = io::parse_weather_csv("time,dry_bulb,wet_bulb\n0,300,290\n60,301,290.5\n", "si.csv");
  CHECK(si.times()[1] == 60.0);
  CHECK(si.dry_bulbs()[1] == 301.0);
}

TEST_CASE("Weather CSV: ISO-8601 times become seconds after the first row", "[io][weather]") {
  const WeatherSeries w = io::parse_weather_csv(
      "time,dry_bulb [degC],wet_bulb [degC]\n"
      "2024-02-28T23:00:00Z,10,5\n"
      "2024-02-29T00:30:00.5+00:00,11,6\n"   // leap day, fractional seconds
      "2024-02-29 03:30:00+0200,12,7\n",      // space separator, +hhmm offset: 01:30 UTC
      "iso.csv");
  CHECK(w.times()[0] == 0.0);
  CHECK(w.times()[1] == Approx(5400.5));
  CHECK(w.times()[2] == Approx(9000.0));
  double seconds = 0.0;
  bool zone = false;
  CHECK(io::parse_iso8601("1970-01-02T00:00:00Z", seconds, zone));
  CHECK(seconds == 86400.0);
  CHECK(zone);
  CHECK(io::parse_iso8601("2024-07-21T14:00:00-07:00", seconds, zone));
  CHECK(seconds == 1721595600.0);  // 21:00 UTC
  CHECK(io::parse_iso8601("2024-07-21", seconds, zone));
  CHECK(!zone);
  CHECK(io::parse_iso8601("2024-07-21T24:00", seconds, zone));
  CHECK(seconds == 1721606400.0);
  CHECK(!io::parse_iso8601("2023-02-29T00:00", seconds, zone));  // not a leap year
  CHECK(!io::parse_iso8601("2024-07-21T25:00", seconds, zone));
  CHECK(!io::parse_iso8601("2024-07-21T12:00+25:00", seconds, zone));
  CHECK(!io::parse_iso8601("2024-7-21", seconds, zone));
}

TEST_CASE("Weather CSV: malformed files give file:line and the problem", "[io][weather]") {
  const std::string header = "time [s],dry_bulb [degC],wet_bulb [degC]\n";
  CHECK(parse_error("# only a comment\n\n") == "w.csv: no header line (expected the columns time, dry_bulb, wet_bulb)");
  CHECK(parse_error("# c\n" + header) == "w.csv: no data rows");
  CHECK(parse_error("# c\ntime,dry_bulb\n0,20\n") == "w.csv:2: missing column 'wet_bulb' (found: time, dry_bulb)");
  CHECK(parse_error("time,dry bulb,wet_bulb\n") == "w.csv:1: missing column 'dry_bulb' (found: time, dry bulb, wet_bulb)");
  CHECK(parse_error("time,dry_bulb,wet_bulb,time\n") == "w.csv:1: duplicate column 'time' (also column 1)");
  CHECK(parse_error("time,dry_bulb [degX],wet_bulb\n") == "w.csv:1: column 'dry_bulb': unknown unit 'degX'");
  CHECK(parse_error("time,dry_bulb [kW],wet_bulb\n") == "w.csv:1: column 'dry_bulb': unit 'kW' is not convertible to 'K'");
  CHECK(parse_error("time [m],dry_bulb,wet_bulb\n") == "w.csv:1: column 'time': unit 'm' is not convertible to 's'");
  CHECK(parse_error(header + "0,20,10\n3600,21\n") == "w.csv:3: expected 3 fields, found 2");
  CHECK(parse_error(header + "0,20,10\n3600,abc,10\n") == "w.csv:3: dry_bulb: 'abc' is not a number");
  CHECK(parse_error(header + "0,nan,10\n") == "w.csv:2: dry_bulb: 'nan' is not a finite number");
  CHECK(parse_error(header + "0,20,10\n0.5 h,20,10\n1 kg,20,10\n") == "w.csv:4: time: unit 'kg' is not convertible to 's'");
  CHECK(parse_error(header + "0,20,10\n7200,21,10\n\n# gap\n3600,22,10\n") ==
        "w.csv:6: time 3600 s is not after the previous row's 7200 s (line 3)");
  CHECK(parse_error(header + "0,30,31\n") == "w.csv:2: wet_bulb 31 degC is above dry_bulb 30 degC");
  CHECK(parse_error("time,dry_bulb,wet_bulb\n0,25,20\n") ==
        "w.csv:2: dry_bulb -248.15 degC is outside the plausible range -90 to 60 degC (check the column's unit)");
  const std::string iso = "time,dry_bulb [degC],wet_bulb [degC]\n";
  CHECK(parse_error(iso + "2024-02-30T00:00,20,10\n") == "w.csv:2: time: '2024-02-30T00:00' is not a valid ISO-8601 timestamp");
  CHECK(parse_error(iso + "2024-07-21T00:00Z,20,10\n3600,20,10\n") ==
        "w.csv:3: time: '3600' is a number, but earlier rows give ISO-8601 timestamps");
  CHECK(parse_error(iso + "0,20,10\n2024-07-21T01:00Z,20,10\n") ==
        "w.csv:3: time: '2024-07-21T01:00Z' is an ISO-8601 timestamp, but earlier rows give numbers");
  CHECK(parse_error(iso + "2024-07-21T00:00Z,20,10\n2024-07-21T01:00,20,10\n") ==
        "w.csv:3: time: '2024-07-21T01:00' has no time zone, but earlier rows have one");
  CHECK(parse_error(iso + "2024-07-21T00:00,20,10\n2024-07-21T01:00-07:00,20,10\n") ==
        "w.csv:3: time: '2024-07-21T01:00-07:00' has a time zone, but earlier rows have none");
  CHECK(parse_error(iso + "2024-07-21T01:00Z,20,10\n2024-07-21T00:00Z,20,10\n") ==
        "w.csv:3: time -3600 s is not after the previous row's 0 s (line 2)");
  CHECK(parse_error("time [h],dry_bulb [degC],wet_bulb [degC]\n2024-07-21T00:00Z,20,10\n") ==
        "w.csv:2: time: ISO-8601 timestamp in a column with unit 'h'");
}

TEST_CASE("Weather CSV: errors carry the location, and a missing file is a missing input", "[io][weather]") {
  try {
    (void)io::parse_weather_csv("time,dry_bulb,wet_bulb\n0,300,290\n0,300,290\n", "loc.csv");
    FAIL("no error");
  } catch (const io::WeatherFileError& e) {
    CHECK(e.location().file == "loc.csv");
    CHECK(e.location().line == 3);
  }
  const auto missing = std::filesystem::path(DCTWIN_BINARY_DIR) / "tests" / "air_weather_csv" / "nope.csv";
  try {
    (void)io::load_weather_csv(missing);
    FAIL("no error");
  } catch (const io::MissingInputError& e) {
    CHECK(std::string(e.what()) == missing.string() + ": cannot open weather file (No such file or directory)");
  }
  // A file on disk reports its path as given.
  const auto bad = scratch("bad.csv", "time,dry_bulb,wet_bulb\n0,300,290\nx,300,290\n");
  try {
    (void)io::load_weather_csv(bad);
    FAIL("no error");
  } catch (const io::WeatherFileError& e) {
    CHECK(std::string(e.what()) == bad.string() + ":3: time: 'x' is not a number");
  }
}
