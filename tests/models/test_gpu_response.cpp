// The GPU package's forced response (docs/solver.md, "Forced responses"): the closed form must be
// the package's own network driven by its power with the coolant side at 0 K, r' must be r's
// derivative, and a power step must keep r continuous while r' takes the jump of the derivatives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/solver/system.hpp"

using namespace dctwin;

namespace {

/// Coolant held at 0 K behind a different resistance for each GPU.
class ZeroCoolant final : public solver::Component, public models::thermal::GpuEnvironment {
 public:
  explicit ZeroCoolant(std::vector<double> resistance) : Component("coolant"), resistance_(std::move(resistance)) {
    state_ = declare_state_group({"temperature", "K", "coolant temperature", 1});
  }
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t) const override {
    return {{{index(state_), 1.0}, {index(state_), 0.0}}};
  }
  [[nodiscard]] double environment_resistance(std::size_t gpu, const solver::EvalContext&) const override {
    return resistance_[gpu];
  }
  void initial_state(double* x) const override { x[index(state_)] = 0.0; }
  void derivatives(const solver::EvalContext&, const double*, double*) const override {}
  void jacobian_pattern(solver::PatternSink&) const override {}
  void jacobian(const solver::EvalContext&, const double*, solver::JacobianSink&) const override {}

 private:
  std::vector<double> resistance_;
  int state_ = 0;
};

/// Each GPU's power: base x (1 + i / 10); `base` is set by the test between pieces.
struct SteppedPower final : models::thermal::GpuPowerSource {
  double base = 700.0;
  [[nodiscard]] double power(std::size_t gpu, const solver::EvalContext&) const override {
    return base * (1.0 + 0.1 * static_cast<double>(gpu));
  }
};

struct Rig {
  solver::System system;
  models::thermal::GpuPackageArray* gpus = nullptr;
  SteppedPower source;
  std::unique_ptr<solver::ForcedResponse> response;

  Rig() {
    std::vector<models::thermal::GpuSpread> spread(3);
    spread[1].resistance_scale = 1.3;
    spread[2].resistance_scale = 0.7;
    auto g = std::make_unique<models::thermal::GpuPackageArray>("gpus", models::thermal::GpuPackageParameters{}, spread,
                                                                std::vector<std::string>{"a", "b", "c"}, 300.0);
    auto c = std::make_unique<ZeroCoolant>(std::vector<double>{0.01, 0.02, 0.004});
    g->connect(*c);
    g->connect(source);
    gpus = &system.add(std::move(g));
    system.add(std::move(c));
    system.assemble();
    response = gpus->make_forced_response();
  }

  /// r and r' at t (full-size arrays; the coolant entry stays 0).
  std::pair<std::vector<double>, std::vector<double>> at(double t) const {
    std::vector<double> r(static_cast<std::size_t>(system.size()), 0.0), r_dot(r.size(), 0.0);
    response->evaluate(t, r.data(), r_dot.data());
    return {r, r_dot};
  }
  /// The package's own derivatives at state r (coolant at 0 K, no leakage).
  std::vector<double> f(double t, const std::vector<double>& r) const {
    std::vector<double> xdot(r.size(), 0.0);
    system.derivatives(solver::EvalContext{t, t, nullptr}, r.data(), xdot.data());
    return xdot;
  }
};

double worst_relative(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) scale = std::max({scale, std::abs(a[i]), std::abs(b[i])});
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]) / scale);
  return worst;
}

}  // namespace

