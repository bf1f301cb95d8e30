// Telemetry importers: every format and variant in SI units, every malformed case with its exact
// message, the sample traces of data/telemetry, and the HDF5 telemetry file read back.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "../../support/temporaries.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/telemetry.hpp"

namespace fs = std::filesystem;
using namespace dctwin::io;

namespace {

const fs::path scratch_dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "telemetry" / "scratch";
const fs::path samples = fs::path(DCTWIN_SOURCE_DIR) / "data" / "telemetry";

// 2025-07-26T23:32:09Z
constexpr double t0 = 1753572729.0;

fs::path write(const std::string& name, const std::string& text) {
  fs::create_directories(scratch_dir);
  const fs::path path = scratch_dir / name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

TelemetryTrace load(const std::string& name, const std::string& text, const TelemetryImportOptions& options = {}) {
  return import_telemetry(write(name, text), options);
}

/// The message of the TelemetryError thrown for `text`, with the scratch directory removed.
std::string error_of(const std::string& name, const std::string& text, const TelemetryImportOptions& options = {}) {
  try {
    (void)load(name, text, options);
  } catch (const TelemetryError& e) {
    std::string message = e.what();
    const std::string prefix = (scratch_dir / "").string();
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    return message;
  }
  return "no error";
}

double value(const TelemetryTrace& trace, std::size_t gpu, const std::string& quantity, std::size_t sample) {
  const auto q = trace.quantity_index(quantity);
  REQUIRE(q.has_value());
  REQUIRE(gpu < trace.gpus.size());
  REQUIRE(sample < trace.gpus[gpu].values[*q].size());
  return trace.gpus[gpu].values[*q][sample];
}

TelemetryImportOptions with_format(TelemetryFormat format) {
  TelemetryImportOptions o;
  o.format = format;
  return o;
}

const std::string csv_header =
    "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], utilization.gpu [%], "
    "clocks_event_reasons.active\n";

}  // namespace

TEST_CASE("nvidia-smi CSV with units in header and values", "[telemetry][nvidia-smi]") {
  const auto trace =
      load("units.csv", csv_header +
                            "2025/07/26 23:32:09.703, 0, 187.80 W, 35, 120 MHz, 0 %, 0x0000000000000001\n"
                            "2025/07/26 23:32:09.703, 1, 540.00 W, 71, 1980 MHz, 100 %, 0x0000000000000004\n"
                            "2025/07/26 23:32:10.703, 0, 150.5 W, 36, 1980 MHz, 88 %, 0x0000000000000000\n"
                            "2025/07/26 23:32:10.703, 1, [N/A], [Not Supported], 1755 MHz, 99 %, 0x0000000000000024\n");
  CHECK(trace.provenance.format == "nvidia-smi-csv");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[0].index == 0);
  CHECK(trace.gpus[1].index == 1);
  CHECK(trace.sample_count() == 4);
  CHECK(trace.quantities ==
        std::vector<std::string>{"power", "gpu_temperature", "sm_clock", "gpu_utilization", "clock_event_reasons"});
  CHECK(trace.gpus[0].time[0] == Approx(t0 + 0.703).margin(1e-6));
  CHECK(trace.gpus[0].time[1] == Approx(t0 + 1.703).margin(1e-6));
  CHECK(value(trace, 0, "power", 0) == Approx(187.8));
  CHECK(value(trace, 0, "gpu_temperature", 0) == Approx(308.15));
  CHECK(value(trace, 0, "sm_clock", 0) == Approx(120e6));
  CHECK(value(trace, 0, "gpu_utilization", 0) == Approx(0.0).margin(1e-12));
  CHECK(value(trace, 0, "gpu_utilization", 1) == Approx(0.88));
  CHECK(value(trace, 0, "clock_event_reasons", 0) == 1.0);
  CHECK(value(trace, 1, "clock_event_reasons", 0) == 4.0);
  CHECK(value(trace, 1, "clock_event_reasons", 1) == 0x24);
  CHECK(std::isnan(value(trace, 1, "power", 1)));
  CHECK(std::isnan(value(trace, 1, "gpu_temperature", 1)));
  CHECK(value(trace, 1, "sm_clock", 1) == Approx(1755e6));
}

TEST_CASE("nvidia-smi CSV without units (nounits) and in any column order", "[telemetry][nvidia-smi]") {
  const auto trace = load("nounits.csv",
                          "utilization.gpu [%], power.draw [W], index, timestamp, temperature.gpu, name\n"
                          "50, 540.25, 0, 2025/07/26 23:32:09.000, 70, NVIDIA H100 80GB HBM3\n");
  CHECK(value(trace, 0, "power", 0) == Approx(540.25));
  CHECK(value(trace, 0, "gpu_utilization", 0) == Approx(0.5));
  CHECK(value(trace, 0, "gpu_temperature", 0) == Approx(343.15));
  CHECK(trace.gpus[0].time[0] == t0);
  CHECK(trace.provenance.notes.empty());
  CHECK(trace.provenance.warnings == std::vector<std::string>{"ignored columns (not read by dctwin): name"});
}

TEST_CASE("nvidia-smi CSV: mixed units across rows are converted", "[telemetry][nvidia-smi]") {
  const auto trace = load("mixed.csv",
                          "timestamp, index, power.draw [W]\n"
                          "2025/07/26 23:32:09, 0, 540 W\n"
                          "2025/07/26 23:32:10, 0, 0.5 kW\n"
                          "2025/07/26 23:32:11, 0, 150\n");
  CHECK(value(trace, 0, "power", 0) == Approx(540.0));
  CHECK(value(trace, 0, "power", 1) == Approx(500.0));
  CHECK(value(trace, 0, "power", 2) == Approx(150.0));
}

TEST_CASE("nvidia-smi CSV without header needs --columns", "[telemetry][nvidia-smi]") {
  const std::string rows = "2025/07/26 23:32:09.000, 0, 540.00, 70\n2025/07/26 23:32:09.000, 1, 150.00, 60\n";
  CHECK(error_of("noheader.csv", rows) ==
        "noheader.csv:1: no header line (a file written with --format=csv,noheader needs its fields in order: "
        "--columns timestamp,index,power.draw,...)");
  TelemetryImportOptions options;
  options.columns = {"timestamp", "index", "power.draw", "temperature.gpu"};
  const auto trace = load("noheader.csv", rows, options);
  REQUIRE(trace.gpus.size() == 2);
  CHECK(value(trace, 1, "power", 0) == Approx(150.0));
  CHECK(value(trace, 1, "gpu_temperature", 0) == Approx(333.15));
  // A file with a header uses it even when --columns is given.
  const auto headed =
      load("headed.csv", "timestamp, index, power.draw [kW]\n2025/07/26 23:32:09.000, 0, 0.5\n", options);
  CHECK(value(headed, 0, "power", 0) == Approx(500.0));
  CHECK(headed.provenance.notes.back() == "the file has a header line; --columns was not used");
  // noheader without nounits: the cells carry the units.
  const auto with_units = load("noheader-units.csv", "2025/07/26 23:32:09.000, 0, 540.00 W, 70\n", options);
  CHECK(value(with_units, 0, "power", 0) == Approx(540.0));
}

TEST_CASE("nvidia-smi CSV without index: GPUs by row within each tick, older throttle names",
          "[telemetry][nvidia-smi]") {
  const std::string header =
      "timestamp, uuid, power.draw [W], temperature.memory, clocks_throttle_reasons.sw_power_cap, "
      "clocks_throttle_reasons.hw_slowdown, clocks_throttle_reasons.sw_thermal_slowdown, "
      "clocks_throttle_reasons.hw_thermal_slowdown, clocks_throttle_reasons.hw_power_brake_slowdown, "
      "clocks_throttle_reasons.gpu_idle\n";
  const auto trace =
      load("noindex.csv",
           header +
               "2025/07/26 23:32:09.100, GPU-a, 540 W, [N/A], Active, Not Active, Not Active, Not Active, Not Active, "
               "Not Active\n"
               "2025/07/26 23:32:09.100, GPU-b, 541 W, [N/A], Not Active, Active, Active, Active, Active, Not Active\n"
               "2025/07/26 23:32:09.200, GPU-a, 150 W, 60, Not Active, Not Active, Not Active, Not Active, Not Active, "
               "Active\n"
               "2025/07/26 23:32:09.200, GPU-b, 151 W, 61, [Not Supported], [Not Supported], [Not Supported], [Not "
               "Supported], [Not Supported], [Not Supported]\n");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[0].uuid == "GPU-a");
  CHECK(trace.gpus[1].uuid == "GPU-b");
  CHECK(value(trace, 0, "clock_event_reasons", 0) == 0x4);
  CHECK(value(trace, 1, "clock_event_reasons", 0) == 0x8 + 0x20 + 0x40 + 0x80);
  CHECK(value(trace, 0, "clock_event_reasons", 1) == 0x1);
  CHECK(std::isnan(value(trace, 1, "clock_event_reasons", 1)));
  CHECK(std::isnan(value(trace, 0, "memory_temperature", 0)));
  CHECK(value(trace, 1, "memory_temperature", 1) == Approx(334.15));
  CHECK(trace.provenance.notes.at(0) == "no index column: GPUs are numbered in the order their uuid first appears");
  CHECK(trace.provenance.missing_count == 2 + 6);
  CHECK(trace.provenance.notes.back() ==
        "missing values: 8 (clocks_throttle_reasons.gpu_idle 1 [Not Supported], "
        "clocks_throttle_reasons.hw_power_brake_slowdown 1 [Not Supported], clocks_throttle_reasons.hw_slowdown 1 "
        "[Not Supported], clocks_throttle_reasons.hw_thermal_slowdown 1 [Not Supported], "
        "clocks_throttle_reasons.sw_power_cap 1 [Not Supported], clocks_throttle_reasons.sw_thermal_slowdown 1 [Not "
        "Supported], temperature.memory 2 [N/A])");
  CHECK(error_of("noindex-extra.csv",
                 "timestamp, power.draw [W]\n2025/07/26 23:32:09, 1 W\n2025/07/26 23:32:09, 2 W\n"
                 "2025/07/26 23:32:10, 1 W\n2025/07/26 23:32:10, 2 W\n2025/07/26 23:32:10, 3 W\n") ==
        "noindex-extra.csv:6: tick at 2025-07-26T23:32:10Z has more rows than the 2 GPUs of the first tick");
}

