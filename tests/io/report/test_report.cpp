// HDF5 reports: writing, reading back, run status, early ends, failures and their messages.
#include <catch2/catch.hpp>
#include <dlfcn.h>
#include <hdf5.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/solver/types.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using test_support::report_scratch_dir;
using dctwin::io::ReportError;
using dctwin::io::ReportLayout;
using dctwin::io::ReportOutput;
using dctwin::io::ReportReader;
using dctwin::io::ReportWriter;
using dctwin::io::RunInfo;
using dctwin::core::EntityTable;
using dctwin::core::OutputSpec;
using dctwin::solver::StopReason;
using dctwin::core::SummaryFigure;

namespace {

/// The temporaries of a report at `path`: `.<name>.XXXXXX.part` in its directory.
std::vector<fs::path> temporaries_of(const fs::path& path) {
  std::vector<fs::path> found;
  const std::string prefix = "." + path.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(path.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".part") found.push_back(entry.path());
  }
  return found;
}

std::vector<std::string> labels(const std::string& prefix, std::size_t count) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

// Sample layout: value 0 unused, then it_power (1), supply temperature (1), gpu junction
// temperature (5 GPUs), rack power (2 racks), and one trailing unused value.
constexpr std::size_t n_gpu = 5;
constexpr std::size_t n_rack = 2;
constexpr std::size_t sample_size = 1 + 1 + 1 + n_gpu + n_rack + 1;

ReportLayout test_layout() {
  ReportLayout layout;
  layout.outputs = {
      {OutputSpec{"facility", "it_power", "W", "IT power of the facility", "", 1}, 1},
      {OutputSpec{"coolant", "supply_temperature", "K", "coolant supply température", "", 1}, 2},
      {OutputSpec{"gpu", "junction_temperature", "K", "GPU junction temperature", "gpu",
                  static_cast<dctwin::solver::Index>(n_gpu)},
       3},
      {OutputSpec{"electrical/rack", "power", "W", "rack power", "rack",
                  static_cast<dctwin::solver::Index>(n_rack)},
       3 + n_gpu},
  };
  layout.entities = {
      EntityTable{"gpu", {"node0/gpu0", "node0/gpu1", "node0/gpu2", "node1/gpu0", "node1/gpu1"}},
      EntityTable{"rack", {"pod0/rack0", "pod0/rack1"}},
  };
  layout.scenario_name = "unit test";
  layout.scenario_file = "scenarios/unit_test.yaml";
  layout.scenario_source = "# as written\nname: unit test\nend_time: 10 s\n";
  layout.resolved_scenario = "name: unit test\nend_time: 10\nseed: 7\n";
  layout.attributes = {{"seed", "7"}, {"dctwin_version", "0.1.0"}};
  return layout;
}

/// Exactly representable sample values, distinct per sample and per value.
double value_at(std::size_t sample, std::size_t index) {
  return static_cast<double>(sample) * 16.0 + static_cast<double>(index) + 0.25;
}

double time_at(std::size_t sample) { return static_cast<double>(sample) * 0.5; }

std::vector<double> sample(std::size_t i) {
  std::vector<double> values(sample_size);
  for (std::size_t k = 0; k < sample_size; ++k) values[k] = value_at(i, k);
  return values;
}

RunInfo finished_run(double end_time) {
  RunInfo run;
  run.status.reason = StopReason::finished;
  run.status.time = end_time;
  run.statistics.steps = 1234;
  run.statistics.rhs_evaluations = 5678;
  run.statistics.jacobian_evaluations = 12;
  run.statistics.linear_solver_setups = 34;
  run.statistics.nonlinear_iterations = 2345;
  run.statistics.nonlinear_convergence_failures = 1;
  run.statistics.error_test_failures = 2;
  run.statistics.root_evaluations = 99;
  run.statistics.segments = 40;
  run.statistics.continued_segments = 77;
  run.statistics.events = 3;
  run.statistics.last_step_size = 0.125;
  auto& parts = run.statistics.wall_time;
  parts.integration = 0.75;
  parts.interpolation = 0.5;
  parts.periodic_updates = 0.25;
  parts.scheduled_updates = 0.0625;
  parts.knots = 0.125;
  parts.continuations = 0.03125;
  parts.restarts = 0.015625;
  parts.samples = 0.0078125;
  parts.total = 1.375;
  run.wall_time_seconds = 1.5;
  return run;
}

std::vector<SummaryFigure> test_summary() {
  return {SummaryFigure{"peak_junction_temperature", 351.25, "K", "hottest GPU junction"},
          SummaryFigure{"energy", 3.6e9, "J", "energy drawn from the grid"},
          SummaryFigure{"mfu", 0.41, "1", "model FLOPs utilisation"}};
}

/// Writes `samples` samples and `events` events and finishes with `run`.
void write_report(const fs::path& path, std::size_t samples, std::size_t events,
                  const RunInfo& run) {
  ReportWriter writer(path, test_layout());
  for (std::size_t i = 0; i < samples; ++i) {
    writer.append_sample(time_at(i), sample(i));
    if (i < events) {
      writer.add_event(time_at(i), "gpu" + std::to_string(i % 5), "throttle",
                       "slowdown #" + std::to_string(i));
    }
  }
  writer.finish(run, test_summary());
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const ReportError& error) {
    return error.what();
  }
  return "(no ReportError)";
}

}  // namespace

