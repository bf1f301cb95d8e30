#include "dctwin/solver/simulator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "dctwin/core/check.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::solver {

namespace {
using WallClock = std::chrono::steady_clock;

[[nodiscard]] double seconds_since(WallClock::time_point start) {
  return std::chrono::duration<double>(WallClock::now() - start).count();
}

/// Adds the wall time from its construction to its destruction to `part` [s].
class PartTimer {
 public:
  explicit PartTimer(double& part) : part_(part), start_(WallClock::now()) {}
  PartTimer(const PartTimer&) = delete;
  PartTimer& operator=(const PartTimer&) = delete;
  ~PartTimer() { part_ += seconds_since(start_); }

 private:
  double& part_;
  WallClock::time_point start_;
};
}  // namespace

Simulator::Simulator(const System& system, SimulationSettings settings)
    : system_(system), settings_(settings) {
  DCTWIN_DEMAND(system_.assembled(), "assemble the system before simulating");
  DCTWIN_DEMAND(settings_.end_time > settings_.start_time, "the end time must follow the start time");
  DCTWIN_DEMAND(settings_.output_interval > 0.0, "the output interval must be positive");
}

SimulationStatus Simulator::run(SimulationObserver& observer, const std::atomic<bool>* cancel) {
  return run(system_.initial_state(), observer, cancel);
}

namespace {

/// Copies shorter than this stay on the calling thread [elements].
constexpr std::size_t parallel_copy_minimum = 16384;

/// Two times closer than this are one instant [s]: 64 ulps of t (and of 1 s near zero).
double time_resolution(double t) { return 64.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t)); }

/// Sample times start + k * interval (by multiplication, so they do not drift), then the end.
class SampleClock {
 public:
  SampleClock(double start, double end, double interval) : start_(start), end_(end), interval_(interval) {}
  [[nodiscard]] double next() const {
    const double t = start_ + static_cast<double>(k_) * interval_;
    return t < end_ ? t : end_;
  }
  [[nodiscard]] bool done() const { return done_; }
  void advance() {
    if (next() >= end_) done_ = true;
    ++k_;
  }

 private:
  double start_, end_, interval_;
  long k_ = 0;
  bool done_ = false;
};

/// to = from, in blocks (both cores for the hall's 100,000 states at every governor tick).
void copy_in_blocks(const std::vector<double>& from, std::vector<double>& to) {
  to.resize(from.size());
  for_each_block(from.size(), [&](const BlockRange& block) {
    std::copy(from.begin() + static_cast<std::ptrdiff_t>(block.first),
              from.begin() + static_cast<std::ptrdiff_t>(block.last), to.begin() + static_cast<std::ptrdiff_t>(block.first));
  }, parallel_copy_minimum);
}

/// One run of Simulator::run: the loop's state, and its parts as methods. Each pass of the loop at
/// time t takes the discrete updates due at t (update_at_t), then sets up the smooth segment that
/// follows (start_segment) and integrates it (integrate_segment) up to the next time an update is
/// due, sampling on the way. The results go to the simulator's statistics and final states.
class RunLoop {
 public:
  RunLoop(const System& system, const SimulationSettings& settings, SimulationObserver& observer,
          const std::atomic<bool>* cancel, std::vector<double> initial, SolverStatistics& statistics,
          std::vector<double>& final_state, std::vector<double>& final_discrete);
  SimulationStatus run();

 private:
  // Each clock counts its periodic updates since the last one that changed the forcing in a way
  // the integrator could go on across (a governor moved a clock, a fan controller wrote a speed
  // the rotors follow). For a while after such a change CVODE stops at every update of that clock,
  // so that the next one can be continued too; then it steps across them again. A change it
  // cannot go on across (a setting that jumps) does not make CVODE stop: it restarts anyway.
  static constexpr long quiet_ticks_before_stepping_across = 20;
  // Sampled components tick at start + k * period (by multiplication: no drift).
  struct Clock {
    const Component* component;
    double period;
    long k;
    std::optional<StateRanges> reads;  // the states its update reads (nullopt: any)
    long quiet = quiet_ticks_before_stepping_across;
    bool changed_now = false;  // its update at the present t changed the forcing
    [[nodiscard]] double next(double start) const { return start + static_cast<double>(k) * period; }
  };

  // The parts of a pass; each returns the status when the run stops there.
  std::optional<SimulationStatus> update_at_t();
  std::optional<SimulationStatus> start_segment();
  std::optional<SimulationStatus> integrate_segment();

