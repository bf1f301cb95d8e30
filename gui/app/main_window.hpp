// The main window: a scenario browser (scenarios/ and recent files), and tabs for the data hall,
// the charts, the scenario editor (with runs), the comparison of two reports, the validation
// view (reports of `dctwin validate`), the rack x time heat map and the schematic (a pod's cooling
// loop and the electrical single line at the hall's time).
//
// Reports are read in a worker thread (the check in a separate process, the file's index, the
// layout and the first field's range), with a progress bar and the step in the status bar; the
// window keeps drawing meanwhile (input waits until the read ends). An open report is followed: when the file grows or
// is replaced (a run writing it, a new run's report renamed over it), it is read again in the
// background and the views keep their field, selection and time (the last sample when they showed
// the last). A report still being written (a run's temporary `.NAME.TAG.part`, or a file that
// changed while it was read) that cannot be read yet gives a status line, not an error, and is
// opened as soon as it can be.
//
// The study's events and limits (read with the report) go to the hall and the charts; the key
// figures panel sits beside the views. One time is shown everywhere: moving the hall's time moves
// the charts' and the heat map's cursor and the key figures, and a time picked in the charts or
// the heat map moves the hall (a heat map cell also selects its rack).
#pragma once

#include <QMainWindow>

#include <cstddef>
#include <functional>
#include <memory>

namespace dctwin::gui {

class ChartsView;
class CompareView;
class HallView;
class HeatMapView;
class SchematicView;
class KpiPanel;
class ScenarioEditor;
class ValidationView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class View { hall, charts, scenario, compare, validation, heat_map, schematic };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens a report (.h5) or a scenario (.yaml/.yml). Errors go to a dialog when interactive, and
  /// to `last_error()` and `error_reported` in any case. A report is first read by a separate
  /// process (check_report, dctwin/gui/report_check.hpp): one that crashes or hangs libhdf5 there
  /// is refused with a message, and the application keeps running.
  bool open_file(const QString& file);
  /// Opens a simulation report, or a validation report (then in the validation view).
  bool open_report(const QString& file);
  bool open_validation(const QString& file);
  bool open_scenario(const QString& file);
  /// Opens a second report and shows the comparison with the current one.
  bool compare_with(const QString& file);
  void show_view(View view);
  [[nodiscard]] View current_view() const;
  [[nodiscard]] QString last_error() const;
  [[nodiscard]] QStringList recent_files() const;
  /// The report file followed for changes ("" when none).
  [[nodiscard]] QString followed_file() const;
  /// The status line (what is open, being read, or waited for).
  [[nodiscard]] QString status_text() const;
  /// True while a report is being read in the background.
  [[nodiscard]] bool loading() const;
  /// Reads the followed report again now when it changed since it was read (the file watcher's
  /// action, after the file has been quiet for a second); true when it was read again.
  bool reload_followed();
  /// Dialogs on errors (on by default; off for screenshots and tests).
  void set_interactive(bool interactive);
  void set_scenarios_directory(const QString& directory);
  /// Shows or hides the scenario browser (hidden in screenshots unless asked for).
  void set_browser_visible(bool visible);
  /// Shows or hides the key figures beside the views (hidden in screenshots unless asked for).
  void set_kpi_visible(bool visible);

  /// Writes the window as it shows each sample from `from` to `to` [s] as DIRECTORY/frame-0000.png,
  /// frame-0001.png, ... and DIRECTORY/frames.csv (frame, file, time [s]). The hall's time moves
  /// to each sample, and with it the charts' and the heat map's cursor and the key figures. At most
  /// `max_frames` frames: every k-th sample when the range holds more. `progress(done, total)` is
  /// called after each frame; false stops the export. The hall's time is put back at the end.
  /// Returns the frames written; throws std::invalid_argument when there is nothing to write (no
  /// report open, no sample in the range, no frames asked for) and std::runtime_error when a file
  /// cannot be written, each with the reason.
  static constexpr std::size_t animation_frames_default = 200;  ///< frames when none are asked for
  std::size_t export_animation(const QString& directory, double from, double to, std::size_t max_frames,
                               const std::function<bool(std::size_t, std::size_t)>& progress = {});

  [[nodiscard]] HallView* hall() const;
  [[nodiscard]] ChartsView* charts() const;
  [[nodiscard]] ScenarioEditor* editor() const;
  [[nodiscard]] CompareView* compare() const;
  [[nodiscard]] ValidationView* validation() const;
  [[nodiscard]] HeatMapView* heat_map() const;
  [[nodiscard]] SchematicView* schematic() const;
  [[nodiscard]] KpiPanel* kpi() const;

 Q_SIGNALS:
  /// Every error shown to the user (also when not interactive), e.g. a damaged report.
  void error_reported(const QString& message);
  /// The followed report was read again after it changed.
  void report_reloaded(const QString& file);

 private:
  struct Loaded;
  /// Reads a report in a worker thread while this thread keeps handling events.
  Loaded load_in_background(const QString& file);
  bool apply_report(const QString& file, Loaded loaded, bool reload);
  void follow(const QString& file);
  void on_followed_changed();
  void add_recent(const QString& file);
  void refresh_browser();
  void report_error(const QString& message);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
