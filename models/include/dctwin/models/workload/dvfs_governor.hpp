// The DVFS governor of one GPU: a sampled controller, as GPU firmware runs, that sets the SM clock
// from the power limit and the die and memory temperatures, and reports why the clock is below
// what the work asks for with NVML's clock-event ("throttle") reason bits.
//
// Each update (period dt) it takes the junction and HBM temperatures, the activity of the phase
// the GPU is in and its leakage power, and:
//  1. Hardware thermal slowdown (latched with hysteresis): set when T_j >= T_hw, cleared when
//     T_j <= T_hw - dT_hw. While set, the clock is at most hw_slowdown_factor f_max (halved),
//     never below f_min.
//  2. Software thermal slowdown: an integral controller on a clock ceiling f_th,
//        e = max(T_j - T_max,op, T_hbm - T_hbm,max)
//        e > 0:          f_th <- min(f_th, f_work) - k_th e dt   (cut in proportion to the overshoot)
//        e < -dT_sw:     f_th <- f_th + r_up dt                  (recover at a fixed rate)
//        otherwise:      f_th held                               (hysteresis band)
//     clamped to [f_min, f_max], where f_work = min(f_max, hardware ceiling, power-cap clock) is
//     the clock the other limits allow for work: a cut starts from the clock actually running
//     (anti-windup), not from a ceiling that binds nothing. The reason is active while
//     f_th < f_max.
//  3. Power cap: the highest clock whose board power P_static + L + P_dyn(a, f) fits the limit
//     (GpuPowerModel::clock_for_dynamic_power). The reason is active while the power at the
//     other limits' clock would exceed P_limit, and clears only once it is below P_limit - dP;
//     while it is active the clock is held at or below the power-cap clock.
//  4. The clock is the least of the demand (rounded down to a multiple of clock_step: the GPU
//     offers a ladder of clocks, not a continuum) (f_max when working, f_idle when idle) and the
//     ceilings above, never below f_min. Not working sets GpuIdle; the thermal and hardware
//     logic runs as usual, so their ceilings and bits still apply to the idle clock.
// A junction at or above the shutdown temperature shuts the GPU down (`shut_down`, clock 0, no
// reason bits); that is a failure of the job, handled by the caller. A shut-down state is
// returned unchanged by later updates: a restarted GPU starts again from initial_state().
// update() allocates nothing.
//
// NVML reason bits (nvmlClocksEventReasons, [nvml-api]): 0x1 GpuIdle, 0x4 SwPowerCap, 0x8
// HwSlowdown, 0x20 SwThermalSlowdown, 0x40 HwThermalSlowdown. Hardware thermal slowdown sets both
// 0x8 and 0x40, as NVML documents HwSlowdown to include it.
#pragma once

#include <cstdint>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/workload/gpu_power.hpp"

namespace dctwin::models::workload {

/// NVML clock-event reason bits (nvml.h, nvmlClocksEventReason*).
namespace throttle_reason {
inline constexpr std::uint32_t gpu_idle = 0x1;
inline constexpr std::uint32_t applications_clocks_setting = 0x2;
inline constexpr std::uint32_t sw_power_cap = 0x4;
inline constexpr std::uint32_t hw_slowdown = 0x8;
inline constexpr std::uint32_t sync_boost = 0x10;
inline constexpr std::uint32_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint32_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint32_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint32_t display_clock_setting = 0x100;
}  // namespace throttle_reason

/// Temperature limits of one GPU (from the package's parameters) [K].
struct GpuThermalLimits {
  double max_operating = 360.15;      ///< T_max,op: software slowdown target (87 degC)
  double hw_slowdown = 362.15;        ///< T_hw (89 degC)
  double shutdown = 365.15;           ///< (92 degC)
  double hbm_max_operating = 368.15;  ///< T_hbm,max (95 degC)
};

struct DvfsGovernorParameters {
  double update_period = 0.1;            ///< dt [s]
  double thermal_gain = 100e6;           ///< k_th [Hz/(K s)]
  double thermal_recovery_rate = 25e6;   ///< r_up [Hz/s]
  double thermal_hysteresis = 2.0;       ///< dT_sw [K]
  double hw_slowdown_hysteresis = 1.0;   ///< dT_hw [K] (< T_hw - T_max,op, so it clears while f_th holds)
  double hw_slowdown_factor = 0.5;       ///< clock ceiling during hardware slowdown, share of f_max
  double power_cap_hysteresis = 5.0;     ///< dP [W]
  double clock_step = 15e6;              ///< clocks are multiples of this [Hz]; 0 = continuous

