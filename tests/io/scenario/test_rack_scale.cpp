// The rack-scale system shipped in scenarios/gb200-nvl72-pod.yaml (GB200 NVL72: 18 compute trays of
// 4 GPUs at ~1.2 kW) reads against the facility's tables, and the bounds widened for it refuse the
// value just above them with the wording io/ gives every parameter table, where it is written.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"
#include "test_schema.hpp"

using dctwin::io::test::error_of;

namespace {

std::string shipped_scenario() {
  std::ifstream in(DCTWIN_SOURCE_DIR "/scenarios/gb200-nvl72-pod.yaml");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The shipped scenario with its line `line` replaced by `replacement`.
std::string with(const std::string& line, const std::string& replacement) {
  std::string scenario = shipped_scenario();
  const auto at = scenario.find("\n" + line + "\n");
  REQUIRE(at != std::string::npos);
  REQUIRE(scenario.find("\n" + line + "\n", at + 1) == std::string::npos);
  scenario.replace(at + 1, line.size(), replacement);
  return scenario;
}

const dctwin::core::SectionSchema& schema() {
  static const auto site = dctwin::models::facility::scenario_schema();
  return site;
}

}  // namespace

TEST_CASE("A rack holds up to 18 servers (GB200 NVL72: 18 compute trays)", "[scenario][facility]") {
  const auto layout = [](const std::string& servers) {
    return error_of("name: t\nsite: facility\nfacility:\n  layout:\n    servers_per_rack: " + servers +
                        "\n    gpus_per_server: 4\n",
                    schema());
  };
  CHECK(layout("18") == "(no error)");
  CHECK(layout("19") == "t.yaml:5:23: facility.layout.servers_per_rack = 19 (must be in [1, 18])");
  CHECK(layout("0") == "t.yaml:5:23: facility.layout.servers_per_rack = 0 (must be in [1, 18])");
}

TEST_CASE("The shipped GB200 NVL72 pod reads: 18 trays of 4 GPUs at 1.2 kW", "[scenario][facility]") {
  CHECK(error_of(shipped_scenario(), schema()) == "(no error)");
  // The widened bounds themselves are admitted.
  CHECK(error_of(with("    power_limit: 1200 W", "    power_limit: 1400 W"), schema()) == "(no error)");
}

TEST_CASE("Just above the rack-scale bounds: exact messages where the value is written", "[scenario][facility]") {
  CHECK(error_of(with("    servers_per_rack: 18", "    servers_per_rack: 19"), schema()) ==
        "t.yaml:52:23: facility.layout.servers_per_rack = 19 (must be in [1, 18])");
  CHECK(error_of(with("    power_limit: 1200 W", "    power_limit: 1401 W"), schema()) ==
        "t.yaml:38:18: workload.gpu_power.power_limit = 1401 W (must be in (0, 1400] W)");
  CHECK(error_of(with("    power_limit: 1200 W", "    power_limit: 1.5 kW"), schema()) ==
        "t.yaml:38:18: workload.gpu_power.power_limit = 1.5 kW (must be in (0, 1400] W)");
}
