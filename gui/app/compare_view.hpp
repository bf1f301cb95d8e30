// Two reports compared in the data hall: side by side (same field and time; for the same hall one
// camera and one colour scale, for different halls each side its own) or as the difference A - B
// per rack on a diverging scale.
#pragma once

#include <QWidget>

#include <memory>

#include "dctwin/gui/report_model.hpp"

namespace dctwin::gui {

class HallScene;
class VtkView;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { side_by_side, difference };

  explicit CompareView(QWidget* parent = nullptr);
  ~CompareView() override;

  void set_reports(std::shared_ptr<const ReportModel> a, std::shared_ptr<const ReportModel> b);
  bool set_field(const QString& path_or_name);
  void set_mode(Mode mode);
  void set_time(double t);
  [[nodiscard]] Mode mode() const;
  [[nodiscard]] QString field() const;
  /// Per-rack values shown on the left (A, or A - B), in display units.
  [[nodiscard]] const std::vector<double>& left_values() const;
  [[nodiscard]] VtkView* left_view() const;
  [[nodiscard]] VtkView* right_view() const;
  /// True when both sides show the same hall, with one camera and one colour scale; false when the
  /// halls differ and each side has its own.
  [[nodiscard]] bool shared_view() const;
  [[nodiscard]] HallScene& left_scene() const;
  [[nodiscard]] HallScene& right_scene() const;
  /// Why the reports cannot be compared ("" when they can).
  [[nodiscard]] QString problem() const;

 Q_SIGNALS:
  /// Reading one of the reports failed (a damaged part of it); the view shows nothing.
  void read_failed(const QString& message);

 private:
  /// Redraws; a read failure empties the view and is passed on as read_failed.
  void refresh();
  void draw();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
