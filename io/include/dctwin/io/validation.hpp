// Validation of the single-node server model against measured GPU telemetry: error metrics, the
// replay of a trace through the model, calibration of its parameters, and an exporter that writes
// a simulated server as nvidia-smi CSV. See docs/validation.md for the method and its limits.
//
// Error metrics (pure functions; s_i simulated, m_i measured, n pairs, p model parameters):
//   MAE      = sum |s_i - m_i| / n
//   RMSE     = sqrt(sum (s_i - m_i)^2 / n)
//   bias     = sum (s_i - m_i) / n                              (mean simulated minus measured)
//   max      = max |s_i - m_i|
//   CV(RMSE) = sqrt(sum (m_i - s_i)^2 / (n - p)) / mean(m)
//   NMBE     = sum (m_i - s_i) / ((n - p) mean(m))
// CV(RMSE) and NMBE are written as ASHRAE Guideline 14-2014 (Measurement of Energy, Demand, and
// Water Savings) writes them for calibrated simulation, with n - p degrees of freedom and the
// residual measured minus simulated: a positive NMBE means the model under-predicts, the opposite
// sign of `bias`. They are returned as fractions (the guideline quotes percent), p = 1 by default.
//   lag      = dt argmax_k r(k),  r(k) = sum_i (m_i - mean m)(s_{i+k} - mean s) / N_k  over the
//              N_k pairs that overlap, |k| dt <= max_lag (the smallest |k| wins a tie, then k < 0)
// A positive lag means the simulated series runs late: s(t) ~ m(t - lag).
// Pairs where either value is NaN are left out of every metric (and of r(k)).
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/telemetry.hpp"