  [[nodiscard]] double next_update() const;
  [[nodiscard]] double next_scheduled() const;
  void reschedule();
  const StateRanges* states_read_at(double at);
  bool complete_x();
  void sample(double at);
  bool skip_ticks_at_rest(double first);
  std::optional<SimulationStatus> handle_roots();
  [[nodiscard]] bool cancel_requested() const { return cancel_ != nullptr && cancel_->load(std::memory_order_relaxed); }
  SimulationStatus finish(SimulationStatus status);
  SimulationStatus stop_not_finite();
  SimulationStatus stop_on_request();

  const System& system_;
  const SimulationSettings& settings_;
  SimulationObserver& observer_;
  const std::atomic<bool>* cancel_;
  SolverStatistics& statistics_;
  std::vector<double>& final_state_;
  std::vector<double>& final_discrete_;

  RunWallTimes times_;
  WallClock::time_point run_start_ = WallClock::now();
  std::vector<double> initial_;
  CvodeIntegrator integrator_;
  // The state at t: the initial state until the integrator starts, then the integrator's own,
  // read where it is formed (no copy per tick; the integrator checks what it forms for values
  // that are not finite).
  const std::vector<double>* x_ = &initial_;
  std::vector<double> outputs_;
  SampleClock clock_;
  double t_;
  double segment_start_;
  std::vector<double> discrete_;
  std::vector<double> discrete_next_;
  std::vector<double> discrete_before_;
  std::vector<Clock> clocks_;

  const bool knots_;
  // States formed where they are read: at a periodic update that is all it needs (the interpolated
  // state at a tick of the GPUs' governors is read by them and the knots alone), only the states
  // its components and the knots read are formed, and the rest of x only when something else
  // wants it (complete_x). x_complete_ says whether every entry of x is the state at t.
  std::optional<StateRanges> knot_reads_;
  std::vector<char> due_, cached_due_;
  StateRanges tick_ranges_;
  bool tick_ranges_known_ = false, tick_ranges_declared_ = false;
  // Ticks at rest (IntegratorSettings::skip_ticks_at_rest): the states the clocks' components
  // read, of those that declare them (the others' ticks are always taken); the bounds of those
  // states over a step; the ticks left out.
  std::optional<StateRanges> rest_reads_;
  std::vector<double> rest_upper_;
  long ticks_at_rest_ = 0;
  // The end of the last CVODE step over which a component could not be proved at rest: its other
  // ticks are not checked again.
  double unrested_step_end_ = std::numeric_limits<double>::quiet_NaN();
  bool x_complete_ = true;
  long not_finite_state_ = -1;
  double last_sample_ = std::numeric_limits<double>::quiet_NaN();  // time of the last sample taken
  long events_ = 0;

  // Self-scheduled update times of each component, asked again after every update.
  std::vector<double> scheduled_;
  bool restart_needed_ = true;  // the first segment starts the integrator
  double forcing_edge_ = -std::numeric_limits<double>::infinity();
  double integrator_segment_end_ = -std::numeric_limits<double>::infinity();
  // The segment being integrated: its end, and the next periodic update in it.
  double segment_end_ = 0.0;
  double tick_ = 0.0;
};

RunLoop::RunLoop(const System& system, const SimulationSettings& settings, SimulationObserver& observer,
                 const std::atomic<bool>* cancel, std::vector<double> initial, SolverStatistics& statistics,
                 std::vector<double>& final_state, std::vector<double>& final_discrete)
    : system_(system),
      settings_(settings),
      observer_(observer),
      cancel_(cancel),
      statistics_(statistics),
      final_state_(final_state),
      final_discrete_(final_discrete),
      initial_(std::move(initial)),
      integrator_(system, settings.integrator),
      outputs_(system.output_value_count(), 0.0),
      clock_(settings.start_time, settings.end_time, settings.output_interval),
      t_(settings.start_time),
      segment_start_(settings.start_time),
      discrete_(system.initial_discrete()),
      discrete_next_(discrete_),
      knots_(observer.wants_knots()),
      knot_reads_(knots_ ? observer.states_read_by_knots() : StateRanges{}),
      scheduled_(system.components().size(), std::numeric_limits<double>::infinity()) {
  for (const auto& c : system_.components()) {
    const double period = c->update_period();
    DCTWIN_DEMAND(period >= 0.0 && std::isfinite(period), "an update period must be finite and >= 0");
    if (period > 0.0) clocks_.push_back({c.get(), period, 0, c->states_read_by_update()});
  }
  if (settings_.integrator.skip_ticks_at_rest) {
    StateRanges all;
    for (const auto& c : clocks_)
      if (c.reads) all.insert(all.end(), c.reads->begin(), c.reads->end());
    if (std::any_of(clocks_.begin(), clocks_.end(), [](const Clock& c) { return c.reads.has_value(); }))
      rest_reads_ = merge_state_ranges(std::move(all));
  }
  rest_upper_.resize(rest_reads_ ? x_->size() : 0);
}

