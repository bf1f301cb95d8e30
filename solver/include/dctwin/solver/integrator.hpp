// Time integration of an assembled System between forcing discontinuities.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dctwin/solver/status.hpp"
#include "dctwin/solver/system.hpp"

namespace dctwin::solver {

/// Integrator settings; part of the scenario (`simulation:` section).
struct IntegratorSettings {
  double relative_tolerance = 1e-6;
  double absolute_tolerance = 1e-6;  ///< in the states' SI units (K, J, ...)
  double max_step = 0.0;             ///< [s]; 0 = no limit
  double initial_step = 0.0;         ///< [s]; 0 = let CVODE choose
  /// BDF order limit (1..5). The sites' fast mode takes 3 (`simulation: max_order`): after every
  /// forcing edge the Nordsieck history's higher derivatives are out of date, and orders 4 and 5
  /// took more steps there (docs/solver.md, "Step size and order after a short phase").
  int max_order = 5;
  long max_steps_per_output = 100000;
  /// Largest relative change of h/l_0 (CVODE's gamma) before the Newton matrix I - gamma J is
  /// factored again (CVodeSetDeltaGammaMaxLSetup; CVODE's default 0.3). The error test is not
  /// affected, only how stale the matrix may get: after each forcing edge the step size grows
  /// fast, and at 0.3 KLU refactored at most steps (20 % of a 3,072-GPU pod's run time). At 1.0
  /// Newton needs about as many iterations and the pod runs ~13 % faster (bench/history.md, change 2).
  double max_gamma_change = 1.0;
  /// The smallest growth of the step size CVODE takes: when its error test would let the next
  /// step grow by less, it keeps h (CVodeSetEtaFixedStepBounds' upper bound; CVODE's default 1.5,
  /// which saves a rescaling of the Nordsieck array and possibly a new Newton matrix). Must be
  /// > 1. The sites' fast mode takes 1.1 (`simulation: min_step_growth`): every forcing edge ends
  /// a step, so a short phase (0.2 s) clips h, and at 1.5 the step stayed at that length for
  /// seconds after it, up to 11 steps in a row while the error test allowed ~1.3x more each time;
  /// at 1.1 it grows back within a few steps: 14 % fewer steps on the 24,576-GPU hall and closer
  /// to the reference mode there (docs/solver.md, "Step size and order after a short phase").
  double min_step_growth = 1.5;
  /// Let components carry the closed-form part of their states (forced_response.hpp), so that
  /// forcing steps those parts absorb do not restart the integrator. Off in the reference mode.
  bool forced_responses = true;
  /// Whether accumulator states (energies, counts: integrals that no derivative reads) take part
  /// in CVODE's local error test. Off: they are integrated by the same BDF formula but, like
  /// CVODES' quadratures by default (CVodeSetQuadErrCon), do not limit the step, so a running
  /// total that passes through zero or grows by megajoules per step does not set it; their
  /// accuracy follows from that of the states they integrate. On in the reference mode.
  bool accumulator_error_control = false;
  /// Solve the Newton systems by eliminating small groups of states that touch only each other
  /// and shared states (a GPU's junction, HBM, base and plate coolant) on every core, with KLU on
  /// the shared states' Schur complement (docs/solver.md, "Linear solver"), when at least half of
  /// a system of 1,000 or more states is in such groups. Off: KLU on the whole matrix, as in the
  /// reference mode.
  bool structured_linear_solver = true;
  /// Leave out the periodic updates a component proves idle over an integrator step
  /// (Component::rests_over, with the states bounded over the step from CVODE's Nordsieck array
  /// and the forced responses), all but the last tick of each step (docs/solver.md, "Ticks at
  /// rest"). The decisions are those the skipped updates would take; what changes is where the
  /// knots are (a multirate observer's inputs are then linear over longer spans). Off in the
  /// reference mode.
  bool skip_ticks_at_rest = true;
  /// How long after a forcing change every tick is taken all the same [s] (as is every tick of the
  /// first step after it): the leakage then follows the junctions' fastest modes, which a load
  /// linear between ticks further apart would cut short (bench/history.md measures 0-0.8 s).
  double ticks_taken_after_forcing_change = 0.5;

  /// The reference mode: tight tolerances, no shortcuts; fast paths are pinned to it in tests.
  static IntegratorSettings reference();
};

/// Thrown for a failure of a SUNDIALS call; the message names the function and its return code.
class SolverError : public std::runtime_error {
 public:
  /// A SUNDIALS call that returned `code` (< 0); the message gives the flag's name.
  SolverError(const std::string& function, int code, const std::string& detail);
  /// A failure outside SUNDIALS (a steady-state Newton iteration, a linear solve); code() is 0.
  SolverError(const std::string& function, const std::string& detail);
  [[nodiscard]] int code() const noexcept { return code_; }
  [[nodiscard]] const std::string& function() const noexcept { return function_; }
  /// The detail given to the constructor (the message without the function's name and code).
  [[nodiscard]] const std::string& detail() const noexcept { return detail_; }
  /// The state with the largest weighted local error estimate when the integrator gave up (or, for
  /// a steady state, the largest residual), or -1.
  [[nodiscard]] long state() const noexcept { return state_; }
  void set_state(long state) noexcept { state_ = state; }

 private:
  std::string function_;
  std::string detail_;
  int code_;
  long state_ = -1;
};

/// Result of one call to `Integrator::advance`.
enum class AdvanceResult { reached, root_found };

/// CVODE (variable-order BDF, Newton) with the KLU sparse direct solver and the system's analytic
/// sparse Jacobian. Forcing is smooth within a segment; `restart` starts a new one at an edge.
class CvodeIntegrator {
 public:
  CvodeIntegrator(const System& system, IntegratorSettings settings);
  ~CvodeIntegrator();
  CvodeIntegrator(const CvodeIntegrator&) = delete;
  CvodeIntegrator& operator=(const CvodeIntegrator&) = delete;

