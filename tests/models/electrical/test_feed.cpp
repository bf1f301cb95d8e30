// The electrical feed: energy conservation over a square-wave load with and without storage, the
// multirate stepping (knots at odd times give the same grid energy as knots on the grid), samples on
// the output grid, the summary's names, and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "dctwin/models/electrical/feed.hpp"
#include "feed_fixture.hpp"

using namespace feed_test;

namespace {

/// A resolved tree of a schema at its defaults, sub-sections included (lists left empty).
ParameterTree tree_from(const SectionSchema& schema, const std::string& path) {
  ParameterTree tree = defaults_tree(schema.parameters, path);
  for (const auto& [name, section] : schema.sections) tree.sections[name] = tree_from(section, path + "." + name);
  return tree;
}

/// A load waveform: piecewise linear between breakpoints, with a jump allowed at each breakpoint.
struct Breakpoint {
  double time, left, right;  // IT load per lineup [W] just before and just after
};

struct Wave {
  std::vector<Breakpoint> points;
  /// Value at t approached from the right (after a jump) or the left.
  [[nodiscard]] double at(double t, bool from_right) const {
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      const auto& a = points[i];
      const auto& b = points[i + 1];
      if (t == a.time && from_right) return a.right;
      if (t == b.time && !from_right) return b.left;
      if (t > a.time && t < b.time) return a.right + (b.left - a.right) * (t - a.time) / (b.time - a.time);
    }
    return from_right ? points.back().right : points.back().left;
  }
};

/// Square wave 1.2 / 3.0 MW per lineup with 1 s halves over 10 s from `start`, edges at
/// start + shift + k s, and one linear ramp (from high to low over 0.4 s) instead of the fourth edge.
Wave square_wave(double start = 0.0, double shift = 0.0) {
  Wave w;
  const double low = 1.2e6, high = 3.0e6;
  w.points.push_back({start, low, low});
  const double offset = start + shift;
  for (int k = 1; k <= 10; ++k) {
    const double before = (k % 2 == 1) ? low : high;
    const double after = (k % 2 == 1) ? high : low;
    if (k == 4) {
      // a ramp instead of a jump at 4 s: down from high at 4.0 to low at 4.4
      w.points.push_back({offset + 4.0, high, high});
      w.points.push_back({offset + 4.4, low, low});
      continue;
    }
    w.points.push_back({offset + k, before, after});
  }
  return w;
}

FeedLoad load(double it, double mechanical) {
  FeedLoad f;
  f.it.assign(lineups, it);
  f.it[1] = 0.8 * it;  // the lineups differ
  f.mechanical = mechanical;
  return f;
}

double mechanical_at(double it) { return 0.6e6 + 0.1 * it; }  // cooling follows the IT load a little

/// Runs the feed through `knots` (sorted, starting at the feed's time; every breakpoint of the wave
/// must be a knot).
void run(ElectricalFeed& feed, const Wave& wave, const std::vector<double>& knots) {
  for (std::size_t i = 0; i + 1 < knots.size(); ++i) {
    const double a = wave.at(knots[i], true), b = wave.at(knots[i + 1], false);
    feed.advance(knots[i + 1], load(a, mechanical_at(a)), load(b, mechanical_at(b)));
  }
}

std::vector<double> knots_with(const Wave& wave, double start, double end, double spacing, double phase) {
  std::set<double> k;
  for (const auto& p : wave.points)
    if (p.time >= start && p.time <= end) k.insert(p.time);
  for (double t = start + phase; t < end; t += spacing) k.insert(t);
  k.insert(start);
  k.insert(end);
  return {k.begin(), k.end()};
}

ElectricalParameters parameters(bool storage) {
  ElectricalParameters p;
  p.capacitor_storage.enabled = storage;
  p.battery_storage.enabled = storage;
  return p;
}

double imbalance(const FeedEnergy& e) { return std::fabs(e.grid - (e.load + e.losses + e.storage_change)) / e.grid; }

}  // namespace

