// The scenario editor: a form generated from the scenario schema's parameter tables (one field per
// parameter with its unit, default and range; sections and lists as groups), checked as you type
// with the same functions and messages as `dctwin check`, saved as YAML, and run in a worker
// thread with progress and cancel.
#pragma once

#include <QWidget>

#include <memory>

namespace dctwin::gui {

class LiveRun;
class ScenarioForm;

class ScenarioEditor : public QWidget {
  Q_OBJECT

 public:
  explicit ScenarioEditor(QWidget* parent = nullptr);
  ~ScenarioEditor() override;

  /// Loads a scenario file into the form; false (with a message shown) when it cannot be read.
  bool open(const QString& file);
  /// Writes the form as YAML to `file`, which becomes the editor's file.
  bool save_as(const QString& file);
  /// The file name used in messages (the file opened or saved, "untitled.yaml" before).
  [[nodiscard]] QString file_label() const;

  /// Types `text` into the field of `key_path` (as the user would) and checks the form at once.
  bool set_value(const QString& key_path, const QString& text);
  /// Checks the form now; returns the message shown ("" when the scenario is valid).
  QString check_now();
  /// The message shown for the whole form, and the inline message of a field ("" when none).
  [[nodiscard]] QString message() const;
  [[nodiscard]] QString field_message(const QString& key_path) const;
  [[nodiscard]] ScenarioForm& form() const;

  /// Starts a run of the form's scenario writing `report`; false when the form is invalid or a
  /// run is going on.
  bool start_run(const QString& report);
  void cancel_run();
  [[nodiscard]] bool running() const;
  /// The samples of the current (or last) run so far, filled by the run's thread; null before the
  /// first run.
  [[nodiscard]] std::shared_ptr<const LiveRun> live_run() const;

 Q_SIGNALS:
  /// A run ended; `report` was written (complete or incomplete), `summary` says how it ended.
  void run_finished(const QString& report, const QString& summary, bool ok);
  void progress(double fraction);
  /// A run started; live_run() holds its samples as they come.
  void run_started();

 private:
  void rebuild_form();
  void show_problem();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
