// The data hall's layout: pods of racks in rows, servers in racks, GPUs in servers; labels,
// index maps and positions (for reports and the 3D view), and the seeded manufacturing spread.
//
// Numbering: rack r = pod * racks_per_pod + k; GPU g = (r * servers_per_rack + s) * gpus_per_server + i.
// Meta's Llama 3 cluster: 8 pods x 192 racks x 2 servers x 8 GPUs = 24,576 GPUs ([meta-llama3-2024]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"

namespace dctwin::models::facility {

struct LayoutParameters {
  std::int64_t pods = 8;
  std::int64_t racks_per_pod = 192;
  std::int64_t servers_per_rack = 2;
  std::int64_t gpus_per_server = 8;
  std::int64_t rows_per_pod = 8;     ///< racks of a pod stand in this many rows
  std::int64_t pods_per_row = 4;     ///< pods side by side along x before the next row of pods
  double rack_width = 0.6;           ///< [m]
  double rack_depth = 1.2;           ///< [m]
  double rack_height = 2.2;          ///< [m]
  double row_pitch = 3.6;            ///< [m] centre to centre of two rows (rack + half of each aisle)
  double pod_gap = 6.0;              ///< [m] between pods

  static core::ParameterTable table();
  static LayoutParameters from(const core::ParameterTree& section);
};

class FacilityLayout {
 public:
  explicit FacilityLayout(LayoutParameters p);

  [[nodiscard]] std::size_t pods() const { return pods_; }
  [[nodiscard]] std::size_t racks() const { return racks_; }
  [[nodiscard]] std::size_t servers() const { return racks_ * servers_per_rack_; }
  [[nodiscard]] std::size_t gpus() const { return gpus_; }
  [[nodiscard]] std::size_t racks_per_pod() const { return racks_per_pod_; }
  [[nodiscard]] std::size_t gpus_per_rack() const { return gpus_per_rack_; }
  [[nodiscard]] std::size_t gpus_per_server() const { return gpus_per_server_; }
  [[nodiscard]] std::size_t servers_per_rack() const { return servers_per_rack_; }
  [[nodiscard]] std::size_t rack_of_gpu(std::size_t g) const { return g / gpus_per_rack_; }
  [[nodiscard]] std::size_t server_of_gpu(std::size_t g) const { return g / gpus_per_server_; }
  [[nodiscard]] std::size_t pod_of_rack(std::size_t r) const { return r / racks_per_pod_; }
  [[nodiscard]] std::vector<std::string> gpu_labels() const;    ///< "pod0/rack012/server1/gpu3"
  [[nodiscard]] std::vector<std::string> rack_labels() const;   ///< "pod0/rack012"
  [[nodiscard]] std::vector<std::string> pod_labels() const;    ///< "pod0"
  /// /layout/rack_position [rack x 3], /layout/rack_size [3], /layout/rack_pod [rack],
  /// /layout/gpu_rack [gpu], /layout/gpu_server [gpu].
  [[nodiscard]] std::vector<core::StaticData> static_data() const;
  [[nodiscard]] const LayoutParameters& parameters() const { return p_; }

 private:
  LayoutParameters p_;
  std::size_t pods_, racks_per_pod_, racks_, servers_per_rack_, gpus_per_server_, gpus_per_rack_, gpus_;
};

/// Manufacturing spread of GPUs, drawn from a seed.
struct SpreadParameters {
  double power_sigma = 0.02;       ///< relative standard deviation of scheduled power [1]
  double resistance_sigma = 0.05;  ///< relative standard deviation of R_jb (thermal interface) [1]
  double leakage_sigma = 0.15;     ///< standard deviation of ln(leakage scale) [1]

  static core::ParameterTable table();
  static SpreadParameters from(const core::ParameterTree& section);
};

/// Per-GPU scales: power and resistance normal (truncated at +-4 sigma), leakage log-normal with
/// median 1. Deterministic for a seed on every platform (SplitMix64 and Box-Muller, no
/// implementation-defined library distributions).
std::vector<thermal::GpuSpread> draw_spread(const SpreadParameters& p, std::size_t count, std::uint64_t seed);

}  // namespace dctwin::models::facility
