// The facility as two diagrams at one time, from a report: the cooling loop of one pod, from the
// outdoor air through the plant, the pod's CDU, pumps and CRAH units and its racks to its GPUs,
// and the electrical single line, from the utility through the MV transformers and the UPS to the
// IT and cooling loads. Each box lists the report's values at the time; what the report lacks is
// left out, and a box with no value is left out with its pipes or feeders. The pipes carry their
// water's temperature (supply and return), the feeders the power they carry. The grid's series are
// taken at the sample of the 1-ms record nearest the time (or on /time where the report keeps them
// there). No widgets: SchematicView (gui/app) draws it.
//
//   cooling:     Outdoor -- Plant ==facility water== Pod p ==pod coolant== Racks -- GPUs
//   electrical:  Utility -- MV transformers -- UPS and BBUs -- IT (GPUs)
//                                   \-- cooling load (plant, pod pumps)
//                 storage (battery, capacitor bank) on the MV bus
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "dctwin/gui/report_model.hpp"

namespace dctwin::gui {

/// One value of a box: {"facility water supply", "18 degC"}.
struct SchematicItem {
  std::string label;
  std::string value;
};

struct SchematicBox {
  std::string id;     ///< "outdoor", "plant", "pod", "racks", "gpus", "utility", "transformers", "ups", "it", "cooling_load", "storage"
  std::string title;  ///< "Pod 0: CDU, pumps, CRAH"
  std::vector<SchematicItem> items;
};

/// A pipe between two boxes of the cooling loop: supply (towards the GPUs) or return.
struct SchematicPipe {
  std::string from, to;   ///< box ids, from upstream (plant) to downstream (racks)
  bool supply = true;
  double temperature = 0.0;  ///< [K]
  std::string label;         ///< "facility water supply 18 degC"
};

/// A feeder of the single line, with the power it carries.
struct SchematicFeeder {
  std::string from, to;  ///< box ids
  double power = 0.0;    ///< [W]
  std::string label;     ///< "24.1 MW"
};

struct SchematicState {
  std::vector<SchematicBox> cooling;     ///< in the order of the loop, outdoor to GPUs
  std::vector<SchematicPipe> pipes;
  std::vector<SchematicBox> electrical;  ///< utility first; empty without electrical series
  std::vector<SchematicFeeder> feeders;
  [[nodiscard]] const SchematicBox* box(const std::string& id) const;
  /// The value of a box's item ("" when the box or the item is not there).
  [[nodiscard]] std::string value(const std::string& box_id, const std::string& label) const;
};

class SchematicModel {
 public:
  /// Reads the report's series on /time once. Throws io::ReportError when a part cannot be read.
  explicit SchematicModel(const ReportModel& report);
  [[nodiscard]] std::size_t pods() const { return pods_; }
  /// The diagrams at sample `time_index` for pod `pod` (reads rows of the [time x entity] fields,
  /// and the grid's 1-ms series on first use). Throws io::ReportError.
  [[nodiscard]] SchematicState at(std::size_t time_index, std::size_t pod) const;

 private:
  /// A series on /time at a sample, or of the 1-ms record at the time of that sample; NaN when
  /// the report has neither.
  [[nodiscard]] double series_at(const std::string& path, std::size_t time_index) const;
  /// Column `column` of a [time x entity] field at a sample (NaN without the field).
  [[nodiscard]] double entity_at(const std::string& path, std::size_t time_index, std::size_t column) const;

  const ReportModel& report_;
  std::size_t pods_ = 0;
  std::map<std::string, std::vector<double>> series_;  ///< per-sample series, by path
  mutable std::map<std::string, std::vector<double>> fine_;  ///< 1-ms series read so far
};

}  // namespace dctwin::gui