double RunLoop::next_update() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& c : clocks_) next = std::min(next, c.next(settings_.start_time));
  return next;
}

double RunLoop::next_scheduled() const {
  return scheduled_.empty() ? settings_.end_time : *std::min_element(scheduled_.begin(), scheduled_.end());
}

void RunLoop::reschedule() {
  const auto& components = system_.components();
  for (std::size_t k = 0; k < components.size(); ++k) {
    scheduled_[k] = components[k]->next_scheduled_update(t_, discrete_.data());
    DCTWIN_DEMAND(!(scheduled_[k] <= t_), "next_scheduled_update must be strictly later than t");
  }
}

// The states the periodic updates due at `at` and the knots read, or null when one of them may
// read any state.
const StateRanges* RunLoop::states_read_at(double at) {
  due_.resize(clocks_.size());
  for (std::size_t k = 0; k < clocks_.size(); ++k) due_[k] = clocks_[k].next(settings_.start_time) <= at ? 1 : 0;
  if (!tick_ranges_known_ || due_ != cached_due_) {
    cached_due_ = due_;
    tick_ranges_known_ = true;
    tick_ranges_declared_ = knot_reads_.has_value();
    StateRanges all = tick_ranges_declared_ ? *knot_reads_ : StateRanges{};
    for (std::size_t k = 0; k < clocks_.size() && tick_ranges_declared_; ++k) {
      if (!due_[k]) continue;
      if (!clocks_[k].reads) tick_ranges_declared_ = false;
      else all.insert(all.end(), clocks_[k].reads->begin(), clocks_[k].reads->end());
    }
    tick_ranges_ = merge_state_ranges(std::move(all));
  }
  return tick_ranges_declared_ ? &tick_ranges_ : nullptr;
}

// Forms the rest of x after an update that formed only what it reads; false when a state is not
// finite (not_finite_state_).
bool RunLoop::complete_x() {
  if (x_complete_) return true;
  const PartTimer timer(times_.integration);
  integrator_.complete_state();
  x_complete_ = true;
  not_finite_state_ = integrator_.first_non_finite_state();
  return not_finite_state_ < 0;
}

void RunLoop::sample(double at) {
  last_sample_ = at;
  if (knots_) {
    const PartTimer timer(times_.knots);
    observer_.on_knot(at, *x_, discrete_, discrete_);
  }
  const PartTimer timer(times_.samples);
  system_.compute_outputs(EvalContext{at, segment_start_, discrete_.data()}, x_->data(), outputs_.data());
  observer_.on_sample(at, *x_, outputs_);
}

SimulationStatus RunLoop::finish(SimulationStatus status) {
  if (!x_complete_) {  // a state not finite stopped the run at a tick that formed x in part
    integrator_.complete_state();
    x_ = &integrator_.state();
    x_complete_ = true;
  }
  statistics_ = integrator_.statistics();
  statistics_.events = events_;
  statistics_.ticks_at_rest = ticks_at_rest_;
  times_.total = seconds_since(run_start_);
  times_.interpolation = statistics_.wall_time.interpolation;  // measured by the integrator
  statistics_.wall_time = times_;
  final_state_ = *x_;
  final_discrete_ = discrete_;
  status.time = t_;
  return status;
}

SimulationStatus RunLoop::stop_not_finite() {
  x_complete_ = true;  // x as it is: the state that failed
  return finish({StopReason::solver_failure, t_, "",
                 "state " + system_.state_name(static_cast<Index>(not_finite_state_)) + " is not finite"});
}

// The state at t is the last sample (not twice, when a sample was just taken at t).
SimulationStatus RunLoop::stop_on_request() {
  if (!complete_x()) return stop_not_finite();
  if (!(last_sample_ == t_)) sample(t_);
  return finish({StopReason::interrupted, t_, "", "stopped on request"});
}