TEST_CASE("a finished report reads back exactly, across several chunks", "[report]") {
  const fs::path dir = report_scratch_dir("round_trip");
  const fs::path path = dir / "run.h5";
  // 1-D series are chunked by 4096 samples, the [time x 5] series too; events by 256.
  constexpr std::size_t samples = 9000;
  constexpr std::size_t events = 600;
  write_report(path, samples, events, finished_run(time_at(samples - 1)));

  CHECK(fs::exists(path));
  CHECK(temporaries_of(path).empty());

  const ReportReader reader(path);
  CHECK(reader.status() == "complete");
  CHECK(reader.status_reason().empty());
  CHECK(reader.end_time() == time_at(samples - 1));

  const auto time = reader.time();
  REQUIRE(time.size() == samples);
  for (std::size_t i = 0; i < samples; ++i) REQUIRE(time[i] == time_at(i));

  const auto it_power = reader.read("/facility/it_power");
  const auto supply = reader.read("/coolant/supply_temperature");
  const auto junction = reader.read("/gpu/junction_temperature");
  const auto rack = reader.read("/electrical/rack/power");
  REQUIRE(it_power.size() == samples);
  REQUIRE(supply.size() == samples);
  REQUIRE(junction.size() == samples * n_gpu);
  REQUIRE(rack.size() == samples * n_rack);
  bool exact = true;
  for (std::size_t i = 0; i < samples; ++i) {
    exact = exact && it_power[i] == value_at(i, 1) && supply[i] == value_at(i, 2);
    for (std::size_t g = 0; g < n_gpu; ++g) {
      exact = exact && junction[i * n_gpu + g] == value_at(i, 3 + g);
    }
    for (std::size_t r = 0; r < n_rack; ++r) {
      exact = exact && rack[i * n_rack + r] == value_at(i, 3 + n_gpu + r);
    }
  }
  CHECK(exact);

  for (const std::size_t row : {std::size_t{0}, std::size_t{4095}, std::size_t{4096},
                                std::size_t{8999}}) {
    const auto values = reader.read_row("/gpu/junction_temperature", row);
    REQUIRE(values.size() == n_gpu);
    for (std::size_t g = 0; g < n_gpu; ++g) CHECK(values[g] == value_at(row, 3 + g));
  }

  CHECK(reader.read_strings("/index/gpu") == test_layout().entities[0].labels);
  CHECK(reader.read_strings("/index/rack") == test_layout().entities[1].labels);

  const auto event_time = reader.read("/events/time");
  const auto component = reader.read_strings("/events/component");
  const auto event = reader.read_strings("/events/event");
  const auto message = reader.read_strings("/events/message");
  REQUIRE(event_time.size() == events);
  REQUIRE(component.size() == events);
  REQUIRE(event.size() == events);
  REQUIRE(message.size() == events);
  for (std::size_t i = 0; i < events; ++i) {
    REQUIRE(event_time[i] == time_at(i));
    REQUIRE(component[i] == "gpu" + std::to_string(i % 5));
    REQUIRE(event[i] == "throttle");
    REQUIRE(message[i] == "slowdown #" + std::to_string(i));
  }

  const auto summary = reader.summary();
  const auto expected_summary = test_summary();
  REQUIRE(summary.size() == expected_summary.size());
  for (std::size_t i = 0; i < summary.size(); ++i) {
    CHECK(summary[i].name == expected_summary[i].name);
    CHECK(summary[i].value == expected_summary[i].value);
    CHECK(summary[i].unit == expected_summary[i].unit);
    CHECK(summary[i].long_name == expected_summary[i].long_name);
  }

  const auto strings = reader.string_attributes();
  CHECK(strings.at("status") == "complete");
  CHECK(strings.at("status_reason").empty());
  CHECK(strings.at("Conventions") == "CF-1.8");
  CHECK(strings.at("scenario_name") == "unit test");
  CHECK(strings.at("scenario_file") == "scenarios/unit_test.yaml");
  CHECK(strings.at("title").find("unit test") != std::string::npos);
  CHECK(strings.at("seed") == "7");
  CHECK(strings.at("dctwin_version") == "0.1.0");

  const auto integers = reader.integer_attributes();
  CHECK(integers.at("dctwin_report_version") == 1);
  CHECK(integers.at("solver_steps") == 1234);
  CHECK(integers.at("solver_rhs_evaluations") == 5678);
  CHECK(integers.at("solver_jacobian_evaluations") == 12);
  CHECK(integers.at("solver_linear_solver_setups") == 34);
  CHECK(integers.at("solver_nonlinear_iterations") == 2345);
  CHECK(integers.at("solver_nonlinear_convergence_failures") == 1);
  CHECK(integers.at("solver_error_test_failures") == 2);
  CHECK(integers.at("solver_root_evaluations") == 99);
  CHECK(integers.at("solver_segments") == 40);
  CHECK(integers.at("solver_continued_segments") == 77);
  CHECK(integers.at("solver_events") == 3);
  const auto reals = reader.double_attributes();
  CHECK(reals.at("end_time") == time_at(samples - 1));
  CHECK(reals.at("wall_time") == 1.5);
  CHECK(reals.at("solver_last_step_size") == 0.125);
  CHECK(reals.at("wall_time_integration") == 0.75);
  CHECK(reals.at("wall_time_interpolation") == 0.5);
  CHECK(reals.at("wall_time_periodic_updates") == 0.25);
  CHECK(reals.at("wall_time_scheduled_updates") == 0.0625);
  CHECK(reals.at("wall_time_knots") == 0.125);
  CHECK(reals.at("wall_time_continuations") == 0.03125);
  CHECK(reals.at("wall_time_restarts") == 0.015625);
  CHECK(reals.at("wall_time_samples") == 0.0078125);
  CHECK(reals.at("wall_time_run_loop") == 1.375);
  CHECK(reals.count("solver_steps") == 0);  // an integer attribute

  // Every dataset, index tables and event strings included, carries units.
  const auto datasets = reader.datasets();
  std::map<std::string, ReportReader::DatasetInfo> by_path;
  for (const auto& info : datasets) {
    INFO(info.path);
    CHECK_FALSE(info.units.empty());
    by_path.emplace(info.path, info);
  }
  for (const char* expected :
       {"/time", "/facility/it_power", "/coolant/supply_temperature", "/gpu/junction_temperature",
        "/electrical/rack/power", "/index/gpu", "/index/rack", "/gpu/gpu", "/electrical/rack/rack", "/events/time",
        "/events/component", "/events/event", "/events/message", "/scenario/source",
        "/scenario/resolved", "/summary/energy", "/summary/mfu",
        "/summary/peak_junction_temperature"}) {
    INFO(expected);
    CHECK(by_path.count(expected) == 1);
  }
  CHECK(datasets.size() == 18);
  CHECK(by_path.at("/time").units == "s since 2000-01-01T00:00:00Z");
  // The labels again as the coordinate variable of each group whose series run over the entity.
  CHECK(reader.read_strings("/gpu/gpu") == test_layout().entities[0].labels);
  CHECK(reader.read_strings("/electrical/rack/rack") == test_layout().entities[1].labels);
  CHECK_FALSE(by_path.at("/gpu/gpu").numeric);
  CHECK(by_path.at("/gpu/junction_temperature").numeric);
  CHECK(by_path.at("/time").long_name == "simulated time");
  CHECK(by_path.at("/gpu/junction_temperature").shape == std::vector<std::size_t>{samples, n_gpu});
  CHECK(by_path.at("/gpu/junction_temperature").units == "K");
  CHECK(by_path.at("/coolant/supply_temperature").shape == std::vector<std::size_t>{samples});
  CHECK(by_path.at("/coolant/supply_temperature").long_name == "coolant supply température");
  CHECK(by_path.at("/index/gpu").units == "1");
  CHECK(by_path.at("/summary/mfu").shape.empty());

  CHECK(reader.read_strings("/scenario/source") ==
        std::vector<std::string>{test_layout().scenario_source});
  CHECK(reader.read_strings("/scenario/resolved") ==
        std::vector<std::string>{test_layout().resolved_scenario});
}

