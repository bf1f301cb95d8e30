// Transport of temperature fronts through a pod's mains, headers and rack hoses
// (facility::PodHeaderTransport): plug-flow times against their closed forms, fronts that arrive
// after V / Q at constant flow and where the integral of Q dt reaches V when the flow changes in
// transit, and the energy held in the pipes accounted for.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <vector>

#include "dctwin/models/facility/layout.hpp"
#include "dctwin/models/facility/liquid_cooling.hpp"
#include "dctwin/solver/simulator.hpp"

using dctwin::models::facility::CoolantConstants;
using dctwin::models::facility::FacilityLayout;
using dctwin::models::facility::FlowPhase;
using dctwin::models::facility::FlowPlan;
using dctwin::models::facility::LayoutParameters;
using dctwin::models::facility::PodHeaderTransport;
using dctwin::solver::EvalContext;
using dctwin::solver::Index;

namespace {

constexpr double kBase = 300.0;        // [K] every pipe at the start
constexpr double kStep = 1.0;          // [K] the pod supply steps by this at t = 0
constexpr double kRackFlow = 4e-4;     // [m3/s] per rack (24 L/min)
constexpr std::size_t kRacks = 4;      // racks on the pod's headers
const CoolantConstants kCoolant{1000.0, 4000.0};

/// Fixed temperatures at the pipes' ends: the pod supply (the supply main's inlet) and each rack's
/// outlet (into the return header).
class Boundary final : public dctwin::solver::Component {
 public:
  Boundary(std::size_t racks, double supply, double outlet)
      : Component("boundary"), racks_(racks), supply_temperature_(supply), outlet_temperature_(outlet) {
    supply_ = declare_state_group({"supply", "K", "pod supply", 1});
    outlet_ = declare_state_group({"outlet", "K", "rack outlets", static_cast<Index>(racks)});
  }
  [[nodiscard]] Index supply(std::size_t) const { return index(supply_); }
  [[nodiscard]] Index outlet(std::size_t r) const { return index(outlet_, static_cast<Index>(r)); }
  void initial_state(double* x) const override {
    x[supply(0)] = supply_temperature_;
    for (std::size_t r = 0; r < racks_; ++r) x[outlet(r)] = outlet_temperature_;
  }
  void derivatives(const EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(dctwin::solver::PatternSink& pattern) const override {
    pattern.add(supply(0), supply(0));
    for (std::size_t r = 0; r < racks_; ++r) pattern.add(outlet(r), outlet(r));
  }
  void jacobian(const EvalContext&, const double*, dctwin::solver::JacobianSink&) const override {}

 private:
  std::size_t racks_;
  double supply_temperature_, outlet_temperature_;
  int supply_ = 0, outlet_ = 0;
};

FacilityLayout one_pod() {
  LayoutParameters p;
  p.pods = 1;
  p.racks_per_pod = static_cast<std::int64_t>(kRacks);
  return FacilityLayout(p);
}

/// Rack flows `scale` x kRackFlow from each start time on.
FlowPlan flows(const std::vector<std::pair<double, double>>& scales) {
  std::vector<FlowPhase> phases;
  for (const auto& [start, scale] : scales) {
    FlowPhase phase;
    phase.start = start;
    phase.rack_flow.assign(kRacks, scale * kRackFlow);
    phases.push_back(phase);
  }
  return FlowPlan(phases);
}

PodHeaderTransport::Geometry geometry(bool reverse_return) {
  PodHeaderTransport::Geometry g;
  g.supply_main_volume = 0.05;   // 31.25 s at the pod's 1.6e-3 m3/s
  g.return_main_volume = 0.03;   // 18.75 s
  g.segment_volume = 0.01;       // 8.33, 12.5 and 25 s on the supply side
  g.rack_hose_volume = 1.5e-3;   // 3.75 s
  g.reverse_return = reverse_return;
  g.max_cell_time = 1.0;
  return g;
}

/// Plug-flow time from the pod supply to rack k's plates at constant flow: the main carries
/// R q, the segment before tap m carries (R - m) q, the hose q.
double supply_delay_closed_form(std::size_t k, double q) {
  const auto g = geometry(false);
  double tau = g.supply_main_volume / (kRacks * q) + g.rack_hose_volume / q;
  for (std::size_t m = 1; m <= k; ++m) tau += g.segment_volume / (static_cast<double>(kRacks - m) * q);
  return tau;
}

struct Run {
  std::vector<double> t;
  std::vector<std::vector<double>> x;
};

struct Recorder final : dctwin::solver::SimulationObserver {
  Run* run = nullptr;
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>&) override {
    run->t.push_back(t);
    run->x.push_back(x);
  }
};

/// The headers between a pod supply stepped to kBase + kStep and rack outlets at kBase.
struct Bench {
  FacilityLayout layout = one_pod();
  FlowPlan plan;
  dctwin::solver::System system;
  const Boundary* boundary = nullptr;
  const PodHeaderTransport* headers = nullptr;

