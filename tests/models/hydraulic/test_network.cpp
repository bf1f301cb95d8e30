// The network solver (solver/network.hpp) on small hydraulic networks with closed-form answers:
// operating points, equal sharing, series and parallel equivalents, the regularisation near zero
// flow, closed branches, mass conservation, the reference mode, and the input checks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/hydraulic/loops.hpp"
#include "dctwin/models/hydraulic/pipe.hpp"
#include "dctwin/models/hydraulic/pump.hpp"
#include "dctwin/models/hydraulic/resistance.hpp"
#include "dctwin/models/hydraulic/valve.hpp"
#include "dctwin/solver/network.hpp"

using namespace dctwin;
using models::hydraulic::FixedResistance;
using models::hydraulic::FixedResistanceParameters;
using models::hydraulic::Pipe;
using models::hydraulic::PipeParameters;
using models::hydraulic::PumpBranch;
using models::hydraulic::PumpParameters;
using models::hydraulic::Valve;
using models::hydraulic::ValveParameters;
using solver::Index;
using solver::Network;
using solver::NetworkSolution;
using solver::PowerLaw;

namespace {

constexpr double rho = 1015.0, mu = 1.8e-3;  // PG25 near 32 degC

/// The message of the InputError thrown by f, or "" if nothing was thrown.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

/// Largest |imbalance| over the free nodes, relative to the largest |flow| (computed here, not by
/// the solver).
double relative_mass_imbalance(const Network& net, const NetworkSolution& s) {
  std::vector<double> balance(static_cast<std::size_t>(net.node_count()), 0.0);
  double largest = 0.0;
  for (Index b = 0; b < net.branch_count(); ++b) {
    const double q = s.flow[static_cast<std::size_t>(b)];
    balance[static_cast<std::size_t>(net.from(b))] += q;
    balance[static_cast<std::size_t>(net.to(b))] -= q;
    largest = std::max(largest, std::abs(q));
  }
  double worst = 0.0;
  for (Index i = 0; i < net.node_count(); ++i) {
    if (net.is_fixed(i)) continue;
    worst = std::max(worst, std::abs(balance[static_cast<std::size_t>(i)] - net.inflow(i)));
  }
  return largest > 0.0 ? worst / largest : worst;
}

/// A pump from the tank to `discharge`; returns the branch.
Index add_pump(Network& net, Index tank, Index discharge, PumpParameters p, const std::string& label = "pump") {
  return net.add_branch(label, tank, discharge, std::make_shared<PumpBranch>(p));
}

/// Total flow of a pump against a single branch law from its discharge back to the tank.
double flow_against(const std::shared_ptr<const solver::BranchLaw>& law, const PumpParameters& pump) {
  Network net("single");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index a = net.add_node("a");
  const Index p = add_pump(net, tank, a, pump);
  net.add_branch("load", a, tank, law);
  const NetworkSolution s = solver::solve_network(net);
  REQUIRE(s.converged);
  return s.flow[static_cast<std::size_t>(p)];
}

}  // namespace

TEST_CASE("Regularised power law: C1 at the transition, positive slope at zero, odd", "[solver][network]") {
  for (double n : {1.0, 1.5, 1.85, 2.0, 2.5}) {
    const double qt = 1e-3;
    // Value and slope agree with |q|^n sign q on both sides of q_t.
    const double below = qt * (1.0 - 1e-12), above = qt * (1.0 + 1e-12);
    CHECK(solver::signed_power(below, n, qt) == Approx(std::pow(qt, n)).epsilon(1e-9));
    CHECK(solver::signed_power_derivative(below, n, qt) ==
          Approx(solver::signed_power_derivative(above, n, qt)).epsilon(1e-9));
    CHECK(solver::signed_power_derivative(above, n, qt) == Approx(n * std::pow(qt, n - 1.0)).epsilon(1e-9));
    // Slope at zero: q_t^(n-1) (3 - n) / 2 > 0.
    CHECK(solver::signed_power_derivative(0.0, n, qt) == Approx(0.5 * (3.0 - n) * std::pow(qt, n - 1.0)));
    CHECK(solver::signed_power(0.0, n, qt) == 0.0);
    // Odd and strictly increasing through the cubic part.
    double previous = solver::signed_power(-2.0 * qt, n, qt);
    for (int i = -199; i <= 200; ++i) {
      const double q = 0.01 * i * qt;
      CHECK(solver::signed_power(-q, n, qt) == -solver::signed_power(q, n, qt));
      const double v = solver::signed_power(q, n, qt);
      CHECK(v > previous);
      previous = v;
    }
    // Above the transition it is the plain power law.
    CHECK(solver::signed_power(-3.0 * qt, n, qt) == Approx(-std::pow(3.0 * qt, n)).epsilon(1e-14));
  }
}