SimulationStatus RunLoop::run() {
  reschedule();
  while (true) {
    // Every pass of either loop checks the request to stop: with updates due closer together
    // than the time resolution, this loop may run many times at one t without a step.
    if (cancel_requested()) return stop_on_request();
    if (auto stop = update_at_t()) return *stop;
    if (t_ >= settings_.end_time) break;
    if (auto stop = start_segment()) return *stop;
    if (auto stop = integrate_segment()) return *stop;
  }
  return finish({StopReason::finished, t_, "", ""});
}

// t ends the previous piece of integration. Discrete updates due now run first: periodic ones
// (all reading the discrete state as it was), then self-scheduled ones (reading the result). The
// integrator restarts only when the forcing may have changed: at a forcing edge, or when an update
// says so; otherwise it goes on with its history. Then the knot, and the sample due at t.
std::optional<SimulationStatus> RunLoop::update_at_t() {
  const double t = t_;
  const bool at_forcing_edge = t >= forcing_edge_;
  if (at_forcing_edge) restart_needed_ = true;
  const bool first_segment = restart_needed_;
  // The discrete state before the updates, for the observer's knots and for continue_across:
  // `discrete_` itself until an update changes it, then the old vector, swapped into
  // discrete_before_ (one copy of the discrete state per tick, not two).
  const bool keep_before = knots_ || integrator_.has_forced_responses();
  bool before_kept = false;
  auto take_updates = [&] {
    if (keep_before && !before_kept) {
      std::swap(discrete_before_, discrete_);
      before_kept = true;
    }
    copy_in_blocks(discrete_next_, discrete_);
  };
  bool updated = false;
  bool tick_changed_forcing = false;
  for (auto& c : clocks_) {
    c.changed_now = false;
    if (c.next(settings_.start_time) > t) continue;
    const PartTimer timer(times_.periodic_updates);
    c.changed_now = c.component->update_discrete(EvalContext{t, t, discrete_.data()}, x_->data(), discrete_next_.data());
    tick_changed_forcing |= c.changed_now;
    if (!c.changed_now) ++c.quiet;
    ++c.k;
    updated = true;
  }
  restart_needed_ |= tick_changed_forcing;
  if (updated) {
    const PartTimer timer(times_.periodic_updates);
    take_updates();
  }
  // Beyond the periodic updates (and the knots), everything below reads the whole state.
  const bool scheduled_due = std::any_of(scheduled_.begin(), scheduled_.end(), [&](double s) { return s <= t; });
  if ((scheduled_due || restart_needed_ || !knot_reads_ || t >= settings_.end_time ||
       (!clock_.done() && clock_.next() == t)) &&
      !complete_x()) {
    return stop_not_finite();
  }
  const auto& components = system_.components();
  bool scheduled_ran = false, scheduled_changed = false;
  for (std::size_t k = 0; k < components.size(); ++k) {
    if (scheduled_[k] > t) continue;
    const PartTimer timer(times_.scheduled_updates);
    scheduled_changed |=
        components[k]->scheduled_update(EvalContext{t, t, discrete_.data()}, x_->data(), discrete_next_.data());
    scheduled_ran = true;
  }
  restart_needed_ |= scheduled_changed;
  if (scheduled_ran) {
    const PartTimer timer(times_.scheduled_updates);
    take_updates();
  }
  if (updated || scheduled_ran) reschedule();
  const std::vector<double>& before = before_kept ? discrete_before_ : discrete_;
  if (knots_) {
    const PartTimer timer(times_.knots);
    observer_.on_knot(t, *x_, before, discrete_);
  }
  // An update that changed the forcing need not restart the integrator when the forced
  // responses absorb the change, or when every change was continuous (integrator.hpp); forcing
  // edges always restart.
  bool continued = false, not_absorbed = false;
  if (restart_needed_ && !at_forcing_edge && !first_segment && t < settings_.end_time) {
    const bool integrator_at_t = integrator_.step_time() - t <= time_resolution(t);
    const double end = std::min({system_.next_discontinuity(t), next_scheduled(), settings_.end_time});
    const bool all_continuous = !scheduled_changed && std::all_of(clocks_.begin(), clocks_.end(), [](const Clock& c) {
      return !c.changed_now || c.component->updates_are_continuous();
    });
    {
      const PartTimer timer(times_.continuations);
      continued = all_continuous ? integrator_.continue_unchanged(t, discrete_.data(), end)
                                 : integrator_.continue_across(t, *x_, before.data(), discrete_.data(), end);
    }
    not_absorbed = integrator_at_t && !continued;
    if (continued) {
      restart_needed_ = false;
      integrator_segment_end_ = end;
      segment_start_ = t;
    }
  }
  // A restart at t (a change the integrator could not go on across) makes CVODE step across the
  // next ticks of the clocks whose change it was; a clock whose changes are continuous keeps
  // stopping it at its ticks, where they can be.
  for (auto& c : clocks_)
    if (c.changed_now)
      c.quiet = not_absorbed && !c.component->updates_are_continuous() ? quiet_ticks_before_stepping_across : 0;
  // A new smooth segment starts at t when the integrator restarts (or continues across a
  // change). Samples due exactly here see the forcing of this segment (outputs are
  // right-continuous at forcing edges).
  if (restart_needed_) segment_start_ = t;
  if (!clock_.done() && clock_.next() == t) {
    sample(t);
    clock_.advance();
  }
  return std::nullopt;
}

