#include "dctwin/models/thermal/gpu_package.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include <Eigen/Dense>

#include "../vector_math.hpp"
#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::thermal {

using solver::Index;

core::ParameterTable GpuPackageParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("junction_capacitance", "J/K", "Heat capacity of the die lumped at the junction node", 30.0,
                          "Estimate: H100 die and substrate, a few tens of grams of silicon and copper");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hbm_capacitance", "J/K", "Heat capacity of the HBM3 stacks", 20.0,
                     "Estimate: five HBM3 stacks of a few grams each, with their share of the interposer");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("base_capacitance", "J/K", "Heat capacity of the lid and heat-spreading base (cold-plate base or heatsink base)",
                     150.0, "Estimate: ~0.4 kg of copper (c_p 385 J/(kg K))");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("junction_to_base_resistance", "K/W", "Thermal resistance from junction to the base", 0.025,
                     "Junction-to-local-coolant 0.02-0.05 K/W ([unsourced] estimate), split between package and plate");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hbm_to_base_resistance", "K/W", "Thermal resistance from the HBM stacks to the base", 0.15,
                     "Estimate (uncertain): HBM runs a few K above the base at ~70 W");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hbm_power_fraction", "1", "Share of the scheduled power dissipated in the HBM stacks", 0.12,
                     "Estimate (uncertain): HBM3 at full bandwidth, ~60-90 W of a 700 W board");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.5));
  p = real_parameter("leakage_power_at_reference", "W", "Leakage power at the reference junction temperature", 0.0,
                     "0 = no temperature dependence; H100 idles at 69-100 W ([nvidia-smi-h100]), of which leakage is a part");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("leakage_reference_temperature", "K", "Junction temperature at which the leakage power is given", 333.15);
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("leakage_temperature_coefficient", "1/K", "k in L = L_ref exp(k (T_j - T_ref))", 0.02,
                     "Subthreshold leakage roughly doubles every 30-40 K in recent CMOS nodes (uncertain)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.1));
  p = real_parameter("max_operating_temperature", "K", "Maximum operating junction temperature (software thermal slowdown target)",
                     360.15, "H100 SXM5: 87 degC ([nvidia-smi-h100])");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("hbm_max_operating_temperature", "K", "Maximum operating HBM temperature", 368.15,
                     "H100 SXM5 HBM3: 95 degC ([nvidia-smi-h100])");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("hw_slowdown_temperature", "K", "Junction temperature at which hardware thermal slowdown halves the clock",
                     362.15, "H100 SXM5: 89 degC ([nvidia-smi-h100])");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("shutdown_temperature", "K", "Junction temperature at which the GPU shuts down", 365.15,
                     "H100 SXM5: 92 degC ([nvidia-smi-h100])");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  return t;
}

GpuPackageParameters GpuPackageParameters::from(const core::ParameterTree& s) {
  GpuPackageParameters p;
  p.junction_capacitance = s.number("junction_capacitance");
  p.hbm_capacitance = s.number("hbm_capacitance");
  p.base_capacitance = s.number("base_capacitance");
  p.junction_to_base_resistance = s.number("junction_to_base_resistance");
  p.hbm_to_base_resistance = s.number("hbm_to_base_resistance");
  p.hbm_power_fraction = s.number("hbm_power_fraction");
  p.leakage_power_at_reference = s.number("leakage_power_at_reference");
  p.leakage_reference_temperature = s.number("leakage_reference_temperature");
  p.leakage_temperature_coefficient = s.number("leakage_temperature_coefficient");
  p.max_operating_temperature = s.number("max_operating_temperature");
  p.hbm_max_operating_temperature = s.number("hbm_max_operating_temperature");
  p.hw_slowdown_temperature = s.number("hw_slowdown_temperature");
  p.shutdown_temperature = s.number("shutdown_temperature");
  // The limits must rise: slowdown target, hardware slowdown, shutdown.
  auto ordered = [&](const char* lower, double low, const char* upper, double high) {
    if (low < high) return;
    char text[256];
    std::snprintf(text, sizeof text, " = %g degC is not above %s = %g degC", high - 273.15, s.key_path(lower).c_str(),
                  low - 273.15);
    throw core::InputError(s.key_path(upper) + text, s.key_path(upper));
  };
  ordered("max_operating_temperature", p.max_operating_temperature, "hw_slowdown_temperature", p.hw_slowdown_temperature);
  ordered("hw_slowdown_temperature", p.hw_slowdown_temperature, "shutdown_temperature", p.shutdown_temperature);
  return p;
}

core::ParameterTable GpuSpread::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("power_scale", "1", "This GPU's dynamic power relative to nominal (same clock and activity)", 1.0, "");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("resistance_scale", "1", "This GPU's junction-to-base resistance relative to nominal", 1.0, "");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("leakage_scale", "1", "This GPU's leakage relative to nominal", 1.0, "");
  t.push_back(at_least(p, 0.0));
  return t;
}

GpuSpread GpuSpread::from(const core::ParameterTree& s) {
  return {s.number("power_scale"), s.number("resistance_scale"), s.number("leakage_scale")};
}

namespace {
using detail::exp_within_700;
using detail::max_exponent;
using detail::min_exponent;

// mode_exponentials and leakage_exponentials are compiled in vector variants
// (DCTWIN_VECTOR_VARIANTS, solver/parallel.hpp): 4 or 8 doubles per instruction instead of 2 took
// ~5 % off the 24k hall's run (docs/performance.md). This file is compiled without contraction
// into fused multiply-adds (models/CMakeLists.txt), so that every variant gives the same bits.

/// The leakage exponent k (T_j - T_ref), clamped to the exponential's range (NaN stays NaN).
inline double leakage_exponent(double k, double tj, double reference) {
  return std::min(std::max(k * (tj - reference), min_exponent), max_exponent);
}

/// L_i = c_i exp(k (T_j,i - T_ref)) for `count` GPUs, c_i = s_i L_ref, in two passes the compiler
/// vectorises; each L_i has the bits of GpuPackageArray::leakage_power.
DCTWIN_VECTOR_VARIANTS void leakage_exponentials(const double* coefficient, const double* tj, std::size_t count,
                                                 double k, double reference, double* leakage) {
  for (std::size_t i = 0; i < count; ++i) leakage[i] = leakage_exponent(k, tj[i], reference);
  for (std::size_t i = 0; i < count; ++i) leakage[i] = coefficient[i] * exp_within_700(leakage[i]);
}
/// GPUs [block.first, block.last) a chunk at a time: the chunk's leakage in one vectorised pass
/// and its environment's coefficients in one call, then f(first, last, leakage, coefficients)
/// (derivatives and Jacobian alike).
template <class F>
void for_each_chunk_with_environment(const GpuPackageArray& gpus, const GpuEnvironment& environment,
                                     const solver::BlockRange& block, const solver::EvalContext& ctx, const double* x,
                                     F&& f) {
  constexpr std::size_t chunk = GpuPackageArray::power_chunk;
  std::array<double, chunk> leakage;
  std::array<GpuEnvironment::Coefficients, chunk> coefficients;
  for (std::size_t c = block.first; c < block.last; c += chunk) {
    const std::size_t c_last = std::min(c + chunk, block.last);
    gpus.leakage_powers(c, c_last, x, leakage.data());
    environment.environment_coefficients(c, c_last, ctx, coefficients.data());
    f(c, c_last, leakage.data(), coefficients.data());
  }
}

}  // namespace

