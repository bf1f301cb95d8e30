// Sweep files: designs and their member sets, member scenarios, and every kind of error message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/sweep.hpp"
#include "dctwin/models/facility/site.hpp"

namespace io = dctwin::io;

namespace {

// A small single-node scenario; the line numbers matter to the messages below.
constexpr const char* base_text =
    "name: base\n"                      // 1
    "simulation:\n"                     // 2
    "  duration: 60 s\n"                // 3
    "  output_interval: 1 s\n"          // 4
    "server:\n"                         // 5
    "  gpu_count: 4\n"                  // 6
    "  gpus:\n"                         // 7
    "    - {}\n"                        // 8
    "    - {}\n"                        // 9
    "    - {}\n"                        // 10
    "    - {power_scale: 1.04}\n"       // 11
    "loop:\n"                           // 12
    "  supply_temperature: 32 degC\n"   // 13
    "  pump:\n"                         // 14
    "    speed: 1\n"                    // 15
    "workload:\n"                       // 16
    "  job: {model_parameters: 8e9, tensor_parallel: 1, pipeline_parallel: 1}\n";

const dctwin::core::SectionSchema& schema() {
  static const auto s = dctwin::models::facility::scenario_schema();
  return s;
}

io::SweepPlan plan_of(const std::string& sweep, const std::string& base = base_text) {
  return io::parse_sweep(sweep, "sweep.yaml", schema(), io::SweepBase{base, "base.yaml"});
}

std::string error_of(const std::string& sweep, const std::string& base = base_text) {
  try {
    (void)plan_of(sweep, base);
  } catch (const io::SweepError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "no error";
}

const std::string head = "name: t\nbase: base.yaml\n";  // lines 1-2

io::ScenarioDocument member_document(const io::SweepPlan& plan, std::size_t i) {
  return io::load_sweep_member(plan, i, schema());
}

double number_at(const io::ScenarioDocument& d, const std::string& section, const std::string& name) {
  return d.tree.section(section).number(name);
}

/// The member's error as `dctwin sweep` reports it (checker and site).
std::string member_error(const io::SweepPlan& plan, std::size_t i) {
  io::ScenarioDocument document;
  try {
    document = io::load_sweep_member(plan, i, schema());
  } catch (const dctwin::core::InputError& e) {
    return e.what();
  }
  try {
    (void)io::check_site(document);
  } catch (const dctwin::core::InputError& e) {
    return io::describe_member_error(plan, i, e);
  }
  return "no error";
}

}  // namespace

TEST_CASE("A grid is every combination, the first parameter slowest", "[sweep][design]") {
  const auto plan = plan_of(head +
                            "design: grid\n"                                          // 3
                            "parameters:\n"                                           // 4
                            "  loop.supply_temperature: [30 degC, 35 degC, 40 degC]\n"  // 5
                            "  loop.pump.speed: [0.5, 1]\n");                         // 6
  REQUIRE(plan.members.size() == 6);
  CHECK(plan.design == io::SweepDesign::grid);
  CHECK(plan.design_text() == "grid 3 x 2");
  const std::vector<std::string> temperatures = {"30 degC", "30 degC", "35 degC", "35 degC", "40 degC", "40 degC"};
  const std::vector<std::string> speeds = {"0.5", "1", "0.5", "1", "0.5", "1"};
  for (std::size_t i = 0; i < 6; ++i) {
    const auto& m = plan.members[i];
    CHECK(m.id == "000" + std::to_string(i));
    CHECK(m.written[0] == temperatures[i]);
    CHECK(m.written[1] == speeds[i]);
    CHECK(m.si[1] == std::stod(speeds[i]));
    CHECK(m.si[0] == Approx(273.15 + 30.0 + 5.0 * static_cast<double>(i / 2)).epsilon(1e-12));
    const auto document = member_document(plan, i);
    CHECK(number_at(document, "loop", "supply_temperature") == m.si[0]);
    CHECK(document.tree.section("loop").section("pump").number("speed") == m.si[1]);
    CHECK(document.tree.section("server").integer("gpu_count") == 4);  // the base is kept
    CHECK(document.tree.section("server").list("gpus")[3].number("power_scale") == 1.04);
  }
  // Where each value was written: line 5 column 29 is "30 degC", column 38 "35 degC".
  CHECK(plan.members[0].where[0].line == 5);
  CHECK(plan.members[0].where[0].column == 29);
  CHECK(plan.members[2].where[0].column == 38);
  CHECK(plan.members[1].where[1].line == 6);
  CHECK(plan.members[1].where[1].column == 26);
}

TEST_CASE("Member scenarios: a header naming the member, then the base with the values set", "[sweep]") {
  const auto plan = plan_of(head +
                            "design: list\n"
                            "set:\n"
                            "  simulation.duration: 30 s\n"
                            "  workload.gpu_power.static_power: 500 W\n"
                            "parameters:\n"
                            "  server.gpus[1].power_scale: [1.1, 1.2]\n"
                            "  server.gpus[3].power_scale: [0.9, 0.95]\n");
  REQUIRE(plan.members.size() == 2);
  CHECK(plan.design_text() == "list of 2");
  const std::string text = io::member_scenario_text(plan, 1);
  CHECK(text.rfind("# dctwin sweep 't', member 0001 (2 of 2)\n"
                   "#   server.gpus[1].power_scale = 1.2\n"
                   "#   server.gpus[3].power_scale = 0.95\n"
                   "name: base\n",
                   0) == 0);
  const auto document = member_document(plan, 1);
  const auto& gpus = document.tree.section("server").list("gpus");
  REQUIRE(gpus.size() == 4);
  CHECK(gpus[0].number("power_scale") == 1.0);
  CHECK(gpus[1].number("power_scale") == 1.2);
  CHECK(gpus[3].number("power_scale") == 0.95);
  CHECK(number_at(document, "simulation", "duration") == 30.0);
  CHECK(document.tree.section("workload").section("gpu_power").number("static_power") == 500.0);
  CHECK(io::member_label(plan, 1) == "base.yaml [sweep member 0001]");
  // The same plan gives the same text (resume relies on it).
  CHECK(io::member_scenario_text(plan_of(plan.source_text), 1) == text);
}

TEST_CASE("Evenly spaced values include both ends", "[sweep][design]") {
  const auto plan = plan_of(head +
                            "design: grid\n"
                            "parameters:\n"
                            "  loop.supply_temperature: {min: 25 degC, max: 40 degC, count: 4}\n");
  REQUIRE(plan.members.size() == 4);
  CHECK(plan.members.front().si[0] == Approx(298.15).epsilon(1e-14));
  CHECK(plan.members.back().si[0] == Approx(313.15).epsilon(1e-14));
  CHECK(plan.members[1].si[0] == Approx(303.15).epsilon(1e-14));
  CHECK(plan.members[1].shown[0] == "30 degC");
  // Written as exact SI values, read back to the same double.
  for (std::size_t i = 0; i < 4; ++i)
    CHECK(number_at(member_document(plan, i), "loop", "supply_temperature") == plan.members[i].si[0]);
}

TEST_CASE("Latin hypercube: one sample per stratum per dimension, reproducible from the seed", "[sweep][design]") {
  const std::string text = head +
                           "design: {type: latin_hypercube, samples: 16, seed: 7}\n"
                           "parameters:\n"
                           "  loop.supply_temperature: {min: 25 degC, max: 45 degC}\n"
                           "  loop.pump.speed: {min: 0.3, max: 1.2}\n"
                           "  workload.gpu_power.static_power: {min: 400 W, max: 700 W}\n";
  const auto plan = plan_of(text);
  REQUIRE(plan.members.size() == 16);
  CHECK(plan.design_text() == "latin_hypercube, 16 samples, seed 7");
  const double low[] = {298.15, 0.3, 400.0};
  const double high[] = {318.15, 1.2, 700.0};
  for (std::size_t p = 0; p < 3; ++p) {
    std::set<long> strata;
    for (const auto& m : plan.members) {
      const double t = (m.si[p] - low[p]) / (high[p] - low[p]);
      CHECK(t > 0.0);
      CHECK(t < 1.0);
      strata.insert(static_cast<long>(std::floor(t * 16.0)));
    }
    CHECK(strata.size() == 16);
    CHECK(*strata.begin() == 0);
    CHECK(*strata.rbegin() == 15);
  }
  // The same seed gives the same members; another seed other members.
  const auto again = plan_of(text);
  const auto other = plan_of(text.substr(0, text.find("seed: 7")) + "seed: 8" + text.substr(text.find("seed: 7") + 7));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    CHECK(again.members[i].si == plan.members[i].si);
    CHECK(again.members[i].written == plan.members[i].written);
    if (other.members[i].si != plan.members[i].si) ++differ;
  }
  CHECK(differ > 8);
  // Values go into the members exactly.
  const auto document = member_document(plan, 5);
  CHECK(document.tree.section("loop").section("pump").number("speed") == plan.members[5].si[1]);
}

