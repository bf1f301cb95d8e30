// Limits of the `dctwin` command: values that would make a run endless are refused at once with
// located messages.
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

/// No report and no temporary file in `dir`.
void check_no_report(const fs::path& dir, const std::string& report) {
  CHECK_FALSE(fs::exists(dir / report));
  CHECK_FALSE(fs::exists(dir / (report + ".part")));
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
  // The electrical feed's own step: 1e-14 s would make every knot endless.
  write_variant(dir, "grid.yaml", "llama3-24k-grid.yaml", {{"  time_step: 1 ms", "  time_step: 1e-14 s"}});
  const Ended grid = run({"check", "grid.yaml"}, dir);
  CHECK(grid.exited_with(65));
  CHECK(grid.err == "grid.yaml:39:14: electrical.time_step = 1e-14 s (must be in [0.1, 10] ms)\n");
}
