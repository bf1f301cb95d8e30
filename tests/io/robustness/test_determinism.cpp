// Determinism: the same scenario run twice, and the members of a sweep run on one and on two
// threads, give bit-identical reports - every dataset, every summary figure, every string and
// integer attribute. Only the wall time (a floating-point root attribute) may differ, so the files
// themselves are not compared byte for byte.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../../support/run_program.hpp"
#include "dctwin/io/report.hpp"

namespace fs = std::filesystem;
using test_support::Outcome;
using test_support::run_dctwin;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "robustness" / "scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> out(values.size());
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size() * sizeof(double));
  return out;
}

/// Everything in a report that a run determines, in comparable form: numeric datasets as raw bits,
/// string datasets as text, the summary, the status and the string and integer attributes.
struct ReportContent {
  std::map<std::string, std::vector<std::uint64_t>> numeric;
  std::map<std::string, std::vector<std::string>> strings;
  std::vector<std::pair<std::string, std::uint64_t>> summary;
  std::map<std::string, std::string> string_attributes;
  std::map<std::string, long long> integer_attributes;
  std::uint64_t end_time = 0;

  bool operator==(const ReportContent&) const = default;
};

ReportContent content(const fs::path& file) {
  const dctwin::io::ReportReader report(file);
  ReportContent c;
  for (const auto& info : report.datasets()) {
    try {
      c.numeric[info.path] = bits(report.read(info.path));
    } catch (const dctwin::io::ReportError&) {
      c.strings[info.path] = report.read_strings(info.path);
    }
  }
  for (const auto& f : report.summary()) c.summary.emplace_back(f.name, bits({f.value})[0]);
  c.string_attributes = report.string_attributes();
  c.integer_attributes = report.integer_attributes();
  c.end_time = bits({report.end_time()})[0];
  return c;
}

/// Compares two reports dataset by dataset, so that a failure names what differs.
void check_identical(const ReportContent& a, const ReportContent& b) {
  REQUIRE(a.numeric.size() == b.numeric.size());
  for (const auto& [path, values] : a.numeric) {
    INFO(path);
    REQUIRE(b.numeric.count(path) == 1);
    CHECK(values == b.numeric.at(path));
  }
  CHECK(a.strings == b.strings);
  CHECK(a.summary == b.summary);
  CHECK(a.string_attributes == b.string_attributes);
  CHECK(a.integer_attributes == b.integer_attributes);
  CHECK(a.end_time == b.end_time);
  CHECK(a == b);
}

}  // namespace

TEST_CASE("The same scenario run twice gives bit-identical datasets, summary and attributes", "[determinism][cli]") {
  const auto dir = scratch("twice");
  // A facility (pods, racks, plant controllers, random spread) and the single server with its
  // seeded job, each run twice into differently named reports from the same scenario file.
  for (const std::string scenario : {"pod-l2a.yaml", "single-node.yaml"}) {
    INFO(scenario);
    fs::copy_file(fs::path(DCTWIN_SOURCE_DIR) / "scenarios" / scenario, dir / scenario,
                  fs::copy_options::overwrite_existing);
    for (const std::string name : {"first.h5", "second.h5"}) {
      const Outcome o = run_dctwin({"run", scenario, "-o", name, "--duration", "60", "--quiet"}, dir);
      INFO(o.err);
      REQUIRE(o.code == 0);
    }
    const ReportContent first = content(dir / "first.h5");
    REQUIRE(first.numeric.size() > 10);
    REQUIRE(first.summary.size() > 5);
    REQUIRE(first.numeric.at("/time").size() > 2);
    check_identical(first, content(dir / "second.h5"));
  }
}

TEST_CASE("Sweep members run on one and on two threads give bit-identical reports", "[determinism][sweep][cli]") {
  const auto dir = scratch("sweep-threads");
  std::ofstream(dir / "sweep.yaml") << "name: threads\n"
                                       "base: " DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml\n"
                                       "design: grid\n"
                                       "set:\n"
                                       "  simulation.duration: 60 s\n"
                                       "  simulation.output_interval: 2 s\n"
                                       "parameters:\n"
                                       "  loop.supply_temperature: [28 degC, 36 degC]\n"
                                       "  loop.pump.speed: [0.6, 1.0]\n";
  REQUIRE(run_dctwin({"sweep", "sweep.yaml", "-o", "one", "-j", "1", "--quiet"}, dir).code == 0);
  REQUIRE(run_dctwin({"sweep", "sweep.yaml", "-o", "two", "-j", "2", "--quiet"}, dir).code == 0);
  for (const std::string id : {"0000", "0001", "0002", "0003"}) {
    INFO("member " << id);
    const ReportContent one = content(dir / "one" / "members" / (id + ".h5"));
    REQUIRE(one.numeric.size() > 10);
    check_identical(one, content(dir / "two" / "members" / (id + ".h5")));
  }
  // Different members differ (the comparison can fail).
  CHECK_FALSE(content(dir / "one" / "members" / "0000.h5").numeric ==
              content(dir / "one" / "members" / "0003.h5").numeric);
}