TEST_CASE("Monte Carlo: uniform and normal draws, seeded, a larger ensemble extends a smaller one", "[sweep][design]") {
  const auto text = [](int samples) {
    return head + "design: {type: monte_carlo, samples: " + std::to_string(samples) +
           ", seed: 3}\n"
           "parameters:\n"
           "  loop.supply_temperature: {min: 30 degC, max: 34 degC}\n"
           "  workload.gpu_power.static_power: {distribution: normal, mean: 500 W, std: 20 W}\n"
           "  loop.coolant.specific_heat: {distribution: normal, mean: 3979 J/(kg K), std: 0.01 kJ/(kg K)}\n";
  };
  const auto plan = plan_of(text(4000));
  REQUIRE(plan.members.size() == 4000);
  double sum = 0.0, squares = 0.0, low = 1e9, high = 0.0, sum_cp = 0.0;
  for (const auto& m : plan.members) {
    low = std::min(low, m.si[0]);
    high = std::max(high, m.si[0]);
    sum += m.si[1];
    squares += m.si[1] * m.si[1];
    sum_cp += m.si[2];
  }
  CHECK(low >= 303.15);
  CHECK(high < 307.15);
  CHECK(high - low > 3.9);
  const double mean = sum / 4000.0;
  const double std = std::sqrt(squares / 4000.0 - mean * mean);
  CHECK(mean == Approx(500.0).margin(4.0 * 20.0 / std::sqrt(4000.0)));
  CHECK(std == Approx(20.0).epsilon(0.06));
  CHECK(sum_cp / 4000.0 == Approx(3979.0).margin(2.0));  // a spread in kJ/(kg K) is 10 J/(kg K)
  const auto small = plan_of(text(10));
  for (std::size_t i = 0; i < 10; ++i) CHECK(small.members[i].si == plan.members[i].si);
  CHECK(plan_of(text(10)).members[9].written == small.members[9].written);
  CHECK(plan.design_text() == "monte_carlo, 4000 samples, seed 3");
}

