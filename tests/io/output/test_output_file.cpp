// OutputFile (io/output_file.hpp) and the writers built on it: unique temporaries, links planted
// at the old temporary name, character devices, outputs that are inputs, what is removed.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/telemetry.hpp"

namespace fs = std::filesystem;
using dctwin::io::check_output_path;
using dctwin::io::InputFile;
using dctwin::io::OutputFile;
using dctwin::io::ReportError;
using dctwin::io::ReportLayout;
using dctwin::io::ReportReader;
using dctwin::io::ReportWriter;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "output" / "unit" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// Names in `dir`, sorted.
std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ReportError& e) {
    return e.what();
  }
  return "";
}

ReportLayout small_layout() {
  ReportLayout layout;
  layout.outputs.push_back({dctwin::core::OutputSpec{"facility", "it_power", "W", "IT power", "", 1}, 0});
  layout.scenario_name = "output test";
  return layout;
}

void write_small_report(const fs::path& path) {
  ReportWriter writer(path, small_layout());
  const std::vector<double> sample{1.0};
  writer.append_sample(0.0, sample);
  writer.finish({{dctwin::solver::StopReason::finished, 0.0, "", ""}, {}, 0.0}, {});
}

dctwin::io::TelemetryTrace small_trace() {
  dctwin::io::TelemetryTrace trace;
  trace.provenance.source = "test";
  trace.provenance.format = "csv";
  trace.quantities = {"power"};
  dctwin::io::GpuSeries gpu;
  gpu.index = 0;
  gpu.time = {0.0, 1.0};
  gpu.values = {{100.0, 200.0}};
  trace.gpus.push_back(gpu);
  return trace;
}

}  // namespace

TEST_CASE("Two writers of one output each have a temporary of their own, neither removes the other's",
          "[output]") {
  const auto dir = scratch("two-writers");
  const fs::path target = dir / "t.h5";
  {
    OutputFile a(target, "report");
    OutputFile b(target, "report");
    CHECK(a.temporary() != b.temporary());
    for (const auto* f : {&a, &b}) {
      const std::string name = f->temporary().filename().string();
      CHECK(f->temporary().parent_path() == dir);
      CHECK(name.rfind(".t.h5.", 0) == 0);
      CHECK(name.size() == std::string(".t.h5.XXXXXX.part").size());
      CHECK(name.substr(name.size() - 5) == ".part");
    }
    a.write("first");
    b.write("second");
    b.discard();
    CHECK(fs::exists(a.temporary()));
    a.commit();
  }
  CHECK(read_file(target) == "first");
  CHECK(names_in(dir) == std::set<std::string>{"t.h5"});
}

TEST_CASE("Two reports written to one name at once both complete, no temporary is left", "[output]") {
  const auto dir = scratch("two-reports");
  const fs::path report = dir / "run.h5";
  {
    ReportWriter first(report, small_layout());
    ReportWriter second(report, small_layout());
    const std::vector<double> sample{1.0};
    first.append_sample(0.0, sample);
    second.append_sample(0.0, sample);
    first.finish({{dctwin::solver::StopReason::finished, 0.0, "", ""}, {}, 0.0}, {});
    CHECK(ReportReader(report).status() == "complete");
    second.finish({{dctwin::solver::StopReason::finished, 0.0, "", ""}, {}, 0.0}, {});
  }
  CHECK(ReportReader(report).status() == "complete");
  CHECK(names_in(dir) == std::set<std::string>{"run.h5"});
}

TEST_CASE("A file at the old temporary name <out>.part is neither written nor removed", "[output]") {
  const auto dir = scratch("foreign-part");
  write_file(dir / "run.h5.part", "another process's report\n");
  write_small_report(dir / "run.h5");
  CHECK(ReportReader(dir / "run.h5").status() == "complete");
  CHECK(read_file(dir / "run.h5.part") == "another process's report\n");

  write_file(dir / "t.h5.part", "another import\n");
  dctwin::io::write_telemetry_hdf5(small_trace(), dir / "t.h5");
  CHECK(read_file(dir / "t.h5.part") == "another import\n");
  CHECK(dctwin::io::read_telemetry_hdf5(dir / "t.h5").sample_count() == 2);
}

TEST_CASE("A link planted at <out>.part or at the output is never written through", "[output]") {
  const auto dir = scratch("links");
  write_file(dir / "victim", "precious\n");
  fs::create_symlink(dir / "victim", dir / "run.h5.part");
  fs::create_symlink(dir / "victim", dir / "t.h5.part");
  write_small_report(dir / "run.h5");
  dctwin::io::write_telemetry_hdf5(small_trace(), dir / "t.h5");
  CHECK(read_file(dir / "victim") == "precious\n");
  CHECK(fs::is_symlink(dir / "run.h5.part"));  // not ours to remove
  CHECK(ReportReader(dir / "run.h5").status() == "complete");

  // A link at the output itself is replaced by the new file; its target is left alone.
  fs::create_symlink(dir / "victim", dir / "linked.h5");
  write_small_report(dir / "linked.h5");
  CHECK_FALSE(fs::is_symlink(dir / "linked.h5"));
  CHECK(ReportReader(dir / "linked.h5").status() == "complete");
  CHECK(read_file(dir / "victim") == "precious\n");
}

TEST_CASE("A character device receives a copy of the output and is never replaced", "[output]") {
  const auto dir = scratch("device");
  // A null device of our own (root can make one); elsewhere /dev/null itself.
  fs::path device = dir / "null";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) device = "/dev/null";
  write_small_report(device);
  dctwin::io::write_telemetry_hdf5(small_trace(), device);
  struct stat st {};
  REQUIRE(::stat(device.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(major(st.st_rdev) == 1);
  CHECK(minor(st.st_rdev) == 3);
  // The temporaries went to the temporary directory and are gone.
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path()))
    CHECK(entry.path().filename().string().rfind("." + device.filename().string() + ".", 0) != 0);
  if (device != "/dev/null") CHECK(names_in(dir) == std::set<std::string>{"null"});
}

