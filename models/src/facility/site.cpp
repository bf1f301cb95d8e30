#include "dctwin/models/facility/site.hpp"

#include <cstdio>
#include <iterator>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/facility/facility_site.hpp"
#include "dctwin/models/facility/single_node.hpp"

namespace dctwin::models::facility {

core::SectionSchema simulation_schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "Run length, sampling and solver settings";
  auto p = real_parameter("duration", "s", "Simulated time to run", 600.0);
  p.display_unit = "s";
  s.parameters.push_back(greater_than(p, 0.0));
  // A lower bound, not just > 0: at 1e-14 s the samples are closer than the solver's time
  // resolution and the run never ends while the report grows (docs/reports.md, "Size").
  p = real_parameter("output_interval", "s", "Interval between recorded samples (at least 1 ms)", 1.0,
                     "1 ms: the electrical feed's default step (its grid series has its own "
                     "electrical.output_interval) and a thousandth of the fastest thermal time constants (~1 s, "
                     "docs/models/single-node.md); closer samples only repeat interpolated states");
  s.parameters.push_back(at_least(p, 1e-3));
  s.parameters.push_back(choice_parameter("mode", {"fast", "reference"},
                                          "fast: the tolerances below; reference: tight tolerances (1e-10), no shortcuts",
                                          std::string("fast")));
  p = real_parameter("relative_tolerance", "1", "Relative tolerance of the integrator (fast mode)", 2.5e-6,
                     "With step growth from 1.1x and orders up to 3 the fast mode at 2.5e-6 is as close to the "
                     "reference as it was at 1e-6 before them, in a fifth fewer steps (docs/performance.md)");
  greater_than(p, 0.0);
  s.parameters.push_back(at_most(p, 1e-2));
  p = real_parameter("absolute_tolerance", "1", "Absolute tolerance of the integrator in state units (K, J) (fast mode)", 1e-6);
  s.parameters.push_back(greater_than(p, 0.0));
  p = real_parameter("max_step", "s", "Largest integrator step; 0 = no limit", 0.0);
  s.parameters.push_back(at_least(p, 0.0));
  p = real_parameter("min_step_growth", "1",
                     "Smallest growth of the step size the integrator takes; below it the step is kept (fast mode; "
                     "the reference mode takes CVODE's 1.5)",
                     1.1,
                     "After a short phase clips the step, 1.1 lets it grow back within a few steps (docs/solver.md)");
  greater_than(p, 1.0);
  s.parameters.push_back(at_most(p, 10.0));
  p = integer_parameter("max_order",
                        "Highest order of the integrator's BDF formulas (fast mode; the reference mode takes 5)", 3.0,
                        "Every forcing edge leaves the history's higher derivatives out of date: order 3 takes "
                        "fewer steps than 4 or 5 here, and is closer to the reference (docs/solver.md)");
  at_least(p, 1.0);
  s.parameters.push_back(at_most(p, 5.0));
  s.parameters.push_back(boolean_parameter(
      "skip_ticks_at_rest",
      "Leave out the governors' ticks inside an integrator step over which every GPU provably rests, all but the "
      "step's last (fast mode; the electrical feed's load is then linear between the ticks taken)",
      true));
  s.parameters.push_back(choice_parameter("initial_state", {"supply_temperature", "steady_state"},
                                          "Start with every node at the coolant supply temperature, or at the steady state of the training step's time-averaged power (controllers at their initial outputs)",
                                          std::string("supply_temperature")));
  s.parameters.push_back(unsigned_parameter("seed", "Seed of the random draws (spread, failures)", 1));
  return s;
}