TEST_CASE("Feed conserves energy over a square-wave load", "[electrical][feed]") {
  for (const bool storage : {false, true}) {
    const Wave wave = square_wave();
    const double start_it = wave.at(0.0, true);
    ElectricalFeed feed = reference_feed(parameters(storage), load(start_it, mechanical_at(start_it)));
    run(feed, wave, knots_with(wave, 0.0, 10.0, 0.1, 0.0));
    const FeedEnergy e = feed.energy();
    INFO("storage " << storage << ": grid " << e.grid << " J, load " << e.load << " J, losses " << e.losses
                    << " J, storage change " << e.storage_change << " J, imbalance " << imbalance(e));
    CHECK(imbalance(e) <= 1e-6);
    CHECK(imbalance(e) <= 1e-11);
    // At the IT power boundary (the server inlets): grid = IT + cooling + the losses upstream of
    // the inlets + the change of the energy stored outside the servers.
    const double at_inlets =
        e.server_input + e.mechanical + e.upstream_losses + (e.storage_change - e.server_storage_change);
    CHECK(std::fabs(e.grid - at_inlets) <= 1e-11 * e.grid);
    CHECK(e.server_input > e.server_output);
    CHECK(e.server_output + e.mechanical == Approx(e.load).epsilon(1e-14));
    double sum = 0.0;
    for (const auto& [name, value] : e.loss_by_stage) {
      CHECK(value >= 0.0);
      sum += value;
    }
    CHECK(sum == Approx(e.losses).epsilon(1e-14));
    if (!storage) {
      CHECK(e.losses > 0.03 * e.load);  // a few percent of the load, as a data-centre chain loses
      CHECK(e.losses < 0.12 * e.load);
    }
    CHECK(feed.time() == Approx(10.0).epsilon(1e-14));
    CHECK(feed.grid_steps() == 10000);
    if (storage) {
      CHECK(std::fabs(e.storage_change) > 0.0);
      // The storage takes swing out of the grid power.
      ElectricalFeed bare = reference_feed(parameters(false), load(start_it, mechanical_at(start_it)));
      run(bare, wave, knots_with(wave, 0.0, 10.0, 0.1, 0.0));
      CHECK(feed.metrics().power_peak_to_peak < bare.metrics().power_peak_to_peak);
    }
  }
}

TEST_CASE("PUE of one steady lineup matches its stage-by-stage closed form", "[electrical][feed]") {
  // One lineup of 10 servers in 5 racks at a constant DC load with the static stages rated so that
  // each works inside its curve; the feeder's loss is taken from its account (its I^2 R depends on
  // the bus voltage phasor), every other stage from its formula:
  //   P_in = P_dc / eta_psu(x_psu)        x_psu = P_dc / (10 servers x 3 active x 3.3 kW) = 0.5 -> 0.96
  //   P_pdu = P_in + P_bbu                P_bbu = 5 racks x 2 units x 30 W
  //   P_ups = P_pdu + 0.01 P_pdu^2 / S_pdu
  //   P_ups,in = P_ups / eta_ups(P_ups / S_ups),   eta_ups = 0.965 + 0.001 (x - 0.5) / 0.25 on [0.5, 0.75]
  //   P_lv = P_ups,in + 0.0025 P_ups,in^2 / S_swb
  //   T = 2 units (P_0 + P_LL K^2),  K = P_lv / (2 S_t pf_ups);   T_m = P_0 + P_LL k^2,  k = M / (S_t pf_m)
  //   PUE = (P_lv + T + M + T_m + feeder) / P_in
  ElectricalParameters p;
  p.pdu.rated_power = 100e3;
  p.ups.rated_power = 100e3;
  p.switchboard.rated_power = 100e3;
  const double dc = 49.5e3, mechanical = 20e3;
  FeedLoad steady;
  steady.it = {dc};
  steady.mechanical = mechanical;
  ElectricalFeed feed(p, 1, 10, 5, ambient, 0.0, steady);
  feed.advance(2.0, steady, steady);
  const FeedEnergy e = feed.energy();
  const double in = dc / 0.96;
  const double pdu = in + 5.0 * 2.0 * 30.0;
  const double ups = pdu + 0.01 * pdu * pdu / 100e3;
  const double x = ups / 100e3;
  REQUIRE(x > 0.5);
  REQUIRE(x < 0.75);
  const double ups_in = ups / (0.965 + 0.001 * (x - 0.5) / 0.25);
  const double lv = ups_in + 0.0025 * ups_in * ups_in / 100e3;
  const double k_it = lv / (2.0 * 2.5e6 * 0.99);
  const double transformers = 2.0 * (2300.0 + 14000.0 * k_it * k_it);
  const double k_m = mechanical / (2.5e6 * 0.95);
  const double mechanical_transformer = 2300.0 + 14000.0 * k_m * k_m;
  double feeder = 0.0;
  for (const auto& [stage, loss] : e.loss_by_stage)
    if (stage == "feeder") feeder = loss / 2.0;
  const double pue = (lv + transformers + mechanical + mechanical_transformer + feeder) / in;
  INFO("PUE " << e.grid / e.server_input << " against " << pue);
  CHECK(e.server_input == Approx(2.0 * in).epsilon(1e-12));
  CHECK(e.mechanical == Approx(2.0 * mechanical).epsilon(1e-12));
  CHECK(e.grid / e.server_input == Approx(pue).epsilon(1e-9));
  CHECK(feeder > 0.0);
}

