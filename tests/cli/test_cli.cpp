// The `dctwin` command end to end: exit codes, exact error messages, reports, interruption.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/run_program.hpp"
#include "../support/temporaries.hpp"
#include "dctwin/io/report.hpp"

namespace fs = std::filesystem;
using test_support::finish;
using test_support::Outcome;
using test_support::run_dctwin;
using test_support::slurp;
using test_support::spawn;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "cli" / "scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Writes a report's resolved scenario to `dir/file` and checks that `dctwin check` accepts it: the
/// resolved scenario must describe a site that builds again as it is.
void check_resolved_scenario_runs_again(const dctwin::io::ReportReader& report, const fs::path& dir,
                                        const std::string& file) {
  const auto strings = report.read_strings("/scenario/resolved");
  REQUIRE(strings.size() == 1);
  std::ofstream(dir / file) << strings[0];
  const Outcome check = run_dctwin({"check", file}, dir);
  INFO(check.out << check.err);
  CHECK(check.code == 0);
}

const fs::path bad_dir = fs::path(DCTWIN_SOURCE_DIR) / "tests" / "cli" / "bad";
const std::string single_node = DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml";

}  // namespace

TEST_CASE("Malformed scenarios: exact located messages and exit codes", "[cli][scenario]") {
  struct Case {
    const char* file;
    const char* message;
    int code;
  };
  const Case cases[] = {
      {"yaml-syntax.yaml", "yaml-syntax.yaml:4:1: YAML syntax error: end of sequence flow not found", 65},
      {"unknown-key.yaml", "unknown-key.yaml:22:3: server.gpu_cuont: unknown key (did you mean 'gpu_count'?)", 65},
      {"wrong-type.yaml", "wrong-type.yaml:22:14: server.gpu_count = eight (must be an integer)", 65},
      {"missing-required.yaml", "missing-required.yaml:12:1: name: required key is missing (text)", 65},
      {"negative-flow.yaml", "negative-flow.yaml:61:15: loop.pump.max_flow = -20 L/min (must be > 0)", 65},
      {"negative-power-scale.yaml", "negative-power-scale.yaml:41:21: server.gpus[5].power_scale = -0.5 (must be >= 0)", 65},
      {"bad-unit.yaml", "bad-unit.yaml:55:24: loop.piping_nominal_flow = 8.4 L/mn (unknown unit 'L/mn')", 65},
      {"incompatible-unit.yaml", "incompatible-unit.yaml:52:23: loop.supply_temperature = 32 kW (unit 'kW' is not convertible to 'K')", 65},
      {"out-of-range.yaml", "out-of-range.yaml:22:14: server.gpu_count = 128 (must be in [1, 64])", 65},
      {"duplicate-key.yaml", "duplicate-key.yaml:23:3: server.gpu_count: duplicate key (first at line 22)", 65},
      {"empty.yaml", "empty.yaml: scenario file is empty", 65},
      {"inconsistent-topology.yaml", "inconsistent-topology.yaml:53:21: loop.plates_in_series = 3 does not divide server.gpu_count = 8 (inconsistent topology: equal branches)", 65},
      {"gpu-list-mismatch.yaml", "gpu-list-mismatch.yaml:22:3: server.gpus has 8 entries but server.gpu_count = 6 (inconsistent topology: one entry per GPU)", 65},
      {"bad-choice.yaml", "bad-choice.yaml:18:9: simulation.mode = quick (must be one of: fast, reference)", 65},
      {"not-finite.yaml", "not-finite.yaml:49:17: workload.startup_time = .nan s (must be a finite number)", 65},
      {"negative-step-time.yaml", "negative-step-time.yaml:46:38: workload.job.compute_time = -5 s (must be > 0)", 65},
      {"parallelism-not-dividing.yaml", "parallelism-not-dividing.yaml:46:49: workload.job.tensor_parallel x workload.job.pipeline_parallel x workload.job.context_parallel = 3 x 1 x 1 = 3 does not divide the job's 8 GPUs", 65},
      {"checkpoint-interval-zero.yaml", "checkpoint-interval-zero.yaml:47:32: workload.checkpoint.interval_steps = 0 (must be >= 1)", 65},
      {"gpu-clock-order.yaml", "gpu-clock-order.yaml:47:14: workload.gpu_power: min_clock 500 MHz is above max_clock 400 MHz", 65},
      {"thermal-limits-order.yaml", "thermal-limits-order.yaml:24:5: server.gpu.hw_slowdown_temperature = 89 degC is not above server.gpu.max_operating_temperature = 90 degC", 65},
      {"missing.yaml", "missing.yaml: cannot open scenario file (No such file or directory)", 66},
      {"facility-no-pump.yaml", "facility-no-pump.yaml:30:25: facility.pod_loop.pumps.duty_count = 0 (a pod loop with no running pump moves no coolant)", 65},
      {"facility-disconnected-rack.yaml", "facility-disconnected-rack.yaml:30:5: facility.pod_loop: rack pod0/rack000 gets no coolant (disconnected: its valve is shut or it has no path)", 65},
      {"facility-zero-flow-area.yaml", "facility-zero-flow-area.yaml:30:29: facility.pod_loop.supply_main.diameter = 0 mm (must be > 0)", 65},
      {"facility-glycol-80.yaml", "facility-glycol-80.yaml:30:14: facility.pod_loop.coolant: glycol mass fraction 0.8 is outside the tabulated range 0-0.6", 65},
  };
  // Run in a copy of the files, so that the program's output files stay out of the source tree.
  const fs::path dir = scratch("bad");
  fs::copy(bad_dir, dir, fs::copy_options::recursive);
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.file) {
      for (const char* command : {"check", "run"}) {
        const Outcome o = run_dctwin({command, c.file}, dir);
        CHECK(o.code == c.code);
        const std::string expected = std::string(command) == "run" && c.code == 66
                                         ? std::string("dctwin run: ") + c.message + "\n"
                                         : std::string(c.message) + "\n";
        CHECK(o.err == expected);
      }
    }
  }
}

