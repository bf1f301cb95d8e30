// Loop builders (models/hydraulic/loops.hpp): rack manifold, pod loop with 192 racks, facility
// loop. Conservation at every node, reference-mode agreement, direct vs reverse return, pump
// failures, closed rack valves, the scenario tables and the input errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <memory>
#include <numeric>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/models/hydraulic/loops.hpp"
#include "dctwin/models/thermal/cold_plate.hpp"
#include "dctwin/solver/network.hpp"

using namespace dctwin;
using namespace dctwin::models::hydraulic;
using solver::Index;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

/// Largest free-node imbalance over the largest branch flow, from the network's topology.
double relative_mass_imbalance(const solver::Network& net, const std::vector<double>& flows) {
  const std::vector<double> imbalance = net.node_imbalance(flows);
  double worst = 0.0, largest = 0.0;
  for (Index i = 0; i < net.node_count(); ++i)
    if (!net.is_fixed(i)) worst = std::max(worst, std::abs(imbalance[static_cast<std::size_t>(i)]));
  for (double q : flows) largest = std::max(largest, std::abs(q));
  return worst / largest;
}

double sum(const std::vector<double>& v, std::size_t first = 0, std::size_t count = std::string::npos) {
  const std::size_t last = count == std::string::npos ? v.size() : first + count;
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(last), 0.0);
}

const models::fluid::Coolant pg25 = models::fluid::Coolant::parse("PG25");

}  // namespace

TEST_CASE("Rack manifold: plates, servers and rack flows add up, series pairs carry equal flow",
          "[models][hydraulic][loops]") {
  RackManifoldParameters p;
  const RackManifoldResult r = solve_rack_manifold(p, pg25, 305.15, 70e3);
  REQUIRE(r.solve.converged);
  REQUIRE(r.plate_flow.size() == 16);
  CHECK(r.plate_labels.front() == "rack/server0/plate0");
  CHECK(r.plate_labels.back() == "rack/server1/plate7");
  CHECK(r.pressure_drop == Approx(70e3));
  for (int s = 0; s < 2; ++s) {
    const auto first = static_cast<std::size_t>(8 * s);
    CHECK(sum(r.plate_flow, first, 8) == Approx(r.server_flow[static_cast<std::size_t>(s)]).epsilon(1e-12));
    for (std::size_t j = 1; j < 8; ++j) CHECK(r.plate_flow[first + j] == Approx(r.plate_flow[first]).epsilon(1e-12));
  }
  CHECK(sum(r.server_flow) == Approx(r.flow).epsilon(1e-12));
  // Direct-return manifold: the server nearest the inlet and outlet gets more.
  CHECK(r.server_flow[0] > r.server_flow[1]);
  // Around 1.5 L/min per plate at the rated 50 kPa of the plate plus hoses and valve.
  CHECK(r.plate_flow[0] * 60000.0 == Approx(1.5).epsilon(0.15));
  CHECK(r.solve.mass_residual <= 1e-9);

  SECTION("a given rack flow is delivered exactly") {
    const RackManifoldResult f = solve_rack_manifold_at_flow(p, pg25, 305.15, r.flow);
    REQUIRE(f.solve.converged);
    CHECK(f.flow == Approx(r.flow).epsilon(1e-12));
    CHECK(f.pressure_drop == Approx(70e3).epsilon(1e-9));
  }
  SECTION("series pairs: both plates of a pair carry the same flow, at about half the parallel flow") {
    p.plates = PlateArrangement::series_pairs;
    const RackManifoldResult s = solve_rack_manifold(p, pg25, 305.15, 70e3);
    REQUIRE(s.solve.converged);
    for (std::size_t j = 0; j < 16; j += 2) CHECK(s.plate_flow[j] == Approx(s.plate_flow[j + 1]).epsilon(1e-12));
    CHECK(s.flow < 0.7 * r.flow);
    CHECK(sum(s.plate_flow) == Approx(2.0 * s.flow).epsilon(1e-12));  // every drop of coolant passes two plates
  }
}