TEST_CASE("Knots at odd times give the same grid energy as knots on the grid", "[electrical][feed]") {
  for (const bool storage : {false, true}) {
    const Wave wave = square_wave();
    const double start_it = wave.at(0.0, true);
    ElectricalFeed on_grid = reference_feed(parameters(storage), load(start_it, mechanical_at(start_it)));
    ElectricalFeed odd = reference_feed(parameters(storage), load(start_it, mechanical_at(start_it)));
    run(on_grid, wave, knots_with(wave, 0.0, 10.0, 0.1, 0.0));
    run(odd, wave, knots_with(wave, 0.0, 10.0, 0.0913, 0.0437));
    const double a = on_grid.energy().grid, b = odd.energy().grid;
    INFO("storage " << storage << ": relative difference " << std::fabs(a - b) / a);
    CHECK(std::fabs(a - b) <= 1e-9 * a);
    CHECK(imbalance(odd.energy()) <= 1e-11);
    CHECK(odd.grid_steps() == on_grid.grid_steps());
    CHECK(odd.utility().frequency() == Approx(on_grid.utility().frequency()).epsilon(1e-9));
  }
}

TEST_CASE("Load edges at odd times are resolved and samples lie on the output grid", "[electrical][feed]") {
  ElectricalParameters p = parameters(true);
  p.output_interval = 5e-3;
  const double t0 = 0.25;
  const Wave wave = square_wave(t0, 0.0004321);  // edges between grid points
  const double start_it = wave.at(t0, true);
  ElectricalFeed feed = reference_feed(p, load(start_it, mechanical_at(start_it)), t0);
  run(feed, wave, knots_with(wave, t0, t0 + 6.0, 0.1, 0.0));
  CHECK(feed.time() == Approx(t0 + 6.0).epsilon(1e-14));
  CHECK(imbalance(feed.energy()) <= 1e-11);
  const auto& samples = feed.samples();
  REQUIRE(samples.size() == 1201);  // t0 and every 5 ms for 6 s
  for (std::size_t k = 0; k < samples.size(); ++k) {
    CHECK(std::fabs(samples[k].time - (t0 + static_cast<double>(k) * p.output_interval)) <= 1e-12);
    CHECK(samples[k].frequency > 59.0);
    CHECK(samples[k].voltage > 0.95);
    CHECK(samples[k].hot_spot > ambient);
  }
  feed.clear_samples();
  CHECK(feed.samples().empty());
  // A run that ends between grid points leaves a partial step that the next call completes.
  const double a = wave.at(feed.time(), true);
  feed.advance(t0 + 6.0 + 0.0025, load(a, mechanical_at(a)), load(a, mechanical_at(a)));
  CHECK(feed.samples().empty());
  feed.advance(t0 + 6.0 + 0.006, load(a, mechanical_at(a)), load(a, mechanical_at(a)));
  REQUIRE(feed.samples().size() == 1);
  CHECK(feed.samples()[0].time == Approx(t0 + 6.005).epsilon(1e-14));
}

TEST_CASE("Transformer hot spots at the samples are the units' state at each grid point", "[electrical][feed]") {
  // The transformers' thermal models are stepped after each advance; the hot spots of the samples
  // taken inside it are filled in then. Rising from the ambient, every sample's hot spot differs.
  ElectricalParameters p = parameters(false);
  p.output_interval = p.time_step;
  p.transformer.start_at_steady_state = false;
  // The second lineup carries more than the first (1.3 x the 0.8 that load() gives it), so its
  // unit, not the first, is the hottest.
  auto uneven = [](double it) {
    FeedLoad l = load(it, mechanical_at(it));
    l.it[1] *= 1.3;
    return l;
  };
  ElectricalFeed feed = reference_feed(p, uneven(2.0e6));
  double previous = feed.samples().back().hot_spot;
  std::size_t checked = 0;
  for (int k = 1; k <= 40; ++k) {
    const double t1 = 0.025 * k;  // on the grid: each advance ends at a grid point
    const double it0 = 2.0e6 + 2.5e4 * (k - 1), it1 = 2.0e6 + 2.5e4 * k;
    const std::size_t before = feed.samples().size();
    feed.advance(t1, uneven(it0), uneven(it1));
    const auto& samples = feed.samples();
    REQUIRE(samples.size() > before);
    for (std::size_t i = before; i < samples.size(); ++i, ++checked) {
      CHECK(samples[i].hot_spot > previous);
      previous = samples[i].hot_spot;
    }
    CHECK(samples.back().hot_spot == feed.hot_spot());
    CHECK(feed.metrics().transformer_hot_spot_max == feed.hot_spot());
  }
  CHECK(checked == 1000);  // every 1-ms grid point of the first second
  CHECK(feed.loss_of_life() > 0.0);
}

