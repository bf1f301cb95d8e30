// `dctwin sweep` end to end: threads (and MPI ranks) give identical results, an interrupted sweep
// resumes with only the missing members, failed members are recorded, the index, exit codes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../../support/run_program.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/sweep_run.hpp"

namespace fs = std::filesystem;
namespace io = dctwin::io;
using test_support::finish;
using test_support::Outcome;
using test_support::run_dctwin;
using test_support::slurp;
using test_support::spawn;
using test_support::spawn_program;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "sweep" / "scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const std::string single_node = DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml";

/// A sweep on the shipped single-node scenario, one minute per member.
std::string sweep_text(const std::string& design, const std::string& parameters, const std::string& duration = "60 s") {
  return "name: test\n"
         "base: " + single_node + "\n"
         "design: " + design + "\n"
         "set:\n"
         "  simulation.duration: " + duration + "\n"
         "  simulation.output_interval: 2 s\n"
         "parameters:\n" + parameters;
}

/// Member ids named by progress lines with `word` ("complete", "failed", ...).
std::set<std::string> members_in(const std::string& out, const std::string& word) {
  std::set<std::string> ids;
  const std::regex line(R"(\] member (\d+) )" + word + " after ");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
    ids.insert((*it)[1].str());
  return ids;
}

std::set<std::string> report_ids(const fs::path& dir) {
  std::set<std::string> ids;
  if (!fs::exists(dir / "members")) return ids;
  for (const auto& entry : fs::directory_iterator(dir / "members"))
    if (entry.path().extension() == ".h5") ids.insert(entry.path().stem().string());
  return ids;
}

/// Every summary figure of every member report, by member id, as raw bits.
std::map<std::string, std::vector<std::pair<std::string, std::uint64_t>>> summaries(const fs::path& dir) {
  std::map<std::string, std::vector<std::pair<std::string, std::uint64_t>>> all;
  for (const auto& id : report_ids(dir)) {
    const io::ReportReader report(dir / "members" / (id + ".h5"));
    for (const auto& figure : report.summary()) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &figure.value, sizeof bits);
      all[id].emplace_back(figure.name, bits);
    }
  }
  return all;
}

}  // namespace

TEST_CASE("One thread, two threads (and MPI ranks) give bit-identical member summaries", "[sweep][cli]") {
  const auto dir = scratch("identical");
  std::ofstream(dir / "small.yaml") << sweep_text("grid",
                                                  "  loop.supply_temperature: [28 degC, 36 degC]\n"
                                                  "  loop.pump.speed: [0.5, 0.8, 1.1]\n");
  const Outcome serial = run_dctwin({"sweep", "small.yaml", "-o", "serial", "-j", "1"}, dir);
  INFO(serial.out << serial.err);
  REQUIRE(serial.code == 0);
  CHECK(serial.out.find("sweep test: running 6 on 1 thread\n") != std::string::npos);
  CHECK(members_in(serial.out, "complete").size() == 6);
  CHECK(serial.out.find("sweep test: 6 members: 6 complete, 0 incomplete, 0 failed, 0 missing; index serial/index.h5\n") !=
        std::string::npos);
  const Outcome threads = run_dctwin({"sweep", "small.yaml", "-o", "threads", "-j", "2", "--quiet"}, dir);
  REQUIRE(threads.code == 0);
  CHECK(threads.out.empty());

  const auto reference = summaries(dir / "serial");
  REQUIRE(reference.size() == 6);
  REQUIRE(reference.at("0000").size() > 5);
  CHECK(summaries(dir / "threads") == reference);

  // The index holds the same figures, one column each, with units.
  const auto a = io::read_sweep_index(dir / "serial" / "index.h5");
  const auto b = io::read_sweep_index(dir / "threads" / "index.h5");
  REQUIRE(a.member == std::vector<std::string>{"0000", "0001", "0002", "0003", "0004", "0005"});
  CHECK(a.status == std::vector<std::string>(6, "complete"));
  REQUIRE(a.summary.size() == b.summary.size());
  for (std::size_t c = 0; c < a.summary.size(); ++c) {
    CHECK(a.summary[c].name == b.summary[c].name);
    CHECK(std::memcmp(a.summary[c].values.data(), b.summary[c].values.data(), 6 * sizeof(double)) == 0);
  }
  REQUIRE(a.parameters.size() == 2);
  CHECK(a.parameters[0].name == "loop.supply_temperature");
  CHECK(a.parameters[0].units == "K");
  CHECK(a.parameters[0].values[5] == Approx(309.15));
  CHECK(a.parameters[1].name == "loop.pump.speed");
  CHECK(a.parameters[1].values == std::vector<double>{0.5, 0.8, 1.1, 0.5, 0.8, 1.1});

}

