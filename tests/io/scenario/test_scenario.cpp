#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/scenario.hpp"
#include "test_schema.hpp"

namespace io = dctwin::io;
using dctwin::io::test::error_of;
using dctwin::io::test::minimal_scenario;
using dctwin::io::test::test_schema;
using dctwin::core::ParameterTree;
using dctwin::core::SectionSchema;

namespace {

constexpr const char* full_scenario =
    "# A full scenario\n"                // 1
    "name: hall A\n"                     // 2
    "duration: 1.5 h\n"                  // 3
    "seed: 42\n"                         // 4
    "server:\n"                          // 5
    "  gpu_count: 4\n"                   // 6
    "  inlet_temperature: 32 degC\n"     // 7
    "  supply_temperature: 20 degC\n"    // 8
    "  redundant_psu: false\n"           // 9
    "  psu_power: 3.5 kW\n"              // 10
    "  gpus:\n"                          // 11
    "    - power: 650 W\n"               // 12
    "      serial: \"0042\"\n"           // 13
    "    - {power: 0.7 kW, tdp: 700}\n"  // 14
    "  cold_plate:\n"                    // 15
    "    resistance: 0.05 degC/W\n"      // 16
    "loop:\n"                            // 17
    "  arrangement: series\n"            // 18
    "  glycol_fraction: 30 %\n"          // 19
    "  valve_opening: 75 %\n"            // 20
    "  pump:\n"                          // 21
    "    nominal_flow: 3.6 m3/h\n"       // 22
    "    head: 150 kPa\n"                // 23
    "    max_pressure: 2.5 bar\n"        // 24
    "    ramp_time: 2 min\n";            // 25

io::ScenarioDocument parse(std::string_view text) {
  return io::parse_scenario(text, "t.yaml", test_schema());
}

/// Scenario text: the minimal one with `extra` lines appended.
std::string minimal_plus(const std::string& extra) { return std::string(minimal_scenario) + extra; }

std::string at(const dctwin::core::SourceLocation& location) {
  return location.file + ":" + std::to_string(location.line) + ":" +
         std::to_string(location.column);
}

/// Every value, section and list of `a` equals `b`'s (numbers exactly).
void require_same_values(const ParameterTree& a, const ParameterTree& b) {
  INFO("section '" << a.path << "'");
  REQUIRE(a.path == b.path);
  REQUIRE(a.values.size() == b.values.size());
  for (const auto& [name, value] : a.values) {
    INFO("parameter " << name);
    REQUIRE(b.values.count(name) == 1);
    CHECK(value.number == b.values.at(name).number);
    CHECK(value.text == b.values.at(name).text);
  }
  REQUIRE(a.sections.size() == b.sections.size());
  for (const auto& [name, section] : a.sections) {
    REQUIRE(b.sections.count(name) == 1);
    require_same_values(section, b.sections.at(name));
  }
  REQUIRE(a.lists.size() == b.lists.size());
  for (const auto& [name, entries] : a.lists) {
    REQUIRE(b.lists.count(name) == 1);
    REQUIRE(entries.size() == b.lists.at(name).size());
    for (std::size_t i = 0; i < entries.size(); ++i)
      require_same_values(entries[i], b.lists.at(name)[i]);
  }
}

/// A schema whose one list must have entries.
SectionSchema rack_schema() {
  using namespace dctwin::core;
  SectionSchema root;
  SectionSchema rack;
  rack.required = true;
  rack.parameters = {text_parameter("label", "Rack label", std::nullopt),
                     integer_parameter("position", "Row position", 0.0)};
  root.lists["racks"] = rack;
  return root;
}

}  // namespace

// ---- resolved values
// -----------------------------------------------------------------------------