namespace {

/// Which series a report holds and how they are stored (`output:` section; io/ applies it,
/// io/include/dctwin/io/report_storage.hpp).
core::SectionSchema output_schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "Which series the report holds and how precisely they are stored (docs/reports.md, \"Choosing the series\")";
  s.parameters.push_back(choice_parameter(
      "float_type", {"float64", "float32"},
      "Storage of the measured series that no rule of `variables` matches (categorical series stay unsigned "
      "integers, time axes float64)",
      std::string("float64")));
  SectionSchema rule;
  rule.doc = "A rule for the series whose path matches: the first rule that matches a series decides how it is stored";
  rule.parameters.push_back(text_parameter(
      "match", "Glob on the series' path in the report, e.g. `gpu/*` or `*temperature` (`*` also spans `/`)",
      std::nullopt));
  rule.parameters.push_back(text_parameter(
      "units", "Only series whose units convert to these, e.g. `K` (empty: any units)", std::string()));
  rule.parameters.push_back(boolean_parameter("write", "Write the series (false: leave it out of the report)", true));
  rule.parameters.push_back(choice_parameter("float_type", {"default", "float64", "float32"},
                                             "Storage of the measured series (default: output.float_type)",
                                             std::string("default")));
  rule.parameters.push_back(text_parameter(
      "resolution",
      "Round each value to a multiple of the largest power of two not above this step, in any units the series' "
      "units convert to, e.g. `0.01 K` (the error is at most half of it, and rounded series compress; empty: "
      "full precision)",
      std::string()));
  s.lists["variables"] = rule;
  return s;
}

}  // namespace

solver::SimulationSettings simulation_settings(const core::ParameterTree& sim) {
  solver::SimulationSettings settings;
  settings.start_time = 0.0;
  settings.end_time = sim.number("duration");
  settings.output_interval = sim.number("output_interval");
  if (sim.text("mode") == "reference") {
    settings.integrator = solver::IntegratorSettings::reference();
  } else {
    settings.integrator.relative_tolerance = sim.number("relative_tolerance");
    settings.integrator.absolute_tolerance = sim.number("absolute_tolerance");
    settings.integrator.min_step_growth = sim.number("min_step_growth");
    settings.integrator.max_order = static_cast<int>(sim.integer("max_order"));
  }
  settings.integrator.max_step = sim.number("max_step");
  if (sim.text("mode") != "reference") settings.integrator.skip_ticks_at_rest = sim.boolean("skip_ticks_at_rest");
  return settings;
}

core::SectionSchema scenario_schema() {
  using namespace core;
  SectionSchema root;
  root.doc = "A dctwin scenario";
  root.parameters.push_back(text_parameter("name", "Short name of the scenario", std::nullopt));
  root.parameters.push_back(text_parameter("description", "What the scenario shows", std::string()));
  root.parameters.push_back(choice_parameter("site", {"single-node", "facility"},
                                             "single-node: one server on a cold-plate loop (sections server, loop); "
                                             "facility: a whole site (section facility)",
                                             std::string("single-node")));
  root.sections["simulation"] = simulation_schema();
  root.sections["output"] = output_schema();
  root.sections["server"] = single_node_server_schema();
  root.sections["workload"] = workload::WorkloadParameters::schema();
  root.sections["loop"] = single_node_loop_schema();
  root.sections["facility"] = facility_schema();
  root.sections["electrical"] = electrical::ElectricalParameters::schema();
  root.sections["electrical"].doc =
      "The facility's electrical feed from the server PSUs to the utility, stepped at 1 ms between the thermal "
      "solver's knots (facility sites)";
  return root;
}

std::vector<std::string> sections_of_other_site_kind(const core::ParameterTree& scenario) {
  if (scenario.text("site") == "facility") return {"server", "loop"};
  return {"facility", "electrical"};
}

void derive_pod_loop_topology(core::ParameterTree& scenario) {
  if (scenario.text("site") != "facility") return;
  core::ParameterTree& facility = scenario.sections.at("facility");
  derive_pod_loop_topology(facility.section("layout"), facility.sections.at("pod_loop"));
}

