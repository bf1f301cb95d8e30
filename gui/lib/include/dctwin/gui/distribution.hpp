// The spread of a field over its entities, for study views that replace thousands of overplotted
// lines: percentile bands over time (min, p5, p50, p95, max of all GPUs at each sample) and the
// rack x time map (one value per rack and sample, racks ordered by their place in the hall or by
// their peak). No widgets, no VTK.
//
// Percentiles are those of the sample by linear interpolation between order statistics (Hyndman
// and Fan 1996, "Sample quantiles in statistical packages", The American Statistician 50(4),
// definition 7; numpy's default): with the n finite values sorted, x_(1) <= ... <= x_(n),
//
//     Q(p) = x_(j) + g (x_(j+1) - x_(j)),   h = (n - 1) p + 1,  j = floor(h),  g = h - j,
//
// so Q(0) is the minimum, Q(1) the maximum and Q(0.5) the median. NaN values (a GPU without a
// value) are left out; a sample without any finite value gives NaN.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "dctwin/gui/report_model.hpp"

namespace dctwin::gui {

/// Q(p) of values already sorted ascending (finite), 0 <= p <= 1; NaN when empty.
[[nodiscard]] double sorted_quantile(std::span<const double> sorted, double p);

/// The probabilities of the bands: min, p5, p50, p95, max.
inline constexpr std::array<double, 5> band_probabilities{0.0, 0.05, 0.5, 0.95, 1.0};

/// One value per sample for each of band_probabilities (SI), over all entities of a field.
struct PercentileBands {
  std::array<std::vector<double>, 5> q;  ///< q[k][time] = Q(band_probabilities[k]) at that sample
  [[nodiscard]] const std::vector<double>& min() const { return q[0]; }
  [[nodiscard]] const std::vector<double>& p5() const { return q[1]; }
  [[nodiscard]] const std::vector<double>& median() const { return q[2]; }
  [[nodiscard]] const std::vector<double>& p95() const { return q[3]; }
  [[nodiscard]] const std::vector<double>& max() const { return q[4]; }
};

/// The quantiles of one row of values (NaN left out).
[[nodiscard]] std::array<double, 5> row_quantiles(std::span<const double> values);

/// The bands of `field` over all its entities at every sample of the report (reads every row).
[[nodiscard]] PercentileBands percentile_bands(const ReportModel& report, const FieldInfo& field);

/// How the rows of a rack x time map are ordered, top to bottom.
enum class RackOrder {
  position,  ///< by pod, then along the hall: y (row of racks), then x (place in the row)
  peak,      ///< by the rack's largest value over the run, largest first (NaN last)
};
[[nodiscard]] const char* rack_order_name(RackOrder order);  ///< "position", "peak"

/// One value per rack and sample (SI): GPU fields reduced per rack, rack fields as stored.
struct RackTimeMap {
  std::size_t racks = 0, samples = 0;
  std::vector<double> values;  ///< values[rack * samples + time], rack in the report's index order
  [[nodiscard]] double at(std::size_t rack, std::size_t time) const { return values[rack * samples + time]; }
  /// The rack's largest finite value over the run (NaN when it has none).
  [[nodiscard]] double peak(std::size_t rack) const;
};

/// Reads the map of a field (reads every row once).
[[nodiscard]] RackTimeMap rack_time_map(const ReportModel& report, const FieldInfo& field, Reduction reduction);

/// The racks in display order, top row first. Ties keep the report's index order.
[[nodiscard]] std::vector<std::size_t> rack_order(const HallLayout& layout, const RackTimeMap& map,
                                                  RackOrder order);

/// The colour of a fraction f in [0, 1] of a colour range on the data hall's sequential map
/// (after matplotlib's "plasma"), as 8-bit RGB; f is clamped.
[[nodiscard]] std::array<unsigned char, 3> sequential_colour(double f);

}  // namespace dctwin::gui