TEST_CASE("check accepts the shipped scenario", "[cli]") {
  const auto dir = scratch("check");
  const Outcome o = run_dctwin({"check", single_node}, dir);
  CHECK(o.code == 0);
  CHECK(o.out.find(": OK, site 'single-node': 3 components, 34 states") != std::string::npos);
  const Outcome facility = run_dctwin({"check", DCTWIN_SOURCE_DIR "/scenarios/llama3-24k-l2a.yaml"}, dir);
  CHECK(facility.code == 0);
  CHECK(facility.out.find("24576 gpus, 1536 racks, 8 pods") != std::string::npos);
}

TEST_CASE("Losing every pump of a pod trips its GPUs: exit 3 and the time to the limit", "[cli][facility]") {
  const auto dir = scratch("pump-failure");
  const Outcome o =
      run_dctwin({"run", DCTWIN_SOURCE_DIR "/scenarios/pod-l2l-pump-failure.yaml", "-o", "pf.h5", "-q"}, dir);
  CHECK(o.code == 3);
  CHECK(o.err.find("reached the shutdown temperature 92.00 degC") != std::string::npos);
  const dctwin::io::ReportReader report(dir / "pf.h5");
  CHECK(report.status() == "incomplete");
  CHECK(report.end_time() > 240.0);  // after the last pump failed at 4 min
  CHECK(report.end_time() < 300.0);
  bool found = false;
  for (const auto& f : report.summary()) {
    if (f.name != "time_to_first_gpu_thermal_limit") continue;
    found = true;
    CHECK(f.value > 60.0);
    CHECK(f.unit == "s");
  }
  CHECK(found);
}