TEST_CASE("a facility-wide [time x 24576] series crosses chunks in both dimensions", "[report]") {
  const fs::path path = report_scratch_dir("wide") / "wide.h5";
  constexpr std::size_t gpus = 24576;
  constexpr std::size_t samples = 70;  // time chunks of 32 rows for 4096-entity chunks
  ReportLayout layout;
  layout.outputs = {{OutputSpec{"gpu", "power", "W", "GPU board power", "gpu",
                                static_cast<dctwin::solver::Index>(gpus)},
                     0}};
  layout.entities = {EntityTable{"gpu", labels("gpu", gpus)}};
  {
    ReportWriter writer(path, layout);
    std::vector<double> values(gpus);
    for (std::size_t i = 0; i < samples; ++i) {
      for (std::size_t g = 0; g < gpus; ++g) values[g] = 700.0 - static_cast<double>(g % 97) + static_cast<double>(i);
      writer.append_sample(static_cast<double>(i), values);
    }
    writer.finish(finished_run(static_cast<double>(samples - 1)),
                  {SummaryFigure{"peak_power", 769.0, "W", "peak GPU power"}});
  }
  const ReportReader reader(path);
  for (const std::size_t row : {std::size_t{0}, std::size_t{31}, std::size_t{32}, std::size_t{69}}) {
    const auto values = reader.read_row("/gpu/power", row);
    REQUIRE(values.size() == gpus);
    bool exact = true;
    for (std::size_t g = 0; g < gpus; ++g) {
      exact = exact && values[g] == 700.0 - static_cast<double>(g % 97) + static_cast<double>(row);
    }
    CHECK(exact);
  }
  CHECK(reader.read("/gpu/power").size() == gpus * samples);
  CHECK(reader.read_strings("/index/gpu").size() == gpus);
  CHECK(error_of([&] { (void)reader.read_row("/gpu/power", samples); })
            .find("time index 70 is out of range") != std::string::npos);
}

TEST_CASE("a series whose width ends inside a chunk reads back bit for bit, full and partial rows", "[report]") {
  // 5,000 entities: chunks of 4,096 and an edge chunk of 904 (stored padded); 40 samples: one
  // whole chunk of 32 rows written during the run, 8 rows in edge chunks written at the finish.
  // The chunks are encoded on the run's threads and stored with H5Dwrite_chunk; HDF5's own
  // reader must give every value back.
  const fs::path path = report_scratch_dir("edge") / "edge.h5";
  constexpr std::size_t entities = 5000;
  constexpr std::size_t samples = 40;
  ReportLayout layout;
  layout.outputs = {{OutputSpec{"gpu", "power", "W", "GPU board power", "gpu",
                                static_cast<dctwin::solver::Index>(entities)},
                     0}};
  layout.entities = {EntityTable{"gpu", labels("gpu", entities)}};
  auto value = [](std::size_t row, std::size_t entity) {
    // Many mantissas, some values that deflate (repeats) and some that do not.
    return entity % 3 == 0 ? 700.0 : std::sin(0.37 * static_cast<double>(entity) + static_cast<double>(row)) * 1e3;
  };
  {
    ReportWriter writer(path, layout);
    std::vector<double> values(entities);
    for (std::size_t i = 0; i < samples; ++i) {
      for (std::size_t g = 0; g < entities; ++g) values[g] = value(i, g);
      writer.append_sample(static_cast<double>(i), values);
    }
    writer.finish(finished_run(static_cast<double>(samples - 1)), {});
  }
  const ReportReader reader(path);
  const auto all = reader.read("/gpu/power");
  REQUIRE(all.size() == entities * samples);
  std::size_t exact = 0;
  for (std::size_t i = 0; i < samples; ++i)
    for (std::size_t g = 0; g < entities; ++g) exact += all[i * entities + g] == value(i, g) ? 1 : 0;
  CHECK(exact == entities * samples);
  const auto time = reader.read("/time");
  REQUIRE(time.size() == samples);
  CHECK(time.back() == static_cast<double>(samples - 1));
}