TEST_CASE("defaults are filled in for everything not written", "[scenario]") {
  const auto document = parse(minimal_scenario);
  const ParameterTree& root = document.tree;
  CHECK(document.file == "t.yaml");
  CHECK(document.source_text == minimal_scenario);
  CHECK(root.text("name") == "unnamed");
  CHECK(root.number("duration") == 86400.0);
  CHECK(root.integer("seed") == 1);
  CHECK(root.values.at("seed").from_default);
  CHECK(root.values.at("seed").location.line == 0);
  CHECK(root.values.at("seed").as_written.empty());

  const ParameterTree& server = root.section("server");
  CHECK(server.integer("gpu_count") == 8);
  CHECK_FALSE(server.values.at("gpu_count").from_default);
  CHECK(server.number("inlet_temperature") == 305.15);
  CHECK(server.boolean("redundant_psu"));
  CHECK(server.number("psu_power") == 3000.0);
  CHECK(server.list("gpus").empty());
  CHECK(server.section("cold_plate").number("resistance") == 0.02);

  const ParameterTree& loop = root.section("loop");
  CHECK(loop.path == "loop");
  CHECK(loop.location.line == 0);
  CHECK(loop.text("arrangement") == "parallel");
  CHECK(loop.number("glycol_fraction") == 0.25);
  CHECK(loop.section("pump").path == "loop.pump");
  CHECK(loop.section("pump").number("nominal_flow") == 2.0e-5);
  CHECK(loop.section("pump").number("max_pressure") == 3.0e5);
}

TEST_CASE("written values are converted to SI", "[scenario]") {
  const auto document = parse(full_scenario);
  const ParameterTree& root = document.tree;
  CHECK(root.text("name") == "hall A");
  CHECK(root.number("duration") == Approx(5400.0).epsilon(1e-14));  // h
  CHECK(root.integer("seed") == 42);
  const ParameterTree& server = root.section("server");
  CHECK(server.integer("gpu_count") == 4);
  CHECK(server.number("inlet_temperature") == Approx(305.15).epsilon(1e-14));   // degC
  CHECK(server.number("supply_temperature") == Approx(293.15).epsilon(1e-14));  // degC
  CHECK_FALSE(server.boolean("redundant_psu"));
  CHECK(server.number("psu_power") == Approx(3500.0).epsilon(1e-14));  // kW
  CHECK(server.section("cold_plate").number("resistance") == Approx(0.05).epsilon(1e-14));
  const ParameterTree& loop = root.section("loop");
  CHECK(loop.text("arrangement") == "series");
  CHECK(loop.number("glycol_fraction") == Approx(0.30).epsilon(1e-14));  // %
  CHECK(loop.number("valve_opening") == Approx(0.75).epsilon(1e-14));
  const ParameterTree& pump = loop.section("pump");
  CHECK(pump.number("nominal_flow") == Approx(1.0e-3).epsilon(1e-14));  // m3/h
  CHECK(pump.number("head") == Approx(1.5e5).epsilon(1e-14));           // kPa
  CHECK(pump.number("max_pressure") == Approx(2.5e5).epsilon(1e-14));   // bar
  CHECK(pump.number("ramp_time") == Approx(120.0).epsilon(1e-14));      // min
  CHECK(pump.values.at("nominal_flow").as_written == "3.6 m3/h");
}

TEST_CASE("L/min, degC and bare SI numbers", "[scenario]") {
  const auto document =
      parse(minimal_plus("loop:\n"
                         "  pump:\n"
                         "    nominal_flow: 1.2 L/min\n"
                         "    head: 120000\n"));
  const ParameterTree& pump = document.tree.section("loop").section("pump");
  CHECK(pump.number("nominal_flow") == Approx(2.0e-5).epsilon(1e-14));
  CHECK(pump.number("head") == 120000.0);
  CHECK(pump.values.at("head").as_written == "120000");
}

TEST_CASE("lists resolve each entry with its own path and defaults", "[scenario]") {
  const auto document = parse(full_scenario);
  const auto& gpus = document.tree.section("server").list("gpus");
  REQUIRE(gpus.size() == 2);
  CHECK(gpus[0].path == "server.gpus[0]");
  CHECK(gpus[1].path == "server.gpus[1]");
  CHECK(gpus[0].number("power") == 650.0);
  CHECK(gpus[0].number("tdp") == 700.0);
  CHECK(gpus[0].values.at("tdp").from_default);
  CHECK(gpus[0].text("serial") == "0042");
  CHECK(gpus[1].number("power") == Approx(700.0).epsilon(1e-14));
  CHECK(gpus[1].number("tdp") == 700.0);
  CHECK_FALSE(gpus[1].values.at("tdp").from_default);
  CHECK(gpus[1].text("serial") == "none");
  CHECK(gpus[0].key_path("power") == "server.gpus[0].power");
}

