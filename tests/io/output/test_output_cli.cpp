// Outputs of `dctwin run`, `import`, `validate`, `calibrate` and `sweep` end to end: bad paths
// refused before any work, inputs never overwritten, links and devices, a full disk, signals,
// two processes on the same output.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../../support/run_program.hpp"
#include "../../support/temporaries.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/telemetry.hpp"

namespace fs = std::filesystem;
using test_support::finish;
using test_support::Outcome;
using test_support::run_dctwin;
using test_support::slurp;
using test_support::spawn;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "output" / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

const std::string single_node = DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml";
const std::string trace = DCTWIN_SOURCE_DIR "/data/telemetry/nvidia-smi.csv";

/// Names in `dir` other than the captured stdout.txt and stderr.txt.
std::set<std::string> outputs_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name != "stdout.txt" && name != "stderr.txt") names.insert(name);
  }
  return names;
}

/// Waits for `pid`; the exit code, or -signal when a signal killed it.
int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

/// Whether process `pid` runs dctwin: it has called exec (until then it is a copy of this test, with
/// the test framework's signal handlers, which must not receive our signals).
bool runs_dctwin(pid_t pid) {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", error);
  return !error && exe == fs::weakly_canonical(DCTWIN_EXE);
}

/// Whether process `pid` runs dctwin and catches both SIGINT and SIGTERM.
bool catches_stop_signals(pid_t pid) {
  if (!runs_dctwin(pid)) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("SigCgt:", 0) != 0) continue;
    const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
    const unsigned long long wanted = (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1));
    return (mask & wanted) == wanted;
  }
  return false;
}

/// An nvidia-smi CSV trace of `gpus` GPUs and `samples` rows each, one second apart.
void write_big_trace(const fs::path& path, int gpus, int samples) {
  std::ofstream out(path, std::ios::binary);
  out << "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz]\n";
  for (int s = 0; s < samples; ++s) {
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "2025/07/27 %02d:%02d:%02d.000", s / 3600 % 24, s / 60 % 60, s % 60);
    for (int g = 0; g < gpus; ++g)
      out << stamp << ", " << g << ", " << 300 + (s * 7 + g * 13) % 400 << ".25 W, " << 50 + (s + g) % 30 << ", 1980 MHz\n";
  }
}

}  // namespace

TEST_CASE("Bad output paths are refused before any work with exit 73 and the reason", "[output][cli]") {
  const auto dir = scratch("bad-paths");
  fs::create_directories(dir / "existing");
  const std::string sweep_file = dir.string() + "/s.yaml";
  write(sweep_file, "name: s\nbase: " + single_node +
                        "\ndesign: list\nset:\n  simulation.duration: 10 s\nparameters:\n  loop.pump.speed: [0.5]\n");
  write(dir / "plainfile", "x\n");
  struct Case {
    std::string path, reason;
  };
  const std::vector<Case> cases{
      {"", "the file name is empty"},
      {"existing", "it is a directory"},
      {"out.h5/", "the name ends in '/' (a file name is needed, not a directory)"},
      {"existing/", "the name ends in '/' (a file name is needed, not a directory)"},
      {"missing/out.h5", "directory 'missing' does not exist"},
      {"plainfile/out.h5", "Not a directory"},
  };
  struct Command {
    std::string name, kind;
    std::vector<std::string> args;
  };
  const std::vector<Command> commands{
      {"run", "report ", {"run", single_node, "--duration", "1000 d", "--output-interval", "1 h", "-o"}},
      {"import", "telemetry file ", {"import", trace, "-o"}},
      {"validate", "validation file ", {"validate", trace, "--scenario", single_node, "-o"}},
      {"calibrate", "", {"calibrate", trace, "--scenario", single_node, "-o"}},
  };
  int tried = 0;
  for (const auto& command : commands) {
    for (const auto& c : cases) {
      auto args = command.args;
      args.push_back(c.path);
      INFO(command.name << " -o '" << c.path << "'");
      const auto started = std::chrono::steady_clock::now();
      const Outcome o = run_dctwin(args, dir);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      CHECK(o.code == 73);
      CHECK(o.err == "dctwin " + command.name + ": cannot create " + command.kind + "'" + c.path + "': " + c.reason + "\n");
      CHECK(o.out.empty());
      CHECK(seconds < 120.0);  // the 1000 days of the server (about an hour) are not simulated first
      ++tried;
    }
  }
  // The check comes before the inputs are read: a missing scenario is not the first complaint.
  const Outcome early = run_dctwin({"run", "absent.yaml", "-o", "existing"}, dir);
  CHECK(early.code == 73);
  CHECK(early.err == "dctwin run: cannot create report 'existing': it is a directory\n");
  // A sweep's output is a directory: a regular file or an empty name is refused before any member.
  const Outcome sweep_file_output = run_dctwin({"sweep", sweep_file, "-o", "plainfile"}, dir);
  CHECK(sweep_file_output.code == 73);
  CHECK(sweep_file_output.err.rfind("dctwin sweep: cannot create sweep directory 'plainfile", 0) == 0);
  const Outcome sweep_empty = run_dctwin({"sweep", sweep_file, "-o", ""}, dir);
  CHECK(sweep_empty.code == 73);
  CHECK(sweep_empty.err == "dctwin sweep: cannot create sweep directory '': the name is empty\n");
  CHECK(outputs_in(dir) == std::set<std::string>{"existing", "plainfile", "s.yaml"});
  CHECK(tried == 24);
}

