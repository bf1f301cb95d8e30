// The component interface: components declare, the solver integrates.
//
// A component declares groups of continuous states (each with a name, unit and count), the outputs
// it records and the threshold events it watches. It implements a `const` derivative on the global
// state vector. The component holds parameters and topology only; the state values live in a plain
// vector owned by whoever runs the simulation, so a snapshot, a sweep member or a checkpoint is a
// copy of that vector. The assembler (`System`) assigns each state group its offset once.
//
// Derivatives are additive: the system zeroes xdot, then every component *adds* its terms to the
// rows it declared in `jacobian_pattern`. A node component (a lumped capacitance) adds to its own
// rows; a branch component (a conductance between two nodes) may add to the rows of the two nodes
// it joins. This is the structure of a thermal or electrical network, and it keeps the Jacobian
// sparse and exact.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/core/check.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/solver/forced_response.hpp"
#include "dctwin/solver/types.hpp"

namespace dctwin::solver {

/// A named block of continuous states of one component.
struct StateGroupSpec {
  std::string name;       ///< e.g. "junction_temperature"
  std::string unit;       ///< e.g. "K"
  std::string long_name;  ///< e.g. "GPU junction temperature"
  Index count = 1;
  /// True for integrals kept only for bookkeeping (energy delivered, energy removed): they have
  /// no steady state and the steady-state solver leaves them out.
  bool accumulator = false;
};

/// A named block of discrete states: the memory of a sampled controller (a PI integrator, a
/// governor's clock, a fan speed command). Constant between the controller's update times.
struct DiscreteGroupSpec {
  std::string name;
  std::string unit;
  std::string long_name;
  Index count = 1;
};

/// Collects the (row, col) positions of the Jacobian entries a component writes.
class PatternSink {
 public:
  virtual ~PatternSink() = default;
  virtual void add(Index row, Index col) = 0;
};

/// Receives Jacobian values; entries add up, like derivatives. Writing a position that was not
/// declared in `jacobian_pattern` is an internal error (aborts). A component may add from several
/// threads at once (solver/parallel.hpp's blocks) as long as no entry is added from two of them:
/// each entry has its own slot.
class JacobianSink {
 public:
  virtual ~JacobianSink() = default;
  virtual void add(Index row, Index col, double value) = 0;
};

/// What a threshold event does when it fires.
enum class EventAction {
  proceed,  ///< record it and go on
  stop,     ///< end the run early (a trip, a shutdown); the message says why
};

/// Result of handling an event.
struct EventOutcome {
  EventAction action = EventAction::proceed;
  std::string message;
};

class Component {
 public:
  explicit Component(std::string name);
  virtual ~Component() = default;
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  // ---- declarations (made in the constructor) -------------------------------------------------
  [[nodiscard]] const std::vector<StateGroupSpec>& state_groups() const noexcept { return groups_; }
  [[nodiscard]] Index state_count() const noexcept;
  [[nodiscard]] const std::vector<core::OutputSpec>& outputs() const noexcept { return outputs_; }
  [[nodiscard]] const std::vector<core::EntityTable>& entity_tables() const noexcept { return entities_; }
  [[nodiscard]] const std::vector<std::string>& event_names() const noexcept { return events_; }
  [[nodiscard]] const std::vector<DiscreteGroupSpec>& discrete_groups() const noexcept { return discrete_groups_; }
  [[nodiscard]] Index discrete_count() const noexcept;

  // ---- layout (assigned once by the System) ----------------------------------------------------
  /// Global index of element `i` of state group `group`. Inline: called for every state in every
  /// right-hand side and Jacobian evaluation; the checks stay on.
  [[nodiscard]] Index index(int group, Index i = 0) const {
    DCTWIN_DEMAND(assembled(), "state index requested before the system was assembled");
    DCTWIN_DEMAND(group >= 0 && group < static_cast<int>(groups_.size()), "state group out of range");
    DCTWIN_DEMAND(i >= 0 && i < groups_[static_cast<std::size_t>(group)].count, "state index out of range");
    return offsets_[static_cast<std::size_t>(group)] + i;
  }
  [[nodiscard]] bool assembled() const noexcept { return !offsets_.empty(); }
  /// Index of element `i` of discrete group `group` in the discrete state vector.
  [[nodiscard]] Index discrete_index(int group, Index i = 0) const {
    DCTWIN_DEMAND(assembled(), "discrete index requested before the system was assembled");
    DCTWIN_DEMAND(group >= 0 && group < static_cast<int>(discrete_groups_.size()), "discrete group out of range");
    DCTWIN_DEMAND(i >= 0 && i < discrete_groups_[static_cast<std::size_t>(group)].count, "discrete index out of range");
    return discrete_offsets_[static_cast<std::size_t>(group)] + i;
  }

  // ---- physics ---------------------------------------------------------------------------------
  /// Writes this component's initial state into its slice of the global vector `x`.
  virtual void initial_state(double* x) const = 0;

  /// Adds this component's terms of dx/dt to `xdot` (global vectors; `xdot` was zeroed).
  virtual void derivatives(const EvalContext& ctx, const double* x, double* xdot) const = 0;

  /// Declares every (row, col) this component adds to in `jacobian`.
  virtual void jacobian_pattern(PatternSink& pattern) const = 0;

  /// Adds d(xdot_row)/d(x_col) for the declared entries. The default differentiates
  /// `derivatives` numerically, column by column over the declared pattern; it is meant for small
  /// components and tests: large components give their Jacobian analytically.
  virtual void jacobian(const EvalContext& ctx, const double* x, JacobianSink& jac) const;

