// The power and clock replay: phase changes dated from NVML's 1-s mean, the power-capped phase
// from the clock-event reasons, and calibration of the phase levels on synthetic 10-Hz traces of
// 8 H100 and 8 A100 GPUs (make_power_traces.py), trained on the first half and scored on the second.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "../../support/run_program.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/validation.hpp"

namespace fs = std::filesystem;
using namespace dctwin::io;

namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "validation" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The mean over (t - window, t] of a piecewise constant signal: `edges` (time, level from then on).
double running_mean(const std::vector<std::pair<double, double>>& edges, double t, double window) {
  double integral = 0.0;
  const double from = t - window;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const double a = std::max(from, edges[i].first);
    const double b = std::min(t, i + 1 < edges.size() ? edges[i + 1].first : t);
    if (b > a) integral += edges[i].second * (b - a);
  }
  return integral / window;
}

const QuantityMetrics& metrics_of(const ValidationResult& r, const std::string& quantity) {
  for (const auto& q : r.metrics)
    if (q.quantity == quantity) return q;
  throw std::runtime_error("no metrics of " + quantity);
}

}  // namespace

// Levels idle 100, stall 150, communication 300, compute 500 W. A step from compute to stall at
// 3.37 s read as the mean of the second before each sample, every 0.1 s: the mean passes through
// the communication level (one change, not two), and the ramp dates the step exactly.
TEST_CASE("phase changes: dated from the ramp of the 1-s mean", "[validation][phases]") {
  using P = ReplayPhase;
  const std::vector<std::pair<double, double>> truth{{-10.0, 500.0}, {3.37, 150.0}};
  std::vector<double> time, power;
  for (int k = 1; k <= 80; ++k) {
    time.push_back(0.1 * k);
    power.push_back(running_mean(truth, 0.1 * k, 1.0));
  }
  const std::vector<std::array<double, replay_phase_count>> levels(time.size(), {100, 150, 300, 500, nan_value});
  const auto phases = derive_phases(power, levels, 0.1);
  CHECK(std::find(phases.begin(), phases.end(), P::communication) != phases.end());
  const auto edges = date_phase_changes(time, power, phases, levels, 1.0);
  REQUIRE(edges.size() == 2);
  CHECK(edges[0].phase == P::compute);
  CHECK(edges[1].phase == P::stall);
  CHECK(edges[1].time == Approx(3.37).margin(1e-9));
  CHECK(phase_at(edges, 3.36) == P::compute);
  CHECK(phase_at(edges, 3.38) == P::stall);

  // Once a second: an edge on a sample time and one half-way between samples.
  for (const double e : {7.0, 7.5}) {
    const std::vector<std::pair<double, double>> step{{-10.0, 150.0}, {e, 500.0}};
    std::vector<double> t1, p1;
    for (int k = 1; k <= 15; ++k) {
      t1.push_back(k);
      p1.push_back(running_mean(step, k, 1.0));
    }
    const std::vector<std::array<double, replay_phase_count>> l1(t1.size(), {100, 150, 300, 500, nan_value});
    const auto e1 = date_phase_changes(t1, p1, derive_phases(p1, l1, 0.1), l1, 1.0);
    REQUIRE(e1.size() == 2);
    CHECK(e1[1].phase == P::compute);
    CHECK(e1[1].time == Approx(e).margin(1e-9));
  }

  // Instantaneous power (window 0): the change sits half-way between the two samples.
  const std::vector<double> ti{1.0, 2.0, 3.0}, pi{150.0, 150.0, 500.0};
  const std::vector<std::array<double, replay_phase_count>> li(3, {100, 150, 300, 500, nan_value});
  const auto ei = date_phase_changes(ti, pi, derive_phases(pi, li, 0.1), li, 0.0);
  REQUIRE(ei.size() == 2);
  CHECK(ei[1].time == 2.5);
}

