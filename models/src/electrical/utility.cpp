#include "dctwin/models/electrical/utility.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <unsupported/Eigen/MatrixFunctions>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"

namespace dctwin::models::electrical {

namespace {

using core::ParameterTable;

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

namespace {

const ParameterDeclarations<UtilityParameters>& declarations() {
  static const ParameterDeclarations<UtilityParameters> declared = [] {
    ParameterDeclarations<UtilityParameters> d;
    using P = UtilityParameters;
    d.real("nominal_voltage", &P::nominal_voltage, "V", "V_LL: nominal line-to-line voltage of the MV bus",
           "34.5 kV, a standard nominal system voltage (ANSI C84.1) common for large campus distribution")
        .above(0.0)
        .shown_in("kV");
    d.real("frequency", &P::frequency, "Hz", "f_0: nominal frequency",
           "North American grid, 60 Hz")
        .above(0.0);
    d.real("short_circuit_power", &P::short_circuit_power, "VA",
           "S_sc: short-circuit power at the point of connection",
           "Estimate (uncertain): ~17 kA at 34.5 kV, the fault level of a substation MV bus")
        .above(0.0)
        .shown_in("MVA");
    d.real("x_over_r", &P::x_over_r, "1", "X/R of the Thevenin impedance",
           "Estimate (uncertain): 10-15 at MV substations")
        .above(0.0);
    d.real("system_base", &P::system_base, "VA", "S_sys: rating of the balancing area's generation (frequency base)",
           "Estimate (uncertain): a small balancing area of ~5 GW; a large interconnection makes the frequency "
           "response negligible")
        .above(0.0)
        .shown_in("MVA");
    d.real("inertia", &P::inertia, "s", "H: aggregated inertia constant on S_sys",
           "Kundur, Power System Stability and Control, ch. 3 and 11: 2-9 s for thermal units")
        .above(0.0);
    d.real("damping", &P::damping, "1", "D: load damping, per-unit power change per per-unit frequency change",
           "Kundur, ch. 11: D of 1-2 is typical")
        .at_least(0.0);
    d.boolean("governor_enabled", &P::governor_enabled, "Primary frequency response (governor droop) acts",
              "Generators in service provide primary response");
    d.real("droop", &P::droop, "1", "R: governor speed droop",
           "Kundur, ch. 11: 5 % is typical")
        .above(0.0);
    d.real("governor_time_constant", &P::governor_time_constant, "s", "T_g: governor and turbine lag, lumped",
           "Kundur, ch. 11: governor 0.2 s plus non-reheat turbine 0.3 s")
        .above(0.0);
    d.boolean("torsional_enabled", &P::torsional_enabled, "Model a nearby turbine-generator's shaft torsional mode",
              "On: the 7-40 Hz band is one utilities watch ([choukse-arxiv-2025])");
    d.real("torsional_frequency", &P::torsional_frequency, "Hz", "f_t: natural frequency of the torsional mode",
           "Estimate (uncertain): inside the 10-40 Hz band of sub-synchronous torsional modes ([choukse-arxiv-2025])")
        .above(0.0);
    d.real("torsional_damping_ratio", &P::torsional_damping_ratio, "1", "zeta: damping ratio of the torsional mode",
           "Estimate (uncertain): shaft modes are lightly damped, ~0.001-0.01")
        .above(0.0)
        .below(1.0);
    d.real("torsional_share", &P::torsional_share, "1", "Share of the facility's power change picked up by that unit",
           "Estimate (uncertain): a nearby unit among ~10 responding ones")
        .at_least(0.0)
        .at_most(1.0);
    d.real("torsional_unit_rating", &P::torsional_unit_rating, "VA",
           "S_unit: rating of the unit with the torsional mode",
           "Estimate (uncertain): a 500 MVA steam or combined-cycle unit")
        .above(0.0)
        .shown_in("MVA");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable UtilityParameters::table() { return declarations().table(); }

UtilityParameters UtilityParameters::from(const core::ParameterTree& s) {
  UtilityParameters p = declarations().read(s);
  p.check(section_path(s, "electrical.utility"));
  return p;
}

void UtilityParameters::check(const std::string& section) const {
  const ParameterCheck check(section);
  declarations().check(*this, section);
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