TEST_CASE("nvidia-smi CSV: time zone option", "[telemetry][nvidia-smi]") {
  const std::string text = "timestamp, index, power.draw [W]\n2025/07/27 01:32:09.000, 0, 540 W\n";
  TelemetryImportOptions options;
  options.timezone = "+02:00";
  CHECK(load("tz.csv", text, options).gpus[0].time[0] == t0);
  options.timezone = "-0530";
  CHECK(load("tz.csv", text, options).gpus[0].time[0] == t0 + 7200.0 + 5.5 * 3600.0);
  options.timezone = "UTC";
  CHECK(load("tz.csv", text, options).gpus[0].time[0] == t0 + 7200.0);
  // A timestamp with its own zone ignores the option.
  options.timezone = "+02:00";
  CHECK(load("tz-iso.csv", "timestamp, index, power.draw [W]\n2025-07-26T23:32:09Z, 0, 540 W\n", options)
            .gpus[0]
            .time[0] == t0);
  CHECK(parse_utc_offset("Z") == 0.0);
  CHECK(parse_utc_offset("UTC+01") == 3600.0);
  options.timezone = "Europe/Paris";
  CHECK(error_of("tz.csv", text, options) ==
        "invalid time zone 'Europe/Paris' (use UTC or a fixed offset such as +02:00)");
  CHECK_THROWS_AS(parse_utc_offset("+25:00"), TelemetryError);
  CHECK_THROWS_AS(parse_utc_offset("+02:0"), TelemetryError);
}

TEST_CASE("nvidia-smi CSV: malformed input, exact messages", "[telemetry][nvidia-smi][errors]") {
  const std::string h = "timestamp, index, power.draw [W]\n";
  const std::string r1 = "2025/07/26 23:32:09, 0, 540 W\n";
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases{
      {h + r1 + "2025/07/26 23:32:10, 0\n", "bad.csv:3: expected 3 fields, found 2"},
      {h + r1 + "2025/07/26 23:32:10, 0, abc\n", "bad.csv:3: power.draw: 'abc' is not a number"},
      {h + r1 + "2025/07/26 23:32:10, 0, 5 MHz\n", "bad.csv:3: power.draw: unit 'MHz' is not convertible to 'W'"},
      {h + r1 + "2025/07/26 23:32:10, 0, 5 Wx\n", "bad.csv:3: power.draw: unknown unit 'Wx'"},
      {h + "2025/13/40 23:32:09, 0, 540 W\n", "bad.csv:2: timestamp: '2025/13/40 23:32:09' is not a valid timestamp"},
      {h + "2025/07/26 23:32:09, x, 540 W\n", "bad.csv:2: index: 'x' is not a GPU index"},
      {h + "2025/07/26 23:32:09, -1, 540 W\n", "bad.csv:2: index: '-1' is not a GPU index"},
      {h + "2025/07/26 23:32:10, 0, 540 W\n2025/07/26 23:32:09, 0, 540 W\n",
       "bad.csv:3: time 2025-07-26T23:32:09Z is before the previous sample of GPU 0 at 2025-07-26T23:32:10Z (line 2)"},
      {h + r1 + "2025/07/26 23:32:09, 0, 541 W\n",
       "bad.csv:3: duplicate sample of GPU 0 at 2025-07-26T23:32:09Z with a different power (line 2)"},
      {"timestamp, index, power.draw [MHz]\n" + r1,
       "bad.csv:1: column 'power.draw': unit 'MHz' is not convertible to 'W'"},
      {"timestamp, index, power.draw [Wz]\n" + r1, "bad.csv:1: column 'power.draw': unknown unit 'Wz'"},
      {"index, power.draw [W]\n0, 5 W\n",
       "bad.csv:1: no 'timestamp' column (query it first: nvidia-smi --query-gpu=timestamp,index,...)"},
      {"timestamp, index, power.draw [W], power.draw [W]\n", "bad.csv:1: duplicate column 'power.draw'"},
      {"timestamp, index, clocks_event_reasons.active\n2025/07/26 23:32:09, 0, 0xZZ\n",
       "bad.csv:2: clocks_event_reasons.active: '0xZZ' is not a bitmask"},
      {"timestamp, index, clocks_event_reasons.sw_power_cap\n2025/07/26 23:32:09, 0, Maybe\n",
       "bad.csv:2: clocks_event_reasons.sw_power_cap: 'Maybe' is not Active or Not Active"},
      {h, "bad.csv: no samples"},
      {"", "bad.csv: file is empty"},
      {"\n  \n\n", "bad.csv: file is empty"},
      {h + std::string("2025/07/26 23:32:09, 0, 5\0 W\n", 28), "bad.csv:2: binary data (NUL byte); not a text file"},
      {h + "2025/07/26 23:32:09, 0, \xff\xfe W\n", "bad.csv:2: invalid UTF-8; not a text file"},
      {"\x7f"
       "ELF\x02\x01\x01",
       "bad.csv: unknown telemetry format (expected nvidia-smi CSV or dmon, dcgmi dmon, "
       "Prometheus text or query_range JSON; use --format)"},
      {std::string("\x7f"
                   "ELF\x02\x01\x01\0\0\0",
                   10),
       "bad.csv:1: binary data (NUL byte); not a text file"},
      {std::string("\x1f\x8b\x08\0", 4), "bad.csv:1: binary data (NUL byte); not a text file"},
      {"\x1f\x8b\x08\xa5\x9c", "bad.csv:1: invalid UTF-8; not a text file"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(error_of("bad.csv", c.text) == c.message);
  }
  CHECK(error_of("bad.csv",
                 "timestamp, index, uuid, power.draw [W]\n2025/07/26 23:32:09, 0, GPU-a, 5 W\n"
                 "2025/07/26 23:32:10, 0, GPU-b, 5 W\n") ==
        "bad.csv:3: GPU 0 has UUID GPU-b, but earlier samples give GPU-a");
  // A duplicate with identical values is accepted (merged).
  const auto trace = load("dup.csv", h + r1 + r1);
  CHECK(trace.sample_count() == 1);
}

TEST_CASE("Skip bad lines: counted, the first 10 listed, recorded in provenance", "[telemetry][errors]") {
  std::string text = "timestamp, index, power.draw [W]\n";
  for (int i = 0; i < 15; ++i) text += "2025/07/26 23:32:09, 0, bad\n";
  text += "2025/07/26 23:32:10, 0, 540 W\n";
  text += "2025/07/26 23:32:09, 0, 540 W\n";  // goes back in time: dropped
  text += "2025/07/26 23:32:11, 0, 541 W\n";
  CHECK(error_of("skip.csv", text) == "skip.csv:2: power.draw: 'bad' is not a number");
  TelemetryImportOptions options;
  options.skip_bad_lines = true;
  const auto trace = load("skip.csv", text, options);
  CHECK(trace.sample_count() == 2);
  CHECK(trace.provenance.skipped_count == 16);
  REQUIRE(trace.provenance.skipped.size() == 10);
  CHECK(trace.provenance.skipped[0] == "2: power.draw: 'bad' is not a number");
  CHECK(trace.provenance.skipped[9] == "11: power.draw: 'bad' is not a number");
  CHECK(trace.provenance.options.find("skip-bad-lines=yes") != std::string::npos);
  // Header problems are never skipped.
  CHECK(error_of("skip-header.csv", "timestamp, index, power.draw [MHz]\n", options) ==
        "skip-header.csv:1: column 'power.draw': unit 'MHz' is not convertible to 'W'");
}

TEST_CASE("Missing file", "[telemetry][errors]") {
  CHECK_THROWS_AS(import_telemetry(scratch_dir / "does-not-exist.csv"), MissingInputError);
  try {
    (void)import_telemetry("does-not-exist.csv");
  } catch (const MissingInputError& e) {
    CHECK(std::string(e.what()) == "does-not-exist.csv: cannot open telemetry file (No such file or directory)");
  }
}

TEST_CASE("nvidia-smi dmon without timestamps uses the interval", "[telemetry][dmon]") {
  const std::string text =
      "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
      "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
      "    0    540     70     76    100     35      0      0   2619   1980\n"
      "    1    150     60      -     88      5      0      0   2619   1980\n"
      "    0    541     71     77    100     35      0      0   2619   1755\n"
      "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk\n"
      "# Idx      W      C      C      %      %      %      %    MHz    MHz\n"
      "    1    151     61     67     87      5      0      0   2619   1980\n";
  TelemetryImportOptions options;
  options.interval = 0.5;
  const auto trace = load("dmon.txt", text, options);
  CHECK(trace.provenance.format == "nvidia-smi-dmon");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[0].time == std::vector<double>{0.0, 0.5});
  CHECK(trace.gpus[1].time == std::vector<double>{0.0, 0.5});
  CHECK(value(trace, 0, "power", 0) == 540.0);
  CHECK(value(trace, 0, "gpu_temperature", 0) == Approx(343.15));
  CHECK(value(trace, 0, "memory_temperature", 0) == Approx(349.15));
  CHECK(std::isnan(value(trace, 1, "memory_temperature", 0)));
  CHECK(value(trace, 1, "gpu_utilization", 0) == Approx(0.88));
  CHECK(value(trace, 0, "memory_utilization", 0) == Approx(0.35));
  CHECK(value(trace, 0, "memory_clock", 0) == Approx(2619e6));
  CHECK(value(trace, 0, "sm_clock", 1) == Approx(1755e6));
  bool noted = false;
  for (const auto& n : trace.provenance.notes)
    noted = noted || n.starts_with("no timestamps: sample k is at k x 0.5 s");
  CHECK(noted);
}