TEST_CASE("locations of values, sections and list entries are recorded", "[scenario]") {
  const auto document = parse(full_scenario);
  const ParameterTree& root = document.tree;
  CHECK(at(root.location) == "t.yaml:2:1");
  CHECK(at(root.values.at("name").location) == "t.yaml:2:7");
  const ParameterTree& server = root.section("server");
  CHECK(at(server.location) == "t.yaml:6:3");
  CHECK(at(server.values.at("inlet_temperature").location) == "t.yaml:7:22");
  CHECK(at(server.list("gpus")[0].location) == "t.yaml:12:7");
  CHECK(at(server.list("gpus")[0].values.at("power").location) == "t.yaml:12:14");
  CHECK(at(server.list("gpus")[1].location) == "t.yaml:14:7");
  CHECK(at(server.list("gpus")[1].values.at("power").location) == "t.yaml:14:15");
  CHECK(at(server.section("cold_plate").location) == "t.yaml:16:5");
  CHECK(at(root.section("loop").section("pump").values.at("nominal_flow").location) ==
        "t.yaml:22:19");
}

TEST_CASE("quoted values and text that looks like other types", "[scenario]") {
  const auto document =
      parse(minimal_plus("name: \"true\"\n"
                         "seed: \"7\"\n"
                         "loop:\n"
                         "  arrangement: 'series'\n"));
  CHECK(document.tree.text("name") == "true");
  CHECK(document.tree.integer("seed") == 7);
  CHECK(document.tree.section("loop").text("arrangement") == "series");
}

// ---- bad values
// ----------------------------------------------------------------------------------

TEST_CASE("values below a minimum name the file, line, column, path and rule",
          "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  gpus:\n"
                 "    - power: 700 W\n"
                 "    - power: -5 W\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:5:14: server.gpus[1].power = -5 W (must be >= 0)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  psu_power: 0 kW\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:14: server.psu_power = 0 kW (must be > 0)");
  CHECK(error_of(minimal_plus("seed: -1\n")) == "t.yaml:5:7: seed = -1 (must be >= 0)");
}

TEST_CASE("bounds are shown in the display unit", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  inlet_temperature: 85 degC\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:22: server.inlet_temperature = 85 degC (must be <= 80 degC)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  inlet_temperature: 360\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:22: server.inlet_temperature = 360 (must be <= 80 degC)");
  CHECK(error_of(minimal_plus("loop:\n"
                              "  pump:\n"
                              "    max_pressure: 12 bar\n")) ==
        "t.yaml:7:19: loop.pump.max_pressure = 12 bar (must be <= 10 bar)");
}

TEST_CASE("two bounds are written as an interval", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  supply_temperature: -5 degC\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:23: server.supply_temperature = -5 degC (must be in [0, 60] degC)");
  CHECK(error_of(minimal_plus("loop:\n  glycol_fraction: 0.7\n")) ==
        "t.yaml:6:20: loop.glycol_fraction = 0.7 (must be in [0, 0.6])");
  CHECK(error_of(minimal_plus("loop:\n  glycol_fraction: 70 %\n")) ==
        "t.yaml:6:20: loop.glycol_fraction = 70 % (must be in [0, 0.6])");
  CHECK(error_of(minimal_plus("loop:\n  valve_opening: 0 %\n")) ==
        "t.yaml:6:18: loop.valve_opening = 0 % (must be in (0, 100] %)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  gpus: [{tdp: 1.2 kW}]\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:16: server.gpus[0].tdp = 1.2 kW (must be in (0, 1000] W)");
}

TEST_CASE("integers must be integer literals in range", "[scenario][errors]") {
  const auto with_count = [](const std::string& count) {
    return error_of("server:\n  gpu_count: " + count +
                    "\n  cold_plate:\n    resistance: 0.02 K/W\n");
  };
  CHECK(with_count("8.5") == "t.yaml:2:14: server.gpu_count = 8.5 (must be an integer)");
  CHECK(with_count("1e3") == "t.yaml:2:14: server.gpu_count = 1e3 (must be an integer)");
  CHECK(with_count("eight") == "t.yaml:2:14: server.gpu_count = eight (must be an integer)");
  CHECK(with_count("32") == "t.yaml:2:14: server.gpu_count = 32 (must be in [1, 16])");
  CHECK(with_count("0") == "t.yaml:2:14: server.gpu_count = 0 (must be in [1, 16])");
  CHECK(with_count("+16") == "(no error)");
}

