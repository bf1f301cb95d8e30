// GPU board power as a function of activity, clock and voltage (CMOS switching power), plus the
// static part; leakage, which depends on the junction temperature, is added by the package model
// (thermal::GpuPackageArray::leakage_power).
//
//   P_board(a, f, T_j) = P_static + L(T_j) + a P_dyn,max (f / f_max) (V(f) / V_max)^2
//   V(f) = V_floor                                                        for f <= f_knee
//        = V_floor + (V_max - V_floor) (f - f_knee) / (f_max - f_knee)    for f_knee < f <= f_max
//
// a in [0, 1] is the switching activity of the phase the GPU is in (compute, communication, stall),
// relative to the most power-hungry work the GPU can do at its top clock. Dynamic CMOS power is
// alpha C V^2 f (Weste and Harris, CMOS VLSI Design, 4th ed., sec. 5.1); below the knee the
// voltage stays at its floor and power falls only linearly with the clock.
//
// Calibration against [nvidia-smi-h100] and [h100-training-trace] (H100 SXM5), with leakage from the package at T_j ~ 35 / 65 degC:
//   idle (a = 0, any clock):         P_static + L(35 degC) ~ 70-100 W
//   compute phases (1-s averages):   a_compute at f_max gives ~540 W
//   checkpoint stalls:               a_stall at f_max gives ~150 W
//   power limit:                     700 W by default; a = 1 at f_max exceeds it
#pragma once

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::workload {

struct GpuPowerParameters {
  double max_clock = 1.98e9;             ///< f_max [Hz], H100 SXM5 max SM clock
  double min_clock = 0.21e9;             ///< lowest clock the governor may set [Hz]
  double idle_clock = 0.345e9;           ///< SM clock with no work [Hz]
  double voltage_at_max_clock = 1.0;     ///< V_max [V] (uncertain)
  double voltage_floor = 0.70;           ///< V_floor [V] (uncertain)
  double voltage_knee_clock = 1.2e9;     ///< f_knee [Hz]: below it the voltage stays at its floor
  double dynamic_power_at_max = 600.0;   ///< P_dyn,max [W] at a = 1, f_max, V_max
  double static_power = 55.0;            ///< P_static [W]: board, HBM refresh, VRM losses at idle
  double power_limit = 700.0;            ///< board power limit [W] (nvidia-smi -pl), 200-700 W on H100

  static core::ParameterTable table();
  static GpuPowerParameters from(const core::ParameterTree& section);
};

class GpuPowerModel {
 public:
  explicit GpuPowerModel(GpuPowerParameters p);
  /// V(f) [V].
  [[nodiscard]] double voltage(double clock) const;
  /// a P_dyn,max (f / f_max) (V(f) / V_max)^2 [W].
  [[nodiscard]] double dynamic_power(double activity, double clock) const;
  /// P_static + leakage + dynamic_power [W].
  [[nodiscard]] double board_power(double activity, double clock, double leakage) const;
  /// The highest clock in [min_clock, max_clock] at which dynamic_power(activity, f) <= budget
  /// (the dynamic power is increasing in f, so this is a root of a monotone function; solved to
  /// 1 kHz). Returns max_clock when even f_max fits, min_clock when nothing fits.
  [[nodiscard]] double clock_for_dynamic_power(double activity, double budget) const;
  [[nodiscard]] const GpuPowerParameters& parameters() const { return p_; }

 private:
  GpuPowerParameters p_;
};

}  // namespace dctwin::models::workload
