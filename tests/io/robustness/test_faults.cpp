// Faults end to end: a solver failure mid-run, NaN and infinite values in every input path (scenario
// values, weather CSV, each telemetry format), and reports truncated or corrupted by another tool.
// Each must give a clear, located message and a distinct exit code, and never a report with NaN in
// it or a report that cannot be told apart from a complete one.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "../../support/run_program.hpp"
#include "../../support/temporaries.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/report_probe.hpp"
#include "dctwin/io/telemetry.hpp"
#include "dctwin/io/weather_csv.hpp"

namespace fs = std::filesystem;
using test_support::Outcome;
using test_support::run_dctwin;
using test_support::slurp;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "robustness" / "scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const fs::path scenarios = fs::path(DCTWIN_SOURCE_DIR) / "scenarios";

/// `text` with the first occurrence of `from` replaced by `to` (which must exist).
std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

/// The simulated time written in a status line `... ended early at t = T s: ...`.
double time_in(const std::string& line) {
  const std::string marker = "ended early at t = ";
  const auto at = line.find(marker);
  REQUIRE(at != std::string::npos);
  return std::strtod(line.c_str() + at + marker.size(), nullptr);
}

/// Non-finite values in the numeric datasets of a report. A dataset whose long_name documents NaN
/// as a value (/job/step_time: "NaN before the first" step) is left out.
std::size_t count_non_finite(const dctwin::io::ReportReader& report) {
  std::size_t count = 0;
  for (const auto& info : report.datasets()) {
    if (info.long_name.find("NaN") != std::string::npos) continue;
    std::vector<double> values;
    try {
      values = report.read(info.path);
    } catch (const dctwin::io::ReportError&) {
      continue;  // a string dataset
    }
    for (double v : values) count += std::isfinite(v) ? 0 : 1;
  }
  return count;
}

}  // namespace

// ---- Solver failure ------------------------------------------------------------------------------

TEST_CASE("A solver failure mid-run exits 3 with the time and the solver's reason, and leaves an incomplete report",
          "[faults][cli]") {
  const auto dir = scratch("solver-failure");
  // A largest step of 0.5 us needs 200,000 steps between two governor ticks (0.1 s); the integrator
  // gives up after 100,000 steps per call (CV_TOO_MUCH_WORK), at t = 0.05 s.
  write(dir / "tiny-step.yaml", replace(slurp(scenarios / "single-node.yaml"), "  mode: fast\n",
                                        "  mode: fast\n  max_step: 5e-7 s\n"));
  const Outcome o = run_dctwin({"run", "tiny-step.yaml", "-o", "run.h5", "--duration", "60", "--quiet"}, dir);
  INFO(o.err);
  CHECK(o.code == 3);
  REQUIRE(o.err.starts_with("dctwin run: ended early at t = "));
  CHECK(o.err.find(" s: solver failure: CVode failed with CV_TOO_MUCH_WORK (-1): ") != std::string::npos);
  CHECK(o.err.find("at t = 0.05 s, 100000 steps without reaching t = 0.1 s (max_steps_per_output)") != std::string::npos);
  CHECK(o.err.back() == '\n');

  REQUIRE(fs::exists(dir / "run.h5"));
  CHECK(test_support::temporaries_in(dir).empty());
  const dctwin::io::ReportReader report(dir / "run.h5");
  CHECK(report.status() == "incomplete");
  // The report gives the same reason, word for word, as the terminal.
  CHECK("dctwin run: " + report.status_reason() + "\n" == o.err);
  CHECK(report.end_time() == Approx(time_in(o.err)).epsilon(1e-5));  // printed with 6 digits
  const auto time = report.time();
  REQUIRE_FALSE(time.empty());
  CHECK(time.back() <= report.end_time());
  CHECK(count_non_finite(report) == 0);
  CHECK(report.integer_attributes().at("solver_steps") >= 100000);
}

