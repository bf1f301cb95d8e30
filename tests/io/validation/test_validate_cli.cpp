// `dctwin validate` and `dctwin calibrate` end to end: exit codes, messages, the HDF5 layout.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/run_program.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/validation.hpp"

namespace fs = std::filesystem;
using test_support::run_dctwin;
using test_support::slurp;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "validation" / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const std::string samples = DCTWIN_SOURCE_DIR "/data/telemetry/";
const std::string scenario = DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml";

/// Dimensions of a dataset, or empty when it does not exist.
std::vector<hsize_t> dims(hid_t file, const std::string& path) {
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) <= 0) return {};
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  const hid_t s = H5Dget_space(d);
  std::vector<hsize_t> out(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)));
  H5Sget_simple_extent_dims(s, out.data(), nullptr);
  H5Sclose(s);
  H5Dclose(d);
  return out;
}

std::string string_attribute(hid_t file, const std::string& path, const char* name) {
  const hid_t d = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  const hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(a);
  std::string value;
  if (H5Tis_variable_str(type) > 0) {
    char* text = nullptr;
    const hid_t memory = H5Tcopy(H5T_C_S1);
    H5Tset_size(memory, H5T_VARIABLE);
    H5Tset_cset(memory, H5T_CSET_UTF8);
    H5Aread(a, memory, &text);
    value = text ? text : "";
    H5free_memory(text);
    H5Tclose(memory);
  } else {
    std::vector<char> buffer(H5Tget_size(type) + 1, '\0');
    H5Aread(a, type, buffer.data());
    value = buffer.data();
  }
  H5Tclose(type);
  H5Aclose(a);
  H5Oclose(d);
  return value;
}

bool has_attribute(hid_t file, const std::string& path, const char* name) {
  const hid_t d = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  const bool yes = H5Aexists(d, name) > 0;
  H5Oclose(d);
  return yes;
}

}  // namespace

TEST_CASE("dctwin validate: a sample trace gives a table and the HDF5 layout", "[validation][cli]") {
  const auto dir = scratch("ok");
  const auto o = run_dctwin({"validate", samples + "nvidia-smi.csv", "--scenario", scenario, "-o", "v.h5"}, dir);
  INFO(o.err);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("power [W]") != std::string::npos);
  CHECK(o.out.find("junction_temperature [K]") != std::string::npos);
  CHECK(o.out.find("sm_clock [Hz]") != std::string::npos);
  CHECK(o.out.find("phase shares: idle") != std::string::npos);
  CHECK(o.out.find("wrote v.h5") != std::string::npos);
  CHECK(!fs::exists(dir / "v.h5.part"));

  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t file = H5Fopen((dir / "v.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  for (const std::string q : {"power", "junction_temperature", "sm_clock"}) {
    const std::string unit = q == "power" ? "W" : q == "sm_clock" ? "Hz" : "K";
    for (const std::string m : {"mae", "rmse", "bias", "cv_rmse", "nmbe", "max_error", "lag", "count"}) {
      const std::string path = "/validation/metrics/" + q + "/" + m;
      INFO(path);
      CHECK(dims(file, path) == std::vector<hsize_t>{2});
      CHECK(has_attribute(file, path, "overall"));
      const std::string expected = m == "cv_rmse" || m == "nmbe" || m == "count" ? "1" : m == "lag" ? "s" : unit;
      CHECK(string_attribute(file, path, "units") == expected);
    }
    for (const std::string s : {"time", "measured", "simulated"}) {
      const std::string path = "/validation/series/" + q + "/" + s;
      INFO(path);
      CHECK(dims(file, path) == std::vector<hsize_t>{2, 40});
      CHECK(string_attribute(file, path, "units") == (s == "time" ? "s" : unit));
    }
  }
  CHECK(dims(file, "/validation/gpu") == std::vector<hsize_t>{2});
  CHECK(dims(file, "/validation/phases/share") == std::vector<hsize_t>{2, 5});
  CHECK(dims(file, "/validation/phases/overall_share") == std::vector<hsize_t>{5});
  CHECK(dims(file, "/validation/phases/phase") == std::vector<hsize_t>{2, 40});
  H5Fclose(file);
}