TEST_CASE("Sweep file errors: exact located messages", "[sweep][errors]") {
  struct Case {
    std::string sweep;
    std::string message;
  };
  const std::string grid = head + "design: grid\nparameters:\n";  // parameters start at line 5
  const std::vector<Case> cases = {
      {"", "sweep.yaml: sweep file is empty"},
      {"# only a comment\n", "sweep.yaml: sweep file is empty"},
      {"- a\n- b\n", "sweep.yaml:1:1: the sweep must be a mapping, not a list"},
      {"name: t\n---\nname: u\n", "sweep.yaml:3:1: a sweep file holds one YAML document (another starts here)"},
      {head + "design: grid\nparameter:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:4:1: parameter: unknown key (did you mean 'parameters'?)"},
      {head + "design: grid\nname: u\n", "sweep.yaml:4:1: name: duplicate key (first at line 1)"},
      {"base: base.yaml\ndesign: grid\nparameters:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:1:1: name: required key is missing (text)"},
      {"name: t\ndesign: grid\n", "sweep.yaml:1:1: base: required key is missing (path of the base scenario, relative to the sweep file)"},
      {"name:\nbase: b\n", "sweep.yaml:1:1: name: value is missing (text)"},
      {head + "parameters:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:1:1: design: required key is missing (grid, list, latin_hypercube or monte_carlo)"},
      {head + "design: lhs\n", "sweep.yaml:3:9: design = lhs (must be one of: grid, list, latin_hypercube, monte_carlo)"},
      {head + "design:\n  type: mc\n", "sweep.yaml:4:9: design.type = mc (must be one of: grid, list, latin_hypercube, monte_carlo)"},
      {head + "design:\n  kind: grid\n", "sweep.yaml:4:3: design.kind: unknown key (valid keys: type, samples, seed)"},
      {head + "design: latin_hypercube\n", "sweep.yaml:3:1: design.samples: required key is missing (integer)"},
      {head + "design: {type: monte_carlo, samples: 0}\n", "sweep.yaml:3:38: design.samples = 0 (must be >= 1)"},
      {head + "design: {type: monte_carlo, samples: 1.5}\n", "sweep.yaml:3:38: design.samples = 1.5 (must be an integer)"},
      {head + "design: {type: monte_carlo, samples: 4, seed: -1}\n", "sweep.yaml:3:47: design.seed = -1 (must be >= 0)"},
      {head + "design: {type: grid, seed: 3}\n", "sweep.yaml:3:22: design.seed: not used by a grid design"},
      {head + "design: grid\nparameters:\n", "sweep.yaml:4:1: parameters: must name at least one scenario key"},
      {head + "design: grid\nparameters: [a]\n", "sweep.yaml:4:13: parameters: must be a mapping, not a list"},
      {grid + "  loop.pump.sped: [1]\n", "sweep.yaml:5:3: parameters.loop.pump.sped: unknown scenario key (did you mean 'speed'?)"},
      {grid + "  lop.pump.speed: [1]\n", "sweep.yaml:5:3: parameters.lop.pump.speed: unknown scenario key (did you mean 'loop'?)"},
      {grid + "  loop.pump: [1]\n", "sweep.yaml:5:3: parameters.loop.pump: loop.pump is a section, not a parameter"},
      {grid + "  loop.pump.speed.max: [1]\n", "sweep.yaml:5:3: parameters.loop.pump.speed.max: loop.pump.speed is a parameter, not a section"},
      {grid + "  server.gpus.power_scale: [1]\n",
       "sweep.yaml:5:3: parameters.server.gpus.power_scale: server.gpus is a list (name an entry, e.g. server.gpus[0])"},
      {grid + "  loop[0].speed: [1]\n", "sweep.yaml:5:3: parameters.loop[0].speed: loop is a section, not a list"},
      {grid + "  server.gpus[9].power_scale: [1]\n",
       "sweep.yaml:5:3: parameters.server.gpus[9].power_scale: the base scenario has 4 entries in server.gpus"},
      {grid + "  loop..speed: [1]\n",
       "sweep.yaml:5:3: parameters.loop..speed: not a scenario key path (write it like loop.pump.speed or server.gpus[5].power_scale)"},
      {grid + "  loop.pump.speed: 1\n",
       "sweep.yaml:5:20: parameters.loop.pump.speed: a grid design needs a list of values or {min, max, count}, not a single value"},
      {grid + "  loop.pump.speed: []\n", "sweep.yaml:5:20: parameters.loop.pump.speed: the list of values is empty"},
      {grid + "  loop.pump.speed: [0.5, [1]]\n", "sweep.yaml:5:26: parameters.loop.pump.speed[1]: must be a single value, not a list"},
      {grid + "  loop.pump.speed:\n", "sweep.yaml:5:3: parameters.loop.pump.speed: value is missing (values of loop.pump.speed)"},
      {grid + "  loop.pump.speed: {min: 0.4, max: 1}\n", "sweep.yaml:5:20: parameters.loop.pump.speed.count: required key is missing (integer)"},
      {grid + "  loop.pump.speed: {min: 0.4, max: 1, count: 1}\n", "sweep.yaml:5:46: parameters.loop.pump.speed.count = 1 (must be >= 2)"},
      {grid + "  server.gpu_count: {min: 1, max: 8, count: 8}\n",
       "sweep.yaml:5:3: parameters.server.gpu_count: evenly spaced values need a real-valued key; list the values instead (server.gpu_count is an integer)"},
      {head + "design: list\nparameters:\n  loop.supply_temperature: [30 degC, 35 degC]\n  loop.pump.speed: [0.5, 0.7, 1]\n",
       "sweep.yaml:6:3: parameters.loop.pump.speed: a list design pairs the i-th values of every parameter: 3 values here, 2 in parameters.loop.supply_temperature"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  server.gpu_count: {min: 1, max: 8}\n",
       "sweep.yaml:5:3: parameters.server.gpu_count: a latin_hypercube design samples real-valued keys only (server.gpu_count is an integer)"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.pump.speed: [0.5, 1]\n",
       "sweep.yaml:5:20: parameters.loop.pump.speed: a latin_hypercube design needs a range {min, max}, not a list"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.pump.speed: {min: 0.5, max: 1.5}\n",
       "sweep.yaml:5:36: parameters.loop.pump.speed.max = 1.5 (must be in (0, 1.2], the range of loop.pump.speed)"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.pump.speed: {min: 0.8, max: 0.5}\n",
       "sweep.yaml:5:36: parameters.loop.pump.speed.max = 0.5 (must be > min)"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.pump.speed: {max: 0.5}\n",
       "sweep.yaml:5:20: parameters.loop.pump.speed.min: required key is missing (dimensionless)"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.supply_temperature: {min: 30 kW, max: 40 degC}\n",
       "sweep.yaml:5:34: parameters.loop.supply_temperature.min = 30 kW (unit 'kW' is not convertible to 'K')"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.supply_temperature: {min: warm, max: 40 degC}\n",
       "sweep.yaml:5:34: parameters.loop.supply_temperature.min = warm (must be a number, optionally with a unit convertible to degC)"},
      {head + "design: {type: latin_hypercube, samples: 4}\nparameters:\n  loop.supply_temperature: {min: 30 degC, max: 90 degC}\n",
       "sweep.yaml:5:48: parameters.loop.supply_temperature.max = 90 degC (must be in [0, 80] degC, the range of loop.supply_temperature)"},
      {head + "design: {type: monte_carlo, samples: 4}\nparameters:\n  workload.gpu_power.static_power: {distribution: normal, mean: 500 W, std: -5 W}\n",
       "sweep.yaml:5:77: parameters.workload.gpu_power.static_power.std = -5 W (must be > 0)"},
      {head + "design: {type: monte_carlo, samples: 4}\nparameters:\n  workload.gpu_power.static_power: {distribution: beta, min: 1 W, max: 2 W}\n",
       "sweep.yaml:5:51: parameters.workload.gpu_power.static_power.distribution = beta (must be one of: uniform, normal)"},
      {head + "design: {type: monte_carlo, samples: 4}\nparameters:\n  workload.gpu_power.static_power: {min: 1 W, max: 2 W, sigma: 1 W}\n",
       "sweep.yaml:5:57: parameters.workload.gpu_power.static_power.sigma: unknown key (valid keys: distribution, min, max)"},
      {head + "design: {type: monte_carlo, samples: 4}\nparameters:\n  workload.gpu_power.static_power: {distribution: normal, mean: 500 W}\n",
       "sweep.yaml:5:36: parameters.workload.gpu_power.static_power.std: required key is missing (W)"},
      {head + "design: grid\nset:\n  loop.pump.speed: 0.5\nparameters:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:7:3: parameters.loop.pump.speed: also fixed by set (line 5)"},
      {head + "design: grid\nset:\n  loop.pump.speed: [1]\nparameters:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:5:20: set.loop.pump.speed: must be a single value, not a list"},
      {head + "design: grid\nset:\n  loop.pump.spede: 1\nparameters:\n  loop.pump.speed: [1]\n",
       "sweep.yaml:5:3: set.loop.pump.spede: unknown scenario key (did you mean 'speed'?)"},
      {head + "design: grid\nparameters:\n  loop.pump.speed: [1]\n  loop.pump.speed: [2]\n",
       "sweep.yaml:6:3: parameters.loop.pump.speed: duplicate key (first at line 5)"},
  };
  for (const auto& c : cases) {
    INFO(c.sweep);
    CHECK(error_of(c.sweep) == c.message);
  }
  // YAML syntax errors carry the parser's words.
  CHECK(error_of("name: [\n").rfind("sweep.yaml:2:1: YAML syntax error: ", 0) == 0);
}