TEST_CASE("A single pump on a quadratic system curve matches the closed-form operating point", "[solver][network]") {
  // dp_0 s^2 - r Q^2 = k Q^2  =>  Q = sqrt(dp_0 s^2 / (k + r)),  r = dp_0 / Q_max^2.
  const PumpParameters pump{150e3, 3.0e-4, 0.8};
  const double k = 2.0e12;
  Network net("single pump");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index discharge = net.add_node("discharge");
  const Index p = add_pump(net, tank, discharge, pump);
  const Index load = net.add_branch("system", discharge, tank, std::make_shared<PowerLaw>(k, 2.0, 1e-4));
  const NetworkSolution s = solver::solve_network(net);
  REQUIRE(s.converged);
  const double r = 150e3 / (3.0e-4 * 3.0e-4);
  const double exact = std::sqrt(150e3 * 0.64 / (k + r));
  CHECK(s.flow[static_cast<std::size_t>(p)] == Approx(exact).epsilon(1e-12));
  CHECK(s.flow[static_cast<std::size_t>(load)] == Approx(exact).epsilon(1e-12));
  CHECK(s.pressure[static_cast<std::size_t>(discharge)] - 2e5 == Approx(k * exact * exact).epsilon(1e-12));
  CHECK(s.iterations < 20);
  CHECK(s.mass_residual <= 1e-12);
  CHECK(s.law_residual <= 1e-12);
  // The scalar operating point of pump.hpp agrees.
  const auto op = models::hydraulic::operating_point(models::hydraulic::Pump(pump), [&](double q) { return k * q * q; });
  CHECK(op.flow == Approx(exact).epsilon(1e-10));
}

TEST_CASE("Two identical branches share the flow equally", "[solver][network]") {
  Network net("pair");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index a = net.add_node("a"), b = net.add_node("b");
  const Index p = add_pump(net, tank, a, PumpParameters{200e3, 1e-3, 1.0});
  auto pipe = std::make_shared<Pipe>(PipeParameters{5.0, 0.02, 1.5e-6, 3.0}, rho, mu);
  const Index left = net.add_branch("left", a, b, pipe);
  const Index right = net.add_branch("right", a, b, std::make_shared<Pipe>(PipeParameters{5.0, 0.02, 1.5e-6, 3.0}, rho, mu));
  net.add_branch("return", b, tank, std::make_shared<PowerLaw>(1e10, 2.0, 1e-3));
  const NetworkSolution s = solver::solve_network(net);
  REQUIRE(s.converged);
  const double ql = s.flow[static_cast<std::size_t>(left)], qr = s.flow[static_cast<std::size_t>(right)];
  CHECK(ql > 0.0);
  CHECK(ql == Approx(qr).epsilon(1e-13));
  CHECK(ql + qr == Approx(s.flow[static_cast<std::size_t>(p)]).epsilon(1e-13));
  CHECK(relative_mass_imbalance(net, s) <= 1e-9);
}