TEST_CASE("An output that is one of the command's inputs is refused and the input kept", "[output][cli]") {
  const auto dir = scratch("input");
  fs::copy_file(single_node, dir / "node.yaml");
  fs::copy_file(trace, dir / "trace.csv");
  fs::create_symlink("node.yaml", dir / "alias.yaml");
  const std::string scenario_text = slurp(dir / "node.yaml"), trace_text = slurp(dir / "trace.csv");
  const std::string scenario = "it is the scenario file this command reads (an output must not replace an input)";
  const std::string trace_input = "it is the trace file this command reads (an output must not replace an input)";
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases{
      {{"run", "node.yaml", "-o", "node.yaml"}, "dctwin run: cannot create report 'node.yaml': " + scenario},
      {{"run", "node.yaml", "-o", "alias.yaml"}, "dctwin run: cannot create report 'alias.yaml': " + scenario},
      {{"import", "trace.csv", "-o", "trace.csv"}, "dctwin import: cannot create telemetry file 'trace.csv': " + trace_input},
      {{"validate", "trace.csv", "--scenario", "node.yaml", "-o", "trace.csv"},
       "dctwin validate: cannot create validation file 'trace.csv': " + trace_input},
      {{"calibrate", "trace.csv", "--scenario", "node.yaml", "-o", "node.yaml"},
       "dctwin calibrate: cannot create 'node.yaml': " + scenario},
      {{"calibrate", "trace.csv", "--scenario", "alias.yaml", "-o", "./node.yaml"},
       "dctwin calibrate: cannot create './node.yaml': " + scenario},
  };
  for (const auto& c : cases) {
    INFO(c.err);
    const Outcome o = run_dctwin(c.args, dir);
    CHECK(o.code == 73);
    CHECK(o.err == c.err + "\n");
    CHECK(slurp(dir / "node.yaml") == scenario_text);
    CHECK(slurp(dir / "trace.csv") == trace_text);
  }
  // The weather file a facility scenario names is an input too.
  std::string text = slurp(DCTWIN_SOURCE_DIR "/scenarios/llama3-24k-air-diurnal.yaml");
  const auto begin = text.find("  weather:\n");
  REQUIRE(begin != std::string::npos);
  const auto end = text.find('\n', text.find("pressure: 83.328 kPa", begin));
  text.replace(begin, end + 1 - begin, "  weather:\n    source: file\n    file: weather.csv\n");
  write(dir / "site.yaml", text);
  const std::string weather = "time,dry_bulb [degC],wet_bulb [degC]\n0,25,18\n3600,26,18\n";
  write(dir / "weather.csv", weather);
  const Outcome o = run_dctwin({"run", "site.yaml", "-o", "weather.csv", "--duration", "60", "--quiet"}, dir);
  CHECK(o.code == 73);
  CHECK(o.err ==
        "dctwin run: cannot create report 'weather.csv': it is the weather file this command reads (an output must "
        "not replace an input)\n");
  CHECK(slurp(dir / "weather.csv") == weather);
  CHECK(test_support::temporaries_in(dir).empty());
}

