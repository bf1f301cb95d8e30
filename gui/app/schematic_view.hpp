// The cooling-loop schematic of one pod and the electrical single line of the facility at the time
// shown in the hall (SchematicModel, dctwin/gui/schematic.hpp): boxes with their values, the supply
// and return pipes coloured by their water's temperature on a fixed 10-70 degC scale, and feeders
// as wide as the power they carry. Painted with QPainter (no OpenGL). The report's values are read
// when the view is first shown, not when the report opens.
#pragma once

#include <QWidget>

#include <cstddef>
#include <memory>

#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/schematic.hpp"

namespace dctwin::gui {

class SchematicView : public QWidget {
  Q_OBJECT

 public:
  explicit SchematicView(QWidget* parent = nullptr);
  ~SchematicView() override;

  void set_report(std::shared_ptr<const ReportModel> report);
  /// The state at the sample nearest `t` [s].
  void set_time_cursor(double t);
  void set_pod(std::size_t pod);
  [[nodiscard]] std::size_t pod() const;
  /// What is drawn (empty without a report, and until the view is shown).
  [[nodiscard]] const SchematicState& state() const;
  [[nodiscard]] QWidget* canvas() const;
  bool export_png(const QString& file);

 Q_SIGNALS:
  void read_failed(const QString& message);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void refresh();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
