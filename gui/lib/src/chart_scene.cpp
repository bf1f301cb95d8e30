#include "dctwin/gui/chart_scene.hpp"

#include <vtkAxis.h>
#include <vtkChartLegend.h>
#include <vtkChartXY.h>
#include <vtkContextMouseEvent.h>
#include <vtkContextScene.h>
#include <vtkContextView.h>
#include <vtkDoubleArray.h>
#include <vtkNew.h>
#include <vtkPen.h>
#include <vtkPlot.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkTable.h>
#include <vtkTextProperty.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "dctwin/gui/series_tools.hpp"
#include "dctwin/gui/units.hpp"

namespace dctwin::gui {
namespace {

// A qualitative palette (after Paul Tol's "bright" scheme) that stays readable on white.
constexpr unsigned char palette[][3] = {{68, 119, 170}, {238, 102, 119}, {34, 136, 51},
                                        {204, 187, 68}, {102, 204, 238}, {170, 51, 119},
                                        {187, 187, 187}, {0, 0, 0}};

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string axis_title(const std::vector<ChartSeries>& series, bool right) {
  std::set<std::string> units;
  std::string name;
  int count = 0;
  for (const auto& s : series) {
    if (s.right_axis != right) continue;
    units.insert(s.unit);
    name = s.name;
    ++count;
  }
  if (count == 0) return {};
  std::string unit_text;
  for (const auto& unit : units) unit_text += (unit_text.empty() ? "" : ", ") + unit;
  if (count == 1) return title_with_unit(name, unit_text);
  return unit_text == "1" ? std::string() : "[" + unit_text + "]";
}

vtkSmartPointer<vtkTable> make_table(const std::string& x_name, const std::string& y_name, const XySeries& points) {
  auto table = vtkSmartPointer<vtkTable>::New();
  vtkNew<vtkDoubleArray> x_column, y_column;
  x_column->SetName(x_name.c_str());
  y_column->SetName(y_name.c_str());
  const auto n = static_cast<vtkIdType>(points.x.size());
  x_column->SetNumberOfValues(n);
  y_column->SetNumberOfValues(n);
  for (vtkIdType i = 0; i < n; ++i) {
    x_column->SetValue(i, points.x[static_cast<std::size_t>(i)]);
    y_column->SetValue(i, points.y[static_cast<std::size_t>(i)]);
  }
  table->AddColumn(x_column);
  table->AddColumn(y_column);
  return table;
}

}  // namespace

struct ChartScene::Impl {
  vtkNew<vtkContextView> view;
  vtkNew<vtkChartXY> chart;
  struct Line {
    std::vector<double> x, y;  // full resolution, display units
    std::string column;
    vtkSmartPointer<vtkTable> table;
  };
  std::vector<Line> lines;
  std::vector<vtkSmartPointer<vtkTable>> marker_tables;
  ChartOptions options;
  std::string x_title;
  double full_lo = 0.0, full_hi = 1.0;         // x range of the data
  double shown_lo = 0.0, shown_hi = 1.0;       // x range of the last decimation
  std::size_t count = 0;

  Impl() {
    view->GetRenderer()->SetBackground(1.0, 1.0, 1.0);
    view->GetScene()->AddItem(chart);
    chart->SetShowLegend(true);
    chart->GetLegend()->SetHorizontalAlignment(vtkChartLegend::RIGHT);
    chart->GetLegend()->SetVerticalAlignment(vtkChartLegend::TOP);
    chart->GetLegend()->GetLabelProperties()->SetFontSize(13);
    chart->SetZoomWithMouseWheel(true);
    chart->SetActionToButton(vtkChart::PAN, vtkContextMouseEvent::LEFT_BUTTON);
    chart->SetActionToButton(vtkChart::ZOOM, vtkContextMouseEvent::RIGHT_BUTTON);
    chart->GetTitleProperties()->SetFontSize(15);
    for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT}) {
      chart->GetAxis(axis)->GetTitleProperties()->SetFontSize(13);
      chart->GetAxis(axis)->GetLabelProperties()->SetFontSize(12);
    }
  }

  /// Fills each line's table with its decimated points over [lo, hi].
  void decimate(double lo, double hi) {
    if (options.log_x) lo = std::max(lo, std::numeric_limits<double>::min());
    for (auto& line : lines) {
      XySeries points;
      if (options.buckets == 0 || !(hi > lo)) {
        for (std::size_t i = 0; i < line.x.size(); ++i) {
          if (!std::isfinite(line.x[i]) || !std::isfinite(line.y[i])) continue;
          if (options.log_x && line.x[i] <= 0.0) continue;
          points.x.push_back(line.x[i]);
          points.y.push_back(line.y[i]);
        }
      } else {
        points = decimate_min_max(line.x, line.y, lo, hi, options.buckets, options.log_x);
      }
      if (options.log_y) {
        XySeries positive;
        for (std::size_t i = 0; i < points.x.size(); ++i) {
          if (points.y[i] > 0.0) {
            positive.x.push_back(points.x[i]);
            positive.y.push_back(points.y[i]);
          }
        }
        points = std::move(positive);
      }
      line.table->ShallowCopy(make_table(x_title, line.column, points));
      line.table->Modified();
    }
    shown_lo = lo;
    shown_hi = hi;
  }
};