// Periodic updates do not end a segment: CVODE steps across their times and the state there is
// its interpolant (dense output, as for the samples), so a controller ticking every 0.1 s does not
// bound the step size. An update that changes the derivatives restarts the integrator at its own
// time from that state; the steps taken beyond it are dropped.
std::optional<SimulationStatus> RunLoop::start_segment() {
  forcing_edge_ = system_.next_discontinuity(t_);
  segment_end_ = std::min({forcing_edge_, next_scheduled(), settings_.end_time});
  if (integrator_.has_forced_responses())
    for (const auto& c : clocks_)
      if (c.quiet < quiet_ticks_before_stepping_across) segment_end_ = std::min(segment_end_, c.next(settings_.start_time));
  if (restart_needed_ || segment_end_ < integrator_.step_time()) {
    if (!complete_x()) return stop_not_finite();
    const PartTimer timer(times_.restarts);
    integrator_.restart(t_, *x_, segment_end_, discrete_.data());
    x_ = &integrator_.state();
    restart_needed_ = false;
  } else if (segment_end_ != integrator_segment_end_) {
    integrator_.extend(segment_end_);
  }
  integrator_segment_end_ = segment_end_;
  tick_ = next_update();
  return std::nullopt;
}

// With CVODE's step past `first` (a tick), the ticks from `first` up to the last one inside the
// step are left out when every component due at them rests over the step (Component::rests_over,
// with the states they read bounded over the step); the last tick, and any at or after a sample,
// the segment's end or a tick of a component that does not declare its reads, are taken as usual.
// Returns whether any was.
bool RunLoop::skip_ticks_at_rest(double first) {
  const double step_end = integrator_.step_time();
  double last = first;
  for (const auto& c : clocks_) {
    long k = c.k;
    if (c.next(settings_.start_time) > step_end) continue;
    while (settings_.start_time + static_cast<double>(k + 1) * c.period <= step_end) ++k;
    last = std::max(last, settings_.start_time + static_cast<double>(k) * c.period);
  }
  double cutoff = std::min({last, clock_.done() ? segment_end_ : clock_.next(), segment_end_});
  for (const auto& c : clocks_)  // a component that does not declare its reads cannot be bounded
    if (!c.reads) cutoff = std::min(cutoff, c.next(settings_.start_time));
  if (!(cutoff > first)) return false;
  // Not in the first step after a forcing change, nor soon after it: the responses' fastest
  // transients are there.
  if (!(integrator_.last_step_start() > segment_start_) ||
      first < segment_start_ + settings_.integrator.ticks_taken_after_forcing_change)
    return false;
  if (step_end == unrested_step_end_) return false;
  unrested_step_end_ = step_end;
  if (!integrator_.upper_bounds_since(first, *rest_reads_, rest_upper_.data())) return false;
  const EvalContext ctx{first, segment_start_, discrete_.data()};
  for (const auto& c : clocks_)
    if (c.next(settings_.start_time) < cutoff && !c.component->rests_over(ctx, rest_upper_.data())) return false;
  unrested_step_end_ = std::numeric_limits<double>::quiet_NaN();
  for (auto& c : clocks_) {
    for (; c.next(settings_.start_time) < cutoff; ++c.k) {
      ++ticks_at_rest_;
      ++c.quiet;
    }
  }
  return true;
}