TEST_CASE("nvidia-smi dmon with -o DT and -o T", "[telemetry][dmon]") {
  const auto dt = load("dmon-dt.txt",
                       "#Date       Time        gpu    pwr  gtemp\n"
                       "#YYYYMMDD   HH:MM:SS    Idx      W      C\n"
                       " 20250726   23:32:09      0    540     70\n"
                       " 20250726   23:32:10      0    541     70\n");
  CHECK(dt.gpus[0].time == std::vector<double>{t0, t0 + 1.0});
  TelemetryImportOptions options;
  options.timezone = "+01:00";
  const auto t = load("dmon-t.txt",
                      "#Time        gpu    pwr\n"
                      "#HH:MM:SS    Idx      W\n"
                      " 23:59:59      0    540\n"
                      " 00:00:00      0    541\n",
                      options);
  CHECK(t.gpus[0].time == std::vector<double>{86399.0 - 3600.0, 86400.0 - 3600.0});
  CHECK(error_of("dmon-bad.txt", "# gpu pwr\n# Idx W\n 0 540 12\n") == "dmon-bad.txt:3: expected 2 fields, found 3");
  CHECK(error_of("dmon-bad.txt", "# gpu pwr\n# Idx W\n 0 abc\n") == "dmon-bad.txt:3: pwr: 'abc' is not a number");
  CHECK(error_of("dmon-bad.txt", "# gpu pwr\n# Idx MHz\n 0 5\n") ==
        "dmon-bad.txt:2: column 'pwr': unit 'MHz' is not convertible to 'W'");
  CHECK(error_of("dmon-bad.txt", "#Date Time gpu pwr\n#YYYYMMDD HH:MM:SS Idx W\n20251301 23:32:09 0 540\n") ==
        "dmon-bad.txt:3: date: '20251301' is not YYYYMMDD");
  CHECK(error_of("dmon-bad.txt", "#Time gpu pwr\n#HH:MM:SS Idx W\n23:61:09 0 540\n") ==
        "dmon-bad.txt:3: time: '23:61:09' is not HH:MM:SS");
  CHECK(error_of("dmon-bad.txt", "# gpu pwr\n# Idx W\n", with_format(TelemetryFormat::nvidia_smi_dmon)) ==
        "dmon-bad.txt: no samples");
}

TEST_CASE("dcgmi dmon", "[telemetry][dcgmi]") {
  const std::string text =
      "#Entity   SMCLK  MMTMP  TMPTR  POWER    TOTEC       SMACT  TENSO  GPUTL  FBUSD\n"
      "ID\n"
      "GPU 0     1980   72     66     540.125  1000000     0.812  0.450  100    1000\n"
      "GPU 1     1755   N/A    67     700.000  2000000     0.800  0.440  99     1000\n"
      "GPU 0     1980   73     67     150.000  1000540     0.050  0.000  88     1000\n"
      "GPU 1     1980   74     68     151.000  2000700     0.060  0.000  87     1000\n";
  TelemetryImportOptions options;
  options.interval = 0.1;
  const auto trace = load("dcgmi.txt", text, options);
  CHECK(trace.provenance.format == "dcgmi-dmon");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[1].time == std::vector<double>{0.0, 0.1});
  CHECK(value(trace, 0, "power", 0) == Approx(540.125));
  CHECK(value(trace, 0, "sm_clock", 0) == Approx(1980e6));
  CHECK(value(trace, 0, "memory_temperature", 0) == Approx(345.15));
  CHECK(std::isnan(value(trace, 1, "memory_temperature", 0)));
  CHECK(value(trace, 0, "energy", 1) == Approx(1000.54));
  CHECK(value(trace, 0, "sm_active", 0) == Approx(0.812));
  CHECK(value(trace, 0, "tensor_active", 0) == Approx(0.45));
  CHECK(value(trace, 1, "gpu_utilization", 0) == Approx(0.99));
  CHECK(trace.provenance.warnings == std::vector<std::string>{"ignored columns (not read by dctwin): FBUSD"});
  const std::string h = "#Entity POWER\nID\n";
  CHECK(error_of("dcgmi-bad.txt", h + "GPU-I 0 5\n") == "dcgmi-bad.txt:3: entity 'GPU-I' is not a GPU");
  CHECK(error_of("dcgmi-bad.txt", h + "GPU x 5\n") == "dcgmi-bad.txt:3: GPU id 'x' is not a GPU index");
  CHECK(error_of("dcgmi-bad.txt", h + "GPU 0 5 6\n") == "dcgmi-bad.txt:3: expected 3 fields, found 4");
  CHECK(error_of("dcgmi-bad.txt", h + "GPU 0 five\n") == "dcgmi-bad.txt:3: POWER: 'five' is not a number");
  CHECK(error_of("dcgmi-bad.txt", "GPU 0 5\n", with_format(TelemetryFormat::dcgmi_dmon)) ==
        "dcgmi-bad.txt:1: no dcgmi dmon header line ('#Entity ...') before the first row");
}