TEST_CASE("Pod loop, 192 racks x 16 plates: mass balance at every node and the reference mode",
          "[models][hydraulic][loops]") {
  PodLoop loop(PodLoopParameters{});
  const PodLoopResult r = loop.solve();
  REQUIRE(r.solve.converged);
  REQUIRE(r.rack_flow.size() == 192);
  REQUIRE(r.plate_flow.size() == 192 * 16);
  CHECK(r.rack_labels[17] == "rack017");
  CHECK(r.plate_labels[17 * 16 + 11] == "rack017/server1/plate3");

  // Conservation, from the topology and the solution's flows.
  CHECK(r.solve.mass_residual <= 1e-9);
  CHECK(r.solve.law_residual <= 1e-9);
  // Plates add up to racks, racks to the CDU flow, the pumps deliver it.
  for (std::size_t i = 0; i < 192; ++i) CHECK(sum(r.plate_flow, 16 * i, 16) == Approx(r.rack_flow[i]).epsilon(1e-10));
  CHECK(sum(r.rack_flow) == Approx(r.flow).epsilon(1e-10));
  CHECK(r.pumps.flow == Approx(r.flow).epsilon(1e-10));
  CHECK(r.pumps.running == 2);
  // Pressure budget: the pumps' rise is spent on the CDU, mains, headers and a rack.
  CHECK(r.pumps.pressure_rise > r.cdu_pressure_drop + r.rack_pressure_drop.back());
  // Around 1.5 L/min per plate with the default sizing, and a delay that grows along the header.
  const double mean_plate = r.flow / (192 * 16) * 60000.0;
  CHECK(mean_plate == Approx(1.5).epsilon(0.2));
  CHECK(std::is_sorted(r.rack_supply_delay.begin(), r.rack_supply_delay.end()));
  CHECK(r.pumps.electrical_power > r.pumps.hydraulic_power);

  SECTION("full LU and reduced Cholesky agree") {
    PodLoop reference_loop(PodLoopParameters{});
    const PodLoopResult ref = reference_loop.solve(solver::NetworkSettings::reference());
    REQUIRE(ref.solve.converged);
    for (std::size_t i = 0; i < 192; ++i) CHECK(r.rack_flow[i] == Approx(ref.rack_flow[i]).epsilon(1e-10));
    for (std::size_t k = 0; k < r.plate_flow.size(); k += 37) CHECK(r.plate_flow[k] == Approx(ref.plate_flow[k]).epsilon(1e-10));
  }
  SECTION("mass imbalance recomputed from the network") {
    // Re-solve through the network directly to recompute the imbalance from the topology.
    const solver::NetworkSolution s = solver::solve_network(loop.network());
    REQUIRE(s.converged);
    CHECK(relative_mass_imbalance(loop.network(), s.flow) <= 1e-9);
  }
}

TEST_CASE("Direct return: flow falls along the header, reverse return spreads it evenly across 192 racks",
          "[models][hydraulic][loops]") {
  PodLoopParameters direct;
  direct.headers = HeaderArrangement::direct_return;
  PodLoopParameters reverse = direct;
  reverse.headers = HeaderArrangement::reverse_return;
  const PodLoopResult d = solve_pod_loop(direct);
  const PodLoopResult r = solve_pod_loop(reverse);
  REQUIRE(d.solve.converged);
  REQUIRE(r.solve.converged);
  // Direct return: strictly decreasing from the rack nearest the CDU to the farthest.
  for (std::size_t i = 1; i < 192; ++i) CHECK(d.rack_flow[i] < d.rack_flow[i - 1]);
  const double spread_direct = flow_spread(d.rack_flow);
  const double spread_reverse = flow_spread(r.rack_flow);
  CHECK(spread_direct > 0.05);               // the header losses matter
  CHECK(spread_reverse < 0.5 * spread_direct);  // reverse return is more uniform
  // The header losses drive it: in direct return, the first rack sees both header drops more.
  CHECK(d.rack_pressure_drop.front() - d.rack_pressure_drop.back() ==
        Approx(d.supply_header_pressure_drop + d.return_header_pressure_drop).epsilon(1e-9));
  CHECK(r.solve.mass_residual <= 1e-9);
  CHECK(d.solve.mass_residual <= 1e-9);
}

