// Report storage chosen by the scenario's `output` section: series left out, float32, values
// rounded to a resolution, the rules' errors, and the size estimate.
#include <catch2/catch.hpp>
#include <hdf5.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "scratch.hpp"
#include "dctwin/io/report_storage.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/site.hpp"

namespace fs = std::filesystem;
using test_support::report_scratch_dir;
namespace io = dctwin::io;
using dctwin::core::EntityTable;
using dctwin::core::OutputSpec;

namespace {

constexpr std::size_t gpus = 3;

/// Values: [0] facility/it_power W, [1] coolant/supply_temperature K, [2..4] gpu/junction_temperature
/// K, [5..7] gpu/power W, [8] job/phase (categorical); fine series grid/power W, grid/frequency Hz.
io::ReportLayout storage_layout() {
  io::ReportLayout layout;
  layout.outputs = {
      {OutputSpec{"facility", "it_power", "W", "IT power", "", 1}, 0},
      {OutputSpec{"coolant", "supply_temperature", "K", "supply temperature", "", 1}, 1},
      {OutputSpec{"gpu", "junction_temperature", "K", "junction temperature", "gpu", gpus}, 2},
      {OutputSpec{"gpu", "power", "W", "GPU power", "gpu", gpus}, 2 + gpus},
      {OutputSpec{"job", "phase", "1", "phase", "", 1}, 2 + 2 * gpus,
       io::SeriesFlags{io::SeriesFlags::Kind::enumeration, {0, 1, 2}, {"idle", "compute", "down"}}},
  };
  layout.entities = {EntityTable{"gpu", {"gpu0", "gpu1", "gpu2"}}};
  layout.fine_series.push_back({"grid",
                                "time of the grid samples",
                                {OutputSpec{"grid", "power", "W", "grid power", "", 1},
                                 OutputSpec{"grid", "frequency", "Hz", "grid frequency", "", 1}}});
  return layout;
}

/// A scenario whose only interesting part is its `output` section (written below `name`).
io::ScenarioDocument scenario_with(const std::string& output_section) {
  return io::parse_scenario("name: storage\n" + output_section, "run.yaml",
                            dctwin::models::facility::scenario_schema());
}

std::string apply_error(const std::string& output_section) {
  io::ReportLayout layout = storage_layout();
  try {
    io::apply_output_section(scenario_with(output_section), layout);
  } catch (const dctwin::core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

/// The HDF5 class and size of a dataset's stored type, e.g. {H5T_FLOAT, 4}; {-1, 0} if absent.
std::pair<int, std::size_t> stored_type(const fs::path& file, const std::string& path) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  std::pair<int, std::size_t> result{-1, 0};
  if (H5Lexists(f, path.c_str(), H5P_DEFAULT) > 0) {
    const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    const hid_t t = H5Dget_type(d);
    result = {static_cast<int>(H5Tget_class(t)), H5Tget_size(t)};
    H5Tclose(t);
    H5Dclose(d);
  }
  H5Fclose(f);
  return result;
}

double double_attribute(const fs::path& file, const std::string& path, const std::string& name) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  double value = std::nan("");
  const hid_t a = H5Aopen_by_name(f, path.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0) {
    H5Aread(a, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(a);
  }
  H5Fclose(f);
  return value;
}

}  // namespace

TEST_CASE("quantization steps are the largest power of two at most the resolution", "[report][storage]") {
  CHECK(io::quantization_step_for(0.01) == std::ldexp(1.0, -7));
  CHECK(io::quantization_step_for(1.0) == 1.0);
  CHECK(io::quantization_step_for(1.5) == 1.0);
  CHECK(io::quantization_step_for(0.75) == 0.5);
  CHECK(io::quantization_step_for(1000.0) == 512.0);
  CHECK(io::quantization_step_for(1e-300) == std::ldexp(1.0, -997));
  CHECK(io::quantize(300.123, 0.0078125) == 300.125);
  CHECK(io::quantize(-300.123, 0.0078125) == -300.125);
  CHECK(io::quantize(0.5, 1.0) == 1.0);  // ties away from zero
  CHECK(io::quantize(1e300, 1.0) == 1e300);
  CHECK(std::isnan(io::quantize(std::nan(""), 1.0)));
  CHECK(std::isinf(io::quantize(HUGE_VAL, 1.0)));
  // Over many values: within half a step, and a multiple of it.
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  std::size_t outside = 0, not_multiple = 0;
  for (int k = 0; k < 100000; ++k) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    const double value = (static_cast<double>(state >> 11) * 0x1p-53 - 0.5) * 2e6;
    for (double resolution : {0.01, 0.1, 1.0, 37.0}) {
      const double step = io::quantization_step_for(resolution);
      const double q = io::quantize(value, step);
      outside += std::abs(q - value) > step / 2;
      not_multiple += std::fmod(q, step) != 0.0;
    }
  }
  CHECK(outside == 0);
  CHECK(not_multiple == 0);
}

