// The replay of a measured trace through the single-node site (see validation.hpp and
// docs/validation.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/facility/single_node.hpp"
#include "dctwin/models/workload/dvfs_governor.hpp"
#include "dctwin/models/workload/gpu_power.hpp"
#include "dctwin/models/workload/trace_power.hpp"
#include "dctwin/solver/simulator.hpp"
#include "validation_internal.hpp"

namespace dctwin::io {

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

/// Readings count as disjoint windows when read at least this share of a window apart (1 %: an
/// nvidia-smi loop's drift).
constexpr double disjoint_tolerance = 0.01;

}  // namespace

std::string_view replay_phase_name(ReplayPhase phase) {
  switch (phase) {
    case ReplayPhase::idle: return "idle";
    case ReplayPhase::stall: return "stall";
    case ReplayPhase::communication: return "communication";
    case ReplayPhase::compute: return "compute";
    case ReplayPhase::power_capped: return "power_capped";
  }
  return "idle";
}

std::vector<ReplayPhase> derive_phases(std::span<const double> power,
                                       const std::vector<std::array<double, replay_phase_count>>& levels,
                                       double hysteresis) {
  if (levels.size() != power.size())
    throw MetricError("derive_phases: " + std::to_string(power.size()) + " power values but " +
                      std::to_string(levels.size()) + " sets of levels");
  std::vector<ReplayPhase> phases(power.size(), ReplayPhase::idle);
  bool started = false;
  std::size_t current = 0;
  for (std::size_t k = 0; k < power.size(); ++k) {
    const double p = power[k];
    if (std::isnan(p)) {
      phases[k] = static_cast<ReplayPhase>(current);
      continue;
    }
    const auto& level = levels[k];
    // The nearest of the phases with a level (a NaN level leaves its phase out).
    std::size_t nearest = replay_phase_count;
    for (std::size_t q = 0; q < replay_phase_count; ++q)
      if (std::isfinite(level[q]) && (nearest == replay_phase_count || std::abs(p - level[q]) < std::abs(p - level[nearest])))
        nearest = q;
    if (nearest == replay_phase_count) {
      phases[k] = static_cast<ReplayPhase>(current);
      continue;
    }
    if (!started) {
      current = nearest;
      started = true;
    } else if (nearest != current && !std::isfinite(level[current])) {
      current = nearest;  // the current phase has no level here: nothing to stay near
    } else if (nearest != current) {
      const double gap = level[nearest] - level[current];
      const double midpoint = 0.5 * (level[nearest] + level[current]);
      const double direction = gap > 0.0 ? 1.0 : -1.0;
      if ((p - midpoint) * direction > hysteresis * std::abs(gap)) current = nearest;
    }
    phases[k] = static_cast<ReplayPhase>(current);
  }
  return phases;
}