#ifdef DCTWIN_MPIEXEC
// Registered only in builds with DCTWIN_WITH_MPI.
TEST_CASE("Under mpirun -np 3, rank 0 hands out members and the summaries are bit-identical to one thread", "[sweep][cli][mpi]") {
  const auto dir = scratch("mpi");
  std::ofstream(dir / "small.yaml") << sweep_text("grid",
                                                  "  loop.supply_temperature: [28 degC, 36 degC]\n"
                                                  "  loop.pump.speed: [0.5, 0.8, 1.1]\n");
  REQUIRE(run_dctwin({"sweep", "small.yaml", "-o", "serial", "-j", "1", "-q"}, dir).code == 0);
  const Outcome mpi = finish(spawn_program(DCTWIN_MPIEXEC, {"--allow-run-as-root", "--oversubscribe", "-np", "3", DCTWIN_EXE,
                                                            "sweep", "small.yaml", "-o", "mpi"},
                                           dir),
                             dir);
  INFO(mpi.out << mpi.err);
  CHECK(mpi.code == 0);
  CHECK(mpi.out.find("sweep test: running 6 on 2 MPI worker ranks\n") != std::string::npos);
  CHECK(members_in(mpi.out, "complete").size() == 6);
  const auto reference = summaries(dir / "serial");
  REQUIRE(reference.size() == 6);
  CHECK(summaries(dir / "mpi") == reference);
  const auto index = io::read_sweep_index(dir / "mpi" / "index.h5");
  CHECK(index.status == std::vector<std::string>(6, "complete"));

  // A failing member under MPI: recorded like everywhere else, exit 3 from mpirun.
  std::ofstream(dir / "bad.yaml") << sweep_text("list", "  loop.pump.speed: [0.6, 2, 1]\n");
  const Outcome bad = finish(spawn_program(DCTWIN_MPIEXEC, {"--allow-run-as-root", "--oversubscribe", "-np", "3", DCTWIN_EXE,
                                                            "sweep", "bad.yaml", "-o", "bad"},
                                           dir),
                             dir);
  CHECK(bad.code == 3);
  CHECK(io::read_sweep_index(dir / "bad" / "index.h5").status == std::vector<std::string>{"complete", "failed", "complete"});
}
#endif

