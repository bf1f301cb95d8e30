#include "dctwin/models/electrical/utility.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <unsupported/Eigen/MatrixFunctions>

#include "dctwin/models/parameter_check.hpp"
#include "dctwin/solver/check.hpp"

namespace dctwin::models::electrical {

namespace {

using solver::ParameterTable;

std::string section_name(const solver::ParameterTree& s, const char* fallback) {
  return s.path.empty() ? std::string(fallback) : s.path;
}

void positive_finite(const ParameterCheck& check, const char* key, double value, const char* unit) {
  check.positive(key, value, unit);
  if (!std::isfinite(value)) check.fail(std::string(key) + " must be a finite number");
}

/// Phi and Gamma from e^{[[A, B], [0, 0]] h}.
template <int N, int M>
ExactHold<N, M> hold_from(const Eigen::Matrix<double, N, N>& a, const Eigen::Matrix<double, N, M>& b, double h) {
  DCTWIN_DEMAND(h >= 0.0, "exact hold: step length must be >= 0");
  Eigen::Matrix<double, N + M, N + M> augmented = Eigen::Matrix<double, N + M, N + M>::Zero();
  augmented.template topLeftCorner<N, N>() = a * h;
  augmented.template topRightCorner<N, M>() = b * h;
  const Eigen::Matrix<double, N + M, N + M> e = augmented.exp();
  ExactHold<N, M> out;
  out.phi = e.template topLeftCorner<N, N>();
  out.gamma = e.template topRightCorner<N, M>();
  return out;
}

}  // namespace

ExactHold<2, 1> exact_hold(const Eigen::Matrix2d& a, const Eigen::Vector2d& b, double h) {
  return hold_from<2, 1>(a, b, h);
}

ExactHold<4, 4> exact_hold(const Eigen::Matrix4d& a, const Eigen::Matrix4d& b, double h) {
  return hold_from<4, 4>(a, b, h);
}

ExactHold<6, 4> exact_hold(const Eigen::Matrix<double, 6, 6>& a, const Eigen::Matrix<double, 6, 4>& b, double h) {
  return hold_from<6, 4>(a, b, h);
}

ParameterTable UtilityParameters::table() {
  using namespace solver;
  const UtilityParameters d;
  ParameterTable t;
  auto p = real_parameter("nominal_voltage", "V", "V_LL: nominal line-to-line voltage of the MV bus",
                          d.nominal_voltage, "34.5 kV, a standard nominal system voltage (ANSI C84.1) common for "
                          "large campus distribution");
  p.display_unit = "kV";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("frequency", "Hz", "f_0: nominal frequency", d.frequency, "North American grid, 60 Hz");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("short_circuit_power", "VA", "S_sc: short-circuit power at the point of connection",
                     d.short_circuit_power,
                     "Estimate (uncertain): ~17 kA at 34.5 kV, the fault level of a substation MV bus");
  p.display_unit = "MVA";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("x_over_r", "1", "X/R of the Thevenin impedance", d.x_over_r,
                     "Estimate (uncertain): 10-15 at MV substations");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("system_base", "VA", "S_sys: rating of the balancing area's generation (frequency base)",
                     d.system_base,
                     "Estimate (uncertain): a small balancing area of ~5 GW; a large interconnection makes the "
                     "frequency response negligible");
  p.display_unit = "MVA";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("inertia", "s", "H: aggregated inertia constant on S_sys", d.inertia,
                     "Kundur, Power System Stability and Control, ch. 3 and 11: 2-9 s for thermal units");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("damping", "1", "D: load damping, per-unit power change per per-unit frequency change",
                     d.damping, "Kundur, ch. 11: D of 1-2 is typical");
  t.push_back(at_least(p, 0.0));
  auto b = boolean_parameter("governor_enabled", "Primary frequency response (governor droop) acts",
                             d.governor_enabled);
  b.source = "Generators in service provide primary response";
  t.push_back(b);
  p = real_parameter("droop", "1", "R: governor speed droop", d.droop, "Kundur, ch. 11: 5 % is typical");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("governor_time_constant", "s", "T_g: governor and turbine lag, lumped", d.governor_time_constant,
                     "Kundur, ch. 11: governor 0.2 s plus non-reheat turbine 0.3 s");
  t.push_back(greater_than(p, 0.0));
  b = boolean_parameter("torsional_enabled", "Model a nearby turbine-generator's shaft torsional mode",
                        d.torsional_enabled);
  b.source = "On: the 7-40 Hz band is one utilities watch ([choukse-arxiv-2025])";
  t.push_back(b);
  p = real_parameter("torsional_frequency", "Hz", "f_t: natural frequency of the torsional mode",
                     d.torsional_frequency,
                     "Estimate (uncertain): inside the 10-40 Hz band of sub-synchronous torsional modes ([choukse-arxiv-2025])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("torsional_damping_ratio", "1", "zeta: damping ratio of the torsional mode",
                     d.torsional_damping_ratio, "Estimate (uncertain): shaft modes are lightly damped, ~0.001-0.01");
  greater_than(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("torsional_share", "1", "Share of the facility's power change picked up by that unit",
                     d.torsional_share, "Estimate (uncertain): a nearby unit among ~10 responding ones");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("torsional_unit_rating", "VA", "S_unit: rating of the unit with the torsional mode",
                     d.torsional_unit_rating, "Estimate (uncertain): a 500 MVA steam or combined-cycle unit");
  p.display_unit = "MVA";
  t.push_back(greater_than(p, 0.0));
  return t;
}

UtilityParameters UtilityParameters::from(const solver::ParameterTree& s) {
  UtilityParameters p;
  p.nominal_voltage = s.number("nominal_voltage");
  p.frequency = s.number("frequency");
  p.short_circuit_power = s.number("short_circuit_power");
  p.x_over_r = s.number("x_over_r");
  p.system_base = s.number("system_base");
  p.inertia = s.number("inertia");
  p.damping = s.number("damping");
  p.governor_enabled = s.boolean("governor_enabled");
  p.droop = s.number("droop");
  p.governor_time_constant = s.number("governor_time_constant");
  p.torsional_enabled = s.boolean("torsional_enabled");
  p.torsional_frequency = s.number("torsional_frequency");
  p.torsional_damping_ratio = s.number("torsional_damping_ratio");
  p.torsional_share = s.number("torsional_share");
  p.torsional_unit_rating = s.number("torsional_unit_rating");
  p.check(section_name(s, "electrical.utility"));
  return p;
}

void UtilityParameters::check(const std::string& section) const {
  const ParameterCheck check(section);
  positive_finite(check, "nominal_voltage", nominal_voltage, "V");
  positive_finite(check, "frequency", frequency, "Hz");
  positive_finite(check, "short_circuit_power", short_circuit_power, "VA");
  positive_finite(check, "x_over_r", x_over_r, "");
  positive_finite(check, "system_base", system_base, "VA");
  positive_finite(check, "inertia", inertia, "s");
  check.at_least("damping", damping, 0.0, "");
  positive_finite(check, "droop", droop, "");
  positive_finite(check, "governor_time_constant", governor_time_constant, "s");
  positive_finite(check, "torsional_frequency", torsional_frequency, "Hz");
  check.greater_than("torsional_damping_ratio", torsional_damping_ratio, 0.0, "");
  check.less_than("torsional_damping_ratio", torsional_damping_ratio, 1.0, "");
  check.in_range("torsional_share", torsional_share, 0.0, 1.0, "");
  positive_finite(check, "torsional_unit_rating", torsional_unit_rating, "VA");
  if (!governor_enabled && !(damping > 0.0))
    check.fail("damping must be > 0 when the governor is disabled (else the frequency has no equilibrium)");
}

double UtilityParameters::angular_frequency() const { return 2.0 * std::numbers::pi * frequency; }

std::complex<double> UtilityParameters::source_impedance() const {
  const double magnitude = nominal_voltage * nominal_voltage / short_circuit_power;
  const double r = magnitude / std::sqrt(1.0 + x_over_r * x_over_r);
  return {r, r * x_over_r};
}

UtilityGrid::UtilityGrid(const UtilityParameters& p, double regular_step) : p_(p), regular_step_(regular_step) {
  p_.check("electrical.utility");
  DCTWIN_DEMAND(regular_step > 0.0, "utility: regular step must be > 0");
  const double two_h = 2.0 * p_.inertia;
  const double inverse_droop = p_.governor_enabled ? 1.0 / p_.droop : 0.0;
  a_ << -p_.damping / two_h, 1.0 / two_h,                                     //
      -inverse_droop / p_.governor_time_constant, -1.0 / p_.governor_time_constant;
  b_ << -1.0 / two_h, 0.0;
  const double w = 2.0 * std::numbers::pi * p_.torsional_frequency;
  at_ << 0.0, 1.0,  //
      -w * w, -2.0 * p_.torsional_damping_ratio * w;
  bt_ << 0.0, w * w;
  frequency_hold_ = exact_hold(a_, b_, regular_step_);
  torsional_hold_ = exact_hold(at_, bt_, regular_step_);
}

double UtilityGrid::frequency() const { return p_.frequency * (1.0 + x_(0)); }

void UtilityGrid::step(double h, double power_change) {
  if (h <= 0.0) return;
  const double dpe = power_change / p_.system_base;
  if (h == regular_step_) {
    x_ = frequency_hold_.phi * x_ + frequency_hold_.gamma * dpe;
  } else {
    const auto hold = exact_hold(a_, b_, h);
    x_ = hold.phi * x_ + hold.gamma * dpe;
  }
  if (!p_.torsional_enabled) return;
  const double u = p_.torsional_share * power_change / p_.torsional_unit_rating;
  if (h == regular_step_) {
    y_ = torsional_hold_.phi * y_ + torsional_hold_.gamma * u;
  } else {
    const auto hold = exact_hold(at_, bt_, h);
    y_ = hold.phi * y_ + hold.gamma * u;
  }
  twist_max_ = std::max(twist_max_, std::fabs(y_(0)));
}

}  // namespace dctwin::models::electrical