TEST_CASE("The GPU forced response solves the package's network and steps continuously", "[models][thermal]") {
  Rig rig;
  const solver::EvalContext start{0.0, 0.0, nullptr};
  rig.response->reset(start, nullptr);
  const auto heat = static_cast<std::size_t>(rig.gpus->heat_generated_index());
  const auto& p = rig.gpus->parameters();
  auto stored = [&](const std::vector<double>& r) {
    double e = 0.0;
    for (std::size_t i = 0; i < 3; ++i)
      e += p.junction_capacitance * r[static_cast<std::size_t>(rig.gpus->junction_index(i))] +
           p.hbm_capacitance * r[static_cast<std::size_t>(rig.gpus->hbm_index(i))] +
           p.base_capacitance * r[static_cast<std::size_t>(rig.gpus->base_index(i))];
    return e;
  };

  // After a reset r sits at the steady state of the power: constant, and f(r) = 0 for the GPUs.
  const auto [r0, d0] = rig.at(0.0);
  const auto [r5, d5] = rig.at(5.0);
  CHECK(worst_relative(r0, r5) <= 1e-14);
  const auto f0 = rig.f(0.0, r0);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto j = static_cast<std::size_t>(rig.gpus->junction_index(i));
    CHECK(std::abs(d0[j]) <= 1e-12);
    CHECK(std::abs(f0[j]) <= 1e-9 * 700.0 / p.junction_capacitance);
    // Steady junction rise of GPU i: its power through R_jb (scaled) plus all of it through R_be.
    const double power = 700.0 * (1.0 + 0.1 * static_cast<double>(i));
    const double r_be = std::array{0.01, 0.02, 0.004}[i];
    const double scale = std::array{1.0, 1.3, 0.7}[i];
    const double hbm_share = p.hbm_power_fraction;
    CHECK(r0[j] == Approx((1.0 - hbm_share) * power * scale * p.junction_to_base_resistance + power * r_be).epsilon(1e-12));
  }
  CHECK(r0[heat] == Approx(stored(r0)).epsilon(1e-14));

  // A power step at t = 2 s: r continuous, and from then on r' = f(r) at the new power.
  const auto [before, d_before] = rig.at(2.0);
  rig.source.base = 250.0;
  rig.response->reanchor(solver::EvalContext{2.0, 2.0, nullptr}, nullptr);
  const auto [after, d_after] = rig.at(2.0);
  CHECK(worst_relative(before, after) <= 1e-14);
  for (const double t : {2.0, 2.01, 2.3, 5.0, 40.0}) {
    const auto [r, r_dot] = rig.at(t);
    auto f = rig.f(t, r);
    auto temperature_rates = r_dot;
    f[heat] = temperature_rates[heat] = 0.0;  // the accumulator's r is sum C r, checked below
    INFO("t = " << t);
    CHECK(worst_relative(temperature_rates, f) <= 1e-10);
    CHECK(r[heat] == Approx(stored(r)).epsilon(1e-13));
    // r' is r's derivative: central difference with h = 1e-5 s.
    const double h = 1e-5;
    const auto [r_plus, unused_plus] = rig.at(t + h);
    const auto [r_minus, unused_minus] = rig.at(std::max(2.0, t - h));
    std::vector<double> difference(r.size());
    const double span = t + h - std::max(2.0, t - h);
    for (std::size_t i = 0; i < r.size(); ++i) difference[i] = (r_plus[i] - r_minus[i]) / span;
    CHECK(worst_relative(difference, r_dot) <= (t == 2.0 ? 1e-3 : 1e-6));
  }
  // Long after the step r is at the new steady state.
  const auto [late, d_late] = rig.at(2000.0);
  const auto f_late = rig.f(2000.0, late);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto j = static_cast<std::size_t>(rig.gpus->junction_index(i));
    CHECK(std::abs(f_late[j]) <= 1e-9);
    CHECK(std::abs(d_late[j]) <= 1e-9);
  }
}

namespace {

/// One coolant node per GPU, heated by that GPU's base and fed at G_in,i from a stream at 0 K:
///   C_e dT_e,i/dt = (T_b,i - T_e,i) / R_e,i - G_in,i T_e,i.
/// A plate with G_in,i = 0 has no flow (the GPU's three-node form; with flow, the four-node form).
class PlateNodes final : public solver::Component, public models::thermal::GpuEnvironment {
 public:
  static constexpr double capacitance = 80.0;

