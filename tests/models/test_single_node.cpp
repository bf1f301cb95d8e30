// The single-node slice: steady state against the hand calculation, energy conservation.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/single_node.hpp"

using dctwin::models::facility::SingleNodeSite;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The shipped single-node scenario with extra YAML appended (later keys of a mapping are not
/// allowed twice, so the additions go into sections the file does not set).
dctwin::io::ScenarioDocument scenario(const std::string& replace_from, const std::string& replace_to) {
  std::string text = read_file(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml");
  if (!replace_from.empty()) {
    const auto at = text.find(replace_from);
    REQUIRE(at != std::string::npos);
    text.replace(at, replace_from.size(), replace_to);
  }
  return dctwin::io::parse_scenario(text, "single-node.yaml", dctwin::models::facility::scenario_schema());
}

struct Recorder final : dctwin::solver::SimulationObserver {
  SingleNodeSite* site;
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>& out) override {
    site->observe(t, x, out);
  }
};

double figure(const std::vector<dctwin::core::SummaryFigure>& summary, const std::string& name) {
  for (const auto& f : summary)
    if (f.name == name) return f.value;
  FAIL("no summary figure " << name);
  return 0.0;
}

}  // namespace

TEST_CASE("Steady state equals the hand calculation (parallel and series plates)", "[models][single-node]") {
  for (const char* series : {"plates_in_series: 1", "plates_in_series: 2", "plates_in_series: 4"}) {
    DYNAMIC_SECTION(series) {
      const auto doc = scenario("plates_in_series: 1", series);
      SingleNodeSite site(doc.tree);
      const auto x = dctwin::solver::solve_steady_state(site.system(), 0.0);
      const auto hand = site.hand_steady_junction_temperatures(site.system().initial_discrete());
      for (std::size_t i = 0; i < site.gpus().count(); ++i)
        CHECK(std::abs(x[static_cast<std::size_t>(site.gpus().junction_index(i))] - hand[i]) <= 1e-9);
    }
  }
}

TEST_CASE("Eight plates in series starve the loop: leakage runs away and there is no steady state",
          "[models][single-node]") {
  // Series plates multiply the pressure drop, the pump's flow collapses, the coolant heats up
  // plate after plate and the exponential leakage has no fixed point.
  // (The steady state holds the clocks at the top clock: the governor is not part of it.)
  auto doc = scenario("plates_in_series: 1", "plates_in_series: 8");
  doc.tree.sections.at("server").sections.at("gpu").values.at("leakage_power_at_reference").number = 80.0;
  SingleNodeSite site(doc.tree);
  CHECK(site.coolant().total_flow() < 5.0 / 60000.0);
  // The message names the last GPU of the series, where the coolant is hottest.
  using Catch::Matchers::EndsWith;
  using Catch::Matchers::StartsWith;
  CHECK_THROWS_WITH(dctwin::solver::solve_steady_state(site.system(), 0.0),
                    StartsWith("solve_steady_state failed: no convergence in 200 iterations; largest residual at "
                               "gpus.junction_temperature[7] = ") &&
                        EndsWith(" K/s (is there a steady state? e.g. thermal runaway)"));
}

TEST_CASE("A long run at constant power settles on the hand calculation to 1e-6 K", "[models][single-node]") {
  // Same activity in every phase (so the same power), reference tolerances, 40 slowest time
  // constants.
  auto doc = scenario("    batch_size_per_replica: 2\n",
                      "    batch_size_per_replica: 2\n    bubble_activity: 0.72\n    communication_activity: 0.72\n"
                      "    optimizer_activity: 0.72\n    stall_activity: 0.72\n");
  auto& sim = doc.tree.sections.at("simulation");
  sim.values.at("duration").number = 1200.0;
  sim.values.at("output_interval").number = 600.0;
  sim.values.at("mode").text = "reference";
  for (const char* series : {"1", "2"}) {
    DYNAMIC_SECTION("plates in series " << series) {
      doc.tree.sections.at("loop").values.at("plates_in_series").number = std::stod(series);
      SingleNodeSite site(doc.tree);
      dctwin::solver::Simulator simulator(site.system(), site.settings());
      Recorder recorder;
      recorder.site = &site;
      REQUIRE(simulator.run(recorder).finished());
      const auto& x = simulator.final_state();
      double worst = 0.0;
      const auto hand = site.hand_steady_junction_temperatures(site.system().initial_discrete());
      for (std::size_t i = 0; i < site.gpus().count(); ++i)
        worst = std::max(worst, std::abs(x[static_cast<std::size_t>(site.gpus().junction_index(i))] - hand[i]));
      INFO("worst deviation " << worst << " K");
      CHECK(worst <= 1e-6);
    }
  }
}