TEST_CASE("the output section leaves series out, stores float32 and rounds to a resolution", "[report][storage]") {
  io::ReportLayout layout = storage_layout();
  const io::ScenarioDocument document = scenario_with(
      "output:\n"
      "  float_type: float32\n"
      "  variables:\n"
      "    - match: /gpu/power\n"
      "      write: false\n"
      "    - match: '*'\n"
      "      units: K\n"
      "      resolution: 0.01 degC\n"
      "      float_type: float64\n"
      "    - match: grid/power\n"
      "      resolution: 1 kW\n"
      "    - match: job/*\n"
      "      resolution: 0.5\n");
  io::apply_output_section(document, layout);
  const auto& it_power = layout.outputs[0].storage;
  const auto& supply = layout.outputs[1].storage;
  const auto& junction = layout.outputs[2].storage;
  const auto& gpu_power = layout.outputs[3].storage;
  const auto& phase = layout.outputs[4].storage;
  CHECK((it_power.written && it_power.float32 && it_power.resolution == 0.0));
  CHECK((supply.written && !supply.float32));
  CHECK(supply.resolution == Approx(0.01).epsilon(1e-12));  // a difference of 0.01 degC, not 273.16 K
  CHECK(supply.quantization_step == std::ldexp(1.0, -7));
  CHECK(supply.resolution_as_written == "0.01 degC");
  CHECK(junction.quantization_step == std::ldexp(1.0, -7));
  CHECK_FALSE(gpu_power.written);
  CHECK((phase.written && !phase.float32 && phase.quantization_step == 0.0));  // categorical: exact
  REQUIRE(layout.fine_series[0].storage.size() == 2);
  CHECK(layout.fine_series[0].storage[0].quantization_step == 512.0);
  CHECK(layout.fine_series[0].storage[0].float32);
  CHECK((layout.fine_series[0].storage[1].float32 && layout.fine_series[0].storage[1].resolution == 0.0));

  // Without the section: everything float64 at full precision.
  io::ReportLayout plain = storage_layout();
  io::apply_output_section(scenario_with(""), plain);
  for (const auto& output : plain.outputs)
    CHECK((output.storage.written && !output.storage.float32 && output.storage.quantization_step == 0.0));
}