TEST_CASE("Tolerances below the machine precision fail at the start: exit 3 and an incomplete report",
          "[faults][cli]") {
  const auto dir = scratch("too-much-accuracy");
  write(dir / "tight.yaml", replace(slurp(scenarios / "single-node.yaml"), "  mode: fast\n",
                                    "  mode: fast\n  relative_tolerance: 1e-300\n  absolute_tolerance: 1e-300\n"));
  const Outcome o = run_dctwin({"run", "tight.yaml", "-o", "run.h5", "--duration", "60", "--quiet"}, dir);
  CHECK(o.code == 3);
  CHECK(o.err ==
        "dctwin run: ended early at t = 0 s: solver failure: CVode failed with CV_TOO_MUCH_ACC (-2): "
        "CVODE/CVode: At t = 0, too much accuracy requested.\n");
  const dctwin::io::ReportReader report(dir / "run.h5");
  CHECK(report.status() == "incomplete");
  CHECK(report.end_time() == 0.0);
  CHECK(report.time() == std::vector<double>{0.0});
  CHECK(count_non_finite(report) == 0);
}

// The status gives the time CVODE reached (0.05 s: 100,000 steps of 0.5 us, the limit per
// call; not the last output at 0 s). For error-test and
// corrector failures it also names the component whose state had the largest weighted local error;
// running out of steps, as here, points at no state.
TEST_CASE("A solver failure names the time the integrator reached", "[faults][cli]") {
  const auto dir = scratch("solver-failure-component");
  write(dir / "tiny-step.yaml", replace(slurp(scenarios / "single-node.yaml"), "  mode: fast\n",
                                        "  mode: fast\n  max_step: 5e-7 s\n"));
  const Outcome o = run_dctwin({"run", "tiny-step.yaml", "-o", "run.h5", "--duration", "60", "--quiet"}, dir);
  REQUIRE(o.code == 3);
  CHECK(time_in(o.err) == Approx(0.05).margin(1e-3));
  CHECK(o.err.find("solver failure: CVode failed with CV_TOO_MUCH_WORK") != std::string::npos);
  CHECK(o.err.find("largest local error") == std::string::npos);
}

// ---- NaN and infinite inputs ----------------------------------------------------------------------