TEST_CASE("Series and parallel branches equal their closed-form equivalents", "[solver][network]") {
  const PumpParameters pump{200e3, 1e-3, 1.0};
  const double k1 = 4e10, k2 = 9e10;
  SECTION("quadratic laws in series add their coefficients") {
    Network net("series");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a"), b = net.add_node("b");
    const Index p = add_pump(net, tank, a, pump);
    net.add_branch("k1", a, b, std::make_shared<PowerLaw>(k1, 2.0, 1e-3));
    net.add_branch("k2", b, tank, std::make_shared<PowerLaw>(k2, 2.0, 1e-3));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    CHECK(s.flow[static_cast<std::size_t>(p)] ==
          Approx(flow_against(std::make_shared<PowerLaw>(k1 + k2, 2.0, 1e-3), pump)).epsilon(1e-12));
  }
  SECTION("quadratic laws in parallel: 1/sqrt(k) adds") {
    Network net("parallel");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    const Index p = add_pump(net, tank, a, pump);
    const Index b1 = net.add_branch("k1", a, tank, std::make_shared<PowerLaw>(k1, 2.0, 1e-3));
    const Index b2 = net.add_branch("k2", a, tank, std::make_shared<PowerLaw>(k2, 2.0, 1e-3));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    const double equivalent = 1.0 / std::pow(1.0 / std::sqrt(k1) + 1.0 / std::sqrt(k2), 2.0);
    CHECK(s.flow[static_cast<std::size_t>(p)] ==
          Approx(flow_against(std::make_shared<PowerLaw>(equivalent, 2.0, 1e-3), pump)).epsilon(1e-12));
    // Each branch carries Q_i = sqrt(dp / k_i).
    CHECK(s.flow[static_cast<std::size_t>(b1)] / s.flow[static_cast<std::size_t>(b2)] ==
          Approx(std::sqrt(k2 / k1)).epsilon(1e-12));
  }
  SECTION("two pipes in series equal one of twice the length with both minor losses") {
    const PipeParameters half{4.0, 0.015, 1.5e-6, 1.5};
    Network net("pipes");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a"), b = net.add_node("b");
    const Index p = add_pump(net, tank, a, pump);
    net.add_branch("first", a, b, std::make_shared<Pipe>(half, rho, mu));
    net.add_branch("second", b, tank, std::make_shared<Pipe>(half, rho, mu));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    const PipeParameters whole{8.0, 0.015, 1.5e-6, 3.0};
    CHECK(s.flow[static_cast<std::size_t>(p)] ==
          Approx(flow_against(std::make_shared<Pipe>(whole, rho, mu), pump)).epsilon(1e-11));
  }
  SECTION("N identical cold plates in parallel equal one plate rated at N times the flow") {
    const FixedResistanceParameters plate = models::hydraulic::RackManifoldParameters{}.plate;
    Network net("plates");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    const PumpParameters small{150e3, 3.0e-4, 1.0};
    const Index p = add_pump(net, tank, a, small);
    auto law = std::make_shared<FixedResistance>(plate);
    for (int i = 0; i < 8; ++i) net.add_branch("plate" + std::to_string(i), a, tank, law);
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    FixedResistanceParameters eight = plate;
    eight.nominal_flow *= 8.0;
    CHECK(s.flow[static_cast<std::size_t>(p)] ==
          Approx(flow_against(std::make_shared<FixedResistance>(eight), small))
              .epsilon(1e-11));
  }
}

TEST_CASE("Mass is conserved at every node of a meshed network to 1e-9 of the largest flow", "[solver][network]") {
  // A 6 x 6 grid of pipes of different sizes with two pumps feeding opposite corners.
  Network net("grid");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const int n = 6;
  std::vector<Index> node;
  for (int i = 0; i < n * n; ++i) node.push_back(net.add_node("n" + std::to_string(i)));
  int label = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double d = 0.01 + 0.002 * ((i * 7 + j * 3) % 5);
      auto pipe = std::make_shared<Pipe>(PipeParameters{1.0 + 0.3 * ((i + j) % 4), d, 1.5e-6, 0.5}, rho, mu);
      if (j + 1 < n) net.add_branch("h" + std::to_string(label++), node[i * n + j], node[i * n + j + 1], pipe);
      if (i + 1 < n) net.add_branch("v" + std::to_string(label++), node[i * n + j], node[(i + 1) * n + j], pipe);
    }
  }
  add_pump(net, tank, node[0], PumpParameters{100e3, 2e-3, 1.0}, "pump a");
  add_pump(net, tank, node[n - 1], PumpParameters{60e3, 1e-3, 1.0}, "pump b");
  net.add_branch("drain", node[n * n - 1], tank, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3));
  net.add_branch("drain 2", node[n * (n - 1)], tank, std::make_shared<PowerLaw>(3e9, 2.0, 1e-3));
  for (auto settings : {solver::NetworkSettings{}, solver::NetworkSettings::reference()}) {
    const NetworkSolution s = solver::solve_network(net, settings);
    REQUIRE(s.converged);
    CHECK(relative_mass_imbalance(net, s) <= 1e-9);
    CHECK(s.mass_residual <= 1e-9);
    CHECK(s.mass_residual == Approx(relative_mass_imbalance(net, s)).margin(1e-15));
    CHECK(s.law_residual <= 1e-9);
  }
}