TEST_CASE("A sweep killed mid-way resumes with only the missing members", "[sweep][cli][resume]") {
  const auto dir = scratch("resume");
  std::ofstream(dir / "resume.yaml") << sweep_text("list",
                                                   "  loop.supply_temperature: [26 degC, 27 degC, 28 degC, 29 degC, 30 degC, 31 degC,"
                                                   " 32 degC, 33 degC, 34 degC, 35 degC, 36 degC, 37 degC]\n",
                                                   "10 min");
  const pid_t pid = spawn({"sweep", "resume.yaml", "-o", "out", "-j", "1"}, dir);
  // Let two members finish, then stop the sweep as a batch system would.
  for (int i = 0; i < 3000 && members_in(slurp(dir / "stdout.txt"), "complete").size() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGTERM);
  const Outcome first = finish(pid, dir);
  INFO(first.out << first.err);
  CHECK(first.code == 143);
  CHECK(first.err.find("interrupted; the members that did not finish will run when the sweep is started again") !=
        std::string::npos);
  const auto done = report_ids(dir / "out");
  CHECK(done.size() >= 2);
  REQUIRE(done.size() < 12);
  for (const auto& entry : fs::directory_iterator(dir / "out" / "members"))
    CHECK(entry.path().extension() == ".h5");  // no .part file left behind
  // Every report left is complete (the interrupted member's report is removed).
  std::map<std::string, std::pair<ino_t, long>> before;
  for (const auto& id : done) {
    CHECK(io::ReportReader(dir / "out" / "members" / (id + ".h5")).status() == "complete");
    struct stat st {};
    REQUIRE(stat((dir / "out" / "members" / (id + ".h5")).c_str(), &st) == 0);
    before[id] = {st.st_ino, static_cast<long>(st.st_mtim.tv_nsec + st.st_mtim.tv_sec * 1000000000L)};
  }
  // The index written on the way out shows the members not run yet as missing.
  const auto interrupted_index = io::read_sweep_index(dir / "out" / "index.h5");
  std::size_t missing = 0;
  for (const auto& s : interrupted_index.status) missing += s == "missing" ? 1 : 0;
  CHECK(missing == 12 - done.size());

  const Outcome second = run_dctwin({"sweep", "resume.yaml", "-o", "out", "-j", "2"}, dir);
  INFO(second.out << second.err);
  CHECK(second.code == 0);
  const auto ran = members_in(second.out, "complete");
  std::set<std::string> expected;
  for (int i = 0; i < 12; ++i) {
    const std::string id = (i < 10 ? "000" : "00") + std::to_string(i);
    if (done.count(id) == 0) expected.insert(id);
  }
  CHECK(ran == expected);
  CHECK(second.out.find("sweep test: " + std::to_string(done.size()) + " member" + (done.size() == 1 ? "" : "s") +
                        " already done, running " + std::to_string(expected.size()) + " on 2 threads\n") !=
        std::string::npos);
  for (const auto& [id, stamp] : before) {  // the finished reports were not touched
    struct stat st {};
    REQUIRE(stat((dir / "out" / "members" / (id + ".h5")).c_str(), &st) == 0);
    CHECK(st.st_ino == stamp.first);
    CHECK(static_cast<long>(st.st_mtim.tv_nsec + st.st_mtim.tv_sec * 1000000000L) == stamp.second);
  }
  const auto index = io::read_sweep_index(dir / "out" / "index.h5");
  CHECK(index.status == std::vector<std::string>(12, "complete"));
  CHECK(index.integer_attributes.at("complete") == 12);

  // A third run has nothing to do.
  const Outcome third = run_dctwin({"sweep", "resume.yaml", "-o", "out"}, dir);
  CHECK(third.code == 0);
  CHECK(third.out.find("sweep test: 12 members already done, nothing to run\n") != std::string::npos);
  CHECK(members_in(third.out, "complete").empty());
}

TEST_CASE("A member with an invalid value fails with the scenario error, the others complete", "[sweep][cli][errors]") {
  const auto dir = scratch("invalid");
  std::ofstream(dir / "bad.yaml") << sweep_text("list", "  loop.pump.speed: [0.6, 2, 1]\n");
  const std::string reason = "bad.yaml:8:26: member 0001: loop.pump.speed = 2 (must be in (0, 1.2])";
  const Outcome o = run_dctwin({"sweep", "bad.yaml", "-j", "2"}, dir);
  INFO(o.out << o.err);
  CHECK(o.code == 3);
  CHECK(members_in(o.out, "complete") == std::set<std::string>{"0000", "0002"});
  CHECK(o.out.find("member 0001 failed after ") != std::string::npos);
  CHECK(o.out.find("(loop.pump.speed = 2): " + reason + "\n") != std::string::npos);
  CHECK(o.out.find("sweep test: 3 members: 2 complete, 0 incomplete, 1 failed, 0 missing; index bad/index.h5\n") !=
        std::string::npos);
  const auto index = io::read_sweep_index(dir / "bad" / "index.h5");
  CHECK(index.status == std::vector<std::string>{"complete", "failed", "complete"});
  CHECK(index.reason == std::vector<std::string>{"", reason, ""});
  CHECK(std::isnan(index.end_time[1]));  // it never ran
  CHECK(index.end_time[0] == 60.0);
  // The failed member has no summary figures; the others have them.
  for (const auto& column : index.summary) {
    CHECK(std::isnan(column.values[1]));
    CHECK_FALSE(std::isnan(column.values[0]));
  }
  // The failure is final: a rerun skips it (and still exits 3), --rerun-failed runs it again.
  const Outcome again = run_dctwin({"sweep", "bad.yaml"}, dir);
  CHECK(again.code == 3);
  CHECK(again.out.find("sweep test: 3 members already done, nothing to run\n") != std::string::npos);
  const Outcome rerun = run_dctwin({"sweep", "bad.yaml", "--rerun-failed"}, dir);
  CHECK(rerun.code == 3);
  CHECK(members_in(rerun.out, "failed") == std::set<std::string>{"0001"});
  CHECK(members_in(rerun.out, "complete").empty());
}