  PlateNodes(const models::thermal::GpuPackageArray& gpus, std::vector<double> resistance,
             std::vector<double> inlet_conductance)
      : Component("plates"), gpus_(gpus), resistance_(std::move(resistance)),
        inlet_conductance_(std::move(inlet_conductance)) {
    REQUIRE(resistance_.size() == gpus.count());
    REQUIRE(inlet_conductance_.size() == gpus.count());
    state_ = declare_state_group({"temperature", "K", "plate coolant temperature", static_cast<solver::Index>(gpus.count())});
  }
  [[nodiscard]] solver::Index node(std::size_t gpu) const { return index(state_, static_cast<solver::Index>(gpu)); }
  [[nodiscard]] std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t gpu) const override {
    return {{{node(gpu), 1.0}, {node(gpu), 0.0}}};
  }
  [[nodiscard]] double environment_resistance(std::size_t gpu, const solver::EvalContext&) const override {
    return resistance_[gpu];
  }
  [[nodiscard]] solver::Index own_node_state(std::size_t gpu) const override { return node(gpu); }
  [[nodiscard]] OwnNode own_node(std::size_t gpu, const solver::EvalContext&) const override {
    return {capacitance, inlet_conductance_[gpu]};
  }
  void initial_state(double* x) const override {
    for (std::size_t g = 0; g < gpus_.count(); ++g) x[node(g)] = 0.0;
  }
  void derivatives(const solver::EvalContext&, const double* x, double* xdot) const override {
    for (std::size_t g = 0; g < gpus_.count(); ++g) {
      const double te = x[node(g)];
      xdot[node(g)] += ((x[gpus_.base_index(g)] - te) / resistance_[g] - inlet_conductance_[g] * te) / capacitance;
    }
  }
  void jacobian_pattern(solver::PatternSink&) const override {}
  void jacobian(const solver::EvalContext&, const double*, solver::JacobianSink&) const override {}

 private:
  const models::thermal::GpuPackageArray& gpus_;
  std::vector<double> resistance_, inlet_conductance_;  // R_e,i in K/W, G_in,i in W/K
  int state_ = 0;
};

/// The plates of PlateRig's three GPUs; GPU 2's plate has no flow.
constexpr std::array<double, 3> plate_resistance{0.01, 0.02, 0.004};
constexpr std::array<double, 3> plate_inlet_conductance{100.0, 60.0, 0.0};

/// Three GPUs with leakage on PlateNodes: the four-node form with its leakage tangent.
struct PlateRig {
  models::thermal::GpuPackageParameters p;
  std::vector<models::thermal::GpuSpread> spread = std::vector<models::thermal::GpuSpread>(3);
  solver::System system;
  SteppedPower source;
  models::thermal::GpuPackageArray* gpus = nullptr;
  const PlateNodes* nodes = nullptr;
  std::unique_ptr<solver::ForcedResponse> response;

  PlateRig() {
    p.leakage_power_at_reference = 50.0;
    p.leakage_reference_temperature = 333.15;
    p.leakage_temperature_coefficient = 0.02;
    spread[1].resistance_scale = 1.3;
    auto g = std::make_unique<models::thermal::GpuPackageArray>("gpus", p, spread, std::vector<std::string>{"a", "b", "c"}, 300.0);
    auto plates = std::make_unique<PlateNodes>(
        *g, std::vector<double>(plate_resistance.begin(), plate_resistance.end()),
        std::vector<double>(plate_inlet_conductance.begin(), plate_inlet_conductance.end()));
    g->connect(*plates);
    g->connect(source);
    gpus = &system.add(std::move(g));
    nodes = &system.add(std::move(plates));
    system.assemble();
    response = gpus->make_forced_response();
  }
};

}  // namespace

