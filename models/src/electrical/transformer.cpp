#include "dctwin/models/electrical/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "../vector_math.hpp"
#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::electrical {

namespace {

using core::ParameterTable;

constexpr double kelvin_offset = 273.0;  // C57.91 writes theta_H + 273 in its ageing formula
constexpr double seconds_per_hour = 3600.0;

}  // namespace

namespace {

const ParameterDeclarations<TransformerParameters>& declarations() {
  static const ParameterDeclarations<TransformerParameters> declared = [] {
    ParameterDeclarations<TransformerParameters> d;
    using P = TransformerParameters;
    d.integer("units_per_lineup", &P::units_per_lineup, "Transformers per lineup, sharing its load equally",
              "Estimate (uncertain): two 2.5 MVA units carry a ~4 MW pod lineup at ~80 % load")
        .at_least(1.0);
    d.real("rated_power", &P::rated_power, "VA", "S_rated: rated apparent power of one unit",
           "Estimate (uncertain): 2500 kVA, a common size of MV/LV unit substation transformers")
        .above(0.0)
        .shown_in("kVA");
    d.real("impedance", &P::impedance, "1", "z: short-circuit impedance per unit of S_rated",
           "5.75 %, the usual standard impedance of 2500 kVA units (IEEE C57.12.10 tables) [S]")
        .above(0.0)
        .below(1.0);
    d.real("x_over_r", &P::x_over_r, "1", "X/R of the short-circuit impedance",
           "Estimate (uncertain): typical X/R of 2-3 MVA units is 6-8 (IEEE C37.010 typical curves)")
        .above(0.0);
    d.real("no_load_loss", &P::no_load_loss, "W", "P_0: core (no-load) loss of one unit",
           "Estimate (uncertain): with load_loss, gives 99.54 % efficiency at 50 % load, the US DOE "
           "2016 minimum for 2500 kVA liquid-immersed units (10 CFR 431.196) being 99.53 %")
        .above(0.0)
        .shown_in("kW");
    d.real("load_loss", &P::load_loss, "W", "P_LL: load (winding) loss of one unit at rated current",
           "Estimate (uncertain): see no_load_loss; R = P_LL / P_0 ~ 6")
        .above(0.0)
        .shown_in("kW");
    d.real("top_oil_rise", &P::top_oil_rise, "K", "dTO_R: top-oil rise over ambient at rated load",
           "65 degC-rise design: 55 K top oil and 25 K hot-spot gradient give 110 degC at 30 degC ambient, "
           "the C57.91 reference hot spot")
        .above(0.0);
    d.real("hot_spot_rise", &P::hot_spot_rise, "K", "dH_R: hot-spot rise over top oil at rated load",
           "See top_oil_rise (IEEE C57.91 clause 7, 65 degC-rise units)")
        .above(0.0);
    d.real("oil_exponent", &P::oil_exponent, "1", "n: exponent of the top-oil rise",
           "IEEE C57.91 clause 7: n = 0.8 for ONAN cooling")
        .above(0.0)
        .at_most(2.0);
    d.real("winding_exponent", &P::winding_exponent, "1", "m: exponent of the hot-spot rise",
           "IEEE C57.91 clause 7: m = 0.8 for ONAN cooling")
        .above(0.0)
        .at_most(2.0);
    d.real("top_oil_time_constant", &P::top_oil_time_constant, "s", "tau_TO: top-oil time constant",
           "Estimate (uncertain): ONAN units of this size have ~2-4 h (IEEE C57.91 clause 7 computes it "
           "from the oil and core masses)")
        .above(0.0)
        .shown_in("h");
    d.real("winding_time_constant", &P::winding_time_constant, "s", "tau_w: winding (hot-spot) time constant",
           "Estimate (uncertain): 3-10 min typical (IEEE C57.91 clause 7)")
        .above(0.0)
        .shown_in("min");
    d.real("ambient_rise", &P::ambient_rise, "K",
           "Temperature of the transformers' surroundings above the site ambient",
           "0: outdoor units in free air")
        .at_least(0.0);
    d.boolean("start_at_steady_state", &P::start_at_steady_state,
              "Start at the thermal steady state of the initial load (else at ambient)",
              "A facility that has run at the initial load for hours");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable TransformerParameters::table() { return declarations().table(); }

TransformerParameters TransformerParameters::from(const core::ParameterTree& s) {
  TransformerParameters p = declarations().read(s);
  p.check(section_path(s, "electrical.transformer"));
  return p;
}

void TransformerParameters::check(const std::string& section) const { declarations().check(*this, section); }

double TransformerParameters::resistance_pu() const { return impedance / std::sqrt(1.0 + x_over_r * x_over_r); }

double TransformerParameters::reactance_pu() const { return resistance_pu() * x_over_r; }

// The exponentials and powers below are vector_math.hpp's (within a few ulps of libm's), so
// that the feed's units step side by side in vectorised passes with the bits of a unit stepped
// alone.
namespace {
/// The exponent of F_AA at theta_H [K], clamped to [-700, 700].
inline double ageing_exponent(double hot_spot_kelvin) {
  const double celsius = hot_spot_kelvin - 273.15;
  return detail::clamp_exponent(15000.0 / 383.0 - 15000.0 / (celsius + kelvin_offset));
}

inline double ageing_factor(double hot_spot_kelvin) { return detail::exp_within_700(ageing_exponent(hot_spot_kelvin)); }

/// F_AA at n <= 16 hot spots, in passes the compiler vectorises; the bits of ageing_factor.
inline void ageing_factors(std::size_t n, const double* hot_spot, double* factor) {
  for (std::size_t u = 0; u < n; ++u) factor[u] = ageing_exponent(hot_spot[u]);
  for (std::size_t u = 0; u < n; ++u) factor[u] = detail::exp_within_700(factor[u]);
}

/// What one unit's step needs of the parameters.
struct StepConstants {
  double ambient_rise, loss_ratio, top_oil_rise, hot_spot_rise, oil_exponent, winding_exponent;
};

/// [(K^2 R + 1) / (R + 1)] and K^2, the bases of the ultimate rises' powers.
inline double top_oil_base(const StepConstants& c, double k) {
  return (k * k * c.loss_ratio + 1.0) / (c.loss_ratio + 1.0);
}
inline double hot_spot_base(double k) { return k * k; }

/// Transformer::step for n <= 16 units side by side (clause 7's exponential form with K held,
/// the ageing by the trapezoidal rule), in passes the compiler vectorises; F_AA at the start is
/// the last step's end value when the hot spot has not moved since (it is a function of the hot
/// spot alone).
DCTWIN_VECTOR_VARIANTS void step_lanes(const StepConstants& c, std::size_t n, double h, double top_oil_decay,
                                       double winding_decay, const double* __restrict load_factor, double ambient,
                                       double* __restrict top_oil, double* __restrict hot_spot_rise,
                                       double* __restrict ageing_hours, double* __restrict rate_hot_spot,
                                       double* __restrict rate) {
  double hot_spot[16], before[16], after[16], oil[16], winding[16];
  bool moved = false;
  for (std::size_t u = 0; u < n; ++u) {
    hot_spot[u] = ambient + c.ambient_rise + top_oil[u] + hot_spot_rise[u];
    moved |= hot_spot[u] != rate_hot_spot[u];
  }
  if (moved) {
    ageing_factors(n, hot_spot, before);
    for (std::size_t u = 0; u < n; ++u) before[u] = hot_spot[u] == rate_hot_spot[u] ? rate[u] : before[u];
  } else {
    for (std::size_t u = 0; u < n; ++u) before[u] = rate[u];
  }
  for (std::size_t u = 0; u < n; ++u) {
    oil[u] = top_oil_base(c, load_factor[u]);
    winding[u] = hot_spot_base(load_factor[u]);
  }
  detail::powers_of_non_negative(n, oil, c.oil_exponent, oil);
  detail::powers_of_non_negative(n, winding, c.winding_exponent, winding);
  for (std::size_t u = 0; u < n; ++u) {
    const double top_oil_ultimate = c.top_oil_rise * oil[u], hot_spot_ultimate = c.hot_spot_rise * winding[u];
    top_oil[u] = top_oil_ultimate + (top_oil[u] - top_oil_ultimate) * top_oil_decay;
    hot_spot_rise[u] = hot_spot_ultimate + (hot_spot_rise[u] - hot_spot_ultimate) * winding_decay;
    hot_spot[u] = ambient + c.ambient_rise + top_oil[u] + hot_spot_rise[u];
  }
  ageing_factors(n, hot_spot, after);
  for (std::size_t u = 0; u < n; ++u) {
    ageing_hours[u] += 0.5 * (before[u] + after[u]) * h / seconds_per_hour;
    rate_hot_spot[u] = hot_spot[u];
    rate[u] = after[u];
  }
}
}  // namespace

double ageing_acceleration(double hot_spot_kelvin) { return ageing_factor(hot_spot_kelvin); }

Transformer::Transformer(const TransformerParameters& p) : p_(p), reactance_pu_(p.reactance_pu()) {
  p_.check("electrical.transformer");
}

double Transformer::voltage_drop(double active_power, double reactive_power) const {
  return (p_.resistance_pu() * active_power + p_.reactance_pu() * reactive_power) / p_.rated_power;
}

namespace {
StepConstants step_constants(const TransformerParameters& p) {
  return {p.ambient_rise, p.loss_ratio(), p.top_oil_rise, p.hot_spot_rise, p.oil_exponent, p.winding_exponent};
}
}  // namespace

double Transformer::ultimate_top_oil_rise(double k) const {
  return p_.top_oil_rise * detail::power_of_non_negative(top_oil_base(step_constants(p_), k), p_.oil_exponent);
}

double Transformer::ultimate_hot_spot_rise(double k) const {
  return p_.hot_spot_rise * detail::power_of_non_negative(hot_spot_base(k), p_.winding_exponent);
}

TransformerThermalState Transformer::steady_state(double k) const {
  return {ultimate_top_oil_rise(k), ultimate_hot_spot_rise(k), 0.0};
}

double Transformer::hot_spot(const TransformerThermalState& s, double ambient) const {
  return ambient + p_.ambient_rise + s.top_oil_rise + s.hot_spot_rise;
}

void Transformer::step(TransformerThermalState& s, double h, double k, double ambient) const {
  step(s, decay(h), k, ambient);
}

TransformerDecay Transformer::decay(double h) const {
  DCTWIN_DEMAND(h >= 0.0, "transformer step length must be >= 0");
  return {h, std::exp(-h / p_.top_oil_time_constant), std::exp(-h / p_.winding_time_constant)};
}

void Transformer::step(TransformerThermalState& s, const TransformerDecay& decay, double k, double ambient) const {
  DCTWIN_DEMAND(decay.h >= 0.0, "transformer step length must be >= 0");
  if (decay.h == 0.0) return;
  step_lanes(step_constants(p_), 1, decay.h, decay.top_oil, decay.winding, &k, ambient, &s.top_oil_rise,
             &s.hot_spot_rise, &s.ageing_hours, &s.ageing_rate_hot_spot, &s.ageing_rate);
}

void Transformer::step_each(TransformerThermalStates& s, const TransformerDecay& decay, const double* load_factor,
                            double ambient) const {
  DCTWIN_DEMAND(decay.h >= 0.0, "transformer step length must be >= 0");
  if (decay.h == 0.0) return;
  const StepConstants c = step_constants(p_);
  const std::size_t n = s.top_oil_rise.size();
  for (std::size_t first = 0; first < n; first += 16) {
    step_lanes(c, std::min<std::size_t>(16, n - first), decay.h, decay.top_oil, decay.winding, load_factor + first,
               ambient, &s.top_oil_rise[first], &s.hot_spot_rise[first], &s.ageing_hours[first],
               &s.ageing_rate_hot_spot[first], &s.ageing_rate[first]);
  }
}

void TransformerThermalStates::assign(const std::vector<const TransformerThermalState*>& states) {
  const std::size_t n = states.size();
  for (auto* v : {&top_oil_rise, &hot_spot_rise, &ageing_hours, &ageing_rate_hot_spot, &ageing_rate}) v->resize(n);
  for (std::size_t u = 0; u < n; ++u) {
    top_oil_rise[u] = states[u]->top_oil_rise;
    hot_spot_rise[u] = states[u]->hot_spot_rise;
    ageing_hours[u] = states[u]->ageing_hours;
    ageing_rate_hot_spot[u] = states[u]->ageing_rate_hot_spot;
    ageing_rate[u] = states[u]->ageing_rate;
  }
}

TransformerThermalState TransformerThermalStates::operator[](std::size_t u) const {
  return {top_oil_rise[u], hot_spot_rise[u], ageing_hours[u], ageing_rate_hot_spot[u], ageing_rate[u]};
}

}  // namespace dctwin::models::electrical