TEST_CASE("booleans and choices", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  redundant_psu: yes\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:18: server.redundant_psu = yes (must be true or false)");
  CHECK(error_of(minimal_plus("loop:\n  arrangement: diagonal\n")) ==
        "t.yaml:6:16: loop.arrangement = diagonal (must be one of: series, parallel)");
  CHECK(error_of(minimal_plus("loop:\n  arrangement: Series\n")) ==
        "t.yaml:6:16: loop.arrangement = Series (must be one of: series, parallel)");
}

TEST_CASE("unknown and incompatible units", "[scenario][errors]") {
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 1.2 L/mn\n")) ==
        "t.yaml:7:19: loop.pump.nominal_flow = 1.2 L/mn (unknown unit 'L/mn')");
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 35 kW\n")) ==
        "t.yaml:7:19: loop.pump.nominal_flow = 35 kW (unit 'kW' is not convertible to 'm3/s')");
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: -3 L/min\n")) ==
        "t.yaml:7:19: loop.pump.nominal_flow = -3 L/min (must be > 0)");
  // Facility engineers' units: a flow in gpm or CFM is fine, a ton of refrigeration is no flow,
  // and a bare ton is refused as ambiguous wherever it appears.
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 2 gpm\n")) == "(no error)");
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 0.2 CFM\n")) == "(no error)");
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 35 TR\n")) ==
        "t.yaml:7:19: loop.pump.nominal_flow = 35 TR (unit 'TR' is not convertible to 'm3/s')");
  CHECK(error_of(minimal_plus("loop:\n  pump:\n    nominal_flow: 35 ton\n")) ==
        "t.yaml:7:19: loop.pump.nominal_flow = 35 ton (ambiguous unit 'ton': write 'TR' for the ton of "
        "refrigeration, 12000 Btu/h = 3.517 kW, or 'short_ton', 'long_ton' or 't' for a mass)");
}

TEST_CASE("text, NaN and infinity where a number is expected", "[scenario][errors]") {
  const auto with_power = [](const std::string& power) {
    return error_of("server:\n  gpu_count: 8\n  psu_power: " + power +
                    "\n  cold_plate:\n    resistance: 0.02 K/W\n");
  };
  CHECK(with_power("lots") ==
        "t.yaml:3:14: server.psu_power = lots (must be a number, optionally with a unit "
        "convertible to kW)");
  CHECK(with_power(".nan") == "t.yaml:3:14: server.psu_power = .nan (must be a finite number)");
  CHECK(with_power("-.inf kW") ==
        "t.yaml:3:14: server.psu_power = -.inf kW (must be a finite number)");
  CHECK(with_power("1e999 W") ==
        "t.yaml:3:14: server.psu_power = 1e999 W (must be a finite number)");
  CHECK(with_power("\"\"") ==
        "t.yaml:3:14: server.psu_power = \"\" (must be a number, optionally "
        "with a unit convertible to kW)");
  CHECK(error_of(minimal_plus("loop:\n  glycol_fraction: some\n")) ==
        "t.yaml:6:20: loop.glycol_fraction = some (must be a number)");
}

TEST_CASE("ScenarioError carries the location and path", "[scenario][errors]") {
  try {
    (void)parse(minimal_plus("loop:\n  glycol_fraction: 0.9\n"));
    FAIL("no exception");
  } catch (const io::ScenarioError& error) {
    CHECK(error.location().file == "t.yaml");
    CHECK(error.location().line == 6);
    CHECK(error.location().column == 20);
    CHECK(error.path() == "loop.glycol_fraction");
    CHECK(error.key_path().empty());
  }
}

// ---- keys
// ----------------------------------------------------------------------------------------

TEST_CASE("unknown keys suggest the closest valid key", "[scenario][errors]") {
  CHECK(error_of("server:\n  gpu_cuont: 8\n") ==
        "t.yaml:2:3: server.gpu_cuont: unknown key (did you mean 'gpu_count'?)");
  CHECK(error_of(minimal_plus("loop:\n  pmup:\n    head: 1 bar\n")) ==
        "t.yaml:6:3: loop.pmup: unknown key (did you mean 'pump'?)");
  CHECK(error_of(minimal_plus("seeds: 3\n")) ==
        "t.yaml:5:1: seeds: unknown key (did you mean 'seed'?)");
}