  /// The first time strictly after `t` at which this component's forcing jumps (a phase edge, a
  /// set-point change), or +infinity. The simulator stops exactly there and restarts.
  [[nodiscard]] virtual double next_discontinuity(double t) const;

  /// Writes the current values of this component's outputs. `values[k]` points to storage for
  /// output k of `outputs()`, with `count` elements.
  virtual void compute_outputs(const EvalContext& ctx, const double* x, double* const* values) const;

  /// Values of the event functions g_k(t, x); an event fires where g_k crosses zero.
  virtual void event_functions(const EvalContext& ctx, const double* x, double* g) const;

  /// Called when event k fired at time ctx.t; `rising` is true for a - to + crossing.
  virtual EventOutcome on_event(int k, bool rising, const EvalContext& ctx, const double* x) const;
  /// The states `event_functions` reads, or nullopt (the default) when it may read any. With every
  /// component's events declared, the integrator forms only those states of x when it evaluates
  /// the event functions (once per step). A declaration must cover every state read: the others
  /// hold values from other times.
  [[nodiscard]] virtual std::optional<StateRanges> states_read_by_events() const { return std::nullopt; }

  // ---- sampled (discrete-time) behaviour ----------------------------------------------------
  /// Writes the initial discrete state into its slice of `d`.
  virtual void initial_discrete(double* d) const;
  /// Sample period of this component's discrete updates [s]; 0 = none. Updates happen at
  /// start + k * period, as a controller's firmware clock ticks; each is a known discontinuity.
  [[nodiscard]] virtual double update_period() const { return 0.0; }
  /// The update at time ctx.t: reads the continuous state `x` and the discrete state as it was
  /// (`ctx.discrete`), writes the new discrete values into `d_next` (this component's slice only).
  /// On entry `d_next` holds the old values throughout (a copy of ctx.discrete, or that with the
  /// updates of other components due at the same time), so an entry that keeps its value need not
  /// be written. Returns true when the update may have changed
  /// the derivatives (a new clock, a new valve position); false when it changed nothing or only
  /// bookkeeping that the derivatives do not read, so that the integrator can go on without a
  /// restart.
  virtual bool update_discrete(const EvalContext& ctx, const double* x, double* d_next) const;
  /// Whether every change update_discrete makes leaves the derivatives (and the event functions)
  /// continuous at the update's time, as an actuator that moves on from where it is towards a new
  /// command does: the fast mode's integrator then goes on across it without evaluating both sides
  /// (CvodeIntegrator::continue_unchanged). The default: false.
  [[nodiscard]] virtual bool updates_are_continuous() const { return false; }
  /// The states `update_discrete` reads, or nullopt (the default) when it may read any. At a
  /// periodic update whose components (and observer) all declare theirs, the simulator forms only
  /// those states of the interpolated state (docs/solver.md, "States formed where they are read").
  /// A declaration must cover every state read: the others hold values from other times.
  [[nodiscard]] virtual std::optional<StateRanges> states_read_by_update() const { return std::nullopt; }
  /// Whether every periodic update in an interval would leave this component's discrete state as
  /// it is and return false, given the discrete state ctx.discrete (ctx.t: the interval's first
  /// tick) and `upper`: for each state of states_read_by_update(), a value that state stays at or
  /// below throughout the interval (other entries undefined). True lets the simulator leave out
  /// those ticks, all but the last of each integrator step (docs/solver.md, "Ticks at rest"); what
  /// such an update only records (running extremes, the sums the knots read) is then recorded at
  /// the ticks taken. The default: false.
  [[nodiscard]] virtual bool rests_over(const EvalContext& ctx, const double* upper) const {
    static_cast<void>(ctx), static_cast<void>(upper);
    return false;
  }

  /// Self-scheduled updates: the first time strictly after `t` at which this component's discrete
  /// state changes by its own schedule, as read from the discrete state `d` (a training phase that
  /// ends when its remaining work is done at the current clocks), or +infinity. The simulator
  /// stops exactly there and calls `scheduled_update`. It asks again after every update, so the
  /// time may move when a periodic update changes what it depends on.
  [[nodiscard]] virtual double next_scheduled_update(double t, const double* d) const;
  /// The self-scheduled update at ctx.t (same contract as `update_discrete`). Runs after the
  /// periodic updates due at the same time, reading their results.
  virtual bool scheduled_update(const EvalContext& ctx, const double* x, double* d_next) const;
  /// The closed-form part of this component's states that the integrator carries itself
  /// (forced_response.hpp), or nullptr. Created once per integrator; it may refer to the component.
  [[nodiscard]] virtual std::unique_ptr<ForcedResponse> make_forced_response() const { return nullptr; }

 protected:
  /// Declares a group of states; returns its handle for `index()`.
  int declare_state_group(StateGroupSpec spec);
  /// Declares a recorded output; returns its position in `outputs()`.
  int declare_output(core::OutputSpec spec);
  /// Declares the labels of an entity kind used by this component's outputs.
  void declare_entity_table(core::EntityTable table);
  /// Declares a threshold event; returns its position.
  int declare_event(std::string name);
  /// Declares a group of discrete states; returns its handle for `discrete_index()`.
  int declare_discrete_group(DiscreteGroupSpec spec);

 private:
  friend class System;
  std::string name_;
  std::vector<StateGroupSpec> groups_;
  std::vector<Index> offsets_;
  std::vector<core::OutputSpec> outputs_;
  std::vector<core::EntityTable> entities_;
  std::vector<std::string> events_;
  std::vector<DiscreteGroupSpec> discrete_groups_;
  std::vector<Index> discrete_offsets_;
  Index global_size_ = 0;  // size of the global state vector, for the numerical Jacobian
};

}  // namespace dctwin::solver