std::vector<PhaseEdge> date_phase_changes(std::span<const double> time, std::span<const double> power,
                                          const std::vector<ReplayPhase>& phases,
                                          const std::vector<std::array<double, replay_phase_count>>& levels,
                                          double window) {
  const std::size_t n = time.size();
  if (power.size() != n || phases.size() != n || levels.size() != n)
    throw MetricError("date_phase_changes: " + std::to_string(n) + " times, " + std::to_string(power.size()) +
                      " power values, " + std::to_string(phases.size()) + " phases and " +
                      std::to_string(levels.size()) + " sets of levels");
  std::vector<PhaseEdge> edges;
  if (n == 0) return edges;
  // A running mean passes through the levels between two phases: a step from compute to stall
  // reads as compute, communication, stall. Two changes at most a window apart that go the same
  // way (L_A < L_B < L_C or L_A > L_B > L_C) are one step from A to C.
  std::vector<ReplayPhase> phase = phases;
  for (bool merged = window > 0.0; merged;) {
    merged = false;
    std::size_t last = 0;  // the previous change
    for (std::size_t k = 1; k < n && !merged; ++k) {
      if (phase[k] == phase[k - 1]) continue;
      if (last > 0 && time[k] - time[last] <= window * (1.0 + 1e-9)) {
        const auto a = static_cast<std::size_t>(phase[last - 1]);
        const auto b = static_cast<std::size_t>(phase[last]);
        const auto c = static_cast<std::size_t>(phase[k]);
        const double rise = (levels[last][b] - levels[last][a]) * (levels[k][c] - levels[k][b]);
        if (a != c && std::isfinite(rise) && rise > 0.0) {
          std::fill(phase.begin() + static_cast<long>(last), phase.begin() + static_cast<long>(k), phase[k]);
          merged = true;
        }
      }
      last = k;
    }
  }
  edges.push_back({-std::numeric_limits<double>::infinity(), phase[0]});
  std::size_t previous_change = 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (phase[k] == phase[k - 1]) continue;
    const auto from = static_cast<std::size_t>(phase[k - 1]);
    const auto to = static_cast<std::size_t>(phase[k]);
    double edge = 0.5 * (time[k - 1] + time[k]);
    const double previous_edge = edges.back().time;
    if (window > 0.0) {
      // Each sample m of the ramp gives the change time e: its window (t_m - W, t_m] holds the
      // phases dated so far up to s = max(t_m - W, previous change), the old phase from s to e and
      // the new one after e, all at the levels of sample m:
      //   P_m W = I_m + L_o (e - s) + L_n (t_m - e),  I_m = integral of the dated levels over (t_m - W, s)
      // (e = t_m - W phi_m when the window holds no earlier change). Of the samples whose e lies in
      // [s, t_m], the one with e nearest the middle of that span (the least biased by noise and
      // by the clamping at its ends) is taken.
      // The old level as it was before the ramp (the levels move with the measured clock, which
      // changes at once at the step while the mean follows over W): at the last sample a window
      // before the change was recognised, not before the previous change.
      std::size_t before = k - 1;
      while (before > previous_change && time[before] > time[k] - window) --before;
      // Candidates: the samples within W either side of sample k (a change recognised from the
      // clock-event reasons, which are not averaged, comes before its ramp), back to the previous
      // change and up to the next one.
      std::size_t next = k + 1;
      while (next < n && phase[next] == phase[k]) ++next;
      double best = std::numeric_limits<double>::infinity();
      bool found = false;
      for (std::size_t m = next; m-- > previous_change;) {
        if (time[m] >= time[k] + window) continue;
        if (m == 0 || time[m] <= time[k] - window) break;
        const double l_old = levels[before][from], l_new = levels[m][to];
        if (!std::isfinite(power[m]) || !std::isfinite(l_old) || !std::isfinite(l_new) || l_old == l_new) continue;
        const double begin = time[m] - window;
        const double s = std::max(begin, previous_edge);
        double integral = 0.0;
        bool known = true;
        for (std::size_t i = edges.size(); i-- > 0;) {
          const double a = std::max(begin, edges[i].time);
          const double b = std::min(s, i + 1 < edges.size() ? edges[i + 1].time : s);
          if (b > a) {
            const double level = levels[m][static_cast<std::size_t>(edges[i].phase)];
            if (!std::isfinite(level)) known = false;
            integral += level * (b - a);
          }
          if (edges[i].time <= begin) break;
        }
        if (!known) continue;
        const double e = (power[m] * window - integral + l_old * s - l_new * time[m]) / (l_old - l_new);
        if (!(e > s && e < time[m])) continue;
        const double off_middle = std::abs(e - 0.5 * (s + time[m])) / (time[m] - s);
        if (off_middle < best) {
          best = off_middle;
          edge = e;
          found = true;
        }
      }
      if (!found) edge = 0.5 * (time[k - 1] + std::max(time[k - 1], time[k] - window));
    }
    edge = std::min(edge, time[k]);
    edge = std::max(edge, previous_edge);
    edges.push_back({edge, phase[k]});
    previous_change = k;
  }
  return edges;
}

std::vector<PhaseEdge> date_window_mixtures(std::span<const double> time, std::span<const double> power,
                                            const std::vector<std::array<double, replay_phase_count>>& levels,
                                            const std::vector<bool>& capped, double window, double hysteresis) {
  const std::size_t n = time.size();
  if (power.size() != n || levels.size() != n || (!capped.empty() && capped.size() != n))
    throw MetricError("date_window_mixtures: " + std::to_string(n) + " times, " + std::to_string(power.size()) +
                      " power values, " + std::to_string(levels.size()) + " sets of levels and " +
                      std::to_string(capped.size()) + " capped flags");
  if (!(window > 0.0)) throw MetricError("date_window_mixtures: the window must be > 0 s");
  constexpr auto capped_phase = static_cast<std::size_t>(ReplayPhase::power_capped);
  std::vector<PhaseEdge> edges;
  for (std::size_t k = 0; k < n; ++k) {
    const double p = power[k];
    if (!std::isfinite(p)) continue;
    const auto& level = levels[k];
    const bool forced = !capped.empty() && capped[k] && std::isfinite(level[capped_phase]);
    // Phases a reading may end in: those with a level, the capped one only where the reasons say so.
    auto allowed = [&](std::size_t q) { return std::isfinite(level[q]) && (capped.empty() || q != capped_phase); };
    if (edges.empty()) {
      std::size_t nearest = replay_phase_count;
      for (std::size_t q = 0; q < replay_phase_count; ++q)
        if (allowed(q) && (nearest == replay_phase_count || std::abs(p - level[q]) < std::abs(p - level[nearest])))
          nearest = q;
      if (forced) nearest = capped_phase;
      if (nearest == replay_phase_count) continue;
      edges.push_back({-std::numeric_limits<double>::infinity(), static_cast<ReplayPhase>(nearest)});
      continue;
    }
    const auto a = static_cast<std::size_t>(edges.back().phase);
    const double l_a = level[a];
    std::size_t b = a;
    if (forced) {
      b = capped_phase;
    } else if (std::isfinite(l_a) && p != l_a) {
      const double direction = p > l_a ? 1.0 : -1.0;
      // Levels on P's side of L_A, the nearest one's gap, and the phase the window ends in.
      double nearest_gap = std::numeric_limits<double>::infinity();
      std::size_t furthest = replay_phase_count, beyond = replay_phase_count;
      for (std::size_t q = 0; q < replay_phase_count; ++q) {
        if (q == a || !allowed(q)) continue;
        const double gap = (level[q] - l_a) * direction;
        if (!(gap > 0.0)) continue;
        // Idle (no work on the GPU) begins and ends with a job, not inside a training step, and
        // its level lies close below the stall's: a window ends idle only when its reading is past
        // the switching point of derive_phases, not on the noise of a stall's readings.
        if (q == static_cast<std::size_t>(ReplayPhase::idle) &&
            !((p - 0.5 * (l_a + level[q])) * direction > hysteresis * gap))
          continue;
        nearest_gap = std::min(nearest_gap, gap);
        if (furthest == replay_phase_count || gap > (level[furthest] - l_a) * direction) furthest = q;
        if ((level[q] - p) * direction >= -hysteresis * gap &&
            (beyond == replay_phase_count || std::abs(level[q] - p) < std::abs(level[beyond] - p)))
          beyond = q;
      }
      if (furthest != replay_phase_count && std::abs(p - l_a) > hysteresis * nearest_gap)
        b = beyond != replay_phase_count ? beyond : furthest;
    } else if (!std::isfinite(l_a)) {
      // The phase before has no level here (the reasons ended a capped stretch): the nearest.
      for (std::size_t q = 0; q < replay_phase_count; ++q)
        if (allowed(q) && (b == a || std::abs(p - level[q]) < std::abs(p - level[b]))) b = q;
    }
    if (b == a) continue;
    const double start = time[k] - window;
    double e = start;
    if (std::isfinite(l_a) && std::isfinite(level[b]) && l_a != level[b])
      e = start + window * std::clamp((p - level[b]) / (l_a - level[b]), 0.0, 1.0);
    e = std::max(e, edges.back().time);
    edges.push_back({e, static_cast<ReplayPhase>(b)});
  }
  if (edges.empty()) edges.push_back({-std::numeric_limits<double>::infinity(), ReplayPhase::idle});
  return edges;
}