TEST_CASE("Energy is conserved: generated = removed + stored change to 1e-6", "[models][single-node]") {
  for (const char* mode : {"fast", "reference"}) {
    DYNAMIC_SECTION(mode) {
      auto doc = scenario("mode: fast", std::string("mode: ") + mode);
      // Without leakage the heat generated is the exact integral of the schedule.
      doc.tree.sections.at("server").sections.at("gpu").values.at("leakage_power_at_reference").number = 0.0;
      SingleNodeSite site(doc.tree);
      dctwin::solver::Simulator simulator(site.system(), site.settings());
      Recorder recorder;
      recorder.site = &site;
      const auto x0 = site.initial_state();
      REQUIRE(simulator.run(x0, recorder).finished());
      const auto summary = site.summary(x0, simulator.final_state(), simulator.final_discrete());
      CHECK(figure(summary, "energy_balance_relative_error") <= 1e-6);
      // The generated heat is the exact integral of the phases' power over 600 s: no GPU throttles
      // at a 32 degC supply, so every phase lasts its planned time at the top clock.
      const auto& job = site.job();
      const auto& plan = job.plan();
      const auto& jp = job.parameters().job;
      const double p_dyn = job.power_model().dynamic_power(1.0, job.power_model().parameters().max_clock);
      const double stall = job.parameters().checkpoint.stall_time(jp.model_parameters);
      struct Piece { double duration, activity; };
      const std::vector<Piece> step = {{plan.compute_time, jp.compute_activity},
                                       {plan.bubble_time, jp.bubble_activity},
                                       {plan.communication_time, jp.communication_activity},
                                       {plan.optimizer_time, jp.optimizer_activity}};
      double t = 0.0, activity_integral = 0.0;
      for (int n = 1; t < 600.0; ++n) {
        for (const auto& piece : step) {
          const double d = std::min(piece.duration, 600.0 - t);
          activity_integral += d * piece.activity;
          t += d;
        }
        if (n % job.parameters().checkpoint.interval_steps == 0 && t < 600.0) {
          const double d = std::min(stall, 600.0 - t);
          activity_integral += d * jp.stall_activity;
          t += d;
        }
      }
      const double statics = 8.0 * job.power_model().parameters().static_power * 600.0;
      const double exact = statics + (7.0 + 1.04) * p_dyn * activity_integral;
      // Reference mode integrates each phase's constant power exactly. In fast mode the forced
      // responses hand the step responses' heat to the coolant through the integrator, so the
      // generated heat (conserved exactly, above) carries the integrator's error: 9e-6 measured.
      CHECK(figure(summary, "heat_generated") == Approx(exact).epsilon(std::string(mode) == "fast" ? 1e-4 : 1e-6));
      CHECK(figure(summary, "steps_completed") == Approx(std::floor(600.0 / (plan.step_time() + stall / 50.0))).margin(1.0));
    }
  }
}

TEST_CASE("The hotter GPU of the spread is the hottest, and the coolant warms in series", "[models][single-node]") {
  const auto doc = scenario("plates_in_series: 1", "plates_in_series: 2");
  SingleNodeSite site(doc.tree);
  const auto x = dctwin::solver::solve_steady_state(site.system(), 0.0);
  auto tj = [&](std::size_t i) { return x[static_cast<std::size_t>(site.gpus().junction_index(i))]; };
  // GPU 5 has 4 % more power and 15 % more resistance.
  for (std::size_t i = 0; i < 8; ++i)
    if (i != 5) CHECK(tj(5) > tj(i));
  // Second plate of each branch sits in warmer coolant than the first.
  CHECK(tj(1) > tj(0));
  CHECK(tj(3) > tj(2));
}