TEST_CASE("dcgm-exporter Prometheus text: scrapes, timestamps, blanks, hosts", "[telemetry][prometheus]") {
  const std::string l0 = R"({gpu="0",UUID="GPU-a",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="h1"})";
  const std::string l1 = R"({gpu="1",UUID="GPU-b",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="h1"})";
  SECTION("scrapes without timestamps: a repeated metric starts the next scrape") {
    const std::string text =
        "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
        "DCGM_FI_DEV_GPU_TEMP" +
        l0 + " 35\n" + "DCGM_FI_DEV_GPU_TEMP" + l1 + " 36\n" + "DCGM_FI_DEV_POWER_USAGE" + l0 + " 540.5\n" +
        "DCGM_FI_DEV_FB_USED" + l0 + " 1000\n" + "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + l0 + " 123456789\n" +
        "DCGM_FI_DEV_GPU_TEMP" + l0 + " 9223372036854775794\n" + "DCGM_FI_DEV_GPU_TEMP" + l1 + " 37\n" +
        "DCGM_FI_DEV_POWER_USAGE" + l0 + " 150\n";
    TelemetryImportOptions options;
    options.interval = 15.0;
    const auto trace = load("scrapes.prom", text, options);
    CHECK(trace.provenance.format == "prometheus");
    REQUIRE(trace.gpus.size() == 2);
    CHECK(trace.gpus[0].hostname == "h1");
    CHECK(trace.gpus[0].uuid == "GPU-a");
    CHECK(trace.gpus[0].label() == "h1:gpu0");
    CHECK(trace.gpus[0].time == std::vector<double>{0.0, 15.0});
    CHECK(value(trace, 0, "gpu_temperature", 0) == Approx(308.15));
    CHECK(std::isnan(value(trace, 0, "gpu_temperature", 1)));
    CHECK(value(trace, 1, "gpu_temperature", 1) == Approx(310.15));
    CHECK(value(trace, 0, "power", 1) == 150.0);
    CHECK(value(trace, 0, "energy", 0) == Approx(123456.789));
    CHECK(std::isnan(value(trace, 1, "power", 0)));
    CHECK(trace.provenance.warnings.back() == "ignored metrics (not read by dctwin): DCGM_FI_DEV_FB_USED");
  }
  SECTION("scrapes separated by a time line") {
    const std::string text =
        "1753572729\nDCGM_FI_DEV_GPU_TEMP" + l0 + " 35\n2025-07-26T23:32:24Z\n" + "DCGM_FI_DEV_GPU_TEMP" + l0 + " 36\n";
    const auto trace = load("separated.prom", text);
    CHECK(trace.gpus[0].time == std::vector<double>{t0, t0 + 15.0});
  }
  SECTION("samples with millisecond timestamps, listed metric by metric") {
    const std::string text = "DCGM_FI_DEV_GPU_TEMP" + l0 + " 35 1753572729000\n" + "DCGM_FI_DEV_GPU_TEMP" + l0 +
                             " 36 1753572730500\n" + "DCGM_FI_DEV_POWER_USAGE" + l0 + " 540 1753572729000\n" +
                             "DCGM_FI_DEV_POWER_USAGE" + l0 + " 541 1753572730500\n" +
                             "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h2\"} 100 1753572729000\n";
    const auto trace = load("ts.prom", text);
    REQUIRE(trace.gpus.size() == 2);
    CHECK(trace.gpus[0].hostname == "h1");
    CHECK(trace.gpus[1].hostname == "h2");
    CHECK(trace.gpus[0].time == std::vector<double>{t0, t0 + 1.5});
    CHECK(value(trace, 0, "power", 1) == 541.0);
    CHECK(value(trace, 0, "gpu_temperature", 1) == Approx(309.15));
    CHECK(value(trace, 1, "power", 0) == 100.0);
  }
  SECTION("malformed lines") {
    const std::string ok = "DCGM_FI_DEV_GPU_TEMP" + l0 + " 35\n";
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{UUID=\"x\"} 35\n") ==
          "bad.prom:2: DCGM_FI_DEV_GPU_TEMP: no gpu label");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=\"a\"} 35\n") ==
          "bad.prom:2: gpu label 'a' is not a GPU index");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=\"0} 35\n") ==
          "bad.prom:2: label gpu: unterminated value");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\" 35\n") ==
          "bad.prom:2: malformed label set (expected name=\"value\")");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=0} 35\n") == "bad.prom:2: label gpu: value not quoted");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} hot\n") ==
          "bad.prom:2: DCGM_FI_DEV_GPU_TEMP: 'hot' is not a number");
    CHECK(error_of("bad.prom", ok + "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 35 soon\n") ==
          "bad.prom:2: DCGM_FI_DEV_GPU_TEMP: 'soon' is not a timestamp in milliseconds");
    CHECK(error_of("bad.prom", "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 35 2000\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 36 1000\n") ==
          "bad.prom:2: DCGM_FI_DEV_GPU_TEMP of GPU 0: time 1970-01-01T00:00:01Z is before the previous sample at "
          "1970-01-01T00:00:02Z (line 1)");
    CHECK(error_of("bad.prom", "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 35 1000\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 36 1000\n") ==
          "bad.prom:2: duplicate sample of GPU 0 at 1970-01-01T00:00:01Z with a different gpu_temperature (line 1)");
    CHECK(error_of("bad.prom", "# HELP x\n# TYPE x gauge\n") == "bad.prom: no samples");
  }
}

TEST_CASE("Prometheus query_range JSON", "[telemetry][json]") {
  const std::string text = R"({"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-a","Hostname":"h"},
  "values":[[1753572729,"540.5"],[1753572730.5,"150"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_GPU_TEMP","gpu":"0","UUID":"GPU-a","Hostname":"h"},
  "values":[[1753572729,"70"],[1753572730.5,"NaN"]]},
 {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"1","Hostname":"h"},
  "values":[[1753572729,"9223372036854775794"]]},
 {"metric":{"__name__":"up","instance":"h:9400"},"values":[[1753572729,"1"]]}
]}})";
  const auto trace = load("range.json", text);
  CHECK(trace.provenance.format == "prometheus-json");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[0].time == std::vector<double>{t0, t0 + 1.5});
  CHECK(value(trace, 0, "power", 0) == 540.5);
  CHECK(value(trace, 0, "power", 1) == 150.0);
  CHECK(value(trace, 0, "gpu_temperature", 0) == Approx(343.15));
  CHECK(std::isnan(value(trace, 0, "gpu_temperature", 1)));
  CHECK(std::isnan(value(trace, 1, "power", 0)));
  CHECK(trace.provenance.warnings.back() == "ignored metrics (not read by dctwin): up");

  CHECK(error_of("bad.json", R"({"status":"error","errorType":"bad_data","error":"parse error"})") ==
        "bad.json:1: query failed (status 'error': parse error)");
  CHECK(error_of("bad.json", "{\"status\":\"success\",\n\"data\":{\"resultType\":\"vector\",\"result\":[]}}") ==
        "bad.json:2: resultType must be \"matrix\" (a query_range answer)");
  CHECK(error_of("bad.json", "{\"status\":\"success\",\n\"data\":{\"resultType\":\"matrix\",\"result\":[}}") ==
        "bad.json:2: invalid JSON value");
  CHECK(error_of("bad.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}} x") ==
        "bad.json:1: unexpected text after the JSON value");
  CHECK(error_of("bad.json", "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}") ==
        "bad.json: no samples");
  CHECK(error_of("bad.json",
                 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
                 "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\",\"gpu\":\"0\"},\"values\":[\n"
                 "[2,\"1\"],\n[1,\"2\"]]}]}}") ==
        "bad.json:4: DCGM_FI_DEV_GPU_TEMP of GPU 0: time 1970-01-01T00:00:01Z is not after the previous one");
  CHECK(error_of("bad.json",
                 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
                 "{\"metric\":{\"gpu\":\"0\"},\"values\":[]}]}}") ==
        "bad.json:2: series without a __name__ label (query the metric by name)");
  CHECK(error_of("bad.json",
                 "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
                 "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\",\"gpu\":\"0\"},\"values\":[\n"
                 "[1,2]]}]}}") == "bad.json:3: expected [unix_seconds, \"value\"]");
}

TEST_CASE("Generic CSV with a YAML column map", "[telemetry][csv]") {
  TelemetryImportOptions options;
  options.map_file = write("map.yaml",
                           "time: {column: ts}\n"
                           "gpu: {column: idx}\n"
                           "power: {column: P, unit: kW}\n"
                           "gpu_temperature: {column: T, unit: degC}\n"
                           "gpu_utilization: {column: U, unit: '%'}\n")
                         .string();
  const auto trace = load("generic.csv",
                          "# a comment\n"
                          "ts,idx,P,T,U,extra\n"
                          "2025-07-26T23:32:09Z,0,0.54,70,100,x\n"
                          "2025-07-26T23:32:09Z,1,150 W,,88,x\n"
                          "1753572730.5,0,0.541,71,N/A,x\n",
                          options);
  CHECK(trace.provenance.format == "csv");
  REQUIRE(trace.gpus.size() == 2);
  CHECK(trace.gpus[0].time == std::vector<double>{t0, t0 + 1.5});
  CHECK(value(trace, 0, "power", 0) == Approx(540.0));
  CHECK(value(trace, 1, "power", 0) == Approx(150.0));
  CHECK(std::isnan(value(trace, 1, "gpu_temperature", 0)));
  CHECK(value(trace, 0, "gpu_temperature", 1) == Approx(344.15));
  CHECK(value(trace, 1, "gpu_utilization", 0) == Approx(0.88));
  CHECK(std::isnan(value(trace, 0, "gpu_utilization", 1)));

  const std::string data = "ts,idx,P,T,U\n2025-07-26T23:32:09Z,0,0.54,70,100\n";
  CHECK(error_of("generic.csv", "ts,idx,P,T,U\n2025-07-26T23:32:09Z,0,5 MHz,70,100\n", options) ==
        "generic.csv:2: P: unit 'MHz' is not convertible to 'W'");
  CHECK(error_of("generic.csv", "ts,idx,P,T,U\nyesterday,0,5,70,100\n", options) ==
        "generic.csv:2: ts: 'yesterday' is not a valid time");
  CHECK(error_of("generic.csv", "ts,idx,P,T,U\n2025-07-26T23:32:09Z,0.5,5,70,100\n", options) ==
        "generic.csv:2: idx: '0.5' is not a GPU index");
  CHECK(error_of("generic.csv", "ts,idx,P,T\n", options) ==
        "generic.csv:1: column 'U' (gpu_utilization in " + options.map_file + ") not found");
  const auto map_error = [&](const std::string& map) {
    TelemetryImportOptions o;
    o.map_file = write("bad-map.yaml", map).string();
    std::string message = error_of("generic.csv", data, o);
    const std::string prefix = (scratch_dir / "").string();
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    return message;
  };
  CHECK(map_error("time: {column: ts}\npowr: {column: P}\n")
            .starts_with("bad-map.yaml:2:1: unknown key 'powr' (expected delimiter, time, gpu, uuid, hostname or a "
                         "quantity: power, "));
  CHECK(map_error("time: {column: ts}\npower: {column: P, unit: MHz}\n") ==
        "bad-map.yaml:2:8: power.unit: unit 'MHz' is not convertible to 'W'");
  CHECK(map_error("time: {column: ts, unit: kg}\npower: {column: P}\n") ==
        "bad-map.yaml:1:7: time.unit: 'kg' is not a time unit");
  CHECK(map_error("power: {column: P}\n") == "bad-map.yaml: the column map has no 'time' entry");
  CHECK(map_error("time: {column: ts}\npower: {colum: P}\n") ==
        "bad-map.yaml:2:9: unknown key 'power.colum' (expected column, unit)");
  // Mappings and sequences as keys (found by the fuzzer: yaml-cpp's conversion threw).
  CHECK(map_error("time: {column: ts}\n{a: b}: {column: P}\n") == "bad-map.yaml:2:1: a key of the column map must be a name");
  CHECK(map_error("time: {column: ts}\npower: {[column]: P}\n") ==
        "bad-map.yaml:2:9: a key of the column map must be a name");
  TelemetryImportOptions missing;
  missing.map_file = (scratch_dir / "no-map.yaml").string();
  CHECK_THROWS_AS(load("generic.csv", data, missing), MissingInputError);
  TelemetryImportOptions no_map;
  no_map.format = TelemetryFormat::generic_csv;
  CHECK(error_of("generic.csv", data, no_map) == "the csv format needs a column map (--map map.yaml)");
}

