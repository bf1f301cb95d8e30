#include "dctwin/models/facility/layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "dctwin/core/check.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/random.hpp"

namespace dctwin::models::facility {

core::ParameterTable LayoutParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = integer_parameter("pods", "Number of pods", 8.0, "Llama 3 cluster: 8 pods of 3,072 GPUs ([meta-llama3-2024])");
  at_least(p, 1.0);
  t.push_back(at_most(p, 64.0));
  p = integer_parameter("racks_per_pod", "Racks in a pod", 192.0, "Llama 3 cluster: 192 racks per pod ([meta-llama3-2024])");
  at_least(p, 1.0);
  t.push_back(at_most(p, 1024.0));
  p = integer_parameter("servers_per_rack", "Servers in a rack", 2.0,
                        "Llama 3 cluster: 16 GPUs per rack in two servers ([meta-llama3-2024]); the range admits "
                        "the rack-scale systems up to 18 servers: GB200 NVL72, 18 compute trays of 4 GPUs "
                        "([nvidia-gb200-nvl72], [gb200-nvl72-reports])");
  at_least(p, 1.0);
  t.push_back(at_most(p, 18.0));
  p = integer_parameter("gpus_per_server", "GPUs in a server", 8.0, "Grand Teton: 8 H100 per server ([meta-llama3-2024])");
  at_least(p, 1.0);
  t.push_back(at_most(p, 16.0));
  p = integer_parameter("rows_per_pod", "Rows the racks of a pod stand in", 8.0, "Assumed hall layout (24 racks per row)");
  t.push_back(at_least(p, 1.0));
  p = integer_parameter("pods_per_row", "Pods side by side before the next row of pods", 4.0, "Assumed hall layout (4 x 2 pods)");
  t.push_back(at_least(p, 1.0));
  p = real_parameter("rack_width", "m", "Rack width", 0.6, "Open Rack v3 (600 mm)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rack_depth", "m", "Rack depth", 1.2, "Open Rack v3 class");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rack_height", "m", "Rack height", 2.2, "Open Rack v3 class");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("row_pitch", "m", "Distance between the centre lines of two rows", 3.6,
                     "Rack depth plus half a 1.2 m cold aisle and half a 1.2 m hot aisle on each side");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("pod_gap", "m", "Gap between pods", 6.0, "Assumed");
  t.push_back(at_least(p, 0.0));
  return t;
}

LayoutParameters LayoutParameters::from(const core::ParameterTree& s) {
  LayoutParameters p;
  p.pods = s.integer("pods");
  p.racks_per_pod = s.integer("racks_per_pod");
  p.servers_per_rack = s.integer("servers_per_rack");
  p.gpus_per_server = s.integer("gpus_per_server");
  p.rows_per_pod = s.integer("rows_per_pod");
  p.pods_per_row = s.integer("pods_per_row");
  p.rack_width = s.number("rack_width");
  p.rack_depth = s.number("rack_depth");
  p.rack_height = s.number("rack_height");
  p.row_pitch = s.number("row_pitch");
  p.pod_gap = s.number("pod_gap");
  return p;
}

FacilityLayout::FacilityLayout(LayoutParameters p)
    : p_(p),
      pods_(static_cast<std::size_t>(p.pods)),
      racks_per_pod_(static_cast<std::size_t>(p.racks_per_pod)),
      racks_(pods_ * racks_per_pod_),
      servers_per_rack_(static_cast<std::size_t>(p.servers_per_rack)),
      gpus_per_server_(static_cast<std::size_t>(p.gpus_per_server)),
      gpus_per_rack_(servers_per_rack_ * gpus_per_server_),
      gpus_(racks_ * gpus_per_rack_) {
  DCTWIN_DEMAND(pods_ > 0 && racks_per_pod_ > 0 && gpus_per_rack_ > 0, "an empty layout");
}

std::vector<std::string> FacilityLayout::gpu_labels() const {
  std::vector<std::string> labels;
  labels.reserve(gpus_);
  char text[128];
  for (std::size_t g = 0; g < gpus_; ++g) {
    const std::size_t r = rack_of_gpu(g);
    std::snprintf(text, sizeof text, "pod%zu/rack%03zu/server%zu/gpu%zu", pod_of_rack(r), r % racks_per_pod_,
                  (g / gpus_per_server_) % servers_per_rack_, g % gpus_per_server_);
    labels.emplace_back(text);
  }
  return labels;
}