TEST_CASE("The GPU forced response carries the plate's coolant node and the leakage tangent", "[models][thermal]") {
  PlateRig rig;
  const auto& p = rig.p;
  const auto& spread = rig.spread;
  const auto& system = rig.system;
  auto& source = rig.source;
  const auto& gpus = *rig.gpus;
  const auto& nodes = *rig.nodes;
  auto& response = rig.response;

  const auto covered = response->covered_states();
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(std::find(covered.begin(), covered.end(), nodes.node(i)) != covered.end());

  // Reset from a state with every junction at 343.15 K: the leakage tangent there is
  // s = k L(T_0) = 0.02 * 50 * e^0.2 W/K.
  std::vector<double> x(static_cast<std::size_t>(system.size()), 0.0);
  for (std::size_t i = 0; i < 3; ++i) x[static_cast<std::size_t>(gpus.junction_index(i))] = 343.15;
  const double slope = 0.02 * 50.0 * std::exp(0.02 * 10.0);
  response->reset(solver::EvalContext{0.0, 0.0, nullptr}, x.data());

  auto at = [&](double t) {
    std::vector<double> r(x.size(), 0.0), r_dot(x.size(), 0.0);
    response->evaluate(t, r.data(), r_dot.data());
    return std::pair{r, r_dot};
  };
  // The network written out node by node (boundary at 0 K, leakage in its tangent s r_j).
  auto network_rates = [&](const std::vector<double>& r, double power_base, std::size_t i) {
    const double power = power_base * (1.0 + 0.1 * static_cast<double>(i));
    const double g_jb = 1.0 / (spread[i].resistance_scale * p.junction_to_base_resistance);
    const double g_hb = 1.0 / p.hbm_to_base_resistance, g_be = 1.0 / plate_resistance[i];
    const double tj = r[static_cast<std::size_t>(gpus.junction_index(i))];
    const double th = r[static_cast<std::size_t>(gpus.hbm_index(i))];
    const double tb = r[static_cast<std::size_t>(gpus.base_index(i))];
    const bool with_node = plate_inlet_conductance[i] > 0.0;
    const double te = with_node ? r[static_cast<std::size_t>(nodes.node(i))] : 0.0;
    return std::array{
        ((1.0 - p.hbm_power_fraction) * power + slope * tj - g_jb * (tj - tb)) / p.junction_capacitance,
        (p.hbm_power_fraction * power - g_hb * (th - tb)) / p.hbm_capacitance,
        (g_jb * (tj - tb) + g_hb * (th - tb) - g_be * (tb - te)) / p.base_capacitance,
        with_node ? (g_be * (tb - te) - plate_inlet_conductance[i] * te) / PlateNodes::capacitance : 0.0};
  };
  auto rates_of = [&](const std::vector<double>& r_dot, std::size_t i) {
    return std::array{r_dot[static_cast<std::size_t>(gpus.junction_index(i))],
                      r_dot[static_cast<std::size_t>(gpus.hbm_index(i))],
                      r_dot[static_cast<std::size_t>(gpus.base_index(i))],
                      r_dot[static_cast<std::size_t>(nodes.node(i))]};
  };
  auto stored = [&](const std::vector<double>& r) {
    double e = 0.0;
    for (std::size_t i = 0; i < 3; ++i)
      e += p.junction_capacitance * r[static_cast<std::size_t>(gpus.junction_index(i))] +
           p.hbm_capacitance * r[static_cast<std::size_t>(gpus.hbm_index(i))] +
           p.base_capacitance * r[static_cast<std::size_t>(gpus.base_index(i))] +
           (plate_inlet_conductance[i] > 0.0 ? PlateNodes::capacitance * r[static_cast<std::size_t>(nodes.node(i))] : 0.0);
    return e;
  };
  const auto heat = static_cast<std::size_t>(gpus.heat_generated_index());

  // At the reset r is the network's steady state: every rate 0; the plate node of GPU 0 carries
  // the whole power (plus the tangent's share) into the stream, and GPU 2 (no flow) has r_e = 0.
  const auto [r0, d0] = at(0.0);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto rates = network_rates(r0, 700.0, i);
    for (std::size_t k = 0; k < 4; ++k) CHECK(std::abs(rates[k]) <= 1e-9);
  }
  CHECK(r0[static_cast<std::size_t>(nodes.node(2))] == 0.0);
  const double te0 = r0[static_cast<std::size_t>(nodes.node(0))];
  const double tj0 = r0[static_cast<std::size_t>(gpus.junction_index(0))];
  CHECK(plate_inlet_conductance[0] * te0 == Approx(700.0 + slope * tj0).epsilon(1e-12));
  CHECK(r0[heat] == Approx(stored(r0)).epsilon(1e-14));

  // A power step at t = 1 s: r continuous, then r' is the network's rate and r's derivative.
  const auto [before, unused_before] = at(1.0);
  source.base = 300.0;
  response->reanchor(solver::EvalContext{1.0, 1.0, nullptr}, nullptr);
  const auto [after, unused_after] = at(1.0);
  CHECK(worst_relative(before, after) <= 1e-14);
  for (const double t : {1.0, 1.05, 1.7, 6.0, 60.0}) {
    INFO("t = " << t);
    const auto [r, r_dot] = at(t);
    for (std::size_t i = 0; i < 3; ++i) {
      const auto expected = network_rates(r, 300.0, i);
      const auto got = rates_of(r_dot, i);
      for (std::size_t k = 0; k < 4; ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-9 * 700.0 / p.junction_capacitance));
    }
    CHECK(r[heat] == Approx(stored(r)).epsilon(1e-13));
    const double h = 1e-5;
    const auto [r_plus, unused_plus] = at(t + h);
    const auto [r_minus, unused_minus] = at(t - h);
    for (std::size_t i = 0; i < 3; ++i) {
      const auto node = static_cast<std::size_t>(nodes.node(i));
      if (t > 1.0) CHECK((r_plus[node] - r_minus[node]) / (2 * h) == Approx(r_dot[node]).margin(1e-6));
    }
  }
}

