#include "dctwin/models/thermal/gpu_package.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "dctwin/solver/check.hpp"

namespace dctwin::models::thermal {

using solver::Index;

solver::ParameterTable GpuPackageParameters::table() {
  using namespace solver;
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
                     "Junction-to-local-coolant 0.02-0.05 K/W (FACTS.md), split between package and plate");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hbm_to_base_resistance", "K/W", "Thermal resistance from the HBM stacks to the base", 0.15,
                     "Estimate (uncertain): HBM runs a few K above the base at ~70 W");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hbm_power_fraction", "1", "Share of the scheduled power dissipated in the HBM stacks", 0.12,
                     "Estimate (uncertain): HBM3 at full bandwidth, ~60-90 W of a 700 W board");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.5));
  p = real_parameter("leakage_power_at_reference", "W", "Leakage power at the reference junction temperature", 0.0,
                     "0 = no temperature dependence; H100 idles at 69-100 W (FACTS.md), of which leakage is a part");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("leakage_reference_temperature", "K", "Junction temperature at which the leakage power is given", 333.15);
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("leakage_temperature_coefficient", "1/K", "k in L = L_ref exp(k (T_j - T_ref))", 0.02,
                     "Subthreshold leakage roughly doubles every 30-40 K in recent CMOS nodes (uncertain)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.1));
  p = real_parameter("max_operating_temperature", "K", "Maximum operating junction temperature (software thermal slowdown target)",
                     360.15, "H100 SXM5: 87 degC (FACTS.md)");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("hbm_max_operating_temperature", "K", "Maximum operating HBM temperature", 368.15,
                     "H100 SXM5 HBM3: 95 degC (FACTS.md)");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("hw_slowdown_temperature", "K", "Junction temperature at which hardware thermal slowdown halves the clock",
                     362.15, "H100 SXM5: 89 degC (FACTS.md)");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  p = real_parameter("shutdown_temperature", "K", "Junction temperature at which the GPU shuts down", 365.15,
                     "H100 SXM5: 92 degC (FACTS.md)");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 273.15));
  return t;
}

GpuPackageParameters GpuPackageParameters::from(const solver::ParameterTree& s) {
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
    throw solver::InputError(s.key_path(upper) + text, s.key_path(upper));
  };
  ordered("max_operating_temperature", p.max_operating_temperature, "hw_slowdown_temperature", p.hw_slowdown_temperature);
  ordered("hw_slowdown_temperature", p.hw_slowdown_temperature, "shutdown_temperature", p.shutdown_temperature);
  return p;
}

solver::ParameterTable GpuSpread::table() {
  using namespace solver;
  ParameterTable t;
  auto p = real_parameter("power_scale", "1", "This GPU's dynamic power relative to nominal (same clock and activity)", 1.0, "");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("resistance_scale", "1", "This GPU's junction-to-base resistance relative to nominal", 1.0, "");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("leakage_scale", "1", "This GPU's leakage relative to nominal", 1.0, "");
  t.push_back(at_least(p, 0.0));
  return t;
}

GpuSpread GpuSpread::from(const solver::ParameterTree& s) {
  return {s.number("power_scale"), s.number("resistance_scale"), s.number("leakage_scale")};
}

GpuPackageArray::GpuPackageArray(std::string name, GpuPackageParameters parameters,
                                 std::vector<GpuSpread> spread, std::vector<std::string> labels,
                                 double initial_temperature)
    : Component(std::move(name)),
      p_(parameters),
      spread_(std::move(spread)),
      labels_(std::move(labels)),
      initial_temperature_(initial_temperature) {
  DCTWIN_DEMAND(!spread_.empty() && labels_.size() == spread_.size(), "one label per GPU");
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

double GpuPowerSource::next_change(double) const { return std::numeric_limits<double>::infinity(); }

double GpuPackageArray::board_power(std::size_t i, const solver::EvalContext& ctx, const double* x) const {
  if (!source_->powered(i, ctx)) return 0.0;
  return source_->power(i, ctx) + leakage_power(i, x[junction_index(i)]);
}

double GpuPackageArray::leakage_power(std::size_t i, double tj) const {
  if (p_.leakage_power_at_reference == 0.0) return 0.0;
  return spread_[i].leakage_scale * p_.leakage_power_at_reference *
         std::exp(p_.leakage_temperature_coefficient * (tj - p_.leakage_reference_temperature));
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
  double total = 0.0;
  for (std::size_t i = 0; i < count(); ++i) {
    const double tj = x[junction_index(i)], th = x[hbm_index(i)], tb = x[base_index(i)];
    const auto terms = environment_->environment_terms(i);
    const double te = terms[0].second * x[terms[0].first] + terms[1].second * x[terms[1].first];
    const bool on = source_->powered(i, ctx);
    const double p = on ? source_->power(i, ctx) : 0.0;
    const double leak = on ? leakage_power(i, tj) : 0.0;
    const double q_jb = (tj - tb) / (spread_[i].resistance_scale * p_.junction_to_base_resistance);
    const double q_hb = (th - tb) / p_.hbm_to_base_resistance;
    const double q_be = (tb - te) / environment_->environment_resistance(i, ctx);
    xdot[junction_index(i)] += ((1.0 - f_h) * p + leak - q_jb) / p_.junction_capacitance;
    xdot[hbm_index(i)] += (f_h * p - q_hb) / p_.hbm_capacitance;
    xdot[base_index(i)] += (q_jb + q_hb - q_be) / p_.base_capacitance;
    total += p + leak;
  }
  xdot[heat_generated_index()] += total;
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
  for (std::size_t i = 0; i < count(); ++i) {
    const Index j = junction_index(i), h = hbm_index(i), b = base_index(i);
    const double g_jb = 1.0 / (spread_[i].resistance_scale * p_.junction_to_base_resistance);
    const double g_hb = 1.0 / p_.hbm_to_base_resistance;
    const double g_be = 1.0 / environment_->environment_resistance(i, ctx);
    // dL/dT_j = k L.
    const double dleak =
        source_->powered(i, ctx) ? p_.leakage_temperature_coefficient * leakage_power(i, x[j]) : 0.0;
    jac.add(j, j, (dleak - g_jb) / p_.junction_capacitance);
    jac.add(j, b, g_jb / p_.junction_capacitance);
    jac.add(h, h, -g_hb / p_.hbm_capacitance);
    jac.add(h, b, g_hb / p_.hbm_capacitance);
    jac.add(b, j, g_jb / p_.base_capacitance);
    jac.add(b, h, g_hb / p_.base_capacitance);
    jac.add(b, b, -(g_jb + g_hb + g_be) / p_.base_capacitance);
    for (const auto& [index, weight] : environment_->environment_terms(i))
      if (weight != 0.0) jac.add(b, index, weight * g_be / p_.base_capacitance);
    if (p_.leakage_power_at_reference != 0.0) jac.add(e, j, dleak);
  }
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
  double hottest = x[junction_index(0)];
  for (std::size_t i = 1; i < count(); ++i) hottest = std::max(hottest, x[junction_index(i)]);
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

}  // namespace dctwin::models::thermal