TEST_CASE("NaN and infinite scenario values are refused with the located value and no report", "[faults][nan][cli]") {
  const auto dir = scratch("scenario-nan");
  const std::string base = slurp(scenarios / "single-node.yaml");
  const std::vector<std::pair<std::string, std::string>> cases{
      {".nan", "loop.supply_temperature = .nan (must be a finite number)"},
      {"NaN degC", "loop.supply_temperature = NaN degC (must be a finite number)"},
      {"-nan", "loop.supply_temperature = -nan (must be a finite number)"},
      {".inf", "loop.supply_temperature = .inf (must be a finite number)"},
      {"-inf K", "loop.supply_temperature = -inf K (must be a finite number)"},
      {"1e400", "loop.supply_temperature = 1e400 (must be a finite number)"},
  };
  for (const auto& [value, message] : cases) {
    INFO(value);
    write(dir / "nan.yaml", replace(base, "  supply_temperature: 32 degC", "  supply_temperature: " + value));
    const Outcome o = run_dctwin({"run", "nan.yaml", "-o", "run.h5", "--quiet"}, dir);
    CHECK(o.code == 65);
    CHECK(o.err == "nan.yaml:69:23: " + message + "\n");
    CHECK_FALSE(fs::exists(dir / "run.h5"));
    CHECK(test_support::temporaries_in(dir).empty());
  }
  // A finite value that overflows in the unit conversion (1e305 MPa = 1e311 Pa).
  write(dir / "nan.yaml", replace(base, "    shutoff_pressure: 150 kPa", "    shutoff_pressure: 1e305 MPa"));
  Outcome o = run_dctwin({"run", "nan.yaml", "-o", "run.h5", "--quiet"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "nan.yaml:77:23: loop.pump.shutoff_pressure = 1e305 MPa (must be a finite number)\n");
  // An integer parameter.
  write(dir / "nan.yaml", replace(base, "  gpu_count: 8", "  gpu_count: .nan"));
  o = run_dctwin({"run", "nan.yaml", "-o", "run.h5", "--quiet"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "nan.yaml:23:14: server.gpu_count = .nan (must be an integer)\n");
  CHECK_FALSE(fs::exists(dir / "run.h5"));
}

TEST_CASE("NaN and infinite weather values are refused with file and line", "[faults][nan]") {
  const std::string header = "time,dry_bulb [degC],wet_bulb [degC]\n0,25,18\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"3600,nan,18\n", "w.csv:3: dry_bulb: 'nan' is not a finite number"},
      {"3600,NaN degC,18\n", "w.csv:3: dry_bulb: 'NaN degC' is not a finite number"},
      {"3600,25,-inf\n", "w.csv:3: wet_bulb: '-inf' is not a finite number"},
      {"3600,1e400,18\n", "w.csv:3: dry_bulb: '1e400' is not a finite number"},
      {"nan,25,18\n", "w.csv:3: time: 'nan' is not a finite number"},
      {"inf,25,18\n", "w.csv:3: time: 'inf' is not a finite number"},
      // Finite as written, infinite in seconds: refused at the row, not later by the series.
      {"1e308 h,25,18\n", "w.csv:3: time: '1e308 h' is not a finite number in s"},
  };
  for (const auto& [row, message] : cases) {
    INFO(row);
    try {
      (void)dctwin::io::parse_weather_csv(header + row, "w.csv");
      FAIL("accepted");
    } catch (const dctwin::io::WeatherFileError& e) {
      CHECK(std::string(e.what()) == message);
      CHECK(e.location().line == 3);
    }
  }
}

TEST_CASE("A NaN in the weather file of a scenario stops `dctwin run` before any report", "[faults][nan][cli]") {
  const auto dir = scratch("weather-nan");
  std::string text = slurp(scenarios / "llama3-24k-air-diurnal.yaml");
  const auto begin = text.find("  weather:\n");
  REQUIRE(begin != std::string::npos);
  const auto end = text.find('\n', text.find("pressure: 83.328 kPa", begin));
  REQUIRE(end != std::string::npos);
  text.replace(begin, end + 1 - begin, "  weather:\n    source: file\n    file: weather.csv\n");
  write(dir / "site.yaml", text);
  write(dir / "weather.csv", "time,dry_bulb [degC],wet_bulb [degC]\n0,25,18\n3600,nan,18\n");
  const Outcome o = run_dctwin({"run", "site.yaml", "-o", "run.h5", "--duration", "60", "--quiet"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "weather.csv:3: dry_bulb: 'nan' is not a finite number\n");
  CHECK_FALSE(fs::exists(dir / "run.h5"));
}

namespace {

/// Imports `text` written to `name` in `dir` with `format`; returns the error message, or "" when
/// the file was accepted (then `trace` holds it).
std::string import_text(const fs::path& dir, const std::string& name, const std::string& text,
                        const std::string& format, dctwin::io::TelemetryTrace& trace,
                        const std::string& map = "") {
  write(dir / name, text);
  dctwin::io::TelemetryImportOptions options;
  options.format = *dctwin::io::parse_format_name(format);
  if (!map.empty()) {
    write(dir / "map.yaml", map);
    options.map_file = (dir / "map.yaml").string();
  }
  try {
    trace = dctwin::io::import_telemetry(dir / name, options);
    return "";
  } catch (const dctwin::io::TelemetryError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("NaN and infinite telemetry values: refused where the format has no such value, missing where DCGM writes NaN",
          "[faults][nan][telemetry]") {
  const auto dir = scratch("telemetry-nan");
  const auto label = [&](const std::string& name) { return (dir / name).string(); };
  dctwin::io::TelemetryTrace trace;

  SECTION("nvidia-smi CSV") {
    const std::string head = "timestamp, index, power.draw [W], temperature.gpu\n"
                             "2025/07/26 23:32:09.703, 0, 556.53 W, 66\n";
    CHECK(import_text(dir, "a.csv", head + "2025/07/26 23:32:10.703, 0, nan W, 67\n", "nvidia-smi-csv", trace) ==
          label("a.csv") + ":3: power.draw: 'nan W' is not a finite number");
    CHECK(import_text(dir, "a.csv", head + "2025/07/26 23:32:10.703, 0, 500 W, inf\n", "nvidia-smi-csv", trace) ==
          label("a.csv") + ":3: temperature.gpu: 'inf' is not a finite number");
    CHECK(import_text(dir, "a.csv", head + "nan, 0, 500 W, 67\n", "nvidia-smi-csv", trace) ==
          label("a.csv") + ":3: timestamp: 'nan' is not a valid timestamp");
    // Finite as written, infinite in watts.
    CHECK(import_text(dir, "a.csv", head + "2025/07/26 23:32:10.703, 0, 1e306 kW, 67\n", "nvidia-smi-csv", trace) ==
          label("a.csv") + ":3: power.draw: 1e+306 kW is not a finite number in W");
  }
  SECTION("nvidia-smi dmon") {
    const std::string head = "# gpu    pwr  gtemp\n# Idx      W      C\n    0    557     66\n";
    CHECK(import_text(dir, "d.txt", head + "    0    nan     66\n", "nvidia-smi-dmon", trace) ==
          label("d.txt") + ":4: pwr: 'nan' is not a finite number");
    CHECK(import_text(dir, "d.txt", head + "    0    557    inf\n", "nvidia-smi-dmon", trace) ==
          label("d.txt") + ":4: gtemp: 'inf' is not a finite number");
  }
  SECTION("dcgmi dmon: NaN is DCGM's missing value, infinity an error") {
    const std::string head = "#Entity   SMCLK  POWER\nID\nGPU 0     1980   556.5\n";
    REQUIRE(import_text(dir, "g.txt", head + "GPU 0     1980   NaN\n", "dcgmi-dmon", trace).empty());
    const auto power = *trace.quantity_index("power");
    REQUIRE(trace.gpus.size() == 1);
    REQUIRE(trace.gpus[0].values[power].size() == 2);
    CHECK(trace.gpus[0].values[power][0] == 556.5);
    CHECK(std::isnan(trace.gpus[0].values[power][1]));  // not given, as documented
    CHECK(import_text(dir, "g.txt", head + "GPU 0     1980   inf\n", "dcgmi-dmon", trace) ==
          label("g.txt") + ":4: POWER: 'inf' is not a finite number");
  }
  SECTION("Prometheus text: NaN is missing, +Inf an error, and a lone `inf` is no scrape time") {
    const std::string head = "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 556.5\n";
    REQUIRE(import_text(dir, "p.prom", "1753572729\n" + head + "1753572730\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} NaN\n",
                        "prometheus", trace).empty());
    REQUIRE(trace.gpus.size() == 1);
    CHECK(std::isnan(trace.gpus[0].values[*trace.quantity_index("power")].back()));
    CHECK(import_text(dir, "p.prom", head + "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} +Inf\n", "prometheus", trace) ==
          label("p.prom") + ":2: DCGM_FI_DEV_POWER_USAGE: '+Inf' is not a finite number");
    const std::string error =
        import_text(dir, "p.prom", "1753572729\n" + head + "inf\n" + head, "prometheus", trace);
    INFO(error);
    CHECK(error.starts_with(label("p.prom") + ":3: "));
    for (const auto& gpu : trace.gpus)
      for (double t : gpu.time) CHECK(std::isfinite(t));
  }
  SECTION("Prometheus JSON") {
    const auto json = [](const std::string& value) {
      return "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"__name__\":"
             "\"DCGM_FI_DEV_POWER_USAGE\",\"gpu\":\"0\"},\"values\":[[1753572729,\"556.5\"],[1753572730," +
             value + "]]}]}}";
    };
    REQUIRE(import_text(dir, "j.json", json("\"NaN\""), "prometheus-json", trace).empty());
    CHECK(std::isnan(trace.gpus.at(0).values[*trace.quantity_index("power")].back()));
    CHECK(import_text(dir, "j.json", json("\"+Inf\""), "prometheus-json", trace) ==
          label("j.json") + ":1: DCGM_FI_DEV_POWER_USAGE: '+Inf' is not a finite number");
    CHECK(import_text(dir, "j.json", json("NaN"), "prometheus-json", trace) ==
          label("j.json") + ":1: invalid JSON value");
  }
  SECTION("generic CSV: values and times") {
    const std::string map =
        "delimiter: \";\"\ntime: {column: ts, unit: ms}\ngpu: {column: gpu}\npower: {column: P, unit: kW}\n";
    const std::string head = "ts;gpu;P\n1000;0;0.5\n";
    CHECK(import_text(dir, "c.csv", head + "2000;0;nan\n", "csv", trace, map) ==
          label("c.csv") + ":3: P: 'nan' is not a finite number");
    CHECK(import_text(dir, "c.csv", head + "2000;0;1e306\n", "csv", trace, map) ==
          label("c.csv") + ":3: P: 1e+306 kW is not a finite number in W");
    CHECK(import_text(dir, "c.csv", head + "nan;0;0.6\n", "csv", trace, map) ==
          label("c.csv") + ":3: ts: 'nan' is not a valid time");
    CHECK(import_text(dir, "c.csv", head + "inf;0;0.6\n", "csv", trace, map) ==
          label("c.csv") + ":3: ts: 'inf' is not a valid time");
    CHECK(import_text(dir, "c.csv", head + "1e306;0;0.6\n", "csv",
                      trace, replace(map, "unit: ms", "unit: h")) ==
          label("c.csv") + ":3: ts: '1e306' is not a valid time");
  }
}

TEST_CASE("`dctwin import` of a file with a NaN exits 65 and writes nothing", "[faults][nan][cli]") {
  const auto dir = scratch("import-nan");
  write(dir / "t.csv", "timestamp, index, power.draw [W]\n2025/07/26 23:32:09.703, 0, 556.53 W\n"
                       "2025/07/26 23:32:10.703, 0, nan W\n");
  const Outcome o = run_dctwin({"import", "t.csv", "-o", "t.h5", "--quiet"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "t.csv:3: power.draw: 'nan W' is not a finite number\n");
  CHECK_FALSE(fs::exists(dir / "t.h5"));
  CHECK(test_support::temporaries_in(dir).empty());
}

// ---- Truncated and corrupted reports ---------------------------------------------------------------

TEST_CASE("A report truncated or overwritten by another tool is refused with a clear message", "[faults][report]") {
  const auto dir = scratch("truncated");
  const Outcome run = run_dctwin({"run", (scenarios / "single-node.yaml").string(), "-o", "full.h5",
                                  "--duration", "10", "--quiet"},
                                 dir);
  REQUIRE(run.code == 0);
  std::string bytes = slurp(dir / "full.h5");
  REQUIRE(bytes.size() > 4096);
  REQUIRE(dctwin::io::ReportReader(dir / "full.h5").status() == "complete");

  const std::vector<std::size_t> sizes{0, 7, 512, 4096, bytes.size() / 2, bytes.size() - 1};
  for (std::size_t size : sizes) {
    INFO("truncated to " << size << " of " << bytes.size() << " bytes");
    const fs::path cut = dir / "cut.h5";
    write(cut, bytes.substr(0, size));
    try {
      const dctwin::io::ReportReader report(cut);
      FAIL("opened");
    } catch (const dctwin::io::ReportError& e) {
      CHECK(std::string(e.what()) == cut.string() + ": not an HDF5 file or truncated");
    }
    const Outcome info = run_dctwin({"info", "cut.h5"}, dir);
    CHECK(info.code == 65);
    CHECK(info.err == "cut.h5: not an HDF5 file or truncated\n");
    CHECK(info.out.empty());
  }
  // Not an HDF5 file at all, and the superblock signature damaged.
  write(dir / "text.h5", "name: not a report\n");
  CHECK(run_dctwin({"info", "text.h5"}, dir).err == "text.h5: not an HDF5 file or truncated\n");
  bytes[1] = 'X';
  write(dir / "damaged.h5", bytes);
  CHECK(run_dctwin({"info", "damaged.h5"}, dir).err == "damaged.h5: not an HDF5 file or truncated\n");
}

namespace {

/// The 42 kB report of the fuzz corpus (written by ReportWriter) with three bytes changed.
struct Mutation {
  std::array<std::pair<std::size_t, unsigned char>, 3> bytes;
};

std::string mutated(std::string report, const Mutation& mutation) {
  for (const auto& [offset, value] : mutation.bytes) report.at(offset) = static_cast<char>(value);
  return report;
}

}  // namespace

TEST_CASE("A report whose damage crashes libhdf5 is refused by dctwin info with exit 65, not a crash",
          "[faults][report]") {
  const auto dir = scratch("damaged-heap");
  const std::string tiny =
      slurp(fs::path(DCTWIN_SOURCE_DIR) / "tests/fuzz/corpus/report/tiny-incomplete.hdf5-report");
  REQUIRE(tiny.size() == 42158);
  // Three bytes changed in the report's global heap (the collection at byte 2048, which holds every
  // variable-length string): before reports were probed, `dctwin info` died of SIGSEGV inside
  // libhdf5 1.10.8 on each (seeds 0, 2, 19, 28, 31 and 33 of 40 random three-byte changes there; the
  // others were refused cleanly or read).
  const std::vector<Mutation> mutations{
      {{{{5203, 215}, {2379, 132}, {6028, 207}}}}, {{{{2511, 46}, {2743, 184}, {3433, 157}}}},
      {{{{2402, 61}, {3682, 201}, {4892, 148}}}},  {{{{2973, 66}, {3506, 115}, {3133, 237}}}},
      {{{{2148, 240}, {2968, 201}, {3201, 22}}}},  {{{{3418, 119}, {4319, 245}, {3575, 164}}}},
  };
  for (std::size_t k = 0; k < mutations.size(); ++k) {
    INFO("mutation " << k);
    write(dir / "damaged.h5", mutated(tiny, mutations[k]));
    const Outcome info = run_dctwin({"info", "damaged.h5"}, dir);
    INFO(info.err);
    CHECK(info.code == 65);
    CHECK(info.err.rfind("damaged.h5: damaged: ", 0) == 0);
    CHECK(info.err.find(" while reading ") != std::string::npos);
    CHECK(info.out.empty());
    // The probe alone names what was being read.
    const auto probe = dctwin::io::probe_report(dir / "damaged.h5");
    CHECK(probe.damaged());
    CHECK_FALSE(probe.where.empty());
    // The same in a helper process of its own (as the desktop application probes).
    dctwin::io::ReportProbeOptions options;
    options.helper = DCTWIN_REPORT_PROBE_EXE;
    options.read_all_data = true;
    const auto helped = dctwin::io::probe_report(dir / "damaged.h5", options);
    INFO(helped.message);
    CHECK(helped.damaged());
  }
  // The undamaged report passes the probe, and info shows it as before.
  write(dir / "tiny.h5", tiny);
  const auto probe = dctwin::io::probe_report(dir / "tiny.h5");
  CHECK(probe.outcome == dctwin::io::ReportProbe::Outcome::ok);
  CHECK(probe.message.empty());
  const Outcome info = run_dctwin({"info", "tiny.h5"}, dir);
  CHECK(info.code == 0);
  CHECK(info.out.find("status: incomplete") != std::string::npos);
}

TEST_CASE("probe_report: refusals, time limit and the helper program", "[faults][report]") {
  const auto dir = scratch("probe");
  using ProbeOutcome = dctwin::io::ReportProbe::Outcome;
  // A missing file and a text file: the reader's own refusal, which the caller will meet cleanly.
  auto probe = dctwin::io::probe_report(dir / "missing.h5");
  CHECK(probe.outcome == ProbeOutcome::refused);
  CHECK(probe.message == (dir / "missing.h5").string() + ": no such file");
  write(dir / "text.h5", "name: not a report\n");
  probe = dctwin::io::probe_report(dir / "text.h5");
  CHECK(probe.outcome == ProbeOutcome::refused);
  CHECK(probe.message == (dir / "text.h5").string() + ": not an HDF5 file or truncated");
  CHECK_FALSE(probe.damaged());
  // A helper that cannot be run is a failure of the probe, not damage.
  dctwin::io::ReportProbeOptions options;
  options.helper = dir / "no-such-helper";
  probe = dctwin::io::probe_report(dir / "text.h5", options);
  CHECK(probe.outcome == ProbeOutcome::failed);
  CHECK_FALSE(probe.damaged());
  // A reader that never returns (opening a named pipe nobody writes to blocks): stopped at the time
  // limit, in a forked copy and in the helper.
  REQUIRE(::mkfifo((dir / "fifo.h5").c_str(), 0600) == 0);
  for (const bool helper : {false, true}) {
    INFO("helper " << helper);
    options = {};
    options.timeout_seconds = 1.0;
    if (helper) options.helper = DCTWIN_REPORT_PROBE_EXE;
    const auto start = std::chrono::steady_clock::now();
    probe = dctwin::io::probe_report(dir / "fifo.h5", options);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    CHECK(probe.outcome == ProbeOutcome::timed_out);
    CHECK(probe.message == "damaged: reading did not finish within 1 s (while reading the file)");
    CHECK(probe.damaged());
  }
}

// ---- Inputs found by fuzzing -----------------------------------------------------------------------

TEST_CASE("A stray ',' starting a YAML document is a located syntax error, not an endless loop", "[faults][fuzz][cli]") {
  // yaml-cpp 0.7's LoadAll returns empty documents forever on these (and allocates for each).
  const auto dir = scratch("stray-comma");
  write(dir / "comma.yaml", ",\n");
  Outcome o = run_dctwin({"check", "comma.yaml"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "comma.yaml:1:1: YAML syntax error: unexpected ','\n");
  write(dir / "second.yaml", slurp(scenarios / "single-node.yaml") + "---\n, t\n");
  o = run_dctwin({"run", "second.yaml", "-o", "run.h5", "--quiet"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err.ends_with(":1: YAML syntax error: unexpected ','\n"));
  CHECK(o.err.starts_with("second.yaml:"));
  CHECK_FALSE(fs::exists(dir / "run.h5"));
  write(dir / "sweep.yaml", ",");
  o = run_dctwin({"sweep", "sweep.yaml", "-o", "out"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "sweep.yaml:1:1: YAML syntax error: unexpected ','\n");
}

TEST_CASE("nvidia-smi dmon: a second names line with fewer fields is read on its own", "[faults][fuzz][telemetry]") {
  // The time column of the first names line (third field) used to stay in force for the second
  // one (one field), and each row was read past its end.
  const auto dir = scratch("dmon-names-twice");
  dctwin::io::TelemetryTrace trace;
  REQUIRE(import_text(dir, "d.txt", "# gpu pwr time\n\n# gpu pwr\n    0  500\n", "nvidia-smi-dmon", trace).empty());
  REQUIRE(trace.gpus.size() == 1);
  CHECK(trace.gpus[0].values[*trace.quantity_index("power")] == std::vector<double>{500.0});
}

TEST_CASE("Telemetry times far outside the calendar are written as seconds in messages", "[faults][fuzz][telemetry]") {
  // Formatting 1e44 s as a date overflowed a long long (undefined behaviour).
  const auto dir = scratch("huge-time");
  dctwin::io::TelemetryTrace trace;
  const std::string map =
      "delimiter: \";\"\ntime: {column: ts, unit: ms}\ngpu: {column: gpu}\npower: {column: P, unit: kW}\n";
  CHECK(import_text(dir, "c.csv", "ts;gpu;P\n1e47;0;0.5\n1000;0;0.6\n", "csv", trace, map) ==
        (dir / "c.csv").string() + ":3: time 1970-01-01T00:00:01Z is before the previous sample of GPU 0 at 1e+44 s (line 2)");
  CHECK(dctwin::io::format_utc_time(1e44) == "1e+44 s");
  CHECK(dctwin::io::format_utc_time(-1e13) == "-10000000000000 s");
  CHECK(dctwin::io::format_utc_time(0.5) == "1970-01-01T00:00:00.500Z");
}
