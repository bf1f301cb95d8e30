// What a study looks for in a report beyond its fields: the events of the run (pump failures,
// recorded events such as a GPU shutdown, throttling starting and ending, the first time an
// operating envelope was left), the limits its series are held to (the GPU's thermal limits, the
// utility's limits at the grid connection) and the key figures (PUE, MFU, lost GPU-hours, grid
// limits kept) with the plant's state at a time. No widgets, no VTK; everything is read from the
// report through ReportModel:
//
//   /events/{time,component,event,message}      recorded events
//   /scenario/resolved                           the resolved scenario (YAML, SI values with their
//                                                units): pump failures (facility.pump_failures),
//                                                the GPU's temperatures (gpu.max_operating_temperature,
//                                                hw_slowdown_temperature, shutdown_temperature,
//                                                hbm_max_operating_temperature) and the grid limits
//                                                (electrical.limits, electrical.utility.frequency)
//   /summary/envelope_<check>_first              first time an operating envelope was left [s]
//   /summary/pue, mfu_mean, lost_gpu_hours_*, grid_limit_*, limit_violations
//   the GPU bitmask field (/gpu/throttle_reasons): throttling intervals
#pragma once

#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/gui/report_model.hpp"

namespace dctwin::gui {

struct StudyEvent {
  enum class Kind { pump_failure, recorded, throttling_start, throttling_end, envelope_left, electrical };
  Kind kind = Kind::recorded;
  double time = 0.0;  ///< [s]
  std::string text;   ///< "pod 0: 2 pumps failed"
};
/// "pump failure", "event", "throttling starts", "throttling ends", "envelope left", "electrical event"
[[nodiscard]] const char* study_event_kind_name(StudyEvent::Kind kind);
/// Every kind, in the order the charts' legends list them.
inline constexpr StudyEvent::Kind study_event_kinds[] = {
    StudyEvent::Kind::pump_failure,     StudyEvent::Kind::recorded,      StudyEvent::Kind::throttling_start,
    StudyEvent::Kind::throttling_end,   StudyEvent::Kind::envelope_left, StudyEvent::Kind::electrical};
/// The colour (RGB) of a kind's marks, the same on every chart and on the heat map.
[[nodiscard]] std::array<unsigned char, 3> study_event_colour(StudyEvent::Kind kind);

/// A limit a series or field is held to.
struct StudyLimit {
  /// What it applies to: a dataset path (a series, or a GPU field, whose charted max and mean and
  /// per-rack values it limits) or a chart id ("ramp:/grid/power").
  std::string target;
  double value = 0.0;  ///< SI; with `relative_to_first`, the allowed deviation from the first sample
  bool upper = true;   ///< exceeded above the value (false: below)
  /// The limit is the series' first sample +- value (frequency and voltage at the grid connection).
  bool relative_to_first = false;
  std::string label;   ///< "GPU max operating temperature" (where software thermal slowdown holds it)
  std::string source;  ///< the resolved scenario's key, "facility.gpu.max_operating_temperature"
};

struct Study {
  std::vector<StudyEvent> events;  ///< in time order
  std::vector<StudyLimit> limits;
  /// Problems met while reading (a key with an unexpected unit); the rest is still read.
  std::vector<std::string> notes;

  /// The limits of a chart id or dataset path: "max:/gpu/junction_temperature" and
  /// "mean:/gpu/junction_temperature" and "bands:/gpu/junction_temperature" take the field's
  /// limits; other ids are matched exactly.
  [[nodiscard]] std::vector<StudyLimit> limits_for(const std::string& id) const;
  /// The lowest upper limit of a field (not relative), or NaN when it has none.
  [[nodiscard]] double lowest_upper_limit(const std::string& path, std::string* label = nullptr) const;
};

/// Reads the events and limits of a report. Throws io::ReportError when a part cannot be read.
[[nodiscard]] Study read_study(const ReportModel& report);

/// Throttling intervals from the number of flagged GPUs per sample: events where it becomes
/// nonzero (with the largest count of the interval) and where it returns to zero (pure; tested).
[[nodiscard]] std::vector<StudyEvent> throttling_events(const std::vector<double>& time,
                                                        const std::vector<double>& flagged);

/// One line of the KPI panel.
struct KpiRow {
  enum class State { none, pass, fail };
  std::string section;  ///< "Run", "Job", "Plant", "Pods", "Grid"
  std::string name;     ///< "PUE"
  std::string value;    ///< "1.191", "pass", "62.3 degC" (display units)
  State state = State::none;
  std::string tooltip;  ///< where it comes from: "/summary/pue"
  /// A [time x entity] field over several entities: each one's value, in the row's unit
  /// ({"pod0", "23.82 degC"}, ...), in the order of the field's columns; empty otherwise.
  std::vector<std::pair<std::string, std::string>> parts = {};
};

/// The key figures of the run (/summary) and the state of the job, the plant, the pods and the
/// weather at a sample: every series on /time by its group, and every [time x pod] field as its
/// range over the pods with each pod's value (KpiRow::parts). The series are read once, at
/// construction.
class KpiModel {
 public:
  /// Throws io::ReportError when a part cannot be read.
  explicit KpiModel(const ReportModel& report);
  /// The run's figures, then the state at sample `time_index`.
  [[nodiscard]] std::vector<KpiRow> rows(std::size_t time_index) const;
  /// The run's figures only.
  [[nodiscard]] const std::vector<KpiRow>& run_rows() const { return run_rows_; }

 private:
  const ReportModel& report_;
  std::vector<KpiRow> run_rows_;
  struct Series {
    std::string section, name, units, path;
    std::vector<double> values;
  };
  std::vector<Series> series_;
};

}  // namespace dctwin::gui