GpuPackageArray::GpuPackageArray(std::string name, GpuPackageParameters parameters,
                                 std::vector<GpuSpread> spread, std::vector<std::string> labels,
                                 double initial_temperature)
    : Component(std::move(name)),
      p_(parameters),
      spread_(std::move(spread)),
      labels_(std::move(labels)),
      initial_temperature_(initial_temperature) {
  DCTWIN_DEMAND(!spread_.empty() && labels_.size() == spread_.size(), "one label per GPU");
  leakage_coefficient_.reserve(spread_.size());
  for (const GpuSpread& s : spread_) leakage_coefficient_.push_back(s.leakage_scale * p_.leakage_power_at_reference);
  const auto n = static_cast<Index>(spread_.size());
  junction_ = declare_state_group({"junction_temperature", "K", "GPU junction temperature", n});
  hbm_ = declare_state_group({"hbm_temperature", "K", "GPU HBM temperature", n});
  base_ = declare_state_group({"base_temperature", "K", "GPU base (lid, cold-plate or heatsink base) temperature", n});
  heat_generated_ = declare_state_group({"heat_generated", "J", "heat generated by the GPUs", 1, true});
  out_junction_ = declare_output({"gpu", "junction_temperature", "K", "GPU junction temperature", "gpu", n});
  out_hbm_ = declare_output({"gpu", "hbm_temperature", "K", "GPU HBM temperature", "gpu", n});
  out_base_ = declare_output({"gpu", "base_temperature", "K", "GPU base temperature", "gpu", n});
  out_power_ = declare_output({"gpu", "power", "W", "GPU board power (static, dynamic and leakage)", "gpu", n});
  out_total_power_ = declare_output({"gpu", "total_power", "W", "total power of all GPUs", "", 1});
  declare_entity_table({"gpu", labels_});
  declare_event("junction_shutdown");
}

void GpuEnvironment::environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                              Coefficients* out) const {
  for (std::size_t i = first; i < last; ++i) out[i - first] = {environment_terms(i), environment_resistance(i, ctx)};
}

double GpuPowerSource::next_change(double) const { return std::numeric_limits<double>::infinity(); }

void GpuPowerSource::powers(std::size_t first, std::size_t last, const solver::EvalContext& ctx, double* power,
                            bool* on) const {
  for (std::size_t i = first; i < last; ++i) {
    on[i - first] = powered(i, ctx);
    power[i - first] = on[i - first] ? this->power(i, ctx) : 0.0;
  }
}

double GpuPackageArray::board_power(std::size_t i, const solver::EvalContext& ctx, const double* x) const {
  if (!source_->powered(i, ctx)) return 0.0;
  return source_->power(i, ctx) + leakage_power(i, x[junction_index(i)]);
}

double GpuPackageArray::leakage_power(std::size_t i, double tj) const {
  if (p_.leakage_power_at_reference == 0.0) return 0.0;
  return leakage_coefficient_[i] *
         exp_within_700(leakage_exponent(p_.leakage_temperature_coefficient, tj, p_.leakage_reference_temperature));
}

void GpuPackageArray::leakage_powers(std::size_t first, std::size_t last, const double* x, double* leakage) const {
  if (p_.leakage_power_at_reference == 0.0) {
    std::fill(leakage, leakage + (last - first), 0.0);
    return;
  }
  leakage_exponentials(&leakage_coefficient_[first], x + junction_index(first), last - first,
                       p_.leakage_temperature_coefficient, p_.leakage_reference_temperature, leakage);
}

solver::StateRange GpuPackageArray::junction_states() const {
  return count() == 0 ? solver::StateRange{} : solver::StateRange{junction_index(0), static_cast<solver::Index>(count())};
}

solver::StateRange GpuPackageArray::hbm_states() const {
  return count() == 0 ? solver::StateRange{} : solver::StateRange{hbm_index(0), static_cast<solver::Index>(count())};
}

void GpuPackageArray::leakage_powers(const double* x, std::vector<double>& leakage) const {
  leakage.resize(count());
  solver::for_each_block(count(), [&](const solver::BlockRange& block) {
    leakage_powers(block.first, block.last, x, leakage.data() + block.first);
  });
}

double GpuPackageArray::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t i = 0; i < count(); ++i)
    e += p_.junction_capacitance * x[junction_index(i)] + p_.hbm_capacitance * x[hbm_index(i)] +
         p_.base_capacitance * x[base_index(i)];
  return e;
}

void GpuPackageArray::initial_state(double* x) const {
  for (std::size_t i = 0; i < count(); ++i) {
    x[junction_index(i)] = initial_temperature_;
    x[hbm_index(i)] = initial_temperature_;
    x[base_index(i)] = initial_temperature_;
  }
  x[heat_generated_index()] = 0.0;
}

void GpuPackageArray::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  DCTWIN_DEMAND(environment_ != nullptr, "GPU packages are not connected to an environment");
  DCTWIN_DEMAND(source_ != nullptr, "GPU packages are not connected to a power source");
  const double f_h = p_.hbm_power_fraction;
  solver::BlockSums total{};
  // The groups are contiguous: GPU i's junction is x[j0 + i], and so on.
  const auto j0 = static_cast<std::size_t>(junction_index(0)), h0 = static_cast<std::size_t>(hbm_index(0)),
             b0 = static_cast<std::size_t>(base_index(0));
  solver::for_each_block(count(), [&](const solver::BlockRange& block) {
    double block_total = 0.0;
    // The leakage and the environment's coefficients of a chunk of GPUs at once, then the
    // chunk's derivatives.
    for_each_chunk_with_environment(
        *this, *environment_, block, ctx, x,
        [&](std::size_t c, std::size_t c_last, const double* leakage, const GpuEnvironment::Coefficients* environment) {
          for_each_power(c, c_last, ctx, [&](std::size_t i, bool on, double p) {
            const double tj = x[j0 + i], th = x[h0 + i], tb = x[b0 + i];
            const GpuEnvironment::Coefficients& e = environment[i - c];
            const double te = e.terms[0].second * x[e.terms[0].first] + e.terms[1].second * x[e.terms[1].first];
            const double leak = on ? leakage[i - c] : 0.0;
            const double q_jb = (tj - tb) / (spread_[i].resistance_scale * p_.junction_to_base_resistance);
            const double q_hb = (th - tb) / p_.hbm_to_base_resistance;
            const double q_be = (tb - te) / e.resistance;
            xdot[j0 + i] += ((1.0 - f_h) * p + leak - q_jb) / p_.junction_capacitance;
            xdot[h0 + i] += (f_h * p - q_hb) / p_.hbm_capacitance;
            xdot[b0 + i] += (q_jb + q_hb - q_be) / p_.base_capacitance;
            block_total += p + leak;
          });
        });
    total[block.block] = block_total;
  });
  xdot[heat_generated_index()] += solver::ordered_sum(total);
}

