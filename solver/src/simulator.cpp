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

}  // namespace

SimulationStatus Simulator::run(std::vector<double> initial, SimulationObserver& observer,
                                const std::atomic<bool>* cancel) {
  DCTWIN_DEMAND(static_cast<Index>(initial.size()) == system_.size(), "initial state of the wrong size");
  statistics_ = {};
  RunWallTimes times;
  const auto run_start = WallClock::now();
  CvodeIntegrator integrator(system_, settings_.integrator);
  // The state at t: the initial state until the integrator starts, then the integrator's own,
  // read where it is formed (no copy per tick; the integrator checks what it forms for values
  // that are not finite).
  const std::vector<double>* x = &initial;
  std::vector<double> outputs(system_.output_value_count(), 0.0);
  SampleClock clock(settings_.start_time, settings_.end_time, settings_.output_interval);

  double t = settings_.start_time;
  double segment_start = t;
  std::vector<double> discrete = system_.initial_discrete();
  std::vector<double> discrete_next = discrete;

  // Sampled components tick at start + k * period (by multiplication: no drift).
  struct Clock {
    const Component* component;
    double period;
    long k;
    std::optional<StateRanges> reads;  // the states its update reads (nullopt: any)
    [[nodiscard]] double next(double start) const { return start + static_cast<double>(k) * period; }
  };
  std::vector<Clock> clocks;
  for (const auto& c : system_.components()) {
    const double period = c->update_period();
    DCTWIN_DEMAND(period >= 0.0 && std::isfinite(period), "an update period must be finite and >= 0");
    if (period > 0.0) clocks.push_back({c.get(), period, 0, c->states_read_by_update()});
  }
  auto next_update = [&] {
    double next = std::numeric_limits<double>::infinity();
    for (const auto& c : clocks) next = std::min(next, c.next(settings_.start_time));
    return next;
  };

  const bool knots = observer.wants_knots();
  // States formed where they are read: at a periodic update that is all it needs (the interpolated
  // state at a tick of the GPUs' governors is read by them and the knots alone), only the states
  // its components and the knots read are formed, and the rest of x only when something else
  // wants it (complete_x). x_complete says whether every entry of x is the state at t.
  const std::optional<StateRanges> knot_reads = knots ? observer.states_read_by_knots() : StateRanges{};
  std::vector<char> due, cached_due;
  StateRanges tick_ranges;
  bool tick_ranges_known = false, tick_ranges_declared = false;
  // The states the periodic updates due at `at` and the knots read, or null when one of them may
  // read any state.
  auto states_read_at = [&](double at) -> const StateRanges* {
    due.resize(clocks.size());
    for (std::size_t k = 0; k < clocks.size(); ++k) due[k] = clocks[k].next(settings_.start_time) <= at ? 1 : 0;
    if (!tick_ranges_known || due != cached_due) {
      cached_due = due;
      tick_ranges_known = true;
      tick_ranges_declared = knot_reads.has_value();
      StateRanges all = tick_ranges_declared ? *knot_reads : StateRanges{};
      for (std::size_t k = 0; k < clocks.size() && tick_ranges_declared; ++k) {
        if (!due[k]) continue;
        if (!clocks[k].reads) tick_ranges_declared = false;
        else all.insert(all.end(), clocks[k].reads->begin(), clocks[k].reads->end());
      }
      tick_ranges = merge_state_ranges(std::move(all));
    }
    return tick_ranges_declared ? &tick_ranges : nullptr;
  };
  // Ticks at rest (IntegratorSettings::skip_ticks_at_rest): the states the clocks' components
  // read, of those that declare them (the others' ticks are always taken); the bounds of those
  // states over a step; the ticks left out.
  std::optional<StateRanges> rest_reads;
  if (settings_.integrator.skip_ticks_at_rest) {
    StateRanges all;
    for (const auto& c : clocks)
      if (c.reads) all.insert(all.end(), c.reads->begin(), c.reads->end());
    if (std::any_of(clocks.begin(), clocks.end(), [](const Clock& c) { return c.reads.has_value(); }))
      rest_reads = merge_state_ranges(std::move(all));
  }
  std::vector<double> rest_upper(rest_reads ? x->size() : 0);
  long ticks_at_rest = 0;
  // The end of the last CVODE step over which a component could not be proved at rest: its other
  // ticks are not checked again.
  double unrested_step_end = std::numeric_limits<double>::quiet_NaN();
  bool x_complete = true;
  long not_finite_state = -1;
  // Forms the rest of x after an update that formed only what it reads; false when a state is
  // not finite (not_finite_state).
  auto complete_x = [&] {
    if (x_complete) return true;
    const PartTimer timer(times.integration);
    integrator.complete_state();
    x_complete = true;
    not_finite_state = integrator.first_non_finite_state();
    return not_finite_state < 0;
  };
  std::vector<double> discrete_before;
  double last_sample = std::numeric_limits<double>::quiet_NaN();  // time of the last sample taken
  auto sample = [&](double at) {
    last_sample = at;
    if (knots) {
      const PartTimer timer(times.knots);
      observer.on_knot(at, *x, discrete, discrete);
    }
    const PartTimer timer(times.samples);
    system_.compute_outputs(EvalContext{at, segment_start, discrete.data()}, x->data(), outputs.data());
    observer.on_sample(at, *x, outputs);
  };
  long events = 0;
  auto finish = [&](SimulationStatus status) {
    if (!x_complete) {  // a state not finite stopped the run at a tick that formed x in part
      integrator.complete_state();
      x = &integrator.state();
      x_complete = true;
    }
    statistics_ = integrator.statistics();
    statistics_.events = events;
    statistics_.ticks_at_rest = ticks_at_rest;
    times.total = seconds_since(run_start);
    times.interpolation = statistics_.wall_time.interpolation;  // measured by the integrator
    statistics_.wall_time = times;
    final_state_ = *x;
    final_discrete_ = discrete;
    status.time = t;
    return status;
  };
  auto stop_not_finite = [&] {
    x_complete = true;  // x as it is: the state that failed
    return finish({StopReason::solver_failure, t, "",
                   "state " + system_.state_name(static_cast<Index>(not_finite_state)) + " is not finite"});
  };

  auto cancel_requested = [&] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
  // The state at t is the last sample (not twice, when a sample was just taken at t).
  auto stop_on_request = [&] {
    if (!complete_x()) return stop_not_finite();
    if (!(last_sample == t)) sample(t);
    return finish({StopReason::interrupted, t, "", "stopped on request"});
  };

  // Self-scheduled update times of each component, asked again after every update.
  const auto& components = system_.components();
  std::vector<double> scheduled(components.size(), std::numeric_limits<double>::infinity());
  auto reschedule = [&] {
    for (std::size_t k = 0; k < components.size(); ++k) {
      scheduled[k] = components[k]->next_scheduled_update(t, discrete.data());
      DCTWIN_DEMAND(!(scheduled[k] <= t), "next_scheduled_update must be strictly later than t");
    }
  };
  reschedule();
  bool restart_needed = true;  // the first segment starts the integrator
  // Periodic updates since the last one that changed the forcing (a governor moved a clock) in a
  // way the forced responses could take. For a while after such a change CVODE stops at every
  // periodic update, so that the next one can be taken without a restart (continue_across); then
  // it steps across them again. A change they cannot take (a valve, a fan speed) does not make
  // CVODE stop at the updates: it restarts anyway.
  constexpr long quiet_ticks_before_stepping_across = 20;
  long quiet_ticks = quiet_ticks_before_stepping_across;
  double forcing_edge = -std::numeric_limits<double>::infinity();
  double integrator_segment_end = -std::numeric_limits<double>::infinity();

  while (true) {
    // Every pass of either loop checks the request to stop: with updates due closer together
    // than the time resolution, this loop may run many times at one t without a step.
    if (cancel_requested()) return stop_on_request();
    // t ends the previous piece of integration. Discrete updates due now run first: periodic ones
    // (all reading the discrete state as it was), then self-scheduled ones (reading the result).
    // The integrator restarts only when the forcing may have changed: at a forcing edge, or when
    // an update says so; otherwise it goes on with its history.
    const bool at_forcing_edge = t >= forcing_edge;
    if (at_forcing_edge) restart_needed = true;
    const bool first_segment = restart_needed;
    // The discrete state before the updates, for the observer's knots and for continue_across:
    // `discrete` itself until an update changes it, then the old vector, swapped into
    // discrete_before (one copy of the discrete state per tick, not two).
    const bool keep_before = knots || integrator.has_forced_responses();
    bool before_kept = false;
    auto take_updates = [&] {
      if (keep_before && !before_kept) {
        std::swap(discrete_before, discrete);
        before_kept = true;
      }
      copy_in_blocks(discrete_next, discrete);
    };
    bool updated = false;
    bool tick_changed_forcing = false;
    for (auto& c : clocks) {
      if (c.next(settings_.start_time) > t) continue;
      const PartTimer timer(times.periodic_updates);
      tick_changed_forcing |=
          c.component->update_discrete(EvalContext{t, t, discrete.data()}, x->data(), discrete_next.data());
      ++c.k;
      updated = true;
    }
    restart_needed |= tick_changed_forcing;
    if (updated) {
      const PartTimer timer(times.periodic_updates);
      take_updates();
    }
    // Beyond the periodic updates (and the knots), everything below reads the whole state.
    const bool scheduled_due = std::any_of(scheduled.begin(), scheduled.end(), [&](double s) { return s <= t; });
    if ((scheduled_due || restart_needed || !knot_reads || t >= settings_.end_time ||
         (!clock.done() && clock.next() == t)) &&
        !complete_x()) {
      return stop_not_finite();
    }
    bool scheduled_ran = false;
    for (std::size_t k = 0; k < components.size(); ++k) {
      if (scheduled[k] > t) continue;
      const PartTimer timer(times.scheduled_updates);
      restart_needed |=
          components[k]->scheduled_update(EvalContext{t, t, discrete.data()}, x->data(), discrete_next.data());
      scheduled_ran = true;
    }
    if (scheduled_ran) {
      const PartTimer timer(times.scheduled_updates);
      take_updates();
    }
    if (updated || scheduled_ran) reschedule();
    const std::vector<double>& before = before_kept ? discrete_before : discrete;
    if (knots) {
      const PartTimer timer(times.knots);
      observer.on_knot(t, *x, before, discrete);
    }
    // An update that changed the forcing need not restart the integrator when the forced
    // responses absorb the change (integrator.hpp); forcing edges always restart.
    bool continued = false, not_absorbed = false;
    if (restart_needed && !at_forcing_edge && !first_segment && t < settings_.end_time) {
      const bool integrator_at_t = integrator.step_time() - t <= time_resolution(t);
      const double end = std::min({system_.next_discontinuity(t),
                                   scheduled.empty() ? settings_.end_time : *std::min_element(scheduled.begin(), scheduled.end()),
                                   settings_.end_time});
      {
        const PartTimer timer(times.continuations);
        continued = integrator.continue_across(t, *x, before.data(), discrete.data(), end);
      }
      not_absorbed = integrator_at_t && !continued;
      if (continued) {
        restart_needed = false;
        integrator_segment_end = end;
        segment_start = t;
      }
    }
    if (updated) {
      if (!tick_changed_forcing) ++quiet_ticks;
      else quiet_ticks = not_absorbed ? quiet_ticks_before_stepping_across : 0;
    }
    // A new smooth segment starts at t when the integrator restarts (or continues across a
    // change). Samples due exactly here see the forcing of this segment (outputs are
    // right-continuous at forcing edges).
    if (restart_needed) segment_start = t;
    if (!clock.done() && clock.next() == t) {
      sample(t);
      clock.advance();
    }
    if (t >= settings_.end_time) break;
    forcing_edge = system_.next_discontinuity(t);
    const double next_scheduled =
        scheduled.empty() ? settings_.end_time : *std::min_element(scheduled.begin(), scheduled.end());
    // Periodic updates do not end a segment: CVODE steps across their times and the state there is
    // its interpolant (dense output, as for the samples), so a controller ticking every 0.1 s does
    // not bound the step size. An update that changes the derivatives restarts the integrator at
    // its own time from that state; the steps taken beyond it are dropped.
    double segment_end = std::min({forcing_edge, next_scheduled, settings_.end_time});
    if (quiet_ticks < quiet_ticks_before_stepping_across && integrator.has_forced_responses())
      segment_end = std::min(segment_end, next_update());
    if (restart_needed || segment_end < integrator.step_time()) {
      if (!complete_x()) return stop_not_finite();
      const PartTimer timer(times.restarts);
      integrator.restart(t, *x, segment_end, discrete.data());
      x = &integrator.state();
      restart_needed = false;
    } else if (segment_end != integrator_segment_end) {
      integrator.extend(segment_end);
    }
    integrator_segment_end = segment_end;
    double tick = next_update();
    // With CVODE's step past `first` (a tick), the ticks from `first` up to the last one inside
    // the step are left out when every component due at them rests over the step
    // (Component::rests_over, with the states they read bounded over the step); the last tick,
    // and any at or after a sample, the segment's end or a tick of a component that does not
    // declare its reads, are taken as usual. Returns whether any was.
    auto skip_ticks_at_rest = [&](double first) {
      const double step_end = integrator.step_time();
      double last = first;
      for (const auto& c : clocks) {
        long k = c.k;
        if (c.next(settings_.start_time) > step_end) continue;
        while (settings_.start_time + static_cast<double>(k + 1) * c.period <= step_end) ++k;
        last = std::max(last, settings_.start_time + static_cast<double>(k) * c.period);
      }
      double cutoff = std::min({last, clock.done() ? segment_end : clock.next(), segment_end});
      for (const auto& c : clocks)  // a component that does not declare its reads cannot be bounded
        if (!c.reads) cutoff = std::min(cutoff, c.next(settings_.start_time));
      if (!(cutoff > first)) return false;
      // Not in the first step after a forcing change, nor soon after it: the responses' fastest
      // transients are there.
      if (!(integrator.last_step_start() > segment_start) ||
          first < segment_start + settings_.integrator.ticks_taken_after_forcing_change)
        return false;
      if (step_end == unrested_step_end) return false;
      unrested_step_end = step_end;
      if (!integrator.upper_bounds_since(first, *rest_reads, rest_upper.data())) return false;
      const EvalContext ctx{first, segment_start, discrete.data()};
      for (const auto& c : clocks)
        if (c.next(settings_.start_time) < cutoff && !c.component->rests_over(ctx, rest_upper.data())) return false;
      unrested_step_end = std::numeric_limits<double>::quiet_NaN();
      for (auto& c : clocks) {
        for (; c.next(settings_.start_time) < cutoff; ++c.k) {
          ++ticks_at_rest;
          ++quiet_ticks;
        }
      }
      return true;
    };

    while (t < segment_end) {
      if (t >= tick) break;  // periodic updates are due: back to the top, then on
      const double target = std::min({clock.done() ? segment_end : clock.next(), tick, segment_end});
      // Times a few ulps apart (a sample at start + k * interval next to a phase end computed
      // otherwise) are the same instant: no integration step is that short. A sample due at a
      // segment end or at a periodic update is taken at the top, after the updates.
      if (target - t <= time_resolution(t)) {
        t = target;
        if (t < segment_end && t < tick && !clock.done() && t == clock.next()) {
          sample(t);
          clock.advance();
        }
        // No step is taken here, so a run of such instants (samples closer than the resolution)
        // must not keep the request to stop waiting.
        if (cancel_requested()) return stop_on_request();
        continue;
      }
      AdvanceResult result;
      // A periodic update that is neither a sample's time nor the segment's end: it forms only the
      // states it reads, and it may be left out at rest.
      const bool tick_alone = target == tick && tick < segment_end && (clock.done() || clock.next() != tick);
      const StateRanges* only = tick_alone ? states_read_at(tick) : nullptr;
      const auto integration_start = WallClock::now();  // to the state's copy below
      double rest_check = 0.0;  // of that, checking ticks at rest [s] (with the periodic updates)
      bool skipped = false;
      try {
        if (tick_alone && rest_reads && integrator.step_past(target)) {
          const auto check_start = WallClock::now();
          skipped = skip_ticks_at_rest(target);
          rest_check = seconds_since(check_start);
        }
        if (!skipped) result = integrator.advance(target, only);
      } catch (const SolverError& e) {
        times.integration += seconds_since(integration_start) - rest_check;
        times.periodic_updates += rest_check;
        t = integrator.time();
        x = &integrator.state();
        x_complete = true;
        // Name the component whose state had the largest weighted error when CVODE gave up.
        std::string component, detail = e.what();
        if (e.state() >= 0 && e.state() < system_.size()) {
          component = system_.state_component(static_cast<Index>(e.state()));
          detail += " (largest local error: " + system_.state_name(static_cast<Index>(e.state())) + ")";
        }
        return finish({StopReason::solver_failure, t, component, detail});
      }
      times.periodic_updates += rest_check;
      if (skipped) {
        times.integration += seconds_since(integration_start) - rest_check;
        tick = next_update();
        continue;  // on to the tick that remains
      }
      t = integrator.time();
      x_complete = integrator.state_complete();
      x = &integrator.state();
      const long bad = integrator.first_non_finite_state();
      times.integration += seconds_since(integration_start) - rest_check;
      if (bad >= 0) {
        return finish({StopReason::solver_failure, t, "",
                       "state " + system_.state_name(static_cast<Index>(bad)) + " is not finite"});
      }
      observer.on_progress(t);

      if (result == AdvanceResult::root_found) {
        const auto& directions = integrator.root_directions();
        for (int k = 0; k < system_.event_count(); ++k) {
          const int direction = directions[static_cast<std::size_t>(k)];
          if (direction == 0) continue;
          const auto [component, local] = system_.event_owner(k);
          const EventOutcome outcome =
              component->on_event(local, direction > 0, EvalContext{t, segment_start, discrete.data()}, x->data());
          ++events;
          observer.on_event(t, component->name(), component->event_names()[static_cast<std::size_t>(local)],
                            outcome.message);
          if (outcome.action == EventAction::stop) {
            sample(t);
            return finish({StopReason::event, t, component->name(), outcome.message});
          }
        }
        continue;
      }
      if (t < segment_end && t < tick && !clock.done() && t == clock.next()) {
        sample(t);
        clock.advance();
      }
      if (cancel_requested()) return stop_on_request();
    }
  }
  return finish({StopReason::finished, t, "", ""});
}

}  // namespace dctwin::solver
