// The validation view: a report of `dctwin validate` shown as measured against simulated series of
// one quantity and trace GPU (selectors), and the table of error metrics (MAE, RMSE, bias,
// CV(RMSE), NMBE, max error, lag, n) of every quantity per GPU and pooled, with units.
#pragma once

#include <QWidget>

#include <memory>

#include "dctwin/gui/validation_model.hpp"

class QTableWidget;

namespace dctwin::gui {

class ChartScene;
class VtkView;

class ValidationView : public QWidget {
  Q_OBJECT

 public:
  explicit ValidationView(QWidget* parent = nullptr);
  ~ValidationView() override;

  void set_report(std::shared_ptr<const ValidationModel> report);
  [[nodiscard]] std::shared_ptr<const ValidationModel> report() const;
  /// Shows `quantity` (power, junction_temperature, sm_clock) for trace GPU `gpu`; false when the
  /// report has no such quantity or GPU.
  bool select(const QString& quantity, int gpu);
  [[nodiscard]] QString quantity() const;
  [[nodiscard]] int gpu() const;

  [[nodiscard]] QTableWidget* metrics_table() const;
  /// The value in the table for `quantity`, a GPU label (or "all") and a metric name (mae, rmse,
  /// bias, cv_rmse, nmbe, max_error, lag, count), in the table's display unit (see unit_of);
  /// NaN when there is no such cell.
  [[nodiscard]] double table_value(const QString& quantity, const QString& gpu_label, const QString& metric) const;
  /// The display unit of a metric of a quantity as the table shows it ("W", "K", "MHz", "%", "s", "").
  [[nodiscard]] QString table_unit(const QString& quantity, const QString& metric) const;
  [[nodiscard]] ChartScene& chart() const;
  [[nodiscard]] VtkView* vtk_view() const;

 private:
  void fill_table();
  void rebuild_chart();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
