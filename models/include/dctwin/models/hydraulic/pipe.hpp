// Pipe: Darcy-Weisbach friction with the Churchill friction factor, plus minor losses, and the
// transport delay of the coolant it holds.
//
//   dp(Q) = f(Re, e/D) (L / D) rho v|v| / 2  +  K rho v|v| / 2,   v = Q / A,  A = pi D^2 / 4,
//   Re = rho |v| D / mu
//
// Churchill (1977), valid from laminar through transition to fully rough turbulent flow:
//
//   f = 8 [ (8 / Re)^12 + (A_c + B_c)^(-3/2) ]^(1/12)
//   A_c = [ 2.457 ln( 1 / ((7 / Re)^0.9 + 0.27 e / D) ) ]^16,   B_c = (37530 / Re)^16
//
// The friction term is evaluated through phi(Re) = f Re = 8 [8^12 + Re^12 (A_c + B_c)^(-3/2)]^(1/12),
// which is smooth and tends to 64 as Re -> 0:
//
//   dp_friction = phi(Re) mu L Q / (2 A D^2)      (Hagen-Poiseuille 32 mu L v / D^2 when phi = 64)
//
// so the friction term has a positive slope at Q = 0 and needs no regularisation. The minor-loss
// term K rho Q|Q| / (2 A^2) is regularised with `solver::signed_power` below the flow at Re = 100
// (where such losses are negligible). For Re < 10, phi = 64 exactly in double precision.
//
// Transport delay: tau = V / |Q| with V = A L (plug flow; +infinity at zero flow).
//
// Swamee-Jain (1976) and Colebrook (1939, solved by Newton's method) are given for comparison;
// they hold for turbulent flow (Re >= 4000) only.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/fluid/coolant.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

/// Darcy friction factor by Churchill (1977), any Re > 0; `relative_roughness` = e / D.
[[nodiscard]] double churchill_friction_factor(double reynolds, double relative_roughness);
/// Darcy friction factor by Swamee and Jain (1976), turbulent flow.
[[nodiscard]] double swamee_jain_friction_factor(double reynolds, double relative_roughness);
/// Darcy friction factor from the Colebrook-White equation
///   1 / sqrt(f) = -2 log10( (e/D) / 3.7 + 2.51 / (Re sqrt(f)) ),
/// solved by Newton's method to 1e-14 relative, turbulent flow.
[[nodiscard]] double colebrook_friction_factor(double reynolds, double relative_roughness);

struct PipeParameters {
  double length = 1.0;                  ///< L [m]
  double diameter = 0.025;              ///< D [m], inner diameter
  double roughness = 1.5e-6;            ///< e [m], absolute roughness (drawn tubing)
  double minor_loss_coefficient = 0.0;  ///< K [1], sum of fittings, quick disconnects, bends

  /// Table with the given defaults; `source` documents where they come from.
  static core::ParameterTable table(const PipeParameters& defaults, const std::string& source);
  static PipeParameters from(const core::ParameterTree& section);
};

/// A pipe (hose, header segment) as a network branch, with the coolant's density and viscosity
/// taken at one temperature.
class Pipe final : public solver::BranchLaw {
 public:
  Pipe(PipeParameters p, double density, double viscosity);
  /// Properties of `coolant` at `temperature` [K] (throws InputError outside its table).
  Pipe(PipeParameters p, const fluid::Coolant& coolant, double temperature);

  [[nodiscard]] double area() const { return area_; }      ///< [m2]
  [[nodiscard]] double volume() const { return area_ * p_.length; }  ///< [m3]
  [[nodiscard]] double velocity(double flow) const { return flow / area_; }  ///< [m/s]
  [[nodiscard]] double reynolds(double flow) const;          ///< [1]
  /// Churchill friction factor at this flow (64 / Re in laminar flow; +infinity at Q = 0).
  [[nodiscard]] double friction_factor(double flow) const;
  /// V / |Q| [s] (+infinity at Q = 0).
  [[nodiscard]] double transport_delay(double flow) const;

  [[nodiscard]] double pressure_drop(double flow) const override;
  [[nodiscard]] double derivative(double flow) const override;
  void evaluate(double flow, double& drop, double& slope) const override;
  /// The flow at 1 m/s.
  [[nodiscard]] double flow_scale() const override { return area_; }
  [[nodiscard]] std::string defect() const override;
  [[nodiscard]] const PipeParameters& parameters() const { return p_; }
  [[nodiscard]] double density() const { return density_; }
  [[nodiscard]] double viscosity() const { return viscosity_; }

 private:
  PipeParameters p_;
  double density_, viscosity_;
  double area_;
  double friction_coefficient_;  // mu L / (2 A D^2)
  double minor_coefficient_;     // K rho / (2 A^2)
  double transition_flow_;       // flow at Re = 100
  double reynolds_per_flow_;     // rho D / (mu A)
};

}  // namespace dctwin::models::hydraulic