TEST_CASE("unknown keys without a close match list the valid keys when few", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  cold_plate:\n"
                 "    thickness: 3 mm\n") ==
        "t.yaml:4:5: server.cold_plate.thickness: unknown key (valid keys: resistance)");
  CHECK(error_of(minimal_plus("weather: hot\n")) ==
        "t.yaml:5:1: weather: unknown key (valid keys: name, duration, seed, loop, server)");

  SectionSchema many;
  for (int i = 1; i <= 9; ++i)
    many.parameters.push_back(
        dctwin::core::real_parameter("p" + std::to_string(i), "W", "", 1.0));
  CHECK(error_of("p1: 2 W\nzzzzzz: 1\n", many) == "t.yaml:2:1: zzzzzz: unknown key");
  CHECK(error_of("p1: 2 W\np: 1\n", many) == "t.yaml:2:1: p: unknown key");
}

TEST_CASE("duplicate keys are errors", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n"
                 "  gpu_count: 9\n") ==
        "t.yaml:5:3: server.gpu_count: duplicate key (first at line 2)");
  CHECK(error_of(minimal_plus("server:\n  gpu_count: 4\n")) ==
        "t.yaml:5:1: server: duplicate key (first at line 1)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  gpus: [{power: 1 W, power: 2 W}]\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:3:23: server.gpus[0].power: duplicate key (first at line 3)");
}

TEST_CASE("missing required keys are reported at the enclosing mapping", "[scenario][errors]") {
  CHECK(error_of("server:\n"
                 "  cold_plate:\n"
                 "    resistance: 0.02 K/W\n") ==
        "t.yaml:2:3: server.gpu_count: required key is missing (integer)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  cold_plate: {}\n") ==
        "t.yaml:3:15: server.cold_plate.resistance: required key is missing (K/W)");
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n"
                 "  cold_plate:\n") ==
        "t.yaml:3:3: server.cold_plate.resistance: required key is missing (K/W)");
  // An absent section with a required parameter: reported at the closest written mapping.
  CHECK(error_of("server:\n"
                 "  gpu_count: 8\n") ==
        "t.yaml:2:3: server.cold_plate.resistance: required key is missing (K/W)");
  CHECK(error_of("# comment\nname: x\n") == "t.yaml:2:1: server: required section is missing");
}

TEST_CASE("required lists must be present and not empty", "[scenario][errors]") {
  const SectionSchema schema = rack_schema();
  CHECK(error_of("{}\n", schema) == "t.yaml:1:1: racks: required list is missing");
  CHECK(error_of("racks: []\n", schema) == "t.yaml:1:8: racks: required list is empty");
  CHECK(error_of("racks:\n", schema) == "t.yaml:1:1: racks: required list is empty");
  CHECK(error_of("racks:\n  - position: 3\n", schema) ==
        "t.yaml:2:5: racks[0].label: required key is missing (text)");
  CHECK(error_of("racks:\n  - label: A1\n  - label: A2\n    position: 1\n", schema) ==
        "(no error)");
}

// ---- structure
// -----------------------------------------------------------------------------------

TEST_CASE("mappings, lists and values in the wrong place", "[scenario][errors]") {
  const auto server_with = [](const std::string& line) {
    return error_of("server:\n  gpu_count: 8\n" + line +
                    "\n  cold_plate:\n    resistance: 1 K/W\n");
  };
  CHECK(server_with("  psu_power: {value: 3}") ==
        "t.yaml:3:14: server.psu_power: must be a single value, not a mapping");
  CHECK(server_with("  psu_power: [1, 2]") ==
        "t.yaml:3:14: server.psu_power: must be a single value, not a list");
  CHECK(server_with("  psu_power:") == "t.yaml:3:3: server.psu_power: value is missing (kW)");
  CHECK(server_with("  psu_power: ~") == "t.yaml:3:3: server.psu_power: value is missing (kW)");
  CHECK(server_with("  gpus: {power: 5 W}") ==
        "t.yaml:3:9: server.gpus: must be a list, not a mapping");
  CHECK(server_with("  gpus:\n    - 700 W") ==
        "t.yaml:4:7: server.gpus[0]: must be a mapping, not a single value");
  CHECK(error_of("server:\n  gpu_count: 8\n  cold_plate: 5\n") ==
        "t.yaml:3:15: server.cold_plate: must be a mapping, not a single value");
  CHECK(error_of(minimal_plus("loop: [1]\n")) == "t.yaml:5:7: loop: must be a mapping, not a list");
}

