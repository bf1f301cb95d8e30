// Rack-scale layouts (GB200 NVL72: 18 compute trays of 4 GPUs) read against the facility's tables,
// and the bound widened for them refuses the value just above it with the wording io/ gives every
// parameter table, where it is written.
#include <catch2/catch.hpp>

#include <string>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"
#include "test_schema.hpp"

using dctwin::io::test::error_of;

namespace {

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
