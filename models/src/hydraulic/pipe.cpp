#include "dctwin/models/hydraulic/pipe.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include "dctwin/core/number_text.hpp"

namespace dctwin::models::hydraulic {

using core::format_general;

namespace {

/// phi = f Re (Churchill) and Re dphi/dRe, for Re >= 0.
void churchill_phi(double re, double relative_roughness, double& phi, double& re_dphi) {
  constexpr double laminar = 64.0;
  if (re < 10.0) {  // the turbulent part is below 1e-70 of the laminar one here
    phi = laminar;
    re_dphi = 0.0;
    return;
  }
  // Integer and simple fractional powers by multiplication and roots (one pow() in all).
  auto pow16 = [](double v) {
    const double v2 = v * v, v4 = v2 * v2, v8 = v4 * v4;
    return v8 * v8;
  };
  const double w = std::pow(7.0 / re, 0.9);
  const double u = w + 0.27 * relative_roughness;
  const double lg = -std::log(u);
  const double a = pow16(2.457 * lg);
  const double b = pow16(37530.0 / re);
  const double x = 1.0 / ((a + b) * std::sqrt(a + b));  // (A + B)^(-3/2)
  const double re2 = re * re, re4 = re2 * re2;
  const double y = re4 * re4 * re4 * x;                 // Re^12 (A + B)^(-3/2)
  const double h = 68719476736.0 + y;                   // 8^12 + y
  const double h12 = std::cbrt(std::sqrt(std::sqrt(h)));  // h^(1/12)
  phi = 8.0 * h12;
  // Re dA/dRe = 16 A (0.9 w / u) / lg;  Re dB/dRe = -16 B.
  const double re_da = 16.0 * a * (0.9 * w / u) / lg;
  const double re_db = -16.0 * b;
  const double re_dy = y * (12.0 - 1.5 * (re_da + re_db) / (a + b));
  re_dphi = (8.0 / 12.0) * (h12 / h) * re_dy;
}

}  // namespace

double churchill_friction_factor(double reynolds, double relative_roughness) {
  double phi = 0.0, re_dphi = 0.0;
  churchill_phi(reynolds, relative_roughness, phi, re_dphi);
  return phi / reynolds;
}

double swamee_jain_friction_factor(double reynolds, double relative_roughness) {
  const double l = std::log10(relative_roughness / 3.7 + 5.74 / std::pow(reynolds, 0.9));
  return 0.25 / (l * l);
}

double colebrook_friction_factor(double reynolds, double relative_roughness) {
  // g(x) = x + 2 log10(a + b x) = 0 for x = 1 / sqrt(f).
  const double a = relative_roughness / 3.7, b = 2.51 / reynolds;
  double x = 1.0 / std::sqrt(swamee_jain_friction_factor(reynolds, relative_roughness));
  for (int i = 0; i < 50; ++i) {
    const double g = x + 2.0 * std::log10(a + b * x);
    const double dg = 1.0 + 2.0 * b / ((a + b * x) * std::numbers::ln10);
    const double step = g / dg;
    x -= step;
    if (std::abs(step) <= 1e-15 * x) break;
  }
  return 1.0 / (x * x);
}

core::ParameterTable PipeParameters::table(const PipeParameters& d, const std::string& source) {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("length", "m", "Length", d.length, source);
  t.push_back(at_least(p, 0.0));
  p = real_parameter("diameter", "m", "Inner diameter", d.diameter, source);
  p.display_unit = "mm";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("roughness", "m", "Absolute wall roughness", d.roughness,
                     "Moody (1944): drawn tubing 0.0015 mm, commercial steel 0.045 mm");
  p.display_unit = "mm";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("minor_loss_coefficient", "1",
                     "Sum of the loss coefficients K of fittings, bends, valves and quick disconnects",
                     d.minor_loss_coefficient, source);
  t.push_back(at_least(p, 0.0));
  return t;
}

PipeParameters PipeParameters::from(const core::ParameterTree& s) {
  PipeParameters p;
  p.length = s.number("length");
  p.diameter = s.number("diameter");
  p.roughness = s.number("roughness");
  p.minor_loss_coefficient = s.number("minor_loss_coefficient");
  return p;
}

Pipe::Pipe(PipeParameters p, double density, double viscosity)
    : p_(p), density_(density), viscosity_(viscosity),
      area_(0.25 * std::numbers::pi * p.diameter * p.diameter) {
  friction_coefficient_ = viscosity_ * p_.length / (2.0 * area_ * p_.diameter * p_.diameter);
  minor_coefficient_ = p_.minor_loss_coefficient * density_ / (2.0 * area_ * area_);
  reynolds_per_flow_ = density_ * p_.diameter / (viscosity_ * area_);
  transition_flow_ = 100.0 / reynolds_per_flow_;
}

Pipe::Pipe(PipeParameters p, const fluid::Coolant& coolant, double temperature)
    : Pipe(p, coolant.density(temperature), coolant.viscosity(temperature)) {}

double Pipe::reynolds(double flow) const { return reynolds_per_flow_ * std::abs(flow); }

double Pipe::friction_factor(double flow) const {
  return churchill_friction_factor(reynolds(flow), p_.roughness / p_.diameter);
}

double Pipe::transport_delay(double flow) const {
  return flow == 0.0 ? std::numeric_limits<double>::infinity() : volume() / std::abs(flow);
}

void Pipe::evaluate(double flow, double& drop, double& slope) const {
  double phi = 0.0, re_dphi = 0.0;
  churchill_phi(reynolds(flow), p_.roughness / p_.diameter, phi, re_dphi);
  double minor = 0.0, minor_slope = 0.0;
  solver::signed_power(flow, 2.0, transition_flow_, minor, minor_slope);
  drop = friction_coefficient_ * phi * flow + minor_coefficient_ * minor;
  slope = friction_coefficient_ * (phi + re_dphi) + minor_coefficient_ * minor_slope;
}

double Pipe::pressure_drop(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return drop;
}

double Pipe::derivative(double flow) const {
  double drop = 0.0, slope = 0.0;
  evaluate(flow, drop, slope);
  return slope;
}

std::string Pipe::defect() const {
  if (p_.diameter == 0.0) return "zero flow area (diameter 0 m)";
  if (!(p_.diameter > 0.0)) return "non-positive diameter " + format_general(p_.diameter) + " m";
  if (!(p_.length >= 0.0)) return "negative length " + format_general(p_.length) + " m";
  if (!(p_.roughness >= 0.0)) return "negative roughness " + format_general(p_.roughness) + " m";
  if (!(p_.minor_loss_coefficient >= 0.0))
    return "negative minor-loss coefficient " + format_general(p_.minor_loss_coefficient);
  if (p_.length == 0.0 && p_.minor_loss_coefficient == 0.0)
    return "non-positive resistance (length 0 m and minor-loss coefficient 0)";
  if (!(density_ > 0.0)) return "non-positive density " + format_general(density_) + " kg/m3";
  if (!(viscosity_ > 0.0)) return "non-positive viscosity " + format_general(viscosity_) + " Pa s";
  return {};
}

}  // namespace dctwin::models::hydraulic
