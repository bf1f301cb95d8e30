// Charts of a report's scalar series (and of all-GPU aggregates of the hall fields) with VTK's
// Charts module in the VTK bridge: choose series, zoom (wheel, right-drag box) and pan (left drag),
// reset, export PNG and CSV.
#pragma once

#include <QWidget>

#include <memory>

#include "dctwin/gui/report_model.hpp"

namespace dctwin::gui {

class ChartScene;
class VtkView;

class ChartsView : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsView(QWidget* parent = nullptr);
  ~ChartsView() override;

  void set_report(std::shared_ptr<const ReportModel> report);
  /// Ids of the series offered: dataset paths, and "max:/gpu/..." style ids for aggregates.
  [[nodiscard]] QStringList available() const;
  [[nodiscard]] QStringList checked() const;
  /// Checks exactly the given series (ids or dataset names); returns how many were found.
  int set_checked(const QStringList& ids);
  [[nodiscard]] ChartScene& chart() const;
  [[nodiscard]] VtkView* vtk_view() const;
  /// The CSV text of the series shown.
  [[nodiscard]] std::string csv() const;
  bool export_csv(const QString& file);
  bool export_png(const QString& file);

 private:
  void rebuild();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
