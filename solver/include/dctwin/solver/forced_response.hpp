#pragma once
// A known, closed-form part of some states' trajectories that the integrator carries outside its
// steps: the integrator follows y = x - r(t) instead of x (docs/solver.md, "Forced responses").
//
// With x' = f(t, x), the shifted states obey  y' = f(t, y + r(t)) - r'(t),  an exact rewriting for
// any differentiable r. A component whose states jump in slope when its forcing steps (a GPU's
// power at a phase edge) supplies an r that takes the same jump: then y' stays continuous across
// the edge and the integrator goes on with its step size, order and history instead of
// restarting, and the fast transient after each edge lives in r, not in y.

#include <vector>

#include "dctwin/solver/types.hpp"

namespace dctwin::solver {

class ForcedResponse {
 public:
  virtual ~ForcedResponse() = default;
  /// Starts over at ctx.t (the integrator restarts) with the forcing of ctx.discrete and the
  /// coefficients of the segment that starts there; r(t) may take any value.
  virtual void reset(const EvalContext& ctx, const double* x) = 0;
  /// Goes on at ctx.t with the forcing of ctx.discrete: r stays continuous at t, r' takes the jump
  /// of the new forcing. The coefficients stay those of the last reset.
  virtual void reanchor(const EvalContext& ctx, const double* x) = 0;
  /// reanchor() when r(ctx.t) of the present pieces is at hand in `r_now` (full size, as
  /// evaluate() wrote it at ctx.t): a response may start its new pieces from those values instead
  /// of forming them again, to the same bits. The default forms them (reanchor()).
  virtual void reanchor_from(const EvalContext& ctx, const double* x, const double* r_now) {
    static_cast<void>(r_now);
    reanchor(ctx, x);
  }
  /// Writes r(t) and r'(t) of the covered states into the full-size arrays r and r_dot (other
  /// entries untouched); t is at or after the last reset or reanchor. r_dot is null when only r
  /// is wanted (the state at a requested time, the Jacobian, the event functions).
  virtual void evaluate(double t, double* r, double* r_dot) const = 0;
  /// Writes r(t) at least of the covered states in `ranges` (sorted, disjoint) into r; other
  /// entries may be written too. The default evaluates every covered state; a response whose
  /// states can be formed in part overrides it (the state at a periodic update, the event
  /// functions: docs/solver.md, "States formed where they are read").
  virtual void evaluate_in(double t, double* r, const StateRanges& ranges) const {
    static_cast<void>(ranges);
    evaluate(t, r, nullptr);
  }
  /// Writes into r_upper (full size), for at least the covered states in `ranges` and for no state
  /// it does not cover, a bound that r stays at or below at every time from the present pieces'
  /// start on (until the next reset or re-anchoring), so that the integrator can bound the state
  /// over a step without forming it at each time (docs/solver.md, "Ticks at rest"). Returns false
  /// when it cannot bound them: the default.
  virtual bool upper_bound_in(double* r_upper, const StateRanges& ranges) const {
    static_cast<void>(r_upper), static_cast<void>(ranges);
    return false;
  }
  /// The states evaluate() writes.
  [[nodiscard]] virtual std::vector<Index> covered_states() const = 0;
};

}  // namespace dctwin::solver