void GpuPackageArray::jacobian_pattern(solver::PatternSink& pattern) const {
  const Index e = heat_generated_index();
  for (std::size_t i = 0; i < count(); ++i) {
    const Index j = junction_index(i), h = hbm_index(i), b = base_index(i);
    pattern.add(j, j);
    pattern.add(j, b);
    pattern.add(h, h);
    pattern.add(h, b);
    pattern.add(b, j);
    pattern.add(b, h);
    pattern.add(b, b);
    for (const auto& [index, weight] : environment_->environment_terms(i))
      if (weight != 0.0) pattern.add(b, index);
    if (p_.leakage_power_at_reference != 0.0) pattern.add(e, j);
  }
}

void GpuPackageArray::jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const {
  const Index e = heat_generated_index();
  // Each GPU's entries are its own (its rows, and its column of the heat accumulator's row), so
  // blocks of GPUs add them on the run's threads (JacobianSink: distinct entries may come from
  // different threads); the leakage and the environment's coefficients a chunk at a time, as in
  // derivatives(). The same values as one GPU at a time.
  solver::for_each_block(count(), [&](const solver::BlockRange& block) {
    for_each_chunk_with_environment(
        *this, *environment_, block, ctx, x,
        [&](std::size_t c, std::size_t c_last, const double* leakage, const GpuEnvironment::Coefficients* environment) {
          for (std::size_t i = c; i < c_last; ++i) {
            const Index j = junction_index(i), h = hbm_index(i), b = base_index(i);
            const GpuEnvironment::Coefficients& env = environment[i - c];
            const double g_jb = 1.0 / (spread_[i].resistance_scale * p_.junction_to_base_resistance);
            const double g_hb = 1.0 / p_.hbm_to_base_resistance;
            const double g_be = 1.0 / env.resistance;
            // dL/dT_j = k L.
            const double dleak = source_->powered(i, ctx) ? p_.leakage_temperature_coefficient * leakage[i - c] : 0.0;
            jac.add(j, j, (dleak - g_jb) / p_.junction_capacitance);
            jac.add(j, b, g_jb / p_.junction_capacitance);
            jac.add(h, h, -g_hb / p_.hbm_capacitance);
            jac.add(h, b, g_hb / p_.hbm_capacitance);
            jac.add(b, j, g_jb / p_.base_capacitance);
            jac.add(b, h, g_hb / p_.base_capacitance);
            jac.add(b, b, -(g_jb + g_hb + g_be) / p_.base_capacitance);
            for (const auto& [index, weight] : env.terms)
              if (weight != 0.0) jac.add(b, index, weight * g_be / p_.base_capacitance);
            if (p_.leakage_power_at_reference != 0.0) jac.add(e, j, dleak);
          }
        });
  });
}

double GpuPackageArray::next_discontinuity(double t) const { return source_->next_change(t); }

void GpuPackageArray::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  double total = 0.0;
  for (std::size_t i = 0; i < count(); ++i) {
    values[out_junction_][i] = x[junction_index(i)];
    values[out_hbm_][i] = x[hbm_index(i)];
    values[out_base_][i] = x[base_index(i)];
    values[out_power_][i] = board_power(i, ctx, x);
    total += values[out_power_][i];
  }
  values[out_total_power_][0] = total;
}

void GpuPackageArray::event_functions(const solver::EvalContext&, const double* x, double* g) const {
  const double* tj = x + junction_index(0);  // the junction states are one contiguous group
  // The hottest junction, block by block on the run's threads: the same value as one pass of
  // std::max from tj[0] (a NaN counts only as the first entry, as there).
  solver::BlockSums block_hottest{};
  solver::for_each_block(count(), [&](const solver::BlockRange& block) {
    double hottest = -std::numeric_limits<double>::infinity();
    for (std::size_t i = block.first; i < block.last; ++i) hottest = std::max(hottest, tj[i]);
    block_hottest[block.block] = hottest;
  });
  double hottest = tj[0];
  for (const double h : block_hottest) hottest = std::max(hottest, h);
  g[0] = hottest - p_.shutdown_temperature;
}

solver::EventOutcome GpuPackageArray::on_event(int, bool rising, const solver::EvalContext&, const double* x) const {
  if (!rising) return {solver::EventAction::proceed, "GPU junction temperatures back below the shutdown temperature"};
  std::size_t hottest = 0;
  for (std::size_t i = 1; i < count(); ++i)
    if (x[junction_index(i)] > x[junction_index(hottest)]) hottest = i;
  char text[200];
  std::snprintf(text, sizeof text, "%s reached the shutdown temperature %.2f degC", labels_[hottest].c_str(),
                p_.shutdown_temperature - 273.15);
  return {stop_on_shutdown_ ? solver::EventAction::stop : solver::EventAction::proceed, text};
}

