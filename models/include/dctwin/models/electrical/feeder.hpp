// The MV feeder from the utility's Thevenin source to the facility's MV bus, with the bus's
// power-factor-correction capacitor bank and the cable's charging capacitance in shunt.
//
// Per phase (wye equivalent, RMS phasors) in the synchronous frame rotating at w_0, where balanced
// sinusoidal quantities are constant and the envelope dynamics are linear:
//
//   L di/dt = v_s - v - R i - j w_0 L i
//   C dv/dt = i - i_load - j w_0 C v
//
//   R = R_source + R_cable,  L = L_source + L_cable   (source from UtilityParameters::source_impedance)
//   C = C_bank + C_cable,    C_bank = Q_bank / (w_0 V_LL^2)   (three-phase rating Q_bank at V_LL)
//
// i, v, v_s, i_load complex: 4 real states (i_d, i_q, v_d, v_q). The frame turns at the nominal
// frequency; the utility's frequency deviation (below 0.1 %) is not fed back into it. The system is
// discretized exactly with a zero-order hold on (v_s, i_load) (matrix exponential, cached for the
// regular step) for a held load current: this is the RLC system that `step_current` advances.
//
// Loads given as power (`step_power`): the load current is a further state that follows, with the time
// constant tau_load of the rectifiers' and drives' power control, the current the demanded power
// needs at the bus voltage of the step's start:
//
//   tau_load di_load/dt = conj(S / (3 v(t_k))) - i_load
//
// integrated exactly with the RLC part (6 real states, the target held over the step). Without the
// lag a constant-power load is a negative incremental resistance (~P / V^2 per phase) at every
// frequency; it undamps the ~1 kHz ring of the feeder's L with the bank's C, and a load current that
// steps at a step boundary rings that resonance by tens of percent of the voltage, an artifact of the
// RMS model. With the lag the ring is excited only by 1 / (w_r tau_load) of that and the loop is stable
// (tau_load must be at least 5 steps). The bus then absorbs 3 Re(v i_load*), which equals the
// demanded power in steady state; in transients the difference is the energy swing of L, C and the
// lag, which the feed's energy accounts (kept in the demanded powers) leave out.
//
// Steady state (phasor solution, d/dt = 0): i = i_load + j w_0 C v, v = v_s - Z i, Z = R + j w_0 L,
// so v = (v_s - Z i_load) / (1 + j w_0 C Z).
// Feeder loss: 3 R |i|^2, per step the mean of the values at the step's ends.
#pragma once

#include <complex>
#include <string>

#include <Eigen/Core>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/electrical/utility.hpp"

namespace dctwin::models::electrical {

struct FeederParameters {
  double resistance = 0.18;              ///< R_cable [ohm] per phase
  double inductance = 0.64e-3;           ///< L_cable [H] per phase
  double cable_capacitance = 0.6e-6;     ///< C_cable [F] per phase (charging capacitance)
  double capacitor_bank_rating = 2.0e6;  ///< Q_bank [var] three-phase at the nominal voltage
  double source_voltage = 1.0;           ///< |v_s| [1] relative to the nominal voltage
  double load_time_constant = 0.02;      ///< tau_load [s]: lag of the load current behind its power's target

  static core::ParameterTable table();
  static FeederParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
};

class Feeder {
 public:
  /// Checks the parameters (sections "electrical.feeder", "electrical.utility"; load_time_constant must
  /// be at least 5 regular steps). Starts at the steady state with no load.
  Feeder(const FeederParameters& p, const UtilityParameters& utility, double regular_step);

  /// Series resistance R, inductance L and shunt capacitance C per phase.
  [[nodiscard]] double resistance() const { return r_; }
  [[nodiscard]] double inductance() const { return l_; }
  [[nodiscard]] double capacitance() const { return c_; }
  [[nodiscard]] double angular_frequency() const { return w_; }
  /// Source phase voltage v_s [V] (real).
  [[nodiscard]] std::complex<double> source_voltage() const { return vs_; }
  /// Nominal phase voltage V_LL / sqrt(3) [V].
  [[nodiscard]] double nominal_phase_voltage() const { return v_nominal_; }
  /// The linear system x' = A x + B u, x = (i_d, i_q, v_d, v_q), u = (vs_d, vs_q, il_d, il_q).
  [[nodiscard]] const Eigen::Matrix4d& state_matrix() const { return a_; }
  [[nodiscard]] const Eigen::Matrix4d& input_matrix() const { return b_; }

  /// Phasor steady state for a constant load current i_load [A].
  [[nodiscard]] std::complex<double> steady_voltage(std::complex<double> load_current) const;
  /// Sets the state to the steady state of the constant complex load S [VA, three-phase] (solved by
  /// fixed-point iteration on the bus voltage).
  void settle(std::complex<double> load_power);
  /// Sets the state to the steady state of the constant load current i_load [A].
  void settle_current(std::complex<double> load_current);

  /// Advances over h [s] with the load current held [A].
  void step_current(double h, std::complex<double> load_current);
  /// Advances over h [s] with the load power S [VA, three-phase]: the load current lags toward
  /// conj(S / (3 v)) at the bus voltage of the step's start. Returns the step's feeder loss [W] (mean
  /// of the end values).
  double step_power(double h, std::complex<double> load_power);

  [[nodiscard]] std::complex<double> current() const { return {x_(0), x_(1)}; }  ///< i [A]
  [[nodiscard]] std::complex<double> voltage() const { return {x_(2), x_(3)}; }  ///< v [V]
  [[nodiscard]] std::complex<double> load_current() const { return load_; }  ///< i_load [A]
  /// |v| / (V_LL / sqrt(3)) [1].
  [[nodiscard]] double voltage_relative() const;
  /// 3 R |i|^2 [W] now.
  [[nodiscard]] double loss() const;

 private:
  double r_ = 0.0, l_ = 0.0, c_ = 0.0, w_ = 0.0, v_nominal_ = 0.0, load_time_constant_ = 0.0;
  std::complex<double> load_;
  std::complex<double> vs_;
  Eigen::Matrix4d a_, b_;
  double regular_step_;
  ExactHold<4, 4> hold_;
  Eigen::Matrix<double, 6, 6> lagged_a_;
  Eigen::Matrix<double, 6, 4> lagged_b_;
  Eigen::Matrix<double, 6, 6> lagged_phi_;
  Eigen::Matrix<double, 6, 4> lagged_gamma_;
  Eigen::Vector4d x_ = Eigen::Vector4d::Zero();
};

}  // namespace dctwin::models::electrical
