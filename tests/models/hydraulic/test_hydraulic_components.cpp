// Hydraulic components (models/hydraulic): friction factors against Colebrook and the Moody
// chart, the pipe law, valve characteristics, pump efficiency and power, and pump groups with
// N+1 redundancy on a closed-form system curve.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <numbers>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/hydraulic/pipe.hpp"
#include "dctwin/models/hydraulic/pump.hpp"
#include "dctwin/models/hydraulic/pump_group.hpp"
#include "dctwin/models/hydraulic/resistance.hpp"
#include "dctwin/models/hydraulic/valve.hpp"
#include "dctwin/solver/network.hpp"

using namespace dctwin;
using namespace dctwin::models::hydraulic;
using solver::Index;

namespace {

constexpr double rho = 1015.0, mu = 1.8e-3;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "";
}

/// Central difference of a branch law's pressure drop.
double numerical_slope(const solver::BranchLaw& law, double q) {
  const double h = 1e-6 * std::abs(q);
  return (law.pressure_drop(q + h) - law.pressure_drop(q - h)) / (2.0 * h);
}

}  // namespace

// ---- friction -----------------------------------------------------------------------------------

TEST_CASE("Colebrook reproduces Moody-chart values and the fully rough limit", "[models][hydraulic][pipe]") {
  // Moody (1944) chart readings.
  CHECK(colebrook_friction_factor(1e5, 0.0) == Approx(0.0180).epsilon(0.005));
  CHECK(colebrook_friction_factor(1e6, 1e-3) == Approx(0.0199).epsilon(0.005));
  CHECK(colebrook_friction_factor(1e4, 0.0) == Approx(0.0309).epsilon(0.005));
  // Fully rough (von Karman): 1 / sqrt(f) = -2 log10(e / (3.7 D)).
  const double rough = std::pow(-2.0 * std::log10(0.01 / 3.7), -2.0);
  CHECK(colebrook_friction_factor(1e10, 0.01) == Approx(rough).epsilon(1e-4));
  // It solves its own equation.
  const double f = colebrook_friction_factor(3e4, 2e-4);
  CHECK(1.0 / std::sqrt(f) == Approx(-2.0 * std::log10(2e-4 / 3.7 + 2.51 / (3e4 * std::sqrt(f)))).epsilon(1e-13));
}

TEST_CASE("Churchill and Swamee-Jain agree with Colebrook within 2 % in turbulent flow", "[models][hydraulic][pipe]") {
  const double points[][2] = {{4e3, 1e-4}, {1e4, 0.0},  {2e4, 5e-3}, {1e5, 0.0},
                              {1e5, 1e-3}, {1e6, 1e-3}, {1e7, 1e-2}, {1e8, 0.0}};
  for (const auto& pt : points) {
    const double reference = colebrook_friction_factor(pt[0], pt[1]);
    INFO("Re = " << pt[0] << ", e/D = " << pt[1]);
    CHECK(churchill_friction_factor(pt[0], pt[1]) == Approx(reference).epsilon(0.02));
    CHECK(swamee_jain_friction_factor(pt[0], pt[1]) == Approx(reference).epsilon(0.02));
  }
}

TEST_CASE("Churchill gives 64 / Re in laminar flow and is continuous through transition", "[models][hydraulic][pipe]") {
  for (double re : {1.0, 50.0, 500.0, 1500.0})
    CHECK(churchill_friction_factor(re, 1e-3) == Approx(64.0 / re).epsilon(re < 1000 ? 1e-9 : 1e-3));
  double previous = churchill_friction_factor(1000.0, 1e-4);
  for (double re = 1010.0; re < 1e5; re *= 1.01) {
    const double f = churchill_friction_factor(re, 1e-4);
    CHECK(std::abs(f - previous) < 0.02 * previous);  // no jumps
    previous = f;
  }
}

// ---- pipe ---------------------------------------------------------------------------------------

