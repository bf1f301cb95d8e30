// Line charts with VTK's Charts module (vtkChartXY in a vtkContextView), without widgets: series
// against time with a left and a right axis, zoom and pan by the chart's own mouse handling, and
// CSV export of what is shown.
#pragma once

#include <memory>
#include <string>
#include <vector>

class vtkContextView;

namespace dctwin::gui {

/// One line of a chart, in display units.
struct ChartSeries {
  std::string name;  ///< legend entry, e.g. "Coolant return temperature"
  std::string unit;  ///< display unit, e.g. "degC"
  std::vector<double> values;
  bool right_axis = false;
};

class ChartScene {
 public:
  ChartScene();
  ~ChartScene();
  ChartScene(const ChartScene&) = delete;
  ChartScene& operator=(const ChartScene&) = delete;

  [[nodiscard]] vtkContextView* view() const;

  /// Replaces the chart's content. `x` is the time in `x_title`'s unit; every series has x.size()
  /// values. Axis titles are built from the series' names and units.
  void set_series(const std::vector<double>& x, const std::string& x_title,
                  const std::vector<ChartSeries>& series, const std::string& title = {});
  /// Back to the whole data range (after zooming or panning).
  void reset_zoom();
  [[nodiscard]] std::size_t series_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// CSV text: a header `time [s],name [unit],...` and one row per sample, values with 10
/// significant digits. Names are quoted when they contain a comma or a quote.
[[nodiscard]] std::string chart_csv(const std::vector<double>& x, const std::string& x_title,
                                    const std::vector<ChartSeries>& series);

}  // namespace dctwin::gui
