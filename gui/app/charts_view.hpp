// Charts of a report's scalar series (and of all-GPU aggregates of the hall fields) with VTK's
// Charts module in the VTK bridge: choose series, zoom (wheel, right-drag box) and pan (left drag),
// reset, export PNG and CSV. Series of fine groups (/grid at 1 ms) are plotted on their own time
// axis, with the ramp rate of power series derived; the Spectrum mode plots the power spectrum of
// the ticked series against frequency with the 0.1-20 Hz band marked. Long series are decimated
// for display (min/max per x interval) and decimated again over the visible range after a zoom.
// While a run started from the editor is going, the view can follow it (set_live): the samples the
// run's thread produced so far, redrawn every second.
// Against time, the study's limits are drawn in the panels of the series they hold (a limit far
// from the data is named in the note instead), its events as vertical lines in every panel, and
// the time cursor (the time shown in the data hall) as a solid vertical line; a double click in
// the chart moves the cursor there and is passed on (time_picked) to the hall. With a second report
// open for comparison, its series are drawn dashed beside the first's (A/B overlay).
#pragma once

#include <QWidget>

#include <memory>

#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/study.hpp"

namespace dctwin::gui {

class ChartScene;
class LiveRun;
class VtkView;

class ChartsView : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { time, spectrum };

  explicit ChartsView(QWidget* parent = nullptr);
  ~ChartsView() override;

  /// The events and limits drawn with the report's series (set before set_report(); null: none).
  void set_study(std::shared_ptr<const Study> study);
  /// Report B of a comparison (null: none). Against time, each ticked series of B that B has is
  /// drawn beside A's, dashed in A's colour and named "B: ..." (the overlay, on by default; a
  /// series B lacks is named in the note).
  void set_other(std::shared_ptr<const ReportModel> other);
  void set_overlay(bool on);
  [[nodiscard]] bool overlay_shown() const;
  /// The time cursor at `t` [s] (NaN: none). Kept across redraws.
  void set_time_cursor(double t);
  /// The cursor's time [s] (NaN: none).
  [[nodiscard]] double time_cursor() const;
  /// Moves the cursor to the time under a position of the chart (widget pixels) and emits
  /// time_picked; false outside the plot area or in spectrum mode.
  bool pick_time_at(QPoint position);
  /// Charts a report (and stops following a live run).
  void set_report(std::shared_ptr<const ReportModel> report);
  /// Follows a run in progress: the series it has produced so far, redrawn every second while
  /// samples arrive (null: stop following). Zoom is reset at every refresh.
  void set_live(std::shared_ptr<const LiveRun> live);
  [[nodiscard]] bool following_live() const;
  /// Redraws from the live run if it produced samples since the last refresh; true when it did.
  bool refresh_live();
  /// Ids of the series offered: dataset paths (also of fine series, "/grid/power"),
  /// "max:/gpu/..." style ids for aggregates and "ramp:/grid/power" for ramp rates.
  [[nodiscard]] QStringList available() const;
  [[nodiscard]] QStringList checked() const;
  /// Checks exactly the given series (ids or dataset names); returns how many were found.
  int set_checked(const QStringList& ids);
  /// Against time (default) or the spectra of the ticked series.
  void set_mode(Mode mode);
  [[nodiscard]] Mode mode() const;
  /// Logarithmic frequency and energy axes of the spectrum (log frequency by default).
  void set_spectrum_log(bool log_frequency, bool log_energy);
  [[nodiscard]] ChartScene& chart() const;
  [[nodiscard]] VtkView* vtk_view() const;
  /// The CSV text of the series shown (full resolution).
  [[nodiscard]] std::string csv() const;
  /// What the note under the series list says (decimation, spectrum problems).
  [[nodiscard]] QString note() const;
  bool export_csv(const QString& file);
  bool export_png(const QString& file);

 Q_SIGNALS:
  /// Reading the report failed (a damaged part of it); the chart shows nothing.
  void read_failed(const QString& message);
  /// A time [s] was picked in the chart (double click).
  void time_picked(double t);

 private:
  /// Redraws; a read failure empties the chart and is passed on as read_failed.
  void rebuild();
  void draw();
  void populate_live();
  void update_note();
  bool eventFilter(QObject* watched, QEvent* event) override;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