  Bench(FlowPlan p, bool reverse_return) : plan(std::move(p)) {
    auto b = std::make_unique<Boundary>(kRacks, kBase + kStep, kBase);
    auto h = std::make_unique<PodHeaderTransport>(layout, kCoolant, plan, geometry(reverse_return), kBase);
    const Boundary* bp = b.get();
    h->connect([bp](std::size_t pod) { return bp->supply(pod); }, [bp](std::size_t r) { return bp->outlet(r); });
    boundary = &system.add(std::move(b));
    headers = &system.add(std::move(h));
    system.assemble();
  }
  Run run(double end_time) {
    dctwin::solver::SimulationSettings settings;
    settings.end_time = end_time;
    settings.output_interval = 0.25;
    settings.integrator = dctwin::solver::IntegratorSettings::reference();
    dctwin::solver::Simulator simulator(system, settings);
    Run r;
    Recorder recorder;
    recorder.run = &r;
    REQUIRE(simulator.run(recorder).finished());
    return r;
  }
};

/// First time the state crosses kBase + kStep / 2 (linear between samples).
double half_rise_time(const Run& r, Index state) {
  for (std::size_t i = 1; i < r.t.size(); ++i) {
    const double a = r.x[i - 1][static_cast<std::size_t>(state)] - kBase - 0.5 * kStep;
    const double b = r.x[i][static_cast<std::size_t>(state)] - kBase - 0.5 * kStep;
    if (a < 0.0 && b >= 0.0) return r.t[i - 1] + (r.t[i] - r.t[i - 1]) * a / (a - b);
  }
  FAIL("the front never arrived");
  return 0.0;
}

/// Mean arrival of the front in units of `weight` (time: 1; cumulative volume: the flow):
/// integral of (1 - y) w dt with y the normalised response (trapezoid over the samples).
template <typename Weight>
double mean_arrival(const Run& r, Index state, Weight&& weight) {
  double sum = 0.0;
  for (std::size_t i = 1; i < r.t.size(); ++i) {
    const double y0 = (r.x[i - 1][static_cast<std::size_t>(state)] - kBase) / kStep;
    const double y1 = (r.x[i][static_cast<std::size_t>(state)] - kBase) / kStep;
    const double tm = 0.5 * (r.t[i - 1] + r.t[i]);
    sum += 0.5 * ((1.0 - y0) + (1.0 - y1)) * weight(tm) * (r.t[i] - r.t[i - 1]);
  }
  return sum;
}

}  // namespace

TEST_CASE("Header plug-flow times equal the closed form, direct and reverse return", "[models][facility][transport]") {
  const double q = kRackFlow;
  for (bool reverse : {false, true}) {
    Bench bench(flows({{0.0, 1.0}}), reverse);
    const auto g = geometry(reverse);
    for (std::size_t k = 0; k < kRacks; ++k) {
      CHECK(bench.headers->supply_delay(k, 0.0) == Approx(supply_delay_closed_form(k, q)).epsilon(1e-12));
      // Return: the rack's outlet joins the header where it carries the racks collected so far
      // (direct return: from the far end, rack R-1; reverse: from rack 0), then the main.
      const std::size_t entry = reverse ? k : kRacks - 1 - k;
      double tau = g.return_main_volume / (kRacks * q);
      for (std::size_t m = entry; m + 1 < kRacks; ++m) tau += g.segment_volume / (static_cast<double>(m + 1) * q);
      CHECK(bench.headers->return_delay(k, 0.0) == Approx(tau).epsilon(1e-12));
    }
  }
  // Cells: no cell holds its coolant longer than 1 s (main 31.25 s -> 32 cells, segments 8.33,
  // 12.5 and 25 s -> 9, 13 and 25; return 25, 12.5, 8.33 s and the main 18.75 s -> 19; hose 4).
  Bench bench(flows({{0.0, 1.0}}), false);
  CHECK(bench.headers->cells_per_pod() == 32 + 9 + 13 + 25 + (25 + 13 + 9 + 19));
  CHECK(bench.headers->cells_per_hose() == 4);
}