namespace dctwin::io {

// ---- metrics --------------------------------------------------------------------------------------

/// A problem with the arguments of a metric (sizes differ, too few valid pairs).
class MetricError : public core::InputError {
 public:
  using core::InputError::InputError;
};

[[nodiscard]] double mean_absolute_error(std::span<const double> simulated, std::span<const double> measured);
[[nodiscard]] double root_mean_square_error(std::span<const double> simulated, std::span<const double> measured);
/// Mean of simulated minus measured.
[[nodiscard]] double mean_bias_error(std::span<const double> simulated, std::span<const double> measured);
/// Largest |simulated - measured|.
[[nodiscard]] double max_absolute_error(std::span<const double> simulated, std::span<const double> measured);
/// ASHRAE Guideline 14 CV(RMSE) as a fraction; needs n > p valid pairs and a nonzero mean.
[[nodiscard]] double cv_rmse(std::span<const double> simulated, std::span<const double> measured, int parameters = 1);
/// ASHRAE Guideline 14 NMBE as a fraction (measured minus simulated); needs n > p and a nonzero mean.
[[nodiscard]] double nmbe(std::span<const double> simulated, std::span<const double> measured, int parameters = 1);
/// Lag of the cross-correlation peak [s] for series sampled every `interval` seconds; lags up to
/// `max_lag` seconds either way. 0 when either series is constant (to 1e-9 of its level).
[[nodiscard]] double cross_correlation_lag(std::span<const double> simulated, std::span<const double> measured,
                                           double interval, double max_lag);

/// Every metric of one series (or of several GPUs' series pooled).
struct ErrorMetrics {
  std::size_t count = 0;  ///< valid pairs
  double mae = 0.0;
  double rmse = 0.0;
  double bias = 0.0;
  double cv_rmse = 0.0;
  double nmbe = 0.0;
  double max_error = 0.0;
  double lag = 0.0;  ///< [s]
  double measured_mean = 0.0;
};

/// The names of ErrorMetrics' fields as written in files and tables, in order: mae, rmse, bias,
/// cv_rmse, nmbe, max_error, lag.
[[nodiscard]] const std::vector<std::string>& metric_names();
/// Value of the metric called `name` (one of metric_names()).
[[nodiscard]] double metric_value(const ErrorMetrics& metrics, const std::string& name);
/// Unit of a metric of a quantity in `unit`: `unit` for mae, rmse, bias, max_error; `1` for
/// cv_rmse and nmbe; `s` for lag.
[[nodiscard]] std::string metric_unit(const std::string& name, const std::string& unit);

/// All metrics of one pair of series. NaN values for metrics that cannot be computed (too few
/// pairs, zero measured mean) instead of throwing.
[[nodiscard]] ErrorMetrics compute_metrics(std::span<const double> simulated, std::span<const double> measured,
                                           double interval, double max_lag, int parameters = 1);
/// The metrics of several pairs of series pooled into one sample (all pairs count once; the lag
/// is the peak of the cross-correlation summed over the series).
[[nodiscard]] ErrorMetrics compute_pooled_metrics(const std::vector<std::vector<double>>& simulated,
                                                  const std::vector<std::vector<double>>& measured, double interval,
                                                  double max_lag, int parameters = 1);

// ---- phases -----------------------------------------------------------------------------------------

/// Phases recognised from measured power. `power_capped`: work held at the board power limit
/// (NVML clock-event reason SwPowerCap, 0x4), which draws the limit whatever its activity.
enum class ReplayPhase : int { idle = 0, stall = 1, communication = 2, compute = 3, power_capped = 4 };
inline constexpr std::size_t replay_phase_count = 5;
/// `idle`, `stall`, `communication`, `compute`, `power_capped`.
[[nodiscard]] std::string_view replay_phase_name(ReplayPhase phase);

/// The phase of each sample from its power and the power each phase would draw then.
///
/// `levels[k][q]` is the board power of phase q at sample k; a NaN level leaves phase q out. The
/// first sample takes the phase whose level is nearest. Afterwards the phase changes from c to the nearest
/// phase n only when the power is past the midpoint of the two levels by more than `hysteresis`
/// times their gap:  (P - (L_c + L_n) / 2) sign(L_n - L_c) > hysteresis |L_n - L_c|.
/// A NaN power keeps the previous phase (idle at the start).
[[nodiscard]] std::vector<ReplayPhase> derive_phases(std::span<const double> power,
                                                     const std::vector<std::array<double, replay_phase_count>>& levels,
                                                     double hysteresis);

/// A change of phase: `phase` holds from `time` on (until the next edge).
struct PhaseEdge {
  double time = 0.0;  ///< [s], on the time axis of the samples
  ReplayPhase phase = ReplayPhase::idle;
};

/// When each change of a phase sequence happened, from the samples it was derived from.
///
/// `phases` were derived (derive_phases) from `power` at sample times `time` with `levels`. For
/// a reading that is the mean over the `window` seconds before its sample (NVML's power.draw), a
/// step from level L_o to L_n at time e makes the reading ramp linearly from t = e to e + window:
///     phi_k = (P_k - L_o) / (L_n - L_o) = (t_k - e) / window        0 < phi_k < 1
/// so each change is dated e = t_m - window phi_m from the sample m of the ramp (within `window`
/// before the change was recognised, since the previous change) whose phi is nearest 1/2. When no
/// sample lies on the ramp (sampling at least as slow as the window), e is the middle of
/// [t_(k-1), t_k - window]. `window` = 0 (instantaneous power): e is the middle of (t_(k-1), t_k].
/// Edges never go back before the previous one. The first edge is the first sample's phase at
/// -infinity. With window > 0, two changes at most a window apart that go the same way
/// (L_A < L_B < L_C or L_A > L_B > L_C: the mean passing through the level of B on a step from A
/// to C) are taken as one change from A to C.
[[nodiscard]] std::vector<PhaseEdge> date_phase_changes(std::span<const double> time, std::span<const double> power,
                                                        const std::vector<ReplayPhase>& phases,
                                                        const std::vector<std::array<double, replay_phase_count>>& levels,
                                                        double window);

/// Phase changes inside the readings' own windows, for readings whose windows do not overlap
/// (sampling at least as slow as the averaging `window`, e.g. NVML's 1-s mean read once a second).
///
/// Phases shorter than the window (a 0.6-s communication or 0.2-s optimizer step of a 2.8-s
/// training step) leave no sample at their level: each reading is a mix. Sample k's window
/// (t_k - W, t_k] starts in the phase A in effect before it; when its reading P_k is off A's level
/// L_A by more than `hysteresis` times the gap to the nearest level on that side, the window ends
/// in phase B, the phase beyond P_k (on the side away from L_A) whose level is nearest P_k (a
/// level short of P_k by at most `hysteresis` times its gap from L_A counts as beyond), and the
/// change is dated from the mean:
///     P_k W = L_A (e - t_k + W) + L_B (t_k - e)   =>   e = t_k - W + W (P_k - L_B) / (L_A - L_B)
/// clamped to the window. With no level beyond P_k, the furthest level on that side is taken (the
/// window is then all B). A window ends idle only when P_k is past the switching point of
/// derive_phases towards the idle level (idle begins and ends with a job, and the noise of a
/// stall's readings must not make it idle). A NaN level leaves its phase out. `capped` (empty, or one per sample):
/// the samples whose reading ends in the power-capped phase (SwPowerCap at the sample time); when
/// given, only those end in it, whatever their reading. A NaN reading keeps the phase. The first
/// edge is the first reading's nearest phase at -infinity.
[[nodiscard]] std::vector<PhaseEdge> date_window_mixtures(
    std::span<const double> time, std::span<const double> power,
    const std::vector<std::array<double, replay_phase_count>>& levels, const std::vector<bool>& capped, double window,
    double hysteresis);

/// The phase in effect at time t of a sequence of edges (the last edge at or before t).
[[nodiscard]] ReplayPhase phase_at(const std::vector<PhaseEdge>& edges, double t);

// ---- replay -----------------------------------------------------------------------------------------

/// The simulation of a replay stopped before the end of the trace (a solver failure); the message
/// names the time and the reason. It is stored through `core::printable()` (control characters
/// as visible escapes), like InputError's.
class ReplayError : public std::runtime_error {
 public:
  explicit ReplayError(const std::string& message) : std::runtime_error(core::printable(message)) {}
};

struct ValidationOptions {
  /// Trace GPU k drives model GPU gpu_map[k]; empty: GPU k -> k.
  std::vector<std::size_t> gpu_map;
  /// `steady_state`: the model starts at the steady state of the first samples' power;
  /// `supply_temperature`: every node at the coolant supply temperature.
  std::string initial_state = "steady_state";
  double averaging_window = 1.0;  ///< NVML power averaging [s] applied to simulated power
  double step = 0.1;              ///< sampling of the simulated state [s]
  double max_lag = 10.0;          ///< [s] for the lag metric
  double hysteresis = 0.1;        ///< of the phase derivation (see derive_phases)
  int parameters = 1;             ///< p of CV(RMSE) and NMBE
  /// Metrics only over samples with time (s since the trace's first sample) in [from, until).
  double metrics_from = -1e300;
  double metrics_until = 1e300;
  /// Relative tolerance of the integrator (the replay is compared with data, and calibration
  /// differentiates it numerically).
  double relative_tolerance = 1e-8;
};

/// Metrics of one quantity.
struct QuantityMetrics {
  std::string quantity;  ///< `power`, `junction_temperature`, `sm_clock`
  std::string unit;      ///< `W`, `K`, `Hz`
  std::vector<ErrorMetrics> per_gpu;  ///< one per trace GPU
  ErrorMetrics overall;               ///< all GPUs pooled
};

/// Measured and simulated values of one quantity at the trace's samples, per trace GPU.
struct QuantitySeries {
  std::string quantity;
  std::string unit;
  std::vector<std::vector<double>> time;  ///< s since the Unix epoch
  std::vector<std::vector<double>> measured;
  std::vector<std::vector<double>> simulated;
};

struct ValidationResult {
  std::vector<std::string> gpu_labels;  ///< trace GPU labels
  std::vector<std::size_t> model_gpus;  ///< the model GPU of each trace GPU
  double start_time = 0.0;              ///< first sample [s since the epoch]
  std::vector<std::vector<ReplayPhase>> phases;  ///< per trace GPU, per sample
  /// Share of samples in each phase, per trace GPU and overall [1].
  std::vector<std::array<double, replay_phase_count>> phase_share;
  std::array<double, replay_phase_count> overall_phase_share{};
  std::vector<QuantityMetrics> metrics;
  std::vector<QuantitySeries> series;
  std::vector<std::string> notes;  ///< assumptions made (missing quantities, filled gaps)
};

/// Replays `trace` through the single-node site of `scenario` (see docs/validation.md):
///  - temperatures: the GPUs driven by the measured power (power_instant when the trace has it),
///    less the package's leakage at the measured temperature, held over the interval before each
///    sample (models/workload/trace_power.hpp);
///  - power: phases derived from the measured power, each drawing P_static + s a_phase P_dyn(f)
///    plus leakage at the replayed junction temperature, f the measured clock (else the
///    governor's), averaged over `averaging_window` as NVML does;
///  - clock: the DVFS governor on the replayed temperatures and the phases' activity.
/// Throws TelemetryError for a trace that does not fit the scenario (more GPUs than the
/// scenario, no power), core::InputError for a scenario that is not a single-node site.
[[nodiscard]] ValidationResult validate_trace(const TelemetryTrace& trace, const ScenarioDocument& scenario,
                                              const ValidationOptions& options = {});

/// Checks a scenario for a replay before the trace is read: a single-node site whose server
/// builds. For `server.cooling: cold_plate` that is check_site(); for `air` the air-cooled server
/// (models/thermal/air_cooled_server.hpp), which dctwin run does not simulate. Throws
/// core::InputError located in the scenario file.
void check_replay_scenario(const ScenarioDocument& scenario);

/// Writes a validation result as HDF5 (layout in docs/validation.md) through an OutputFile;
/// `file` must not be one of `inputs`. Throws ReportError.
void write_validation_hdf5(const ValidationResult& result, const std::filesystem::path& file,
                           const std::vector<InputFile>& inputs = {});

/// The metrics as a text table: one row per quantity and GPU (and `all`), then the phase shares.
[[nodiscard]] std::string format_validation_table(const ValidationResult& result);

// ---- calibration --------------------------------------------------------------------------------------

/// One fitted parameter, named as in the scenario.
struct CalibratedParameter {
  std::string section;  ///< `server.gpu`, `workload.gpu_power`
  std::string key;      ///< `junction_to_base_resistance`, ...
  std::string unit;     ///< SI unit
  double initial = 0.0;
  double value = 0.0;
  double lower = 0.0;  ///< bounds respected by the fit
  double upper = 0.0;
  /// The fitted value ended on `lower` or `upper` (to 1e-6 of the range): the bound, not the
  /// trace, set it, and the trace does not determine it (or wants it beyond the bound).
  bool at_bound = false;
};

struct CalibrationOptions {
  double train_fraction = 0.7;  ///< share of the trace's time span used for the fit
  ValidationOptions validation;
  int outer_iterations = 3;     ///< thermal fit, then phases and power fit, repeated
  /// Also fit the coolant supply temperature (`loop.supply_temperature`), which telemetry of the
  /// GPUs alone does not give: it sets the level of every temperature. Off by default: it trades
  /// off against the resistances and the base capacitance (the round trip recovers them within
  /// 2 % with the supply known, within about 3 % with it fitted).
  bool fit_supply_temperature = false;
};

struct CalibrationResult {
  std::vector<CalibratedParameter> parameters;
  double split_time = 0.0;        ///< end of the training span [s since the trace's first sample]
  ValidationResult training;      ///< metrics over the training span, calibrated model
  ValidationResult held_out;      ///< metrics over the rest, calibrated model
  int evaluations = 0;            ///< replays of the thermal model run by the fit
  std::string fragment;           ///< the calibrated values as a scenario fragment (YAML)
  std::vector<std::string> notes; ///< where the fit had to stop early, and why
};

/// Fits, by Levenberg-Marquardt on log-scaled factors within the parameter tables' ranges and a
/// factor of 5 of the starting values,
/// the GPU package's junction-to-base resistance, junction and base capacitances (and, if asked,
/// the coolant supply temperature) to the measured temperature and the power model's static power, dynamic power at f_max and leakage
/// temperature coefficient (to the measured power), on the first `train_fraction` of the trace.
/// Throws like validate_trace, and TelemetryError when the trace lacks power or temperature.
[[nodiscard]] CalibrationResult calibrate_trace(const TelemetryTrace& trace, const ScenarioDocument& scenario,
                                                const CalibrationOptions& options = {});

/// Writes a calibration's held-out metrics and series in the layout of write_validation_hdf5()
/// (`/validation`, metrics after the split) plus `/calibration`: the parameters (`parameter`,
/// `unit`, `initial`, `value`, `lower`, `upper`, `at_bound`), attributes `split_time`,
/// `evaluations`, `notes`, and `training/metrics` (before the split). Throws ReportError.
void write_calibration_hdf5(const CalibrationResult& result, const std::filesystem::path& file,
                            const std::vector<InputFile>& inputs = {});

/// The parameters as a scenario fragment: their sections and keys as in the scenario, values in SI
/// with their units, e.g. `server:\n  gpu:\n    junction_to_base_resistance: 0.025 K/W`.
[[nodiscard]] std::string calibration_fragment(const std::vector<CalibratedParameter>& parameters);

/// `scenario` (YAML text) with every key of `fragment` (YAML text) set, sections merged key by
/// key: what `dctwin check` then reads. Throws TelemetryError when either text is not YAML
/// mappings. Comments of the scenario are not kept.
[[nodiscard]] std::string merge_scenario_fragment(std::string_view scenario, std::string_view fragment);

/// A copy of `scenario` with the parameters set to their calibrated values (for a replay).
[[nodiscard]] ScenarioDocument apply_calibration(const ScenarioDocument& scenario,
                                                 const std::vector<CalibratedParameter>& parameters);

// ---- exporter ------------------------------------------------------------------------------------------

struct NvidiaSmiExportOptions {
  double interval = 1.0;          ///< sampling of the rows [s]
  double averaging_window = 1.0;  ///< NVML's power average [s]
  double epoch = 1753572729.0;    ///< Unix time of simulated t = 0 (2025-07-26T23:32:09Z)
  int temperature_decimals = 0;   ///< nvidia-smi prints whole degrees
  /// Sampling of the simulation for the power average [s]; 1/64 s is exact in binary, so whole
  /// and half seconds (phase edges of a given-timing job) fall on the grid.
  double step = 1.0 / 64.0;
};

/// Simulates the single-node site of `scenario` with its training job for its duration and
/// writes, every `interval` from the first full averaging window on, each GPU's row as
/// `nvidia-smi --query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.sm --format=csv`
/// prints it: board power averaged over the window before the row (2 decimals, W), junction
/// temperature (degC), SM clock (MHz). Throws core::InputError for a bad scenario,
/// ReportError when the file cannot be written, solver::SolverError when the run fails.
void export_nvidia_smi_csv(const ScenarioDocument& scenario, const std::filesystem::path& file,
                           const NvidiaSmiExportOptions& options = {});

}  // namespace dctwin::io
