// The replay against closed forms: the single-node site driven by a trace power source settles on
// the hand steady state, and a trace measured at that steady state replays with no error.
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>

#include "dctwin/io/run.hpp"
#include "dctwin/io/validation.hpp"
#include "dctwin/models/facility/single_node.hpp"
#include "dctwin/models/workload/trace_power.hpp"
#include "dctwin/solver/simulator.hpp"

using namespace dctwin;

namespace {

const std::string scenario_file = DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml";

/// A trace power source giving every GPU of the server `power` from 0 to 20 s.
std::shared_ptr<models::workload::TracePowerSource> constant_source(std::size_t gpus, double power) {
  std::vector<std::vector<double>> times(gpus, std::vector<double>{0.0, 20.0});
  std::vector<std::vector<double>> values(gpus, std::vector<double>{power, power});
  return std::make_shared<models::workload::TracePowerSource>(times, values);
}

}  // namespace

TEST_CASE("replay: the site driven by a trace source settles on the hand steady state", "[validation][replay]") {
  const auto document = io::load_scenario_file(scenario_file);
  const models::facility::SingleNodeSite site(document.tree, constant_source(8, 450.0));
  CHECK(!site.has_job());
  const auto x = solver::solve_steady_state(site.system(), 0.0);
  const auto hand = site.hand_steady_junction_temperatures(site.system().initial_discrete());
  for (std::size_t i = 0; i < 8; ++i) {
    INFO("GPU " << i);
    CHECK(x[static_cast<std::size_t>(site.gpus().junction_index(i))] == Approx(hand[i]).margin(1e-6));
  }
  // GPU 5 has the worse thermal interface (resistance_scale 1.15): hottest.
  CHECK(hand[5] > hand[0] + 1.0);
}

TEST_CASE("replay: a trace measured at the steady state replays without error", "[validation][replay]") {
  const auto document = io::load_scenario_file(scenario_file);
  // Compute phase at 1980 MHz: 55 W static + 0.72 x 600 W dynamic, leakage added by the package.
  const double no_leakage = 55.0 + 0.72 * 600.0;
  const models::facility::SingleNodeSite site(document.tree, constant_source(8, no_leakage));
  const auto hand = site.hand_steady_junction_temperatures(site.system().initial_discrete());

  io::TelemetryTrace trace;
  trace.quantities = {"power", "gpu_temperature", "sm_clock"};
  trace.provenance.source = "steady.csv";
  for (int g = 0; g < 2; ++g) {
    io::GpuSeries s;
    s.index = g;
    const double tj = hand[static_cast<std::size_t>(g)];
    const double board = no_leakage + site.gpus().leakage_power(static_cast<std::size_t>(g), tj);
    s.values.resize(3);
    for (int k = 0; k < 30; ++k) {
      s.time.push_back(1.75e9 + k);
      s.values[0].push_back(board);
      s.values[1].push_back(tj);
      s.values[2].push_back(1.98e9);
    }
    trace.gpus.push_back(s);
  }
  const auto result = io::validate_trace(trace, document);
  REQUIRE(result.metrics.size() == 3);
  for (const auto& q : result.metrics) {
    INFO(q.quantity << ": RMSE " << q.overall.rmse);
    CHECK(q.overall.count == 60);
    CHECK(q.overall.rmse < (q.quantity == "sm_clock" ? 1.0 : 1e-6));
    CHECK(q.overall.lag == 0.0);
  }
  CHECK(result.overall_phase_share[static_cast<std::size_t>(io::ReplayPhase::compute)] == 1.0);
  CHECK(result.series[0].time[1][29] == 1.75e9 + 29);

  // More trace GPUs than model GPUs: the exact message.
  io::TelemetryTrace big = trace;
  for (int g = 2; g < 9; ++g) big.gpus.push_back(trace.gpus[0]);
  try {
    (void)io::validate_trace(big, document);
    FAIL("no error");
  } catch (const io::TelemetryError& e) {
    CHECK(std::string(e.what()) == "steady.csv: the trace has 9 GPUs but the scenario's server has 8 "
                                   "(server.gpu_count in " + scenario_file + ")");
  }
}