TEST_CASE("The reduced (Cholesky) and full (LU) Newton systems give the same solution", "[solver][network]") {
  Network net("compare");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index a = net.add_node("a"), b = net.add_node("b"), c = net.add_node("c");
  add_pump(net, tank, a, PumpParameters{150e3, 5e-4, 0.9});
  net.add_branch("ab", a, b, std::make_shared<Pipe>(PipeParameters{3.0, 0.012, 1.5e-6, 2.0}, rho, mu));
  net.add_branch("ac", a, c, std::make_shared<Pipe>(PipeParameters{6.0, 0.010, 1.5e-6, 1.0}, rho, mu));
  net.add_branch("bc", b, c, std::make_shared<Pipe>(PipeParameters{1.0, 0.008, 1.5e-6, 0.0}, rho, mu));
  net.add_branch("c tank", c, tank, std::make_shared<PowerLaw>(5e10, 1.85, 1e-4));
  const NetworkSolution fast = solver::solve_network(net);
  const NetworkSolution reference = solver::solve_network(net, solver::NetworkSettings::reference());
  REQUIRE(fast.converged);
  REQUIRE(reference.converged);
  for (std::size_t k = 0; k < fast.flow.size(); ++k)
    CHECK(fast.flow[k] == Approx(reference.flow[k]).epsilon(1e-10).margin(1e-16));
  for (std::size_t i = 0; i < fast.pressure.size(); ++i)
    CHECK(fast.pressure[i] == Approx(reference.pressure[i]).epsilon(1e-12));
}

TEST_CASE("Zero flow: dead ends, a network driven by stopped pumps, and a dead-end start", "[solver][network]") {
  SECTION("a dead-end branch carries no flow and the Jacobian stays regular") {
    Network net("dead end");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a"), end = net.add_node("end");
    const Index p = add_pump(net, tank, a, PumpParameters{100e3, 1e-3, 1.0});
    net.add_branch("load", a, tank, std::make_shared<PowerLaw>(1e11, 2.0, 1e-3));
    const Index stub = net.add_branch("stub", a, end, std::make_shared<PowerLaw>(1e11, 2.0, 1e-3));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    CHECK(std::abs(s.flow[static_cast<std::size_t>(stub)]) <= 1e-15 * s.flow[static_cast<std::size_t>(p)]);
    CHECK(s.pressure[static_cast<std::size_t>(end)] == Approx(s.pressure[static_cast<std::size_t>(a)]).epsilon(1e-12));
  }
  SECTION("a stopped pump without a check valve is a resistance; nothing flows") {
    Network net("stopped");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    PumpParameters stopped{100e3, 1e-3, 1.0};
    stopped.failed = true;
    const Index p = net.add_branch("pump", tank, a, std::make_shared<PumpBranch>(stopped, false));
    net.add_branch("load", a, tank, std::make_shared<PowerLaw>(1e11, 2.0, 1e-3));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    CHECK(s.flow[static_cast<std::size_t>(p)] == 0.0);
    CHECK(s.pressure[static_cast<std::size_t>(a)] == 2e5);
  }
}