TEST_CASE("The pod scenario runs and reports per-GPU temperatures that differ", "[cli][facility]") {
  const auto dir = scratch("pod");
  const Outcome o = run_dctwin({"run", DCTWIN_SOURCE_DIR "/scenarios/pod-l2a.yaml", "-o", "pod.h5", "-q", "--duration", "30 s"}, dir);
  REQUIRE(o.code == 0);
  const dctwin::io::ReportReader report(dir / "pod.h5");
  CHECK(report.status() == "complete");
  const auto tj = report.read_row("/gpu/junction_temperature", report.time().size() - 1);
  REQUIRE(tj.size() == 3072);
  const auto [low, high] = std::minmax_element(tj.begin(), tj.end());
  CHECK(*high - *low > 1.0);
  CHECK(report.read("/layout/gpu_rack").size() == 3072);
  check_resolved_scenario_runs_again(report, dir, "resolved.yaml");  // no single-node sections in it
  for (const auto& f : report.summary()) {
    if (f.name == "energy_balance_relative_error") CHECK(f.value <= 1e-6);
    if (f.name == "gpu_junction_temperature_max") CHECK(f.value < 273.15 + 87.0);
  }
}

TEST_CASE("The GB200 NVL72 pod checks without warnings and runs below the throttle limit", "[cli][facility]") {
  const auto dir = scratch("gb200");
  const std::string scenario = DCTWIN_SOURCE_DIR "/scenarios/gb200-nvl72-pod.yaml";
  const Outcome check = run_dctwin({"check", scenario}, dir);
  CHECK(check.code == 0);
  CHECK(check.out.find("1152 gpus, 16 racks, 1 pod") != std::string::npos);
  CHECK(check.err.empty());  // no design warning: the plant holds its set-point at the design load
  const Outcome o = run_dctwin({"run", scenario, "-o", "gb200.h5", "-q", "--duration", "30 s"}, dir);
  REQUIRE(o.code == 0);
  CHECK(o.err.empty());
  const dctwin::io::ReportReader report(dir / "gb200.h5");
  CHECK(report.status() == "complete");
  const auto labels = report.read_strings("/gpu/gpu");
  REQUIRE(labels.size() == 1152);
  CHECK(labels.back() == "pod0/rack015/server17/gpu3");  // 18 trays of 4 GPUs a rack
  // The boards draw more than the old 1 kW bound allowed, within their 1.2 kW limit.
  double power_max = 0.0;
  for (std::size_t k = 0; k < report.time().size(); ++k) {
    const auto power = report.read_row("/gpu/power", k);
    power_max = std::max(power_max, *std::max_element(power.begin(), power.end()));
  }
  CHECK(power_max > 1000.0);
  CHECK(power_max <= 1200.0);
  for (const auto& f : report.summary()) {
    if (f.name == "gpu_junction_temperature_max") CHECK(f.value < 273.15 + 87.0);
    if (f.name == "throttled_gpu_seconds") CHECK(f.value == 0.0);
    if (f.name == "energy_balance_relative_error") CHECK(f.value <= 1e-6);
  }
}