TEST_CASE("a run that ended early is marked incomplete with the status description",
          "[report]") {
  const fs::path path = report_scratch_dir("ended_early") / "run.h5";
  RunInfo run = finished_run(12.5);
  run.status.reason = StopReason::event;
  run.status.component = "pdu3";
  run.status.message = "overcurrent trip";
  write_report(path, 26, 2, run);

  const ReportReader reader(path);
  CHECK(reader.status() == "incomplete");
  CHECK(reader.status_reason() == run.status.describe());
  CHECK(reader.status_reason().find("overcurrent trip") != std::string::npos);
  CHECK(reader.end_time() == 12.5);
  CHECK(reader.time().size() == 26);
  CHECK(reader.summary().size() == 3);
  CHECK(temporaries_of(path).empty());
}

TEST_CASE("abandon() publishes an incomplete report with the reason", "[report]") {
  const fs::path path = report_scratch_dir("abandon") / "run.h5";
  ReportWriter writer(path, test_layout());
  CHECK(writer.final_path() == path);
  CHECK(temporaries_of(path).size() == 1);
  CHECK_FALSE(fs::exists(path));
  for (std::size_t i = 0; i < 300; ++i) writer.append_sample(time_at(i), sample(i));
  writer.add_event(1.0, "gpus", "checkpoint", "saved");
  writer.abandon("cancelled by the user");
  CHECK(fs::exists(path));
  CHECK(temporaries_of(path).empty());

  // Closed: further use is an error, a second abandon() does nothing.
  CHECK(error_of([&] { writer.append_sample(1000.0, sample(0)); })
            .find("already closed") != std::string::npos);
  CHECK(error_of([&] { writer.finish(finished_run(1.0), {}); }).find("already closed") !=
        std::string::npos);
  CHECK_NOTHROW(writer.abandon("again"));

  const ReportReader reader(path);
  CHECK(reader.status() == "incomplete");
  CHECK(reader.status_reason() == "cancelled by the user");
  CHECK(reader.end_time() == time_at(299));
  const auto time = reader.time();
  REQUIRE(time.size() == 300);
  CHECK(time.back() == time_at(299));
  const auto junction = reader.read("/gpu/junction_temperature");
  REQUIRE(junction.size() == 300 * n_gpu);
  CHECK(junction.back() == value_at(299, 3 + n_gpu - 1));
  CHECK(reader.read_strings("/events/message") == std::vector<std::string>{"saved"});
  CHECK(reader.summary().empty());
  // No statistics are known for an abandoned run.
  CHECK(reader.integer_attributes().count("solver_steps") == 0);
}

TEST_CASE("an exception during a run leaves an incomplete report and no temporary file",
          "[report]") {
  const fs::path path = report_scratch_dir("exception") / "run.h5";
  try {
    ReportWriter writer(path, test_layout());
    for (std::size_t i = 0; i < 10; ++i) writer.append_sample(time_at(i), sample(i));
    throw std::runtime_error("model failure");
  } catch (const std::runtime_error& error) {
    CHECK(std::string(error.what()) == "model failure");
  }
  CHECK(fs::exists(path));
  CHECK(temporaries_of(path).empty());
  const ReportReader reader(path);
  CHECK(reader.status() == "incomplete");
  CHECK(reader.status_reason().find("aborted by an error") != std::string::npos);
  CHECK(reader.time().size() == 10);
}

TEST_CASE("destroying an open writer without an exception also abandons the report",
          "[report]") {
  const fs::path path = report_scratch_dir("destructor") / "run.h5";
  ReportLayout layout = test_layout();
  layout.entities.push_back(EntityTable{"pump", {}});  // an entity kind with no members
  { ReportWriter writer(path, layout); }
  const ReportReader reader(path);
  CHECK(reader.read_strings("/index/pump").empty());
  CHECK(reader.status() == "incomplete");
  CHECK(reader.status_reason() == "the report was closed before the run finished");
  CHECK(reader.time().empty());
  CHECK(reader.read("/gpu/junction_temperature").empty());
  CHECK(temporaries_of(path).empty());
}

TEST_CASE("a moved writer keeps its report", "[report]") {
  const fs::path path = report_scratch_dir("move") / "run.h5";
  ReportWriter first(path, test_layout());
  first.append_sample(0.0, sample(0));
  ReportWriter second(std::move(first));
  second.append_sample(1.0, sample(1));
  second.finish(finished_run(1.0), test_summary());
  const ReportReader reader(path);
  CHECK(reader.status() == "complete");
  CHECK(reader.time() == std::vector<double>{0.0, 1.0});
}

TEST_CASE("finishing replaces an existing report atomically", "[report]") {
  const fs::path path = report_scratch_dir("replace") / "run.h5";
  { std::ofstream(path) << "an old file\n"; }
  ReportWriter writer(path, test_layout());
  writer.append_sample(0.0, sample(0));
  CHECK(read_text(path) == "an old file\n");  // untouched until the new report is complete
  writer.finish(finished_run(0.0), test_summary());
  CHECK(ReportReader(path).status() == "complete");
}

TEST_CASE("the same run gives a bit-identical report", "[report]") {
  const fs::path dir = report_scratch_dir("determinism");
  write_report(dir / "a.h5", 500, 20, finished_run(time_at(499)));
  write_report(dir / "b.h5", 500, 20, finished_run(time_at(499)));
  const std::string a = read_text(dir / "a.h5");
  CHECK_FALSE(a.empty());
  CHECK(a == read_text(dir / "b.h5"));
}