TEST_CASE("the output section's rules are checked with their place in the file", "[report][storage]") {
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/hbm_temperature\n") ==
        "run.yaml:4:14: output.variables[0].match = 'gpu/hbm_temperature' matches no series of this site "
        "(`dctwin info REPORT` lists a report's series)");
  CHECK(apply_error("output:\n  variables:\n    - match: '*'\n      units: Pa\n") ==
        "run.yaml:4:14: output.variables[0].match = '*' matches no series of this site in units convertible to Pa "
        "(`dctwin info REPORT` lists a report's series)");
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/*\n      resolution: 0.01 K\n") ==
        "run.yaml:5:19: output.variables[0].resolution = 0.01 K does not fit /gpu/power (units W), which 'gpu/*' "
        "matches (give the rule units: K, or a narrower match)");
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/power\n      resolution: -1 W\n") ==
        "run.yaml:5:19: output.variables[0].resolution = -1 W (must be > 0)");
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/power\n      resolution: fine\n") ==
        "run.yaml:5:19: output.variables[0].resolution = fine ('fine' is not a number)");
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/power\n      resolution: 1 watts_x\n") ==
        "run.yaml:5:19: output.variables[0].resolution = 1 watts_x (unknown unit 'watts_x')");
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/power\n      units: furlongs_x\n") ==
        "run.yaml:5:14: output.variables[0].units = furlongs_x (unknown unit)");
  CHECK(apply_error("output:\n  variables:\n    - match: ''\n") ==
        "run.yaml:4:14: output.variables[0].match = '' (must name series: a path or a glob such as 'gpu/*')");
  // A rule that leaves series out needs no fitting resolution; a later rule never sees them.
  CHECK(apply_error("output:\n  variables:\n    - match: gpu/*\n      write: false\n      resolution: 1 K\n") ==
        "(no error)");
}

TEST_CASE("a report with rules holds float32 and rounded series within their resolution", "[report][storage]") {
  const fs::path path = report_scratch_dir("storage") / "run.h5";
  io::ReportLayout layout = storage_layout();
  io::apply_output_section(scenario_with("output:\n"
                                         "  variables:\n"
                                         "    - match: gpu/power\n"
                                         "      write: false\n"
                                         "    - match: '*temperature'\n"
                                         "      resolution: 0.01 K\n"
                                         "      float_type: float32\n"
                                         "    - match: facility/it_power\n"
                                         "      resolution: 1 W\n"
                                         "    - match: grid/frequency\n"
                                         "      write: false\n"),
                           layout);
  const std::size_t samples = 5000;  // more than one chunk of every series
  std::vector<std::vector<double>> rows;
  {
    io::ReportWriter writer(path, layout);
    for (std::size_t k = 0; k < samples; ++k) {
      const double t = static_cast<double>(k);
      std::vector<double> row = {1.2345678e6 + 1000.0 * std::sin(0.01 * t), 300.0 + 5.0 * std::sin(0.003 * t)};
      for (std::size_t g = 0; g < gpus; ++g) row.push_back(330.0 + static_cast<double>(g) + std::cos(0.02 * t + static_cast<double>(g)));
      for (std::size_t g = 0; g < gpus; ++g) row.push_back(700.0 * std::abs(std::sin(0.05 * t)));
      row.push_back(static_cast<double>(k % 3));
      writer.append_sample(t, row);
      const std::array<double, 2> grid = {4.0e6 + t, 60.0};
      writer.append_fine_sample(0, t, grid);
      rows.push_back(std::move(row));
    }
    writer.finish({{dctwin::solver::StopReason::finished, static_cast<double>(samples - 1), "", ""}, {}, 0.0}, {});
  }
  CHECK(stored_type(path, "/gpu/power").first == -1);
  CHECK(stored_type(path, "/grid/frequency").first == -1);
  CHECK(stored_type(path, "/gpu/junction_temperature") == std::pair<int, std::size_t>{H5T_FLOAT, 4});
  CHECK(stored_type(path, "/coolant/supply_temperature") == std::pair<int, std::size_t>{H5T_FLOAT, 4});
  CHECK(stored_type(path, "/facility/it_power") == std::pair<int, std::size_t>{H5T_FLOAT, 8});
  CHECK(stored_type(path, "/grid/power") == std::pair<int, std::size_t>{H5T_FLOAT, 8});
  CHECK(stored_type(path, "/job/phase") == std::pair<int, std::size_t>{H5T_INTEGER, 4});
  CHECK(double_attribute(path, "/gpu/junction_temperature", "resolution") == Approx(0.01).epsilon(1e-12));
  CHECK(double_attribute(path, "/gpu/junction_temperature", "quantization_step") == 0.0078125);
  CHECK(double_attribute(path, "/facility/it_power", "quantization_step") == 1.0);
  CHECK(std::isnan(double_attribute(path, "/grid/power", "resolution")));

  const io::ReportReader reader(path);
  const auto junction = reader.read("/gpu/junction_temperature");
  const auto supply = reader.read("/coolant/supply_temperature");
  const auto it_power = reader.read("/facility/it_power");
  const auto phase = reader.read("/job/phase");
  REQUIRE(junction.size() == samples * gpus);
  REQUIRE(it_power.size() == samples);
  std::size_t outside = 0;
  for (std::size_t k = 0; k < samples; ++k) {
    // float32 of a multiple of 2^-7 near 330 K is exact (24 bits hold 2^9 / 2^-7 = 2^16 steps).
    for (std::size_t g = 0; g < gpus; ++g) outside += std::abs(junction[k * gpus + g] - rows[k][2 + g]) > 0.0078125 / 2;
    outside += std::abs(supply[k] - rows[k][1]) > 0.0078125 / 2;
    outside += std::abs(it_power[k] - rows[k][0]) > 0.5;
    outside += phase[k] != rows[k][2 + 2 * gpus];
    outside += std::fmod(it_power[k], 1.0) != 0.0;
  }
  CHECK(outside == 0);
  CHECK(reader.read("/grid/power").size() == samples);
}

TEST_CASE("the size estimate counts the series written at their stored size", "[report][storage]") {
  io::ReportLayout layout = storage_layout();
  const io::ReportSizeEstimate full = io::estimate_report_size(layout, 1000.0, {2000.0});
  // 1000 rows x (time + 1 + 1 + 3 + 3 float64 + 1 uint32), 2000 rows x (time + 2), the labels
  // twice (/index/gpu and /gpu/gpu), 16 bytes each beyond their text.
  const double labels = 2.0 * 3.0 * (4.0 + 16.0);
  CHECK(full.uncompressed_bytes == 1000.0 * (8.0 * 9.0 + 4.0) + 2000.0 * 8.0 * 3.0 + labels);
  CHECK(full.series_written == 7);
  CHECK(full.series_left_out == 0);
  CHECK(full.expected_bytes < full.uncompressed_bytes);
  io::apply_output_section(scenario_with("output:\n  float_type: float32\n  variables:\n"
                                         "    - match: gpu/*\n      write: false\n"
                                         "    - match: grid/*\n      write: false\n"),
                           layout);
  const io::ReportSizeEstimate small = io::estimate_report_size(layout, 1000.0, {2000.0});
  // The gpu labels are left in /index only; the grid group and its time axis go.
  CHECK(small.uncompressed_bytes == 1000.0 * (8.0 + 4.0 * 2.0 + 4.0) + 3.0 * (4.0 + 16.0));
  CHECK(small.series_written == 3);
  CHECK(small.series_left_out == 4);
  CHECK(io::describe(small).find("3 series (4 left out)") != std::string::npos);
}