TEST_CASE("The base scenario with the fixed values is checked before any member", "[sweep][errors]") {
  const std::string sweep = head + "design: grid\n";  // + set and parameters
  // A fixed value that breaks a rule is an error of the sweep, at the value in the sweep file.
  CHECK(error_of(sweep + "set:\n  simulation.duration: -5 s\nparameters:\n  loop.pump.speed: [1]\n") ==
        "sweep.yaml:5:24: simulation.duration = -5 s (must be > 0)");
  // A problem of the base at a key no parameter varies: located in the base, at the key or the value.
  std::string base = base_text;
  base.replace(base.find("gpu_count"), 9, "gpu_cuont");
  CHECK(error_of(sweep + "parameters:\n  loop.pump.speed: [1]\n", base) ==
        "base.yaml:6:3: server.gpu_cuont: unknown key (did you mean 'gpu_count'?)");
  base = base_text;
  base.replace(base.find("speed: 1"), 8, "speed: 5");
  CHECK(error_of(sweep + "parameters:\n  loop.supply_temperature: [30 degC]\n", base) ==
        "base.yaml:15:12: loop.pump.speed = 5 (must be in (0, 1.2])");
  // ... but a bad base value that every member replaces is no problem.
  CHECK(plan_of(sweep + "parameters:\n  loop.pump.speed: [1]\n", base).members.size() == 1);
  CHECK(error_of(sweep + "parameters:\n  loop.pump.speed: [1]\n", "name: b\nserver:\n  gpu_count: 2\n  gpu_count: 3\n") ==
        "base.yaml:4:3: server.gpu_count: duplicate key (first at line 3)");
  CHECK(error_of(sweep + "parameters:\n  loop.pump.speed: [1]\n", "- 1\n") ==
        "base.yaml:1:1: the scenario must be a mapping, not a list");
}