  /// Starts a smooth segment at (t, x) that must not be integrated past `segment_end`.
  /// `discrete` (the discrete state, constant on the segment) must outlive the segment.
  void restart(double t, const std::vector<double>& x, double segment_end, const double* discrete = nullptr);

  /// Moves the end of the current segment to `segment_end` (> time(), >= step_time()) without
  /// restarting: the forcing did not change at the old end, so CVODE keeps its step size, order
  /// and history.
  void extend(double segment_end);

  /// At an update at t = time() that changed the discrete state from `discrete_before` to
  /// `discrete_after` (x: the state at t): goes on without a restart if CVODE stopped at t and the
  /// forced responses absorb every jump of the derivatives; the segment then ends at `segment_end`
  /// and reads `discrete_after`. Returns false otherwise; the caller must then restart (which
  /// resets the forced responses this call may have re-anchored).
  bool continue_across(double t, const std::vector<double>& x, const double* discrete_before,
                       const double* discrete_after, double segment_end);

  /// At an update at t = time() whose changes all leave the derivatives continuous at t
  /// (Component::updates_are_continuous): goes on without a restart if CVODE stopped at t and
  /// forced responses are on (the fast mode), the segment then ending at `segment_end` and reading
  /// `discrete_after`; the responses keep their pieces. Returns false otherwise (the caller
  /// restarts). Unlike continue_across it evaluates nothing: continuity is the components' word.
  bool continue_unchanged(double t, const double* discrete_after, double segment_end);

  /// Whether components carry forced responses here (continue_across can succeed).
  [[nodiscard]] bool has_forced_responses() const noexcept;
  /// States the linear solver eliminates in small groups (0: KLU factors the whole matrix).
  [[nodiscard]] Index grouped_states() const noexcept;

  /// Integrates toward `t_out` (<= segment end). Returns `root_found` if an event function crossed
  /// zero first; `time()` and `state()` then hold the crossing. More than max_steps_per_output
  /// steps in one call fail with CV_TOO_MUCH_WORK, as CVODE's own limit would.
  /// With `only` (sorted, disjoint ranges), a t_out reached without a root brings state() to
  /// t_out on those states alone, each to the bits the whole state would have; the others keep
  /// values of earlier times until complete_state() (state_complete() is false until then).
  AdvanceResult advance(double t_out, const StateRanges* only = nullptr);
  /// Steps as advance(t_out) does before it forms the state, without forming it: CVODE's step time
  /// is then at or past t_out (advance(t) for t up to it only interpolates). A root found on the
  /// way is kept for the advance() that reaches it, and the result is false.
  bool step_past(double t_out);
  /// Upper bounds over [from, step_time()] of the states of `ranges` (sorted, disjoint) into
  /// upper[i]: the interpolant of CVODE's last step, sum_j z_j s^j with |s| <= s_max, is at most
  /// z_0 + sum_{j>=1} |z_j| s_max^j, and the forced responses add their own bounds
  /// (ForcedResponse::upper_bound_in). False when `from` is before the last step's start, when
  /// there is no last step, or when a response cannot bound its states. Valid until CVODE steps on.
  bool upper_bounds_since(double from, const StateRanges& ranges, double* upper);
  /// Where CVODE's last step started (step_time() less its length); step_time() before any step.
  [[nodiscard]] double last_step_start() const;
  /// Brings every state of state() to time() after an advance() that formed only some (nothing
  /// otherwise). Possible until the next advance() or restart(): CVODE's interpolation still
  /// reaches time() until it steps on.
  void complete_state();
  [[nodiscard]] bool state_complete() const noexcept { return complete_; }
  /// The first entry of state() that the last advance() or complete_state() formed and found not
  /// finite, or -1 (checked where the state is formed: a caller reads state() without a copy).
  [[nodiscard]] long first_non_finite_state() const noexcept { return not_finite_; }

  [[nodiscard]] double time() const noexcept { return t_; }
  [[nodiscard]] const std::vector<double>& state() const noexcept { return x_; }
  /// How far CVODE's steps have gone (>= time(): the state at time() is interpolated from the
  /// last step when it is earlier). A segment cannot be extended to end before it.
  [[nodiscard]] double step_time() const;
  /// Directions of the roots found by the last `advance` (+1 rising, -1 falling, 0 none).
  [[nodiscard]] const std::vector<int>& root_directions() const noexcept { return roots_; }
  /// Counters summed over all segments so far.
  [[nodiscard]] SolverStatistics statistics() const;

 private:
  /// CVODE's steps until its step time reaches t_out. A root at or before t_out ends them: its time
  /// is returned, unless `defer_roots`, which keeps it for advance() (pending) like one beyond t_out.
  /// NaN when no root ended them.
  double step_until(double t_out, bool defer_roots);
  /// Whether CVODE stopped at t = time() with forced responses on and a segment left to go to
  /// `segment_end`: what a continuation needs.
  [[nodiscard]] bool stopped_at(double t, double segment_end) const;
  /// Records where CVODE failed (time, state, the state with the largest weighted error) and throws.
  [[noreturn]] void fail(int flag, double t_reached);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  double t_ = 0.0;
  std::vector<double> x_;
  bool complete_ = true;  // every entry of x_ is the state at t_
  long not_finite_ = -1;  // first_non_finite_state()
  std::vector<int> roots_;
};

}  // namespace dctwin::solver