TEST_CASE("run writes a complete report that info reads", "[cli][report]") {
  const auto dir = scratch("run");
  const Outcome o = run_dctwin({"run", single_node, "-o", "out.h5", "--duration", "2 min", "--output-interval", "1 s"}, dir);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("status: finished at t = 120 s") != std::string::npos);
  CHECK(o.out.find("energy_balance_relative_error") != std::string::npos);
  CHECK(fs::exists(dir / "out.h5"));
  CHECK(test_support::temporaries_in(dir).empty());

  const dctwin::io::ReportReader report(dir / "out.h5");
  CHECK(report.status() == "complete");
  CHECK(report.time().size() == 121);
  CHECK(report.end_time() == 120.0);
  bool balance_found = false;
  for (const auto& f : report.summary()) {
    if (f.name == "energy_balance_relative_error") {
      balance_found = true;
      CHECK(f.value <= 1e-6);
      CHECK(f.unit == "1");
    }
  }
  CHECK(balance_found);
  const auto tj = report.read_row("/gpu/junction_temperature", 120);
  REQUIRE(tj.size() == 8);
  CHECK(tj[5] > tj[0]);  // the GPU with the worse spread runs hotter

  // The resolved scenario is stored and records the command-line override.
  const auto strings = report.read_strings("/scenario/resolved");
  REQUIRE(strings.size() == 1);
  CHECK(strings[0].find("duration: 120 s") != std::string::npos);
  check_resolved_scenario_runs_again(report, dir, "resolved.yaml");  // no facility sections in it

  const Outcome info = run_dctwin({"info", "out.h5"}, dir);
  CHECK(info.code == 0);
  CHECK(info.out.find("status: complete") != std::string::npos);
  CHECK(info.out.find("/gpu/junction_temperature") != std::string::npos);
  CHECK(info.out.find("[121 x 8] K") != std::string::npos);

  // Where the run's time went: printed, and in the report with every part, none negative, the
  // parts within the run loop and the run loop within the whole run.
  CHECK(o.out.find("  wall time by part: start ") != std::string::npos);
  const auto reals = report.double_attributes();
  double parts = 0.0;
  for (const std::string part :
       {"integration", "periodic_updates", "scheduled_updates", "knots", "continuations", "restarts", "samples"}) {
    INFO(part);
    REQUIRE(reals.count("wall_time_" + part) == 1);
    CHECK(reals.at("wall_time_" + part) >= 0.0);
    parts += reals.at("wall_time_" + part);
  }
  CHECK(reals.at("wall_time_interpolation") <= reals.at("wall_time_integration"));
  CHECK(parts <= reals.at("wall_time_run_loop"));
  CHECK(reals.at("wall_time_run_loop") <= reals.at("wall_time"));
  const Outcome listed = run_dctwin({"info", "out.h5", "--attributes"}, dir);
  CHECK(listed.code == 0);
  CHECK(listed.out.find("  end_time = 120\n") != std::string::npos);
  CHECK(listed.out.find("  solver_steps = ") != std::string::npos);
  CHECK(listed.out.find("  wall_time_run_loop = ") != std::string::npos);
}

TEST_CASE("A protection trip ends the run early: exit 3, report marked incomplete", "[cli][report]") {
  const auto dir = scratch("trip");
  std::string text = slurp(single_node);
  const auto at = text.find("supply_temperature: 32 degC");
  REQUIRE(at != std::string::npos);
  text.replace(at, 27, "supply_temperature: 60 degC");
  // Leakage 8x the calibrated value runs away even at the lowest clock the governor can set.
  const auto at_leakage = text.find("leakage_power_at_reference: 50 W");
  REQUIRE(at_leakage != std::string::npos);
  text.replace(at_leakage, 32, "leakage_power_at_reference: 400 W");
  std::ofstream(dir / "hot.yaml") << text;
  const Outcome o = run_dctwin({"run", "hot.yaml", "-o", "hot.h5", "-q"}, dir);
  CHECK(o.code == 3);
  CHECK(o.err.find("ended early at t = ") != std::string::npos);
  CHECK(o.err.find("event in gpus: server0/gpu5 reached the shutdown temperature 92.00 degC") != std::string::npos);
  const dctwin::io::ReportReader report(dir / "hot.h5");
  CHECK(report.status() == "incomplete");
  CHECK(report.status_reason().find("shutdown temperature") != std::string::npos);
  CHECK(report.read_strings("/events/event") == std::vector<std::string>{"junction_shutdown"});
}

