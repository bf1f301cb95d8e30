// The 3-D data hall: racks coloured by a field at a time, with field and reduction choosers, a time
// slider with playback, camera presets, and the rack panel that opens when a rack is picked.
// Beside the hall: the colour range (over the whole run, of the time shown, or limits typed in),
// the spread of the values at the time shown, and the table of the largest values (GPUs for a GPU
// field, racks otherwise) whose rows fly the camera to their rack. Hovering over a rack shows its
// name and value (and its hottest GPU) in a tooltip. With the study's limits, the racks over the
// limit of the field shown (a GPU field's racks holding a GPU over it) are framed in red and the
// table's rows over it are marked; the study's events are listed, and a click on one moves to
// its time.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "dctwin/gui/hall_scene.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/study.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QSlider;
class QTableWidget;
class QToolButton;

namespace dctwin::gui {

class RackPanel;
class VtkView;

class HallView : public QWidget {
  Q_OBJECT

 public:
  /// How the colour scale's range is chosen: the field's range over the whole run (colours compare
  /// between times), the range of the values at the time shown (the palette spans today's spread),
  /// or limits typed in (display units).
  enum class RangeMode { run, frame, limits };

  /// One row of the table of largest values (display units).
  struct TopEntry {
    std::string label;  ///< GPU or rack label
    std::size_t rack = 0;
    double value = 0.0;
  };
  /// Rows of the table of largest values.
  static constexpr std::size_t top_count = 10;

  explicit HallView(QWidget* parent = nullptr);
  ~HallView() override;

  void set_report(std::shared_ptr<const ReportModel> report);
  [[nodiscard]] const ReportModel* report() const;
  /// The events and limits of the report (set before set_report(); null: none).
  void set_study(std::shared_ptr<const Study> study);

  /// Racks over the limit of the field shown at the time shown (empty without a limit).
  [[nodiscard]] const std::vector<std::size_t>& alarm_racks() const;
  /// "Over GPU max operating temperature (software thermal slowdown), 87 degC: 12 racks, 31 GPUs"
  /// ("" when the field has no limit).
  [[nodiscard]] QString alarm_text() const;
  /// The list of the study's events (row k: event k); a click moves the time to the event.
  [[nodiscard]] QListWidget* events_list() const;

  /// Path of the field shown ("" when none).
  [[nodiscard]] QString field() const;
  /// Shows a field by path or dataset name; false when the report has no such field.
  bool set_field(const QString& path_or_name);
  [[nodiscard]] Reduction reduction() const;
  void set_reduction(Reduction reduction);
  [[nodiscard]] std::size_t time_index() const;
  [[nodiscard]] double time() const;  ///< [s]
  void set_time_index(std::size_t index);
  /// Moves to the sample nearest to `t` [s].
  void set_time(double t);
  [[nodiscard]] std::optional<std::size_t> selected_rack() const;
  void select_rack(std::optional<std::size_t> rack);
  void apply_camera(CameraPreset preset);
  void set_playing(bool playing);
  [[nodiscard]] bool playing() const;

  [[nodiscard]] VtkView* vtk_view() const;
  [[nodiscard]] HallScene& scene() const;
  [[nodiscard]] RackPanel* rack_panel() const;
  /// Widget position of the top of a rack in the 3-D view (for tests and tooltips).
  [[nodiscard]] QPoint rack_position_in_view(std::size_t rack) const;
  /// The per-rack values shown, in display units.
  [[nodiscard]] const std::vector<double>& shown_values() const;
  /// Legend title (with the display unit).
  [[nodiscard]] QString legend_title() const;

  [[nodiscard]] RangeMode range_mode() const;
  void set_range_mode(RangeMode mode);
  /// Limits of the colour scale in display units (switches to RangeMode::limits).
  void set_limits(double lo, double hi);
  /// The colour scale's range now, display units.
  [[nodiscard]] std::pair<double, double> colour_range() const;
  /// The table of largest values at the time shown, largest first.
  [[nodiscard]] const std::vector<TopEntry>& top_entries() const;
  [[nodiscard]] QTableWidget* top_table() const;
  /// Flies the camera to the rack of a row of the table and selects it.
  void fly_to_top(int row);
  /// The tooltip text for a widget position in the 3-D view ("" over no rack).
  [[nodiscard]] QString tooltip_at(QPoint position) const;

 Q_SIGNALS:
  void field_changed(const QString& path);
  void time_changed(double t);
  void rack_selected(int rack);  ///< -1 when the selection is cleared
  /// Reading the report failed (a damaged part of it); the view shows nothing of the field.
  void read_failed(const QString& message);

 private:
  /// Redraws; a read failure empties the view and is passed on as read_failed.
  void refresh();
  void draw();
  void on_clicked(QPoint position);
  void on_hovered(QPoint position);
  void fill_top(const FieldInfo& info, const FieldPresentation& presentation, std::size_t t);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