TEST_CASE("A member that trips ends early and is recorded as incomplete with the reason", "[sweep][cli]") {
  const auto dir = scratch("trip");
  std::ofstream(dir / "hot.yaml") << sweep_text("list",
                                                "  loop.supply_temperature: [32 degC, 60 degC]\n"
                                                "  server.gpu.leakage_power_at_reference: [50 W, 400 W]\n",
                                                "10 min");
  const Outcome o = run_dctwin({"sweep", "hot.yaml", "-o", "hot"}, dir);
  INFO(o.out << o.err);
  CHECK(o.code == 3);
  const auto index = io::read_sweep_index(dir / "hot" / "index.h5");
  CHECK(index.status == std::vector<std::string>{"complete", "incomplete"});
  CHECK(index.reason[1].find("reached the shutdown temperature 92.00 degC") != std::string::npos);
  CHECK(index.end_time[0] == 600.0);
  CHECK(index.end_time[1] < 600.0);
}

TEST_CASE("Member ranges (--member-range) run a slice (Slurm arrays), --collect rebuilds the index from the reports", "[sweep][cli]") {
  const auto dir = scratch("range");
  std::ofstream(dir / "range.yaml") << sweep_text("grid", "  loop.pump.speed: {min: 0.4, max: 1, count: 5}\n");
  const Outcome first = run_dctwin({"sweep", "range.yaml", "-o", "out", "--member-range", "0:2"}, dir);
  INFO(first.out << first.err);
  CHECK(first.code == 0);
  CHECK(first.out.find("sweep test: 5 members (grid 5), base " + single_node + ", output out; members 0 to 1\n") !=
        std::string::npos);
  CHECK(members_in(first.out, "complete") == std::set<std::string>{"0000", "0001"});
  CHECK(io::read_sweep_index(dir / "out" / "index.h5").status ==
        std::vector<std::string>{"complete", "complete", "missing", "missing", "missing"});
  const Outcome second = run_dctwin({"sweep", "range.yaml", "-o", "out", "--member-range", "3"}, dir);
  CHECK(members_in(second.out, "complete") == std::set<std::string>{"0003"});
  const Outcome third = run_dctwin({"sweep", "range.yaml", "-o", "out", "--member-range", "2:"}, dir);
  CHECK(members_in(third.out, "complete") == std::set<std::string>{"0002", "0004"});
  const Outcome beyond = run_dctwin({"sweep", "range.yaml", "-o", "out", "--member-range", "8:12"}, dir);
  CHECK(beyond.code == 0);
  CHECK(beyond.out.find("member range 5:5 is empty") != std::string::npos);

  fs::remove(dir / "out" / "index.h5");
  const Outcome collect = run_dctwin({"sweep", "--collect", "out"}, dir);
  INFO(collect.out << collect.err);
  CHECK(collect.code == 0);
  CHECK(collect.out == "sweep test: 5 members: 5 complete, 0 incomplete, 0 failed, 0 missing; index out/index.h5\n");
  const auto index = io::read_sweep_index(dir / "out" / "index.h5");
  CHECK(index.status == std::vector<std::string>(5, "complete"));
  CHECK(index.string_attributes.at("design_description") == "grid 5");
  CHECK(index.report[4] == "members/0004.h5");
  REQUIRE(index.parameters.size() == 1);
  CHECK(index.parameters[0].values.front() == 0.4);
  CHECK(index.parameters[0].values.back() == 1.0);

  // A report removed by hand is missing again, and collect says so.
  fs::remove(dir / "out" / "members" / "0002.h5");
  const Outcome partial = run_dctwin({"sweep", "--collect", "out", "-q"}, dir);
  CHECK(partial.code == 3);
  CHECK(io::read_sweep_index(dir / "out" / "index.h5").status[2] == "missing");
  CHECK(run_dctwin({"sweep", "--collect", "nowhere"}, dir).code == 66);
}