// ---- forced response ------------------------------------------------------------------------------
//
// Between two updates GPU i's power P_i is known, and its package is the linear network
//   C dT/dt = -G T + b P_i + (g_be T_e, leakage)        T = (T_j, T_h, T_b)
//   G = [[g_jb, 0, -g_jb], [0, g_hb, -g_hb], [-g_jb, -g_hb, g_jb + g_hb + g_be]],  b = ((1 - f_h), f_h, 0)
// When the environment T_e is a node only this GPU heats (GpuEnvironment::own_node_state: the
// coolant in its cold plate, fed at G_in = mdot c_p from the rack's supply), that node joins:
//   T = (T_j, T_h, T_b, T_e),  G = [[g_jb, 0, -g_jb, 0], [0, g_hb, -g_hb, 0],
//                                   [-g_jb, -g_hb, g_jb + g_hb + g_be, -g_be], [0, 0, -g_be, g_be + G_in]]
// and the supply temperature is the boundary instead of T_e. The leakage L(T_j) enters in its
// tangent at the junction temperature T_0 of the last reset, G_jj -= s, s = dL/dT_j(T_0) = k L(T_0)
// (kept until T_j has moved by more than 1 K at a later reset), so that the leakage's response
// to the fast junction swings is carried too and the integrator keeps only its curvature.
// The response r of this network to P_i alone (boundary at 0 K) is carried in closed form,
// r' = A r + u, A = -C^-1 G, u = C^-1 b P_i; the integrator follows T - r, which holds the
// boundary's and the leakage curvature's slower part. A is symmetric in the C-weighted inner
// product: with S = C^-1/2, S G S = U diag(mu) U^T (mu > 0), so A = V diag(-mu) V^-1, V = S U,
// V^-1 = U^T S^-1, and on a piece starting at t_a with r(t_a) = r_a
//   r(t) = r_ss + sum_m w_m exp(-mu_m (t - t_a)),  r_ss = V diag(1/mu) V^-1 u,  w_m = V_m (V^-1 (r_a - r_ss))_m.
// The same V and mu give r_ss, w and r', so r'(t_a) = A_V r_a + u holds to rounding with
// A_V = V diag(-mu) V^-1: at a power step r' jumps by exactly the jump of the GPU's derivatives
// (the leakage tangent and the coolant node do not jump). Any linear A would keep x = y + r
// exact; the closer A is to the true network, the smoother y and the longer CVODE's steps.
// A node without flow (G_in = 0) would leave the network floating: such a GPU keeps the
// three-node form with r_e = 0; a tangent that would make the network unstable (mu <= 0) is dropped.
// The heat-generated accumulator E takes r_E = sum_i C r_i, the heat the forced responses hold:
// its r' = sum_i (P_i + s r_j,i - boundary flow of r) follows E' at a power step, and the energy
// balance C T + removed - E stays an exact linear invariant of the shifted system (BDF keeps it).
namespace {
/// e_m = exp(max(lambda_m tau, min_exponent)) for `count` modes, in two passes the compiler
/// vectorises (GCC 12 turns a clamp inside the exponential's loop into a branch around the whole
/// polynomial, and the loop stays scalar).
DCTWIN_VECTOR_VARIANTS void mode_exponentials(const double* lambda, std::size_t count, double tau, double* e) {
  for (std::size_t m = 0; m < count; ++m) e[m] = std::max(lambda[m] * tau, min_exponent);
  for (std::size_t m = 0; m < count; ++m) e[m] = exp_within_700(e[m]);
}

// The responses' coefficients (GpuPackageResponse): per GPU at most kNodes nodes and modes; a
// node's row is r_ss then w_m for each mode (kRowLength values), kPieceLength per GPU. They are
// stored kLanes GPUs side by side, field by field (the pieces of GPUs 0-7, then 8-15, ...; within
// such a lane group, field f of the 8 GPUs is 8 consecutive values), so that a pass forms the
// rows of 8 GPUs with each operation in one vector register (AVX-512; two with AVX2).
constexpr std::size_t kNodes = 4;
constexpr std::size_t kRowLength = 1 + kNodes;
constexpr std::size_t kPieceLength = kNodes * kRowLength;
constexpr std::size_t kLanes = 8;

/// For `groups` lane groups: r_k = r_ss,k + sum_m w_km e_m of the first `rows` nodes into
/// out[(g kNodes + k) kLanes + lane] and, with `rates`, r'_k = sum_m w_km lambda_m e_m into
/// rate_out likewise. pieces, lambda and e start at the first group (e laid out as lambda). Each
/// GPU's terms are added in the order of a plain per-GPU loop (the file is compiled without FMA
/// contraction), so every variant gives the same bits. The outputs overlap no input (__restrict:
/// without it the compiler keeps the lanes scalar).
DCTWIN_VECTOR_VARIANTS void combine_lane_groups(const double* __restrict pieces, const double* __restrict lambda,
                                                const double* __restrict e, std::size_t groups, std::size_t rows,
                                                bool rates, double* __restrict out, double* __restrict rate_out) {
  for (std::size_t g = 0; g < groups; ++g) {
    const double* piece = pieces + g * kPieceLength * kLanes;
    const double* eg = e + g * kNodes * kLanes;
    for (std::size_t k = 0; k < rows; ++k) {
      const double* row = piece + k * kRowLength * kLanes;
      double* o = out + (g * kNodes + k) * kLanes;
      for (std::size_t l = 0; l < kLanes; ++l)
        o[l] = row[l] + row[kLanes + l] * eg[l] + row[2 * kLanes + l] * eg[kLanes + l] +
               row[3 * kLanes + l] * eg[2 * kLanes + l] + row[4 * kLanes + l] * eg[3 * kLanes + l];
    }
    if (!rates) continue;
    const double* lg = lambda + g * kNodes * kLanes;
    alignas(64) double le[kNodes * kLanes];
    for (std::size_t j = 0; j < kNodes * kLanes; ++j) le[j] = lg[j] * eg[j];
    for (std::size_t k = 0; k < kNodes; ++k) {
      const double* w = piece + (k * kRowLength + 1) * kLanes;
      double* o = rate_out + (g * kNodes + k) * kLanes;
      for (std::size_t l = 0; l < kLanes; ++l)
        o[l] = w[l] * le[l] + w[kLanes + l] * le[kLanes + l] + w[2 * kLanes + l] * le[2 * kLanes + l] +
               w[3 * kLanes + l] * le[3 * kLanes + l];
    }
  }
}

/// New pieces for the kLanes GPUs of one lane group, every one in the n-node form (n = 3 or 4),
/// from r_a (node k of lane l at r_a[k kLanes + l]; nullptr: from the steady value), with
/// u0 = (1 - f_h) P / C_j and u1 = f_h P / C_h per lane. v, v_inv: the GPUs' V and V^-1, entry
/// kNodes row + column of lane l at (kNodes row + column) kLanes + l; lambda as combine_lane_groups
/// reads it; the piece laid out as there. Each lane takes the operations of
/// GpuPackageResponse::start_piece in its order, so the pieces have its bits.
DCTWIN_VECTOR_VARIANTS void start_lane_group(std::size_t n, const double* __restrict v, const double* __restrict v_inv,
                                             const double* __restrict lambda, const double* __restrict u0,
                                             const double* __restrict u1, const double* __restrict r_a,
                                             double* __restrict piece) {
  alignas(64) double z[kNodes * kLanes] = {}, r_ss[kNodes * kLanes] = {}, d[kNodes * kLanes] = {}, c[kLanes];
  for (std::size_t m = 0; m < n; ++m)
    for (std::size_t l = 0; l < kLanes; ++l)
      z[m * kLanes + l] = -(v_inv[kNodes * m * kLanes + l] * u0[l] + v_inv[(kNodes * m + 1) * kLanes + l] * u1[l]) /
                          lambda[m * kLanes + l];
  for (std::size_t f = 0; f < kPieceLength * kLanes; ++f) piece[f] = 0.0;
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t m = 0; m < n; ++m)
      for (std::size_t l = 0; l < kLanes; ++l)
        r_ss[k * kLanes + l] += v[(kNodes * k + m) * kLanes + l] * z[m * kLanes + l];
  for (std::size_t k = 0; k < kNodes; ++k)
    for (std::size_t l = 0; l < kLanes; ++l) piece[k * kRowLength * kLanes + l] = r_ss[k * kLanes + l];
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t l = 0; l < kLanes; ++l)
      d[k * kLanes + l] = (r_a != nullptr ? r_a[k * kLanes + l] : r_ss[k * kLanes + l]) - r_ss[k * kLanes + l];
  for (std::size_t m = 0; m < n; ++m) {
    for (std::size_t l = 0; l < kLanes; ++l) c[l] = 0.0;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t l = 0; l < kLanes; ++l) c[l] += v_inv[(kNodes * m + k) * kLanes + l] * d[k * kLanes + l];
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t l = 0; l < kLanes; ++l)
        piece[(k * kRowLength + 1 + m) * kLanes + l] = v[(kNodes * k + m) * kLanes + l] * c[l];
  }
}
}  // namespace