  static core::ParameterTable table();
  static DvfsGovernorParameters from(const core::ParameterTree& section);
};

/// What the governor reads at an update.
struct GovernorInputs {
  double junction_temperature = 300.0;  ///< T_j [K]
  double hbm_temperature = 300.0;       ///< T_hbm [K]
  double activity = 0.0;                ///< a of the current phase [1]
  double leakage_power = 0.0;           ///< L(T_j) [W]
  bool working = true;                  ///< false: no work (the clock drops to f_idle, GpuIdle set)
};

/// The governor's memory, one per GPU.
struct GovernorState {
  double clock = 1.98e9;                ///< SM clock in effect until the next update [Hz]
  double thermal_ceiling = 1.98e9;      ///< f_th [Hz]
  std::uint32_t reasons = 0;            ///< NVML bits in effect
  bool shut_down = false;
};

class DvfsGovernor {
 public:
  DvfsGovernor(DvfsGovernorParameters p, GpuPowerModel power, GpuThermalLimits limits);
  /// The state of a GPU that is cool and working: clock f_max, no reasons.
  [[nodiscard]] GovernorState initial_state() const;
  /// One update: the state that holds until the next one.
  [[nodiscard]] GovernorState update(const GovernorState& previous, const GovernorInputs& in) const;
  /// The clock for new inputs at once, without advancing the thermal controller (dt = 0): what
  /// the firmware's fast power control does when the activity jumps at a phase edge.
  [[nodiscard]] GovernorState reclock(const GovernorState& previous, const GovernorInputs& in) const;

  /// The clock work asks for when neither slowdown is active: f_max working, f_idle not [Hz].
  [[nodiscard]] double rest_demand(bool working) const;
  /// The state of a GPU at rest: the clock its demand asks for (f_max working, f_idle not, on the
  /// clock ladder), the thermal ceiling at f_max, no reason but GpuIdle when not working.
  [[nodiscard]] GovernorState rest_state(bool working) const;
  /// The largest leakage power at which update() keeps a GPU at rest: the power limit less the
  /// static power and the dynamic power at the demand, P_limit - P_static - P_dyn(a, rest_demand())
  /// [W] (negative when the power at the demand exceeds the limit even without leakage).
  [[nodiscard]] double rest_leakage_limit(double activity, bool working) const;
  /// Whether update() returns `previous` unchanged because nothing can move: `previous` is
  /// rest_state(in.working), T_j <= T_max,op and T_hbm <= T_hbm,max (no slowdown starts; the
  /// ceiling holds at f_max), and the board power at the demand is within P_limit (no power cap),
  /// i.e. the leakage is at most rest_leakage_limit(). The training job checks the same conditions
  /// GPU by GPU (with that limit per phase, less a margin far above rounding) and skips update()
  /// where they hold; a test checks this claim against update().
  [[nodiscard]] bool stays_at_rest(const GovernorState& previous, const GovernorInputs& in) const;
  [[nodiscard]] const DvfsGovernorParameters& parameters() const { return p_; }
  [[nodiscard]] const GpuPowerModel& power() const { return power_; }
  [[nodiscard]] const GpuThermalLimits& limits() const { return limits_; }

 private:
  [[nodiscard]] GovernorState advance(const GovernorState& previous, const GovernorInputs& in, double dt) const;
  /// The clock on the ladder at or below `clock` (within 1 Hz of a rung counts as on it), not below f_min.
  [[nodiscard]] double ladder_clock(double clock) const;

  DvfsGovernorParameters p_;
  GpuPowerModel power_;
  GpuThermalLimits limits_;
};

}  // namespace dctwin::models::workload
