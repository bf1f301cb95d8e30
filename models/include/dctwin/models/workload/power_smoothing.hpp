// GPU-level power smoothing and software fill: what a training job can do on its own GPUs to soften
// the megawatt swings its synchronous phases put on the grid.
//
// Power smoothing, after the profile NVML exposes on Blackwell-class GPUs ([nvml-api], power
// smoothing profile [P]): a power floor as a share of the board power limit, a ramp-up and a ramp-down
// limit in W/s, and a hysteresis before a ramp-down starts. With P_cmd the power the work asks for
// (after the floor) and a ramp that starts at time t0 from the power P0 the GPU drew then:
//   rising  (P_cmd >= P0):  P(t) = min(P_cmd, P0 + r_up (t - t0))
//   falling (P_cmd <  P0):  P(t) = P0                                    for t - t0 <= t_h
//                           P(t) = max(P_cmd, P0 - r_down (t - t0 - t_h)) after
//   floor:                  P_cmd = max(P_work, f_floor P_limit)
// Above the work's demand the GPU burns the difference in filler work (energy, no progress).
// Below it (a rising ramp) the work runs slower: with the work rate taken proportional to the
// dynamic power the GPU may draw (the clock follows the power budget), a ramp from phi0 = (P0 -
// P_static) / (P_cmd - P_static) to 1 over tau = (P_cmd - P0) / r_up stretches a clock-bound
// phase of nominal length T to T' with
//   integral_0^T' phi(t) dt = T,  phi(t) = phi0 + (1 - phi0) t / tau (t < tau), 1 after,
// that is T' = T + tau (1 - phi0) / 2 when the ramp ends inside the phase.
//
// Software fill ([choukse-arxiv-2025]): the communication phases run filler kernels at `fill_activity`
// instead of the communication activity, so the dip is shallower; it costs energy, not time.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::workload {

struct PowerSmoothingParameters {
  bool enabled = false;
  double floor_fraction = 0.0;         ///< f_floor: least board power as a share of the power limit [1]
  double ramp_up_rate = 2000.0;        ///< r_up [W/s]
  double ramp_down_rate = 2000.0;      ///< r_down [W/s]
  double ramp_down_hysteresis = 0.0;   ///< t_h: hold before a ramp-down starts [s]
  bool fill_enabled = false;           ///< software fill during communication phases
  double fill_activity = 0.5;          ///< activity of the filler work [1]

  /// Parameters of the `power_smoothing:` section.
  static core::ParameterTable table();
  /// Reads the section (ranges are the table's; `check` repeats them for models built in C++).
  static PowerSmoothingParameters from(const core::ParameterTree& section);
  /// Throws core::InputError located at `section_path` for values out of range.
  void check(const std::string& section_path) const;
};

/// P(t) of a ramp that started `elapsed` seconds ago at `origin` toward `target` [W].
[[nodiscard]] double smoothed_power(const PowerSmoothingParameters& p, double origin, double target, double elapsed);

/// Integral of smoothed_power over elapsed in [from, to] [J] (exact: the ramp is piecewise linear).
[[nodiscard]] double smoothed_energy(const PowerSmoothingParameters& p, double origin, double target, double from,
                                     double to);

/// T' for a clock-bound phase of nominal length T whose power ramps from `origin` to `target` at
/// r_up, with work rate proportional to the dynamic power (see above). T when nothing ramps up.
[[nodiscard]] double stretched_phase_time(const PowerSmoothingParameters& p, double nominal, double origin,
                                          double target, double static_power);

}  // namespace dctwin::models::workload