TEST_CASE("an unwritable output directory is reported with the system's reason", "[report]") {
  const fs::path dir = report_scratch_dir("unwritable");

  SECTION("a path below a regular file") {
    const fs::path file = dir / "not_a_directory";
    { std::ofstream(file) << "x"; }
    const fs::path path = file / "run.h5";
    CHECK(error_of([&] { ReportWriter writer(path, test_layout()); }) ==
          "cannot create report '" + path.string() + "': Not a directory");
  }

  SECTION("a directory that refuses new files, even to root") {
    // sysfs refuses to create regular files whatever the caller's privileges; as an ordinary
    // user a read-only directory of our own does the same.
    fs::path path;
    if (::geteuid() == 0) {
      path = "/sys/dctwin_report_test.h5";
    } else {
      const fs::path locked = dir / "locked";
      fs::create_directories(locked);
      fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
      path = locked / "run.h5";
    }
    const fs::path part = path.parent_path() / ".probe.part";
    // What the operating system says when anyone tries to create the file there.
    const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int os_error = errno;
    REQUIRE(fd < 0);
    CHECK((os_error == EACCES || os_error == EROFS || os_error == EPERM));
    CHECK(error_of([&] { ReportWriter writer(path, test_layout()); }) ==
          "cannot create report '" + path.string() + "': " + std::strerror(os_error));
    CHECK_FALSE(fs::exists(path));
    if (::geteuid() != 0) fs::permissions(dir / "locked", fs::perms::owner_all);
  }
}

namespace {

// Write-failure injection: this executable's pwrite() stands in for the C library's (HDF5 calls it
// for every write). While armed, writes to a temporary of the report at `failing_path` (a file
// `.<name>.XXXXXX.part` next to it) succeed until `write_budget` bytes have been written, then
// fail with ENOSPC, as on a full disk.
std::string failing_path;
long long write_budget = 0;
bool failure_armed = false;

bool writes_to_failing_path(int fd) {
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  char target[4096];
  const ssize_t length = ::readlink(link.c_str(), target, sizeof target);
  if (length <= 0) return false;
  const fs::path written(std::string(target, static_cast<std::size_t>(length)));
  const fs::path failing(failing_path);
  const std::string name = written.filename().string();
  return written.parent_path() == failing.parent_path() && written.extension() == ".part" &&
         name.rfind("." + failing.filename().string() + ".", 0) == 0;
}

/// Arms the failure for one scope.
class DiskFullAfter {
 public:
  DiskFullAfter(const fs::path& path, long long bytes) {
    failing_path = path.string();
    write_budget = bytes;
    failure_armed = true;
  }
  ~DiskFullAfter() { failure_armed = false; }
  DiskFullAfter(const DiskFullAfter&) = delete;
  DiskFullAfter& operator=(const DiskFullAfter&) = delete;
};

}  // namespace

extern "C" ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  using Pwrite = ssize_t (*)(int, const void*, size_t, off_t);
  static const Pwrite real = [] {
    void* symbol = ::dlsym(RTLD_NEXT, "pwrite");
    Pwrite function = nullptr;
    std::memcpy(&function, &symbol, sizeof function);
    return function;
  }();
  if (failure_armed && writes_to_failing_path(fd)) {
    if (write_budget < static_cast<long long>(count)) {
      errno = ENOSPC;
      return -1;
    }
    write_budget -= static_cast<long long>(count);
  }
  return real(fd, buffer, count, offset);
}

TEST_CASE("a write failure never leaves a temporary or corrupt file behind", "[report]") {
  // Whatever write the failure hits (index tables, samples, the final flush of data or
  // metadata), the result is either a readable report or no file at all, and the process
  // survives: HDF5 1.10 crashes at exit when a file it failed to close is left open.
  const fs::path dir = report_scratch_dir("write_failure");
  const fs::path path = dir / "run.h5";
  ReportLayout layout = test_layout();
  layout.entities[0].labels = labels("pod0/rack0/node0/gpu", n_gpu);

  // Size of the complete report, for the range of failure points.
  write_report(path, 5000, 300, finished_run(time_at(4999)));
  const auto full_size = static_cast<long long>(fs::file_size(path));
  fs::remove(path);

  int failures = 0;
  int reports = 0;
  for (long long budget = 0; budget <= full_size + 20000; budget += full_size / 40) {
    for (const bool finish : {true, false}) {
      std::string message;
      {
        const DiskFullAfter disk_full(fs::weakly_canonical(path), budget);
        try {
          ReportWriter writer(path, layout);
          for (std::size_t i = 0; i < 5000; ++i) {
            writer.append_sample(time_at(i), sample(i));
            if (i < 300) writer.add_event(time_at(i), "gpus", "throttle", "power cap");
          }
          if (!finish) throw std::runtime_error("model failure");
          writer.finish(finished_run(time_at(4999)), test_summary());
        } catch (const ReportError& error) {
          message = error.what();
        } catch (const std::runtime_error&) {
        }
      }
      INFO("budget " << budget << " of " << full_size << " bytes: " << message);
      CHECK(temporaries_of(path).empty());
      if (!message.empty()) {
        ++failures;
        CHECK(message.find("No space left on device") != std::string::npos);
      }
      if (fs::exists(path)) {
        ++reports;
        const ReportReader reader(path);
        CHECK(reader.status() == (finish ? "complete" : "incomplete"));
        CHECK(reader.time().size() == 5000);
        fs::remove(path);
      } else if (finish) {
        CHECK_FALSE(message.empty());  // (a destructor cannot report why it removed the file)
      }
    }
  }
  CHECK(failures > 10);
  CHECK(reports > 0);
}

