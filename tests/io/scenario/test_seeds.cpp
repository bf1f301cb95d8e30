// Seeds as unsigned 64-bit integers, read exactly from scenario files.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"
#include "test_schema.hpp"

namespace io = dctwin::io;
using dctwin::io::test::error_of;

namespace {

std::string single_node() {
  std::ifstream in(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// scenarios/single-node.yaml with `seed: SEED` as the first key of `simulation:` (line 17,
/// the value at column 9).
std::string single_node_with_seed(const std::string& seed) {
  std::string scenario = single_node();
  const std::string anchor = "\nsimulation:\n";
  const auto at = scenario.find(anchor);
  REQUIRE(at != std::string::npos);
  scenario.insert(at + anchor.size(), "  seed: " + seed + "\n");
  return scenario;
}

const dctwin::core::SectionSchema& facility_schema() {
  static const auto schema = dctwin::models::facility::scenario_schema();
  return schema;
}

std::string seed_error(const std::string& seed) {
  return error_of(single_node_with_seed(seed), facility_schema());
}

}  // namespace

TEST_CASE("A scenario's seed is a whole number 0 to 2^64-1, read exactly", "[scenario][seed]") {
  struct Case {
    const char* written;
    std::uint64_t value;
  };
  const Case cases[] = {
      {"0", 0},
      {"7", 7},
      {"9007199254740993", 9007199254740993ULL},   // 2^53 + 1: a double would round it to 2^53
      {"9223372036854775807", 9223372036854775807ULL},
      {"9223372036854775808", 9223372036854775808ULL},  // 2^63: beyond a signed 64-bit integer
      {"18446744073709551615", 18446744073709551615ULL},
      {"+42", 42},
      {"\"12345678901234567891\"", 12345678901234567891ULL},
  };
  for (const auto& c : cases) {
    INFO(c.written);
    const io::ScenarioDocument document = io::parse_scenario(single_node_with_seed(c.written), "s.yaml", facility_schema());
    // The resolved scenario (as every report stores it) carries the exact value and reads back.
    const std::string resolved = io::emit_resolved_yaml(document.tree, facility_schema());
    CHECK(resolved.find("  seed: " + std::to_string(c.value) + "\n") != std::string::npos);
    const io::ScenarioDocument again = io::parse_scenario(resolved, "resolved.yaml", facility_schema());
    CHECK(again.tree.section("simulation").unsigned_integer("seed") == c.value);
    CHECK(document.tree.section("simulation").unsigned_integer("seed") == c.value);
  }
  // Without the key: the default, 1.
  const io::ScenarioDocument defaults = io::parse_scenario(single_node(), "s.yaml", facility_schema());
  CHECK(defaults.tree.section("simulation").unsigned_integer("seed") == 1);
}

TEST_CASE("Seeds above 2^64-1, negative or not whole are refused with their place", "[scenario][seed][errors]") {
  CHECK(seed_error("18446744073709551616") ==
        "t.yaml:17:9: simulation.seed = 18446744073709551616 (must be <= 18446744073709551615)");
  CHECK(seed_error("100000000000000000000000") ==
        "t.yaml:17:9: simulation.seed = 100000000000000000000000 (must be <= 18446744073709551615)");
  CHECK(seed_error("-1") == "t.yaml:17:9: simulation.seed = -1 (must be >= 0)");
  CHECK(seed_error("-9223372036854775809") == "t.yaml:17:9: simulation.seed = -9223372036854775809 (must be >= 0)");
  CHECK(seed_error("1.5") == "t.yaml:17:9: simulation.seed = 1.5 (must be an integer)");
  CHECK(seed_error("1e3") == "t.yaml:17:9: simulation.seed = 1e3 (must be an integer)");
  CHECK(seed_error("0x10") == "t.yaml:17:9: simulation.seed = 0x10 (must be an integer)");
  CHECK(seed_error("seven") == "t.yaml:17:9: simulation.seed = seven (must be an integer)");
  CHECK(seed_error(".nan") == "t.yaml:17:9: simulation.seed = .nan (must be an integer)");
  CHECK(seed_error("\"\"") == "t.yaml:17:9: simulation.seed = \"\" (must be an integer)");
}