// Levels idle 100, stall 150, communication 300, compute 500 W. A training step of 2.0 s of
// compute and 0.8 s of communication, read once a second as the mean of the second before: no
// reading sits at the communication level, and most hold both phases. Dated inside each window,
// the timeline gives every reading back, and the time spent communicating is the truth's.
TEST_CASE("phase changes: phases shorter than the window, read once a window", "[validation][phases]") {
  using P = ReplayPhase;
  std::vector<std::pair<double, double>> truth{{-10.0, 500.0}};
  for (double start = 0.0; start < 40.0; start += 2.8) {
    truth.emplace_back(start + 2.0, 300.0);
    truth.emplace_back(start + 2.8, 500.0);
  }
  std::vector<double> time, power;
  for (int k = 1; k <= 30; ++k) {
    time.push_back(k);
    power.push_back(running_mean(truth, k, 1.0));
  }
  const std::vector<std::array<double, replay_phase_count>> levels(time.size(), {100, 150, 300, 500, nan_value});
  const auto edges = date_window_mixtures(time, power, levels, {}, 1.0, 0.1);
  REQUIRE(edges.size() > 10);
  CHECK(edges[0].phase == P::compute);
  std::vector<std::pair<double, double>> dated;
  for (const auto& e : edges) dated.emplace_back(e.time, levels[0][static_cast<std::size_t>(e.phase)]);
  for (std::size_t k = 0; k < time.size(); ++k) {
    INFO("t = " << time[k] << " s");
    CHECK(running_mean(dated, time[k], 1.0) == Approx(power[k]).margin(1e-9));
  }
  // Time in communication over (0, 30] s: dated and true.
  auto communicating = [](const std::vector<std::pair<double, double>>& e) {
    double total = 0.0;
    for (std::size_t i = 0; i < e.size(); ++i) {
      const double a = std::max(0.0, e[i].first), b = std::min(30.0, i + 1 < e.size() ? e[i + 1].first : 30.0);
      if (e[i].second == 300.0 && b > a) total += b - a;
    }
    return total;
  };
  CHECK(communicating(dated) == Approx(communicating(truth)).margin(1e-9));

  // A reading within the hysteresis of its phase's level (10 % of the 200-W gap to the next level
  // down) is that phase alone; further off, the window ends in the next phase; beyond every level
  // on its side, the window is the furthest phase throughout.
  const std::vector<double> t3{1.0, 2.0, 3.0, 4.0}, p3{500.0, 485.0, 460.0, 60.0};
  const std::vector<std::array<double, replay_phase_count>> l3(4, {100, 150, 300, 500, nan_value});
  const auto e3 = date_window_mixtures(t3, p3, l3, {}, 1.0, 0.1);
  REQUIRE(e3.size() == 3);
  CHECK(e3[1].phase == P::communication);
  CHECK(e3[1].time == Approx(2.0 + (460.0 - 300.0) / 200.0).margin(1e-12));
  CHECK(e3[2].phase == P::idle);
  CHECK(e3[2].time == 3.0);
  // Readings of a stall a few watts either side of its level stay a stall: idle only past the
  // switching point (the middle of the two levels plus a tenth of their gap).
  const std::vector<double> p5{150.0, 140.0, 156.0, 128.0, 118.0};
  const std::vector<double> t5{1.0, 2.0, 3.0, 4.0, 5.0};
  const std::vector<std::array<double, replay_phase_count>> l5(5, {100, 150, 300, 500, nan_value});
  const auto e5 = date_window_mixtures(t5, p5, l5, {}, 1.0, 0.1);
  REQUIRE(e5.size() == 2);
  CHECK(e5[0].phase == P::stall);
  CHECK(e5[1].phase == P::idle);
  CHECK(e5[1].time == Approx(4.0 + (118.0 - 100.0) / 50.0).margin(1e-12));
  // With clock-event reasons, only the flagged reading ends capped, whatever the readings.
  const std::vector<std::array<double, replay_phase_count>> l4(4, {100, 150, 300, 500, 700});
  const std::vector<double> p4{500.0, 690.0, 600.0, 500.0};
  const auto e4 = date_window_mixtures(t3, p4, l4, {false, false, true, false}, 1.0, 0.1);
  REQUIRE(e4.size() == 3);
  CHECK(e4[1].phase == P::power_capped);
  CHECK(e4[1].time == Approx(2.0 + (600.0 - 700.0) / (500.0 - 700.0)).margin(1e-12));
  CHECK(e4[2].phase == P::compute);
}