TEST_CASE("an inconsistent layout is rejected before any file is created", "[report]") {
  const fs::path path = report_scratch_dir("layout") / "run.h5";
  auto rejects = [&](const ReportLayout& layout, const std::string& expected) {
    const std::string message = error_of([&] { ReportWriter writer(path, layout); });
    INFO(message);
    CHECK(message.find("invalid report layout") != std::string::npos);
    CHECK(message.find(expected) != std::string::npos);
    CHECK_FALSE(fs::exists(path));
    CHECK(temporaries_of(path).empty());
  };
  ReportLayout layout = test_layout();
  layout.entities[0].labels.pop_back();
  rejects(layout, "5 values, but entity 'gpu' has 4 labels");

  layout = test_layout();
  layout.entities.pop_back();
  rejects(layout, "no index table for entity 'rack'");

  layout = test_layout();
  layout.outputs.push_back(layout.outputs.front());
  rejects(layout, "output '/facility/it_power' appears twice");

  layout = test_layout();
  layout.outputs.push_back({OutputSpec{"summary", "x", "1", "clash", "", 1}, 0});
  rejects(layout, "'/summary' is reserved");

  layout = test_layout();
  layout.outputs.push_back({OutputSpec{"pump", "speeds", "1", "no entity", "", 3}, 0});
  rejects(layout, "count = 3 without an entity");

  layout = test_layout();
  layout.attributes["status"] = "fine";
  rejects(layout, "attribute 'status' is written by the report itself");

  // The coordinate variable of the gpu entity in /gpu is /gpu/gpu.
  layout = test_layout();
  layout.outputs.push_back({OutputSpec{"gpu", "gpu", "1", "clash", "", 1}, 0});
  rejects(layout, "'/gpu/gpu' is taken: the report stores the labels of the gpu entities there");

  layout = test_layout();
  layout.outputs.push_back({OutputSpec{"gpu/gpu", "x", "1", "clash", "", 1}, 0});
  rejects(layout, "'/gpu/gpu' is taken");

  layout = test_layout();
  layout.outputs[0].flags = {dctwin::io::SeriesFlags::Kind::bit_field, {1, 2}, {"a"}};
  rejects(layout, "output '/facility/it_power': 2 flag values and 1 meanings (must be as many, at least one)");

  layout = test_layout();
  layout.outputs[0].flags = {dctwin::io::SeriesFlags::Kind::enumeration, {0, 1}, {"off", "on state"}};
  rejects(layout, "flag meaning 'on state' is not a word of letters, digits and '_'");

  layout = test_layout();
  layout.outputs[0].flags = {dctwin::io::SeriesFlags::Kind::bit_field, {0, 1}, {"none", "one"}};
  rejects(layout, "flag mask of 'none' is 0");

  layout = test_layout();
  layout.outputs[0].flags = {dctwin::io::SeriesFlags::Kind::enumeration, {3, 3}, {"a", "b"}};
  rejects(layout, "flag value 3 appears twice");
}

TEST_CASE("categorical series are stored as uint32 with CF flag attributes", "[report]") {
  const fs::path path = report_scratch_dir("categorical") / "run.h5";
  ReportLayout layout = test_layout();
  // it_power becomes an enumeration, the GPU series a bit field (values 0.25 + ... replaced below).
  layout.outputs[0].flags = {dctwin::io::SeriesFlags::Kind::enumeration, {0, 1, 2}, {"idle", "busy", "down"}};
  layout.outputs[2].flags = {dctwin::io::SeriesFlags::Kind::bit_field, {0x1, 0x4, 0x80000000u}, {"a", "b", "top"}};
  std::vector<double> row(sample_size, 0.5);
  row[1] = 2.0;
  const std::vector<double> bits{0.0, 1.0, 5.0, 4294967295.0, 2147483648.0};
  std::copy(bits.begin(), bits.end(), row.begin() + 3);
  {
    dctwin::io::ReportWriter writer(path, layout);
    for (std::size_t i = 0; i < 300; ++i) writer.append_sample(time_at(i), row);
    std::vector<double> bad = row;
    bad[4] = 1.5;
    CHECK(error_of([&] { writer.append_sample(time_at(300), bad); }) ==
          "report '" + path.string() + "': /gpu/junction_temperature value 1.5 at t = 150 s is not a whole number in [0, 4294967295]");
    bad[4] = -1.0;
    CHECK(error_of([&] { writer.append_sample(time_at(300), bad); }).find("value -1 at t = 150 s") != std::string::npos);
    bad = row;
    bad[1] = std::nan("");
    CHECK(error_of([&] { writer.append_sample(time_at(300), bad); }).find("/facility/it_power value nan") != std::string::npos);
    writer.finish(finished_run(time_at(299)), {});
  }
  const ReportReader reader(path);
  CHECK(reader.time().size() == 300);  // the rejected samples left no row
  const auto matrix = reader.read("/gpu/junction_temperature");
  REQUIRE(matrix.size() == 300 * n_gpu);
  for (std::size_t i = 0; i < 300; ++i)
    for (std::size_t g = 0; g < n_gpu; ++g) REQUIRE(matrix[i * n_gpu + g] == bits[g]);
  CHECK(reader.read("/facility/it_power") == std::vector<double>(300, 2.0));
  CHECK(reader.read("/coolant/supply_temperature") == std::vector<double>(300, 0.5));

  // Stored types and attributes, through the HDF5 C API.
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const auto stored_type = [&](const char* name) {
    const hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
    const hid_t type = H5Dget_type(dataset);
    const bool u32 = H5Tequal(type, H5T_STD_U32LE) > 0, f64 = H5Tequal(type, H5T_IEEE_F64LE) > 0;
    H5Tclose(type);
    H5Dclose(dataset);
    return u32 ? std::string("u32") : f64 ? std::string("f64") : std::string("other");
  };
  CHECK(stored_type("/gpu/junction_temperature") == "u32");
  CHECK(stored_type("/facility/it_power") == "u32");
  CHECK(stored_type("/coolant/supply_temperature") == "f64");
  const auto flags = [&](const char* object, const char* name) {
    const hid_t attribute = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
    std::vector<std::uint32_t> values(3);
    if (attribute >= 0) {
      const hid_t space = H5Aget_space(attribute);
      values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
      H5Sclose(space);
      H5Aread(attribute, H5T_NATIVE_UINT32, values.data());
      H5Aclose(attribute);
    } else {
      values.clear();
    }
    return values;
  };
  CHECK(flags("/gpu/junction_temperature", "flag_masks") == std::vector<std::uint32_t>{0x1, 0x4, 0x80000000u});
  CHECK(flags("/facility/it_power", "flag_values") == std::vector<std::uint32_t>{0, 1, 2});
  H5Fclose(file);
}