TEST_CASE("Pod pumps 2+1: a failure is covered by the standby pump, without it the flow drops, all failed stops it",
          "[models][hydraulic][loops]") {
  PodLoop loop(PodLoopParameters{});
  const PodLoopResult healthy = loop.solve();
  REQUIRE(healthy.solve.converged);
  PumpGroupParameters pumps = loop.parameters().pumps;

  pumps.failed_count = 1;  // pump 0 fails, pump 2 starts
  loop.set_pumps(pumps);
  const PodLoopResult covered = loop.solve();
  REQUIRE(covered.solve.converged);
  CHECK(covered.pumps.pumps[0].state == PumpState::failed);
  CHECK(covered.pumps.pumps[2].state == PumpState::running);
  CHECK(covered.flow == Approx(healthy.flow).epsilon(1e-10));

  pumps.standby_takeover = false;  // only pump 1 runs
  loop.set_pumps(pumps);
  const PodLoopResult single = loop.solve();
  REQUIRE(single.solve.converged);
  CHECK(single.pumps.running == 1);
  CHECK(single.flow < 0.8 * healthy.flow);
  CHECK(single.pumps.pumps[1].flow == Approx(single.flow).epsilon(1e-12));
  CHECK(single.solve.mass_residual <= 1e-9);

  pumps.failed_count = 3;
  loop.set_pumps(pumps);
  const PodLoopResult stopped = loop.solve();
  REQUIRE(stopped.solve.converged);
  CHECK(stopped.flow == 0.0);
  CHECK(*std::max_element(stopped.plate_flow.begin(), stopped.plate_flow.end()) == 0.0);
  CHECK(stopped.pumps.electrical_power == 0.0);

  pumps.failed_count = 0;  // and back
  loop.set_pumps(pumps);
  const PodLoopResult again = loop.solve();
  REQUIRE(again.solve.converged);
  CHECK(again.flow == Approx(healthy.flow).epsilon(1e-10));
}

TEST_CASE("A rack whose valve is shut tight carries no flow, the others take more", "[models][hydraulic][loops]") {
  PodLoopParameters p;
  p.rack.valve.leakage = 0.0;
  PodLoop loop(p);
  const PodLoopResult open = loop.solve();
  loop.set_rack_valve_opening(5, 0.0);
  const PodLoopResult shut = loop.solve();
  REQUIRE(shut.solve.converged);
  CHECK(shut.rack_flow[5] == 0.0);  // the valve branch is closed: exactly zero
  // Behind it the rack hangs on its return hose: a dead end with loops (parallel plates), whose
  // flows Newton drives to zero to rounding.
  for (std::size_t j = 0; j < 16; ++j) CHECK(std::abs(shut.plate_flow[5 * 16 + j]) <= 1e-12 * open.rack_flow[5]);
  CHECK(shut.rack_flow[6] > open.rack_flow[6]);
  CHECK(shut.solve.mass_residual <= 1e-9);
  // Shutting every rack from the running state: the pumps dead-head, nothing flows. The line
  // search on the co-content gets there in a few Newton iterations from the previous solution.
  for (std::size_t i = 0; i < 192; ++i) loop.set_rack_valve_opening(i, 0.0);
  const PodLoopResult dead = loop.solve();
  REQUIRE(dead.solve.converged);
  CHECK(dead.solve.iterations <= 8);
  CHECK(std::abs(dead.flow) <= 1e-12 * open.flow);
  CHECK(dead.pumps.pressure_rise == Approx(loop.parameters().pumps.pump.shutoff_pressure).epsilon(1e-9));
  for (std::size_t i = 0; i < 192; ++i) loop.set_rack_valve_opening(i, 1.0);
  loop.set_rack_valve_opening(5, 0.3);  // throttled, equal percentage
  const PodLoopResult throttled = loop.solve();
  REQUIRE(throttled.solve.converged);
  CHECK(throttled.rack_flow[5] > 0.0);
  CHECK(throttled.rack_flow[5] < 0.5 * open.rack_flow[5]);
}

TEST_CASE("A rack wired to taps that are not on the headers is refused by name", "[models][hydraulic][loops]") {
  const PodLoopParameters p;
  const auto props = pg25.properties(305.15);
  solver::Network net("pod");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index discharge = net.add_node("cdu/outlet");
  PumpGroup pumps(net, "pumps", tank, discharge, p.pumps);
  auto segment = std::make_shared<Pipe>(p.header_segment, props.density, props.viscosity);
  const HeaderPair h = add_header_pair(net, "", 3, segment, segment, HeaderArrangement::direct_return);
  net.add_branch("supply_main", discharge, h.supply_inlet, segment);
  net.add_branch("return_main", h.return_outlet, tank, segment);
  const RackLaws laws = RackLaws::make(p.rack, props);
  add_rack_manifold(net, "rack000", h.supply_taps[0], h.return_taps[0], p.rack, laws);
  add_rack_manifold(net, "rack001", h.supply_taps[1], h.return_taps[1], p.rack, laws);
  const Index loose_supply = net.add_node("rack002/supply_tap");
  const Index loose_return = net.add_node("rack002/return_tap");
  add_rack_manifold(net, "rack002", loose_supply, loose_return, p.rack, laws);
  CHECK(error_of([&] { solver::NetworkSolver s(net); }) ==
        "network 'pod': node 'rack002/supply_tap' is not connected to any fixed-pressure node (first node of a "
        "disconnected part of 11 nodes)");
  // Wired to the third taps, the same rack is fine.
  net.add_branch("rack002/fix_supply", h.supply_taps[2], loose_supply, segment);
  net.add_branch("rack002/fix_return", loose_return, h.return_taps[2], segment);
  const solver::NetworkSolution s = solver::solve_network(net);
  CHECK(s.converged);
}

