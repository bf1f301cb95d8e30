// The replay of a measured trace through the air-cooled server (server.cooling: air), and the
// checks that a replay stayed physical (see validation_internal.hpp and docs/validation.md).
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/models/thermal/air_cooled_server.hpp"
#include "dctwin/solver/integrator.hpp"
#include "validation_internal.hpp"

namespace dctwin::io::replay {

namespace {

/// Index of the first element of `times` at or after t, clamped to the last: the sample whose
/// interval (t_(k-1), t_k] holds t.
std::size_t sample_holding(const std::vector<double>& times, double t) {
  const auto k = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  return std::min(k, times.size() - 1);
}

std::string gpu_name(const PreparedTrace& trace, std::size_t model_gpu) {
  for (std::size_t g = 0; g < trace.model_gpu.size(); ++g)
    if (trace.model_gpu[g] == model_gpu)
      return fmt::format("model GPU {} (trace GPU {})", model_gpu, trace.labels[g]);
  return fmt::format("model GPU {}", model_gpu);
}

bool physical_temperature(double t) {
  return std::isfinite(t) && t >= lowest_physical_temperature && t <= highest_physical_temperature;
}

[[noreturn]] void non_physical(const PreparedTrace& trace, std::size_t model_gpu, const char* what, double time,
                               double value, const char* unit) {
  throw ReplayError(fmt::format(
      "the replay is not physical: the {} of {} reached {:g} {} at {:g} s (allowed {:g} to {:g} K for temperatures, "
      "up to {:g} W for power); the scenario's parameters (a calibrated fragment?) make the model run away",
      what, gpu_name(trace, model_gpu), value, unit, time - trace.start, lowest_physical_temperature,
      highest_physical_temperature, highest_physical_power));
}

}  // namespace

void check_physical(const PreparedTrace& trace, const ThermalReplay& replay) {
  for (std::size_t j = 0; j < replay.junction.size(); ++j) {
    for (std::size_t m = 0; m < replay.junction[j].size(); ++m)
      if (!physical_temperature(replay.junction[j][m]))
        non_physical(trace, j, "junction temperature", replay.grid[m], replay.junction[j][m], "K");
    for (std::size_t m = 0; m < replay.hbm[j].size(); ++m)
      if (!physical_temperature(replay.hbm[j][m]))
        non_physical(trace, j, "HBM temperature", replay.grid[m], replay.hbm[j][m], "K");
  }
}

void check_physical(const PreparedTrace& trace, const PowerReplay& replay) {
  for (std::size_t g = 0; g < replay.power.size(); ++g)
    for (std::size_t k = 0; k < replay.power[g].size(); ++k) {
      const double p = replay.power[g][k];
      if (!(std::isfinite(p) && std::abs(p) <= highest_physical_power))
        non_physical(trace, trace.model_gpu[g], "board power", trace.time[g][k], p, "W");
    }
}

ThermalReplay replay_thermal_air(const PreparedTrace& trace, const core::ParameterTree& tree,
                                 const ModelParameters& model, const ValidationOptions& options,
                                 std::optional<std::size_t> only_gpu, const ThermalReplay* previous) {
  const auto server = models::thermal::AirCooledServer::from(tree.section("server"));
  const std::size_t count = trace.model_count;

  // Power of each model GPU without leakage (the model adds its own at the simulated junction):
  // the measured board power less the leakage at the measured temperature. The server's air is
  // heated by the measured board powers (leakage included), so that the GPUs' local air does not
  // depend on the replayed temperatures and each GPU can be integrated on its own.
  std::vector<std::vector<double>> times(count), power(count), board(count);
  for (std::size_t g = 0; g < trace.time.size(); ++g) {
    const std::size_t j = trace.model_gpu[g];
    times[j] = trace.time[g];
    power[j].resize(times[j].size());
    board[j] = trace.drive[g];
    for (std::size_t k = 0; k < times[j].size(); ++k) {
      double tj = trace.temperature_filled[g].empty() ? std::numeric_limits<double>::quiet_NaN()
                                                      : trace.temperature_filled[g][k];
      if (std::isnan(tj))
        tj = previous != nullptr && !previous->junction[j].empty() ? previous->at(previous->junction[j], times[j][k])
                                                                   : model.package.leakage_reference_temperature;
      power[j][k] = std::max(0.0, trace.drive[g][k] - server.leakage(j, tj));
    }
  }
  for (std::size_t j = 0; j < count; ++j) {
    if (!times[j].empty()) continue;
    times[j] = {trace.start};
    power[j] = {model.workload.power.static_power};
    board[j] = {model.workload.power.static_power};
  }

  // Output grid and the segments between every sample time and grid point.
  ThermalReplay out;
  for (long m = 0;; ++m) {
    const double t = trace.start + static_cast<double>(m) * options.step;
    if (t >= trace.end - 1e-9 * options.step) break;
    out.grid.push_back(t);
  }
  out.grid.push_back(trace.end);
  std::vector<double> edges = out.grid;
  for (const auto& t : trace.time)
    for (const double v : t)
      if (v > trace.start && v < trace.end) edges.push_back(v);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  // Heat of all GPUs over each segment (a, b], held from the sample whose interval holds b.
  std::vector<double> heat(edges.size(), 0.0);
  for (std::size_t e = 0; e < edges.size(); ++e)
    for (std::size_t j = 0; j < count; ++j) heat[e] += board[j][sample_holding(times[j], edges[e])];

  out.junction.assign(count, {});
  out.hbm.assign(count, {});
  const bool from_steady_state = options.initial_state == "steady_state";
  for (std::size_t j = 0; j < count; ++j) {
    if (only_gpu && *only_gpu != j) continue;
    auto& junction = out.junction[j];
    auto& hbm = out.hbm[j];
    junction.reserve(out.grid.size());
    hbm.reserve(out.grid.size());
    models::thermal::AirCooledGpuState x{};
    const std::size_t first = edges.size() > 1 ? 1 : 0;
    if (from_steady_state) {
      try {
        x = server.steady_state(j, power[j][sample_holding(times[j], edges[first])],
                                server.local_air_temperature(j, heat[first]));
      } catch (const solver::SolverError& e) {
        throw ReplayError(std::string("the replay's initial steady state failed: ") + e.what());
      }
    } else {
      const double t0 = server.parameters().inlet_temperature;
      x = {t0, t0, t0};
    }
    std::size_t next_grid = 0;
    auto record = [&](double t) {
      while (next_grid < out.grid.size() && out.grid[next_grid] <= t + 1e-12) {
        if (!physical_temperature(x[0])) non_physical(trace, j, "junction temperature", t, x[0], "K");
        if (!physical_temperature(x[1])) non_physical(trace, j, "HBM temperature", t, x[1], "K");
        junction.push_back(x[0]);
        hbm.push_back(x[1]);
        ++next_grid;
      }
    };
    record(edges.front());
    for (std::size_t e = 1; e < edges.size(); ++e) {
      const double a = edges[e - 1], b = edges[e];
      x = server.advance(j, x, power[j][sample_holding(times[j], b)], server.local_air_temperature(j, heat[e]), b - a);
      record(b);
    }
  }
  return out;
}

}  // namespace dctwin::io::replay

namespace dctwin::io {

void check_replay_scenario(const ScenarioDocument& scenario) {
  if (scenario.tree.text("site") != "single-node" || scenario.tree.section("server").text("cooling") != "air") {
    (void)check_site(scenario);
    return;
  }
  try {
    (void)models::thermal::AirCooledServer::from(scenario.tree.section("server"));
  } catch (const core::InputError& e) {
    throw core::InputError(describe_error(scenario, e), e.key_path());
  }
}

}  // namespace dctwin::io