TEST_CASE("bad samples are rejected and the report stays usable", "[report]") {
  const fs::path path = report_scratch_dir("bad_samples") / "run.h5";
  ReportWriter writer(path, test_layout());
  writer.append_sample(1.0, sample(0));
  const std::vector<double> short_sample(sample_size - 2, 0.0);
  CHECK(error_of([&] { writer.append_sample(2.0, short_sample); })
            .find("a sample has 9 values, the layout needs 10") != std::string::npos);
  CHECK(error_of([&] { writer.append_sample(0.5, sample(1)); })
            .find("before the previous one") != std::string::npos);
  CHECK(error_of([&] { writer.append_sample(std::nan(""), sample(1)); }).find("not finite") !=
        std::string::npos);
  std::vector<SummaryFigure> twice = test_summary();
  twice.push_back(twice.front());
  CHECK(error_of([&] { writer.finish(finished_run(1.0), twice); }).find("appears twice") !=
        std::string::npos);
  writer.append_sample(1.0, sample(1));  // equal times are allowed (both sides of an edge)
  writer.finish(finished_run(1.0), test_summary());
  const ReportReader reader(path);
  CHECK(reader.time() == std::vector<double>{1.0, 1.0});
  CHECK(reader.status() == "complete");
}

TEST_CASE("the reader rejects truncated files, other files and missing datasets", "[report]") {
  const fs::path dir = report_scratch_dir("reader_errors");
  const fs::path good = dir / "good.h5";
  write_report(good, 5000, 10, finished_run(time_at(4999)));

  SECTION("a report truncated to half its size") {
    const fs::path truncated = dir / "truncated.h5";
    fs::copy_file(good, truncated);
    fs::resize_file(truncated, fs::file_size(good) / 2);
    CHECK(error_of([&] { ReportReader reader(truncated); }) ==
          truncated.string() + ": not an HDF5 file or truncated");
  }

  SECTION("a text file") {
    const fs::path text = dir / "notes.txt";
    { std::ofstream(text) << "time,power\n0,1\n"; }
    CHECK(error_of([&] { ReportReader reader(text); }) ==
          text.string() + ": not an HDF5 file or truncated");
  }

  SECTION("an HDF5 file that is not a report") {
    const fs::path other = dir / "other.h5";
    const hid_t file = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(file >= 0);
    REQUIRE(H5Fclose(file) >= 0);
    CHECK(error_of([&] { ReportReader reader(other); }) ==
          other.string() + ": not a dctwin report (no dctwin_report_version)");
  }

  SECTION("a missing file") {
    CHECK(error_of([&] { ReportReader reader(dir / "missing.h5"); }) ==
          (dir / "missing.h5").string() + ": no such file");
  }

  SECTION("datasets that do not exist or do not fit the request") {
    const ReportReader reader(good);
    CHECK(error_of([&] { (void)reader.read("/gpu/nonexistent"); }) ==
          good.string() + ": no dataset '/gpu/nonexistent'");
    CHECK(error_of([&] { (void)reader.read("/nowhere/at/all"); }) ==
          good.string() + ": no dataset '/nowhere/at/all'");
    CHECK(error_of([&] { (void)reader.read_strings("/index/pump"); }) ==
          good.string() + ": no dataset '/index/pump'");
    CHECK(error_of([&] { (void)reader.read("/gpu"); }) == good.string() +
                                                              ": '/gpu' is not a dataset");
    CHECK(error_of([&] { (void)reader.read("/index/gpu"); }).find("is not numeric") !=
          std::string::npos);
    CHECK(error_of([&] { (void)reader.read_strings("/time"); }).find("does not hold strings") !=
          std::string::npos);
    CHECK(error_of([&] { (void)reader.read_row("/time", 0); }).find("not 2 [time x entity]") !=
          std::string::npos);
  }
}

// Writes the report that check_report.py inspects (registered by tests/io/report/CMakeLists.txt).
TEST_CASE("write the sample report for check_report.py", "[.][sample]") {
  const fs::path path =
      fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "report" / "sample_report.h5";
  fs::create_directories(path.parent_path());
  write_report(path, 5000, 300, finished_run(time_at(4999)));
  const ReportReader reader(path);
  CHECK(reader.status() == "complete");
  CHECK(reader.time().size() == 5000);
}

TEST_CASE("static data (layout, maps) is written once with units and its entity scale", "[report]") {
  const fs::path path = report_scratch_dir("static") / "run.h5";
  ReportLayout layout = test_layout();
  layout.static_data = {
      {"layout", "rack_position", "m", "rack centre position", "rack", {n_rack, 3}, {0.0, 0.0, 0.0, 0.6, 0.0, 0.0}},
      {"layout", "gpu_rack", "1", "index of the rack holding each GPU", "gpu", {n_gpu}, {0, 0, 0, 1, 1}},
  };
  {
    dctwin::io::ReportWriter writer(path, layout);
    writer.append_sample(0.0, sample(0));
    writer.finish(finished_run(0.0), {});
  }
  const ReportReader reader(path);
  CHECK(reader.read("/layout/rack_position") == std::vector<double>{0.0, 0.0, 0.0, 0.6, 0.0, 0.0});
  CHECK(reader.read("/layout/gpu_rack") == std::vector<double>{0, 0, 0, 1, 1});
  bool found = false;
  for (const auto& d : reader.datasets()) {
    if (d.path == "/layout/rack_position") {
      found = true;
      CHECK(d.units == "m");
      CHECK(d.shape == std::vector<std::size_t>{n_rack, 3});
    }
  }
  CHECK(found);

  ReportLayout wrong = test_layout();
  wrong.static_data = {{"layout", "gpu_rack", "1", "map", "gpu", {n_gpu + 1}, std::vector<double>(n_gpu + 1, 0.0)}};
  CHECK_THROWS_WITH(dctwin::io::ReportWriter(report_scratch_dir("static_wrong") / "r.h5", wrong),
                    "invalid report layout: static data 'layout/gpu_rack': first dimension does not match entity 'gpu'");
}