// The events whose roots CVODE found at t, in their order; the status when one stops the run.
std::optional<SimulationStatus> RunLoop::handle_roots() {
  const auto& directions = integrator_.root_directions();
  for (int k = 0; k < system_.event_count(); ++k) {
    const int direction = directions[static_cast<std::size_t>(k)];
    if (direction == 0) continue;
    const auto [component, local] = system_.event_owner(k);
    const EventOutcome outcome =
        component->on_event(local, direction > 0, EvalContext{t_, segment_start_, discrete_.data()}, x_->data());
    ++events_;
    observer_.on_event(t_, component->name(), component->event_names()[static_cast<std::size_t>(local)],
                       outcome.message);
    if (outcome.action == EventAction::stop) {
      sample(t_);
      return finish({StopReason::event, t_, component->name(), outcome.message});
    }
  }
  return std::nullopt;
}

// CVODE from t to the segment's end, or to the next periodic update: back to the top then. On the
// way the samples, the ticks left out at rest, and the events.
std::optional<SimulationStatus> RunLoop::integrate_segment() {
  while (t_ < segment_end_) {
    if (t_ >= tick_) break;  // periodic updates are due: back to the top, then on
    const double target = std::min({clock_.done() ? segment_end_ : clock_.next(), tick_, segment_end_});
    // Times a few ulps apart (a sample at start + k * interval next to a phase end computed
    // otherwise) are the same instant: no integration step is that short. A sample due at a
    // segment end or at a periodic update is taken at the top, after the updates.
    if (target - t_ <= time_resolution(t_)) {
      t_ = target;
      if (t_ < segment_end_ && t_ < tick_ && !clock_.done() && t_ == clock_.next()) {
        sample(t_);
        clock_.advance();
      }
      // No step is taken here, so a run of such instants (samples closer than the resolution)
      // must not keep the request to stop waiting.
      if (cancel_requested()) return stop_on_request();
      continue;
    }
    AdvanceResult result;
    // A periodic update that is neither a sample's time nor the segment's end: it forms only the
    // states it reads, and it may be left out at rest.
    const bool tick_alone = target == tick_ && tick_ < segment_end_ && (clock_.done() || clock_.next() != tick_);
    const StateRanges* only = tick_alone ? states_read_at(tick_) : nullptr;
    const auto integration_start = WallClock::now();  // to the state's copy below
    double rest_check = 0.0;  // of that, checking ticks at rest [s] (with the periodic updates)
    bool skipped = false;
    try {
      if (tick_alone && rest_reads_ && integrator_.step_past(target)) {
        const auto check_start = WallClock::now();
        skipped = skip_ticks_at_rest(target);
        rest_check = seconds_since(check_start);
      }
      if (!skipped) result = integrator_.advance(target, only);
    } catch (const SolverError& e) {
      times_.integration += seconds_since(integration_start) - rest_check;
      times_.periodic_updates += rest_check;
      t_ = integrator_.time();
      x_ = &integrator_.state();
      x_complete_ = true;
      // Name the component whose state had the largest weighted error when CVODE gave up.
      std::string component, detail = e.what();
      if (e.state() >= 0 && e.state() < system_.size()) {
        component = system_.state_component(static_cast<Index>(e.state()));
        detail += " (largest local error: " + system_.state_name(static_cast<Index>(e.state())) + ")";
      }
      return finish({StopReason::solver_failure, t_, component, detail});
    }
    times_.periodic_updates += rest_check;
    if (skipped) {
      times_.integration += seconds_since(integration_start) - rest_check;
      tick_ = next_update();
      continue;  // on to the tick that remains
    }
    t_ = integrator_.time();
    x_complete_ = integrator_.state_complete();
    x_ = &integrator_.state();
    const long bad = integrator_.first_non_finite_state();
    times_.integration += seconds_since(integration_start) - rest_check;
    if (bad >= 0) {
      return finish({StopReason::solver_failure, t_, "",
                     "state " + system_.state_name(static_cast<Index>(bad)) + " is not finite"});
    }
    observer_.on_progress(t_);

    if (result == AdvanceResult::root_found) {
      if (auto stop = handle_roots()) return stop;
      continue;
    }
    if (t_ < segment_end_ && t_ < tick_ && !clock_.done() && t_ == clock_.next()) {
      sample(t_);
      clock_.advance();
    }
    if (cancel_requested()) return stop_on_request();
  }
  return std::nullopt;
}

}  // namespace

SimulationStatus Simulator::run(std::vector<double> initial, SimulationObserver& observer,
                                const std::atomic<bool>* cancel) {
  DCTWIN_DEMAND(static_cast<Index>(initial.size()) == system_.size(), "initial state of the wrong size");
  statistics_ = {};
  RunLoop loop(system_, settings_, observer, cancel, std::move(initial), statistics_, final_state_, final_discrete_);
  return loop.run();
}

}  // namespace dctwin::solver