TEST_CASE("Feed starts in steady state and reports its summary", "[electrical][feed]") {
  const FeedLoad steady = load(2.5e6, 1.0e6);
  ElectricalFeed feed = reference_feed(parameters(true), steady);
  feed.advance(2.0, steady, steady);
  const GridMetrics m = feed.metrics();
  CHECK(m.power_peak_to_peak <= 1e-6 * feed.samples().back().grid_power);
  CHECK(std::fabs(m.frequency_nadir - 60.0) <= 1e-9);
  CHECK(feed.psu_bulk_voltage_min() == Approx(400.0).epsilon(1e-9));
  const auto summary = feed.summary();
  std::set<std::string> names;
  for (const auto& f : summary) names.insert(f.name);
  for (const char* name :
       {"grid_power_peak_to_peak", "grid_ramp_rate_max_10ms", "grid_ramp_rate_max_100ms", "grid_ramp_rate_max_1s",
        "grid_band_energy_fraction_0p1_20hz",
        "grid_band_energy_fraction_below_1hz", "grid_band_energy_fraction_1_2p5hz", "grid_band_energy_fraction_7_40hz",
        "grid_frequency_nadir", "grid_frequency_zenith", "grid_rocof_max", "grid_voltage_change_max",
        "transformer_hot_spot_max", "transformer_loss_of_life", "grid_energy", "electrical_losses",
        "storage_throughput", "storage_losses", "capacitor_energy_swing", "battery_energy_swing",
        "grid_limit_violations", "psu_bulk_voltage_min", "torsional_amplitude_max"})
    CHECK(names.count(name) == 1);
  // Two seconds of record hold two windows of 1 s but not of 1 min: that figure is left out.
  CHECK(names.count("grid_ramp_rate_max_1min") == 0);
  CHECK(names.count("grid_ramp_rate_max") == 0);
  for (const auto& c : feed.limit_checks()) CHECK(names.count("grid_limit_" + c.name) == 1);
  for (const auto& f : summary)
    if (f.name == "grid_limit_ramp_rate") CHECK(f.long_name == "Grid limit ramp_rate (over 1s windows) kept (1) or exceeded (0)");
}

TEST_CASE("Bad electrical input names the key", "[electrical][feed]") {
  const SectionSchema schema = ElectricalParameters::schema();
  const ParameterTree tree = tree_from(schema, "electrical");
  CHECK(input_error([&] { ElectricalParameters::from(tree); }).empty());
  auto bad = tree;
  bad.values["output_interval"].number = 1.5e-3;
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical: output_interval 0.0015 s is not a whole multiple of time_step 0.001 s");
  bad = tree;
  bad.sections["feeder"].values["capacitor_bank_rating"].number = -2e6;
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.feeder.capacitor_bank_rating = -2000000 VA (must be >= 0)");
  bad = tree;
  bad.sections["psu"].values["bulk_capacitance"].number = -1e-3;
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.psu.bulk_capacitance = -0.001 F (must be > 0)");
  bad = tree;
  bad.values["time_step"].number = 0.0;
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.time_step = 0 s (must be in [0.0001, 0.01] s)");

  ElectricalFeed feed = reference_feed(ElectricalParameters{}, load(1e6, 1e6));
  CHECK(input_error([&] { feed.advance(0.5, load(-1.0, 1e6), load(1e6, 1e6)); }) ==
        "electrical feed: IT load of lineup 0 at t = 0 s is -1 W (must be a finite number >= 0)");
  feed.advance(0.5, load(1e6, 1e6), load(1e6, 1e6));
  CHECK(input_error([&] { feed.advance(0.4, load(1e6, 1e6), load(1e6, 1e6)); }) ==
        "electrical feed: advance to t = 0.4 s, before the feed's time 0.5 s");
}