TEST_CASE("Closed branches carry no flow, parts they cut off are solved and referred across them",
          "[solver][network]") {
  Network net("closed");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index a = net.add_node("a"), b = net.add_node("b"), c = net.add_node("c");
  const Index p = add_pump(net, tank, a, PumpParameters{100e3, 1e-3, 1.0});
  const Index open = net.add_branch("open", a, tank, std::make_shared<PowerLaw>(1e11, 2.0, 1e-3));
  ValveParameters shut;
  shut.opening = 0.0;
  shut.leakage = 0.0;
  const Index valve = net.add_branch("valve", a, b, std::make_shared<Valve>(shut, rho));
  // Behind the shut valve: a small loop with its own pump (b -> c -> b).
  const Index inner_pump = add_pump(net, b, c, PumpParameters{50e3, 5e-4, 1.0}, "inner pump");
  const Index inner = net.add_branch("inner", c, b, std::make_shared<PowerLaw>(1e11, 2.0, 1e-4));
  solver::NetworkSolver solver(net);
  NetworkSolution s = solver.solve();
  REQUIRE(s.converged);
  CHECK(s.flow[static_cast<std::size_t>(valve)] == 0.0);
  CHECK(s.flow[static_cast<std::size_t>(p)] == Approx(s.flow[static_cast<std::size_t>(open)]).epsilon(1e-14));
  // The cut-off loop circulates at its own operating point; its level follows node a.
  const double r = 50e3 / (5e-4 * 5e-4);
  CHECK(s.flow[static_cast<std::size_t>(inner_pump)] == Approx(std::sqrt(50e3 / (1e11 + r))).epsilon(1e-12));
  CHECK(s.flow[static_cast<std::size_t>(inner)] == Approx(s.flow[static_cast<std::size_t>(inner_pump)]).epsilon(1e-14));
  CHECK(s.pressure[static_cast<std::size_t>(b)] == Approx(s.pressure[static_cast<std::size_t>(a)]).epsilon(1e-14));
  CHECK(relative_mass_imbalance(net, s) <= 1e-12);

  // Opening the valve joins the parts; the same solver re-analyses and solves again.
  ValveParameters half = shut;
  half.opening = 0.5;
  net.set_law(valve, std::make_shared<Valve>(half, rho));
  s = solver.solve(solver::NetworkSettings{}, &s);
  REQUIRE(s.converged);
  CHECK(s.flow[static_cast<std::size_t>(valve)] != 0.0);
  CHECK(relative_mass_imbalance(net, s) <= 1e-9);
}