TEST_CASE("The GPU forced response forms the junction and HBM rows alone to the same bits", "[models][thermal]") {
  // A governors' tick reads T_j and T_hbm, the event function T_j alone: evaluate_in then forms
  // only those rows (docs/solver.md, "States formed where they are read"), each to the bits of the
  // whole evaluation, and asks for the whole one when any other covered state is wanted.
  PlateRig rig;
  const auto& system = rig.system;
  const auto& gpus = *rig.gpus;
  auto& response = rig.response;
  std::vector<double> x(static_cast<std::size_t>(system.size()), 0.0);
  for (std::size_t i = 0; i < 3; ++i) x[static_cast<std::size_t>(gpus.junction_index(i))] = 343.15;
  response->reset(solver::EvalContext{0.0, 0.0, nullptr}, x.data());
  rig.source.base = 300.0;  // a step, so that r moves after it
  response->reanchor(solver::EvalContext{1.0, 1.0, nullptr}, nullptr);

  const double t = 1.37;
  const double unset = -12345.0;
  std::vector<double> whole(x.size(), unset);
  response->evaluate(t, whole.data(), nullptr);
  const solver::StateRange junction = gpus.junction_states(), hbm = gpus.hbm_states();
  REQUIRE(junction.count == 3);
  REQUIRE(hbm.count == 3);
  auto in = [](const solver::StateRanges& ranges, std::size_t i) {
    for (const auto& r : ranges)
      if (static_cast<solver::Index>(i) >= r.first && static_cast<solver::Index>(i) < r.first + r.count) return true;
    return false;
  };
  const std::vector<solver::StateRanges> asks = {
      {junction}, solver::merge_state_ranges({junction, hbm}), {hbm}, {solver::StateRange{junction.first + 1, 1}}};
  for (const auto& ranges : asks) {
    std::vector<double> part(x.size(), unset);
    response->evaluate_in(t, part.data(), ranges);
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("state " << system.state_name(static_cast<solver::Index>(i)));
      if (in(ranges, i)) CHECK(std::memcmp(&part[i], &whole[i], sizeof(double)) == 0);
      // Only junction and HBM rows are formed; the base, the plates' nodes and the heat are not.
      if (!in({junction, hbm}, i)) CHECK(part[i] == unset);
    }
  }
  // Asked for a plate node (or the base), it evaluates everything.
  std::vector<double> part(x.size(), unset);
  response->evaluate_in(t, part.data(), {solver::StateRange{rig.nodes->node(1), 1}});
  CHECK(std::memcmp(part.data(), whole.data(), sizeof(double) * x.size()) == 0);
}

namespace {

/// Reanchors two like rigs at each (t, power) step, `formed` with reanchor() and `given` with
/// reanchor_from() and the r(t) it evaluates just before, and counts the values of r and r' that
/// are not the same bits in the two afterwards (at t, t + 0.01, t + 0.3 and t + 5 s).
template <class TwinRig>
std::size_t differing_after_reanchors(TwinRig& formed, TwinRig& given, const std::vector<double>& x,
                                      std::initializer_list<std::pair<double, double>> steps) {
  const std::size_t n = x.size();
  const solver::EvalContext start{0.0, 0.0, nullptr};
  formed.response->reset(start, x.data());
  given.response->reset(start, x.data());
  auto at = [n](const TwinRig& rig, double t) {
    std::vector<double> r(n, 0.0), r_dot(n, 0.0);
    rig.response->evaluate(t, r.data(), r_dot.data());
    return std::pair{r, r_dot};
  };
  std::size_t differing = 0;
  for (const auto& [t, power] : steps) {
    const auto [r_now, unused] = at(given, t);
    formed.source.base = power;
    given.source.base = power;
    const solver::EvalContext ctx{t, t, nullptr};
    formed.response->reanchor(ctx, x.data());
    given.response->reanchor_from(ctx, x.data(), r_now.data());
    for (const double later : {t, t + 0.01, t + 0.3, t + 5.0}) {
      const auto [r_formed, r_dot_formed] = at(formed, later);
      const auto [r_given, r_dot_given] = at(given, later);
      for (std::size_t i = 0; i < n; ++i) {
        differing += std::memcmp(&r_formed[i], &r_given[i], sizeof(double)) != 0;
        differing += std::memcmp(&r_dot_formed[i], &r_dot_given[i], sizeof(double)) != 0;
      }
    }
  }
  return differing;
}

}  // namespace