namespace {

/// An nvidia-smi CSV of 2 GPUs read every 0.1 s for 60 s from the levels of power-h100.yaml at
/// 60 degC (leakage 50 W): idle 105 W, stall 165 W, communication 255 W, compute 537 W at
/// 1980 MHz, and two steps held at the 700-W limit at 1830 MHz with SwPowerCap (0x4). Power is
/// the mean of the `window` seconds before each row (NVML's 1-s average), or with a window of 0
/// the power at the row's time (GA100's instantaneous power.draw).
void write_level_trace(const fs::path& file, double window = 1.0) {
  struct Segment {
    double start;
    double power;
    int clock;
    int reasons;
  };
  std::vector<Segment> segments{{-10.0, 105.0, 345, 0x1}};
  double t = 5.37;
  for (int step = 0; step < 8; ++step) {
    const bool capped = step == 4 || step == 5;
    segments.push_back({t, capped ? 700.0 : 537.0, capped ? 1830 : 1980, capped ? 0x4 : 0});
    t += 4.13;
    segments.push_back({t, 255.0, 1980, 0});
    t += 1.46;
  }
  segments.push_back({t, 165.0, 1980, 0});
  segments.push_back({t + 6.2, 537.0, 1980, 0});
  std::vector<std::pair<double, double>> power;
  for (const auto& s : segments) power.emplace_back(s.start, s.power);
  std::ofstream out(file);
  out << "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], clocks_event_reasons.active\n";
  for (int k = 1; k <= 600; ++k) {
    for (int gpu = 0; gpu < 2; ++gpu) {
      const double time = 0.1 * k + 0.002 * gpu;
      std::size_t i = 0;
      while (i + 1 < segments.size() && segments[i + 1].start <= time) ++i;
      char row[160];
      const int millis = static_cast<int>(std::lround(time * 1000.0));
      std::snprintf(row, sizeof row, "2025/12/06 00:%02d:%02d.%03d, %d, %.3f W, 60, %d MHz, 0x%016x\n",
                    millis / 60000, (millis / 1000) % 60, millis % 1000, gpu,
                    window > 0.0 ? running_mean(power, time, window) : segments[i].power,
                    segments[i].clock, segments[i].reasons);
      out << row;
    }
  }
}

}  // namespace

// The replay of a trace made from the model's own levels: no lag at 10 Hz, the capped steps at the
// limit, every phase recognised.
TEST_CASE("power replay: no lag on a 10-Hz trace, capped steps at the limit", "[validation][power_replay]") {
  const auto dir = scratch("power_levels");
  write_level_trace(dir / "levels.csv");
  const TelemetryTrace trace = import_telemetry(dir / "levels.csv");
  REQUIRE(trace.gpus.size() == 2);
  const ScenarioDocument scenario =
      load_scenario_file(fs::path(DCTWIN_SOURCE_DIR) / "tests" / "io" / "validation" / "power-h100.yaml");
  const ValidationResult r = validate_trace(trace, scenario);
  const auto& power = metrics_of(r, "power");
  INFO("CV(RMSE) " << power.overall.cv_rmse << ", NMBE " << power.overall.nmbe << ", lag " << power.overall.lag
                   << ", max error " << power.overall.max_error);
  CHECK(power.overall.lag == 0.0);
  CHECK(power.overall.cv_rmse < 0.001);
  CHECK(std::abs(power.overall.nmbe) < 0.001);
  // Shares: idle 5.37 s, capped 8.26 s of the 60.
  CHECK(r.overall_phase_share[static_cast<std::size_t>(ReplayPhase::power_capped)] == Approx(8.26 / 60).margin(0.01));
  CHECK(r.overall_phase_share[static_cast<std::size_t>(ReplayPhase::idle)] == Approx(5.37 / 60).margin(0.01));
  CHECK(r.overall_phase_share[static_cast<std::size_t>(ReplayPhase::stall)] == Approx(6.2 / 60).margin(0.01));
  // Capped samples a full second into a capped step read the limit (the trace's time 0 is its
  // first row, 0.1 s after the segments' origin).
  const auto& series = r.series[0];
  int capped = 0;
  for (std::size_t k = 0; k < series.time[0].size(); ++k) {
    const double t = series.time[0][k] - r.start_time + 0.1;
    if (t > 5.37 + 4 * 5.59 + 1.01 && t < 5.37 + 4 * 5.59 + 4.12) {
      CHECK(series.simulated[0][k] == Approx(700.0).margin(1e-6));
      ++capped;
    }
  }
  CHECK(capped > 20);
}