TEST_CASE("Pipe: Hagen-Poiseuille at low flow, Darcy-Weisbach above, exact slope, transport delay",
          "[models][hydraulic][pipe]") {
  const PipeParameters p{12.0, 0.02, 4.5e-5, 0.0};
  const Pipe pipe(p, rho, mu);
  const double area = std::numbers::pi * 0.01 * 0.01;
  CHECK(pipe.area() == Approx(area));
  // Laminar (Re < 10): dp = 128 mu L Q / (pi D^4), and the slope at zero flow is its coefficient.
  const double hp = 128.0 * mu * 12.0 / (std::numbers::pi * std::pow(0.02, 4));
  const double q_laminar = 5.0 * mu * area / (rho * 0.02);  // Re = 5
  CHECK(pipe.pressure_drop(q_laminar) == Approx(hp * q_laminar).epsilon(1e-12));
  CHECK(pipe.derivative(0.0) == Approx(hp).epsilon(1e-12));
  CHECK(pipe.pressure_drop(0.0) == 0.0);
  // Turbulent with minor losses: (f L / D + K) rho v^2 / 2.
  const Pipe fitted({12.0, 0.02, 4.5e-5, 2.5}, rho, mu);
  const double q = 1e-3;
  const double v = q / area;
  const double re = rho * v * 0.02 / mu;
  const double f = churchill_friction_factor(re, 4.5e-5 / 0.02);
  CHECK(fitted.pressure_drop(q) == Approx((f * 12.0 / 0.02 + 2.5) * rho * v * v / 2.0).epsilon(1e-12));
  CHECK(fitted.pressure_drop(-q) == -fitted.pressure_drop(q));
  CHECK(fitted.reynolds(q) == Approx(re));
  // Analytic slope against central differences in laminar, transitional and turbulent flow.
  for (double flow : {2e-6, 2e-5, 4e-5, 6e-5, 1e-4, 1e-3, 1e-2}) {
    INFO("Q = " << flow << ", Re = " << fitted.reynolds(flow));
    CHECK(fitted.derivative(flow) == Approx(numerical_slope(fitted, flow)).epsilon(1e-6));
    CHECK(fitted.derivative(-flow) == Approx(fitted.derivative(flow)).epsilon(1e-14));
  }
  // Plug-flow delay V / Q.
  CHECK(pipe.transport_delay(2e-3) == Approx(area * 12.0 / 2e-3));
  CHECK(std::isinf(pipe.transport_delay(0.0)));
  // Properties from the coolant tables.
  const Pipe pg25({12.0, 0.02, 4.5e-5, 0.0}, models::fluid::Coolant::parse("PG25"), 303.15);
  CHECK(pg25.density() == Approx(1015.2).epsilon(2e-3));
}

// ---- valve --------------------------------------------------------------------------------------

TEST_CASE("Valve: Kv definition, linear and equal-percentage characteristics, leakage, shut", "[models][hydraulic][valve]") {
  const double kv = 10.0 / 3600.0;  // 10 m3/h
  ValveParameters p;
  p.flow_coefficient = kv;
  SECTION("fully open: Kv of water at 1 bar; density scales the drop") {
    const Valve water(p, 1000.0);
    CHECK(water.pressure_drop(kv) == Approx(1e5).epsilon(1e-12));
    CHECK(water.flow_at(1e5) == Approx(kv).epsilon(1e-12));
    CHECK(Valve(p, 1050.0).pressure_drop(kv) == Approx(1.05e5).epsilon(1e-12));
  }
  SECTION("linear: flow at a given drop is proportional to the opening") {
    p.characteristic = ValveCharacteristic::linear;
    for (double x : {0.1, 0.25, 0.5, 0.8}) {
      p.opening = x;
      CHECK(Valve(p, 1000.0).flow_at(1e5) == Approx(x * kv).epsilon(1e-12));
    }
  }
  SECTION("equal percentage: each 10 % of travel multiplies the flow by R^0.1") {
    p.characteristic = ValveCharacteristic::equal_percentage;
    p.rangeability = 50.0;
    for (double x = 0.1; x < 0.95; x += 0.1) {
      ValveParameters a = p, b = p;
      a.opening = x;
      b.opening = x + 0.1;
      CHECK(Valve(b, 1000.0).flow_at(5e4) / Valve(a, 1000.0).flow_at(5e4) == Approx(std::pow(50.0, 0.1)).epsilon(1e-12));
    }
    p.opening = 1e-9;
    CHECK(Valve(p, 1000.0).effective_flow_coefficient() == Approx(kv / 50.0).epsilon(1e-6));
  }
  SECTION("shut: leakage only, or closed") {
    p.opening = 0.0;
    p.leakage = 1e-4;
    const Valve leaking(p, 1000.0);
    CHECK_FALSE(leaking.closed());
    CHECK(leaking.flow_at(1e5) == Approx(1e-4 * kv).epsilon(1e-12));
    p.leakage = 0.0;
    const Valve tight(p, 1000.0);
    CHECK(tight.closed());
  }
  SECTION("bad values are named") {
    p.opening = 1.5;
    CHECK(Valve(p, 1000.0).defect() == "opening 1.5 is outside 0-1");
    p.opening = 1.0;
    p.flow_coefficient = 0.0;
    CHECK(Valve(p, 1000.0).defect() == "non-positive flow coefficient Kv = 0 m3/h");
  }
}