TEST_CASE("A supply step reaches each rack after V / Q of the pipes upstream", "[models][facility][transport]") {
  Bench bench(flows({{0.0, 1.0}}), false);
  const Run r = bench.run(200.0);
  for (std::size_t k = 0; k < kRacks; ++k) {
    const double tau = supply_delay_closed_form(k, kRackFlow);
    const Index inlet = bench.headers->rack_inlet_index(k);
    INFO("rack " << k << ": plug-flow time " << tau << " s");
    // The half-rise time within 5 % of V / Q (the cells spread the front by at most
    // sqrt(tau x 1 s) either way); the mean arrival equals V / Q (the cells' residence times add up;
    // measured within 2e-8, the integration and the trapezoid over 0.25-s samples).
    CHECK(half_rise_time(r, inlet) == Approx(tau).epsilon(0.05));
    CHECK(mean_arrival(r, inlet, [](double) { return 1.0; }) == Approx(tau).epsilon(1e-5));
  }
  // The far rack sees the step later than the near rack by the header segments between them.
  const double lag = half_rise_time(r, bench.headers->rack_inlet_index(kRacks - 1)) -
                     half_rise_time(r, bench.headers->rack_inlet_index(0));
  CHECK(lag == Approx(supply_delay_closed_form(kRacks - 1, kRackFlow) - supply_delay_closed_form(0, kRackFlow)).epsilon(0.05));
}

TEST_CASE("A front arrives where the integral of Q dt reaches the pipe volume when the flow halves in transit",
          "[models][facility][transport]") {
  // The racks' flows halve at 20 s, while the front is still in the supply main.
  const double change = 20.0;
  Bench bench(flows({{0.0, 1.0}, {change, 0.5}}), false);
  const Run r = bench.run(320.0);
  for (std::size_t k = 0; k < kRacks; ++k) {
    const double tau = supply_delay_closed_form(k, kRackFlow);  // volume at full flow, in seconds
    // integral_0^t* Q dt = V:  change + (t* - change) / 2 = tau.
    const double arrival = change + 2.0 * (tau - change);
    const Index inlet = bench.headers->rack_inlet_index(k);
    INFO("rack " << k << ": arrival " << arrival << " s");
    CHECK(half_rise_time(r, inlet) == Approx(arrival).epsilon(0.05));
    // In cumulative volume (Q(t) / Q(0) dt) the mean arrival is exactly V / Q(0).
    CHECK(mean_arrival(r, inlet, [&](double t) { return t < change ? 1.0 : 0.5; }) == Approx(tau).epsilon(1e-5));
    CHECK(bench.headers->supply_delay(k, change) == Approx(2.0 * tau).epsilon(1e-12));
  }
}

TEST_CASE("The coolant held in the headers is counted: energy in minus energy out equals its change",
          "[models][facility][transport]") {
  Bench bench(flows({{0.0, 1.0}, {30.0, 0.7}}), true);
  const auto x0 = bench.system.initial_state();
  // At a uniform temperature the stored energy is rho c_p T times every pipe's volume.
  const auto g = geometry(true);
  const double volume = g.supply_main_volume + g.return_main_volume + 2.0 * (kRacks - 1) * g.segment_volume +
                        kRacks * g.rack_hose_volume;
  CHECK(bench.headers->stored_energy(x0.data()) ==
        Approx(kCoolant.density * kCoolant.specific_heat * volume * kBase).epsilon(1e-13));
  // A hot supply and cold rack outlets (the boundary's values) for 120 s: the energy carried in
  // at the supply and the rack outlets minus what leaves at the hoses and the return main.
  const Run r = bench.run(120.0);
  double carried = 0.0;
  for (std::size_t i = 1; i < r.t.size(); ++i) {
    // The flow steps at 30 s, a sample time: each interval lies within one phase.
    const double scale = 0.5 * (r.t[i - 1] + r.t[i]) < 30.0 ? 1.0 : 0.7;
    const double c_rack = kCoolant.capacity_rate(scale * kRackFlow);
    auto at = [](const std::vector<double>& x, Index state) { return x[static_cast<std::size_t>(state)]; };
    auto flux = [&](const std::vector<double>& x) {
      double q = kRacks * c_rack * (at(x, bench.boundary->supply(0)) - at(x, bench.headers->return_outlet_index(0)));
      for (std::size_t k = 0; k < kRacks; ++k)
        q += c_rack * (at(x, bench.boundary->outlet(k)) - at(x, bench.headers->rack_inlet_index(k)));
      return q;
    };
    carried += 0.5 * (flux(r.x[i - 1]) + flux(r.x[i])) * (r.t[i] - r.t[i - 1]);
  }
  const double change = bench.headers->stored_energy(r.x.back().data()) - bench.headers->stored_energy(x0.data());
  // The trapezoid over 0.25-s samples of fronts a few seconds wide (measured 9e-7).
  REQUIRE(change > 0.0);
  CHECK(carried == Approx(change).epsilon(1e-5));
}