TEST_CASE("A changed sweep reruns exactly the members whose scenario changed", "[sweep][cli][resume]") {
  const auto dir = scratch("changed");
  std::ofstream(dir / "s.yaml") << sweep_text("list", "  loop.pump.speed: [0.5, 0.7, 0.9]\n");
  REQUIRE(run_dctwin({"sweep", "s.yaml", "-o", "out"}, dir).code == 0);
  std::ofstream(dir / "s.yaml") << sweep_text("list", "  loop.pump.speed: [0.5, 0.75, 0.9]\n");
  const Outcome o = run_dctwin({"sweep", "s.yaml", "-o", "out"}, dir);
  CHECK(o.code == 0);
  CHECK(members_in(o.out, "complete") == std::set<std::string>{"0001"});
}

TEST_CASE("Sweep command errors: exit codes and messages", "[sweep][cli][errors]") {
  const auto dir = scratch("errors");
  std::ofstream(dir / "typo.yaml") << sweep_text("grid", "  loop.pump.sped: [1]\n");
  const Outcome typo = run_dctwin({"sweep", "typo.yaml"}, dir);
  CHECK(typo.code == 65);
  CHECK(typo.err == "typo.yaml:8:3: parameters.loop.pump.sped: unknown scenario key (did you mean 'speed'?)\n");
  CHECK_FALSE(fs::exists(dir / "typo"));

  const Outcome absent = run_dctwin({"sweep", "absent.yaml"}, dir);
  CHECK(absent.code == 66);
  CHECK(absent.err == "dctwin sweep: absent.yaml: cannot open sweep file (No such file or directory)\n");

  std::ofstream(dir / "nobase.yaml") << "name: x\nbase: nope.yaml\ndesign: grid\nparameters:\n  loop.pump.speed: [1]\n";
  const Outcome nobase = run_dctwin({"sweep", "nobase.yaml"}, dir);
  CHECK(nobase.code == 66);
  CHECK(nobase.err == "dctwin sweep: nobase.yaml:2:7: base = nope.yaml (cannot open scenario file nope.yaml: No such file or directory)\n");

  std::ofstream(dir / "ok.yaml") << sweep_text("grid", "  loop.pump.speed: [1]\n");
  CHECK(run_dctwin({"sweep"}, dir).code == 64);
  CHECK(run_dctwin({"sweep", "ok.yaml", "-j", "-1"}, dir).code == 64);
  const Outcome range = run_dctwin({"sweep", "ok.yaml", "--member-range", "a:b"}, dir);
  CHECK(range.code == 64);
  CHECK(range.err == "dctwin sweep: --member-range a:b: must be A:B, A:, :B or A (0-based member numbers, B excluded)\n");
  CHECK(run_dctwin({"sweep", "ok.yaml", "--member-range", "3:1"}, dir).code == 64);
  CHECK(run_dctwin({"sweep", "ok.yaml", "--collect", "x"}, dir).code == 64);
  const Outcome uncreatable = run_dctwin({"sweep", "ok.yaml", "-o", "/proc/no-such-dir/out"}, dir);
  CHECK(uncreatable.code == 73);
  CHECK(uncreatable.err.rfind("dctwin sweep: cannot create sweep directory '/proc/no-such-dir/out'", 0) == 0);
  const Outcome help = run_dctwin({"sweep", "--help"}, dir);
  CHECK(help.code == 0);
  CHECK(help.out.find("--member-range") != std::string::npos);
}

