// The key figures of a study beside the views: the run's PUE, MFU, lost GPU-hours, grid limits
// kept or not and limits exceeded (from /summary), and the job, plant, pods and weather at the
// time shown in the data hall (KpiModel, dctwin/gui/study.hpp). Pass and fail are coloured.
#pragma once

#include <QWidget>

#include <memory>

#include "dctwin/gui/report_model.hpp"

class QLabel;
class QTreeWidget;

namespace dctwin::gui {

class KpiModel;

class KpiPanel : public QWidget {
  Q_OBJECT

 public:
  explicit KpiPanel(QWidget* parent = nullptr);
  ~KpiPanel() override;

  /// Shows a report's figures at its first sample (null: nothing).
  void set_report(std::shared_ptr<const ReportModel> report);
  /// Shows the state at the sample nearest to `t` [s].
  void set_time(double t);
  [[nodiscard]] QTreeWidget* tree() const;
  /// The value shown for a figure, e.g. value_of("PUE") == "1.191" ("" when there is none).
  [[nodiscard]] QString value_of(const QString& name) const;
  /// The heading: "At t = 4 min" ("" without a report).
  [[nodiscard]] QString heading() const;

 Q_SIGNALS:
  /// Reading the report failed (a damaged part of it).
  void read_failed(const QString& message);

 private:
  void fill();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
