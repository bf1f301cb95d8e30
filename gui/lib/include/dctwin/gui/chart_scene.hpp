// Line charts with VTK's Charts module (vtkChartXY panels in a vtkChartMatrix in a vtkContextView),
// without widgets: series against time (or frequency), zoom and pan by the charts' own mouse
// handling, and CSV export of what is shown.
//
// One panel per unit: the series are grouped by their display unit, in the order of first
// appearance, and each group gets a panel of its own with its own y axis titled with that unit
// (small multiples, stacked, over one shared x range). A series is never drawn against another
// unit's axis, so a 0.1-K swing is not flattened by a 100-GPU count. Zoom or pan in one panel moves
// the x range of all of them (refresh_detail()). Vertical markers (a frequency band's edges) span
// their panel's data and never widen its y range. Each panel's legend is placed where it hides no
// data (legend_corner()).
//
// Long series are decimated for display (series_tools.hpp decimate_min_max: the smallest and the
// largest sample of each of `ChartOptions::buckets` x intervals, so peaks stay visible); after a
// zoom or pan, refresh_detail() decimates again over the visible x range, so zooming in shows
// the samples themselves. The full-resolution series are kept for that and for the CSV.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <memory>
#include <string>
#include <vector>

class vtkContextView;

namespace dctwin::gui {

/// A shaded band between two curves around a series' line (e.g. the 5th to 95th percentile of all
/// GPUs), on the series' x; drawn under the lines, in the series' colour.
struct ChartBand {
  std::string name;  ///< legend entry, e.g. "p5-p95 over GPUs"
  std::vector<double> lower, upper;  ///< display units, same length as the series' values
};

/// One line of a chart, in display units.
struct ChartSeries {
  std::string name;  ///< legend entry, e.g. "Coolant return temperature"
  std::string unit;  ///< display unit, e.g. "degC"
  std::vector<double> values;
  /// The series' own x values (same length as `values`), e.g. a 1-ms grid series beside 1-s
  /// thermal series; empty: the chart's shared x.
  std::vector<double> x = {};
  /// Bands around the line, widest first (each drawn more transparent than the next).
  std::vector<ChartBand> bands = {};
  /// The palette entry of the line's colour (-1: its place among the series), and a dashed line:
  /// a second report's series beside the first's (an A/B overlay) takes its colour, dashed.
  int colour = -1;
  bool dashed = false;
};

/// A horizontal limit line drawn in the panel of a series (e.g. a GPU's 87 degC limit).
struct ChartLimit {
  std::size_t series = 0;  ///< index into the series: the line goes into that series' panel
  double value = 0.0;      ///< display units
  std::string label;       ///< legend entry, "GPU max operating temperature 87 degC"
};

/// Vertical event lines of one kind (pump failures, throttling starting), in every panel; the
/// kind is named in the lowest panel's legend.
struct ChartEvents {
  std::string label;           ///< legend entry, "pump failure"
  std::vector<double> x;       ///< x values of the events
  std::array<unsigned char, 3> colour{0, 0, 0};
};

struct ChartOptions {
  bool log_x = false;            ///< x values <= 0 are left out
  bool log_y = false;            ///< y values <= 0 are left out
  /// Decimation: x intervals across the visible range (2 points at most per interval and series);
  /// 0 draws every sample.
  std::size_t buckets = 2000;
  /// Vertical dashed lines (e.g. the edges of a frequency band), with their legend-free labels.
  std::vector<double> x_markers = {};
  /// Title of the y axis when all series share one panel; empty: built from the series' names and
  /// units.
  std::string left_title = {};
  /// Keep the user's zoom: when the chart was zoomed or panned into part of its data and the x axis
  /// keeps its title (and so its unit), the new series are shown over the same axis ranges (a live
  /// run's chart refreshing under the user). Otherwise the chart shows all of its data.
  bool keep_zoom = false;
  /// Limit lines. A limit is drawn when it lies within one data span of its panel's data (the
  /// axis then widens to show it and the margin to it); one further off would flatten the data
  /// and is listed by off_scale_limits() instead.
  std::vector<ChartLimit> limits = {};
  /// Event lines (dashed verticals spanning each panel's axis range).
  std::vector<ChartEvents> events = {};
};

class ChartScene {
 public:
  ChartScene();
  ~ChartScene();
  ChartScene(const ChartScene&) = delete;
  ChartScene& operator=(const ChartScene&) = delete;