TEST_CASE("the root must be a single non-empty mapping", "[scenario][errors]") {
  CHECK(error_of("") == "t.yaml: scenario file is empty");
  CHECK(error_of("# only a comment\n\n   \n") == "t.yaml: scenario file is empty");
  CHECK(error_of("- a\n- b\n") == "t.yaml:1:1: the scenario must be a mapping, not a list");
  CHECK(error_of("just text\n") ==
        "t.yaml:1:1: the scenario must be a mapping, not a single value");
  CHECK(error_of(std::string(minimal_scenario) + "---\nname: two\n") ==
        "t.yaml:6:1: a scenario file holds one YAML document (another starts here)");
  CHECK(error_of("---\n" + std::string(minimal_scenario) + "---\n") == "(no error)");
  CHECK(error_of(std::string(minimal_scenario) + "...\n") == "(no error)");
}

TEST_CASE("keys must be plain names", "[scenario][errors]") {
  CHECK(error_of(minimal_plus("? [a, b]\n: 1\n")) == "t.yaml:5:3: keys must be plain names");
  CHECK(error_of(minimal_plus("~: 1\n")) == "t.yaml:5:1: keys must be plain names");
  CHECK(error_of("server:\n  gpu_count: 8\n  cold_plate:\n    ~: 1\n") ==
        "t.yaml:4:5: server.cold_plate: keys must be plain names");
}

TEST_CASE("YAML syntax errors keep the parser's position and message", "[scenario][errors]") {
  CHECK(error_of("server: [1, 2\n") ==
        "t.yaml:2:1: YAML syntax error: end of sequence flow not found");
  CHECK(error_of("server:\n  gpu_count: 8\n   psu_power: 1 kW\n") ==
        "t.yaml:3:13: YAML syntax error: illegal map value");
}

TEST_CASE("Control characters other than tab, line feed and carriage return are refused where they are", "[scenario][errors]") {
  // A NUL inside a scalar passed yaml-cpp and then could not be written back into the report.
  CHECK(error_of(std::string("name: br2okserve\0r\n", 19)) ==
        "t.yaml:1:17: control character 0x00 (YAML allows tab, line feed and carriage return only)");
  CHECK(error_of("server:\n  gpu_count: 8\x1b\n") ==
        "t.yaml:2:15: control character 0x1B (YAML allows tab, line feed and carriage return only)");
  CHECK(error_of("name: a\x7f\n") == "t.yaml:1:8: control character 0x7F (YAML allows tab, line feed and carriage return only)");
}

TEST_CASE("A scenario file is UTF-8: other bytes are refused where they are", "[scenario][errors]") {
  // yaml-cpp kept such bytes inside a scalar, and its emitter wrote them back as escapes of other
  // characters (a NUL among them): the resolved scenario did not load again.
  CHECK(error_of("name: \xff\tx\n") == "t.yaml:1:7: byte 0xFF is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: ab\xd4+\n") == "t.yaml:1:9: byte 0xD4 is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: a\x80\n") == "t.yaml:1:8: byte 0x80 is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: \xc0\x80\n") == "t.yaml:1:7: byte 0xC0 is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: \xed\xa0\x80\n") == "t.yaml:1:7: byte 0xED is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: \xf4\x90\x80\x80\n") == "t.yaml:1:7: byte 0xF4 is not UTF-8 (a scenario file is UTF-8 text)");
  CHECK(error_of("name: x\n# ends cut \xe2\x82") == "t.yaml:2:12: byte 0xE2 is not UTF-8 (a scenario file is UTF-8 text)");
  // Columns count bytes: the degree sign takes two.
  CHECK(error_of("name: \xc2\xb0" "C \xff\n") == "t.yaml:1:11: byte 0xFF is not UTF-8 (a scenario file is UTF-8 text)");
  const auto document = dctwin::io::parse_scenario(
      "\xef\xbb\xbf" "name: 20 \xc2\xb0" "C \xe2\x82\xac \xf0\x9f\x8c\xa1\n" + std::string(minimal_scenario), "t.yaml",
      test_schema());
  CHECK(document.tree.values.at("name").text == "20 \xc2\xb0" "C \xe2\x82\xac \xf0\x9f\x8c\xa1");
}

