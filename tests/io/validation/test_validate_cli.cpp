// `dctwin validate` and `dctwin calibrate` end to end: exit codes, messages, the HDF5 layout.
#include <hdf5.h>

#include <catch2/catch.hpp>
#include <cmath>
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

namespace {

const std::string air_scenario = DCTWIN_SOURCE_DIR "/scenarios/servers/hgx-h100-air.yaml";

double double_attribute(hid_t file, const std::string& path, const char* name) {
  const hid_t d = H5Oopen(file, path.c_str(), H5P_DEFAULT);
  const hid_t a = H5Aopen(d, name, H5P_DEFAULT);
  double value = 0.0;
  H5Aread(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Oclose(d);
  return value;
}

std::vector<double> doubles(hid_t file, const std::string& path) {
  const auto n = dims(file, path);
  if (n.empty()) return {};
  std::vector<double> out(n[0]);
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Dclose(d);
  return out;
}

/// `text` with the first occurrence of `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("dctwin calibrate: writes HDF5 metrics and marks parameters on their bounds", "[validation][cli]") {
  const auto dir = scratch("calibrate-metrics");
  const auto o = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", scenario, "--fit-supply-temperature",
                             "-o", "calibrated.yaml"},
                            dir);
  INFO(o.out << o.err);
  REQUIRE(o.code == 0);
  CHECK(o.out.find("wrote calibrated.yaml and calibrated.h5") != std::string::npos);
  // The base capacitance ends on its lower bound (a fifth of its start, docs/validation.md).
  CHECK(o.out.find("note: warning: server.gpu.base_capacitance ended at its lower bound 30 J/K") != std::string::npos);
  const hid_t file = H5Fopen((dir / "calibrated.h5").string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  CHECK(dims(file, "/validation/metrics/junction_temperature/mae") == std::vector<hsize_t>{2});
  CHECK(dims(file, "/calibration/training/metrics/junction_temperature/mae") == std::vector<hsize_t>{2});
  const auto at_bound = doubles(file, "/calibration/at_bound");
  const auto value = doubles(file, "/calibration/value");
  // R_jb, C_j, C_b, the supply; then the power levels the sample identifies (P_dyn,max, the stall
  // activity from the stall's readings, and k_leak; no idle sample for P_static).
  REQUIRE(at_bound.size() == 7);
  CHECK(at_bound[2] == 1.0);  // base_capacitance
  CHECK(value[2] == Approx(30.0));
  CHECK(at_bound[5] == 0.0);  // stall_activity
  CHECK(at_bound[6] == 1.0);  // leakage_temperature_coefficient
  CHECK(value[6] == Approx(0.004));
  CHECK(at_bound[0] == 0.0);
  CHECK(double_attribute(file, "/calibration", "split_time") == Approx(0.7 * 39.0).margin(1.0));
  H5Fclose(file);
}

TEST_CASE("dctwin calibrate: the merged scenario runs with dctwin run", "[validation][cli]") {
  const auto dir = scratch("calibrate-run");
  const auto o = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", scenario, "-o", "fit.yaml",
                             "--metrics", "fit-metrics.h5", "--merged", "calibrated-scenario.yaml", "-q"},
                            dir);
  INFO(o.err);
  REQUIRE(o.code == 0);
  CHECK(fs::exists(dir / "fit-metrics.h5"));
  const auto run = run_dctwin({"run", "calibrated-scenario.yaml", "--duration", "5 s", "-o", "run.h5", "-q"}, dir);
  INFO(run.err);
  CHECK(run.code == 0);
  // The library's merge of the fragment gives the same scenario.
  write(dir / "merged.yaml", dctwin::io::merge_scenario_fragment(slurp(scenario), slurp(dir / "fit.yaml")));
  const auto check = run_dctwin({"check", "merged.yaml"}, dir);
  INFO(check.err);
  CHECK(check.code == 0);
  const auto same = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", scenario, "-o", "x.yaml",
                                "--merged", "x.yaml"},
                               dir);
  CHECK(same.code == 64);
  CHECK(same.err == "dctwin calibrate: --merged names the fragment or the metrics file (x.yaml)\n");
}