class GpuPackageResponse final : public solver::ForcedResponse {
 public:
  static constexpr std::size_t kMax = kNodes;  // nodes (and modes) per GPU at most

  explicit GpuPackageResponse(const GpuPackageArray& gpus)
      : gpus_(gpus), modes_(gpus.count()), pieces_(kPiece * kLanes * lane_groups(gpus.count()), 0.0),
        lambda_(kMax * kLanes * lane_groups(gpus.count()), 0.0),
        v_lanes_(kMax * kMax * kLanes * lane_groups(gpus.count()), 0.0),
        v_inv_lanes_(kMax * kMax * kLanes * lane_groups(gpus.count()), 0.0), power_(gpus.count(), 0.0),
        node_(gpus.count(), -1),
        node_capacitance_(gpus.count(), 0.0) {
    junction_ = gpus.junction_index(0);
    hbm_ = gpus.hbm_index(0);
    base_ = gpus.base_index(0);
    heat_ = gpus.heat_generated_index();
    for (std::size_t i = 0; i < gpus.count(); ++i) node_[i] = gpus.environment_->own_node_state(i);
    // The environment nodes as runs of consecutive states (first, count, first, count, ...).
    std::vector<solver::Index> nodes;
    for (const solver::Index k : node_)
      if (k >= 0) nodes.push_back(k);
    std::sort(nodes.begin(), nodes.end());
    for (const solver::Index k : nodes) {
      if (!node_runs_.empty() && node_runs_[node_runs_.size() - 2] + node_runs_.back() == k) ++node_runs_.back();
      else node_runs_.insert(node_runs_.end(), {k, 1});
    }
  }

