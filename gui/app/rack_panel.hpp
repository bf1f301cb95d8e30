// The panel of the picked rack: its servers and GPUs with the values of the shown field at the
// current time, and a chart of the GPUs' time series (or the rack's own series for rack fields),
// with the study's events and the field's limits.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/study.hpp"

namespace dctwin::gui {

class VtkView;
class ChartScene;

class RackPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RackPanel(QWidget* parent = nullptr);
  ~RackPanel() override;

  /// The events and limits drawn on the chart (event lines; limit lines of the field shown).
  void set_study(std::shared_ptr<const Study> study);
  /// Shows a rack (or clears the panel when `rack` is empty).
  void show_rack(const ReportModel* report, const FieldInfo* field, Reduction reduction,
                 std::optional<std::size_t> rack, std::size_t time_index);
  [[nodiscard]] QString title() const;
  [[nodiscard]] int gpu_row_count() const;
  [[nodiscard]] ChartScene& chart() const;
  [[nodiscard]] VtkView* chart_view() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