ChartScene::ChartScene() : impl_(std::make_unique<Impl>()) {}
ChartScene::~ChartScene() = default;

vtkContextView* ChartScene::view() const { return impl_->view; }
std::size_t ChartScene::series_count() const { return impl_->count; }
std::string ChartScene::title() const { return impl_->chart->GetTitle(); }

std::size_t ChartScene::input_points() const {
  std::size_t total = 0;
  for (const auto& line : impl_->lines) total += line.x.size();
  return total;
}

std::size_t ChartScene::drawn_points() const {
  std::size_t total = 0;
  for (const auto& line : impl_->lines) total += static_cast<std::size_t>(line.table->GetNumberOfRows());
  return total;
}

std::pair<double, double> ChartScene::visible_x() const {
  vtkAxis* axis = impl_->chart->GetAxis(vtkAxis::BOTTOM);
  return {axis->GetUnscaledMinimum(), axis->GetUnscaledMaximum()};
}

std::pair<double, double> ChartScene::decimated_x() const { return {impl_->shown_lo, impl_->shown_hi}; }

void ChartScene::set_series(const std::vector<double>& x, const std::string& x_title,
                            const std::vector<ChartSeries>& series, const std::string& title,
                            const ChartOptions& options) {
  auto& self = *impl_;
  // The user's view, if it is to be kept: the axes' ranges while zoomed into the data.
  struct AxisRange {
    int axis;
    double lo, hi;
  };
  std::vector<AxisRange> kept;
  // Zoomed: refresh_detail() fixed the axes after a zoom or pan (reset_zoom() sets them back to
  // automatic; the axes' ranges themselves are only brought up to date by the next render).
  const bool zoomed = self.chart->GetAxis(vtkAxis::BOTTOM)->GetBehavior() == vtkAxis::FIXED;
  if (options.keep_zoom && zoomed && x_title == self.x_title && !self.lines.empty()) {
    const auto [lo, hi] = visible_x();
    const double tolerance = 1e-9 * std::max(std::fabs(self.full_hi - self.full_lo), 1e-300);
    if (lo > self.full_lo + tolerance || hi < self.full_hi - tolerance) {
      for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT}) {
        vtkAxis* a = self.chart->GetAxis(axis);
        kept.push_back({axis, a->GetUnscaledMinimum(), a->GetUnscaledMaximum()});
      }
    }
  }
  self.chart->ClearPlots();
  self.lines.clear();
  self.marker_tables.clear();
  self.options = options;
  self.x_title = x_title;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double y_lo = lo, y_hi = -lo;
  bool any_right = false;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    Impl::Line line;
    line.x = s.x.empty() ? x : s.x;
    line.y = s.values;
    line.y.resize(line.x.size(), std::nan(""));
    line.column = title_with_unit(s.name, s.unit);
    line.table = vtkSmartPointer<vtkTable>::New();
    for (std::size_t i = 0; i < line.x.size(); ++i) {
      if (!std::isfinite(line.x[i]) || !std::isfinite(line.y[i])) continue;
      if (options.log_x && line.x[i] <= 0.0) continue;
      lo = std::min(lo, line.x[i]);
      hi = std::max(hi, line.x[i]);
      if (!(options.log_y && line.y[i] <= 0.0)) {
        y_lo = std::min(y_lo, line.y[i]);
        y_hi = std::max(y_hi, line.y[i]);
      }
    }
    self.lines.push_back(std::move(line));
  }
  if (!(hi >= lo)) {
    lo = options.log_x ? 1.0 : 0.0;
    hi = options.log_x ? 10.0 : 1.0;
  }
  self.full_lo = lo;
  self.full_hi = hi;
  self.decimate(lo, hi);
  for (std::size_t k = 0; k < series.size(); ++k) {
    vtkPlot* line = self.chart->AddPlot(vtkChart::LINE);
    line->SetInputData(self.lines[k].table, 0, 1);
    const auto* rgb = palette[k % std::size(palette)];
    line->SetColor(rgb[0], rgb[1], rgb[2], 255);
    line->SetWidth(series.size() == 1 ? 1.5 : 2.0);
    if (series[k].right_axis) {
      self.chart->SetPlotCorner(line, 1);
      any_right = true;
    }
  }
  // Markers: dashed grey verticals over the data's y range.
  if (!(y_hi >= y_lo)) {
    y_lo = 0.0;
    y_hi = 1.0;
  }
  for (const double marker : options.x_markers) {
    if (options.log_x && marker <= 0.0) continue;
    auto table = make_table(x_title, "marker", {{marker, marker}, {y_lo, y_hi}});
    vtkPlot* line = self.chart->AddPlot(vtkChart::LINE);
    line->SetInputData(table, 0, 1);
    line->SetColor(110, 110, 110, 255);
    line->SetWidth(1.5);
    line->GetPen()->SetLineType(vtkPen::DASH_LINE);
    line->SetLegendVisibility(false);
    self.marker_tables.push_back(table);
  }
  self.count = series.size();
  self.chart->GetAxis(vtkAxis::BOTTOM)->SetTitle(x_title);
  self.chart->GetAxis(vtkAxis::LEFT)->SetTitle(options.left_title.empty() ? axis_title(series, false) : options.left_title);
  self.chart->GetAxis(vtkAxis::RIGHT)->SetTitle(any_right ? axis_title(series, true) : std::string());
  self.chart->GetAxis(vtkAxis::BOTTOM)->SetLogScale(options.log_x);
  self.chart->GetAxis(vtkAxis::LEFT)->SetLogScale(options.log_y);
  self.chart->GetAxis(vtkAxis::RIGHT)->SetLogScale(options.log_y);
  self.chart->SetTitle(title);
  reset_zoom();
  if (!kept.empty()) {
    for (const auto& range : kept) {
      vtkAxis* a = self.chart->GetAxis(range.axis);
      a->SetUnscaledRange(range.lo, range.hi);
    }
    refresh_detail();  // decimates over the kept x range and fixes the axes there
  }
}