TEST_CASE("A link planted at <out>.part does not make dctwin write through it", "[output][cli]") {
  const auto dir = scratch("planted-link");
  write(dir / "victim", "precious\n");
  fs::create_symlink(dir / "victim", dir / "r.h5.part");
  fs::create_symlink(dir / "victim", dir / "t.h5.part");
  const Outcome run = run_dctwin({"run", single_node, "-o", "r.h5", "--duration", "10 s", "-q"}, dir);
  CHECK(run.code == 0);
  const Outcome import = run_dctwin({"import", trace, "-o", "t.h5", "-q"}, dir);
  CHECK(import.code == 0);
  CHECK(slurp(dir / "victim") == "precious\n");
  CHECK(fs::is_symlink(dir / "r.h5.part"));
  CHECK(dctwin::io::ReportReader(dir / "r.h5").status() == "complete");
  CHECK(dctwin::io::read_telemetry_hdf5(dir / "t.h5").sample_count() == 80);
}

TEST_CASE("An output on a character device (-o /dev/null) is written through, never replaced", "[output][cli]") {
  const auto dir = scratch("device");
  // A null device of our own where we may make one (root); /dev/null itself otherwise.
  std::string device = (dir / "null").string();
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) device = "/dev/null";
  const std::vector<std::vector<std::string>> commands{
      {"run", single_node, "-o", device, "--duration", "10 s", "-q"},
      {"import", trace, "-o", device, "-q"},
      {"validate", trace, "--scenario", single_node, "-o", device, "-q"},
  };
  for (const auto& args : commands) {
    INFO(args[0]);
    const Outcome o = run_dctwin(args, dir);
    CHECK(o.code == 0);
    CHECK(o.err.empty());
    struct stat st {};
    REQUIRE(::stat(device.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == makedev(1, 3));
  }
  CHECK(test_support::temporaries_in(dir).empty());
  // A FIFO is neither replaced nor written.
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  const Outcome fifo = run_dctwin({"import", trace, "-o", "fifo"}, dir);
  CHECK(fifo.code == 73);
  CHECK(fifo.err ==
        "dctwin import: cannot create telemetry file 'fifo': it exists and is a FIFO (only a regular file is replaced)\n");
}

TEST_CASE("dctwin import and validate on a full disk exit 74, leave no file and do not crash", "[output][cli][disk]") {
  // A small tmpfs of each size from 4 KiB up, filled by the output (mounting needs root). A tmpfs
  // left mounted by an interrupted earlier run is detached first.
  ::umount2((fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "output" / "cli" / "full-disk" / "disk").c_str(), MNT_DETACH);
  const auto dir = scratch("full-disk");
  const fs::path disk = dir / "disk";
  fs::create_directories(disk);
  if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=4k") != 0) {
    WARN("no tmpfs can be mounted here (not root?): the full-disk case is not tried");
    return;
  }
  ::umount(disk.c_str());
  int failures = 0, successes = 0, tried = 0;
  for (int kib = 4; kib <= 68; kib += 4) {
    for (const std::string command : {"import", "validate"}) {
      INFO(command << " on a " << kib << " KiB disk");
      REQUIRE(::mount("tmpfs", disk.c_str(), "tmpfs", 0, ("size=" + std::to_string(kib) + "k").c_str()) == 0);
      const std::string out = (disk / "out.h5").string();
      const Outcome o = command == "import"
                            ? run_dctwin({"import", trace, "-o", out, "-q"}, dir)
                            : run_dctwin({"validate", trace, "--scenario", single_node, "-o", out, "-q"}, dir);
      std::set<std::string> left;
      for (const auto& entry : fs::directory_iterator(disk)) left.insert(entry.path().filename().string());
      bool readable = false;
      if (left.count("out.h5") != 0) {
        if (command == "import") {
          readable = dctwin::io::read_telemetry_hdf5(out).sample_count() == 80;
        } else {
          readable = slurp(out).rfind("\x89HDF\r\n\x1a\n", 0) == 0;  // the HDF5 signature
        }
      }
      ::umount(disk.c_str());
      ++tried;
      INFO(o.err);
      CHECK(o.code < 128);  // no crash, at exit or before
      if (o.code == 0) {
        ++successes;
        CHECK(left == std::set<std::string>{"out.h5"});
        CHECK(readable);
      } else {
        ++failures;
        CHECK(o.code == 74);
        CHECK(std::regex_search(o.err, std::regex("^dctwin " + command + ": cannot (write|flush) (telemetry|validation) file '" +
                                                  out + "'(: .*)?: No space left on device\n$")));
        CHECK(left.empty());
      }
    }
  }
  CHECK(failures >= 10);
  CHECK(successes >= 10);
  CHECK(tried == 34);
}

