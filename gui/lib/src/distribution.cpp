#include "dctwin/gui/distribution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

namespace dctwin::gui {

double sorted_quantile(std::span<const double> sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  p = std::clamp(p, 0.0, 1.0);
  // Hyndman & Fan definition 7 with 0-based indices: h = (n - 1) p, j = floor(h), g = h - j.
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto j = static_cast<std::size_t>(std::floor(h));
  const double g = h - static_cast<double>(j);
  if (j + 1 >= sorted.size()) return sorted.back();
  return sorted[j] + g * (sorted[j + 1] - sorted[j]);
}

std::array<double, 5> row_quantiles(std::span<const double> values) {
  std::vector<double> finite;
  finite.reserve(values.size());
  for (const double v : values) {
    if (std::isfinite(v)) finite.push_back(v);
  }
  std::sort(finite.begin(), finite.end());
  std::array<double, 5> result{};
  for (std::size_t k = 0; k < band_probabilities.size(); ++k) result[k] = sorted_quantile(finite, band_probabilities[k]);
  return result;
}

PercentileBands percentile_bands(const ReportModel& report, const FieldInfo& field) {
  const std::size_t samples = report.time().size();
  PercentileBands bands;
  for (auto& q : bands.q) q.resize(samples);
  for (std::size_t t = 0; t < samples; ++t) {
    const auto quantiles = row_quantiles(report.entity_row(field, t));
    for (std::size_t k = 0; k < quantiles.size(); ++k) bands.q[k][t] = quantiles[k];
  }
  return bands;
}

const char* rack_order_name(RackOrder order) { return order == RackOrder::peak ? "peak" : "position"; }

double RackTimeMap::peak(std::size_t rack) const {
  double peak = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t t = 0; t < samples; ++t) {
    const double v = at(rack, t);
    if (std::isfinite(v) && !(v <= peak)) peak = v;
  }
  return peak;
}

RackTimeMap rack_time_map(const ReportModel& report, const FieldInfo& field, Reduction reduction) {
  const HallLayout& layout = report.layout();
  RackTimeMap map;
  map.racks = field.entity == "rack" ? field.count : layout.rack_count();
  map.samples = report.time().size();
  map.values.assign(map.racks * map.samples, std::numeric_limits<double>::quiet_NaN());
  const Reduction applied = effective_reduction(field, reduction);
  for (std::size_t t = 0; t < map.samples; ++t) {
    const std::vector<double> row = report.entity_row(field, t);
    const std::vector<double> per_rack = field.entity == "rack" ? row : reduce_per_rack(row, layout, applied);
    for (std::size_t r = 0; r < map.racks && r < per_rack.size(); ++r) map.values[r * map.samples + t] = per_rack[r];
  }
  return map;
}

std::vector<std::size_t> rack_order(const HallLayout& layout, const RackTimeMap& map, RackOrder order) {
  std::vector<std::size_t> racks(map.racks);
  std::iota(racks.begin(), racks.end(), std::size_t{0});
  if (order == RackOrder::peak) {
    std::vector<double> peaks(map.racks);
    for (std::size_t r = 0; r < map.racks; ++r) peaks[r] = map.peak(r);
    std::stable_sort(racks.begin(), racks.end(), [&](std::size_t a, std::size_t b) {
      const bool fa = std::isfinite(peaks[a]), fb = std::isfinite(peaks[b]);
      if (fa != fb) return fa;  // racks without a value go last
      return fa && peaks[a] > peaks[b];
    });
    return racks;
  }
  if (layout.rack_position.size() != map.racks) return racks;
  auto key = [&](std::size_t r) {
    const int pod = r < layout.rack_pod.size() ? layout.rack_pod[r] : 0;
    return std::make_tuple(pod, layout.rack_position[r].y, layout.rack_position[r].x);
  };
  std::stable_sort(racks.begin(), racks.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  return racks;
}

std::array<unsigned char, 3> sequential_colour(double f) {
  // The data hall's sequential map (hall_scene.cpp): after matplotlib's "plasma".
  struct Stop {
    double at, r, g, b;
  };
  constexpr Stop stops[] = {{0.00, 0.050, 0.030, 0.528}, {0.25, 0.494, 0.012, 0.658}, {0.50, 0.798, 0.280, 0.470},
                            {0.75, 0.973, 0.585, 0.254}, {1.00, 0.940, 0.975, 0.131}};
  if (!std::isfinite(f)) f = 0.0;
  f = std::clamp(f, 0.0, 1.0);
  std::size_t k = 1;
  while (k + 1 < std::size(stops) && stops[k].at < f) ++k;
  const Stop& a = stops[k - 1];
  const Stop& b = stops[k];
  const double s = std::clamp((f - a.at) / (b.at - a.at), 0.0, 1.0);
  auto channel = [&](double lo, double hi) { return static_cast<unsigned char>(std::lround(255.0 * (lo + s * (hi - lo)))); };
  return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

}  // namespace dctwin::gui