TEST_CASE("Bad networks are refused with messages that name the node or branch", "[solver][network]") {
  SECTION("a loop with no pump") {
    Network net("loop");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a"), b = net.add_node("b");
    auto pipe = std::make_shared<Pipe>(PipeParameters{}, rho, mu);
    net.add_branch("p1", tank, a, pipe);
    net.add_branch("p2", a, b, pipe);
    net.add_branch("p3", b, tank, pipe);
    CHECK(error_of([&] { (void)solver::solve_network(net); }) ==
          "network 'loop': the loop through node 'tank' has no driving branch (no pump, no pressure difference "
          "between fixed nodes, no inflow): all flows would be zero");
  }
  SECTION("a pipe with zero flow area") {
    Network net("loop");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    add_pump(net, tank, a, PumpParameters{});
    net.add_branch("pipe", a, tank, std::make_shared<Pipe>(PipeParameters{2.0, 0.0, 1.5e-6, 1.0}, rho, mu));
    CHECK(error_of([&] { (void)solver::solve_network(net); }) ==
          "network 'loop': branch 'pipe': zero flow area (diameter 0 m)");
  }
  SECTION("a resistance with a non-positive coefficient") {
    Network net("loop");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    add_pump(net, tank, a, PumpParameters{});
    net.add_branch("k", a, tank, std::make_shared<PowerLaw>(0.0, 2.0, 1e-3));
    net.add_branch("hx", a, tank, std::make_shared<FixedResistance>(models::hydraulic::FixedResistanceParameters{1e-3, 0.0, 2.0}));
    CHECK(error_of([&] { (void)solver::solve_network(net); }) ==
          "network 'loop': branch 'k': non-positive resistance coefficient k = 0");
    net.set_law(1, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3));
    CHECK(error_of([&] { (void)solver::solve_network(net); }) ==
          "network 'loop': branch 'hx': non-positive resistance coefficient (pressure drop 0 Pa at the nominal flow)");
  }
  SECTION("a part not connected to the reference") {
    Network net("loop");
    const Index tank = net.add_fixed_node("tank", 2e5);
    const Index a = net.add_node("a");
    add_pump(net, tank, a, PumpParameters{});
    net.add_branch("load", a, tank, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3));
    const Index x = net.add_node("island/x"), y = net.add_node("island/y");
    net.add_branch("island/pipe", x, y, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3));
    CHECK(error_of([&] { (void)solver::solve_network(net); }) ==
          "network 'loop': node 'island/x' is not connected to any fixed-pressure node (first node of a "
          "disconnected part of 2 nodes)");
  }
  SECTION("structural mistakes") {
    Network net("loop");
    CHECK(error_of([&] { net.check(); }) == "network 'loop' has no nodes");
    const Index a = net.add_node("a");
    CHECK(error_of([&] { net.check(); }) ==
          "network 'loop': no node has a fixed pressure (add a reference node, such as the expansion tank)");
    CHECK(error_of([&] { (void)net.add_node("a"); }) == "network 'loop': duplicate node label 'a'");
    const Index tank = net.add_fixed_node("tank", 2e5);
    net.add_branch("self", a, a, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3));
    CHECK(error_of([&] { net.check(); }) == "network 'loop': branch 'self' joins node 'a' to itself");
    CHECK(error_of([&] { (void)net.add_branch("self", a, tank, std::make_shared<PowerLaw>(1e9, 2.0, 1e-3)); }) ==
          "network 'loop': duplicate branch label 'self'");
    net.set_fixed_pressure(tank, std::nan(""));
    CHECK(error_of([&] { net.check(); }) == "network 'loop': node 'tank': fixed pressure nan is not a finite number");
  }
  SECTION("two fixed nodes at different pressures drive flow without a pump") {
    Network net("drop");
    const Index high = net.add_fixed_node("high", 3e5);
    const Index low = net.add_fixed_node("low", 2e5);
    const Index b = net.add_branch("k", high, low, std::make_shared<PowerLaw>(1e10, 2.0, 1e-3));
    const NetworkSolution s = solver::solve_network(net);
    REQUIRE(s.converged);
    CHECK(s.flow[static_cast<std::size_t>(b)] == Approx(std::sqrt(1e5 / 1e10)).epsilon(1e-12));
  }
}

TEST_CASE("Laws given as functions, non-convergence is a status in the solution, not an exception",
          "[solver][network]") {
  Network net("functions");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index a = net.add_node("a");
  // A pump as two functions: dp = -100 kPa + 1e11 Q|Q| + 1e3 Q (slope > 0 everywhere).
  const Index p = net.add_branch(
      "pump", tank, a,
      std::make_shared<solver::FunctionLaw>([](double q) { return -100e3 + 1e11 * q * std::abs(q) + 1e3 * q; },
                                            [](double q) { return 2e11 * std::abs(q) + 1e3; }, 1e-3, true));
  net.add_branch("load", a, tank, std::make_shared<PowerLaw>(1e11, 2.0, 1e-3));
  const NetworkSolution s = solver::solve_network(net);
  REQUIRE(s.converged);
  CHECK(s.message.empty());
  // 2e11 Q^2 + 1e3 Q - 1e5 = 0.
  const double exact = (-1e3 + std::sqrt(1e6 + 8e16)) / 4e11;
  CHECK(s.flow[static_cast<std::size_t>(p)] == Approx(exact).epsilon(1e-12));

  solver::NetworkSettings one;
  one.max_iterations = 1;
  one.flow_tolerance = 1e-15;
  const NetworkSolution stopped = solver::solve_network(net, one);
  CHECK_FALSE(stopped.converged);
  CHECK(stopped.iterations == 1);
  CHECK(stopped.message == "no convergence in 1 Newton iterations");
  CHECK(stopped.law_residual > 1e-9);
}