TEST_CASE("Format detection and the explicit override", "[telemetry]") {
  CHECK(detect_telemetry_format(csv_header) == TelemetryFormat::nvidia_smi_csv);
  CHECK(detect_telemetry_format("# gpu pwr gtemp\n# Idx W C\n") == TelemetryFormat::nvidia_smi_dmon);
  CHECK(detect_telemetry_format("#Date Time gpu pwr\n") == TelemetryFormat::nvidia_smi_dmon);
  CHECK(detect_telemetry_format("#Entity SMCLK\nID\n") == TelemetryFormat::dcgmi_dmon);
  CHECK(detect_telemetry_format("# HELP DCGM_FI_DEV_GPU_TEMP x\n") == TelemetryFormat::prometheus_text);
  CHECK(detect_telemetry_format("1753572729\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 35\n") ==
        TelemetryFormat::prometheus_text);
  CHECK(detect_telemetry_format("\n {\"status\":\"success\"}") == TelemetryFormat::prometheus_json);
  CHECK_FALSE(detect_telemetry_format("hello world\n").has_value());
  CHECK(parse_format_name("dcgmi-dmon") == TelemetryFormat::dcgmi_dmon);
  CHECK(parse_format_name("csv") == TelemetryFormat::generic_csv);
  CHECK_FALSE(parse_format_name("tsv").has_value());
  // Forcing a format that does not fit gives that format's error.
  CHECK(error_of("forced.txt", csv_header, with_format(TelemetryFormat::nvidia_smi_dmon)) ==
        "forced.txt:1: no dmon header line ('# gpu pwr gtemp ...') before the first row");
}

TEST_CASE("The sample traces of data/telemetry", "[telemetry][samples]") {
  TelemetryImportOptions noheader;
  noheader.columns = {"timestamp", "index", "power.draw", "temperature.gpu", "clocks.sm"};
  struct Sample {
    std::string file;
    std::string format;
    std::size_t samples;
    bool timed;
    TelemetryImportOptions options;
  };
  std::vector<Sample> all{
      {"nvidia-smi.csv", "nvidia-smi-csv", 80, true, {}},
      {"nvidia-smi-nounits.csv", "nvidia-smi-csv", 80, true, {}},
      {"nvidia-smi-noheader.csv", "nvidia-smi-csv", 80, true, noheader},
      {"nvidia-smi-noindex-throttle.csv", "nvidia-smi-csv", 80, true, {}},
      {"nvidia-smi-dmon.txt", "nvidia-smi-dmon", 80, false, {}},
      {"nvidia-smi-dmon-dt.txt", "nvidia-smi-dmon", 80, true, {}},
      {"dcgmi-dmon.txt", "dcgmi-dmon", 80, false, {}},
      {"dcgm-exporter.prom", "prometheus", 20, true, {}},
      {"dcgm-exporter-timestamps.prom", "prometheus", 20, true, {}},
      {"prometheus-query-range.json", "prometheus-json", 80, true, {}},
  };
  TelemetryImportOptions generic;
  generic.map_file = (samples / "generic-map.yaml").string();
  all.push_back({"generic.csv", "csv", 80, true, generic});
  for (const auto& s : all) {
    INFO(s.file);
    const auto trace = import_telemetry(samples / s.file, s.options);
    CHECK(trace.provenance.format == s.format);
    REQUIRE(trace.gpus.size() == 2);
    CHECK(trace.sample_count() == s.samples);
    CHECK(trace.provenance.skipped_count == 0);
    const auto q = trace.quantity_index("power");
    REQUIRE(q.has_value());
    const auto& gpu1 = trace.gpus[1];
    // Plausible H100 figures: compute ~540 W, stalls ~150 W, at most 700 W.
    for (const double p : gpu1.values[*q]) {
      CHECK(p >= 140.0);
      CHECK(p <= 700.0);
    }
    if (s.samples == 80) {
      // The power-cap event of GPU 1 at second 12 and the stall from second 20.
      CHECK(gpu1.values[*q][12] == Approx(700.0));
      CHECK(gpu1.values[*q][22] < 160.0);
      CHECK(gpu1.values[*q][30] > 500.0);
    }
    if (s.timed)
      CHECK(gpu1.time[0] >= t0);
    else
      CHECK(gpu1.time[0] == 0.0);
  }
}

TEST_CASE("HDF5 telemetry file round trip", "[telemetry][hdf5]") {
  SECTION("a sample trace") {
    const auto trace = import_telemetry(samples / "nvidia-smi-noindex-throttle.csv");
    const fs::path file = scratch_dir / "roundtrip.h5";
    fs::create_directories(scratch_dir);
    write_telemetry_hdf5(trace, file);
    CHECK(test_support::temporaries_in(scratch_dir).empty());
    const auto back = read_telemetry_hdf5(file);
    CHECK(back.quantities == trace.quantities);
    CHECK(back.provenance.source == trace.provenance.source);
    CHECK(back.provenance.format == "nvidia-smi-csv");
    CHECK(back.provenance.options == trace.provenance.options);
    CHECK(back.provenance.notes == trace.provenance.notes);
    REQUIRE(back.gpus.size() == trace.gpus.size());
    for (std::size_t g = 0; g < trace.gpus.size(); ++g) {
      CHECK(back.gpus[g].index == trace.gpus[g].index);
      CHECK(back.gpus[g].uuid == trace.gpus[g].uuid);
      CHECK(back.gpus[g].time == trace.gpus[g].time);
      for (std::size_t q = 0; q < trace.quantities.size(); ++q)
        for (std::size_t k = 0; k < trace.gpus[g].time.size(); ++k) {
          const double a = trace.gpus[g].values[q][k], b = back.gpus[g].values[q][k];
          CHECK(((std::isnan(a) && std::isnan(b)) || a == b));
        }
    }
  }
  SECTION("GPUs sampled at different times share the union grid, NaN elsewhere; skipped lines kept") {
    TelemetryImportOptions options;
    options.skip_bad_lines = true;
    const auto trace = load("union.csv",
                            "timestamp, index, power.draw [W]\n"
                            "2025/07/26 23:32:09.000, 0, 540 W\n"
                            "2025/07/26 23:32:09.100, 1, 150 W\n"
                            "2025/07/26 23:32:10.000, 0, oops\n"
                            "2025/07/26 23:32:10.000, 0, 541 W\n",
                            options);
    const fs::path file = scratch_dir / "union.h5";
    write_telemetry_hdf5(trace, file);
    const auto back = read_telemetry_hdf5(file);
    REQUIRE(back.gpus.size() == 2);
    CHECK(back.gpus[0].time == trace.gpus[0].time);
    CHECK(back.gpus[1].time == trace.gpus[1].time);
    CHECK(back.provenance.skipped_count == 1);
    CHECK(back.provenance.skipped == std::vector<std::string>{"4: power.draw: 'oops' is not a number"});
  }
  SECTION("an output that cannot be created") {
    const auto trace = load("small.csv", "timestamp, index, power.draw [W]\n2025/07/26 23:32:09, 0, 540 W\n");
    try {
      write_telemetry_hdf5(trace, scratch_dir / "no-such-dir" / "x.h5");
      FAIL("no error");
    } catch (const ReportError& e) {
      CHECK(std::string(e.what()) == "cannot create telemetry file '" +
                                         (scratch_dir / "no-such-dir" / "x.h5").string() + "': directory '" +
                                         (scratch_dir / "no-such-dir").string() + "' does not exist");
    }
  }
}