TEST_CASE("dctwin validate: the air-cooled preset replays a trace with its slot spread", "[validation][cli][air]") {
  const auto dir = scratch("air");
  // Trace GPU 1 on a front slot, then on a rear slot (phi = 0.45): the same power, and the rear
  // replay runs hotter by the position share of the server's air rise.
  auto bias_of_gpu1 = [&](const std::string& map, const std::string& out, double* air_rise) {
    const auto o = run_dctwin({"validate", samples + "nvidia-smi.csv", "--scenario", air_scenario, "--gpu-map", map,
                               "-o", out, "-q"},
                              dir);
    INFO(o.err);
    REQUIRE(o.code == 0);
    const hid_t file = H5Fopen((dir / out).string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    const auto bias = doubles(file, "/validation/metrics/junction_temperature/bias");
    // Mean server heat over the samples: both traced GPUs, six at the static 55 W, 1.5 kW of other
    // parts and the fans at 0.8 (1500 W x 0.8^3); air at 25 degC through V_s at speed 0.8.
    const auto n = dims(file, "/validation/series/power/measured");
    std::vector<double> power(n[0] * n[1]);
    const hid_t d = H5Dopen2(file, "/validation/series/power/measured", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, power.data());
    H5Dclose(d);
    H5Fclose(file);
    double total = 0.0;
    for (const double p : power) total += p;
    const double heat = total / static_cast<double>(n[1]) + 6 * 55.0 + 1500.0 + 1500.0 * 0.512;
    const double flow = 0.8 * std::sqrt(1200.0 / (750.0 / 0.25 + 1200.0 / 0.64));
    const double rho_cp = 101325.0 / (287.042 * 298.15) * 1006.0;
    *air_rise = heat / (rho_cp * flow);
    REQUIRE(bias.size() == 2);
    return bias[1];
  };
  double rise = 0.0;
  const double front = bias_of_gpu1("0,1", "front.h5", &rise);
  const double rear = bias_of_gpu1("0,4", "rear.h5", &rise);
  INFO("air rise " << rise << " K");
  // 0.45 of the rise, amplified a little by the leakage's feedback (50 W at 60 degC, +2 %/K).
  CHECK(rear - front >= 0.45 * rise * 0.95);
  CHECK(rear - front <= 0.45 * rise * 1.25);
  // The air-cooled server is not what dctwin run simulates.
  const auto run = run_dctwin({"run", air_scenario, "--duration", "5 s", "-o", "r.h5"}, dir);
  CHECK(run.code == 65);
  CHECK(run.err.find("server.cooling = air: the air-cooled server is replayed against telemetry by dctwin validate") !=
        std::string::npos);
  // Its slots are fitted per GPU; there is no coolant supply to fit.
  const auto supply = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", air_scenario,
                                  "--fit-supply-temperature", "-o", "c.yaml"},
                                 dir);
  CHECK(supply.code == 65);
  CHECK(supply.err.find("dctwin calibrate: --fit-supply-temperature: the air-cooled server (server.cooling: air in") ==
        0);
}

