// Read access to a report for the views: which fields can colour the data hall, which scalar
// series can be charted, where the racks are, which GPUs each rack holds, and per-rack values of a
// field at a time (GPU fields reduced per rack). No widgets, no VTK.
//
// Conventions read from the report (discovered, nothing is hard-coded to a field name):
//   /index/<entity>          entity labels (`pod0/rack012/server1/gpu3`, `pod0/rack012`)
//   /layout/rack_position    [rack x 3] m, centre of each rack's footprint (z = 0)
//   /layout/rack_size        [3] m (width, depth, height)
//   /layout/rack_pod         [rack] pod index
//   /layout/gpu_rack         [gpu] index of the rack holding each GPU
//   any 2-D [time x entity] dataset whose `entity` attribute is `rack` or `gpu` is a hall field;
//   any 1-D [time] dataset other than /time is a chartable series;
//   a group holding a 1-D `time` dataset (other than the root) is a "fine" series group: its 1-D
//   datasets of the same length are series on that time axis of their own (/grid/time at 1 ms
//   with /grid/power, /grid/frequency, ...).
// A report without /layout (a single server today) is shown as one rack holding all its GPUs (or,
// when it has a `rack` index, as one row of racks).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dctwin/gui/units.hpp"

namespace dctwin::gui {

/// How GPU values are combined into one value per rack.
enum class Reduction { max, mean, count_nonzero };
[[nodiscard]] const char* reduction_name(Reduction reduction);  ///< "max", "mean", "count"

/// A per-time, per-entity dataset that can colour the hall.
struct FieldInfo {
  std::string path;       ///< "/gpu/junction_temperature"
  std::string entity;     ///< "gpu" or "rack"
  std::string units;      ///< SI unit as stored
  std::string long_name;  ///< "GPU junction temperature" (the path when the report has none)
  std::size_t count = 0;  ///< number of entities
  bool bitmask = false;   ///< flags (e.g. throttle reasons): reduced by counting nonzero values
};

/// A 1-D [time] dataset.
struct SeriesInfo {
  std::string path;
  std::string units;
  std::string long_name;
};

/// A group of series sampled on a time axis of their own, `/<group>/time` (e.g. /grid at 1 ms).
struct FineGroupInfo {
  std::string group;                ///< "/grid"
  std::string time_path;            ///< "/grid/time"
  std::size_t samples = 0;          ///< length of the time axis
  std::vector<SeriesInfo> series;   ///< the group's 1-D datasets of that length, path order
};

/// A discrete event the run recorded (/events: a threshold crossed, a shutdown).
struct ReportEvent {
  double time = 0.0;  ///< [s]
  std::string component, event, message;
};

/// A scalar figure of /summary.
struct SummaryValue {
  std::string name;  ///< "pue"
  double value = 0.0;
  std::string units, long_name;
};

/// Where the racks are and what they hold.
struct HallLayout {
  struct Vec3 {
    double x = 0, y = 0, z = 0;
  };
  std::vector<Vec3> rack_position;        ///< centre of the footprint [m]
  Vec3 rack_size{0.6, 1.2, 2.2};          ///< width, depth, height [m]
  std::vector<int> rack_pod;              ///< pod of each rack
  std::vector<std::string> rack_labels;
  std::vector<std::string> gpu_labels;
  std::vector<std::size_t> gpu_rack;      ///< rack of each GPU
  std::vector<std::vector<std::size_t>> rack_gpus;  ///< GPUs of each rack, in index order
  bool from_report = false;               ///< true when the report has /layout