TEST_CASE("A dry run (--dry-run) checks every member and lists it, the shipped sweeps check", "[sweep][cli]") {
  const auto dir = scratch("dry");
  std::ofstream(dir / "d.yaml") << sweep_text("grid", "  loop.pump.speed: [0.5, 2]\n");
  const Outcome o = run_dctwin({"sweep", "d.yaml", "--dry-run"}, dir);
  CHECK(o.code == 65);
  CHECK(o.out == "sweep test: 2 members (grid 2), base " + single_node +
                     "\n"
                     "member 0000: loop.pump.speed = 0.5: ok\n"
                     "member 0001: loop.pump.speed = 2: d.yaml:8:26: member 0001: loop.pump.speed = 2 (must be in (0, 1.2])\n");
  CHECK_FALSE(fs::exists(dir / "d"));
  for (const auto& entry : fs::directory_iterator(fs::path(DCTWIN_SOURCE_DIR) / "scenarios" / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    const Outcome shipped = run_dctwin({"sweep", entry.path().string(), "--dry-run", "-q"}, dir);
    CHECK(shipped.code == 0);
    CHECK(shipped.err.empty());
  }
}

TEST_CASE("The index reads with h5py: 1-D columns with units, string columns, the member scale", "[sweep][cli][index]") {
  if (!fs::exists("/usr/bin/python3")) return;
  const auto dir = scratch("h5py");
  std::ofstream(dir / "s.yaml") << sweep_text("list", "  loop.pump.speed: [0.5, 2]\n  loop.coolant.specific_heat: [3.9 kJ/(kg K), 3900]\n");
  REQUIRE(run_dctwin({"sweep", "s.yaml", "-q"}, dir).code == 3);
  const Outcome o = finish(spawn_program("/usr/bin/python3", {DCTWIN_SOURCE_DIR "/tests/io/sweep/check_index.py", "s/index.h5"}, dir), dir);
  INFO(o.out << o.err);
  CHECK(o.code == 0);
  CHECK(o.out == "check_index: OK, 2 members, 2 parameters\n");
}

TEST_CASE("A sweep over seeds: the index holds them exactly, names with escapes are printed as escapes", "[sweep][cli][seed]") {
  const auto dir = scratch("seeds");
  std::ofstream(dir / "s.yaml") << "name: \"seeds\\e[2J\"\n"
                                   "base: " + single_node + "\n"
                                   "design: list\n"
                                   "set:\n"
                                   "  simulation.duration: 2 s\n"
                                   "  simulation.output_interval: 1 s\n"
                                   "parameters:\n"
                                   "  simulation.seed: [9007199254740993, 18446744073709551615]\n";
  const Outcome o = run_dctwin({"sweep", "s.yaml"}, dir);
  INFO(o.out << o.err);
  CHECK(o.code == 0);
  CHECK(o.out.find("sweep seeds\\x1b[2J: 2 members: 2 complete") != std::string::npos);
  for (const char c : o.out + o.err) CHECK(c != '\x1b');
  const auto index = io::read_sweep_index(dir / "s" / "index.h5");
  REQUIRE(index.parameters.size() == 1);
  CHECK(index.parameters[0].unsigned_values == std::vector<std::uint64_t>{9007199254740993ULL, 18446744073709551615ULL});
  for (const auto& [id, seed] : {std::pair{"0000", std::string("9007199254740993")},
                                 std::pair{"0001", std::string("18446744073709551615")}}) {
    const io::ReportReader report(dir / "s" / "members" / (std::string(id) + ".h5"));
    CHECK(std::to_string(report.unsigned_attributes().at("seed")) == seed);
  }
  const Outcome dry = run_dctwin({"sweep", "s.yaml", "--dry-run"}, dir);
  CHECK(dry.out.rfind("sweep seeds\\x1b[2J: 2 members (list of 2), base ", 0) == 0);
}