TEST_CASE("Physically impossible values: located messages in every importer", "[telemetry][errors][ranges]") {
  const std::string h = "timestamp, index, power.draw [W], temperature.gpu, clocks.sm [MHz], clocks.mem [MHz], "
                        "utilization.gpu [%]\n";
  const std::string ok = "2025/07/26 23:32:09, 0, 540 W, 66, 1980, 2619, 100\n";
  struct Case {
    std::string name, text, message;
    TelemetryImportOptions options = {};
  };
  const std::vector<Case> cases{
      // nvidia-smi CSV: the cell as written, the rule in the unit nvidia-smi uses.
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, -500 W, 66, 1980, 2619, 100\n",
       "r.csv:3: power.draw: -500 W (must be in [0, 2000] W)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 2.5 kW, 66, 1980, 2619, 100\n",
       "r.csv:3: power.draw: 2.5 kW (must be in [0, 2000] W)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, -300, 1980, 2619, 100\n",
       "r.csv:3: temperature.gpu: -300 (must be in [-40, 150] degC)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 343.15 K, 1980, 2619, 100\n", "no error"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 343.15, 1980, 2619, 100\n",
       "r.csv:3: temperature.gpu: 343.15 (must be in [-40, 150] degC)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 66, 1980000, 2619, 100\n",
       "r.csv:3: clocks.sm: 1980000 (must be in [0, 5000] MHz)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 66, -1, 2619, 100\n",
       "r.csv:3: clocks.sm: -1 (must be in [0, 5000] MHz)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 66, 1980, 40 GHz, 100\n",
       "r.csv:3: clocks.mem: 40 GHz (must be in [0, 30000] MHz)"},
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 540 W, 66, 1980, 2619, 101 %\n",
       "r.csv:3: utilization.gpu: 101 % (must be in [0, 100] %)"},
      // The bounds themselves are possible.
      {"r.csv", h + ok + "2025/07/26 23:32:10, 0, 0 W, -40, 0, 30000, 0\n2025/07/26 23:32:11, 0, 2000 W, 150, 5000, 0, 100\n",
       "no error"},
      // nvidia-smi dmon.
      {"r.txt", "# gpu pwr gtemp mtemp sm mem mclk pclk\n# Idx W C C % % MHz MHz\n 0 540 66 72 100 35 2619 1980\n"
                " 0 -500 66 72 100 35 2619 1980\n",
       "r.txt:4: pwr: -500 (must be in [0, 2000] W)"},
      {"r.txt", "# gpu pwr gtemp mtemp sm mem mclk pclk\n# Idx W C C % % MHz MHz\n 0 540 66 -300 100 35 2619 1980\n",
       "r.txt:3: mtemp: -300 (must be in [-40, 150] degC)"},
      {"r.txt", "# gpu pwr gtemp mtemp sm mem mclk pclk\n# Idx W C C % % MHz MHz\n 0 540 66 72 100 135 2619 1980\n",
       "r.txt:3: mem: 135 (must be in [0, 100] %)"},
      // dcgmi dmon.
      {"r.dcgmi", "#Entity POWER TMPTR TOTEC SMACT\nID\nGPU 0 540 66 1000 0.8\nGPU 0 540 -300 1000 0.8\n",
       "r.dcgmi:4: TMPTR: -300 (must be in [-40, 150] degC)"},
      {"r.dcgmi", "#Entity POWER TMPTR TOTEC SMACT\nID\nGPU 0 540 66 -1000 0.8\n",
       "r.dcgmi:3: TOTEC: -1000 (must be >= 0 J)"},
      {"r.dcgmi", "#Entity POWER TMPTR TOTEC SMACT\nID\nGPU 0 540 66 1000 1.2\n",
       "r.dcgmi:3: SMACT: 1.2 (must be in [0, 1])"},
      // dcgm-exporter Prometheus text.
      {"r.prom", "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 540\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} -500\n",
       "r.prom:2: DCGM_FI_DEV_POWER_USAGE: -500 (must be in [0, 2000] W)"},
      {"r.prom", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS{gpu=\"0\"} -4\n",
       "r.prom:1: DCGM_FI_DEV_CLOCKS_EVENT_REASONS: -4 (must be >= 0)"},
      // Prometheus query_range JSON: the line of the pair.
      {"r.json",
       "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[\n"
       "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_TEMP\",\"gpu\":\"0\"},\"values\":[\n"
       "[1,\"66\"],\n[2,\"-300\"]]}]}}",
       "r.json:4: DCGM_FI_DEV_GPU_TEMP: -300 (must be in [-40, 150] degC)"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(error_of(c.name, c.text, c.options) == c.message);
  }
  // Generic CSV: the column's name, the cell in the map's unit.
  TelemetryImportOptions options;
  options.map_file = write("range-map.yaml",
                           "time: {column: ts}\npower: {column: P, unit: kW}\ngpu_temperature: {column: T, unit: degF}\n")
                         .string();
  CHECK(error_of("r.csv", "ts,P,T\n1753572729,0.54,150\n1753572730,-0.5,150\n", options) ==
        "r.csv:3: P: -0.5 (must be in [0, 2000] W)");
  CHECK(error_of("r.csv", "ts,P,T\n1753572729,0.54,-100\n", options) == "r.csv:2: T: -100 (must be in [-40, 150] degC)");
  CHECK(error_of("r.csv", "ts,P,T\n1753572729,0.54,-40\n", options) == "no error");
}

TEST_CASE("Skip bad lines: impossible values are skipped and counted apart", "[telemetry][errors][ranges]") {
  TelemetryImportOptions options;
  options.skip_bad_lines = true;
  const auto trace = load("skip-range.csv",
                          "timestamp, index, power.draw [W], temperature.gpu\n"
                          "2025/07/26 23:32:09, 0, 540 W, 66\n"
                          "2025/07/26 23:32:10, 0, -500 W, 66\n"
                          "2025/07/26 23:32:11, 0, 541 W, -300\n"
                          "2025/07/26 23:32:12, 0, oops, 66\n"
                          "2025/07/26 23:32:13, 0, 542 W, 67\n",
                          options);
  CHECK(trace.sample_count() == 2);
  CHECK(trace.provenance.skipped_count == 3);
  CHECK(trace.provenance.impossible_count == 2);
  CHECK(trace.provenance.skipped ==
        std::vector<std::string>{"3: power.draw: -500 W (must be in [0, 2000] W)",
                                 "4: temperature.gpu: -300 (must be in [-40, 150] degC)",
                                 "5: power.draw: 'oops' is not a number"});
}

TEST_CASE("Control characters in cells, headers and labels reach messages as escapes", "[telemetry][messages]") {
  // ESC is valid UTF-8, so the line reader lets it through; the message shows it.
  CHECK(error_of("esc.csv", "timestamp, index, power.draw [W]\n2025/07/26 23:32:09, 0, \x1b]0;pwned\x07\n") ==
        "esc.csv:2: power.draw: '\\x1b]0;pwned\\x07' is not a number");
  CHECK(error_of("esc.csv", "timestamp, index, power.draw [\x1b" "8mW]\n") ==
        "esc.csv:1: column 'power.draw': unknown unit '\\x1b8mW'");
  // A JSON label with an escaped control character, and a C1 control.
  CHECK(error_of("esc.json",
                 "{\"status\":\"error\",\"error\":\"bad \\u001b[2J query \\u009b\"}") ==
        "esc.json:1: query failed (status 'error': bad \\x1b[2J query \\u009b)");
  // Skipped lines are recorded and printed as escapes too.
  TelemetryImportOptions options;
  options.skip_bad_lines = true;
  const auto trace = load("esc-skip.csv",
                          "timestamp, index, power.draw [W]\n2025/07/26 23:32:09, 0, \x1b[31m\n"
                          "2025/07/26 23:32:10, 0, 540 W\n",
                          options);
  CHECK(trace.provenance.skipped == std::vector<std::string>{"2: power.draw: '\\x1b[31m' is not a number"});
}

namespace {

/// Rows of an nvidia-smi CSV file without index: `gpus` GPUs per tick, rows `step` s apart within a
/// tick, ticks `period` s apart, power 100 W x (GPU + 1) + tick.
std::string lms_rows(int ticks, int gpus, double step, double period, const std::string& extra = "") {
  std::string text;
  for (int tick = 0; tick < ticks; ++tick)
    for (int gpu = 0; gpu < gpus; ++gpu) {
      const double t = 0.104 + period * tick + step * gpu;
      const int ms = static_cast<int>(std::lround(t * 1000.0));
      char stamp[64];
      std::snprintf(stamp, sizeof stamp, "2025/07/26 23:32:%02d.%03d", 9 + ms / 1000, ms % 1000);
      text += std::string(stamp) + extra + ", " + std::to_string(100 * (gpu + 1) + tick) + " W\n";
    }
  return text;
}

}  // namespace

