// Pieces of the replay shared by validation and calibration (io/src only).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/io/validation.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/training_job.hpp"

namespace dctwin::io::replay {

/// A trace made ready for the replay: times relative to its first sample, gaps filled.
struct PreparedTrace {
  std::string source;
  std::vector<std::string> labels;
  std::vector<std::size_t> model_gpu;              ///< model GPU of each trace GPU
  std::size_t model_count = 0;                     ///< GPUs of the scenario's server
  double epoch = 0.0;                              ///< Unix time of relative time 0
  std::vector<std::vector<double>> time;           ///< [s] since `epoch`
  std::vector<std::vector<double>> power;          ///< measured `power`, NaN kept [W]
  std::vector<std::vector<double>> drive;          ///< power driving the thermal replay, gaps filled [W]
  std::vector<std::vector<double>> temperature;    ///< measured `gpu_temperature`, NaN kept [K]
  std::vector<std::vector<double>> temperature_filled;  ///< gaps held from the nearest sample [K]
  std::vector<std::vector<double>> clock;          ///< measured `sm_clock`, NaN kept [Hz]
  std::vector<std::vector<double>> reasons;        ///< measured `clock_event_reasons`, NaN kept [1]
  bool has_temperature = false;
  bool has_clock = false;
  bool has_reasons = false;   ///< clock-event reasons with at least one value
  bool drive_instant = false; ///< `drive` is the instantaneous power (power_instant)
  double start = 0.0;     ///< start of the first sample's interval [s]
  double end = 0.0;       ///< last sample [s]
  double interval = 1.0;  ///< median sampling interval [s]
  std::vector<std::string> notes;
};

/// The model's parameters as the replay uses them.
struct ModelParameters {
  models::thermal::GpuPackageParameters package;
  std::vector<models::thermal::GpuSpread> spread;  ///< one per model GPU
  models::workload::WorkloadParameters workload;
  double supply_temperature = 0.0;
  /// `server.cooling`: `cold_plate` (the single-node site on its loop) or `air` (the air-cooled
  /// server of models/thermal/air_cooled_server.hpp).
  std::string cooling = "cold_plate";

