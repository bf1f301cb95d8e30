// Operating envelopes: the sampled time outside a band, the first sample outside and the value
// furthest outside, against hand counts; and a small hall on a humid heatwave afternoon whose tower
// runs beyond its correlation's wet bulb.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/envelope.hpp"
#include "dctwin/models/facility/facility_site.hpp"
#include "dctwin/solver/simulator.hpp"

using dctwin::models::facility::EnvelopeMonitor;

namespace {

double figure(const std::vector<dctwin::solver::SummaryFigure>& summary, const std::string& name) {
  for (const auto& f : summary)
    if (f.name == name) return f.value;
  FAIL("no summary figure " << name);
  return 0.0;
}

}  // namespace

TEST_CASE("an envelope counts the sampled time outside its band, the first sample and the worst value",
          "[facility][envelope]") {
  EnvelopeMonitor monitor;
  const auto ceiling = monitor.add({"t", "temperature", "at most 300 K", "K", -std::numeric_limits<double>::infinity(), 300.0});
  const auto band = monitor.add({"b", "value", "within [1, 2]", "1", 1.0, 2.0});
  // Samples every 2 s: outside the ceiling at t = 4, 6 and 10 (three intervals of 2 s ending there).
  const double temperatures[] = {290.0, 299.0, 301.0, 305.0, 300.0, 302.0};
  const double values[] = {1.5, 1.5, 1.5, 0.5, 1.5, 2.5};
  for (int k = 0; k < 6; ++k) {
    monitor.observe(ceiling, 2.0 * k, temperatures[k]);
    monitor.observe(band, 2.0 * k, values[k]);
  }
  const auto s = monitor.summary();
  CHECK(figure(s, "envelope_t_time") == 6.0);
  CHECK(figure(s, "envelope_t_first") == 4.0);
  CHECK(figure(s, "envelope_t_worst") == 305.0);
  CHECK(figure(s, "envelope_b_time") == 4.0);   // t = 6 (below) and t = 10 (above)
  CHECK(figure(s, "envelope_b_first") == 6.0);
  CHECK(figure(s, "envelope_b_worst") == 0.5);  // 0.5 below beats 0.5 above: the first kept
  CHECK(monitor.violated() == 2);

  // Never outside: time 0, first -1, worst the sample nearest the edge; the first sample itself
  // counts no interval.
  EnvelopeMonitor calm;
  const auto k = calm.add({"c", "x", "at most 10", "1", -std::numeric_limits<double>::infinity(), 10.0});
  calm.observe(k, 0.0, 3.0);
  calm.observe(k, 1.0, 7.0);
  calm.observe(k, 2.0, 5.0);
  CHECK(figure(calm.summary(), "envelope_c_time") == 0.0);
  CHECK(figure(calm.summary(), "envelope_c_first") == -1.0);
  CHECK(figure(calm.summary(), "envelope_c_worst") == 7.0);
  CHECK(calm.violated() == 0);
  EnvelopeMonitor early;
  const auto e = early.add({"e", "x", "at most 10", "1", -std::numeric_limits<double>::infinity(), 10.0});
  early.observe(e, 5.0, 11.0);
  CHECK(figure(early.summary(), "envelope_e_time") == 0.0);
  CHECK(figure(early.summary(), "envelope_e_first") == 5.0);
}

TEST_CASE("a humid heatwave is counted: the tower runs beyond its correlation's wet bulb",
          "[facility][envelope]") {
  // Liquid-to-liquid hall of two small pods on the heatwave day of scenarios/heatwave-pump-failure.yaml
  // (wet bulb 30 degC, above the YorkCalc correlation's 26.7 degC), and without it.
  auto site_on = [](const std::string& wet_bulb) {
    const std::string text =
        "name: small\nsite: facility\nsimulation:\n  output_interval: 5 s\n  duration: 20 s\n"
        "facility:\n  cooling: liquid-to-liquid\n  layout: {pods: 2, racks_per_pod: 4}\n  pod_loop: {rack_count: 4}\n"
        "  weather:\n    source: design_day\n    design_day:\n      design_dry_bulb: 41 degC\n"
        "      daily_range: 10 K\n      coincident_wet_bulb: " + wet_bulb + "\n"
        "workload:\n  job: {pipeline_parallel: 2}\n";
    return dctwin::io::parse_scenario(text, "small.yaml", dctwin::models::facility::scenario_schema());
  };
  struct Observer final : dctwin::solver::SimulationObserver {
    dctwin::models::facility::FacilitySite* site = nullptr;
    void on_sample(double t, const std::vector<double>& x, const std::vector<double>& out) override {
      site->observe(t, x, out);
    }
  };
  auto summary_of = [&](const std::string& wet_bulb) {
    const auto doc = site_on(wet_bulb);
    dctwin::models::facility::FacilitySite site(doc.tree, std::nullopt);
    dctwin::solver::Simulator simulator(site.system(), site.settings());
    Observer observer;
    observer.site = &site;
    const auto x0 = site.initial_state();
    REQUIRE(simulator.run(x0, observer).finished());
    return site.summary(x0, simulator.final_state(), simulator.final_discrete());
  };
  const auto humid = summary_of("30 degC");
  CHECK(figure(humid, "envelope_cooling_tower_wet_bulb_first") == 0.0);
  CHECK(figure(humid, "envelope_cooling_tower_wet_bulb_time") == 20.0);
  CHECK(figure(humid, "envelope_cooling_tower_wet_bulb_worst") > 273.15 + 26.7);
  const auto dry = summary_of("20 degC");
  CHECK(figure(dry, "envelope_cooling_tower_wet_bulb_first") == -1.0);
  CHECK(figure(dry, "envelope_cooling_tower_wet_bulb_time") == 0.0);
  // Each envelope left adds one to limit_violations.
  CHECK(figure(humid, "limit_violations") - figure(dry, "limit_violations") >= 1.0);
}
