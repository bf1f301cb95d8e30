#include "dctwin/models/electrical/feeder.hpp"

#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"

namespace dctwin::models::electrical {

namespace {

using core::ParameterTable;

constexpr std::complex<double> j{0.0, 1.0};

const ParameterDeclarations<FeederParameters>& declarations() {
  static const ParameterDeclarations<FeederParameters> declared = [] {
    ParameterDeclarations<FeederParameters> d;
    using P = FeederParameters;
    d.real("resistance", &P::resistance, "ohm", "R_cable: series resistance of the feeder per phase",
           "Estimate (uncertain): 2 km of 500 kcmil copper MV cable, ~0.09 ohm/km at 90 degC")
        .at_least(0.0);
    d.real("inductance", &P::inductance, "H", "L_cable: series inductance of the feeder per phase",
           "Estimate (uncertain): 2 km at ~0.12 ohm/km reactance at 60 Hz (0.32 mH/km)")
        .at_least(0.0)
        .shown_in("mH");
    d.real("cable_capacitance", &P::cable_capacitance, "F", "C_cable: charging capacitance of the feeder per phase",
           "Estimate (uncertain): 2 km at ~0.3 uF/km for shielded 35 kV cable")
        .above(0.0)
        .shown_in("uF");
    d.real("capacitor_bank_rating", &P::capacitor_bank_rating, "VA",
           "Q_bank: three-phase rating of the MV bus's power-factor-correction capacitor bank at the nominal "
           "voltage",
           "Estimate (uncertain): corrects ~40 MW from power factor ~0.98 to ~0.995")
        .at_least(0.0)
        .shown_in("kVA");  // reactive: kvar (udunits knows no var)
    d.real("source_voltage", &P::source_voltage, "1",
           "Utility source voltage behind the Thevenin impedance, relative to the nominal voltage",
           "The utility regulates its bus to nominal")
        .above(0.0)
        .at_most(2.0);
    d.real("load_time_constant", &P::load_time_constant, "s",
           "Time constant with which the loads' current follows the bus voltage (bandwidth of the rectifiers' "
           "and drives' power control); at least 5 time steps",
           "Estimate (uncertain): power loops of active front ends and UPS rectifiers settle in tens of ms")
        .above(0.0)
        .shown_in("ms");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable FeederParameters::table() { return declarations().table(); }

FeederParameters FeederParameters::from(const core::ParameterTree& s) {
  FeederParameters p = declarations().read(s);
  p.check(section_path(s, "electrical.feeder"));
  return p;
}

void FeederParameters::check(const std::string& section) const { declarations().check(*this, section); }

Feeder::Feeder(const FeederParameters& p, const UtilityParameters& utility, double regular_step)
    : regular_step_(regular_step) {
  p.check("electrical.feeder");
  utility.check("electrical.utility");
  DCTWIN_DEMAND(regular_step > 0.0, "feeder: regular step must be > 0");
  if (p.load_time_constant < 5.0 * regular_step)
    ParameterCheck("electrical.feeder")
        .fail("load_time_constant " + format_number(p.load_time_constant) + " s is shorter than 5 time steps (" +
              format_number(5.0 * regular_step) + " s); the constant-power load would undamp the feeder");
  load_time_constant_ = p.load_time_constant;
  w_ = utility.angular_frequency();
  const std::complex<double> source = utility.source_impedance();
  r_ = source.real() + p.resistance;
  l_ = source.imag() / w_ + p.inductance;
  c_ = p.cable_capacitance + p.capacitor_bank_rating / (w_ * utility.nominal_voltage * utility.nominal_voltage);
  v_nominal_ = utility.nominal_voltage / std::sqrt(3.0);
  vs_ = {p.source_voltage * v_nominal_, 0.0};
  // x = (i_d, i_q, v_d, v_q); -j w i = w i_q - j w i_d.
  a_ << -r_ / l_, w_, -1.0 / l_, 0.0,  //
      -w_, -r_ / l_, 0.0, -1.0 / l_,   //
      1.0 / c_, 0.0, 0.0, w_,          //
      0.0, 1.0 / c_, -w_, 0.0;
  // u = (vs_d, vs_q, il_d, il_q).
  b_ << 1.0 / l_, 0.0, 0.0, 0.0,  //
      0.0, 1.0 / l_, 0.0, 0.0,    //
      0.0, 0.0, -1.0 / c_, 0.0,   //
      0.0, 0.0, 0.0, -1.0 / c_;
  hold_ = exact_hold(a_, b_, regular_step_);
  // With the load current as state: x = (i_d, i_q, v_d, v_q, il_d, il_q), u = (vs_d, vs_q, target_d, target_q).
  lagged_a_.setZero();
  lagged_a_.topLeftCorner<4, 4>() = a_;
  lagged_a_(2, 4) = -1.0 / c_;
  lagged_a_(3, 5) = -1.0 / c_;
  lagged_a_(4, 4) = -1.0 / load_time_constant_;
  lagged_a_(5, 5) = -1.0 / load_time_constant_;
  lagged_b_.setZero();
  lagged_b_(0, 0) = 1.0 / l_;
  lagged_b_(1, 1) = 1.0 / l_;
  lagged_b_(4, 2) = 1.0 / load_time_constant_;
  lagged_b_(5, 3) = 1.0 / load_time_constant_;
  const auto lagged = exact_hold(lagged_a_, lagged_b_, regular_step_);
  lagged_phi_ = lagged.phi;
  lagged_gamma_ = lagged.gamma;
  settle_current({0.0, 0.0});
}

std::complex<double> Feeder::steady_voltage(std::complex<double> load_current) const {
  const std::complex<double> z{r_, w_ * l_};
  return (vs_ - z * load_current) / (1.0 + j * w_ * c_ * z);
}

void Feeder::settle_current(std::complex<double> load_current) {
  const std::complex<double> v = steady_voltage(load_current);
  const std::complex<double> i = load_current + j * w_ * c_ * v;
  x_ << i.real(), i.imag(), v.real(), v.imag();
  load_ = load_current;
}

void Feeder::settle(std::complex<double> load_power) {
  std::complex<double> v = steady_voltage({0.0, 0.0});
  constexpr int max_iterations = 200;
  for (int k = 0; k < max_iterations; ++k) {
    const std::complex<double> next = steady_voltage(std::conj(load_power / (3.0 * v)));
    const bool done = std::abs(next - v) <= 1e-13 * std::abs(v);
    v = next;
    if (done) break;
  }
  const std::complex<double> load_current = std::conj(load_power / (3.0 * v));
  const std::complex<double> i = load_current + j * w_ * c_ * v;
  x_ << i.real(), i.imag(), v.real(), v.imag();
  load_ = load_current;
}

void Feeder::step_current(double h, std::complex<double> load_current) {
  if (h <= 0.0) return;
  load_ = load_current;
  Eigen::Vector4d u;
  u << vs_.real(), vs_.imag(), load_current.real(), load_current.imag();
  if (h == regular_step_) {
    x_ = hold_.phi * x_ + hold_.gamma * u;
  } else {
    const auto hold = exact_hold(a_, b_, h);
    x_ = hold.phi * x_ + hold.gamma * u;
  }
}

double Feeder::step_power(double h, std::complex<double> load_power) {
  if (h <= 0.0) return loss();
  const double before = loss();
  const std::complex<double> v = voltage();
  DCTWIN_DEMAND(std::abs(v) > 0.0, "feeder: the bus voltage collapsed to zero");
  const std::complex<double> target = std::conj(load_power / (3.0 * v));
  Eigen::Matrix<double, 6, 1> z;
  z << x_(0), x_(1), x_(2), x_(3), load_.real(), load_.imag();
  Eigen::Vector4d u;
  u << vs_.real(), vs_.imag(), target.real(), target.imag();
  if (h == regular_step_) {
    z = lagged_phi_ * z + lagged_gamma_ * u;
  } else {
    const auto hold = exact_hold(lagged_a_, lagged_b_, h);
    z = hold.phi * z + hold.gamma * u;
  }
  x_ = z.head<4>();
  load_ = {z(4), z(5)};
  return 0.5 * (before + loss());
}

double Feeder::voltage_relative() const { return std::abs(voltage()) / v_nominal_; }

double Feeder::loss() const { return 3.0 * r_ * std::norm(current()); }

}  // namespace dctwin::models::electrical