TEST_CASE("SIGINT and SIGTERM leave a report marked incomplete, never a truncated file", "[cli][signals]") {
  for (int sig : {SIGINT, SIGTERM}) {
    DYNAMIC_SECTION("signal " << sig) {
      const auto dir = scratch("signal" + std::to_string(sig));
      const pid_t pid = spawn({"run", single_node, "-o", "long.h5", "--duration", "1000 d", "--output-interval", "10 min"}, dir);
      // Wait until the run is under way (progress lines on stderr), then interrupt it.
      for (int i = 0; i < 200 && slurp(dir / "stderr.txt").find("progress:") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      kill(pid, sig);
      const Outcome o = finish(pid, dir);
      CHECK(o.code == (sig == SIGINT ? 130 : 143));
      CHECK(test_support::temporaries_in(dir).empty());
      if (fs::exists(dir / "long.h5")) {
        const dctwin::io::ReportReader report(dir / "long.h5");
        CHECK(report.status() == "incomplete");
        CHECK(report.status_reason().find("interrupted") != std::string::npos);
        CHECK(report.end_time() > 0.0);
        CHECK(report.time().size() >= 1);
      }
    }
  }
}

TEST_CASE("Command-line usage errors exit 64, help and version exit 0", "[cli]") {
  const auto dir = scratch("usage");
  CHECK(run_dctwin({}, dir).code == 64);
  CHECK(run_dctwin({"run"}, dir).code == 64);
  CHECK(run_dctwin({"frobnicate"}, dir).code == 64);
  const Outcome bad_duration = run_dctwin({"run", single_node, "--duration", "10 mn"}, dir);
  CHECK(bad_duration.code == 64);
  CHECK(bad_duration.err == "dctwin run: invalid duration '10 mn' (unknown unit 'mn')\n");
  const Outcome help = run_dctwin({"run", "--help"}, dir);
  CHECK(help.code == 0);
  CHECK(help.out.find("--output-interval") != std::string::npos);
  CHECK(help.out.find("--threads") != std::string::npos);
  const Outcome negative_threads = run_dctwin({"run", single_node, "--threads", "-1"}, dir);
  CHECK(negative_threads.code == 64);
  CHECK(negative_threads.err.rfind("--threads: Value -1 not in range 0 to 1024\n", 0) == 0);
  CHECK(run_dctwin({"run", single_node, "--threads", "two"}, dir).code == 64);
  const Outcome negative_seed = run_dctwin({"run", single_node, "--seed", "-1"}, dir);
  CHECK(negative_seed.code == 64);
  CHECK(negative_seed.err.rfind("--seed: must be a whole number >= 0, not '-1'\n", 0) == 0);
  CHECK(run_dctwin({"run", single_node, "--seed", "1.5"}, dir).code == 64);
  const Outcome version = run_dctwin({"--version"}, dir);
  CHECK(version.code == 0);
  CHECK(version.out.rfind("dctwin 0.", 0) == 0);
}

TEST_CASE("Output errors: an uncreatable report exits 73, info on a broken file exits 65", "[cli][report]") {
  const auto dir = scratch("output");
  const Outcome o = run_dctwin({"run", single_node, "-o", "/proc/no-such-dir/r.h5", "-q"}, dir);
  CHECK(o.code == 73);
  CHECK(o.err == "dctwin run: cannot create report '/proc/no-such-dir/r.h5': directory '/proc/no-such-dir' does not exist\n");
  std::ofstream(dir / "text.h5") << "not a report\n";
  const Outcome info = run_dctwin({"info", "text.h5"}, dir);
  CHECK(info.code == 65);
  CHECK(info.err == "text.h5: not an HDF5 file or truncated\n");
  CHECK(run_dctwin({"info", "absent.h5"}, dir).code == 66);
}

TEST_CASE("The --seed option takes every whole number 0 to 2^64-1 exactly, the report stores it as uint64", "[cli][seed]") {
  const auto dir = scratch("seed");
  // 2^64 - 1 and 2^53 + 1 (a double would round the second to 2^53, and the first overflowed).
  for (const std::string seed : {"18446744073709551615", "9007199254740993"}) {
    INFO(seed);
    const Outcome o = run_dctwin({"run", single_node, "-o", "s.h5", "--duration", "2 s", "--seed", seed, "-q"}, dir);
    REQUIRE(o.code == 0);
    const dctwin::io::ReportReader report(dir / "s.h5");
    const auto unsigned_attributes = report.unsigned_attributes();
    REQUIRE(unsigned_attributes.count("seed") == 1);
    CHECK(std::to_string(unsigned_attributes.at("seed")) == seed);
    CHECK(report.string_attributes().count("seed") == 0);
    CHECK(report.integer_attributes().count("seed") == 0);
    const auto resolved = report.read_strings("/scenario/resolved");
    REQUIRE(resolved.size() == 1);
    CHECK(resolved[0].find("  seed: " + seed + "\n") != std::string::npos);
    const Outcome listed = run_dctwin({"info", "s.h5", "--attributes"}, dir);
    CHECK(listed.out.find("  seed = " + seed + "\n") != std::string::npos);
  }
  const Outcome too_large = run_dctwin({"run", single_node, "--seed", "18446744073709551616"}, dir);
  CHECK(too_large.code == 64);
  CHECK(too_large.err.rfind("--seed: must be <= 18446744073709551615, not 18446744073709551616\n", 0) == 0);
  const Outcome negative = run_dctwin({"run", single_node, "--seed", "-5"}, dir);
  CHECK(negative.code == 64);
  CHECK(negative.err.rfind("--seed: must be a whole number >= 0, not '-5'\n", 0) == 0);
  const Outcome fraction = run_dctwin({"run", single_node, "--seed", "1e3"}, dir);
  CHECK(fraction.code == 64);
  CHECK(fraction.err.rfind("--seed: must be a whole number >= 0, not '1e3'\n", 0) == 0);
  const Outcome escape = run_dctwin({"run", single_node, "--seed", "\x1b[2J"}, dir);
  CHECK(escape.code == 64);
  CHECK(escape.err.rfind("--seed: must be a whole number >= 0, not '\\x1b[2J'\n", 0) == 0);
  // In a scenario file: exit 65 with the place.
  std::ofstream(dir / "big-seed.yaml") << "name: big seed\nsimulation:\n  seed: 18446744073709551616\n";
  const Outcome in_file = run_dctwin({"check", "big-seed.yaml"}, dir);
  CHECK(in_file.code == 65);
  CHECK(in_file.err == "big-seed.yaml:3:9: simulation.seed = 18446744073709551616 (must be <= 18446744073709551615)\n");
}

TEST_CASE("File names and values the command did not produce are printed as escapes", "[cli][messages]") {
  const auto dir = scratch("escapes");
  const Outcome missing = run_dctwin({"check", "a\x1b]0;title\x07.yaml"}, dir);
  CHECK(missing.code == 66);
  CHECK(missing.err == "a\\x1b]0;title\\x07.yaml: cannot open scenario file (No such file or directory)\n");
  const Outcome absent = run_dctwin({"info", "r\x1b[2J.h5"}, dir);
  CHECK(absent.code == 66);
  CHECK(absent.err == "r\\x1b[2J.h5: no such report file\n");
  std::ofstream(dir / "t\x1b[8m.h5") << "not a report\n";
  const Outcome text = run_dctwin({"info", "t\x1b[8m.h5"}, dir);
  CHECK(text.code == 65);
  CHECK(text.err == "t\\x1b[8m.h5: not an HDF5 file or truncated\n");
  const Outcome format = run_dctwin({"import", "x.csv", "--format", "\x1b[31mcsv"}, dir);
  CHECK(format.code == 64);
  CHECK(format.err.rfind("dctwin import: unknown format '\\x1b[31mcsv'", 0) == 0);
  // The command-line parser's own messages too.
  const Outcome threads = run_dctwin({"run", "x.yaml", "--threads", "9\x1b[2J"}, dir);
  CHECK(threads.code == 64);
  CHECK(threads.err == "--threads: Value 9\\x1b[2J not in range 0 to 1024\nRun with --help for more information.\n");
}
