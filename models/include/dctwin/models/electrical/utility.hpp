// The utility seen from the facility's MV bus: a Thevenin source (short-circuit power and X/R) whose
// frequency follows an aggregated swing equation with governor droop, and an optional torsional mode
// of a nearby turbine-generator shaft.
//
// Thevenin impedance (per phase, wye equivalent): |Z| = V_LL^2 / S_sc, R = |Z| / sqrt(1 + (X/R)^2),
// X = R (X/R), L = X / (2 pi f_0).
//
// Frequency, in per unit of the balancing area's base S_sys (Kundur, Power System Stability and
// Control, 1994, ch. 11, load-frequency control with one aggregated unit, non-reheat turbine and a
// single governor/turbine lag):
//
//   2H d(df)/dt   = dPm - dPe - D df
//   T_g d(dPm)/dt = -dPm - df / R                  (1/R = 0 when the governor is disabled)
//   dPe = (P_grid - P_grid,0) / S_sys,   f = f_0 (1 + df)
//
// Torsional mode of a nearby unit, as a lightly damped resonator in per unit of the shaft's static
// twist at the unit's rated torque, forced by the share of the facility's power change that unit
// picks up:
//
//   x'' + 2 zeta w_t x' + w_t^2 x = w_t^2 u,   u = share (P_grid - P_grid,0) / S_unit
//
// Both linear systems are discretized exactly with a zero-order hold: the input is held at its mean
// over the step and [x_{k+1}] = e^{A h} x_k + (integral_0^h e^{A s} ds) B u, both blocks taken from the
// matrix exponential of the augmented matrix [[A, B], [0, 0]] h (Eigen's MatrixFunctions, scaling and
// squaring Pade). The matrices are cached for the regular step length.
#pragma once

#include <complex>
#include <string>

#include <Eigen/Core>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::electrical {

struct UtilityParameters {
  double nominal_voltage = 34.5e3;         ///< V_LL [V] at the MV bus
  double frequency = 60.0;                 ///< f_0 [Hz]
  double short_circuit_power = 1.0e9;      ///< S_sc [VA] at the point of connection
  double x_over_r = 10.0;                  ///< X/R [1] of the Thevenin impedance
  double system_base = 5.0e9;              ///< S_sys [VA] balancing area base
  double inertia = 4.0;                    ///< H [s] on S_sys
  double damping = 1.0;                    ///< D [1] load damping, p.u. power per p.u. frequency
  bool governor_enabled = true;            ///< primary frequency response on
  double droop = 0.05;                     ///< R [1] governor droop
  double governor_time_constant = 0.5;     ///< T_g [s] governor and turbine lag
  bool torsional_enabled = true;           ///< model the nearby unit's shaft mode
  double torsional_frequency = 15.0;       ///< f_t [Hz] natural frequency
  double torsional_damping_ratio = 0.01;   ///< zeta [1]
  double torsional_share = 0.1;            ///< [1] share of the facility's power change the unit picks up
  double torsional_unit_rating = 500.0e6;  ///< S_unit [VA]

  static core::ParameterTable table();
  static UtilityParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;

  /// Thevenin impedance per phase [ohm].
  [[nodiscard]] std::complex<double> source_impedance() const;
  [[nodiscard]] double angular_frequency() const;  ///< w_0 [rad/s]
};

/// Exact zero-order-hold discretization of x' = A x + B u: x_{k+1} = Phi x_k + Gamma u_k.
template <int N, int M>
struct ExactHold {
  Eigen::Matrix<double, N, N> phi;
  Eigen::Matrix<double, N, M> gamma;
};

/// Phi = e^{A h}, Gamma = integral_0^h e^{A s} ds B (matrix exponential of the augmented matrix).
ExactHold<2, 1> exact_hold(const Eigen::Matrix2d& a, const Eigen::Vector2d& b, double h);
ExactHold<4, 4> exact_hold(const Eigen::Matrix4d& a, const Eigen::Matrix4d& b, double h);
ExactHold<6, 4> exact_hold(const Eigen::Matrix<double, 6, 6>& a, const Eigen::Matrix<double, 6, 4>& b, double h);

/// The utility's frequency and torsional dynamics.
class UtilityGrid {
 public:
  /// Checks the parameters (section "electrical.utility"); starts at rest (df = 0, dPm = 0, x = 0).
  /// `regular_step` [s] is the step length whose matrices are cached.
  UtilityGrid(const UtilityParameters& p, double regular_step);
  /// Advances over h [s] with the power change P_grid - P_grid,0 [W] held at `power_change`.
  void step(double h, double power_change);

  [[nodiscard]] double frequency_deviation() const { return x_(0); }      ///< df [p.u.]
  [[nodiscard]] double mechanical_power_change() const { return x_(1); }  ///< dPm [p.u. of S_sys]
  [[nodiscard]] double frequency() const;                                 ///< f_0 (1 + df) [Hz]
  [[nodiscard]] double torsional_twist() const { return y_(0); }          ///< x [p.u.]
  [[nodiscard]] double torsional_amplitude_max() const { return twist_max_; }  ///< max |x| [p.u.]
  [[nodiscard]] const UtilityParameters& parameters() const { return p_; }
  [[nodiscard]] const Eigen::Matrix2d& frequency_matrix() const { return a_; }
  [[nodiscard]] const Eigen::Matrix2d& torsional_matrix() const { return at_; }

 private:
  UtilityParameters p_;
  Eigen::Matrix2d a_, at_;
  Eigen::Vector2d b_, bt_;
  double regular_step_;
  ExactHold<2, 1> frequency_hold_, torsional_hold_;
  Eigen::Vector2d x_ = Eigen::Vector2d::Zero();  // df, dPm
  Eigen::Vector2d y_ = Eigen::Vector2d::Zero();  // x, x'
  double twist_max_ = 0.0;
};

}  // namespace dctwin::models::electrical