void ChartScene::reset_zoom() {
  auto& self = *impl_;
  if (self.shown_lo != self.full_lo || self.shown_hi != self.full_hi) self.decimate(self.full_lo, self.full_hi);
  for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT, vtkAxis::TOP}) {
    self.chart->GetAxis(axis)->SetBehavior(vtkAxis::AUTO);
  }
  // The automatic ranges are computed at the next render; until then the x axis would still read
  // the zoomed range, and a refresh_detail() in between (the view's timer) would zoom back in.
  self.chart->GetAxis(vtkAxis::BOTTOM)->SetUnscaledRange(self.full_lo, self.full_hi);
  self.chart->RecalculateBounds();
  self.chart->Update();
  self.view->GetScene()->SetDirty(true);
}

bool ChartScene::refresh_detail() {
  auto& self = *impl_;
  if (self.options.buckets == 0 || self.lines.empty()) return false;
  auto [lo, hi] = visible_x();
  if (!(hi > lo)) return false;
  lo = std::max(lo, self.full_lo);
  hi = std::min(hi, self.full_hi);
  if (!(hi > lo)) return false;
  const double tolerance = 1e-9 * std::max(std::fabs(self.full_hi - self.full_lo), 1e-300);
  if (std::fabs(lo - self.shown_lo) <= tolerance && std::fabs(hi - self.shown_hi) <= tolerance) return false;
  // Keep the axes where the user put them while the data under them change.
  for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT, vtkAxis::TOP}) {
    self.chart->GetAxis(axis)->SetBehavior(vtkAxis::FIXED);
  }
  self.decimate(lo, hi);
  self.chart->Update();
  self.view->GetScene()->SetDirty(true);
  return true;
}

std::string chart_csv(const std::vector<double>& x, const std::string& x_title,
                      const std::vector<ChartSeries>& series) {
  char buffer[64];
  auto number = [&](double value) -> std::string {
    if (!std::isfinite(value)) return {};
    std::snprintf(buffer, sizeof buffer, "%.10g", value);
    return buffer;
  };
  const bool own_x = std::any_of(series.begin(), series.end(), [](const ChartSeries& s) { return !s.x.empty(); });
  std::string text;
  if (!own_x) {
    text = csv_field(x_title);
    for (const auto& s : series) text += "," + csv_field(title_with_unit(s.name, s.unit));
    text += "\n";
    for (std::size_t i = 0; i < x.size(); ++i) {
      text += number(x[i]);
      for (const auto& s : series) text += "," + (i < s.values.size() ? number(s.values[i]) : std::string());
      text += "\n";
    }
    return text;
  }
  std::size_t rows = 0;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& sx = series[k].x.empty() ? x : series[k].x;
    rows = std::max(rows, sx.size());
    text += (k == 0 ? "" : ",") + csv_field(x_title) + "," + csv_field(title_with_unit(series[k].name, series[k].unit));
  }
  text += "\n";
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto& sx = series[k].x.empty() ? x : series[k].x;
      if (k > 0) text += ",";
      if (i < sx.size()) text += number(sx[i]) + "," + (i < series[k].values.size() ? number(series[k].values[i]) : std::string());
      else text += ",";
    }
    text += "\n";
  }
  return text;
}

}  // namespace dctwin::gui