ReplayPhase phase_at(const std::vector<PhaseEdge>& edges, double t) {
  if (edges.empty()) return ReplayPhase::idle;
  const auto it = std::upper_bound(edges.begin(), edges.end(), t,
                                   [](double value, const PhaseEdge& e) { return value < e.time; });
  if (it == edges.begin()) return edges.front().phase;
  return std::prev(it)->phase;
}

namespace replay {

namespace {

/// Values with NaN gaps held from the previous finite sample (the next one at the start). Empty
/// when no value is finite.
std::vector<double> fill_gaps(const std::vector<double>& values) {
  std::vector<double> out = values;
  const auto first = std::find_if(out.begin(), out.end(), [](double v) { return std::isfinite(v); });
  if (first == out.end()) return {};
  std::fill(out.begin(), first, *first);
  double last = *first;
  for (auto it = first; it != out.end(); ++it) {
    if (std::isfinite(*it))
      last = *it;
    else
      *it = last;
  }
  return out;
}

double median(std::vector<double> v) {
  if (v.empty()) return not_a_number;
  const auto mid = v.begin() + static_cast<long>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

/// Values of quantity `name` of GPU g, or empty.
std::vector<double> quantity(const TelemetryTrace& trace, std::size_t g, const char* name) {
  const auto q = trace.quantity_index(name);
  if (!q) return {};
  return trace.gpus[g].values[*q];
}

bool any_finite(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

/// Index of the first element of `times` at or after t, clamped to the last.
std::size_t window_of(const std::vector<double>& times, double t) {
  const auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  return std::min(k, times.size() - 1);
}

class Recorder final : public solver::SimulationObserver {
 public:
  Recorder(const models::thermal::GpuPackageArray& gpus, ThermalReplay& out) : gpus_(gpus), out_(out) {
    out_.junction.assign(gpus.count(), {});
    out_.hbm.assign(gpus.count(), {});
  }
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>&) override {
    out_.grid.push_back(t);
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      out_.junction[i].push_back(x[static_cast<std::size_t>(gpus_.junction_index(i))]);
      out_.hbm[i].push_back(x[static_cast<std::size_t>(gpus_.hbm_index(i))]);
    }
  }

 private:
  const models::thermal::GpuPackageArray& gpus_;
  ThermalReplay& out_;
};

}  // namespace

double ModelParameters::leakage(std::size_t gpu, double junction_temperature) const {
  if (package.leakage_power_at_reference == 0.0) return 0.0;
  return spread[gpu].leakage_scale * package.leakage_power_at_reference *
         std::exp(package.leakage_temperature_coefficient * (junction_temperature - package.leakage_reference_temperature));
}

double ModelParameters::activity(ReplayPhase phase) const {
  switch (phase) {
    case ReplayPhase::idle: return 0.0;
    case ReplayPhase::stall: return workload.job.stall_activity;
    case ReplayPhase::communication: return workload.job.communication_activity;
    case ReplayPhase::compute: return workload.job.compute_activity;
    case ReplayPhase::power_capped: return workload.job.power_capped_activity;
  }
  return 0.0;
}

double ModelParameters::board_power(std::size_t gpu, ReplayPhase phase, double clock, double leakage_power) const {
  // At its power cap the firmware holds the board power (NVML's 1-s mean) at the limit.
  if (phase == ReplayPhase::power_capped) return workload.power.power_limit;
  return phase_power(gpu, phase, clock) + leakage_power;
}

double ModelParameters::governor_activity(std::size_t gpu, ReplayPhase phase) const {
  return activity(phase) * spread[gpu].power_scale;
}

double ModelParameters::phase_power(std::size_t gpu, ReplayPhase phase, double clock) const {
  const models::workload::GpuPowerModel power(workload.power);
  return workload.power.static_power + spread[gpu].power_scale * power.dynamic_power(activity(phase), clock);
}

ModelParameters read_model(const core::ParameterTree& tree) {
  if (tree.text("site") != "single-node")
    throw core::InputError("the replay of a trace needs a single-node site (site: single-node), not '" +
                             tree.text("site") + "'");
  const auto& server = tree.section("server");
  ModelParameters m;
  m.package = models::thermal::GpuPackageParameters::from(server.section("gpu"));
  const auto count = static_cast<std::size_t>(server.integer("gpu_count"));
  m.spread.assign(count, {});
  const auto& entries = server.list("gpus");
  for (std::size_t i = 0; i < entries.size() && i < count; ++i)
    m.spread[i] = models::thermal::GpuSpread::from(entries[i]);
  m.workload = models::workload::WorkloadParameters::from(tree.section("workload"));
  m.supply_temperature = tree.section("loop").number("supply_temperature");
  m.cooling = server.text("cooling");
  return m;
}

PreparedTrace prepare(const TelemetryTrace& trace, const ScenarioDocument& scenario, const ValidationOptions& options) {
  const ModelParameters model = read_model(scenario.tree);
  PreparedTrace p;
  p.source = trace.provenance.source;
  p.model_count = model.spread.size();
  const std::size_t n = trace.gpus.size();
  const std::string where = trace.provenance.source.empty() ? std::string("trace") : trace.provenance.source;
  if (n == 0) throw TelemetryError(where + ": the trace has no GPUs");
  if (n > p.model_count)
    throw TelemetryError(where + ": the trace has " + std::to_string(n) + " GPUs but the scenario's server has " +
                         std::to_string(p.model_count) + " (server.gpu_count in " + scenario.file + ")");
  if (!trace.quantity_index("power"))
    throw TelemetryError(where + ": the trace has no power (power.draw), which the replay needs");
  if (!options.gpu_map.empty()) {
    if (options.gpu_map.size() != n)
      throw TelemetryError("the GPU map has " + std::to_string(options.gpu_map.size()) + " entries but the trace has " +
                           std::to_string(n) + " GPUs");
    for (std::size_t g = 0; g < n; ++g) {
      if (options.gpu_map[g] >= p.model_count)
        throw TelemetryError("the GPU map sends trace GPU " + std::to_string(g) + " to model GPU " +
                             std::to_string(options.gpu_map[g]) + ", but the scenario's server has " +
                             std::to_string(p.model_count) + " GPUs (0 to " + std::to_string(p.model_count - 1) + ")");
      for (std::size_t h = 0; h < g; ++h)
        if (options.gpu_map[h] == options.gpu_map[g])
          throw TelemetryError("the GPU map sends trace GPUs " + std::to_string(h) + " and " + std::to_string(g) +
                               " to the same model GPU " + std::to_string(options.gpu_map[g]));
    }
    p.model_gpu = options.gpu_map;
  } else {
    for (std::size_t g = 0; g < n; ++g) p.model_gpu.push_back(g);
  }
  if (!(options.averaging_window >= 0.0) || !std::isfinite(options.averaging_window))
    throw TelemetryError("the power averaging window must be >= 0 s (0: the power is instantaneous)");
  if (!(options.step > 0.0)) throw TelemetryError("the replay's sampling step must be > 0");

  p.epoch = std::numeric_limits<double>::infinity();
  for (const auto& g : trace.gpus) {
    if (g.time.empty()) throw TelemetryError(where + ": GPU " + g.label() + " has no samples");
    p.epoch = std::min(p.epoch, g.time.front());
  }
  const bool instant = trace.quantity_index("power_instant").has_value();
  p.has_temperature = trace.quantity_index("gpu_temperature").has_value();
  p.has_clock = trace.quantity_index("sm_clock").has_value();
  p.has_reasons = trace.quantity_index("clock_event_reasons").has_value();
  std::vector<double> intervals;
  p.start = std::numeric_limits<double>::infinity();
  p.end = -std::numeric_limits<double>::infinity();
  bool drove_instant = false;
  for (std::size_t g = 0; g < n; ++g) {
    const auto& s = trace.gpus[g];
    p.labels.push_back(s.label());
    std::vector<double> t(s.time.size());
    for (std::size_t k = 0; k < t.size(); ++k) t[k] = s.time[k] - p.epoch;
    for (std::size_t k = 1; k < t.size(); ++k) intervals.push_back(t[k] - t[k - 1]);
    const double first_interval = t.size() > 1 ? t[1] - t[0] : std::max(options.averaging_window, 1.0);
    p.start = std::min(p.start, t.front() - first_interval);
    p.end = std::max(p.end, t.back());
    p.power.push_back(quantity(trace, g, "power"));
    std::vector<double> drive = instant ? fill_gaps(quantity(trace, g, "power_instant")) : std::vector<double>{};
    if (!drive.empty()) {
      drove_instant = true;
    } else {
      drive = fill_gaps(p.power.back());
      if (drive.empty()) throw TelemetryError(where + ": GPU " + s.label() + " has no power value");
    }
    p.drive.push_back(std::move(drive));
    p.temperature.push_back(p.has_temperature ? quantity(trace, g, "gpu_temperature")
                                              : std::vector<double>(t.size(), not_a_number));
    p.temperature_filled.push_back(fill_gaps(p.temperature.back()));
    p.clock.push_back(p.has_clock ? quantity(trace, g, "sm_clock") : std::vector<double>(t.size(), not_a_number));
    p.reasons.push_back(p.has_reasons ? quantity(trace, g, "clock_event_reasons")
                                      : std::vector<double>(t.size(), not_a_number));
    p.time.push_back(std::move(t));
  }
  p.has_temperature = p.has_temperature && std::any_of(p.temperature.begin(), p.temperature.end(), any_finite);
  p.has_clock = p.has_clock && std::any_of(p.clock.begin(), p.clock.end(), any_finite);
  p.has_reasons = p.has_reasons && std::any_of(p.reasons.begin(), p.reasons.end(), any_finite);
  p.drive_instant = drove_instant;
  p.interval = intervals.empty() ? std::max(options.averaging_window, 1.0) : median(intervals);
  if (drove_instant)
    p.notes.push_back("temperatures are driven by the instantaneous power (power_instant)");
  else
    p.notes.push_back("temperatures are driven by the averaged power (power), held over the interval before each sample");
  if (!p.has_temperature)
    p.notes.push_back("no GPU temperature: leakage is taken out of the measured power at the simulated junction "
                      "temperature of the first pass, and temperatures are not compared");
  if (!p.has_clock) p.notes.push_back("no SM clock: the power model runs at the governor's clock");
  if (p.has_reasons)
    p.notes.push_back("power-capped samples from the clock-event reasons (SwPowerCap, 0x4)");
  else
    p.notes.push_back("no clock-event reasons: power-capped samples are those nearest the power limit");
  if (n < p.model_count)
    p.notes.push_back("model GPUs without a trace GPU draw the static power (" +
                      std::to_string(p.model_count - n) + " of " + std::to_string(p.model_count) + ")");
  return p;
}

double ThermalReplay::at(const std::vector<double>& series, double t) const {
  if (grid.empty()) return not_a_number;
  if (t <= grid.front()) return series.front();
  if (t >= grid.back()) return series.back();
  const auto j = static_cast<std::size_t>(std::upper_bound(grid.begin(), grid.end(), t) - grid.begin());
  const double t0 = grid[j - 1], t1 = grid[j];
  const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
  return series[j - 1] + w * (series[j] - series[j - 1]);
}

namespace {

ThermalReplay run_thermal(const PreparedTrace& trace, const core::ParameterTree& tree, const ModelParameters& model,
                          const ValidationOptions& options, const ThermalReplay* previous) {
  // What each model GPU dissipates besides leakage: the measured power less the leakage the
  // package will add, at the measured temperature (else at the previous pass's junction).
  std::vector<std::vector<double>> times(trace.model_count), power(trace.model_count);
  for (std::size_t g = 0; g < trace.time.size(); ++g) {
    const std::size_t j = trace.model_gpu[g];
    times[j] = trace.time[g];
    power[j].resize(trace.time[g].size());
    for (std::size_t k = 0; k < trace.time[g].size(); ++k) {
      double tj = trace.temperature_filled[g].empty() ? not_a_number : trace.temperature_filled[g][k];
      if (std::isnan(tj)) tj = previous != nullptr ? previous->at(previous->junction[j], trace.time[g][k])
                                                   : model.package.leakage_reference_temperature;
      power[j][k] = std::max(0.0, trace.drive[g][k] - model.leakage(j, tj));
    }
  }
  for (std::size_t j = 0; j < trace.model_count; ++j) {
    if (!times[j].empty()) continue;
    times[j] = {trace.start};
    power[j] = {model.workload.power.static_power};
  }
  auto source = std::make_shared<models::workload::TracePowerSource>(std::move(times), std::move(power));

  core::ParameterTree copy = tree;
  copy.sections.at("simulation").values.at("initial_state").text = options.initial_state;
  models::facility::SingleNodeSite site(copy, source);
  auto& settings = site.settings();
  settings.start_time = trace.start;
  settings.end_time = trace.end;
  settings.output_interval = options.step;
  settings.integrator.relative_tolerance = options.relative_tolerance;
  settings.integrator.absolute_tolerance = std::min(settings.integrator.absolute_tolerance, 1e-8);
  settings.integrator.max_step = 0.0;

  ThermalReplay out;
  Recorder recorder(site.gpus(), out);
  solver::Simulator simulator(site.system(), settings);
  std::vector<double> x0;
  try {
    x0 = site.initial_state();
  } catch (const solver::SolverError& e) {
    throw ReplayError(std::string("the replay's initial steady state failed: ") + e.what());
  }
  const auto status = simulator.run(x0, recorder);
  if (status.reason != solver::StopReason::finished) {
    // Where the integrator gave up a junction has often run away (leakage without a fixed point
    // drives it past any bound within a fraction of a second, faster than CVODE can follow): the
    // state it stopped at is checked like the samples, so that such a replay is named for what it is.
    recorder.on_sample(status.time, simulator.final_state(), {});
    check_physical(trace, out);
    throw ReplayError(fmt::format("the replay stopped at {:g} s of the trace: {}: {}", status.time - trace.start,
                                  solver::to_string(status.reason), status.message));
  }
  return out;
}

}  // namespace

ThermalReplay replay_thermal(const PreparedTrace& trace, const core::ParameterTree& tree,
                             const ModelParameters& model, const ValidationOptions& options) {
  if (model.cooling == "air") {
    ThermalReplay first = replay_thermal_air(trace, tree, model, options);
    if (trace.has_temperature || model.package.leakage_power_at_reference == 0.0) return first;
    // Without measured temperatures the leakage to take out is that of the simulated junction.
    return replay_thermal_air(trace, tree, model, options, std::nullopt, &first);
  }
  ThermalReplay first = run_thermal(trace, tree, model, options, nullptr);
  check_physical(trace, first);
  if (trace.has_temperature || model.package.leakage_power_at_reference == 0.0) return first;
  // Without measured temperatures the leakage to take out is that of the simulated junction.
  ThermalReplay second = run_thermal(trace, tree, model, options, &first);
  check_physical(trace, second);
  return second;
}

namespace {

/// Linear interpolation of (times, values) at t, held beyond the ends; NaN when `values` is empty.
double interpolate(const std::vector<double>& times, const std::vector<double>& values, double t) {
  if (values.empty() || times.empty()) return not_a_number;
  if (t <= times.front()) return values.front();
  if (t >= times.back()) return values.back();
  const auto j = static_cast<std::size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
  const double t0 = times[j - 1], t1 = times[j];
  const double w = t1 > t0 ? (t - t0) / (t1 - t0) : 0.0;
  return values[j - 1] + w * (values[j] - values[j - 1]);
}

/// Whether a clock-event reason mask has SwPowerCap (0x4) set (NVML nvmlClocksEventReasonSwPowerCap).
bool power_capped(double reasons) {
  if (!std::isfinite(reasons) || reasons < 0.0) return false;
  return (static_cast<std::uint64_t>(reasons) & models::workload::throttle_reason::sw_power_cap) != 0;
}

}  // namespace

bool dated_as_mixtures(const PreparedTrace& trace, const ValidationOptions& options) {
  const double phase_window = trace.drive_instant ? 0.0 : options.averaging_window;
  return phase_window > 0.0 && trace.interval >= (1.0 - disjoint_tolerance) * phase_window;
}

PowerReplay replay_power(const PreparedTrace& trace, const ModelParameters& model, const ThermalReplay& thermal,
                         const ValidationOptions& options, const std::vector<std::vector<ReplayPhase>>* given,
                         const std::vector<std::vector<PhaseEdge>>* given_timeline, bool allow_mixtures) {
  using models::workload::GovernorInputs;
  using models::workload::GovernorState;
  const models::workload::GpuPowerModel power_model(model.workload.power);
  models::workload::GpuThermalLimits limits;
  limits.max_operating = model.package.max_operating_temperature;
  limits.hw_slowdown = model.package.hw_slowdown_temperature;
  limits.shutdown = model.package.shutdown_temperature;
  limits.hbm_max_operating = model.package.hbm_max_operating_temperature;
  const models::workload::DvfsGovernor governor(model.workload.governor, power_model, limits);
  const double max_clock = model.workload.power.max_clock;
  const double window = options.averaging_window;
  // The power the phases are recognised from: the instantaneous one when the trace has it, else
  // NVML's mean over the window before each sample.
  const double phase_window = trace.drive_instant ? 0.0 : window;
  // Readings whose windows do not overlap (read at most once a window): phases shorter than the
  // window are dated inside each reading's window (date_window_mixtures), not from ramps.
  const bool mixtures = allow_mixtures && dated_as_mixtures(trace, options);

  const std::size_t n = trace.time.size();
  PowerReplay out;
  out.phases.resize(n);
  out.timeline.resize(n);
  out.power.resize(n);
  out.clock.resize(n);
  out.temperature.resize(n);
  out.transition.resize(n);
  for (std::size_t g = 0; g < n; ++g) {
    const std::size_t j = trace.model_gpu[g];
    const auto& times = trace.time[g];
    const std::size_t samples = times.size();
    const auto& tj = thermal.junction[j];
    const auto& th = thermal.hbm[j];
    const bool measured_temperature = !trace.temperature_filled[g].empty();

    // Simulated junction temperature at the samples.
    auto& temperature = out.temperature[g];
    temperature.resize(samples);
    for (std::size_t k = 0; k < samples; ++k) temperature[k] = thermal.at(tj, times[k]);
    // The junction temperature the power model and the governor read: the measured one where the
    // trace has it (so that power and clock are validated on their own), else the replay's.
    auto junction_at = [&](double t) {
      return measured_temperature ? interpolate(times, trace.temperature_filled[g], t) : thermal.at(tj, t);
    };

    // Levels of the phases at each sample. The power-capped level is the power limit; with
    // clock-event reasons the capped samples are those with SwPowerCap (the phases are recognised
    // from the power without that level), else the limit is one more level to recognise.
    std::vector<std::array<double, replay_phase_count>> levels(samples), recognise(samples);
    for (std::size_t k = 0; k < samples; ++k) {
      const double t_level = measured_temperature ? trace.temperature_filled[g][k] : temperature[k];
      const double f = std::isfinite(trace.clock[g][k]) ? trace.clock[g][k] : max_clock;
      const double leak = model.leakage(j, t_level);
      for (std::size_t q = 0; q < replay_phase_count; ++q)
        levels[k][q] = model.board_power(j, static_cast<ReplayPhase>(q), f, leak);
      recognise[k] = levels[k];
      if (trace.has_reasons) recognise[k][static_cast<std::size_t>(ReplayPhase::power_capped)] = not_a_number;
    }
    const auto& phase_power = trace.drive_instant ? trace.drive[g] : trace.power[g];
    auto& timeline = out.timeline[g];
    if (given_timeline != nullptr) {
      timeline = (*given_timeline)[g];
    } else if (given == nullptr && mixtures) {
      // The reasons are read at the sample time: a sample with SwPowerCap ends capped.
      std::vector<bool> capped;
      if (trace.has_reasons) {
        capped.resize(samples);
        for (std::size_t k = 0; k < samples; ++k) capped[k] = power_capped(trace.reasons[g][k]);
      }
      timeline = date_window_mixtures(times, phase_power, levels, capped, phase_window, options.hysteresis);
    } else {
      std::vector<ReplayPhase> base =
          given != nullptr ? (*given)[g] : derive_phases(phase_power, recognise, options.hysteresis);
      // The reasons are read at the sample time: a working sample with SwPowerCap is capped.
      if (given == nullptr && trace.has_reasons)
        for (std::size_t k = 0; k < samples; ++k)
          if (base[k] != ReplayPhase::idle && power_capped(trace.reasons[g][k])) base[k] = ReplayPhase::power_capped;
      timeline = date_phase_changes(times, phase_power, base, levels, phase_window);
    }
    auto& phases = out.phases[g];
    phases.resize(samples);
    for (std::size_t k = 0; k < samples; ++k) phases[k] = phase_at(timeline, times[k]);
    // Samples whose reading may straddle a change (its window, widened by a sampling interval
    // either way for the uncertainty of the change's time).
    auto& transition = out.transition[g];
    transition.assign(samples, false);
    const double reach = std::max(phase_window, trace.interval) + trace.interval;
    for (std::size_t i = 1; i < timeline.size() && mixtures; ++i) {
      // Disjoint windows: the readings whose window holds the change (either end included).
      const double e = timeline[i].time;
      auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), e - 1e-9) - times.begin());
      for (; k < samples && times[k] - phase_window <= e + 1e-9; ++k) transition[k] = true;
    }
    for (std::size_t i = 1; i < timeline.size() && !mixtures; ++i) {
      const double e = timeline[i].time;
      auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), e - trace.interval) - times.begin());
      for (; k < samples && times[k] <= e + reach; ++k) transition[k] = true;
    }

    // The governor, updated every period from the start, on the junction temperature above and
    // the replayed HBM temperature, with the activity of the phase in effect.
    const double period = model.workload.governor.update_period;
    std::vector<double> update_times, update_clock;
    GovernorState state = governor.initial_state();
    for (long m = 0;; ++m) {
      const double u = trace.start + static_cast<double>(m) * period;
      if (u > trace.end) break;
      const ReplayPhase phase = phase_at(timeline, u);
      GovernorInputs in;
      in.junction_temperature = junction_at(u);
      in.hbm_temperature = thermal.at(th, u);
      in.activity = model.governor_activity(j, phase);
      in.leakage_power = model.leakage(j, in.junction_temperature);
      in.working = phase != ReplayPhase::idle;
      state = governor.update(state, in);
      update_times.push_back(u);
      update_clock.push_back(state.clock);
    }
    const double initial_clock = governor.initial_state().clock;
    // Clock in effect just before time t (the last update strictly before it).
    auto clock_before = [&](double t) {
      const auto it = std::lower_bound(update_times.begin(), update_times.end(), t);
      if (it == update_times.begin()) return initial_clock;
      return update_clock[static_cast<std::size_t>(it - update_times.begin() - 1)];
    };
    auto& clock = out.clock[g];
    clock.resize(samples);
    for (std::size_t k = 0; k < samples; ++k) clock[k] = clock_before(times[k]);

    // Board power, piecewise constant between the replay's grid times and the phase changes
    // (each piece at its midpoint's phase, clock and temperature), then NVML's average over the
    // window before each sample, from the running integral.
    std::vector<double> cuts = thermal.grid;
    if (cuts.empty()) cuts.push_back(trace.start);
    const double first_cut = cuts.front(), last_cut = cuts.back();
    for (std::size_t i = 1; i < timeline.size(); ++i)
      if (timeline[i].time > first_cut && timeline[i].time < last_cut) cuts.push_back(timeline[i].time);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<double> integral(cuts.size(), 0.0), level(cuts.size() > 0 ? cuts.size() - 1 : 0, 0.0);
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
      const double mid = 0.5 * (cuts[i] + cuts[i + 1]);
      const std::size_t k = window_of(times, mid);
      const ReplayPhase phase = phase_at(timeline, mid);
      const double f = std::isfinite(trace.clock[g][k]) ? trace.clock[g][k] : clock_before(mid);
      level[i] = model.board_power(j, phase, f, model.leakage(j, junction_at(mid)));
      integral[i + 1] = integral[i] + level[i] * (cuts[i + 1] - cuts[i]);
    }
    auto integral_at = [&](double t) {
      if (cuts.size() < 2 || t <= cuts.front()) return 0.0;
      if (t >= cuts.back()) return integral.back();
      const auto i = static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), t) - cuts.begin()) - 1;
      return integral[i] + level[i] * (t - cuts[i]);
    };
    auto& power = out.power[g];
    power.resize(samples);
    for (std::size_t k = 0; k < samples; ++k) {
      const double to = times[k];
      const double from = std::max(cuts.front(), to - window);
      if (to > from) {
        power[k] = (integral_at(to) - integral_at(from)) / (to - from);
        continue;
      }
      // A window of 0: the power at the sample time, at the sample's own clock (a piece of the
      // integral may reach past the sample, into the next sample's clock).
      const double f = std::isfinite(trace.clock[g][k]) ? trace.clock[g][k] : clock_before(to);
      power[k] = model.board_power(j, phases[k], f, model.leakage(j, junction_at(to)));
    }
  }
  return out;
}