// ---- pump ---------------------------------------------------------------------------------------

TEST_CASE("Pump efficiency and power: best point, limits, affinity, consistency", "[models][hydraulic][pump]") {
  PumpParameters p{220e3, 0.064, 1.0, 0.6, 0.78, 0.92, false};
  const Pump pump(p);
  const double qb = 0.6 * 0.064;
  CHECK(pump.efficiency(qb) == Approx(0.78));
  CHECK(pump.efficiency(0.0) == 0.0);
  CHECK(pump.efficiency(0.064) == 0.0);
  CHECK(pump.efficiency(0.5 * qb) < 0.78);
  CHECK(pump.efficiency(0.9 * 0.064) < 0.78);
  // Shaft power = hydraulic power / efficiency wherever both are positive.
  for (double q : {0.005, 0.02, qb, 0.045, 0.06}) {
    CHECK(pump.hydraulic_power(q) == Approx(q * pump.pressure_rise(q)));
    CHECK(pump.shaft_power(q) == Approx(pump.hydraulic_power(q) / pump.efficiency(q)).epsilon(1e-12));
    CHECK(pump.electrical_power(q) == Approx(pump.shaft_power(q) / 0.92));
  }
  // Finite limits at shut-off and free delivery.
  CHECK(pump.shaft_power(0.0) == Approx(220e3 * qb / (2.0 * 0.78)).epsilon(1e-12));
  CHECK(pump.shaft_power(0.064) == Approx(220e3 * (0.064 - qb) / 0.78).epsilon(1e-12));
  CHECK(pump.shaft_power(1e-9) == Approx(pump.shaft_power(0.0)).epsilon(1e-6));
  CHECK(pump.shaft_power(qb * (1 - 1e-12)) == Approx(pump.shaft_power(qb * (1 + 1e-12))).epsilon(1e-9));
  // Affinity: at 80 % speed the similar point (0.8 Q) has 0.64 x the rise and 0.512 x the power.
  p.speed = 0.8;
  const Pump slow(p);
  CHECK(slow.pressure_rise(0.8 * 0.03) == Approx(0.64 * pump.pressure_rise(0.03)));
  CHECK(slow.shaft_power(0.8 * 0.03) == Approx(0.512 * pump.shaft_power(0.03)));
  CHECK(slow.efficiency(0.8 * 0.03) == Approx(pump.efficiency(0.03)));
  // Failed: stopped, no power, its impeller is a resistance.
  p.failed = true;
  const Pump failed(p);
  CHECK(failed.stopped());
  CHECK(failed.shaft_power(0.01) == 0.0);
  CHECK(failed.pressure_rise(0.01) == Approx(-pump.resistance() * 1e-4));
  CHECK(PumpBranch(p, true).closed());
  CHECK_FALSE(PumpBranch(p, false).closed());
  CHECK(PumpBranch(p, false).drives_flow());
  // The branch law is the regularised curve: equal above 1e-3 Q_max, positive slope at zero.
  const PumpBranch running({220e3, 0.064, 1.0});
  CHECK(running.pressure_drop(0.03) == Approx(-pump.pressure_rise(0.03)).epsilon(1e-14));
  CHECK(running.derivative(0.0) > 0.0);
  CHECK(running.derivative(0.03) == Approx(numerical_slope(running, 0.03)).epsilon(1e-6));
}