TEST_CASE("dctwin validate: a replay that runs away fails instead of reporting", "[validation][cli][safety]") {
  const auto dir = scratch("runaway");
  // Leakage of 300 W at 20 degC growing 10 %/K has no fixed point (L k R > 1 from the inlet
  // temperature on): from the inlet temperature the junction runs away (the package holds its
  // exponent, so the values can stay finite but absurd).
  std::string text = slurp(air_scenario);
  text = replaced(text, "leakage_power_at_reference: 50 W", "leakage_power_at_reference: 300 W");
  text = replaced(text, "leakage_reference_temperature: 60 degC", "leakage_reference_temperature: 20 degC");
  text = replaced(text, "leakage_temperature_coefficient: 0.02 1/K", "leakage_temperature_coefficient: 0.1 1/K");
  write(dir / "runaway-air.yaml", text);
  const auto air = run_dctwin({"validate", samples + "nvidia-smi.csv", "--scenario", "runaway-air.yaml",
                               "--initial-state", "supply_temperature", "-o", "v.h5"},
                              dir);
  CHECK(air.code == 3);
  CHECK(air.err.find("dctwin validate: the replay is not physical: the junction temperature of model GPU 0 (trace "
                     "GPU ") == 0);
  CHECK(air.err.find("make the model run away\n") != std::string::npos);
  CHECK(!fs::exists(dir / "v.h5"));
  // From a steady state that does not exist: the same exit code.
  const auto steady = run_dctwin({"validate", samples + "nvidia-smi.csv", "--scenario", "runaway-air.yaml", "-o",
                                  "v.h5"},
                                 dir);
  CHECK(steady.code == 3);
  CHECK(steady.err.find("dctwin validate: the replay's initial steady state failed: air-cooled steady state failed: "
                        "GPU 0: leakage runaway, no fixed point at ") == 0);
  // The cold-plate server the same way.
  std::string plate = slurp(scenario);
  plate = replaced(plate, "leakage_power_at_reference: 50 W", "leakage_power_at_reference: 300 W");
  plate = replaced(plate, "leakage_reference_temperature: 60 degC", "leakage_reference_temperature: 20 degC");
  plate = replaced(plate, "leakage_temperature_coefficient: 0.02 1/K", "leakage_temperature_coefficient: 0.1 1/K");
  write(dir / "runaway-plate.yaml", plate);
  const auto cold = run_dctwin({"validate", samples + "nvidia-smi.csv", "--scenario", "runaway-plate.yaml",
                                "--initial-state", "supply_temperature", "-o", "v.h5"},
                               dir);
  INFO(cold.err);
  CHECK(cold.code == 3);
  // CVODE gives up where the junction leaves every bound; the state it stopped at names it.
  CHECK(cold.err.find("dctwin validate: the replay is not physical: the junction temperature of model GPU ") == 0);
  CHECK(cold.err.find("make the model run away\n") != std::string::npos);
  CHECK(!fs::exists(dir / "v.h5"));
}

TEST_CASE("dctwin calibrate: a scenario that runs away fails before fitting, and writes nothing",
          "[validation][cli][safety]") {
  // The runaway leakage above: no fit parameter (resistances, capacitances, power levels) can
  // bring it back, so calibrate stops at its first replay with the replay's message and exit 3.
  const auto dir = scratch("calibrate-runaway");
  auto runaway = [](std::string text) {
    text = replaced(text, "leakage_power_at_reference: 50 W", "leakage_power_at_reference: 300 W");
    text = replaced(text, "leakage_reference_temperature: 60 degC", "leakage_reference_temperature: 20 degC");
    return replaced(text, "leakage_temperature_coefficient: 0.02 1/K", "leakage_temperature_coefficient: 0.1 1/K");
  };
  write(dir / "runaway-plate.yaml", runaway(slurp(scenario)));
  write(dir / "runaway-air.yaml", runaway(slurp(air_scenario)));
  struct Case {
    const char* scenario;
    const char* initial_state;
    const char* message;
  };
  const Case cases[] = {
      {"runaway-plate.yaml", "steady_state",
       "dctwin calibrate: the replay's initial steady state failed: solve_steady_state failed: no convergence in 200 "
       "iterations; largest residual at gpus.junction_temperature["},
      {"runaway-plate.yaml", "supply_temperature",
       "dctwin calibrate: the replay is not physical: the junction temperature of model GPU "},
      {"runaway-air.yaml", "steady_state",
       "dctwin calibrate: the replay's initial steady state failed: air-cooled steady state failed: GPU 0: leakage "
       "runaway, no fixed point at "},
      {"runaway-air.yaml", "supply_temperature",
       "dctwin calibrate: the replay is not physical: the junction temperature of model GPU 0 (trace GPU "},
  };
  for (const auto& c : cases) {
    const auto out = run_dctwin({"calibrate", samples + "nvidia-smi.csv", "--scenario", c.scenario, "--initial-state",
                                 c.initial_state, "-o", "fit.yaml"},
                                dir);
    INFO(c.scenario << " from " << c.initial_state << ": " << out.err);
    CHECK(out.code == 3);
    CHECK(out.err.find(c.message) == 0);
    CHECK(!fs::exists(dir / "fit.yaml"));
  }
}