TEST_CASE("nvidia-smi CSV from -lms without index: ticks from the pauses between rows",
          "[telemetry][nvidia-smi][ticks]") {
  const std::string header = "timestamp, power.draw [W]\n";
  SECTION("3 GPUs queried 2 ms apart every 100 ms: one sample time per tick") {
    const auto trace = load("lms.csv", header + lms_rows(5, 3, 0.002, 0.1));
    REQUIRE(trace.gpus.size() == 3);
    CHECK(trace.sample_count() == 15);
    for (std::size_t g = 0; g < 3; ++g) {
      INFO(g);
      REQUIRE(trace.gpus[g].time.size() == 5);
      // Every GPU at its tick's first row: the time grid has 5 times, not 15.
      for (std::size_t k = 0; k < 5; ++k) CHECK(trace.gpus[g].time[k] == Approx(t0 + 0.104 + 0.1 * static_cast<double>(k)).margin(1e-9));
      CHECK(value(trace, g, "power", 4) == Approx(100.0 * static_cast<double>(g + 1) + 4.0));
    }
    CHECK(trace.provenance.notes.at(0) ==
          "no index, uuid or pci.bus_id column: rows are grouped into ticks by the pauses between them, GPUs "
          "numbered by their row in the tick");
    CHECK(trace.provenance.notes.at(1) ==
          "rows of one tick are up to 4 ms apart: each tick is one sample, at the time of its first row");
    // Written and read back: one time grid of 5 instants shared by the 3 GPUs (no NaN rows).
    const fs::path file = scratch_dir / "lms.h5";
    write_telemetry_hdf5(trace, file);
    const auto back = read_telemetry_hdf5(file);
    for (const auto& g : back.gpus) CHECK(g.time.size() == 5);
  }
  SECTION("more than the learning rows: 8 GPUs over 40 ticks") {
    const auto trace = load("lms8.csv", header + lms_rows(40, 8, 0.002, 0.1));
    REQUIRE(trace.gpus.size() == 8);
    CHECK(trace.sample_count() == 320);
    CHECK(trace.gpus[7].time.back() == Approx(t0 + 0.104 + 3.9).margin(1e-9));
    CHECK(value(trace, 7, "power", 39) == Approx(839.0));
  }
  SECTION("with an index column the ticks are one sample time too") {
    std::string text = "timestamp, index, power.draw [W]\n";
    const std::string rows = lms_rows(4, 2, 0.002, 0.1);
    std::size_t start = 0;
    int row = 0;
    while (start < rows.size()) {
      const auto end = rows.find('\n', start);
      const std::string line = rows.substr(start, end - start);
      const auto comma = line.find(',');
      text += line.substr(0, comma) + ", " + std::to_string(row++ % 2) + line.substr(comma) + "\n";
      start = end + 1;
    }
    const auto trace = load("lms-index.csv", text);
    REQUIRE(trace.gpus.size() == 2);
    CHECK(trace.gpus[0].time == trace.gpus[1].time);
    CHECK(trace.gpus[1].time.size() == 4);
  }
  SECTION("a GPU missing from a tick, or one row too many, is an error, never a merge") {
    std::string rows = lms_rows(4, 3, 0.002, 0.1);
    // Drop the third row of the third tick (line 2 + 2 x 3 + 2 = 10 of the file).
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < rows.size();) {
      const auto end = rows.find('\n', start);
      lines.push_back(rows.substr(start, end - start + 1));
      start = end + 1;
    }
    std::string fewer = header, more = header;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i != 8) fewer += lines[i];
      more += lines[i];
      if (i == 5) more += "2025/07/26 23:32:09.209, 5 W\n";
    }
    CHECK(error_of("fewer.csv", fewer) ==
          "fewer.csv:8: tick at 2025-07-26T23:32:09.304Z has 2 rows, fewer than the 3 GPUs of the first tick: which "
          "GPU is missing is unknown (query index, uuid or pci.bus_id)");
    CHECK(error_of("more.csv", more) ==
          "more.csv:8: tick at 2025-07-26T23:32:09.204Z has more rows than the 3 GPUs of the first tick");
    // Skipping bad lines drops the incomplete tick (both its rows) and keeps the GPUs apart.
    TelemetryImportOptions skip;
    skip.skip_bad_lines = true;
    const auto trace = load("fewer.csv", fewer, skip);
    REQUIRE(trace.gpus.size() == 3);
    CHECK(trace.provenance.skipped_count == 2);
    for (const auto& g : trace.gpus) CHECK(g.time.size() == 3);
    // A last tick cut short (nvidia-smi stopped while writing it) holds the first GPUs.
    std::string cut = header;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) cut += lines[i];
    const auto stopped = load("cut.csv", cut);
    REQUIRE(stopped.gpus.size() == 3);
    CHECK(stopped.gpus[1].time.size() == 4);
    CHECK(stopped.gpus[2].time.size() == 3);
    CHECK(stopped.provenance.notes.at(1) == "the file ends within its last tick: 2 of 3 rows, the first GPUs");
  }
  SECTION("a bad row keeps its place in the tick when skipped") {
    std::string rows = lms_rows(3, 3, 0.002, 0.1);
    const auto second = rows.find('\n') + 1;
    const auto third = rows.find('\n', second) + 1;
    rows.replace(second, third - second, "2025/07/26 23:32:09.106, lots\n");
    TelemetryImportOptions skip;
    skip.skip_bad_lines = true;
    const auto trace = load("bad-row.csv", header + rows, skip);
    REQUIRE(trace.gpus.size() == 3);
    CHECK(trace.gpus[1].time.size() == 2);
    CHECK(trace.gpus[2].time.size() == 3);
    CHECK(value(trace, 2, "power", 0) == Approx(300.0));
  }
  SECTION("rows a few ms apart without a pause between ticks cannot be grouped; --gpus can") {
    const std::string rows = lms_rows(4, 3, 0.004, 0.012);
    CHECK(error_of("even.csv", header + rows) ==
          "even.csv:2: cannot tell the GPUs apart: rows are 4 ms to 4 ms apart with no longer pause between ticks "
          "(query index, uuid or pci.bus_id, or give the number of GPUs with --gpus)");
    TelemetryImportOptions options;
    options.gpus = 3;
    const auto trace = load("even.csv", header + rows, options);
    REQUIRE(trace.gpus.size() == 3);
    CHECK(trace.gpus[2].time.size() == 4);
    CHECK(value(trace, 2, "power", 3) == Approx(303.0));
    CHECK(trace.provenance.options.find("gpus=3") != std::string::npos);
    // One GPU sampled every 100 ms needs nothing.
    const auto single = load("single.csv", header + lms_rows(5, 1, 0.0, 0.1));
    REQUIRE(single.gpus.size() == 1);
    CHECK(single.gpus[0].time.size() == 5);
  }
  SECTION("pci.bus_id tells the GPUs apart, numbered as they first appear") {
    const auto trace = load("bus.csv", "timestamp, pci.bus_id, power.draw [W]\n" +
                                           lms_rows(1, 1, 0.0, 0.1, ", 00000000:18:00.0") +
                                           "2025/07/26 23:32:09.106, 00000000:2A:00.0, 200 W\n"
                                           "2025/07/26 23:32:09.204, 00000000:2A:00.0, 201 W\n"
                                           "2025/07/26 23:32:09.206, 00000000:18:00.0, 101 W\n");
    REQUIRE(trace.gpus.size() == 2);
    CHECK(trace.gpus[0].time.size() == 2);
    CHECK(value(trace, 0, "power", 1) == 101.0);
    CHECK(value(trace, 1, "power", 1) == 201.0);
    CHECK(trace.gpus[1].time[1] == Approx(t0 + 0.204).margin(1e-9));
    CHECK(trace.provenance.notes.at(0) == "no index column: GPUs are numbered in the order their pci.bus_id first "
                                          "appears");
    CHECK(error_of("bus-na.csv", "timestamp, pci.bus_id, power.draw [W]\n2025/07/26 23:32:09, [N/A], 5 W\n") ==
          "bus-na.csv:2: pci.bus_id: '[N/A]' does not tell which GPU the row is");
  }
}

TEST_CASE("pdsh output: a host prefix on every line, GPUs per host", "[telemetry][nvidia-smi][pdsh]") {
  const std::string h = "timestamp, index, power.draw [W], temperature.gpu\n";
  const auto trace = load("pdsh.csv",
                          "node-b: " + h + "node-a: " + h +
                              "node-b: 2025/07/26 23:32:09.020, 0, 510 W, 60\n"
                              "node-a: 2025/07/26 23:32:09.000, 0, 540 W, 66\n"
                              "node-a: 2025/07/26 23:32:09.002, 1, 541 W, 67\n"
                              "node-b: 2025/07/26 23:32:09.022, 1, [GPU requires reset], [GPU requires reset]\n"
                              "node-a: 2025/07/26 23:32:10.000, 0, 542 W, 66\n"
                              "node-b: 2025/07/26 23:32:10.020, 0, 511 W, 60\n");
  REQUIRE(trace.gpus.size() == 4);
  CHECK(trace.gpus[0].label() == "node-a:gpu0");
  CHECK(trace.gpus[1].label() == "node-a:gpu1");
  CHECK(trace.gpus[2].label() == "node-b:gpu0");
  CHECK(trace.gpus[3].label() == "node-b:gpu1");
  CHECK(trace.gpus[1].time == std::vector<double>{t0});
  REQUIRE(trace.gpus[2].time.size() == 2);
  CHECK(trace.gpus[2].time[1] == Approx(t0 + 1.020).margin(1e-6));
  CHECK(value(trace, 2, "power", 1) == 511.0);
  CHECK(std::isnan(value(trace, 3, "power", 0)));
  CHECK(trace.provenance.missing_count == 2);
  CHECK(trace.provenance.notes.at(0) == "pdsh output: every line starts with its host; GPUs are told apart per host");
  CHECK(trace.provenance.notes.back() ==
        "missing values: 2 (power.draw 1 [GPU requires reset], temperature.gpu 1 [GPU requires reset])");
  CHECK(trace.provenance.warnings ==
        std::vector<std::string>{
            "GPU 1 of node-b: 1 row read [GPU requires reset] (first at line 6); their values are missing"});
  CHECK(error_of("pdsh-bad.csv", "node-a: " + h + "2025/07/26 23:32:09.000, 0, 540 W, 66\n") ==
        "pdsh-bad.csv:2: no 'host: ' prefix, although the file's first line has one (pdsh output)");
  CHECK(error_of("pdsh-bad.csv", "node-a: " + h + "node-b: 2025/07/26 23:32:09.000, 0, 540 W, 66\n") ==
        "pdsh-bad.csv:2: no header line (a file written with --format=csv,noheader needs its fields in order: "
        "--columns timestamp,index,power.draw,...)");
  // Timestamps are not host prefixes: an ISO-8601 time has no ': '.
  const auto iso = load("iso.csv", "timestamp, index, power.draw [W]\n2025-07-26T23:32:09Z, 0, 540 W\n");
  CHECK(iso.gpus[0].hostname.empty());
}