void derive_pod_loop_topology(const core::ParameterTree& layout, core::ParameterTree& pod_loop) {
  auto derive = [&](core::ParameterTree& section, const std::string& key, const char* layout_key) {
    core::ParameterValue& value = section.values.at(key);
    if (value.from_default) value.number = static_cast<double>(layout.integer(layout_key));
  };
  derive(pod_loop, "rack_count", "racks_per_pod");
  derive(pod_loop.sections.at("rack"), "servers", "servers_per_rack");
  derive(pod_loop.sections.at("rack"), "plates_per_server", "gpus_per_server");
}

SiteSize estimate_site_size(const core::ParameterTree& scenario) {
  // Peak resident memory of `dctwin run`, measured: 27 MiB for the single node, 52 MiB for the
  // 3,072-GPU pod, 164-181 MiB for the 24,576-GPU halls (air, liquid-to-air, liquid-to-liquid,
  // with the grid; from either initial state; 60 s sampled every second), i.e. ~5.5 KiB per GPU
  // beyond a fixed part (its states, Jacobian entries, outputs and report buffers, its share of the
  // racks, pods and feed, CVODE's and KLU's vectors). Both parts rounded up.
  constexpr double fixed = 32.0 * 1024 * 1024;  // [bytes]
  constexpr double per_gpu = 8.0 * 1024;        // [bytes]
  SiteSize size;
  if (scenario.text("site") == "facility") {
    const auto& layout = scenario.section("facility").section("layout");
    std::string keys, counts;
    size.gpus = 1;  // each count is at most 1024: the product fits in 64 bits
    for (const char* name : {"pods", "racks_per_pod", "servers_per_rack", "gpus_per_server"}) {
      keys += (keys.empty() ? "" : " x ") + layout.key_path(name);
      counts += (counts.empty() ? "" : " x ") + std::to_string(layout.integer(name));
      size.gpus *= layout.integer(name);
    }
    size.gpus_text = keys + " = " + counts + " = " + std::to_string(size.gpus) + " GPUs";
    size.key_path = layout.key_path("pods");
  } else {
    const auto& server = scenario.section("server");
    size.gpus = server.integer("gpu_count");
    size.gpus_text = server.key_path("gpu_count") + " = " + std::to_string(size.gpus) + " GPUs";
    size.key_path = server.key_path("gpu_count");
  }
  size.memory = fixed + per_gpu * static_cast<double>(size.gpus);
  return size;
}

std::string format_bytes(double bytes) {
  const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t k = 0;
  while (bytes >= 1024.0 && k + 1 < std::size(units)) {
    bytes /= 1024.0;
    ++k;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[k]);
  return text;
}

namespace {

/// The product of the layout's counts against max_facility_gpus, before anything is allocated.
void check_facility_gpus(const core::ParameterTree& scenario) {
  const SiteSize size = estimate_site_size(scenario);
  if (size.gpus <= max_facility_gpus) return;
  throw core::InputError(size.gpus_text + " (must be at most " + std::to_string(max_facility_gpus) +
                               "; simulating them would take about " + format_bytes(size.memory) + " of memory)",
                           size.key_path);
}

}  // namespace

std::unique_ptr<Site> build_site(const core::ParameterTree& scenario, std::optional<WeatherSeries> weather_file) {
  const bool facility = scenario.text("site") == "facility";
  if (facility) check_facility_gpus(scenario);
  // Sections that belong to the other kind of site must not be written (they would be ignored).
  auto written = [&](const std::string& name) { return scenario.section(name).location.line > 0; };
  for (const std::string& name : sections_of_other_site_kind(scenario)) {
    if (written(name))
      throw core::InputError(name + ": not used by a " + scenario.text("site") +
                                   " site (set site: " + (facility ? "single-node" : "facility") + " or remove it)",
                               name);
  }
  if (facility) return std::make_unique<FacilitySite>(scenario, std::move(weather_file));
  if (!written("server"))
    throw core::InputError("server: required section is missing (a single-node site describes one server)", "");
  return std::make_unique<SingleNodeSite>(scenario);
}

}  // namespace dctwin::models::facility