std::vector<std::string> FacilityLayout::rack_labels() const {
  std::vector<std::string> labels;
  char text[64];
  for (std::size_t r = 0; r < racks_; ++r) {
    std::snprintf(text, sizeof text, "pod%zu/rack%03zu", pod_of_rack(r), r % racks_per_pod_);
    labels.emplace_back(text);
  }
  return labels;
}

std::vector<std::string> FacilityLayout::pod_labels() const {
  std::vector<std::string> labels;
  for (std::size_t p = 0; p < pods_; ++p) labels.push_back("pod" + std::to_string(p));
  return labels;
}

std::vector<core::StaticData> FacilityLayout::static_data() const {
  // Pods in rows of `pods_per_row` (x), rows of pods along y; in a pod, rows of racks along y,
  // racks along x within a row.
  const std::size_t rows = static_cast<std::size_t>(std::max<std::int64_t>(1, p_.rows_per_pod));
  const std::size_t per_row = (racks_per_pod_ + rows - 1) / rows;
  const std::size_t pods_across = static_cast<std::size_t>(std::max<std::int64_t>(1, p_.pods_per_row));
  const double pod_width = static_cast<double>(per_row) * p_.rack_width + p_.pod_gap;
  const double pod_depth = static_cast<double>(rows) * p_.row_pitch + p_.pod_gap;
  std::vector<double> position, rack_pod, gpu_rack, gpu_server;
  for (std::size_t r = 0; r < racks_; ++r) {
    const std::size_t k = r % racks_per_pod_;
    const std::size_t pod = pod_of_rack(r);
    const double x = static_cast<double>(pod % pods_across) * pod_width +
                     (static_cast<double>(k % per_row) + 0.5) * p_.rack_width;
    const double y = static_cast<double>(pod / pods_across) * pod_depth + static_cast<double>(k / per_row) * p_.row_pitch;
    position.insert(position.end(), {x, y, 0.0});
    rack_pod.push_back(static_cast<double>(pod));
  }
  for (std::size_t g = 0; g < gpus_; ++g) {
    gpu_rack.push_back(static_cast<double>(rack_of_gpu(g)));
    gpu_server.push_back(static_cast<double>(server_of_gpu(g)));
  }
  return {
      {"layout", "rack_position", "m", "centre of each rack's footprint (x along a row, y across rows)", "rack",
       {racks_, 3}, position},
      {"layout", "rack_size", "m", "rack width, depth and height", "", {3}, {p_.rack_width, p_.rack_depth, p_.rack_height}},
      {"layout", "rack_pod", "1", "pod index of each rack", "rack", {racks_}, rack_pod},
      {"layout", "gpu_rack", "1", "rack index of each GPU", "gpu", {gpus_}, gpu_rack},
      {"layout", "gpu_server", "1", "server index of each GPU", "gpu", {gpus_}, gpu_server},
  };
}

core::ParameterTable SpreadParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("power_sigma", "1", "Relative standard deviation of GPU power at the same work", 0.02,
                          "Estimate (uncertain): part-to-part power variation of a few percent");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.2));
  p = real_parameter("resistance_sigma", "1", "Relative standard deviation of the junction-to-base resistance", 0.05,
                     "Estimate (uncertain): thermal interface and mounting variation");
  at_least(p, 0.0);
  t.push_back(at_most(p, 0.2));
  p = real_parameter("leakage_sigma", "1", "Standard deviation of the logarithm of the leakage scale", 0.15,
                     "Estimate (uncertain): process variation of leakage is log-normal and wide");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

SpreadParameters SpreadParameters::from(const core::ParameterTree& s) {
  return {s.number("power_sigma"), s.number("resistance_sigma"), s.number("leakage_sigma")};
}

std::vector<thermal::GpuSpread> draw_spread(const SpreadParameters& p, std::size_t count, std::uint64_t seed) {
  models::SplitMix64 rng(seed ^ 0x6470747769736eull);  // a fixed salt so that seed 0 is not special
  std::vector<thermal::GpuSpread> spread(count);
  for (auto& s : spread) {
    s.power_scale = std::max(0.0, 1.0 + p.power_sigma * rng.normal());
    s.resistance_scale = std::max(0.05, 1.0 + p.resistance_sigma * rng.normal());
    s.leakage_scale = std::exp(p.leakage_sigma * rng.normal());
  }
  return spread;
}

}  // namespace dctwin::models::facility