TEST_CASE("Facility loop: 8 CDU primaries on the facility pumps", "[models][hydraulic][loops]") {
  FacilityLoop loop(FacilityLoopParameters{});
  const FacilityLoopResult r = loop.solve();
  REQUIRE(r.solve.converged);
  REQUIRE(r.pod_flow.size() == 8);
  CHECK(r.pod_labels[3] == "pod3");
  CHECK(sum(r.pod_flow) == Approx(r.flow).epsilon(1e-10));
  CHECK(r.pumps.flow == Approx(r.flow).epsilon(1e-10));
  CHECK(r.pumps.running == 3);
  CHECK(r.solve.mass_residual <= 1e-9);
  CHECK(relative_mass_imbalance(loop.network(), solver::solve_network(loop.network()).flow) <= 1e-9);
  // Sized for about 0.06 m3/s per CDU; reverse return keeps the pods within a few percent.
  CHECK(r.flow / 8.0 == Approx(0.06).epsilon(0.15));
  CHECK(flow_spread(r.pod_flow) < 0.05);
  // Throttling one CDU valve sends its water to the others.
  loop.set_cdu_valve_opening(2, 0.5);
  const FacilityLoopResult t = loop.solve();
  REQUIRE(t.solve.converged);
  CHECK(t.pod_flow[2] < 0.5 * r.pod_flow[2]);
  CHECK(t.pod_flow[0] > r.pod_flow[0]);
  CHECK(t.flow < r.flow);
}

TEST_CASE("Loop parameters: scenario tables give the struct defaults, bad topologies are named",
          "[models][hydraulic][loops]") {
  SECTION("pod defaults") {
    const auto doc = io::parse_scenario("rack_count: 192\n", "pod.yaml", PodLoopParameters::schema());
    const PodLoopParameters p = PodLoopParameters::from(doc.tree);
    const PodLoopParameters d;
    CHECK(p.rack_count == d.rack_count);
    CHECK(p.headers == d.headers);
    CHECK(p.coolant == d.coolant);
    CHECK(p.coolant_temperature == d.coolant_temperature);
    CHECK(p.tank_pressure == d.tank_pressure);
    CHECK(p.pumps.pump.shutoff_pressure == d.pumps.pump.shutoff_pressure);
    CHECK(p.pumps.pump.best_efficiency == d.pumps.pump.best_efficiency);
    CHECK(p.pumps.duty_count == d.pumps.duty_count);
    CHECK(p.header_segment.diameter == d.header_segment.diameter);
    CHECK(p.rack.valve.flow_coefficient == d.rack.valve.flow_coefficient);
    CHECK(p.rack.server_hose.minor_loss_coefficient == d.rack.server_hose.minor_loss_coefficient);
    // The rack's default plate law is the default cold plate's rated point.
    const dctwin::models::thermal::ColdPlateParameters plate;
    CHECK(d.rack.plate.nominal_flow == plate.nominal_flow);
    CHECK(d.rack.plate.pressure_drop_at_nominal_flow == plate.pressure_drop_at_nominal_flow);
    CHECK(d.rack.plate.exponent == plate.pressure_drop_flow_exponent);
    CHECK(p.cdu_secondary.pressure_drop_at_nominal_flow == d.cdu_secondary.pressure_drop_at_nominal_flow);
  }
  SECTION("facility defaults and written values with units") {
    const auto doc = io::parse_scenario(
        "headers: direct_return\npumps:\n  failed_count: 1\ncdu_valve:\n  flow_coefficient: 300 m3/h\n",
        "facility.yaml", FacilityLoopParameters::schema());
    const FacilityLoopParameters p = FacilityLoopParameters::from(doc.tree);
    CHECK(p.headers == HeaderArrangement::direct_return);
    CHECK(p.pumps.failed_count == 1);
    CHECK(p.cdu_valve.flow_coefficient == Approx(300.0 / 3600.0));
    CHECK(p.plant.nominal_flow == FacilityLoopParameters{}.plant.nominal_flow);
  }
  SECTION("series pairs with an odd plate count") {
    const auto doc = io::parse_scenario("rack:\n  plates: series_pairs\n  plates_per_server: 7\n", "pod.yaml",
                                        PodLoopParameters::schema());
    CHECK(error_of([&] { (void)PodLoopParameters::from(doc.tree); }) ==
          "rack.plates_per_server = 7 is odd (inconsistent topology: rack.plates = series_pairs needs pairs)");
  }
  SECTION("more duty pumps than installed") {
    const auto doc = io::parse_scenario("pumps:\n  duty_count: 5\n", "pod.yaml", PodLoopParameters::schema());
    CHECK(error_of([&] { (void)PodLoopParameters::from(doc.tree); }) ==
          "pumps.duty_count = 5 exceeds pumps.pump_count = 3");
  }
  SECTION("an unknown coolant") {
    const auto doc = io::parse_scenario("coolant: brine\n", "pod.yaml", PodLoopParameters::schema());
    CHECK(error_of([&] { (void)PodLoopParameters::from(doc.tree); }) ==
          "coolant: unknown coolant 'brine': expected 'water', 'PG<percent>' or 'EG<percent>' (for example 'PG25' "
          "or 'EG 30 %')");
  }
  SECTION("per-rack openings must match the rack count") {
    PodLoopParameters p;
    p.rack_valve_openings.assign(10, 1.0);
    CHECK(error_of([&] { PodLoop loop(p); }) ==
          "rack_valve_openings has 10 entries but rack_count = 192 (one per rack)");
  }
}

