// Limits of the `dctwin` command: values that would make a run endless or its report or memory
// unbounded are refused at once with located messages; a stop signal is honoured from the start
// of main(); the thread count is capped whatever OMP_NUM_THREADS says.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/run_program.hpp"

namespace fs = std::filesystem;
using test_support::slurp;
using test_support::spawn_program;

namespace {

using Clock = std::chrono::steady_clock;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "cli" / "scratch" / ("limits-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// How a program ended: its raw wait status, output and wall time.
struct Ended {
  int status = 0;
  std::string out, err;
  double seconds = 0.0;
  bool timed_out = false;
  [[nodiscard]] bool exited_with(int code) const { return WIFEXITED(status) && WEXITSTATUS(status) == code; }
};

/// Waits for `pid` for at most `limit` seconds (then kills it: a hang fails the test instead of
/// stopping the suite).
Ended wait_for(pid_t pid, const fs::path& dir, Clock::time_point started, double limit = 30.0) {
  Ended e;
  while (waitpid(pid, &e.status, WNOHANG) == 0) {
    if (std::chrono::duration<double>(Clock::now() - started).count() > limit) {
      e.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &e.status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  e.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  e.out = slurp(dir / "stdout.txt");
  e.err = slurp(dir / "stderr.txt");
  return e;
}

Ended run(const std::vector<std::string>& args, const fs::path& dir, double limit = 30.0) {
  const auto started = Clock::now();
  return wait_for(spawn_program(DCTWIN_EXE, args, dir), dir, started, limit);
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitizer = true;  // its shadow memory cannot be reserved under `ulimit -v`
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool address_sanitizer = true;
#else
constexpr bool address_sanitizer = false;
#endif
#else
constexpr bool address_sanitizer = false;
#endif

/// `dctwin ARGS` under `ulimit -v KB`, so that a size check that is missing fails the test quickly
/// instead of taking the machine's memory (without the limit under AddressSanitizer, which cannot
/// start under one).
Ended run_limited(long kilobytes, const std::vector<std::string>& args, const fs::path& dir) {
  if constexpr (address_sanitizer) return run(args, dir);
  std::vector<std::string> shell = {"-c", "ulimit -v " + std::to_string(kilobytes) + " && exec \"$0\" \"$@\"",
                                    DCTWIN_EXE};
  shell.insert(shell.end(), args.begin(), args.end());
  const auto started = Clock::now();
  return wait_for(spawn_program("/bin/sh", shell, dir), dir, started);
}

/// A shipped scenario with some of its text replaced, written to `dir/name`.
void write_variant(const fs::path& dir, const std::string& name, const std::string& shipped,
                   const std::vector<std::pair<std::string, std::string>>& replacements) {
  std::string text = slurp(fs::path(DCTWIN_SOURCE_DIR) / "scenarios" / shipped);
  for (const auto& [from, to] : replacements) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  std::ofstream(dir / name) << text;
}

/// No report and no temporary file (any `*.part`, hidden or not) in `dir`.
void check_no_report(const fs::path& dir, const std::string& report) {
  CHECK_FALSE(fs::exists(dir / report));
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    INFO(name);
    CHECK_FALSE((name.size() >= 5 && name.compare(name.size() - 5, 5, ".part") == 0));
  }
}

}  // namespace

TEST_CASE("An output interval below 1 ms is refused before anything runs", "[cli][limits]") {
  const auto dir = scratch("interval");
  // Samples 1e-14 s apart once made a run that never ended, ignored SIGTERM and grew its report.
  write_variant(dir, "tiny.yaml", "single-node.yaml", {{"output_interval: 0.5 s", "output_interval: 1e-14 s"}});
  for (const char* command : {"check", "run"}) {
    INFO(command);
    const Ended e = run({command, "tiny.yaml"}, dir, 10.0);
    CHECK_FALSE(e.timed_out);
    CHECK(e.exited_with(65));
    CHECK(e.err == "tiny.yaml:18:20: simulation.output_interval = 1e-14 s (must be >= 0.001 s)\n");
  }
  check_no_report(dir, "report.h5");
  const Ended option =
      run({"run", DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml", "-o", "o.h5", "--output-interval", "1e-14"}, dir);
  CHECK_FALSE(option.timed_out);
  CHECK(option.exited_with(64));
  CHECK(option.err == "dctwin run: --output-interval = 1e-14 (must be >= 0.001 s)\n");
  check_no_report(dir, "o.h5");
  // Periodic updates are solver stops: a governor or controller ticking every 1e-14 s never ends.
  const struct {
    const char* file;
    const char* shipped;
    const char* section;
    const char* with;
    const char* message;
  } periodic[] = {
      {"governor.yaml", "single-node.yaml", "workload:\n", "workload:\n  governor: {update_period: 1e-14 s}\n",
       "governor.yaml:54:29: workload.governor.update_period = 1e-14 s (must be in [0.001, 10] s)\n"},
      {"fans.yaml", "llama3-24k-air.yaml", "facility:\n", "facility:\n  fan_controller: {sample_period: 1e-14 s}\n",
       "fans.yaml:27:35: facility.fan_controller.sample_period = 1e-14 s (must be >= 0.001 s)\n"},
      {"cdu.yaml", "llama3-24k-l2l.yaml", "  cdu:\n", "  cdu:\n    controller: {sample_period: 1e-14 s}\n",
       "cdu.yaml:40:33: facility.cdu.controller.sample_period = 1e-14 s (must be >= 0.001 s)\n"},
  };
  for (const auto& c : periodic) {
    INFO(c.file);
    write_variant(dir, c.file, c.shipped, {{c.section, c.with}});
    const Ended e = run({"check", c.file}, dir);
    CHECK(e.exited_with(65));
    CHECK(e.err == c.message);
  }
  // The electrical feed's own step: 1e-14 s would make every knot endless.
  write_variant(dir, "grid.yaml", "llama3-24k-grid.yaml", {{"  time_step: 1 ms", "  time_step: 1e-14 s"}});
  const Ended grid = run({"check", "grid.yaml"}, dir);
  CHECK(grid.exited_with(65));
  CHECK(grid.err == "grid.yaml:44:14: electrical.time_step = 1e-14 s (must be in [0.1, 10] ms)\n");
}

TEST_CASE("A report larger than 1 TiB or than the free space is refused before it is created", "[cli][limits]") {
  const auto dir = scratch("report-size");
  write_variant(dir, "big.yaml", "single-node.yaml",
                {{"duration: 10 min", "duration: 1000 d"}, {"output_interval: 0.5 s", "output_interval: 1 ms"}});
  const std::string too_big =
      "big.yaml:18:20: simulation.output_interval = 1 ms (the report would take about 41.2 TiB, 8.64e+10 samples x 70 "
      "values (524 bytes a sample) at this interval; more than the limit of 1 TiB: raise simulation.output_interval or "
      "shorten simulation.duration)\n";
  for (const char* command : {"check", "run"}) {
    INFO(command);
    const Ended e = run({command, "big.yaml"}, dir);
    CHECK_FALSE(e.timed_out);
    CHECK(e.exited_with(65));
    CHECK(e.err == too_big);
    CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
  }
  check_no_report(dir, "report.h5");

  // Below the limit but above the free space where the report goes (70 values, 524 bytes a sample
  // here: 61 float64 and 9 categorical uint32 series with the time):
  // `run` refuses it; `check`, which does not know where the report will go, accepts it.
  const double free_bytes = static_cast<double>(fs::space(dir).available);
  const double samples = 2.0 * free_bytes / 524.0;
  if (2.0 * free_bytes > 0.9 * 1024.0 * 1024.0 * 1024.0 * 1024.0) {
    WARN("more than 0.45 TiB free here: the free-space case is not tried");
    return;
  }
  const std::string duration = std::to_string(static_cast<long long>(samples / 1000.0)) + " s";
  write_variant(dir, "long.yaml", "single-node.yaml",
                {{"duration: 10 min", "duration: " + duration}, {"output_interval: 0.5 s", "output_interval: 1 ms"}});
  const Ended e = run({"run", "long.yaml", "-o", "long.h5", "-q"}, dir);
  CHECK_FALSE(e.timed_out);
  CHECK(e.exited_with(65));
  CHECK(e.err.rfind("long.yaml:18:20: simulation.output_interval = 1 ms (the report would take about ", 0) == 0);
  CHECK(e.err.find(" free on " + dir.string() + ": raise simulation.output_interval or shorten simulation.duration)\n") !=
        std::string::npos);
  check_no_report(dir, "long.h5");
  CHECK(run({"check", "long.yaml"}, dir).exited_with(0));
}

TEST_CASE("A facility too large for memory is refused at once, located at its layout", "[cli][limits][facility]") {
  const auto dir = scratch("facility-size");
  // 64 pods x 1024 racks x 16 servers x 16 GPUs: every count within its range, 16.7 M GPUs in all.
  write_variant(dir, "huge.yaml", "pod-l2a.yaml",
                {{"    pods: 1\n", "    pods: 64\n    servers_per_rack: 16\n    gpus_per_server: 16\n"},
                 {"racks_per_pod: 192\n", "racks_per_pod: 1024\n  pod_loop: {rack_count: 1024, rack: {servers: 16, plates_per_server: 16}}\n"}});
  for (const char* command : {"check", "run"}) {
    INFO(command);
    const Ended e = run_limited(4L << 20, {command, "huge.yaml"}, dir);
    CHECK(e.exited_with(65));
    CHECK(e.err ==
          "huge.yaml:31:11: facility.layout.pods x facility.layout.racks_per_pod x facility.layout.servers_per_rack x "
          "facility.layout.gpus_per_server = 64 x 1024 x 16 x 16 = 16777216 GPUs (must be at most 1048576; simulating "
          "them would take about 128 GiB of memory)\n");
    CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
  }
  check_no_report(dir, "report.h5");
  // Under the cap but more than this process may use: 262,144 GPUs under `ulimit -v` of 1 GiB
  // (not under AddressSanitizer, which cannot start under such a limit).
  if constexpr (address_sanitizer) return;
  write_variant(dir, "large.yaml", "pod-l2a.yaml",
                {{"    pods: 1\n", "    pods: 1\n    servers_per_rack: 16\n    gpus_per_server: 16\n"},
                 {"racks_per_pod: 192\n", "racks_per_pod: 1024\n  pod_loop: {rack_count: 1024, rack: {servers: 16, plates_per_server: 16}}\n"}});
  const Ended e = run_limited(1L << 20, {"check", "large.yaml"}, dir);
  CHECK(e.exited_with(65));
  CHECK(e.err ==
        "large.yaml:31:11: facility.layout.pods x facility.layout.racks_per_pod x facility.layout.servers_per_rack x "
        "facility.layout.gpus_per_server = 1 x 1024 x 16 x 16 = 262144 GPUs (simulating them would take about 2.03 "
        "GiB of memory, more than the 1 GiB this process may use (ulimit -v))\n");
  CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
}

TEST_CASE("Interruptions expected over the run are bounded before they are drawn", "[cli][limits]") {
  const auto dir = scratch("interruptions");
  // A run length the report can afford (ten samples) but whose interruptions, drawn when the site
  // is built, would not fit in memory (1.7e10 on the pod's 3,072 GPUs).
  const Ended e = run_limited(3L << 20,
                              {"run", DCTWIN_SOURCE_DIR "/scenarios/pod-l2a.yaml", "-o", "r.h5", "--duration", "1e15",
                               "--output-interval", "1e14"},
                              dir);
  CHECK(e.exited_with(65));
  CHECK(e.err == DCTWIN_SOURCE_DIR "/scenarios/pod-l2a.yaml:25:3: workload.failures.rate_scale = 1 (1.68e+10 "
                 "interruptions expected in 1e+15 s of run; must be at most 1000000: lower it or the run's duration)\n");
  CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
  check_no_report(dir, "r.h5");
}

TEST_CASE("A sweep with more member values than it can hold is refused before it is expanded", "[cli][limits]") {
  const auto dir = scratch("sweep-size");
  // 1000 x 1000 x 10 members, each count within its bound: 30 million values.
  std::ofstream(dir / "big.yaml") << "name: big\n"
                                     "base: " DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml\n"
                                     "design: grid\n"
                                     "set:\n"
                                     "  simulation.duration: 10 s\n"
                                     "parameters:\n"
                                     "  loop.supply_temperature: {min: 20 degC, max: 45 degC, count: 1000}\n"
                                     "  loop.pump.speed: {min: 0.4, max: 1.2, count: 1000}\n"
                                     "  server.gpus[0].power_scale: {min: 0.9, max: 1.1, count: 10}\n";
  for (const bool dry_run : {true, false}) {
    INFO("dry run " << dry_run);
    std::vector<std::string> args = {"sweep", "big.yaml", "-o", "out", "-q"};
    if (dry_run) args.push_back("--dry-run");
    const Ended e = run_limited(2L << 20, args, dir);
    CHECK(e.exited_with(65));
    CHECK(e.err == "big.yaml:6:1: parameters: 10000000 members x 3 parameters = 30000000 values (must be at most "
                   "1000000: fewer members or parameters, or several sweeps)\n");
    CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
    CHECK_FALSE(fs::exists(dir / "out"));
  }
}

TEST_CASE("Design days are bounded: their hourly series is built with the site", "[cli][limits]") {
  const auto dir = scratch("design-days");
  write_variant(dir, "days.yaml", "pod-l2a.yaml",
                {{"    source: design_day\n", "    source: design_day\n    design_day: {days: 100000000}\n"}});
  const Ended e = run_limited(2L << 20, {"check", "days.yaml"}, dir);
  CHECK(e.exited_with(65));
  CHECK(e.err == "days.yaml:53:24: facility.weather.design_day.days = 100000000 (must be in [1, 3660])\n");
  CHECK_FALSE(e.timed_out);  // refused before the work, which would outlast the 30-s limit
}

namespace {

/// Starts `dctwin ARGS` with `signal_number` already pending: blocked in the child before exec,
/// sent at once. The program takes it as soon as main() unblocks it, the earliest it can.
pid_t spawn_with_pending_signal(int signal_number, const std::vector<std::string>& args, const fs::path& dir) {
  sigset_t block, previous;
  sigemptyset(&block);
  sigaddset(&block, signal_number);
  sigprocmask(SIG_BLOCK, &block, &previous);  // inherited by the child across fork and exec
  const pid_t pid = spawn_program(DCTWIN_EXE, args, dir);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  kill(pid, signal_number);
  return pid;
}

}  // namespace

TEST_CASE("A stop signal at start ends a run by its rules: exit 130 / 143, no file, a message", "[cli][signals]") {
  for (int sig : {SIGINT, SIGTERM}) {
    DYNAMIC_SECTION("signal " << sig) {
      const auto dir = scratch("early-signal-" + std::to_string(sig));
      const auto started = Clock::now();
      const pid_t pid = spawn_with_pending_signal(
          sig, {"run", DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml", "-o", "early.h5", "--duration", "30 s"}, dir);
      const Ended e = wait_for(pid, dir, started);
      CHECK(e.exited_with(sig == SIGINT ? 130 : 143));
      CHECK(e.err == "dctwin run: interrupted before the report was created; no report written\n");
      check_no_report(dir, "early.h5");
    }
  }
  // A subcommand that does not watch for the signals ends by them as usual.
  const auto dir = scratch("early-signal-check");
  const auto started = Clock::now();
  const pid_t pid = spawn_with_pending_signal(SIGTERM, {"check", DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml"}, dir);
  const Ended e = wait_for(pid, dir, started);
  CHECK(WIFSIGNALED(e.status));
  CHECK((WIFSIGNALED(e.status) && WTERMSIG(e.status) == SIGTERM));
  CHECK(e.out.empty());
}

namespace {

/// The number of threads of process `pid` now (0 when it has ended).
int threads_of(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  return 0;
}

}  // namespace

TEST_CASE("OMP_NUM_THREADS above the CPUs is capped like --threads", "[cli][threads]") {
  const auto dir = scratch("omp-threads");
  // 64 rather than a truly huge count, so that without the cap the test is still harmless.
  setenv("OMP_NUM_THREADS", "64", 1);
  const auto started = Clock::now();
  const pid_t pid = spawn_program(
      DCTWIN_EXE, {"run", DCTWIN_SOURCE_DIR "/scenarios/pod-l2a.yaml", "-o", "pod.h5", "-q", "--duration", "10 s"}, dir);
  unsetenv("OMP_NUM_THREADS");
  // The main thread and one helper per CPU but the first at most (the pod's loops run on them).
  const int cpus = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  int most = 0;
  int status = 0;
  bool stopped = false;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    most = std::max(most, threads_of(pid));
    // Too many threads, or too slow (64 threads on a few CPUs crawl): stop it, the checks below fail.
    if (most > cpus || std::chrono::duration<double>(Clock::now() - started).count() > 120.0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      stopped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  INFO("threads seen: " << most << ", CPUs: " << cpus);
  CHECK_FALSE(stopped);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  CHECK(most >= 1);
  CHECK(most <= cpus);
}