  [[nodiscard]] std::vector<solver::Index> covered_states() const override {
    std::vector<solver::Index> states;
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      states.push_back(gpus_.junction_index(i));
      states.push_back(gpus_.hbm_index(i));
      states.push_back(gpus_.base_index(i));
      if (node_[i] >= 0) states.push_back(node_[i]);
    }
    states.push_back(heat_);
    return states;
  }

  void reset(const solver::EvalContext& ctx, const double* x) override {
    t_anchor_ = ctx.t;
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      gpus_.for_each_power(block.first, block.last, ctx,
                           [&](std::size_t i, bool on, double power) { reset_gpu(i, ctx, x, on, power); });
    });
  }

  void reanchor(const solver::EvalContext& ctx, const double*) override {
    const double tau = ctx.t - t_anchor_;
    t_anchor_ = ctx.t;
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      // A chunk's exponentials and rows in vectorised passes, as in evaluate_blocks().
      alignas(64) double exponentials[kChunkValues], values[kChunkValues];
      for_each_chunk(block, [&](std::size_t first, std::size_t last) {
        const std::size_t g0 = combine_chunk(first, last, tau, kMax, false, exponentials, values, nullptr);
        gpus_.for_each_power(first, last, ctx, [&](std::size_t i, bool, double power) {
          const std::size_t at = chunk_slot(i, g0);
          start_piece(i, Vec{values[at], values[at + kLanes], values[at + 2 * kLanes], values[at + 3 * kLanes]}, power);
        });
      });
    });
  }

  /// The integrator has r(t) of the present pieces from evaluate() (combine()'s rows, the bits
  /// reanchor() would form from the same exponentials): the new pieces start from those. A lane
  /// group inside a block whose GPUs share their form takes its pieces side by side
  /// (start_lane_group), the others GPU by GPU; the same bits either way.
  void reanchor_from(const solver::EvalContext& ctx, const double*, const double* r_now) override {
    t_anchor_ = ctx.t;
    const auto& p = gpus_.p_;
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      gpus_.for_each_power(block.first, block.last, ctx, [&](std::size_t i, bool, double power) { power_[i] = power; });
      auto start_rows = [&](std::size_t i) {
        const auto k = static_cast<solver::Index>(i);
        // A GPU in the three-node form has no fourth row (start_piece reads n rows).
        return Vec{r_now[junction_ + k], r_now[hbm_ + k], r_now[base_ + k], node_[i] >= 0 ? r_now[node_[i]] : 0.0};
      };
      for (std::size_t first = block.first; first < block.last;) {
        const std::size_t group_end = std::min(block.last, (first / kLanes + 1) * kLanes);
        const std::size_t n = modes_[first].n;
        bool whole = first % kLanes == 0 && group_end - first == kLanes;
        for (std::size_t i = first; i < group_end && whole; ++i) whole = modes_[i].n == n;
        if (!whole) {
          for (std::size_t i = first; i < group_end; ++i) start_piece(i, start_rows(i), power_[i]);
          first = group_end;
          continue;
        }
        alignas(64) double u0[kLanes], u1[kLanes], r_a[kMax * kLanes];
        for (std::size_t l = 0; l < kLanes; ++l) {
          const double power = power_[first + l];
          u0[l] = (1.0 - p.hbm_power_fraction) * power / p.junction_capacitance;
          u1[l] = p.hbm_power_fraction * power / p.hbm_capacitance;
          const Vec r = start_rows(first + l);
          for (std::size_t k = 0; k < kMax; ++k) r_a[k * kLanes + l] = r[k];
        }
        const std::size_t g = first / kLanes;
        start_lane_group(n, &v_lanes_[g * kMax * kMax * kLanes], &v_inv_lanes_[g * kMax * kMax * kLanes],
                         &lambda_[g * kMax * kLanes], u0, u1, r_a, &pieces_[g * kPiece * kLanes]);
        first = group_end;
      }
    });
  }

  void evaluate(double t, double* r, double* r_dot) const override {
    // r' only where asked for: the right-hand side wants it, the state at a requested time does not.
    if (r_dot == nullptr) evaluate_blocks<false>(t - t_anchor_, r, r);
    else evaluate_blocks<true>(t - t_anchor_, r, r_dot);
  }

  /// After the anchor every e_m = exp(lambda_m tau) is in (0, 1] (lambda_m < 0), so row k is at
  /// most r_ss_k + sum_m max(w_km, 0) for as long as the piece lasts; a margin of 1e-12 of the
  /// terms' size covers the rounding of the evaluation. Rows as evaluate_in() forms them; the heat
  /// the responses hold is not bounded.
  bool upper_bound_in(double* r_upper, const solver::StateRanges& ranges) const override {
    const auto n = static_cast<solver::Index>(gpus_.count());
    if (overlaps(ranges, heat_, 1)) return false;
    bool other = overlaps(ranges, base_, n);
    for (std::size_t k = 0; k + 1 < node_runs_.size() && !other; k += 2)
      other = overlaps(ranges, node_runs_[k], node_runs_[k + 1]);
    const std::size_t rows = other ? kMax : overlaps(ranges, hbm_, n) ? 2 : overlaps(ranges, junction_, n) ? 1 : 0;
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      for (std::size_t i = block.first; i < block.last; ++i) {
        const auto k = static_cast<solver::Index>(i);
        const solver::Index row_state[kMax] = {junction_ + k, hbm_ + k, base_ + k, node_[i]};
        for (std::size_t row = 0; row < rows; ++row) {
          if (row_state[row] < 0) continue;  // a GPU in the three-node form
          const double steady = pieces_[piece_slot(i, kRow * row)];
          double bound = steady, size = std::abs(steady);
          for (std::size_t m = 0; m < kMax; ++m) {
            const double w = pieces_[piece_slot(i, kRow * row + 1 + m)];
            bound += std::max(w, 0.0);
            size += std::abs(w);
          }
          r_upper[row_state[row]] = bound + 1e-12 * size;
        }
      }
    });
    return true;
  }

  /// Only the junction rows, or the junction and HBM rows, when the ranges ask for no other
  /// covered state (a governors' tick, the event function): a row is r_ss_k + sum_m w_km e_m, read
  /// from the first rows of each GPU's coefficients; the exponentials are the same.
  void evaluate_in(double t, double* r, const solver::StateRanges& ranges) const override {
    const auto n = static_cast<solver::Index>(gpus_.count());
    const bool junction = overlaps(ranges, junction_, n), hbm = overlaps(ranges, hbm_, n);
    bool other = overlaps(ranges, base_, n) || overlaps(ranges, heat_, 1);
    for (std::size_t k = 0; k + 1 < node_runs_.size() && !other; k += 2)
      other = overlaps(ranges, node_runs_[k], node_runs_[k + 1]);
    if (other) evaluate(t, r, nullptr);
    else if (hbm) evaluate_rows<2>(t - t_anchor_, r);
    else if (junction) evaluate_rows<1>(t - t_anchor_, r);
  }

 private:
  using Vec = std::array<double, kMax>;
  using Mat = std::array<double, kMax * kMax>;  // row-major
  /// What a GPU's network depends on besides its fixed parameters.
  struct Network {
    double g_be = std::numeric_limits<double>::quiet_NaN();
    std::optional<GpuEnvironment::OwnNode> node;  // the environment node, when carried
    double leak_slope = 0.0;                       // s [W/K]
    double leak_temperature = std::numeric_limits<double>::quiet_NaN();  // T_0 [K]
    bool operator==(const Network& o) const {
      const bool same_node = node.has_value() == o.node.has_value() &&
                             (!node || (node->capacitance == o.node->capacitance &&
                                        node->inlet_conductance == o.node->inlet_conductance));
      return g_be == o.g_be && same_node && leak_slope == o.leak_slope;
    }
  };
  struct Modes {
    Network net;
    std::size_t n = 3;  // nodes in the network (3, or 4 with the environment node)
    Vec lambda{};       // -mu_m [1/s]
    Mat v{};            // V
    Mat v_inv{};        // V^-1
  };
  // A piece's coefficients, kPiece per GPU, node by node: row k is r_ss_k, then w_km for the kMax
  // modes m; stored kLanes GPUs side by side (piece_slot). The junction's and the HBM's rows come
  // first, so that evaluate_rows() reads only the front of each lane group's pieces.
  static constexpr std::size_t kRow = kRowLength;
  static constexpr std::size_t kPiece = kPieceLength;
  /// GPUs whose exponentials and rows a pass forms at once (a multiple of kLanes).
  static constexpr std::size_t kChunk = 64;
  /// Size of a chunk's buffer of exponentials or rows (kMax per GPU, lane group by lane group): a
  /// chunk that starts inside a lane group spans one group more.
  static constexpr std::size_t kChunkValues = (kChunk / kLanes + 1) * kMax * kLanes;

  [[nodiscard]] static std::size_t lane_groups(std::size_t gpus) { return (gpus + kLanes - 1) / kLanes; }
  /// Index of field f of GPU i's piece in pieces_.
  [[nodiscard]] static std::size_t piece_slot(std::size_t i, std::size_t f) {
    return ((i / kLanes) * kPiece + f) * kLanes + i % kLanes;
  }
  /// Index of entry e (kMax row + column) of GPU i's V or V^-1 in v_lanes_ or v_inv_lanes_.
  [[nodiscard]] static std::size_t matrix_slot(std::size_t i, std::size_t e) {
    return ((i / kLanes) * kMax * kMax + e) * kLanes + i % kLanes;
  }
  /// Index of lambda_m of GPU i in lambda_.
  [[nodiscard]] static std::size_t lambda_slot(std::size_t i, std::size_t m) {
    return ((i / kLanes) * kMax + m) * kLanes + i % kLanes;
  }
  /// Index of node 0 of GPU i in a chunk's rows or exponentials whose first lane group is g0
  /// (node k at + k kLanes).
  [[nodiscard]] static std::size_t chunk_slot(std::size_t i, std::size_t g0) {
    return (i / kLanes - g0) * kMax * kLanes + i % kLanes;
  }

  /// The exponentials e_m = exp(lambda_m tau) of the lane groups that hold GPUs [first, last)
  /// into e, then their first `rows` rows into values and, with `rates`, r' into rate_values
  /// (combine_lane_groups; laid out as chunk_slot says).
  /// Returns the first lane group, g0.
  std::size_t combine_chunk(std::size_t first, std::size_t last, double tau, std::size_t rows, bool rates, double* e,
                            double* values, double* rate_values) const {
    const std::size_t g0 = first / kLanes, groups = (last - 1) / kLanes - g0 + 1;
    // At the anchor itself (the evaluation right after a reanchor) every e_m is exp(-0) = 1, which
    // exp_within_700 gives exactly.
    if (tau == 0.0) std::fill(e, e + groups * kMax * kLanes, 1.0);
    else mode_exponentials(&lambda_[g0 * kMax * kLanes], groups * kMax * kLanes, tau, e);
    combine_lane_groups(&pieces_[g0 * kPiece * kLanes], &lambda_[g0 * kMax * kLanes], e, groups, rows, rates, values,
                        rate_values);
    return g0;
  }

  /// f(first, last) for each chunk [first, last) of at most kChunk GPUs of the block, in order.
  template <class F>
  static void for_each_chunk(const solver::BlockRange& block, F&& f) {
    for (std::size_t first = block.first; first < block.last; first += kChunk)
      f(first, std::min(first + kChunk, block.last));
  }

  /// r (and r' when kRate) of every GPU at tau after the anchor, in blocks, with the heat the
  /// responses hold, C r summed over nodes and GPUs (and its rate). Without kRate, r_dot is unused.
  template <bool kRate>
  void evaluate_blocks(double tau, double* r, double* r_dot) const {
    solver::BlockSums heat{}, heat_rate{};
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      double block_heat = 0.0, block_heat_rate = 0.0;
      // A chunk's exponentials in one vectorised pass, then its rows kLanes GPUs at a time
      // (docs/performance.md), then the rows written and the heat summed in GPU order.
      alignas(64) double exponentials[kChunkValues], values[kChunkValues], rates[kChunkValues];
      for_each_chunk(block, [&](std::size_t first, std::size_t last) {
        const std::size_t g0 = combine_chunk(first, last, tau, kMax, kRate, exponentials, values, rates);
        write_rows(first, last, g0, values, r, block_heat);
        if constexpr (kRate) write_rows(first, last, g0, rates, r_dot, block_heat_rate);
      });
      heat[block.block] = block_heat;
      heat_rate[block.block] = block_heat_rate;
    });
    r[heat_] = solver::ordered_sum(heat);
    if constexpr (kRate) r_dot[heat_] = solver::ordered_sum(heat_rate);
  }

  template <std::size_t N>
  static void copy_lanes(const double* __restrict from, double* __restrict to) {
    for (std::size_t l = 0; l < N; ++l) to[l] = from[l];
  }

  /// Writes the rows of GPUs [first, last) from a chunk's `values` (laid out as chunk_slot says)
  /// into the full-size `out`, and adds each GPU's C_j v_j + C_h v_h + C_b v_b + C_e v_e to `heat`
  /// in GPU order. A GPU's junction, HBM and base rows are consecutive states for consecutive
  /// GPUs: each lane group's are copied as runs, its heat terms formed side by side.
  void write_rows(std::size_t first, std::size_t last, std::size_t g0, const double* values, double* out,
                  double& heat) const {
    const auto& p = gpus_.p_;
    for (std::size_t i = first; i < last;) {
      const std::size_t end = std::min(last, (i / kLanes + 1) * kLanes), n = end - i;
      const double* v = values + chunk_slot(i, g0);  // node k of GPU i + l at v[k kLanes + l]
      const auto k = static_cast<solver::Index>(i);
      if (n == kLanes) {  // a whole lane group: copies of a size the compiler knows, kept inline
        copy_lanes<kLanes>(v, out + junction_ + k);
        copy_lanes<kLanes>(v + kLanes, out + hbm_ + k);
        copy_lanes<kLanes>(v + 2 * kLanes, out + base_ + k);
      } else {
        std::copy_n(v, n, out + junction_ + k);
        std::copy_n(v + kLanes, n, out + hbm_ + k);
        std::copy_n(v + 2 * kLanes, n, out + base_ + k);
      }
      double terms[kLanes];
      for (std::size_t l = 0; l < n; ++l)
        terms[l] = p.junction_capacitance * v[l] + p.hbm_capacitance * v[kLanes + l] +
                   p.base_capacitance * v[2 * kLanes + l] + node_capacitance_[i + l] * v[3 * kLanes + l];
      for (std::size_t l = 0; l < n; ++l) {
        if (node_[i + l] >= 0) out[node_[i + l]] = v[3 * kLanes + l];  // (C_e = 0 without the node)
        heat += terms[l];
      }
      i = end;
    }
  }

  /// r of the first kRows nodes (junction; junction and HBM) of every GPU at tau after the anchor.
  template <std::size_t kRows>
  void evaluate_rows(double tau, double* r) const {
    static_assert(kRows == 1 || kRows == 2);
    solver::for_each_block(gpus_.count(), [&](const solver::BlockRange& block) {
      alignas(64) double exponentials[kChunkValues], values[kChunkValues];
      for_each_chunk(block, [&](std::size_t first, std::size_t last) {
        const std::size_t g0 = combine_chunk(first, last, tau, kRows, false, exponentials, values, nullptr);
        for (std::size_t i = first; i < last; ++i) {
          const std::size_t at = chunk_slot(i, g0);
          const auto k = static_cast<solver::Index>(i);
          r[junction_ + k] = values[at];
          if constexpr (kRows == 2) r[hbm_ + k] = values[at + kLanes];
        }
      });
    });
  }

  /// Whether [first, first + count) meets any of the ranges.
  static bool overlaps(const solver::StateRanges& ranges, solver::Index first, solver::Index count) {
    for (const solver::StateRange& r : ranges)
      if (r.first < first + count && first < r.first + r.count) return true;
    return false;
  }

  /// GPU i's network at ctx (re-decomposed when it changed) and a piece at its steady value
  /// (`on`, `power`: whether it is powered, and its power without leakage).
  void reset_gpu(std::size_t i, const solver::EvalContext& ctx, const double* x, bool on, double power) {
    const auto& p = gpus_.p_;
    Network net;
    net.g_be = 1.0 / gpus_.environment_->environment_resistance(i, ctx);
    if (node_[i] >= 0) {
      const GpuEnvironment::OwnNode node = gpus_.environment_->own_node(i, ctx);
      if (node.inlet_conductance > 0.0) net.node = node;
    }
    Modes& modes = modes_[i];
    // The leakage tangent at T_0 (none without a state to take T_0 from, or while unpowered).
    net.leak_slope = 0.0;
    net.leak_temperature = modes.net.leak_temperature;
    if (x != nullptr && p.leakage_power_at_reference != 0.0 && on) {
      const double tj = x[gpus_.junction_index(i)];
      if (!(std::abs(tj - net.leak_temperature) <= 1.0)) net.leak_temperature = tj;
      net.leak_slope = p.leakage_temperature_coefficient * gpus_.leakage_power(i, net.leak_temperature);
    }
    if (!(net == modes.net)) decompose(i, net);
    // r starts at its steady value (w = 0, r constant until the next power step): the state's
    // own transient, if any, stays with the integrator, and r adds none of its own.
    start_piece(i, std::nullopt, power);
  }

  void decompose(std::size_t i, const Network& net) {
    if (net.node) decompose_fixed<4>(i, net);
    else decompose_fixed<3>(i, net);
  }

  /// The modes of GPU i's N-node network (fixed-size Eigen types: no allocation per GPU).
  template <int N>
  void decompose_fixed(std::size_t i, Network net) {
    using Matrix = Eigen::Matrix<double, N, N>;
    using Vector = Eigen::Matrix<double, N, 1>;
    const auto& p = gpus_.p_;
    const double g_jb = 1.0 / (gpus_.spread_[i].resistance_scale * p.junction_to_base_resistance);
    const double g_hb = 1.0 / p.hbm_to_base_resistance;
    Matrix g = Matrix::Zero();
    Vector c;
    c(0) = p.junction_capacitance, c(1) = p.hbm_capacitance, c(2) = p.base_capacitance;
    g(0, 0) = g_jb, g(0, 2) = g(2, 0) = -g_jb;
    g(1, 1) = g_hb, g(1, 2) = g(2, 1) = -g_hb;
    g(2, 2) = g_jb + g_hb + net.g_be;
    if constexpr (N == 4) {
      c(3) = net.node->capacitance;
      g(2, 3) = g(3, 2) = -net.g_be;
      g(3, 3) = net.g_be + net.node->inlet_conductance;
    }
    const Vector s = c.cwiseSqrt().cwiseInverse();
    Matrix tangent = g;
    tangent(0, 0) -= net.leak_slope;
    Eigen::SelfAdjointEigenSolver<Matrix> eigen(s.asDiagonal() * tangent * s.asDiagonal());
    if (net.leak_slope != 0.0 && !(eigen.info() == Eigen::Success && eigen.eigenvalues().minCoeff() > 0.0)) {
      net.leak_slope = 0.0;  // the tangent would run away: carry the network without it
      eigen.compute(s.asDiagonal() * g * s.asDiagonal());
    }
    DCTWIN_DEMAND(eigen.info() == Eigen::Success && eigen.eigenvalues().minCoeff() > 0.0,
                  "eigen-decomposition of a GPU package failed");
    Modes& modes = modes_[i];
    modes.net = net;
    modes.n = N;
    modes.lambda.fill(0.0), modes.v.fill(0.0), modes.v_inv.fill(0.0);
    for (int k = 0; k < N; ++k) {
      const auto m = static_cast<std::size_t>(k);
      modes.lambda[m] = -eigen.eigenvalues()(k);
      lambda_[lambda_slot(i, m)] = modes.lambda[m];
      for (int row = 0; row < N; ++row) {
        const auto r = static_cast<std::size_t>(row);
        modes.v[kMax * r + m] = eigen.eigenvectors()(row, k) * s(row);
        modes.v_inv[kMax * m + r] = eigen.eigenvectors()(row, k) / s(row);
      }
    }
    for (std::size_t m = N; m < kMax; ++m) lambda_[lambda_slot(i, m)] = 0.0;  // unused: w = 0
    for (std::size_t e = 0; e < kMax * kMax; ++e) {
      v_lanes_[matrix_slot(i, e)] = modes.v[e];
      v_inv_lanes_[matrix_slot(i, e)] = modes.v_inv[e];
    }
    node_capacitance_[i] = N == 4 ? net.node->capacitance : 0.0;
  }

  /// A new piece for GPU i at power P from r_a (none: from the piece's steady value r_ss).
  void start_piece(std::size_t i, const std::optional<Vec>& start, double power) {
    const auto& p = gpus_.p_;
    const Modes& modes = modes_[i];
    const std::size_t n = modes.n;
    const Vec u{(1.0 - p.hbm_power_fraction) * power / p.junction_capacitance,
                p.hbm_power_fraction * power / p.hbm_capacitance, 0.0, 0.0};
    // z = diag(1/mu) V^-1 u, r_ss = V z (u has entries at the junction and HBM only).
    Vec z{};
    for (std::size_t m = 0; m < n; ++m)
      z[m] = -(modes.v_inv[kMax * m] * u[0] + modes.v_inv[kMax * m + 1] * u[1]) / modes.lambda[m];
    // Field kRow k + f of the piece: r_ss_k for f = 0, w_km for f = 1 + m.
    auto piece = [&](std::size_t field) -> double& { return pieces_[piece_slot(i, field)]; };
    for (std::size_t f = 0; f < kPiece; ++f) piece(f) = 0.0;
    Vec r_ss{};
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t m = 0; m < n; ++m) r_ss[k] += modes.v[kMax * k + m] * z[m];
    for (std::size_t k = 0; k < kMax; ++k) piece(kRow * k) = r_ss[k];
    Vec r_a{};
    if (start) r_a = *start;
    else r_a = r_ss;
    Vec d{};
    for (std::size_t k = 0; k < n; ++k) d[k] = r_a[k] - r_ss[k];
    for (std::size_t m = 0; m < n; ++m) {
      double c = 0.0;
      for (std::size_t k = 0; k < n; ++k) c += modes.v_inv[kMax * m + k] * d[k];
      for (std::size_t k = 0; k < n; ++k) piece(kRow * k + 1 + m) = modes.v[kMax * k + m] * c;
    }
  }

  const GpuPackageArray& gpus_;
  std::vector<Modes> modes_;
  std::vector<double> pieces_;            // kPiece per GPU, kLanes GPUs side by side (piece_slot)
  std::vector<double> lambda_;            // lambda_m of GPU i at lambda_slot(i, m) (0 for unused modes)
  std::vector<double> v_lanes_, v_inv_lanes_;  // each GPU's V and V^-1 again, kLanes side by side (matrix_slot)
  std::vector<double> power_;             // each GPU's power at the last reanchor_from, scratch
  std::vector<solver::Index> node_;       // each GPU's environment node state, or -1
  std::vector<double> node_capacitance_;  // C_e while the node is carried, else 0
  std::vector<solver::Index> node_runs_;  // the nodes as runs: first, count, first, count, ...
  double t_anchor_ = 0.0;
  solver::Index junction_ = 0, hbm_ = 0, base_ = 0, heat_ = 0;
};

std::unique_ptr<solver::ForcedResponse> GpuPackageArray::make_forced_response() const {
  DCTWIN_DEMAND(environment_ != nullptr && source_ != nullptr, "GPU packages are not connected");
  return std::make_unique<GpuPackageResponse>(*this);
}

}  // namespace dctwin::models::thermal