// Timings (not asserted): ./test_hydraulic "[.benchmark]"
TEST_CASE("Hydraulic loop timings", "[.benchmark]") {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };

  const auto t0 = clock::now();
  PodLoop pod(PodLoopParameters{});
  const auto t1 = clock::now();
  const PodLoopResult first = pod.solve();
  const auto t2 = clock::now();
  PumpGroupParameters pumps = pod.parameters().pumps;
  pumps.failed_count = 1;
  pumps.standby_takeover = false;
  pod.set_pumps(pumps);
  const PodLoopResult again = pod.solve();
  const auto t3 = clock::now();
  REQUIRE(first.solve.converged);
  REQUIRE(again.solve.converged);

  // The whole site: 8 pods (each 192 racks x 16 plates) and the facility loop, built and solved.
  const auto t4 = clock::now();
  double total = 0.0;
  int iterations = 0;
  for (int i = 0; i < 8; ++i) {
    PodLoopParameters p;
    p.name = "pod" + std::to_string(i);
    p.headers = i % 2 == 0 ? HeaderArrangement::direct_return : HeaderArrangement::reverse_return;
    const PodLoopResult r = solve_pod_loop(p);
    REQUIRE(r.solve.converged);
    total += r.flow;
    iterations += r.solve.iterations;
  }
  const FacilityLoopResult facility = solve_facility_loop(FacilityLoopParameters{});
  const auto t5 = clock::now();
  REQUIRE(facility.solve.converged);

  // Best of ten builds and solves of one pod (warm caches).
  double best = 1e9;
  for (int i = 0; i < 10; ++i) {
    const auto a = clock::now();
    const PodLoopResult r = solve_pod_loop(PodLoopParameters{});
    best = std::min(best, seconds(a, clock::now()));
    REQUIRE(r.solve.converged);
  }

  std::cout << "pod network: " << pod.network().node_count() << " nodes, " << pod.network().branch_count()
            << " branches\n"
            << "one pod: build " << seconds(t0, t1) << " s, first solve " << seconds(t1, t2) << " s ("
            << first.solve.iterations << " Newton iterations), re-solve after a pump failure " << seconds(t2, t3)
            << " s (" << again.solve.iterations << " iterations)\n"
            << "one pod, build and solve, best of 10: " << best << " s\n"
            << "8 pods + facility loop, built and solved: " << seconds(t4, t5) << " s (" << iterations
            << " Newton iterations over the pods; total pod flow " << total << " m3/s)\n";
}