TEST_CASE("A member's invalid value: the checker's message, located where the value came from", "[sweep][errors]") {
  const auto plan = plan_of(head +
                            "design: grid\n"                                  // 3
                            "parameters:\n"                                   // 4
                            "  loop.pump.speed: [0.5, 2]\n"                   // 5
                            "  server.gpu_count: [4, 3]\n"                    // 6
                            "  loop.supply_temperature: [30 degC, 30 kW]\n");  // 7
  REQUIRE(plan.members.size() == 8);
  CHECK(member_error(plan, 0) == "no error");
  // A value written in the sweep file: at that value.
  CHECK(member_error(plan, 4) == "sweep.yaml:5:26: member 0004: loop.pump.speed = 2 (must be in (0, 1.2])");
  CHECK(member_error(plan, 1) ==
        "sweep.yaml:7:38: member 0001: loop.supply_temperature = 30 kW (unit 'kW' is not convertible to 'K')");
  // A problem the site finds at a key the sweep does not set: in the base scenario.
  CHECK(member_error(plan, 2) ==
        "base.yaml:6:3: member 0002: server.gpus has 4 entries but server.gpu_count = 3 (inconsistent topology: one entry per GPU)");
}

TEST_CASE("load_sweep reads the base relative to the sweep file, missing files are MissingInputError", "[sweep][files]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "sweep" / "scratch" / "load";
  fs::remove_all(dir);
  fs::create_directories(dir / "sweeps");
  std::ofstream(dir / "base.yaml") << base_text;
  std::ofstream(dir / "sweeps" / "s.yaml") << "name: s\nbase: ../base.yaml\ndesign: grid\nparameters:\n  loop.pump.speed: [0.5, 1]\n";
  std::ofstream(dir / "sweeps" / "bad.yaml") << "name: s\nbase: ../nope.yaml\ndesign: grid\nparameters:\n  loop.pump.speed: [1]\n";
  const auto plan = io::load_sweep(dir / "sweeps" / "s.yaml", schema());
  CHECK(plan.base_file == (dir / "base.yaml").string());
  CHECK(plan.base_text == base_text);
  CHECK(plan.members.size() == 2);
  try {
    (void)io::load_sweep(dir / "sweeps" / "bad.yaml", schema());
    FAIL("no error");
  } catch (const io::MissingInputError& e) {
    CHECK(std::string(e.what()) == (dir / "sweeps" / "bad.yaml").string() + ":2:7: base = ../nope.yaml (cannot open scenario file " +
                                       (dir / "nope.yaml").string() + ": No such file or directory)");
  }
  try {
    (void)io::load_sweep(dir / "absent.yaml", schema());
    FAIL("no error");
  } catch (const io::MissingInputError& e) {
    CHECK(std::string(e.what()) == (dir / "absent.yaml").string() + ": cannot open sweep file (No such file or directory)");
  }
}