TEST_CASE("Pump group states: duty, standby, failures and takeover", "[models][hydraulic][pump]") {
  PumpGroupParameters g;
  g.pump_count = 3;
  g.duty_count = 2;
  using S = PumpState;
  CHECK(g.states() == std::vector<S>{S::running, S::running, S::standby});
  g.failed_count = 1;
  CHECK(g.states() == std::vector<S>{S::failed, S::running, S::running});
  g.standby_takeover = false;
  CHECK(g.states() == std::vector<S>{S::failed, S::running, S::standby});
  g.standby_takeover = true;
  g.failed_count = 3;
  CHECK(g.states() == std::vector<S>{S::failed, S::failed, S::failed});
  g.failed_count = 0;
  g.duty_count = 4;
  CHECK(error_of([&] { g.validate("pod.pumps"); }) == "pod.pumps.duty_count = 4 exceeds pod.pumps.pump_count = 3");
}

TEST_CASE("N+1: failing one of three pumps moves the flow to the other two, failing all stops it",
          "[models][hydraulic][pump]") {
  // Three identical pumps against k Q^2: with n running, dp_0 - r (Q/n)^2 = k Q^2.
  const PumpParameters pump{220e3, 0.064, 1.0, 0.6, 0.78, 0.92, false};
  const double r = 220e3 / (0.064 * 0.064);
  const double k = 4.0e7;  // Pa/(m3/s)^2
  auto expected = [&](double n) { return std::sqrt(220e3 / (k + r / (n * n))); };

  solver::Network net("n+1");
  const Index tank = net.add_fixed_node("tank", 2e5);
  const Index discharge = net.add_node("discharge");
  PumpGroupParameters g;
  g.pump = pump;
  g.pump_count = 3;
  g.duty_count = 3;
  PumpGroup group(net, "pumps", tank, discharge, g);
  const Index load = net.add_branch("system", discharge, tank, std::make_shared<solver::PowerLaw>(k, 2.0, 0.1));
  solver::NetworkSolver solver(net);

  auto s = solver.solve();
  REQUIRE(s.converged);
  PumpGroupResult all = group.result(net, s);
  CHECK(all.running == 3);
  CHECK(all.flow == Approx(expected(3.0)).epsilon(1e-12));
  for (const auto& op : all.pumps) CHECK(op.flow == Approx(expected(3.0) / 3.0).epsilon(1e-12));
  CHECK(all.pressure_rise == Approx(k * expected(3.0) * expected(3.0)).epsilon(1e-12));

  g.failed_count = 1;
  group.update(net, g);
  s = solver.solve();
  REQUIRE(s.converged);
  const PumpGroupResult two = group.result(net, s);
  CHECK(two.running == 2);
  CHECK(two.pumps[0].state == PumpState::failed);
  CHECK(two.pumps[0].flow == 0.0);  // behind its check valve
  CHECK(two.pumps[1].flow == Approx(expected(2.0) / 2.0).epsilon(1e-12));
  CHECK(two.pumps[2].flow == Approx(expected(2.0) / 2.0).epsilon(1e-12));
  CHECK(s.flow[static_cast<std::size_t>(load)] == Approx(expected(2.0)).epsilon(1e-12));
  // The drop against the system curve.
  CHECK(all.flow - two.flow == Approx(expected(3.0) - expected(2.0)).epsilon(1e-9));
  CHECK(two.pumps[1].electrical_power > all.pumps[1].electrical_power);  // each works harder

  SECTION("without check valves the failed pump is back-fed") {
    g.check_valves = false;
    group.update(net, g);
    s = solver.solve();
    REQUIRE(s.converged);
    const PumpGroupResult back = group.result(net, s);
    // Reverse flow through the stopped impeller: -r Q|Q| = -dp  =>  Q = -sqrt(dp / r).
    CHECK(back.pumps[0].flow == Approx(-std::sqrt(back.pressure_rise / r)).epsilon(1e-10));
    CHECK(back.flow == Approx(s.flow[static_cast<std::size_t>(load)]).epsilon(1e-12));
    CHECK(back.flow < two.flow);
  }
  SECTION("failing all three stops the flow") {
    g.failed_count = 3;
    group.update(net, g);
    s = solver.solve();
    REQUIRE(s.converged);
    const PumpGroupResult none = group.result(net, s);
    CHECK(none.running == 0);
    CHECK(none.flow == 0.0);
    CHECK(s.flow[static_cast<std::size_t>(load)] == 0.0);
    CHECK(none.electrical_power == 0.0);
  }
}