TEST_CASE("dctwin validate: a trace with more GPUs than the server", "[validation][cli]") {
  const auto dir = scratch("too_many");
  write(dir / "two.yaml",
        "name: two\nserver:\n  gpu_count: 2\nworkload:\n  job:\n    tensor_parallel: 1\n    pipeline_parallel: 1\n");
  write(dir / "three.csv",
        "timestamp, index, power.draw [W], temperature.gpu\n"
        "2025/07/26 23:32:09.000, 0, 500.00 W, 60\n"
        "2025/07/26 23:32:09.000, 1, 500.00 W, 60\n"
        "2025/07/26 23:32:09.000, 2, 500.00 W, 60\n"
        "2025/07/26 23:32:10.000, 0, 500.00 W, 60\n"
        "2025/07/26 23:32:10.000, 1, 500.00 W, 60\n"
        "2025/07/26 23:32:10.000, 2, 500.00 W, 60\n");
  const auto o = run_dctwin({"validate", "three.csv", "--scenario", "two.yaml", "-o", "v.h5"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "dctwin validate: three.csv: the trace has 3 GPUs but the scenario's server has 2 "
                 "(server.gpu_count in two.yaml)\n");
  CHECK(!fs::exists(dir / "v.h5"));
  // The same trace fits once the server has the GPUs; a GPU map sends it elsewhere.
  const auto mapped = run_dctwin({"validate", "three.csv", "--scenario", scenario, "--gpu-map", "5,6,7", "-q"}, dir);
  INFO(mapped.err);
  CHECK(mapped.code == 0);
  const auto bad_map = run_dctwin({"validate", "three.csv", "--scenario", scenario, "--gpu-map", "5,x"}, dir);
  CHECK(bad_map.code == 64);
  CHECK(bad_map.err == "dctwin validate: invalid --gpu-map '5,x' (model GPU indices separated by commas, e.g. 4,5)\n");
  const auto outside = run_dctwin({"validate", "three.csv", "--scenario", scenario, "--gpu-map", "5,6,8"}, dir);
  CHECK(outside.code == 65);
  CHECK(outside.err == "dctwin validate: the GPU map sends trace GPU 2 to model GPU 8, but the scenario's server "
                       "has 8 GPUs (0 to 7)\n");
  const auto missing = run_dctwin({"validate", "none.csv", "--scenario", scenario}, dir);
  CHECK(missing.code == 66);
}

TEST_CASE("dctwin calibrate: writes a fragment the scenario loader accepts", "[validation][cli]") {
  const auto dir = scratch("calibrate");
  const auto o = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", scenario, "--fit-supply-temperature",
                             "-o", "calibrated.yaml"},
                            dir);
  INFO(o.err);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("server.gpu.junction_to_base_resistance") != std::string::npos);
  CHECK(o.out.find("wrote calibrated.yaml") != std::string::npos);
  const std::string fragment = slurp(dir / "calibrated.yaml");
  CHECK(fragment.find("junction_to_base_resistance:") != std::string::npos);
  CHECK(fragment.find("supply_temperature:") != std::string::npos);
  const std::string merged = dctwin::io::merge_scenario_fragment(slurp(scenario), fragment);
  write(dir / "merged.yaml", merged);
  const auto check = run_dctwin({"check", "merged.yaml"}, dir);
  INFO(check.err);
  CHECK(check.code == 0);
}

TEST_CASE("dctwin calibrate: a line break in a file name stays inside the fragment's comment",
          "[validation][cli][messages]") {
  const auto dir = scratch("calibrate-names");
  fs::copy_file(samples + "nvidia-smi.csv", dir / "trace\nserver: {gpu_count: 1}\n.csv");
  const auto o = run_dctwin({"calibrate", "trace\nserver: {gpu_count: 1}\n.csv", "--scenario", scenario, "-o",
                             "calibrated.yaml", "-q"},
                            dir);
  INFO(o.err);
  REQUIRE(o.code == 0);
  const std::string fragment = slurp(dir / "calibrated.yaml");
  CHECK(fragment.find("from trace\\nserver: {gpu_count: 1}\\n.csv against") != std::string::npos);
  // The name's text is no key of the fragment: the merged scenario keeps its eight GPUs.
  CHECK(fragment.find("\nserver: {gpu_count") == std::string::npos);
}
