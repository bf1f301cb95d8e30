#include "facility_report.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/solver/types.hpp"

namespace dctwin::gui::testing {
namespace {

/// A deterministic value in [0, 1) from an integer (a hash, for the spread between GPUs).
double spread(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return static_cast<double>(k >> 11) * 0x1.0p-53;
}

std::string label(const char* format, int a, int b = 0, int c = 0, int d = 0) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, format, a, b, c, d);
  return buffer;
}

}  // namespace

void write_facility_report(const std::filesystem::path& path, const FacilityReportOptions& options) {
  const int racks = options.pods * options.racks_per_pod;
  const int gpus_per_rack = options.servers_per_rack * options.gpus_per_server;
  const int gpus = racks * gpus_per_rack;
  const auto rack_count = static_cast<solver::Index>(racks);
  const auto gpu_count = static_cast<solver::Index>(gpus);

  io::ReportLayout layout;
  layout.scenario_name = "synthetic-facility";
  layout.scenario_file = "synthetic-facility.yaml";
  core::EntityTable gpu_table{"gpu", {}}, rack_table{"rack", {}};
  for (int p = 0; p < options.pods; ++p) {
    for (int r = 0; r < options.racks_per_pod; ++r) {
      rack_table.labels.push_back(label("pod%d/rack%03d", p, r));
      for (int s = 0; s < options.servers_per_rack; ++s) {
        for (int g = 0; g < options.gpus_per_server; ++g) {
          gpu_table.labels.push_back(label("pod%d/rack%03d/server%d/gpu%d", p, r, s, g));
        }
      }
    }
  }
  layout.entities = {gpu_table, rack_table};
  if (options.study) {
    core::EntityTable pod_table{"pod", {}};
    for (int p = 0; p < options.pods; ++p) pod_table.labels.push_back(label("pod%d", p));
    layout.entities.push_back(pod_table);
    char resolved[1024];
    std::snprintf(resolved, sizeof resolved,
                  "name: synthetic-facility\n"
                  "site: facility\n"
                  "electrical:\n"
                  "  enabled: true\n"
                  "  limits:\n"
                  "    power_peak_to_peak_max: 0 W\n"
                  "    ramp_rate_max: 1000000 W/s\n"
                  "    ramp_window: 1 s\n"
                  "    frequency_deviation_max: 0.05 Hz\n"
                  "    voltage_change_max: 0.03\n"
                  "    transformer_hot_spot_max: 383.15 K\n"
                  "facility:\n"
                  "  gpu:\n"
                  "    max_operating_temperature: %.17g K\n"
                  "    hbm_max_operating_temperature: 368.15 K\n"
                  "    hw_slowdown_temperature: 362.15 K\n"
                  "    shutdown_temperature: 365.15 K\n"
                  "  pump_failures:\n"
                  "    - {time: 60 s, pod: 0, failed: 2}\n",
                  options.gpu_limit);
    layout.resolved_scenario = resolved;
  }

  // Pods in a grid of 4 columns; in a pod, rows of racks 0.6 m wide, 1.2 m deep, rows 2.4 m apart.
  const double width = 0.6, depth = 1.2, height = 2.2, row_pitch = 2.4;
  const int rows = (options.racks_per_pod + options.racks_per_row - 1) / options.racks_per_row;
  const double pod_x = options.racks_per_row * width + 4.0;
  const double pod_y = rows * row_pitch + 4.0;
  std::vector<double> position, pod_of_rack, gpu_rack;
  for (int rack = 0; rack < racks; ++rack) {
    const int p = rack / options.racks_per_pod, r = rack % options.racks_per_pod;
    const int column = p % 4, line = p / 4;
    position.push_back(column * pod_x + (r % options.racks_per_row + 0.5) * width);
    position.push_back(line * pod_y + (r / options.racks_per_row) * row_pitch + depth / 2);
    position.push_back(0.0);
    pod_of_rack.push_back(p);
  }
  for (int g = 0; g < gpus; ++g) gpu_rack.push_back(g / gpus_per_rack);
  layout.static_data = {
      {"layout", "rack_position", "m", "centre of the rack's footprint", "rack", {std::size_t(racks), 3}, position},
      {"layout", "rack_size", "m", "rack width, depth and height", "", {3}, {width, depth, height}},
      {"layout", "rack_pod", "1", "pod of the rack", "rack", {std::size_t(racks)}, pod_of_rack},
      {"layout", "gpu_rack", "1", "rack holding the GPU", "gpu", {std::size_t(gpus)}, gpu_rack},
  };

  std::size_t offset = 0;
  auto add = [&](std::string group, std::string name, std::string unit, std::string long_name,
                 std::string entity, solver::Index count) {
    layout.outputs.push_back({{std::move(group), std::move(name), std::move(unit), std::move(long_name),
                               std::move(entity), count},
                              offset});
    offset += static_cast<std::size_t>(count);
  };
  add("gpu", "junction_temperature", "K", "GPU junction temperature", "gpu", gpu_count);
  add("gpu", "power", "W", "GPU board power", "gpu", gpu_count);
  add("gpu", "throttle_reasons", "1", "GPU throttle reasons (NVML bitmask)", "gpu", gpu_count);
  add("rack", "coolant_supply_temperature", "K", "Rack coolant supply temperature", "rack", rack_count);
  add("rack", "coolant_return_temperature", "K", "Rack coolant return temperature", "rack", rack_count);
  add("rack", "door_outlet_air_temperature", "K", "Rear-door outlet air temperature", "rack", rack_count);
  add("coolant", "return_temperature", "K", "Facility coolant return temperature", "", 1);
  const std::string grid_group = options.grid_samples > 0 ? "utility" : "grid";
  add(grid_group, "power", "W", "Power at the grid connection", "", 1);
  add(grid_group, "frequency", "Hz", "Grid frequency", "", 1);
  if (options.grid_samples > 0) {
    layout.fine_series.push_back({"grid", "time of the grid-connection samples",
                                  {{"grid", "power", "W", "power drawn from the utility", "", 1},
                                   {"grid", "frequency", "Hz", "grid frequency", "", 1}}});
  }
  add("job", "mfu", "1", "Model FLOPs utilisation", "", 1);
  const auto pod_count = static_cast<solver::Index>(options.pods);
  const std::size_t pod_fields = offset;
  if (options.study) {
    add("pod", "cold_aisle_temperature", "K", "Pod cold aisle temperature", "pod", pod_count);
    add("pod", "pump_power", "W", "Pod pump power", "pod", pod_count);
  }

  io::ReportWriter writer(path, layout);
  std::vector<double> values(offset);
  const double hall_x = 4 * pod_x, hall_y = ((options.pods + 3) / 4) * pod_y;
  for (int k = 0; k < options.samples; ++k) {
    const double t = k * options.interval;
    const double phase = static_cast<double>(k) / std::max(1, options.samples - 1);
    // The warm region travels diagonally across the hall; load ramps up over the first samples.
    const double hx = hall_x * (0.15 + 0.7 * phase), hy = hall_y * (0.2 + 0.6 * phase);
    const double load = 0.55 + 0.45 * std::min(1.0, phase * 2.0);
    double total_power = 0.0, hottest_return = 0.0;
    for (int rack = 0; rack < racks; ++rack) {
      const double x = position[3 * std::size_t(rack)], y = position[3 * std::size_t(rack) + 1];
      const double d2 = ((x - hx) * (x - hx) + (y - hy) * (y - hy)) / (0.18 * hall_x * 0.18 * hall_x);
      const double warm = std::exp(-d2);
      const int pod = rack / options.racks_per_pod;
      const double supply = 305.15 + 1.5 * warm + 0.3 * spread(std::uint64_t(rack) * 7 + 1);
      double rack_power = 0.0;
      for (int j = 0; j < gpus_per_rack; ++j) {
        const int g = rack * gpus_per_rack + j;
        const double own = spread(std::uint64_t(g) * 13 + 5);
        const double power = 250.0 + 450.0 * load * (0.9 + 0.1 * own);
        const double tj = supply + 8.0 + 0.035 * power + 14.0 * warm * load + 3.0 * own +
                          (pod == 2 ? options.pod2_offset : 0.0);
        values[std::size_t(g)] = tj;
        values[gpu_count + std::size_t(g)] = power;
        values[2 * gpu_count + std::size_t(g)] = tj > 356.15 ? 4.0 : 0.0;  // 83 degC: thermal slowdown
        rack_power += power;
      }
      const double rise = rack_power / (0.4 * 3979.0);  // 0.4 kg/s of PG25 per rack
      const std::size_t base = 3 * std::size_t(gpu_count);
      values[base + std::size_t(rack)] = supply;
      values[base + rack_count + std::size_t(rack)] = supply + rise;
      values[base + 2 * rack_count + std::size_t(rack)] = 297.15 + 0.6 * rise + 2.0 * warm;
      total_power += rack_power * 1.25;
      hottest_return = std::max(hottest_return, supply + rise);
    }
    const std::size_t scalars = 3 * std::size_t(gpu_count) + 3 * std::size_t(rack_count);
    values[scalars] = hottest_return - 1.0;
    values[scalars + 1] = total_power;
    values[scalars + 2] = 50.0 - 0.02 * std::sin(t / 40.0) * load;
    values[scalars + 3] = 0.38 + 0.05 * load - 0.04 * phase;
    if (options.study) {
      for (int p = 0; p < options.pods; ++p) {
        values[pod_fields + std::size_t(p)] = 295.15 + 0.5 * p + 2.0 * load;
        values[pod_fields + std::size_t(options.pods + p)] = p == 0 && t >= 60.0 ? 10e3 : 20e3;
      }
    }
    writer.append_sample(t, values);
  }
  if (options.grid_samples > 0) {
    const double pi = std::acos(-1.0);
    const double middle = 0.5 * options.grid_samples * options.grid_dt;
    for (int k = 0; k < options.grid_samples; ++k) {
      const double t = k * options.grid_dt;
      const double power = options.grid_power + options.grid_tone_amplitude * std::sin(2.0 * pi * options.grid_tone_hz * t) +
                           (t >= middle ? options.grid_step : 0.0);
      const double frequency = 60.0 - 1e-9 * (power - options.grid_power);
      const double row[] = {power, frequency};
      writer.append_fine_sample(0, t, row);
    }
  }
  if (options.study) {
    writer.add_event(90.0, "gpu", "shutdown", "pod0/rack001/server0/gpu0 reached the shutdown temperature 92.00 degC");
  }
  io::RunInfo run;
  run.status.time = (options.samples - 1) * options.interval;
  std::vector<core::SummaryFigure> summary = {{"gpu_junction_temperature_max", 360.0, "K", "hottest GPU junction"}};
  if (options.study) {
    const std::vector<core::SummaryFigure> figures = {
        {"pue", 1.25, "1", "Power usage effectiveness"},
        {"mfu_mean", 0.41, "1", "Mean model FLOPs utilisation"},
        {"mfu_planned", 0.43, "1", "Planned model FLOPs utilisation"},
        {"lost_gpu_hours_throttling", 1.5, "h", "GPU-hours lost to throttling"},
        {"lost_gpu_hours_checkpoints", 0.25, "h", "GPU-hours lost to checkpoints"},
        {"lost_gpu_hours_failures", 0.0, "h", "GPU-hours lost to failures"},
        {"throttled_gpu_seconds", 5400.0, "s", "GPU-seconds throttled"},
        {"grid_limit_violations", 1.0, "1", "Grid limits exceeded"},
        {"grid_limit_ramp_rate", 0.0, "1", "Grid limit ramp rate kept (1) or exceeded (0)"},
        {"grid_limit_frequency_deviation", 1.0, "1", "Grid limit frequency deviation kept (1) or exceeded (0)"},
        {"limit_violations", 2.0, "1", "Limits exceeded"},
        {"envelope_cold_aisle_ashrae_a1_first", 30.0, "s", "First sample outside"},
        {"envelope_cold_aisle_ashrae_a1_worst", 306.15, "K", "Worst value"},
        {"model_range_clamps", 1.0, "1", "Models at their data's edge"},
        {"model_range_chiller_chilled_water_first", 0.0, "s", "First sample outside"},
        {"model_range_chiller_condenser_water_low_first", -1.0, "s", "First sample outside"},
        {"utility_disturbance_first", 45.0, "s", "Start of the first utility disturbance (-1: none)"},
        {"utility_disturbance_time", 20.0, "s", "Time with the utility sagging or out"},
        {"ups_battery_exhausted_first", 58.5, "s", "When a UPS battery first ran out (-1: never)"},
        {"bbu_exhausted_first", -1.0, "s", "When a lineup's BBUs first ran out (-1: never)"},
        {"it_load_lost_first", -1.0, "s", "When the first lineup's servers dropped (-1: never)"},
        {"it_load_lost", 0.0, "J", "IT load not supplied"},
    };
    summary.insert(summary.end(), figures.begin(), figures.end());
  }
  writer.finish(run, summary);
}

}  // namespace dctwin::gui::testing