TEST_CASE("SIGINT and SIGTERM during import, validate and calibrate: exit 130/143, no temporary left",
          "[output][cli][signals]") {
  const auto dir = scratch("signals");
  // Big enough that writing the file takes a while: the signal can land while the temporary exists.
  write_big_trace(dir / "big.csv", 64, 3000);
  int interrupted_while_writing = 0;
  for (int attempt = 0; attempt < 20 && interrupted_while_writing < 2; ++attempt) {
    const int sig = attempt % 2 == 0 ? SIGINT : SIGTERM;
    fs::remove(dir / "out.h5");
    const pid_t pid = spawn({"import", "big.csv", "-o", "out.h5", "-q"}, dir);
    // Wait for the temporary to appear, then interrupt.
    bool seen = false;
    for (int i = 0; i < 200000 && !seen; ++i) {
      seen = runs_dctwin(pid) && !test_support::temporaries_in(dir).empty();
      siginfo_t info{};
      if (!seen && waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0)
        break;
      if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (seen) kill(pid, sig);
    const int code = wait_exit(pid);
    INFO("attempt " << attempt << ": exit " << code << ", " << slurp(dir / "stderr.txt"));
    CHECK(test_support::temporaries_in(dir).empty());
    for (const auto& entry : fs::directory_iterator(dir))  // (for the next attempt, if this one failed)
      if (entry.path().extension() == ".part") fs::remove(entry.path());
    if (code == 0) {
      CHECK(fs::exists(dir / "out.h5"));  // the signal came after the rename
      continue;
    }
    CHECK(code == (sig == SIGINT ? 130 : 143));
    CHECK(slurp(dir / "stderr.txt") == "dctwin import: interrupted; nothing written\n");
    CHECK_FALSE(fs::exists(dir / "out.h5"));
    if (seen) ++interrupted_while_writing;
  }
  CHECK(interrupted_while_writing >= 1);

  // Half an hour of the eight GPUs of the server: the replay runs long enough to be interrupted.
  write_big_trace(dir / "server.csv", 8, 1800);
  for (const std::string command : {"validate", "calibrate"}) {
    for (const int sig : {SIGINT, SIGTERM}) {
      INFO(command << ", signal " << sig);
      const pid_t pid = spawn({command, "server.csv", "--scenario", single_node, "-o", "out.file", "-q"}, dir);
      bool ready = false;
      for (int i = 0; i < 50000 && !ready; ++i) {
        ready = catches_stop_signals(pid);
        if (!ready) std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      CHECK(ready);
      if (ready) kill(pid, sig);
      const int code = wait_exit(pid);
      if (code == 0) continue;  // finished before the signal: nothing to check
      CHECK(code == (sig == SIGINT ? 130 : 143));
      CHECK(slurp(dir / "stderr.txt") == "dctwin " + command + ": interrupted; nothing written\n");
      CHECK_FALSE(fs::exists(dir / "out.file"));
      CHECK(test_support::temporaries_in(dir).empty());
    }
  }
}

TEST_CASE("Two imports to one output at once: both succeed, the file is whole, no temporary is left",
          "[output][cli][concurrent]") {
  const auto dir = scratch("two-imports");
  fs::create_directories(dir / "a");
  fs::create_directories(dir / "b");
  for (int round = 0; round < 10; ++round) {
    const pid_t a = test_support::spawn_program(DCTWIN_EXE, {"import", trace, "-o", (dir / "t.h5").string(), "-q"}, dir / "a");
    const pid_t b = test_support::spawn_program(DCTWIN_EXE, {"import", trace, "-o", (dir / "t.h5").string(), "-q"}, dir / "b");
    const int code_a = wait_exit(a), code_b = wait_exit(b);
    INFO("round " << round << ": " << slurp(dir / "a" / "stderr.txt") << slurp(dir / "b" / "stderr.txt"));
    CHECK(code_a == 0);
    CHECK(code_b == 0);
    CHECK(dctwin::io::read_telemetry_hdf5(dir / "t.h5").sample_count() == 80);
    CHECK(test_support::temporaries_in(dir).empty());
  }
}

TEST_CASE("A sweep member locked by another process is neither run nor removed", "[output][cli][sweep]") {
  const auto dir = scratch("sweep-lock");
  write(dir / "s.yaml", "name: s\nbase: " + single_node +
                            "\ndesign: list\nset:\n  simulation.duration: 10 s\n  simulation.output_interval: 2 s\n"
                            "parameters:\n  loop.pump.speed: [0.5, 0.8]\n");
  // Another sweep on the same directory is running member 0000: it holds the member's lock.
  fs::create_directories(dir / "out" / "locks");
  const int fd = ::open((dir / "out" / "locks" / "0000.lock").c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const Outcome locked = run_dctwin({"sweep", "s.yaml", "-o", "out", "-j", "1"}, dir);
  INFO(locked.out << locked.err);
  CHECK(locked.code == 3);
  CHECK(locked.out.find("member 0000 missing after ") != std::string::npos);
  CHECK(locked.out.find(": another process is running this member\n") != std::string::npos);
  CHECK(locked.out.find("member 0001 complete after ") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out" / "members" / "0000.h5"));
  CHECK(fs::exists(dir / "out" / "members" / "0001.h5"));
  ::close(fd);
  // Released: the next run runs it, and only it.
  const Outcome resumed = run_dctwin({"sweep", "s.yaml", "-o", "out", "-j", "1"}, dir);
  INFO(resumed.out << resumed.err);
  CHECK(resumed.code == 0);
  CHECK(resumed.out.find("member 0000 complete after ") != std::string::npos);
  CHECK(resumed.out.find("member 0001") == std::string::npos);

  // Two sweeps started at once on one directory: every member runs once, all complete.
  write(dir / "t.yaml", "name: t\nbase: " + single_node +
                            "\ndesign: list\nset:\n  simulation.duration: 10 s\n  simulation.output_interval: 2 s\n"
                            "parameters:\n  loop.pump.speed: [0.5, 0.6, 0.7, 0.8]\n");
  fs::create_directories(dir / "p");
  fs::create_directories(dir / "q");
  const std::string sweep = (dir / "t.yaml").string(), out = (dir / "both").string();
  const pid_t p = test_support::spawn_program(DCTWIN_EXE, {"sweep", sweep, "-o", out, "-j", "1"}, dir / "p");
  const pid_t q = test_support::spawn_program(DCTWIN_EXE, {"sweep", sweep, "-o", out, "-j", "1"}, dir / "q");
  wait_exit(p);
  wait_exit(q);
  const std::string both = slurp(dir / "p" / "stdout.txt") + slurp(dir / "q" / "stdout.txt");
  INFO(both << slurp(dir / "p" / "stderr.txt") << slurp(dir / "q" / "stderr.txt"));
  const std::regex ran(R"(\] member (\d+) (complete|incomplete|failed) after )");
  std::multiset<std::string> runs;
  for (auto it = std::sregex_iterator(both.begin(), both.end(), ran); it != std::sregex_iterator(); ++it)
    runs.insert((*it)[1].str());
  // A member either ran in one of them, or was found complete once locked (reported complete too).
  for (const std::string id : {"0000", "0001", "0002", "0003"}) {
    CHECK(runs.count(id) >= 1);
    CHECK(dctwin::io::ReportReader(dir / "both" / "members" / (id + ".h5")).status() == "complete");
  }
  CHECK(both.find(" failed after ") == std::string::npos);
  CHECK(test_support::temporaries_in(dir / "both" / "members").empty());
  const Outcome collected = run_dctwin({"sweep", "--collect", "both", "-q"}, dir);
  CHECK(collected.code == 0);
}
