// A site: everything a scenario assembles into one simulation, plus the bookkeeping that turns a
// run into summary figures. A Site holds no results of its own beyond running extrema; the state
// trajectory lives with the caller.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/electrical/feed.hpp"
#include "dctwin/models/facility/weather.hpp"
#include "dctwin/solver/simulator.hpp"
#include "dctwin/solver/system.hpp"

namespace dctwin::models::facility {

class Site {
 public:
  virtual ~Site() = default;

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const solver::System& system() const noexcept { return system_; }
  [[nodiscard]] const solver::SimulationSettings& settings() const noexcept { return settings_; }
  [[nodiscard]] solver::SimulationSettings& settings() noexcept { return settings_; }

  /// The state the run starts from (as the scenario's `simulation.initial_state` asks).
  [[nodiscard]] virtual std::vector<double> initial_state() const = 0;
  /// Called with every sample, to follow extrema and limit checks.
  virtual void observe(double t, const std::vector<double>& x, const std::vector<double>& outputs) = 0;
  /// Whether the site has an electrical feed, stepped at its own fine step between the solver's
  /// knots (multirate; see knot()).
  [[nodiscard]] virtual bool has_electrical_feed() const { return false; }
  /// A knot of the run (solver::SimulationObserver::on_knot): the electrical feed advances to t
  /// with the load's left limit (discrete state `before`) and goes on from its right limit (`after`).
  virtual void knot(double /*t*/, const std::vector<double>& /*x*/, const std::vector<double>& /*before*/,
                    const std::vector<double>& /*after*/) {}
  /// The states knot() reads (solver::SimulationObserver::states_read_by_knots), or nullopt for any.
  [[nodiscard]] virtual std::optional<solver::StateRanges> states_read_by_knots() const { return std::nullopt; }
  /// The grid-connection samples produced since the last call (moved out).
  virtual std::vector<electrical::GridSample> take_grid_samples() { return {}; }
  /// Data that does not change during the run (layout, maps), written once into the report.
  [[nodiscard]] virtual std::vector<core::StaticData> static_data() const { return {}; }
  /// Problems of the design that do not stop a run, one sentence each (an undersized plant).
  [[nodiscard]] virtual std::vector<std::string> design_warnings() const { return {}; }
  /// Summary figures at the end of a run (x0: initial state, x: final state, discrete: final
  /// discrete state).
  [[nodiscard]] virtual std::vector<core::SummaryFigure> summary(const std::vector<double>& x0,
                                                                   const std::vector<double>& x,
                                                                   const std::vector<double>& discrete) const = 0;

 protected:
  std::string name_;
  solver::System system_;
  solver::SimulationSettings settings_;
};

/// Settings shared by every scenario (`simulation:` section).
core::SectionSchema simulation_schema();
/// Reads the `simulation:` section into settings.
solver::SimulationSettings simulation_settings(const core::ParameterTree& simulation);

/// Schema of a scenario file (all sites dctwin can build).
core::SectionSchema scenario_schema();
/// The top-level sections that belong to the other kind of site than the scenario's (`facility`
/// and `electrical` for a single-node site, `server` and `loop` for a facility). They must not be
/// written (build_site refuses them); a resolved scenario leaves them out, so that it runs again.
std::vector<std::string> sections_of_other_site_kind(const core::ParameterTree& scenario);
/// Fills the pod loop's topology where a facility scenario leaves it to its defaults, from the
/// layout: facility.pod_loop.rack_count = layout.racks_per_pod, pod_loop.rack.servers =
/// layout.servers_per_rack and pod_loop.rack.plates_per_server = layout.gpus_per_server (one cold
/// plate per GPU). A key written in the file is kept, and the site checks it against the layout.
/// Nothing changes for a single-node scenario. The resolved scenario a report keeps has it filled.
void derive_pod_loop_topology(core::ParameterTree& scenario);
/// The same on a facility's `layout` and `pod_loop` sections.
void derive_pod_loop_topology(const core::ParameterTree& layout, core::ParameterTree& pod_loop);
/// The most GPUs a facility site may hold: 42x the 24,576-GPU Llama 3 hall and several times the
/// largest clusters built so far. Each layout count has its own range; this bounds their product.
inline constexpr std::int64_t max_facility_gpus = std::int64_t{1} << 20;

/// What simulating a scenario's site takes, from its parameters alone (nothing is built), so that a
/// site too large for the machine is refused at once instead of after gigabytes of allocation.
struct SiteSize {
  std::int64_t gpus = 0;    ///< GPUs of the site
  double memory = 0.0;      ///< estimated peak memory of building and running it [bytes]
  /// Where the GPUs come from, for messages: `facility.layout.pods x ... = 8 x 192 x 2 x 8 =
  /// 24576 GPUs` or `server.gpu_count = 8 GPUs`; and the key path to locate such a message at.
  std::string gpus_text;
  std::string key_path;
};
[[nodiscard]] SiteSize estimate_site_size(const core::ParameterTree& scenario);
/// "1.5 GiB": a byte count for messages (binary prefixes, three digits).
[[nodiscard]] std::string format_bytes(double bytes);

/// Builds the site a resolved scenario describes. Throws core::InputError (with the key path)
/// for inconsistencies the schema cannot express, such as a topology that does not fit together.
/// `weather_file`: the weather series io/ read when the scenario names a weather file.
std::unique_ptr<Site> build_site(const core::ParameterTree& scenario, std::optional<WeatherSeries> weather_file = {});

}  // namespace dctwin::models::facility