  [[nodiscard]] vtkContextView* view() const;

  /// Replaces the chart's content. `x` is the shared x (time in `x_title`'s unit) of the series
  /// without x values of their own. Axis titles are built from the series' names and units.
  void set_series(const std::vector<double>& x, const std::string& x_title,
                  const std::vector<ChartSeries>& series, const std::string& title = {},
                  const ChartOptions& options = {});
  /// Back to the whole data range (after zooming or panning).
  void reset_zoom();
  /// Decimates again when the visible x range changed since the last decimation (a zoom or a
  /// pan); returns true when the chart's data changed (then render again).
  bool refresh_detail();
  [[nodiscard]] std::size_t series_count() const;
  /// Samples of all series (full resolution) and points handed to VTK after decimation.
  [[nodiscard]] std::size_t input_points() const;
  [[nodiscard]] std::size_t drawn_points() const;
  /// The visible x range [min, max] (unscaled, also on a log axis).
  [[nodiscard]] std::pair<double, double> visible_x() const;
  /// The x range the drawn points were decimated over (the visible range after refresh_detail()).
  [[nodiscard]] std::pair<double, double> decimated_x() const;
  [[nodiscard]] std::string title() const;
  /// Panels (one per display unit), top to bottom.
  [[nodiscard]] std::size_t panel_count() const;
  /// The y axis title of a panel, e.g. "[degC]" or "Model FLOPs utilisation".
  [[nodiscard]] std::string panel_axis_title(std::size_t panel) const;
  /// The y range a panel's axis shows, and the range of the data drawn in it (markers excluded).
  [[nodiscard]] std::pair<double, double> panel_y_axis(std::size_t panel) const;
  [[nodiscard]] std::pair<double, double> panel_y_data(std::size_t panel) const;
  /// Where a panel's legend is: 0 top right, 1 top left, 2 bottom right, 3 bottom left of its plot
  /// area. It goes to the first corner where it hides no drawn point; when there is none (and
  /// the chart is not zoomed) the y axis is raised to make room above the data at the top right.
  /// Updated before every frame (the free corner depends on the panel's size in pixels). -1: no
  /// legend, since it would cover more than 60 % of the panel's height or width.
  [[nodiscard]] int legend_corner(std::size_t panel) const;
  /// Drawn points under a panel's legend (estimated from its entries; 0 unless zoomed).
  [[nodiscard]] std::size_t points_under_legend(std::size_t panel) const;
  /// Bands drawn in a panel (shaded areas).
  [[nodiscard]] std::size_t panel_bands(std::size_t panel) const;
  /// Limit lines drawn in a panel, and event lines (one per event) in each panel.
  [[nodiscard]] std::size_t panel_limit_lines(std::size_t panel) const;
  [[nodiscard]] std::size_t panel_event_lines(std::size_t panel) const;
  /// Limits of the last set_series() too far from their panel's data to draw, as text:
  /// "GPU max operating temperature 87 degC: 21.9 degC above the data".
  [[nodiscard]] const std::vector<std::string>& off_scale_limits() const;
  /// The time cursor: a solid vertical line at x in every panel (nothing: none).
  void set_cursor(std::optional<double> x);
  [[nodiscard]] std::optional<double> cursor() const;
  /// The x value under a display position's horizontal coordinate [pixels from the left of the
  /// render window], from the lowest panel's x axis; nothing outside the plot area.
  [[nodiscard]] std::optional<double> x_at_display(double display_x) const;
  /// The panel of series k of the last set_series().
  [[nodiscard]] std::size_t panel_of(std::size_t series) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct Study;
/// A study's events as event lines: one ChartEvents per kind that occurs (in study_event_kinds
/// order, in the kind's colour), at x = time [s] / seconds_per_x.
[[nodiscard]] std::vector<ChartEvents> study_chart_events(const Study& study, double seconds_per_x);

/// CSV text: a header `time [s],name [unit],...` and one row per sample, values with 10
/// significant digits. A band adds two columns after its series: `name, band lower [unit]` and
/// `name, band upper [unit]`. Names are quoted when they contain a comma or a quote. When a series has
/// x values of its own, every series gets its own x column (`x_title`) before its values, and
/// shorter columns are left empty at the end.
[[nodiscard]] std::string chart_csv(const std::vector<double>& x, const std::string& x_title,
                                    const std::vector<ChartSeries>& series);

}  // namespace dctwin::gui