TEST_CASE("Columns and metrics that are not read: a warning, or an error when nothing is read",
          "[telemetry][warnings]") {
  const auto trace = load("extra.csv",
                          "timestamp, index, name, power.draw [W], fan.speed [%], driver_version\n"
                          "2025/07/26 23:32:09, 0, NVIDIA H100 80GB HBM3, 540 W, [N/A], 550.54.15\n");
  CHECK(trace.provenance.warnings ==
        std::vector<std::string>{"ignored columns (not read by dctwin): name, fan.speed, driver_version"});
  CHECK(error_of("nothing.csv", "timestamp, index, name, fan.speed [%]\n2025/07/26 23:32:09, 0, H100, 30 %\n") ==
        "nothing.csv:1: no telemetry quantity among the columns (timestamp, index, name, fan.speed); query "
        "power.draw, temperature.gpu, clocks.sm, ... (docs/telemetry.md lists the fields read)");
  CHECK(error_of("nothing.prom", "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 1000\nDCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 0\n") ==
        "nothing.prom: no telemetry quantity recognised (ignored metrics DCGM_FI_DEV_FB_USED, "
        "DCGM_FI_DEV_XID_ERRORS); docs/telemetry.md lists the fields read");
  CHECK(error_of("nothing.txt", "#Entity FBUSD\nID\nGPU 0 1000\n") ==
        "nothing.txt: no telemetry quantity recognised (ignored columns FBUSD); docs/telemetry.md lists the fields "
        "read");
}

TEST_CASE("Raw dcgm-exporter scrapes: one sample per scrape", "[telemetry][prometheus]") {
  const auto family = [](const std::string& name, const std::string& v0, const std::string& v1) {
    return "# HELP " + name + " help text.\n# TYPE " + name + " gauge\n" + name + "{gpu=\"0\",Hostname=\"h\"} " + v0 +
           "\n" + name + "{gpu=\"1\",Hostname=\"h\"} " + v1 + "\n";
  };
  const std::string scrape1 = family("DCGM_FI_DEV_GPU_TEMP", "60", "61") +
                              family("DCGM_FI_DEV_POWER_USAGE", "540", "541") +
                              family("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "0", "4");
  const std::string scrape2 = family("DCGM_FI_DEV_GPU_TEMP", "62", "63") +
                              family("DCGM_FI_DEV_POWER_USAGE", "542", "543") +
                              family("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "1", "68");
  const auto one = load("one.prom", scrape1);
  REQUIRE(one.gpus.size() == 2);
  CHECK(one.gpus[0].time == std::vector<double>{0.0});
  CHECK(value(one, 1, "power", 0) == 541.0);
  CHECK(value(one, 1, "gpu_temperature", 0) == Approx(334.15));
  CHECK(value(one, 1, "clock_event_reasons", 0) == 4.0);
  CHECK(one.provenance.warnings ==
        std::vector<std::string>{"samples carry no time: scrape k is placed at k x 1 s from 1970-01-01T00:00:00Z "
                                 "(--interval); write each scrape's time on a line of its own before it (date +%s)"});
  const auto two = load("two.prom", scrape1 + scrape2);
  CHECK(two.gpus[1].time == std::vector<double>{0.0, 1.0});
  CHECK(value(two, 1, "clock_event_reasons", 1) == 68.0);
  CHECK(value(two, 0, "power", 1) == 542.0);
  // A series listed twice within its family: not a second scrape but labels dctwin cannot tell apart.
  CHECK(error_of("mig.prom", "# HELP DCGM_FI_PROF_SM_ACTIVE x\n# TYPE DCGM_FI_PROF_SM_ACTIVE gauge\n"
                             "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",GPU_I_ID=\"1\"} 0.5\n"
                             "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",GPU_I_ID=\"2\"} 0.25\n") ==
        "mig.prom:4: DCGM_FI_PROF_SM_ACTIVE of GPU 0 is listed twice in a row (line 3): series that differ only "
        "in other labels (MIG instances, ...) cannot be told apart, nor scrapes without a time line between them");
  // The same family listed again with its # HELP line is the next scrape, even with nothing between.
  const std::string temp = family("DCGM_FI_DEV_GPU_TEMP", "60", "61");
  CHECK(load("repeat.prom", temp + temp).gpus[0].time == std::vector<double>{0.0, 1.0});
}

TEST_CASE("Clock-event (throttle) reasons import as the NVML bit field in every format", "[telemetry][throttle]") {
  const auto dcgmi = load("dcgmi-ctr.txt", "#Entity POWER DVCCTR\nID\nGPU 0 690.5 4\nGPU 0 540.0 0\n");
  CHECK(value(dcgmi, 0, "clock_event_reasons", 0) == 4.0);
  CHECK(value(dcgmi, 0, "clock_event_reasons", 1) == 0.0);
  TelemetryImportOptions options;
  options.map_file =
      write("mask-map.yaml", "time: {column: t}\npower: {column: p}\nclock_event_reasons: {column: reasons}\n")
          .string();
  const auto generic = load("mask.csv", "t,p,reasons\n1753572729,690,0x0000000000000004\n1753572730,540,36\n", options);
  CHECK(value(generic, 0, "clock_event_reasons", 0) == 4.0);
  CHECK(value(generic, 0, "clock_event_reasons", 1) == 36.0);
  const auto newer = load("events.csv",
                          "timestamp, index, power.draw [W], clocks_event_reasons.sw_power_cap, "
                          "clocks_event_reasons.hw_slowdown\n"
                          "2025/07/26 23:32:09, 0, 690 W, Active, Not Active\n");
  CHECK(value(newer, 0, "clock_event_reasons", 0) == 4.0);
  // The HDF5 file keeps every bit, the highest NVML reason included.
  const auto trace = load("high.csv",
                          "timestamp, index, power.draw [W], clocks_event_reasons.active\n"
                          "2025/07/26 23:32:09, 0, 690 W, 0x00000000000001FF\n");
  const fs::path file = scratch_dir / "high.h5";
  write_telemetry_hdf5(trace, file);
  CHECK(value(read_telemetry_hdf5(file), 0, "clock_event_reasons", 0) == 511.0);
}

TEST_CASE("The samples of -lms, pdsh and raw scrapes in data/telemetry", "[telemetry][samples]") {
  const auto lms = import_telemetry(samples / "nvidia-smi-lms-noindex.csv");
  REQUIRE(lms.gpus.size() == 8);
  CHECK(lms.sample_count() == 320);
  CHECK(lms.provenance.skipped_count == 0);
  // GPU 5 power-capped from tick 10 to 19: 700 W with the SW power cap bit.
  CHECK(value(lms, 5, "power", 12) == 700.0);
  CHECK(value(lms, 5, "clock_event_reasons", 12) == 4.0);
  CHECK(value(lms, 5, "clock_event_reasons", 20) == 0.0);
  for (const auto& g : lms.gpus) CHECK(g.time == lms.gpus[0].time);

  const auto pdsh = import_telemetry(samples / "nvidia-smi-pdsh.csv");
  REQUIRE(pdsh.gpus.size() == 4);
  CHECK(pdsh.gpus[3].label() == "node-b:gpu1");
  CHECK(pdsh.sample_count() == 40);
  CHECK(pdsh.provenance.missing_count == 40 + 3 * 5 - 3);
  CHECK(pdsh.provenance.warnings ==
        std::vector<std::string>{
            "GPU 1 of node-b: 3 rows read [GPU requires reset] (first at line 30); their values are missing"});

  const auto raw = import_telemetry(samples / "dcgm-exporter-raw.prom");
  REQUIRE(raw.gpus.size() == 2);
  CHECK(raw.gpus[0].time == std::vector<double>{0.0, 1.0, 2.0});
  CHECK(raw.provenance.warnings.size() == 2);
  CHECK(raw.provenance.warnings[1] ==
        "ignored metrics (not read by dctwin): DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_XID_ERRORS");
}