TEST_CASE("Text values hold no control characters but tab and line feed", "[scenario][errors]") {
  // yaml-cpp wrote the DEL of `"a\x7fb"` back raw, and the resolved scenario did not load again.
  CHECK(error_of("name: \"a\\x7fb\"\n") ==
        "t.yaml:1:7: name: text holds control character 0x7F (text allows tab and line feed only)");
  CHECK(error_of("name: \"\\0\"\n") ==
        "t.yaml:1:7: name: text holds control character 0x00 (text allows tab and line feed only)");
  CHECK(error_of("name: \"a\\x85\"\n") ==
        "t.yaml:1:7: name: text holds control character U+0085 (text allows tab and line feed only)");
  CHECK(error_of("name: \"a\\u009fb\"\n") ==
        "t.yaml:1:7: name: text holds control character U+009F (text allows tab and line feed only)");
  // A lone carriage return stayed in a plain scalar and was dropped when it ended the line read back.
  CHECK(error_of("name: a\rb\r\n") ==
        "t.yaml:1:7: name: text holds control character 0x0D (text allows tab and line feed only)");
  CHECK(error_of("name: \"a\\r\\nb\"\n") ==
        "t.yaml:1:7: name: text holds control character 0x0D (text allows tab and line feed only)");
  const auto document = dctwin::io::parse_scenario(
      "name: \"a\\tb\\nc\\u00a0\"\n" + std::string(minimal_scenario), "t.yaml", test_schema());
  CHECK(document.tree.values.at("name").text == "a\tb\nc\xc2\xa0");
  // yaml-cpp decodes the escapes \N (U+0085) and \_ (U+00A0) to lone bytes 0x85 and 0xA0, which
  // are not UTF-8; the resolved scenario written from them did not load again.
  CHECK(error_of("name: \"a\\Nb\"\n") ==
        "t.yaml:1:7: name: text holds control character U+0085 (text allows tab and line feed only)");
  const auto spaces = dctwin::io::parse_scenario(
      "name: \"a\\_b\\_\"\n" + std::string(minimal_scenario), "t.yaml", test_schema());
  CHECK(spaces.tree.values.at("name").text == "a\xc2\xa0" "b\xc2\xa0");
  const std::string resolved = dctwin::io::emit_resolved_yaml(spaces.tree, test_schema());
  CHECK(dctwin::io::parse_scenario(resolved, "r.yaml", test_schema()).tree.values.at("name").text ==
        "a\xc2\xa0" "b\xc2\xa0");
  CHECK(error_of("\"\\N\": 1\n") == error_of("\"\xc2\x85\": 1\n"));
  // Files with CRLF line ends keep working, block scalars included.
  std::string crlf = "name: |\n  two\n  lines\n" + std::string(minimal_scenario);
  for (std::size_t at = crlf.find('\n'); at != std::string::npos; at = crlf.find('\n', at + 2)) crlf.insert(at, "\r");
  const auto windows = dctwin::io::parse_scenario(crlf, "t.yaml", test_schema());
  CHECK(windows.tree.values.at("name").text == "two\nlines\n");
}

// ---- files
// ---------------------------------------------------------------------------------------