TEST_CASE("fine series have their own time axis, cross chunks and are refused out of order", "[report]") {
  const fs::path path = report_scratch_dir("fine_series") / "run.h5";
  ReportLayout layout = test_layout();
  layout.fine_series.push_back({"grid", "time of the grid samples",
                                {OutputSpec{"grid", "power", "W", "grid power", "", 1},
                                 OutputSpec{"grid", "frequency", "Hz", "grid frequency", "", 1},
                                 OutputSpec{"grid", "noise", "1", "random bits", "", 1}}});
  ReportWriter writer(path, layout);
  writer.append_sample(0.0, sample(0));
  const std::size_t n = 20000;  // more than two chunks of 8192 rows
  // Whole chunks are shuffled and deflated by the writer itself; random bits do not deflate, and
  // their chunks are stored shuffled only (the deflate filter marked as skipped).
  std::vector<double> noise(n);
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (double& value : noise) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
    const std::uint64_t bits = state & ~(std::uint64_t{1} << 62);     // exponent never all ones: finite
    std::memcpy(&value, &bits, sizeof value);
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::array<double, 3> values = {1e6 + static_cast<double>(k), 60.0 - 1e-6 * static_cast<double>(k), noise[k]};
    writer.append_fine_sample(0, 1e-3 * static_cast<double>(k), values);
  }
  writer.append_sample(0.5, sample(1));
  const std::array<double, 3> late = {0.0, 0.0, 0.0};
  CHECK_THROWS_WITH(writer.append_fine_sample(0, 1.0, late),
                    Catch::Contains("/grid sample time 1 s is not finite or before the previous one"));
  const std::array<double, 1> short_row = {0.0};
  CHECK_THROWS_WITH(writer.append_fine_sample(0, 30.0, short_row),
                    Catch::Contains("a /grid sample has 1 values, the layout has 3 series"));
  CHECK_THROWS_WITH(writer.append_fine_sample(1, 30.0, late), Catch::Contains("no fine series group 1"));
  writer.finish(finished_run(0.5), {});

  const ReportReader reader(path);
  CHECK(reader.time().size() == 2);
  const auto t = reader.read("/grid/time");
  const auto p = reader.read("/grid/power");
  const auto f = reader.read("/grid/frequency");
  REQUIRE(t.size() == n);
  REQUIRE(p.size() == n);
  REQUIRE(f.size() == n);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < n; ++k) {
    wrong += t[k] != 1e-3 * static_cast<double>(k);
    wrong += p[k] != 1e6 + static_cast<double>(k);
    wrong += f[k] != 60.0 - 1e-6 * static_cast<double>(k);
  }
  CHECK(wrong == 0);
  const auto read_noise = reader.read("/grid/noise");
  REQUIRE(read_noise.size() == n);
  CHECK(std::memcmp(read_noise.data(), noise.data(), n * sizeof(double)) == 0);
  bool found = false;
  for (const auto& d : reader.datasets())
    if (d.path == "/grid/power") {
      found = true;
      CHECK(d.units == "W");
      CHECK(d.long_name == "grid power");
    }
  CHECK(found);
}

TEST_CASE("unsigned 64-bit attributes (the seed) are stored as uint64 and read back exactly", "[report][seed]") {
  const fs::path path = report_scratch_dir("unsigned") / "run.h5";
  ReportLayout layout = test_layout();
  layout.attributes.erase("seed");
  layout.unsigned_attributes = {{"seed", 18446744073709551615ULL}, {"other_seed", 9007199254740993ULL}};
  {
    ReportWriter writer(path, layout);
    writer.finish(finished_run(0.0), {});
  }
  const ReportReader reader(path);
  const auto unsigned_attributes = reader.unsigned_attributes();
  CHECK(unsigned_attributes.at("seed") == 18446744073709551615ULL);
  CHECK(unsigned_attributes.at("other_seed") == 9007199254740993ULL);
  CHECK(reader.integer_attributes().count("seed") == 0);  // would not fit a long long
  CHECK(reader.integer_attributes().count("dctwin_report_version") == 1);
  CHECK(reader.string_attributes().count("seed") == 0);
  // Stored as H5T_STD_U64LE, so any HDF5 reader (h5py: numpy.uint64) gets the exact value.
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t attribute = H5Aopen(file, "seed", H5P_DEFAULT);
  const hid_t type = H5Aget_type(attribute);
  CHECK(H5Tequal(type, H5T_STD_U64LE) > 0);
  H5Tclose(type);
  H5Aclose(attribute);
  H5Fclose(file);
  // The same name twice is refused before any file is created.
  ReportLayout twice = test_layout();
  twice.unsigned_attributes = {{"seed", 7}};
  CHECK_THROWS_AS(ReportWriter(report_scratch_dir("unsigned_twice") / "run.h5", twice), ReportError);
}

TEST_CASE("report errors show control characters in file names as escapes", "[report][messages]") {
  const fs::path dir = report_scratch_dir("escapes");
  const fs::path text = dir / "notes\x1b[2J.h5";
  { std::ofstream(text) << "not a report\n"; }
  try {
    ReportReader reader(text);
    FAIL("no error");
  } catch (const ReportError& e) {
    CHECK(std::string(e.what()) == (dir / "notes\\x1b[2J.h5").string() + ": not an HDF5 file or truncated");
  }
  CHECK(std::string(ReportError("a\nb\x07").what()) == "a\\nb\\x07");
}
