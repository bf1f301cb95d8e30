// How a simulation ended, and what the integrator did to get there.
#pragma once

#include <string>

namespace dctwin::solver {

/// Why a run stopped. `finished` is the only normal outcome; every other value means the run
/// ended early and the report is marked incomplete with the reason.
enum class StopReason {
  finished,       ///< reached the requested end time
  event,          ///< a model's threshold event asked to stop (a protection trip, a shutdown)
  solver_failure, ///< the integrator could not continue (error test or convergence failures)
  interrupted,    ///< the user or the system asked to stop (SIGINT, SIGTERM, GUI cancel)
};

const char* to_string(StopReason reason) noexcept;

/// The outcome of a run: like Drake's SimulatorStatus, a value, never an exception.
struct SimulationStatus {
  StopReason reason = StopReason::finished;
  double time = 0.0;        ///< simulated time reached [s]
  std::string component;    ///< the component responsible (empty when none)
  std::string message;      ///< what happened, in words

  [[nodiscard]] bool finished() const noexcept { return reason == StopReason::finished; }
  /// One line for terminals and logs, e.g. "ended early at t = 12.5 s: event in gpus: ...".
  [[nodiscard]] std::string describe() const;
};

/// Where a run's wall time went [s], measured with a steady clock around each part of the run
/// loop (Simulator::run). The parts do not overlap; the loop's own bookkeeping between them (a few
/// comparisons per update) is in none, so they add up to a little less than `total`.
struct RunWallTimes {
  double integration = 0.0;        ///< CVODE's steps and the states at requested times
  /// Of `integration`, the states at requested times (ticks, samples): CVODE's interpolant and the
  /// forced responses there, and the copies of the state handed out.
  double interpolation = 0.0;
  double periodic_updates = 0.0;   ///< components' periodic updates (the governors' ticks)
  double scheduled_updates = 0.0;  ///< components' self-scheduled updates (phase ends, interruptions)
  double knots = 0.0;              ///< the observer's knots (the electrical feed's fixed steps)
  double continuations = 0.0;      ///< going on across a forcing change without a restart
  double restarts = 0.0;           ///< integrator restarts (and the forced responses' resets)
  double samples = 0.0;            ///< outputs at the sample times and the observer's rows (the report)
  double total = 0.0;              ///< the whole run loop
};

/// Work counters of the integrator, summed over all segments of a run.
struct SolverStatistics {
  long steps = 0;
  long rhs_evaluations = 0;
  long jacobian_evaluations = 0;
  long linear_solver_setups = 0;
  long nonlinear_iterations = 0;
  long nonlinear_convergence_failures = 0;
  long error_test_failures = 0;
  long root_evaluations = 0;
  long segments = 0;   ///< smooth segments between forcing discontinuities (integrator restarts)
  /// Forcing steps the integrator went on across without a restart (forced responses absorbed them).
  long continued_segments = 0;
  long events = 0;     ///< threshold events that fired
  /// Periodic updates left out because their components rested over the integrator's step
  /// (IntegratorSettings::skip_ticks_at_rest).
  long ticks_at_rest = 0;
  double last_step_size = 0.0;  ///< [s]
  RunWallTimes wall_time;       ///< by part (Simulator::run; not the integrator's own counters)
};

}  // namespace dctwin::solver