TEST_CASE("A GPU forced response reanchored from r(t) at hand gives the pieces it forms itself", "[models][thermal]") {
  // The integrator's continuation across a power step has just evaluated r(t) of the present
  // pieces; reanchor_from() starts the new pieces from those values instead of forming them again.
  // Two rigs, one reanchored each way, must evaluate to the same bits afterwards (r and r'), for
  // a GPU with its plate node (0) and one in the three-node form (2, no flow). Two steps, so that
  // the second starts from a piece with a transient (w != 0).
  PlateRig formed, given;
  std::vector<double> x(static_cast<std::size_t>(formed.system.size()), 0.0);
  for (std::size_t i = 0; i < 3; ++i) x[static_cast<std::size_t>(formed.gpus->junction_index(i))] = 343.15;
  CHECK(differing_after_reanchors(formed, given, x, {{1.0, 300.0}, {1.37, 650.0}}) == 0);
}

namespace {

/// ManyPlateRig's plates: GPU g's has R_e = 0.004 + 0.002 (g mod 7) K/W and, unless
/// `without_flow(g)`, G_in = 40 + 5 (g mod 11) W/K (the four-node form; without flow the three-node form).
bool without_flow(std::size_t g) { return (g >= 200 && g % 5 == 4) || (g >= 232 && g < 240); }
double many_plate_resistance(std::size_t g) { return 0.004 + 0.002 * static_cast<double>(g % 7); }
double many_plate_inlet(std::size_t g) { return without_flow(g) ? 0.0 : 40.0 + 5.0 * static_cast<double>(g % 11); }

/// 260 GPUs with leakage and spread resistances on PlateNodes: lane groups of eight in the
/// four-node form, one in the three-node form (GPUs 232-239, inside the loops' block 14 of
/// [227, 243)), groups that mix the two, and groups cut by the blocks' boundaries (260 / 16 is not
/// a whole number of groups).
struct ManyPlateRig {
  static constexpr std::size_t count = 260;
  models::thermal::GpuPackageParameters p;
  solver::System system;
  SteppedPower source;
  models::thermal::GpuPackageArray* gpus = nullptr;
  std::unique_ptr<solver::ForcedResponse> response;

  ManyPlateRig() {
    p.leakage_power_at_reference = 50.0;
    p.leakage_reference_temperature = 333.15;
    p.leakage_temperature_coefficient = 0.02;
    std::vector<models::thermal::GpuSpread> spread(count);
    std::vector<std::string> labels;
    std::vector<double> resistance(count), inlet(count);
    for (std::size_t g = 0; g < count; ++g) {
      spread[g].resistance_scale = 1.0 + 0.03 * static_cast<double>(g % 5);
      labels.push_back("g" + std::to_string(g));
      resistance[g] = many_plate_resistance(g);
      inlet[g] = many_plate_inlet(g);
    }
    auto g = std::make_unique<models::thermal::GpuPackageArray>("gpus", p, spread, labels, 300.0);
    auto plates = std::make_unique<PlateNodes>(*g, std::move(resistance), std::move(inlet));
    g->connect(*plates);
    g->connect(source);
    gpus = &system.add(std::move(g));
    system.add(std::move(plates));
    system.assemble();
    response = gpus->make_forced_response();
  }
};

}  // namespace

TEST_CASE("New pieces formed eight GPUs side by side have the bits of those formed one by one", "[models][thermal]") {
  // reanchor() starts every GPU's new piece on its own (start_piece); reanchor_from() takes whole
  // lane groups whose GPUs share their form side by side. Afterwards r and r' must be the same
  // bits at every time, for every GPU.
  ManyPlateRig formed, given;
  std::vector<double> x(static_cast<std::size_t>(formed.system.size()), 0.0);
  for (std::size_t i = 0; i < ManyPlateRig::count; ++i)
    x[static_cast<std::size_t>(formed.gpus->junction_index(i))] = 330.0 + 0.05 * static_cast<double>(i);
  CHECK(differing_after_reanchors(formed, given, x, {{1.0, 300.0}, {1.37, 650.0}, {2.9, 120.0}}) == 0);
}