namespace {

/// The attribute `overall` of /validation/metrics/QUANTITY/METRIC of a validation file.
double overall_metric(const fs::path& file, const std::string& quantity, const std::string& metric) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const std::string path = "/validation/metrics/" + quantity + "/" + metric;
  const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  REQUIRE(d >= 0);
  const hid_t a = H5Aopen(d, "overall", H5P_DEFAULT);
  double value = nan_value;
  H5Aread(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Dclose(d);
  H5Fclose(f);
  return value;
}

}  // namespace

// GA100 (A100) reports power.draw as the power at the reading (NVML nvmlDeviceGetPowerUsage: on
// Ampere but GA100 a 1-s average), which --power-window 0 selects. A trace of readings of the
// model's own levels at their times: with a window of 0 the replay gives each reading exactly (the
// CSV's 3 decimals); taking the readings for 1-s means instead smears every step over the second
// after it.
TEST_CASE("power replay: --power-window 0 reads power.draw as instantaneous", "[validation][power_replay]") {
  const auto dir = scratch("power_instant");
  write_level_trace(dir / "instant.csv", 0.0);
  const TelemetryTrace trace = import_telemetry(dir / "instant.csv");
  REQUIRE(trace.gpus.size() == 2);
  const fs::path scenario_file = fs::path(DCTWIN_SOURCE_DIR) / "tests" / "io" / "validation" / "power-h100.yaml";
  const ScenarioDocument scenario = load_scenario_file(scenario_file);
  ValidationOptions instant;
  instant.averaging_window = 0.0;
  const ValidationResult r = validate_trace(trace, scenario, instant);
  const auto& power = metrics_of(r, "power");
  INFO("window 0: CV(RMSE) " << power.overall.cv_rmse << ", NMBE " << power.overall.nmbe << ", max error "
                             << power.overall.max_error << " W, lag " << power.overall.lag << " s");
  CHECK(power.overall.count == 1200);
  CHECK(power.overall.max_error < 1e-3);
  CHECK(power.overall.lag == 0.0);
  CHECK(r.overall_phase_share[static_cast<std::size_t>(ReplayPhase::power_capped)] == Approx(8.26 / 60).margin(0.01));
  const ValidationResult averaged = validate_trace(trace, scenario);
  const auto& smeared = metrics_of(averaged, "power");
  INFO("window 1 s: CV(RMSE) " << smeared.overall.cv_rmse << ", max error " << smeared.overall.max_error << " W");
  CHECK(smeared.overall.cv_rmse > 0.05);
  CHECK(smeared.overall.max_error > 100.0);

  // The command line: --power-window 0 reaches the replay.
  for (const bool window_zero : {true, false}) {
    std::vector<std::string> args{"validate", "instant.csv", "--scenario", scenario_file.string(), "-q", "-o",
                                  window_zero ? "w0.h5" : "w1.h5"};
    if (window_zero) args.insert(args.end(), {"--power-window", "0"});
    const auto o = test_support::run_dctwin(args, dir);
    INFO(o.err);
    REQUIRE(o.code == 0);
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  CHECK(overall_metric(dir / "w0.h5", "power", "max_error") < 1e-3);
  CHECK(overall_metric(dir / "w0.h5", "power", "cv_rmse") == Approx(power.overall.cv_rmse).margin(1e-12));
  CHECK(overall_metric(dir / "w1.h5", "power", "cv_rmse") == Approx(smeared.overall.cv_rmse).margin(1e-12));
}

namespace {

/// Writes h100-10hz.csv, h100-dcgm-10hz.txt, a100-10hz.csv and a100-pynvml-1hz.csv (with its
/// column map) of `seconds` into `dir` with make_power_traces.py.
void make_traces(const fs::path& dir, int seconds) {
  const std::string command = std::string("/usr/bin/python3 ") + DCTWIN_SOURCE_DIR +
                              "/tests/io/validation/make_power_traces.py " + dir.string() + " --duration " +
                              std::to_string(seconds);
  REQUIRE(std::system(command.c_str()) == 0);
}

/// `trace` without its GPU temperature (power only: the thermal fit of a 10-Hz trace, one replay
/// of the site per evaluation, takes minutes).
TelemetryTrace without_temperature(TelemetryTrace trace) {
  const auto q = trace.quantity_index("gpu_temperature");
  if (!q) return trace;
  trace.quantities.erase(trace.quantities.begin() + static_cast<long>(*q));
  for (auto& gpu : trace.gpus) gpu.values.erase(gpu.values.begin() + static_cast<long>(*q));
  return trace;
}

CalibrationResult calibrate_half(const fs::path& trace_file, const char* scenario_name,
                                 const TelemetryImportOptions& import = {}) {
  const TelemetryTrace trace = without_temperature(import_telemetry(trace_file, import));
  REQUIRE(trace.gpus.size() == 8);
  const ScenarioDocument scenario =
      load_scenario_file(fs::path(DCTWIN_SOURCE_DIR) / "tests" / "io" / "validation" / scenario_name);
  CalibrationOptions options;
  options.train_fraction = 0.5;
  return calibrate_trace(trace, scenario, options);
}

void check_targets(const CalibrationResult& result) {
  const auto& power = metrics_of(result.held_out, "power");
  const auto& clock = metrics_of(result.held_out, "sm_clock");
  std::string fitted;
  for (const auto& p : result.parameters)
    fitted += p.section + "." + p.key + " " + std::to_string(p.initial) + " -> " + std::to_string(p.value) + "; ";
  INFO(fitted);
  INFO("held out: power CV(RMSE) " << power.overall.cv_rmse << ", NMBE " << power.overall.nmbe << ", lag "
                                   << power.overall.lag << "; clock MAE " << clock.overall.mae / 1e6 << " MHz");
  CHECK(power.overall.cv_rmse <= 0.03);
  CHECK(std::abs(power.overall.nmbe) <= 0.01);
  CHECK(std::abs(power.overall.lag) <= 0.1);
  CHECK(clock.overall.mae <= 30e6);
  CHECK(result.held_out.overall_phase_share[static_cast<std::size_t>(ReplayPhase::power_capped)] > 0.05);
}

/// Calibrates an H100 trace with temperatures on the air-cooled preset (first half) and holds the
/// second half to the power, clock and junction targets.
void check_air_preset_calibration(const TelemetryTrace& trace) {
  const ScenarioDocument scenario =
      load_scenario_file(fs::path(DCTWIN_SOURCE_DIR) / "scenarios" / "servers" / "hgx-h100-air.yaml");
  CalibrationOptions options;
  options.train_fraction = 0.5;
  const CalibrationResult result = calibrate_trace(trace, scenario, options);
  check_targets(result);
  const auto& junction = metrics_of(result.held_out, "junction_temperature");
  INFO("held out: junction MAE " << junction.overall.mae << " K");
  CHECK(junction.overall.mae <= 1.0);
  for (const auto& gpu : junction.per_gpu) CHECK(gpu.mae <= 1.0);
}

}  // namespace

// Synthetic traces from a model with other parameters than the scenarios' (make_power_traces.py),
// calibrated on the first half and scored on the second: the targets of docs/validation.md.
// (The H100 trace's temperatures are left out here, see without_temperature.)
TEST_CASE("power calibration: H100 10-Hz trace, held-out half", "[validation][power_replay]") {
  const auto dir = scratch("power_h100");
  make_traces(dir, 240);
  const CalibrationResult result = calibrate_half(dir / "h100-10hz.csv", "power-h100.yaml");
  check_targets(result);
}

TEST_CASE("power calibration: A100 power-only trace, held-out half", "[validation][power_replay]") {
  const auto dir = scratch("power_a100");
  make_traces(dir, 240);
  const TelemetryTrace trace = import_telemetry(dir / "a100-10hz.csv");
  CHECK_FALSE(trace.quantity_index("gpu_temperature").has_value());
  const CalibrationResult result = calibrate_half(dir / "a100-10hz.csv", "power-a100.yaml");
  // Only the power model: no thermal parameter, and the fitted power limit below 400 W.
  bool limit = false;
  for (const auto& p : result.parameters) {
    CHECK(p.section != "server.gpu");
    if (p.key == "power_limit") {
      limit = true;
      CHECK(p.value < 400.0);
      CHECK(p.value > 380.0);
    }
  }
  CHECK(limit);
  check_targets(result);
}

// The H100 trace with its temperature column, on the air-cooled preset (its GPUs sit in air-cooled
// slots 0-12 K apart): the slots are fitted GPU by GPU on the 10-Hz samples, then the phase
// levels, three times over; the held-out half meets the power, clock and junction targets.
TEST_CASE("power and thermal calibration: H100 10-Hz trace on the air-cooled preset", "[validation][power_replay]") {
  const auto dir = scratch("power_h100_air");
  make_traces(dir, 240);
  const TelemetryTrace trace = import_telemetry(dir / "h100-10hz.csv");
  REQUIRE(trace.quantity_index("gpu_temperature").has_value());
  check_air_preset_calibration(trace);
}

// The same truths as DCGM and pynvml record them (make_power_traces.py): the tools engineers run
// besides nvidia-smi, each with its own units, rates and quirks, held to the same targets.
TEST_CASE("power and thermal calibration: H100 from dcgmi dmon at 10 Hz, air-cooled preset", "[validation][power_replay]") {
  // dcgmi dmon -e 100,112,150,155 -d 100: no timestamps (--interval 0.1), reasons in decimal, field
  // 155 the 1-s mean power.
  const auto dir = scratch("power_h100_dcgm");
  make_traces(dir, 240);
  TelemetryImportOptions import;
  import.interval = 0.1;
  const TelemetryTrace trace = import_telemetry(dir / "h100-dcgm-10hz.txt", import);
  REQUIRE(trace.gpus.size() == 8);
  REQUIRE(trace.quantity_index("gpu_temperature").has_value());
  REQUIRE(trace.quantity_index("clock_event_reasons").has_value());
  check_air_preset_calibration(trace);
}

TEST_CASE("power calibration: A100 from a pynvml loop at 1 Hz, power in mW", "[validation][power_replay]") {
  // time.time(), nvmlDeviceGetPowerUsage in mW, SM clock in MHz and the clock-event reasons, one
  // row per GPU a few ms apart, read through a column map: a rate ten times lower than the 10-Hz
  // traces, so every phase shorter than NVML's 1-s window is seen as a mixture.
  const auto dir = scratch("power_a100_pynvml");
  make_traces(dir, 240);
  TelemetryImportOptions import;
  import.map_file = (dir / "a100-pynvml-map.yaml").string();
  const TelemetryTrace trace = import_telemetry(dir / "a100-pynvml-1hz.csv", import);
  REQUIRE(trace.gpus.size() == 8);
  CHECK_FALSE(trace.quantity_index("gpu_temperature").has_value());
  // Milliwatts read as watts: GPU 0's first reading is written as 322426 (the generator's default seed).
  const auto power = trace.quantity_index("power");
  REQUIRE(power.has_value());
  CHECK(trace.gpus[0].values[*power].front() == Approx(322.426).margin(1e-9));
  const CalibrationResult result = calibrate_half(dir / "a100-pynvml-1hz.csv", "power-a100.yaml", import);
  check_targets(result);
}