  [[nodiscard]] std::size_t rack_count() const { return rack_position.size(); }
  [[nodiscard]] int pod_count() const;
};

class ReportModel {
 public:
  /// Opens a report. Throws io::ReportError with the reader's message when it cannot be read.
  explicit ReportModel(const std::filesystem::path& path);
  ~ReportModel();
  ReportModel(const ReportModel&) = delete;
  ReportModel& operator=(const ReportModel&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const;
  [[nodiscard]] std::string status() const;          ///< "complete" / "incomplete"
  [[nodiscard]] std::string status_reason() const;
  [[nodiscard]] std::string scenario_name() const;
  [[nodiscard]] const std::vector<double>& time() const;  ///< [s]
  [[nodiscard]] const HallLayout& layout() const;
  [[nodiscard]] const std::vector<FieldInfo>& hall_fields() const;
  [[nodiscard]] const std::vector<SeriesInfo>& series() const;
  [[nodiscard]] const FieldInfo* find_field(const std::string& path) const;
  /// Per-time datasets over entities other than GPUs and racks ([time x pod]: aisle temperatures,
  /// CRAH, pumps), with `entity` the entity's name; not hall fields.
  [[nodiscard]] const std::vector<FieldInfo>& entity_fields() const;
  /// Row `time_index` of any [time x entity] dataset, SI.
  [[nodiscard]] std::vector<double> row(const std::string& path, std::size_t time_index) const;
  /// The events of /events, in time order (empty when the report has none).
  [[nodiscard]] std::vector<ReportEvent> events() const;
  /// The figures of /summary, in the order they were written.
  [[nodiscard]] std::vector<SummaryValue> summary() const;
  /// The resolved scenario as YAML (/scenario/resolved; "" when absent).
  [[nodiscard]] std::string resolved_scenario() const;
  /// A series on the report's /time axis (not a fine series).
  [[nodiscard]] const SeriesInfo* find_series(const std::string& path) const;

  /// Groups of series on time axes of their own, in path order.
  [[nodiscard]] const std::vector<FineGroupInfo>& fine_groups() const;
  /// The fine group holding the series at `path`, or null.
  [[nodiscard]] const FineGroupInfo* fine_group_of(const std::string& path) const;
  /// A series of a fine group, or null.
  [[nodiscard]] const SeriesInfo* find_fine_series(const std::string& path) const;
  /// The time axis [s] of a fine group (read once, cached).
  [[nodiscard]] const std::vector<double>& fine_time(const FineGroupInfo& group) const;

  /// The field shown first: the GPU junction temperature when present, else the first field.
  [[nodiscard]] const FieldInfo* default_field() const;

  /// Index of the sample nearest to `t` [s] (0 for an empty report).
  [[nodiscard]] std::size_t time_index(double t) const;

  /// One value per rack of `field` at sample `time_index`, in SI (NaN for a rack without GPUs).
  /// Cached; cheap when called again.
  [[nodiscard]] const std::vector<double>& rack_values(const FieldInfo& field, Reduction reduction,
                                                       std::size_t time_index) const;
  /// Smallest and largest per-rack value over the run (over at most 64 evenly spaced samples of a
  /// long run), in SI; {0, 1} when there is no finite value.
  [[nodiscard]] std::pair<double, double> rack_value_range(const FieldInfo& field,
                                                           Reduction reduction) const;

  /// A 1-D series [time] (or [fine time] for a fine series), SI.
  [[nodiscard]] std::vector<double> series_values(const std::string& path) const;
  /// Time series of some entities of a field: result[k][time] for entities[k], SI.
  [[nodiscard]] std::vector<std::vector<double>> entity_series(
      const FieldInfo& field, std::span<const std::size_t> entities) const;
  /// One value per sample combining all entities of `field` (max or mean over all GPUs, or the
  /// number of nonzero values, e.g. throttled GPUs), SI. Reads every row once; cached.
  [[nodiscard]] const std::vector<double>& aggregate_series(const FieldInfo& field,
                                                            Reduction reduction) const;
  /// Values of all entities of `field` at one sample, SI.
  [[nodiscard]] std::vector<double> entity_row(const FieldInfo& field, std::size_t time_index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// How a field is shown with a reduction: its display unit (count reductions are shown as a
/// number of GPUs) and the legend title, e.g. "GPU junction temperature\nmax per rack [degC]".
struct FieldPresentation {
  DisplayUnit unit;
  std::string title;       ///< two lines: the name, then the reduction and unit
  std::string short_title; ///< one line: "GPU junction temperature, max per rack"
};
[[nodiscard]] FieldPresentation present_field(const FieldInfo& field, Reduction reduction,
                                              double typical_magnitude);
/// The reduction actually applied to a field (bitmask GPU fields are always counted; rack fields
/// are not reduced).
[[nodiscard]] Reduction effective_reduction(const FieldInfo& field, Reduction requested);

/// Reduces one row of GPU values to one value per rack (pure function, also used by tests).
[[nodiscard]] std::vector<double> reduce_per_rack(std::span<const double> gpu_values,
                                                  const HallLayout& layout, Reduction reduction);

}  // namespace dctwin::gui
