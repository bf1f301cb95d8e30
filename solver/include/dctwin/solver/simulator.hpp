// The simulation loop: segments between known discontinuities, sampled outputs, events, status.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

#include "dctwin/solver/integrator.hpp"
#include "dctwin/solver/status.hpp"
#include "dctwin/solver/system.hpp"

namespace dctwin::solver {

struct SimulationSettings {
  double start_time = 0.0;       ///< [s]
  double end_time = 600.0;       ///< [s]
  double output_interval = 1.0;  ///< [s]; outputs are sampled at start + k * interval and at the end
  IntegratorSettings integrator;
};

/// Receives what the simulation produces. All callbacks run on the simulating thread.
class SimulationObserver {
 public:
  virtual ~SimulationObserver() = default;
  /// A sample: time, state and the flat output buffer (layout of `System::outputs()`).
  virtual void on_sample(double t, const std::vector<double>& x, const std::vector<double>& outputs) = 0;
  /// An event that fired (and did not necessarily stop the run).
  virtual void on_event(double /*t*/, const std::string& /*component*/, const std::string& /*event*/,
                        const std::string& /*message*/) {}
  /// Called after every internal return of the integrator, for progress displays.
  virtual void on_progress(double /*t*/) {}
  /// Whether on_knot should be called (it costs a copy of the discrete state per update).
  [[nodiscard]] virtual bool wants_knots() const { return false; }
  /// Called in time order at every time the discrete state may change (periodic and scheduled
  /// updates, forcing edges) and before every sample: the state x at t and the discrete state just
  /// before and just after the updates at t (the same vector when nothing changed there). Between
  /// two knots the forcing is continuous, so a subsystem stepped outside the integrator (a fast
  /// electrical network, multirate) can take its inputs as left and right limits here.
  virtual void on_knot(double /*t*/, const std::vector<double>& /*x*/, const std::vector<double>& /*before*/,
                       const std::vector<double>& /*after*/) {}
  /// The states on_knot reads, or nullopt (the default) when it may read any. Declared, they let
  /// the periodic updates form only the states they and the knots read (Component::
  /// states_read_by_update); the others then hold values of earlier times at those knots.
  [[nodiscard]] virtual std::optional<StateRanges> states_read_by_knots() const { return std::nullopt; }
};

/// Runs an assembled System from its initial state (or a given one) to the end time.
class Simulator {
 public:
  Simulator(const System& system, SimulationSettings settings);

  /// Integrates; never throws for a failure of the run itself (returned as a status). `cancel`
  /// is polled between integrator returns (set it from a signal handler or a GUI thread).
  SimulationStatus run(SimulationObserver& observer, const std::atomic<bool>* cancel = nullptr);
  /// Same, from a given initial state (e.g. a steady state).
  SimulationStatus run(std::vector<double> x0, SimulationObserver& observer,
                       const std::atomic<bool>* cancel = nullptr);

  [[nodiscard]] const SolverStatistics& statistics() const noexcept { return statistics_; }
  /// State at the end of the last run.
  [[nodiscard]] const std::vector<double>& final_state() const noexcept { return final_state_; }
  /// Discrete state at the end of the last run.
  [[nodiscard]] const std::vector<double>& final_discrete() const noexcept { return final_discrete_; }

 private:
  const System& system_;
  SimulationSettings settings_;
  SolverStatistics statistics_;
  std::vector<double> final_state_;
  std::vector<double> final_discrete_;
};

/// Settings of the steady-state solver.
struct SteadyStateSettings {
  double tolerance = 1e-10;  ///< on the largest relative update |dx| / (1 + |x|)
  int max_iterations = 200;
  double initial_pseudo_time_step = 1.0;  ///< [s] first step of the pseudo-transient
  /// Least factor by which the pseudo-time step grows after a step that did not raise the
  /// residual (1: the residual's fall alone sets the growth, which stalls on a plateau).
  double plateau_growth = 1.5;
  /// Solve the linear systems with the integrator's structured solver (small groups eliminated
  /// first, KLU on the rest) when the system has such groups; false: always Eigen's sparse LU.
  bool structured_linear_solver = true;
};

/// Finds x with dx/dt = 0 for the forcing in effect at time t (accumulator states are held at
/// their initial values), from the system's initial state, by pseudo-transient continuation:
/// backward-Euler steps of growing pseudo-time with the analytic sparse Jacobian, which end as
/// Newton's method. Throws SolverError when it does not converge.
std::vector<double> solve_steady_state(const System& system, double t,
                                       const SteadyStateSettings& settings = {});
/// Same, with the discrete state held at `discrete` instead of the initial one (for example a
/// workload's step-averaged state).
std::vector<double> solve_steady_state(const System& system, double t, const std::vector<double>& discrete,
                                       const SteadyStateSettings& settings = {});

}  // namespace dctwin::solver