ValidationResult assemble(const PreparedTrace& trace, const PowerReplay& replay, const ValidationOptions& options) {
  ValidationResult r;
  r.gpu_labels = trace.labels;
  r.model_gpus = trace.model_gpu;
  r.start_time = trace.epoch;
  r.phases = replay.phases;
  r.notes = trace.notes;
  const std::size_t n = trace.time.size();

  // Phase shares over every sample.
  r.phase_share.assign(n, {});
  std::array<double, replay_phase_count> total{};
  double all = 0.0;
  for (std::size_t g = 0; g < n; ++g) {
    std::array<double, replay_phase_count> counts{};
    for (const auto phase : replay.phases[g]) counts[static_cast<std::size_t>(phase)] += 1.0;
    const auto samples = static_cast<double>(replay.phases[g].size());
    for (std::size_t q = 0; q < replay_phase_count; ++q) {
      r.phase_share[g][q] = samples > 0 ? counts[q] / samples : 0.0;
      total[q] += counts[q];
    }
    all += samples;
  }
  for (std::size_t q = 0; q < replay_phase_count; ++q) r.overall_phase_share[q] = all > 0 ? total[q] / all : 0.0;

  auto add = [&](const char* name, const char* unit, const std::vector<std::vector<double>>& measured,
                 const std::vector<std::vector<double>>& simulated) {
    QuantitySeries s{name, unit, {}, measured, simulated};
    std::vector<std::vector<double>> m_window(n), s_window(n);
    QuantityMetrics q{name, unit, {}, {}};
    for (std::size_t g = 0; g < n; ++g) {
      std::vector<double> absolute(trace.time[g].size());
      m_window[g] = measured[g];
      s_window[g] = simulated[g];
      for (std::size_t k = 0; k < absolute.size(); ++k) {
        absolute[k] = trace.time[g][k] + trace.epoch;
        const double t = trace.time[g][k];
        if (!(t >= options.metrics_from && t < options.metrics_until)) m_window[g][k] = s_window[g][k] = not_a_number;
      }
      s.time.push_back(std::move(absolute));
      q.per_gpu.push_back(compute_metrics(s_window[g], m_window[g], trace.interval, options.max_lag, options.parameters));
    }
    q.overall = compute_pooled_metrics(s_window, m_window, trace.interval, options.max_lag, options.parameters);
    r.metrics.push_back(std::move(q));
    r.series.push_back(std::move(s));
  };
  add("power", "W", trace.power, replay.power);
  if (trace.has_temperature) add("junction_temperature", "K", trace.temperature, replay.temperature);
  if (trace.has_clock) add("sm_clock", "Hz", trace.clock, replay.clock);
  return r;
}

}  // namespace replay

ValidationResult validate_trace(const TelemetryTrace& trace, const ScenarioDocument& scenario,
                                const ValidationOptions& options) {
  const replay::PreparedTrace prepared = replay::prepare(trace, scenario, options);
  const replay::ModelParameters model = replay::read_model(scenario.tree);
  const replay::ThermalReplay thermal = replay::replay_thermal(prepared, scenario.tree, model, options);
  const replay::PowerReplay power = replay::replay_power(prepared, model, thermal, options);
  replay::check_physical(prepared, power);
  return replay::assemble(prepared, power, options);
}

}  // namespace dctwin::io