  /// L_i(T_j) [W].
  [[nodiscard]] double leakage(std::size_t gpu, double junction_temperature) const;
  /// Board power of phase q at clock f without leakage [W].
  [[nodiscard]] double phase_power(std::size_t gpu, ReplayPhase phase, double clock) const;
  [[nodiscard]] double activity(ReplayPhase phase) const;
  /// Board power of phase q at clock f with leakage L [W]: the power limit for power_capped,
  /// else P_static + s_i P_dyn(a_q, f) + L.
  [[nodiscard]] double board_power(std::size_t gpu, ReplayPhase phase, double clock, double leakage) const;
  /// The activity GPU i's governor reads in phase q: a_q s_i (its power scale), as the job's.
  [[nodiscard]] double governor_activity(std::size_t gpu, ReplayPhase phase) const;
};

/// Checks that `scenario` is a single-node site and reads its parameters.
ModelParameters read_model(const core::ParameterTree& tree);

PreparedTrace prepare(const TelemetryTrace& trace, const ScenarioDocument& scenario, const ValidationOptions& options);

/// Junction and HBM temperatures of every model GPU on a grid of times.
struct ThermalReplay {
  std::vector<double> grid;                     ///< [s]
  std::vector<std::vector<double>> junction;    ///< per model GPU [K]
  std::vector<std::vector<double>> hbm;         ///< per model GPU [K]
  /// Linear interpolation of `series` on the grid at time t (held beyond the ends).
  [[nodiscard]] double at(const std::vector<double>& series, double t) const;
};

/// Runs the site of `tree` driven by the trace's power (drive less leakage at the measured
/// temperature). Throws ReplayError when the run stops early.
ThermalReplay replay_thermal(const PreparedTrace& trace, const core::ParameterTree& tree,
                             const ModelParameters& model, const ValidationOptions& options);

/// The air-cooled server's replay (server.cooling: air): each model GPU integrated on its own with
/// the local air from every GPU's measured power (validation_air_replay.cpp). `only_gpu`: replay
/// that model GPU alone (the others' series stay empty), as the per-GPU calibration does.
/// `previous`: a first pass whose junction gives the leakage to take out of the measured power
/// where the trace has no temperature (else the leakage reference temperature is used).
/// Throws ReplayError when a temperature leaves the physical range (see check_physical).
ThermalReplay replay_thermal_air(const PreparedTrace& trace, const core::ParameterTree& tree,
                                 const ModelParameters& model, const ValidationOptions& options,
                                 std::optional<std::size_t> only_gpu = std::nullopt,
                                 const ThermalReplay* previous = nullptr);

/// Physical range of a replayed temperature [K]: -100 degC to 200 degC. A GPU shuts itself down
/// near 90 degC (92 degC on an H100) and no part of a server survives 200 degC, so a replay beyond
/// it has run away (leakage without a fixed point, parameters far off), not measured anything.
inline constexpr double lowest_physical_temperature = 173.15;
inline constexpr double highest_physical_temperature = 473.15;
/// Largest board power of one GPU a replay may give [W] (100 kW: 140 times an H100's 700 W limit).
inline constexpr double highest_physical_power = 1e5;

/// Throws ReplayError naming the GPU, the time and the value when a replayed junction or HBM
/// temperature is not finite or outside the physical range.
void check_physical(const PreparedTrace& trace, const ThermalReplay& replay);

/// Simulated power, clock and temperature at the trace's samples.
struct PowerReplay {
  std::vector<std::vector<ReplayPhase>> phases;  ///< phase in effect at each sample time
  std::vector<std::vector<PhaseEdge>> timeline;  ///< per trace GPU: when each phase began
  std::vector<std::vector<double>> power;        ///< NVML-averaged board power [W]
  std::vector<std::vector<double>> clock;        ///< governor clock [Hz]
  std::vector<std::vector<double>> temperature;  ///< junction temperature [K]
  /// Samples next to a phase change (their averaging window may straddle it).
  std::vector<std::vector<bool>> transition;
};

/// `phases`: use these instead of deriving them from the measured power (calibration holds them
/// while it fits the power model); `timeline`: the times of their changes as well (else dated
/// from the measured power, date_phase_changes). Readings whose windows do not overlap are dated
/// by date_window_mixtures unless `mixtures` is false (one phase per reading, date_phase_changes).
PowerReplay replay_power(const PreparedTrace& trace, const ModelParameters& model, const ThermalReplay& thermal,
                         const ValidationOptions& options,
                         const std::vector<std::vector<ReplayPhase>>* phases = nullptr,
                         const std::vector<std::vector<PhaseEdge>>* timeline = nullptr, bool mixtures = true);

/// Whether the readings of `trace` are dated by date_window_mixtures (windows that do not overlap).
bool dated_as_mixtures(const PreparedTrace& trace, const ValidationOptions& options);

/// The fit of the power model's phase levels to the measured power of the training samples
/// (validation_calibration.cpp): sets the fitted values in `tree` and returns them, with notes;
/// bounds and initial values are those of `original` (the scenario as given).
struct PowerFit {
  std::vector<CalibratedParameter> parameters;
  std::vector<std::string> notes;
  bool failed = false;  ///< the values made the thermal replay fail; `tree` keeps the previous ones
};
PowerFit fit_power_levels(const PreparedTrace& trace, const core::ParameterTree& original,
                          core::ParameterTree& tree, const ThermalReplay& thermal, const ValidationOptions& options,
                          double split_time);

/// Throws ReplayError naming the GPU, the time and the value when a replayed board power is not
/// finite or beyond highest_physical_power.
void check_physical(const PreparedTrace& trace, const PowerReplay& replay);

/// Metrics and series of a replay, with the options' metric window.
ValidationResult assemble(const PreparedTrace& trace, const PowerReplay& replay, const ValidationOptions& options);

}  // namespace dctwin::io::replay