TEST_CASE("At its anchor a GPU forced response takes exp(0) = 1 as the exponential gives it", "[models][thermal]") {
  // At tau = 0 (the evaluation right after a reanchor) the evaluation takes e_m = 1 without the
  // exponential; just after the anchor (tau = 1e-300, the exponential's own result 1) the result
  // must be the same bits. The anchor is t = 0 so that such a tau is representable.
  PlateRig rig;
  std::vector<double> x(static_cast<std::size_t>(rig.system.size()), 0.0);
  for (std::size_t i = 0; i < 3; ++i) x[static_cast<std::size_t>(rig.gpus->junction_index(i))] = 343.15;
  rig.response->reset(solver::EvalContext{0.0, 0.0, nullptr}, x.data());
  rig.source.base = 250.0;  // a step at the anchor itself: a piece with w != 0
  rig.response->reanchor(solver::EvalContext{0.0, 0.0, nullptr}, x.data());
  std::vector<double> r0(x.size(), 0.0), d0(x.size(), 0.0), r1(x.size(), 0.0), d1(x.size(), 0.0);
  rig.response->evaluate(0.0, r0.data(), d0.data());
  rig.response->evaluate(1e-300, r1.data(), d1.data());
  CHECK(std::memcmp(r0.data(), r1.data(), sizeof(double) * x.size()) == 0);
  CHECK(std::memcmp(d0.data(), d1.data(), sizeof(double) * x.size()) == 0);
  // And the transient is there: r' is not zero at the junction right after the step.
  CHECK(d0[static_cast<std::size_t>(rig.gpus->junction_index(0))] < 0.0);
}

TEST_CASE("The GPU leakage is L_ref s_i exp(k (T_j - T_ref)), the same bits one GPU at a time or in a pass",
          "[models][thermal]") {
  // 200 GPUs, so the pass covers several vector widths and a tail; junction temperatures from
  // 250 K to 449 K and two beyond the exponential's range (k (T_j - T_ref) = +-2,000).
  constexpr std::size_t n = 200;
  models::thermal::GpuPackageParameters p;
  p.leakage_power_at_reference = 50.0;
  p.leakage_reference_temperature = 333.15;
  p.leakage_temperature_coefficient = 0.02;
  std::vector<models::thermal::GpuSpread> spread(n);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < n; ++i) {
    spread[i].leakage_scale = 0.8 + 0.002 * static_cast<double>(i);
    labels.push_back("gpu" + std::to_string(i));
  }
  solver::System system;
  auto& gpus = system.add(std::make_unique<models::thermal::GpuPackageArray>("gpus", p, spread, labels, 300.0));
  auto& coolant = system.add(std::make_unique<ZeroCoolant>(std::vector<double>(n, 0.01)));
  gpus.connect(coolant);
  system.assemble();
  std::vector<double> x(static_cast<std::size_t>(system.size()), 0.0);
  auto junction = [&](std::size_t i) -> double& { return x[static_cast<std::size_t>(gpus.junction_index(i))]; };
  for (std::size_t i = 0; i < n; ++i) junction(i) = 250.0 + static_cast<double>(i);
  junction(n - 2) = p.leakage_reference_temperature - 1e5;
  junction(n - 1) = p.leakage_reference_temperature + 1e5;

  std::vector<double> all;
  gpus.leakage_powers(x.data(), all);
  REQUIRE(all.size() == n);
  std::vector<double> part(n - 7);
  gpus.leakage_powers(7, n, x.data(), part.data());  // a run that starts off the vectors' alignment
  for (std::size_t i = 0; i < n; ++i) {
    const double one = gpus.leakage_power(i, junction(i));
    CHECK(std::memcmp(&one, &all[i], sizeof(double)) == 0);
    if (i >= 7) CHECK(std::memcmp(&one, &part[i - 7], sizeof(double)) == 0);
    if (i < n - 2) {
      const double exact = spread[i].leakage_scale * p.leakage_power_at_reference *
                           std::exp(p.leakage_temperature_coefficient * (junction(i) - p.leakage_reference_temperature));
      CHECK(std::abs(one - exact) <= 4e-16 * exact);
    }
  }
  // Beyond the range the exponent is held at -700 and +700: finite and positive.
  CHECK(all[n - 2] > 0.0);
  CHECK(all[n - 2] < 1e-290);
  CHECK(std::isfinite(all[n - 1]));
  CHECK(all[n - 1] > 1e300);
  // A junction temperature that is not a number gives a leakage that is not a number.
  junction(3) = std::nan("");
  gpus.leakage_powers(x.data(), all);
  CHECK(std::isnan(all[3]));
  CHECK(std::isnan(gpus.leakage_power(3, std::nan(""))));
}

