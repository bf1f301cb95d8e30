// Values of the electrical feed outside their declared ranges, in a scenario file: refused with
// the file, line and column of the value and the wording io/ gives every parameter table, and the
// combinations the models check after reading, located at their section.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"
#include "test_schema.hpp"

using dctwin::io::test::error_of;

namespace {

/// scenarios/utility-outage-ride-through.yaml with the line `line` replaced by `replacement`.
std::string ride_through_with(const std::string& line, const std::string& replacement) {
  std::ifstream in(DCTWIN_SOURCE_DIR "/scenarios/utility-outage-ride-through.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string scenario = text.str();
  const auto at = scenario.find(line + "\n");
  REQUIRE(at != std::string::npos);
  scenario.replace(at, line.size(), replacement);
  return scenario;
}

const dctwin::core::SectionSchema& schema() {
  static const auto site = dctwin::models::facility::scenario_schema();
  return site;
}

const std::string transformer = "  transformer: {units_per_lineup: 1, rated_power: 1 MVA}";

}  // namespace

TEST_CASE("Electrical values outside their declared ranges are refused where they are written",
          "[scenario][electrical]") {
  struct Case {
    std::string line, replacement, message;
  };
  const Case cases[] = {
      {transformer, "  transformer: {units_per_lineup: 1, rated_power: 1 MVA, impedance: 1.5}",
       "t.yaml:43:69: electrical.transformer.impedance = 1.5 (must be in (0, 1))"},
      {transformer, "  transformer: {units_per_lineup: 0, rated_power: 1 MVA}",
       "t.yaml:43:35: electrical.transformer.units_per_lineup = 0 (must be >= 1)"},
      {"    mode: eco", "    mode: bypass",
       "t.yaml:38:11: electrical.ups.mode = bypass (must be one of: double_conversion, eco)"},
      {transformer, transformer + "\n  feeder: {cable_capacitance: -1 uF}",
       "t.yaml:44:31: electrical.feeder.cable_capacitance = -1 uF (must be > 0)"},
      {transformer, transformer + "\n  limits: {transformer_hot_spot_max: -300 degC}",
       "t.yaml:44:38: electrical.limits.transformer_hot_spot_max = -300 degC (must be >= -273.15 degC)"},
      {"  time_step: 1 ms", "  time_step: 20 ms",
       "t.yaml:33:14: electrical.time_step = 20 ms (must be in [0.1, 10] ms)"},
      {"    - {kind: sag, time: 10 s, duration: 200 ms, depth: 0.4}",
       "    - {kind: sag, time: 10 s, duration: 200 ms, depth: 1.5}",
       "t.yaml:45:56: electrical.utility_events[0].depth = 1.5 (must be in (0, 1])"},
      {"  pdu: {rated_power: 0.6 MW}", "  pdu: {rated_power: 0.6 MW, loss_fraction_at_rated: 1}",
       "t.yaml:36:54: electrical.pdu.loss_fraction_at_rated = 1 (must be in [0, 1))"},
  };
  for (const auto& c : cases) {
    INFO(c.replacement);
    CHECK(error_of(ride_through_with(c.line, c.replacement), schema()) == c.message);
  }
}