TEST_CASE("check_output_path refuses bad output paths with the reason", "[output]") {
  const auto dir = scratch("check");
  fs::create_directories(dir / "sub");
  write_file(dir / "file", "x");
  write_file(dir / "scenario.yaml", "name: x\n");
  fs::create_symlink(dir / "scenario.yaml", dir / "link.yaml");
  fs::create_hard_link(dir / "scenario.yaml", dir / "hard.yaml");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
  const std::vector<InputFile> inputs{{dir / "scenario.yaml", "scenario"}, {"", "column map"}};
  const auto refused = [&](const fs::path& target) {
    return error_of([&] { check_output_path(target, "report", inputs); });
  };
  const std::string d = dir.string();
  CHECK(refused("") == "cannot create report '': the file name is empty");
  CHECK(refused(d + "/out.h5/") ==
        "cannot create report '" + d + "/out.h5/': the name ends in '/' (a file name is needed, not a directory)");
  CHECK(refused(dir / "sub") == "cannot create report '" + d + "/sub': it is a directory");
  CHECK(refused(dir / "sub" / "..") == "cannot create report '" + d + "/sub/..': it is a directory");
  CHECK(refused(dir / "missing" / "r.h5") ==
        "cannot create report '" + d + "/missing/r.h5': directory '" + d + "/missing' does not exist");
  CHECK(refused(dir / "file" / "r.h5") == "cannot create report '" + d + "/file/r.h5': Not a directory");
  CHECK(refused(dir / "fifo") ==
        "cannot create report '" + d + "/fifo': it exists and is a FIFO (only a regular file is replaced)");
  const std::string same = "it is the scenario file this command reads (an output must not replace an input)";
  CHECK(refused(dir / "scenario.yaml") == "cannot create report '" + d + "/scenario.yaml': " + same);
  CHECK(refused(dir / "link.yaml") == "cannot create report '" + d + "/link.yaml': " + same);
  CHECK(refused(dir / "hard.yaml") == "cannot create report '" + d + "/hard.yaml': " + same);
  CHECK(refused(dir / "sub" / ".." / "scenario.yaml") ==
        "cannot create report '" + d + "/sub/../scenario.yaml': " + same);
  // Without a kind the message names the path only.
  CHECK(error_of([&] { check_output_path("", "", {}); }) == "cannot create '': the file name is empty");
  // Accepted: a new file, an existing regular file, a character device, a relative name.
  CHECK(refused(dir / "new.h5").empty());
  CHECK(refused(dir / "file").empty());
  CHECK(refused("/dev/null").empty());
  CHECK(error_of([&] { check_output_path("relative.h5", "report", {}); }).empty());
  // Nothing was created by checking.
  CHECK(names_in(dir) == std::set<std::string>{"fifo", "file", "hard.yaml", "link.yaml", "scenario.yaml", "sub"});
}

TEST_CASE("An OutputFile removes its own temporary only, and nothing when committed", "[output]") {
  const auto dir = scratch("own-only");
  const fs::path target = dir / "out.txt";
  write_file(target, "old\n");
  {
    OutputFile file(target, "");
    file.write("new\n");
    // Someone replaces the temporary's name with a file of their own.
    fs::rename(file.temporary(), dir / "moved");
    write_file(file.temporary(), "theirs\n");
  }
  CHECK(read_file(target) == "old\n");
  CHECK(names_in(dir).size() == 3);  // out.txt, moved, and their file at the temporary's name

  const auto clean = scratch("own-only-2");
  {
    OutputFile file(clean / "out.txt", "");
    file.write("abandoned\n");
  }
  CHECK(names_in(clean).empty());
  dctwin::io::write_output_text(clean / "out.txt", "done\n", "");
  // A character device gets the bytes; it stays what it is.
  dctwin::io::write_output_text("/dev/null", "some text\n", "");
  CHECK(fs::is_character_file("/dev/null"));
  CHECK(names_in(clean) == std::set<std::string>{"out.txt"});
  CHECK(read_file(clean / "out.txt") == "done\n");
}

TEST_CASE("remove_output_temporaries() removes every open temporary (what a signal handler calls)", "[output]") {
  const auto dir = scratch("signal");
  OutputFile a(dir / "a.h5", "report");
  OutputFile b(dir / "b.h5", "report");
  a.write("a");
  CHECK(names_in(dir).size() == 2);
  dctwin::io::remove_output_temporaries();
  CHECK(names_in(dir).empty());
  a.discard();  // nothing left to do
  CHECK(names_in(dir).empty());
  // Files committed before the signal stay.
  OutputFile c(dir / "c.txt", "");
  c.write("c");
  c.commit();
  dctwin::io::remove_output_temporaries();
  CHECK(names_in(dir) == std::set<std::string>{"c.txt"});
}

TEST_CASE("A report whose place became a directory is not renamed over it", "[output]") {
  const auto dir = scratch("became-directory");
  ReportWriter writer(dir / "run.h5", small_layout());
  fs::create_directories(dir / "run.h5");
  const std::string message =
      error_of([&] { writer.finish({{dctwin::solver::StopReason::finished, 0.0, "", ""}, {}, 0.0}, {}); });
  CHECK(message == "cannot create report '" + (dir / "run.h5").string() + "': it is a directory");
  CHECK(fs::is_directory(dir / "run.h5"));
  CHECK(names_in(dir) == std::set<std::string>{"run.h5"});
}