TEST_CASE("The design's seed is a whole number 0 to 2^64-1, exact", "[sweep][design][seed]") {
  const auto text = [](const std::string& seed) {
    return head + "design: {type: monte_carlo, samples: 3, seed: " + seed +
           "}\n"
           "parameters:\n"
           "  loop.pump.speed: {min: 0.5, max: 1}\n";
  };
  const auto largest = plan_of(text("18446744073709551615"));
  CHECK(largest.seed == 18446744073709551615ULL);
  CHECK(largest.design_text() == "monte_carlo, 3 samples, seed 18446744073709551615");
  // 2^63 and 2^63 + 1: beyond a signed integer, and one apart (a double holds neither apart).
  const auto a = plan_of(text("9223372036854775808"));
  const auto b = plan_of(text("9223372036854775809"));
  CHECK(a.seed == 9223372036854775808ULL);
  CHECK(b.seed == 9223372036854775809ULL);
  CHECK(a.members[0].si != b.members[0].si);
  CHECK(plan_of(text("9223372036854775808")).members[2].si == a.members[2].si);
  // Refused with the place: too large, negative, not whole.
  CHECK(error_of(text("18446744073709551616")) ==
        "sweep.yaml:3:47: design.seed = 18446744073709551616 (must be <= 18446744073709551615)");
  CHECK(error_of(text("-3")) == "sweep.yaml:3:47: design.seed = -3 (must be >= 0)");
  CHECK(error_of(text("2.5")) == "sweep.yaml:3:47: design.seed = 2.5 (must be an integer)");
  CHECK(error_of(text("1e19")) == "sweep.yaml:3:47: design.seed = 1e19 (must be an integer)");
}

TEST_CASE("A sweep over simulation.seed gives each member its seed exactly", "[sweep][seed]") {
  const auto plan = plan_of(head +
                            "design: list\n"
                            "parameters:\n"
                            "  simulation.seed: [9007199254740993, 18446744073709551615, 18446744073709551616]\n");
  REQUIRE(plan.members.size() == 3);
  const auto member = io::load_sweep_member(plan, 1, schema());
  CHECK(member.tree.section("simulation").unsigned_integer("seed") == 18446744073709551615ULL);
  CHECK(io::load_sweep_member(plan, 0, schema()).tree.section("simulation").unsigned_integer("seed") ==
        9007199254740993ULL);
  try {
    (void)io::load_sweep_member(plan, 2, schema());
    FAIL("no error");
  } catch (const dctwin::core::InputError& e) {
    CHECK(std::string(e.what()) ==
          "sweep.yaml:5:61: member 0002: simulation.seed = 18446744073709551616 (must be <= 18446744073709551615)");
  }
}