TEST_CASE("A GPU forced response bounds its rows for as long as its pieces last", "[models][thermal]") {
  // r_k(t) = r_ss_k + sum_m w_km exp(lambda_m (t - t_a)) with every exponential in (0, 1]: at most
  // r_ss_k + sum_m max(w_km, 0) (upper_bound_in, used to prove the governors at rest over a step).
  PlateRig rig;
  const auto& system = rig.system;
  const auto& gpus = *rig.gpus;
  const auto& nodes = *rig.nodes;
  auto& response = rig.response;
  std::vector<double> x(static_cast<std::size_t>(system.size()), 0.0);
  for (std::size_t i = 0; i < 3; ++i) x[static_cast<std::size_t>(gpus.junction_index(i))] = 343.15;
  response->reset(solver::EvalContext{0.0, 0.0, nullptr}, x.data());
  const solver::StateRange junction = gpus.junction_states(), hbm = gpus.hbm_states(),
                           base{gpus.base_index(0), 3};  // (the groups are contiguous)
  const solver::StateRanges all_rows = solver::merge_state_ranges(
      {junction, hbm, base, solver::StateRange{nodes.node(0), 1}, solver::StateRange{nodes.node(1), 1},
       solver::StateRange{nodes.node(2), 1}});
  const double unset = -12345.0;
  // Up from 700 W to 1,000 W at 1 s, down to 150 W at 3 s: rising, then falling pieces.
  for (const auto& [anchor, power] : {std::pair{1.0, 1000.0}, std::pair{3.0, 150.0}}) {
    rig.source.base = power;
    response->reanchor(solver::EvalContext{anchor, anchor, nullptr}, nullptr);
    std::vector<double> upper(x.size(), unset);
    REQUIRE(response->upper_bound_in(upper.data(), all_rows));
    double highest_gap = 1e300;
    std::vector<double> highest(x.size(), -1e300);
    for (int k = 0; k <= 400; ++k) {
      const double t = anchor + 1e-4 * std::pow(1.05, k);  // from 0.1 ms to ~30 000 s after the anchor
      std::vector<double> r(x.size(), 0.0);
      response->evaluate(t, r.data(), nullptr);
      for (const auto& range : all_rows)
        for (solver::Index i = range.first; i < range.first + range.count; ++i) {
          const auto s = static_cast<std::size_t>(i);
          INFO("t = " << t << ", state " << system.state_name(i));
          CHECK(r[s] <= upper[s]);
          highest[s] = std::max(highest[s], r[s]);
        }
    }
    // How far above the highest value: the junction's rows are dominated by one mode, and the
    // bound is within a few mK; the other rows mix modes of both signs and it is looser (up to
    // ~9 K here, against limits 20-30 K above a hall's temperatures).
    for (const auto& range : all_rows)
      for (solver::Index i = range.first; i < range.first + range.count; ++i) {
        const auto s = static_cast<std::size_t>(i);
        highest_gap = std::min(highest_gap, upper[s] - highest[s]);
        INFO("state " << system.state_name(i));
        const bool is_junction = i >= junction.first && i < junction.first + junction.count;
        CHECK(upper[s] - highest[s] <= (is_junction ? 0.01 : 10.0));
      }
    CHECK(highest_gap >= 0.0);
  }
  // Only the rows asked for (and no state it does not cover); the heat it holds is not bounded.
  std::vector<double> part(x.size(), unset);
  REQUIRE(response->upper_bound_in(part.data(), solver::merge_state_ranges({junction, hbm})));
  CHECK(part[static_cast<std::size_t>(gpus.base_index(0))] == unset);
  CHECK(part[static_cast<std::size_t>(gpus.heat_generated_index())] == unset);
  CHECK(part[static_cast<std::size_t>(gpus.junction_index(2))] != unset);
  CHECK_FALSE(response->upper_bound_in(part.data(), {solver::StateRange{gpus.heat_generated_index(), 1}}));
}