TEST_CASE("load_scenario reads a file and reports one it cannot read", "[scenario][files]") {
  const auto directory =
      std::filesystem::temp_directory_path() / ("dctwin-io-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(directory);
  const auto file = directory / "single.yaml";
  {
    std::ofstream out(file);
    out << full_scenario;
  }
  const auto document = io::load_scenario(file, test_schema());
  CHECK(document.file == file.string());
  CHECK(document.source_text == full_scenario);
  CHECK(document.tree.section("server").integer("gpu_count") == 4);
  CHECK(document.tree.values.at("name").location.file == file.string());

  const auto missing = directory / "missing.yaml";
  REQUIRE_THROWS_AS(io::load_scenario(missing, test_schema()), io::MissingInputError);
  REQUIRE_THROWS_WITH(io::load_scenario(missing, test_schema()),
                      missing.string() + ": cannot open scenario file (No such file or directory)");
  REQUIRE_THROWS_WITH(io::load_scenario(directory, test_schema()),
                      directory.string() + ": cannot read scenario file (Is a directory)");
  std::filesystem::remove_all(directory);
}

// ---- locate
// --------------------------------------------------------------------------------------

TEST_CASE("locate finds the closest recorded location of a key path", "[scenario][locate]") {
  const auto document = parse(full_scenario);
  CHECK(io::locate(document, "server.gpus[1].power") == "t.yaml:14:15");
  CHECK(io::locate(document, "server.gpus[1]") == "t.yaml:14:7");
  CHECK(io::locate(document, "server.gpus[0].tdp") == "t.yaml:12:7");   // default: its entry
  CHECK(io::locate(document, "server.gpus[9].power") == "t.yaml:6:3");  // no such entry
  CHECK(io::locate(document, "server.cold_plate.resistance") == "t.yaml:16:17");
  CHECK(io::locate(document, "loop.pump") == "t.yaml:22:5");
  CHECK(io::locate(document, "server") == "t.yaml:6:3");
  CHECK(io::locate(document, "server.no_such_key") == "t.yaml:6:3");
  CHECK(io::locate(document, "nothing.here") == "t.yaml");
  CHECK(io::locate(document, "") == "t.yaml");

  const auto minimal = parse(minimal_scenario);
  CHECK(io::locate(minimal, "loop.pump.head") == "t.yaml");  // nothing of it was written
}

TEST_CASE("describe_error adds the location of a model's key path", "[scenario][locate]") {
  const auto document = parse(full_scenario);
  const dctwin::core::InputError with_path("pump cannot reach the nominal flow",
                                             "loop.pump.nominal_flow");
  CHECK(io::describe_error(document, with_path) ==
        "t.yaml:22:19: pump cannot reach the nominal flow");
  const dctwin::core::InputError without_path("no GPUs at all");
  CHECK(io::describe_error(document, without_path) == "no GPUs at all");
}

// ---- resolved YAML
// -------------------------------------------------------------------------------

TEST_CASE("the resolved scenario is SI, in schema order, and reads back the same",
          "[scenario][emit]") {
  const auto document = parse(full_scenario);
  const std::string yaml = io::emit_resolved_yaml(document.tree, test_schema());
  INFO(yaml);
  CHECK(yaml.find("name: hall A\n") != std::string::npos);
  CHECK(yaml.find("seed: 42\n") != std::string::npos);
  CHECK(yaml.find("  gpu_count: 4\n") != std::string::npos);
  CHECK(yaml.find("  redundant_psu: false\n") != std::string::npos);
  CHECK(yaml.find("  psu_power: 3500 W\n") != std::string::npos);
  CHECK(yaml.find("  arrangement: series\n") != std::string::npos);
  CHECK(yaml.find("    ramp_time: 120 s\n") != std::string::npos);
  CHECK(yaml.find("      tdp: 700 W\n") != std::string::npos);  // default filled in list entry
  // schema order: parameters in table order, then sections (loop before server)
  const auto position = [&](const std::string& key) { return yaml.find(key); };
  CHECK(position("name:") < position("duration:"));
  CHECK(position("duration:") < position("seed:"));
  CHECK(position("seed:") < position("loop:"));
  CHECK(position("loop:") < position("server:"));
  CHECK(position("gpu_count:") < position("psu_power:"));
  CHECK(position("psu_power:") < position("cold_plate:"));
  CHECK(position("cold_plate:") < position("gpus:"));

  const auto again = io::parse_scenario(yaml, "resolved.yaml", test_schema());
  require_same_values(document.tree, again.tree);
  CHECK(io::emit_resolved_yaml(again.tree, test_schema()) == yaml);
}

TEST_CASE("the resolved scenario round-trips defaults, odd text and empty lists",
          "[scenario][emit]") {
  const auto document =
      parse(minimal_plus("name: \"~\"\n"
                         "loop:\n"
                         "  pump:\n"
                         "    nominal_flow: 1.2 L/min\n"));
  const std::string yaml = io::emit_resolved_yaml(document.tree, test_schema());
  INFO(yaml);
  CHECK(yaml.find("inlet_temperature: 305.15 K\n") != std::string::npos);
  CHECK(yaml.find("glycol_fraction: 0.25\n") != std::string::npos);
  CHECK(yaml.find("gpus: []\n") != std::string::npos);
  const auto again = io::parse_scenario(yaml, "resolved.yaml", test_schema());
  require_same_values(document.tree, again.tree);
  CHECK(again.tree.text("name") == "~");

  const auto odd = parse(minimal_plus("name: 'a: b # not a comment'\n"));
  const auto odd_again =
      io::parse_scenario(io::emit_resolved_yaml(odd.tree, test_schema()), "r.yaml", test_schema());
  CHECK(odd_again.tree.text("name") == "a: b # not a comment");
}
