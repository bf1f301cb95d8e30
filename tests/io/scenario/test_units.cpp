#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/units.hpp"

using dctwin::io::UnitError;
namespace io = dctwin::io;

namespace {

std::string unit_error_of(std::string_view text, std::string_view si_unit) {
  try {
    (void)io::parse_to_si(text, si_unit);
  } catch (const UnitError& error) {
    return error.what();
  }
  return "(no error)";
}

std::string duration_error_of(std::string_view text) {
  try {
    (void)io::parse_duration(text);
  } catch (const dctwin::core::InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("parse_quantity splits number and unit", "[units]") {
  auto q = io::parse_quantity("32 degC");
  CHECK(q.number == 32.0);
  CHECK(q.unit == "degC");
  q = io::parse_quantity("  -3 L/min ");
  CHECK(q.number == -3.0);
  CHECK(q.unit == "L/min");
  q = io::parse_quantity("1e-3 m3/s");
  CHECK(q.number == 1e-3);
  CHECK(q.unit == "m3/s");
  q = io::parse_quantity("600");
  CHECK(q.number == 600.0);
  CHECK(q.unit.empty());
  q = io::parse_quantity("35kW");
  CHECK(q.number == 35.0);
  CHECK(q.unit == "kW");
  q = io::parse_quantity("+.5 %");
  CHECK(q.number == 0.5);
  CHECK(q.unit == "%");
  q = io::parse_quantity("3eV");  // `e` not followed by digits is not an exponent
  CHECK(q.number == 3.0);
  CHECK(q.unit == "eV");
  q = io::parse_quantity("1e-400 W");  // underflow is zero
  CHECK(q.number == 0.0);
}

TEST_CASE("parse_quantity rejects text and non-finite numbers", "[units]") {
  REQUIRE_THROWS_WITH(io::parse_quantity("abc"), "'abc' is not a number");
  REQUIRE_THROWS_WITH(io::parse_quantity("1.2.3 W"), "'1.2.3 W' is not a number");
  REQUIRE_THROWS_WITH(io::parse_quantity("5 2"), "'5 2' is not a number");
  REQUIRE_THROWS_WITH(io::parse_quantity(""), "'' is not a number");
  REQUIRE_THROWS_WITH(io::parse_quantity(".nan"), "'.nan' is not a finite number");
  REQUIRE_THROWS_WITH(io::parse_quantity("-inf W"), "'-inf W' is not a finite number");
  REQUIRE_THROWS_WITH(io::parse_quantity("1e999"), "'1e999' is not a finite number");
  try {
    (void)io::parse_quantity("NaN");
    FAIL("no exception");
  } catch (const UnitError& error) {
    CHECK(error.reason() == UnitError::Reason::not_finite);
  }
}

TEST_CASE("conversions to SI go through udunits2", "[units]") {
  CHECK(io::parse_to_si("32 degC", "K") == Approx(305.15).epsilon(1e-14));
  CHECK(io::parse_to_si("-40 degF", "K") == Approx(233.15).epsilon(1e-12));
  CHECK(io::parse_to_si("1.2 L/min", "m3/s") == Approx(2.0e-5).epsilon(1e-14));
  CHECK(io::parse_to_si("-3 L/min", "m3/s") == Approx(-5.0e-5).epsilon(1e-14));
  CHECK(io::parse_to_si("35 kW", "W") == Approx(35000.0).epsilon(1e-14));
  CHECK(io::parse_to_si("25 %", "1") == Approx(0.25).epsilon(1e-14));
  CHECK(io::parse_to_si("150 kPa", "Pa") == Approx(150000.0).epsilon(1e-14));
  CHECK(io::parse_to_si("2.5 bar", "Pa") == Approx(250000.0).epsilon(1e-14));
  CHECK(io::parse_to_si("3.6 m3/h", "m3/s") == Approx(0.001).epsilon(1e-14));
  CHECK(io::parse_to_si("10 min", "s") == Approx(600.0).epsilon(1e-14));
  CHECK(io::parse_to_si("24 h", "s") == Approx(86400.0).epsilon(1e-14));
  CHECK(io::parse_to_si("0.05 degC/W", "K/W") == Approx(0.05).epsilon(1e-14));
  CHECK(io::parse_to_si("20 °C", "K") == Approx(293.15).epsilon(1e-14));
  CHECK(io::parse_to_si("1e-3 m3/s", "m3/s") == 1e-3);
  CHECK(io::parse_to_si("600", "s") == 600.0);  // a bare number is already SI
  CHECK(io::convert(305.15, "K", "degC") == Approx(32.0).epsilon(1e-13));
}

TEST_CASE("unit errors name the unit", "[units]") {
  CHECK(unit_error_of("1.2 L/mn", "m3/s") == "unknown unit 'L/mn'");
  CHECK(unit_error_of("35 kW", "m3/s") == "unit 'kW' is not convertible to 'm3/s'");
  CHECK(unit_error_of("35 degC", "W") == "unit 'degC' is not convertible to 'W'");
  CHECK(unit_error_of("35 W", "W") == "(no error)");
  CHECK(io::is_known_unit("L/min"));
  CHECK_FALSE(io::is_known_unit("L/mn"));
  CHECK(io::are_convertible("bar", "Pa"));
  CHECK_FALSE(io::are_convertible("bar", "K"));
  CHECK_FALSE(io::are_convertible("bar", "nonsense"));
  try {
    (void)io::convert(1.0, "kW", "nonsense");
    FAIL("no exception");
  } catch (const UnitError& error) {
    CHECK(error.reason() == UnitError::Reason::unknown_unit);
    CHECK(std::string(error.what()) == "unknown unit 'nonsense'");
  }
}

TEST_CASE("parse_duration reads command-line durations", "[units]") {
  CHECK(io::parse_duration("600") == 600.0);
  CHECK(io::parse_duration("30 s") == 30.0);
  CHECK(io::parse_duration("10 min") == Approx(600.0).epsilon(1e-14));
  CHECK(io::parse_duration("1.5 h") == Approx(5400.0).epsilon(1e-14));
  CHECK(io::parse_duration("24 h") == Approx(86400.0).epsilon(1e-14));
  CHECK(io::parse_duration("0") == 0.0);
  CHECK(duration_error_of("10 mn") == "invalid duration '10 mn' (unknown unit 'mn')");
  CHECK(duration_error_of("5 kg") ==
        "invalid duration '5 kg' (unit 'kg' is not convertible to 's')");
  CHECK(duration_error_of("soon") ==
        "invalid duration 'soon' (must be a number of seconds or a number with a time unit, such "
        "as '10 min')");
  CHECK(duration_error_of("-5 s") == "invalid duration '-5 s' (must be >= 0)");
  CHECK(duration_error_of("inf") == "invalid duration 'inf' (must be a finite number)");
}

TEST_CASE("format_quantity and format_number write short numbers", "[units]") {
  CHECK(io::format_quantity(305.15, "K", "degC") == "32 degC");
  CHECK(io::format_quantity(305.15, "K", "") == "305.15 K");
  CHECK(io::format_quantity(2.0e-5, "m3/s", "L/min") == "1.2 L/min");
  CHECK(io::format_quantity(35000.0, "W", "kW") == "35 kW");
  CHECK(io::format_quantity(0.25, "1", "%") == "25 %");
  CHECK(io::format_quantity(0.25, "1", "") == "0.25");
  CHECK(io::format_quantity(0.0, "K", "degC") == "-273.15 degC");
  CHECK(io::format_number(32.000000000000028) == "32");
  CHECK(io::format_number(1.0 / 3.0) == "0.3333333333");
  CHECK(io::format_number(1.0e6) == "1000000");
  CHECK(io::format_number(-0.0) == "0");
  CHECK(io::format_number_exact(0.1 + 0.2) == "0.30000000000000004");
  CHECK(io::format_number(0.1 + 0.2) == "0.3");
  CHECK(io::format_number_exact(305.15) == "305.15");
  CHECK(io::format_number_exact(1.0e5) == "100000");
  CHECK(io::format_number_exact(1.0e-3) == "0.001");
  CHECK(io::format_number_exact(2.0e-5) == "2e-05");
  CHECK(io::format_number_exact(1.0e20) == "1e+20");
  CHECK(io::format_number_exact(-0.0) == "0");
}

TEST_CASE("unit conversions are safe from several threads", "[units]") {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (std::size_t t = 0; t < failures.size(); ++t) {
    threads.emplace_back([t, &failures] {
      const char* units[] = {"degC", "degF", "kK", "mK"};
      for (int i = 0; i < 200; ++i) {
        const double kelvin = io::parse_to_si("10 " + std::string(units[t]), "K");
        if (!(kelvin > 0.0)) ++failures[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int count : failures) CHECK(count == 0);
}

TEST_CASE("Facility engineers' units: US gallons, gpm, CFM and tons of refrigeration", "[units]") {
  // NIST SP 811 (2008), Appendix B.8: gallon (U.S.) = 231 in3 = 3.785411784e-3 m3 exactly;
  // ft3/min = 4.719474432e-4 m3/s exactly; ton of refrigeration = 12 000 Btu_IT/h, with
  // Btu_IT = 1055.05585262 J exactly, so 3516.852842066... W (SP 811 rounds it to 3.516 853 E+03).
  const double gallon = 231.0 * std::pow(0.0254, 3.0);
  CHECK(gallon == Approx(3.785411784e-3).epsilon(1e-15));
  CHECK(io::parse_to_si("1 gal", "m3") == Approx(3.785411784e-3).epsilon(1e-14));
  CHECK(io::parse_to_si("1 gal", "L") == Approx(3.785411784).epsilon(1e-14));
  CHECK(io::parse_to_si("10 gpm", "m3/s") == Approx(6.30901964e-4).epsilon(1e-14));
  CHECK(io::parse_to_si("10 GPM", "m3/s") == Approx(6.30901964e-4).epsilon(1e-14));
  CHECK(io::parse_to_si("10 gal/min", "m3/s") == Approx(6.30901964e-4).epsilon(1e-14));
  CHECK(io::parse_to_si("60 gpm", "L/s") == Approx(3.785411784).epsilon(1e-14));
  CHECK(io::parse_to_si("2000 CFM", "m3/s") == Approx(2000.0 * 4.719474432e-4).epsilon(1e-14));
  CHECK(io::parse_to_si("2000 cfm", "m3/s") == Approx(2000.0 * 4.719474432e-4).epsilon(1e-14));
  CHECK(io::parse_to_si("1 CFM", "ft3/min") == Approx(1.0).epsilon(1e-14));
  const double ton_of_refrigeration = 12000.0 * 1055.05585262 / 3600.0;  // [W]
  CHECK(ton_of_refrigeration == Approx(3516.852842066667).epsilon(1e-15));
  CHECK(io::parse_to_si("500 TR", "W") == Approx(500.0 * ton_of_refrigeration).epsilon(1e-13));
  CHECK(io::parse_to_si("1 TR", "kW") == Approx(3.516852842066667).epsilon(1e-13));
  CHECK(io::parse_to_si("500 ton_refrigeration", "W") == Approx(500.0 * ton_of_refrigeration).epsilon(1e-13));
  CHECK(io::parse_to_si("500 tons_refrigeration", "W") == Approx(500.0 * ton_of_refrigeration).epsilon(1e-13));
  CHECK(io::parse_to_si("1 TR", "Btu/h") == Approx(12000.0).epsilon(1e-13));
  CHECK(io::is_known_unit("TR"));
  CHECK(io::are_convertible("TR", "W"));
  CHECK_FALSE(io::are_convertible("TR", "kg"));
  // A bare ton is never read: neither the short ton of mass nor a guessed ton of refrigeration.
  const std::string advice =
      ": write 'TR' for the ton of refrigeration, 12000 Btu/h = 3.517 kW, or 'short_ton', 'long_ton' or 't' for a "
      "mass";
  CHECK(unit_error_of("500 ton", "W") == "ambiguous unit 'ton'" + advice);
  CHECK(unit_error_of("500 tons", "W") == "ambiguous unit 'tons'" + advice);
  CHECK(unit_error_of("1 ton", "kg") == "ambiguous unit 'ton'" + advice);
  CHECK(unit_error_of("3 ton/h", "kg/s") == "ambiguous unit 'ton' in 'ton/h'" + advice);
  CHECK_FALSE(io::is_known_unit("ton"));
  CHECK_FALSE(io::are_convertible("ton", "W"));
  CHECK(io::parse_to_si("1 short_ton", "kg") == Approx(907.18474).epsilon(1e-14));
  CHECK(io::parse_to_si("2 t", "kg") == Approx(2000.0).epsilon(1e-14));
  // Misuse: a gallon is never an acceleration, a flow never a power, a power never a flow.
  CHECK(unit_error_of("1 gal", "m/s2") == "unit 'gal' is not convertible to 'm/s2'");
  CHECK(unit_error_of("3 gpm", "W") == "unit 'gpm' is not convertible to 'W'");
  CHECK(unit_error_of("3 CFM", "kg/s") == "unit 'CFM' is not convertible to 'kg/s'");
  CHECK(unit_error_of("3 TR", "m3/s") == "unit 'TR' is not convertible to 'm3/s'");
  // Whole words only: the aliases do not reach into longer names.
  CHECK(unit_error_of("1 gallon_x", "m3") == "unknown unit 'gallon_x'");
  CHECK(io::parse_to_si("1 tonne", "kg") == Approx(1000.0).epsilon(1e-14));
}
