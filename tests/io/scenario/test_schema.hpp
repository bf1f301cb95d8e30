// A small scenario schema for the io/ tests: sections, lists, every kind of parameter, display
// units with and without offsets, open and closed ranges.
#pragma once

#include <string>
#include <string_view>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/io/scenario.hpp"

namespace dctwin::io::test {

using core::ParameterSpec;
using core::SectionSchema;

inline ParameterSpec shown_in(ParameterSpec spec, std::string display_unit) {
  spec.display_unit = std::move(display_unit);
  return spec;
}

/// root: name, duration, seed; server (required) with gpus (list) and cold_plate; loop with pump.
inline const SectionSchema& test_schema() {
  static const SectionSchema schema = [] {
    using namespace dctwin::core;
    SectionSchema root;
    root.doc = "test facility";
    auto duration = shown_in(real_parameter("duration", "s", "Simulated time", 86400.0), "h");
    at_least(duration, 0.0);
    auto seed = integer_parameter("seed", "Random seed", 1.0);
    at_least(seed, 0.0);
    root.parameters = {text_parameter("name", "Scenario name", std::string("unnamed")), duration,
                       seed};

    SectionSchema server;
    server.required = true;
    auto gpu_count = integer_parameter("gpu_count", "GPUs per server", std::nullopt);
    at_least(gpu_count, 1.0);
    at_most(gpu_count, 16.0);
    auto inlet =
        shown_in(real_parameter("inlet_temperature", "K", "Coolant inlet", 305.15), "degC");
    at_most(inlet, 353.15);
    auto supply = shown_in(real_parameter("supply_temperature", "K", "Supply", 298.15), "degC");
    at_least(supply, 273.15);
    at_most(supply, 333.15);
    auto psu = shown_in(real_parameter("psu_power", "W", "PSU rating", 3000.0), "kW");
    greater_than(psu, 0.0);
    server.parameters = {gpu_count, inlet, supply,
                         boolean_parameter("redundant_psu", "N+1 supplies", true), psu};

    SectionSchema gpu;
    auto power = real_parameter("power", "W", "Board power", 700.0);
    at_least(power, 0.0);
    auto tdp = real_parameter("tdp", "W", "Thermal design power", 700.0);
    greater_than(tdp, 0.0);
    at_most(tdp, 1000.0);
    gpu.parameters = {power, tdp, text_parameter("serial", "Serial number", std::string("none"))};
    server.lists["gpus"] = gpu;

    SectionSchema cold_plate;
    auto resistance = real_parameter("resistance", "K/W", "Plate resistance", std::nullopt);
    greater_than(resistance, 0.0);
    cold_plate.parameters = {resistance};
    server.sections["cold_plate"] = cold_plate;
    root.sections["server"] = server;

    SectionSchema loop;
    auto glycol = real_parameter("glycol_fraction", "1", "Glycol mass fraction", 0.25);
    at_least(glycol, 0.0);
    at_most(glycol, 0.6);
    auto valve = shown_in(real_parameter("valve_opening", "1", "Valve opening", 1.0), "%");
    greater_than(valve, 0.0);
    at_most(valve, 1.0);
    loop.parameters = {choice_parameter("arrangement", {"series", "parallel"}, "Pump arrangement",
                                        std::string("parallel")),
                       glycol, valve};
    SectionSchema pump;
    auto flow = shown_in(real_parameter("nominal_flow", "m3/s", "Nominal flow", 2.0e-5), "L/min");
    greater_than(flow, 0.0);
    auto head = shown_in(real_parameter("head", "Pa", "Head at nominal flow", 1.0e5), "kPa");
    auto pressure =
        shown_in(real_parameter("max_pressure", "Pa", "Maximum pressure", 3.0e5), "bar");
    at_most(pressure, 1.0e6);
    auto ramp = shown_in(real_parameter("ramp_time", "s", "Start-up ramp", 60.0), "min");
    pump.parameters = {flow, head, pressure, ramp};
    loop.sections["pump"] = pump;
    root.sections["loop"] = loop;
    return root;
  }();
  return schema;
}

/// The smallest valid scenario for `test_schema()`.
inline constexpr std::string_view minimal_scenario =
    "server:\n"
    "  gpu_count: 8\n"
    "  cold_plate:\n"
    "    resistance: 0.02 K/W\n";

/// The message of the InputError that parsing `text` throws, or "(no error)".
inline std::string error_of(std::string_view text, const SectionSchema& schema = test_schema()) {
  try {
    (void)parse_scenario(text, "t.yaml", schema);
  } catch (const core::InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace dctwin::io::test
