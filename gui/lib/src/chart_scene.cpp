#include "dctwin/gui/chart_scene.hpp"

#include <vtkAxis.h>
#include <vtkCallbackCommand.h>
#include <vtkChartLegend.h>
#include <vtkChartMatrix.h>
#include <vtkChartXY.h>
#include <vtkContextMouseEvent.h>
#include <vtkContextScene.h>
#include <vtkContextView.h>
#include <vtkDoubleArray.h>
#include <vtkNew.h>
#include <vtkPen.h>
#include <vtkPlot.h>
#include <vtkPlotArea.h>
#include <vtkPlotLine.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>
#include <vtkTable.h>
#include <vtkTextProperty.h>
#include <vtkVector.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <optional>

#include "dctwin/gui/series_tools.hpp"
#include "dctwin/gui/study.hpp"
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

/// The y axis title of a panel: the series' name and unit when it holds one series with a short
/// name (a long one would run past the panel; the legend names it), else the unit.
std::string axis_title(const std::vector<ChartSeries>& series, const std::vector<std::size_t>& members) {
  if (members.empty()) return {};
  const auto& first = series[members.front()];
  if (members.size() == 1) {
    std::string title = title_with_unit(first.name, first.unit);
    if (title.size() <= 32) return title;
  }
  return first.unit == "1" ? std::string() : "[" + first.unit + "]";
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

/// The points of a band over [lo, hi]: every sample with finite bounds when there are at most
/// 2 * buckets of them, else one point per x interval (equal in log10 x on a log axis) with the
/// smallest lower and the largest upper bound of its samples at the interval's first sample, so
/// the band drawn is the envelope of the full one.
struct BandPoints {
  std::vector<double> x, lower, upper;
};
BandPoints decimate_band(const std::vector<double>& x, const std::vector<double>& lower,
                         const std::vector<double>& upper, double lo, double hi, std::size_t buckets, bool log_x,
                         bool log_y) {
  BandPoints all;
  for (std::size_t i = 0; i < x.size() && i < lower.size() && i < upper.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(lower[i]) || !std::isfinite(upper[i])) continue;
    if (log_x && x[i] <= 0.0) continue;
    if (log_y && lower[i] <= 0.0) continue;
    if (buckets > 0 && hi > lo && (x[i] < lo || x[i] > hi)) continue;
    all.x.push_back(x[i]);
    all.lower.push_back(lower[i]);
    all.upper.push_back(upper[i]);
  }
  if (buckets == 0 || !(hi > lo) || all.x.size() <= 2 * buckets) return all;
  auto scaled = [&](double v) { return log_x ? std::log10(v) : v; };
  const double s_lo = scaled(lo), s_hi = scaled(hi);
  BandPoints kept;
  std::size_t current = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < all.x.size(); ++i) {
    const double f = (scaled(all.x[i]) - s_lo) / (s_hi - s_lo);
    const auto bucket = std::min(buckets - 1, static_cast<std::size_t>(std::max(0.0, f) * static_cast<double>(buckets)));
    if (bucket != current || kept.x.empty()) {
      current = bucket;
      kept.x.push_back(all.x[i]);
      kept.lower.push_back(all.lower[i]);
      kept.upper.push_back(all.upper[i]);
    } else {
      kept.lower.back() = std::min(kept.lower.back(), all.lower[i]);
      kept.upper.back() = std::max(kept.upper.back(), all.upper[i]);
    }
  }
  return kept;
}

}  // namespace

struct ChartScene::Impl {
  vtkNew<vtkContextView> view;
  vtkNew<vtkChartMatrix> matrix;
  struct Line {
    std::vector<double> x, y;  // full resolution, display units
    std::string column;
    vtkSmartPointer<vtkTable> table;
    struct Band {
      std::vector<double> lower, upper;  // full resolution, display units
      std::string name;
      vtkSmartPointer<vtkTable> table;  // columns x, lower, upper
    };
    std::vector<Band> bands;
  };
  /// One unit's chart: its series and the range of their data (display units).
  struct Panel {
    vtkChartXY* chart = nullptr;  // owned by the matrix
    std::string unit;
    std::vector<std::size_t> members;  // indices into lines
    double y_lo = 0.0, y_hi = 1.0;
    double axis_lo = 0.0, axis_hi = 1.0;  // the data and the limit lines drawn
    bool has_data = false;
    std::size_t limit_lines = 0, event_lines = 0, bands = 0;
    std::vector<std::string> extra_labels;  // legend entries of limits and events
    vtkSmartPointer<vtkTable> cursor_table;
    vtkPlot* cursor_plot = nullptr;  // owned by the chart; hidden while there is no cursor
    int legend_corner = 0;        // 0 top right, 1 top left, 2 bottom right, 3 bottom left
    std::size_t legend_hides = 0; // drawn points under the legend (estimated)
  };
  std::vector<Line> lines;
  std::vector<Panel> panels;
  std::vector<std::size_t> panel_of_series;
  std::vector<vtkSmartPointer<vtkTable>> marker_tables;
  std::vector<std::string> off_scale;
  std::optional<double> cursor;
  ChartOptions options;
  std::string x_title;
  double full_lo = 0.0, full_hi = 1.0;         // x range of the data
  double shown_lo = 0.0, shown_hi = 1.0;       // x range of the last decimation
  double synced_lo = 0.0, synced_hi = 1.0;     // x range last given to every panel
  bool zoomed = false;                         // the user zoomed or panned since the last reset
  std::size_t count = 0;
  vtkNew<vtkCallbackCommand> on_render;        // places the legends before every frame

  // The layout of the panels in the matrix [pixels]: borders left, bottom, right, top, and the gap.
  static constexpr float border_left = 92.0F, border_bottom = 52.0F, border_right = 24.0F, border_top = 34.0F;
  static constexpr float gap = 14.0F;

  Impl() {
    view->GetRenderer()->SetBackground(1.0, 1.0, 1.0);
    view->GetScene()->AddItem(matrix);
    // Room for the y labels and titles on the left, the x labels and title below, the chart's
    // title above; the panels are stacked with a small gap (only the lowest shows x labels).
    matrix->SetBorders(static_cast<int>(border_left), static_cast<int>(border_bottom),
                       static_cast<int>(border_right), static_cast<int>(border_top));
    matrix->SetGutter(vtkVector2f(0.0F, gap));
    set_panel_count(1);
    on_render->SetClientData(this);
    on_render->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
      static_cast<Impl*>(client)->place_legends();
    });
    view->GetRenderer()->AddObserver(vtkCommand::StartEvent, on_render);
  }

  ~Impl() { view->GetRenderer()->RemoveObservers(vtkCommand::StartEvent, on_render); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// A y range with 4 % of its span free below and above the data (in log space on a log axis).
  [[nodiscard]] std::pair<double, double> padded(double lo, double hi) const {
    if (options.log_y) {
      lo = std::log10(std::max(lo, std::numeric_limits<double>::min()));
      hi = std::log10(std::max(hi, std::numeric_limits<double>::min()));
    }
    double span = hi - lo;
    if (!(span > 0.0)) span = std::max(std::fabs(hi) * 0.1, options.log_y ? 1.0 : 1e-9);
    lo -= 0.04 * span;
    hi += 0.04 * span;
    if (lo == hi) hi = lo + 1.0;
    if (options.log_y) return {std::pow(10.0, lo), std::pow(10.0, hi)};
    return {lo, hi};
  }

  /// Where on an axis [lo, hi] a value lies, 0 at lo and 1 at hi (in log space on a log axis).
  static double fraction(double value, double lo, double hi, bool log) {
    if (log) {
      if (!(value > 0.0) || !(lo > 0.0) || !(hi > 0.0)) return -1.0;
      value = std::log10(value);
      lo = std::log10(lo);
      hi = std::log10(hi);
    }
    return (value - lo) / (hi - lo);
  }

  /// Size of a panel's legend as a fraction of its plot area (width, height): an estimate from its
  /// entries (13-pixel text, a line sample, padding), on the large side.
  [[nodiscard]] std::pair<double, double> legend_fraction(const Panel& panel, double width, double height) const {
    std::size_t widest = 0;
    for (const std::size_t k : panel.members) widest = std::max(widest, lines[k].column.size());
    for (const auto& label : panel.extra_labels) widest = std::max(widest, label.size());
    const double w = 44.0 + 7.6 * static_cast<double>(widest);
    const double h = 12.0 + 19.0 * static_cast<double>(panel.members.size() + panel.extra_labels.size());
    return {std::min(1.0, w / std::max(width, 1.0)), std::min(1.0, h / std::max(height, 1.0))};
  }

  /// Drawn points of a panel inside a corner box of the plot area (fractions of the axes).
  [[nodiscard]] std::size_t points_in(const Panel& panel, int corner, double fw, double fh, double y_lo,
                                      double y_hi) const {
    vtkAxis* x_axis = panel.chart->GetAxis(vtkAxis::BOTTOM);
    const double x_lo = x_axis->GetUnscaledMinimum(), x_hi = x_axis->GetUnscaledMaximum();
    const bool right = corner == 0 || corner == 2, top = corner == 0 || corner == 1;
    std::size_t inside = 0;
    for (const std::size_t k : panel.members) {
      vtkTable* table = lines[k].table;
      if (table->GetNumberOfColumns() < 2) continue;
      auto* xs = vtkDoubleArray::SafeDownCast(table->GetColumn(0));
      auto* ys = vtkDoubleArray::SafeDownCast(table->GetColumn(1));
      if (xs == nullptr || ys == nullptr) continue;
      auto count_inside = [&](vtkDoubleArray* xs_, vtkDoubleArray* ys_) {
        for (vtkIdType i = 0; i < xs_->GetNumberOfValues(); ++i) {
          const double fx = fraction(xs_->GetValue(i), x_lo, x_hi, options.log_x);
          const double fy = fraction(ys_->GetValue(i), y_lo, y_hi, options.log_y);
          if (fx < 0.0 || fx > 1.0 || fy < 0.0 || fy > 1.0) continue;
          const bool in_x = right ? fx >= 1.0 - fw : fx <= fw;
          const bool in_y = top ? fy >= 1.0 - fh : fy <= fh;
          if (in_x && in_y) ++inside;
        }
      };
      count_inside(xs, ys);
      // A band's edges count as drawn points: the legend must not cover the shaded area either.
      for (const auto& band : lines[k].bands) {
        if (band.table->GetNumberOfColumns() < 3) continue;
        auto* bx = vtkDoubleArray::SafeDownCast(band.table->GetColumn(0));
        for (const int column : {1, 2}) {
          auto* by = vtkDoubleArray::SafeDownCast(band.table->GetColumn(column));
          if (bx != nullptr && by != nullptr) count_inside(bx, by);
        }
      }
    }
    return inside;
  }

  /// Puts each panel's legend in the corner of its plot area where it hides no drawn point (top
  /// right, top left, bottom right, bottom left, in that order of preference). When every corner
  /// holds data and the user has not zoomed, the panel's y axis is raised until the top right
  /// corner is free: the legend then sits above the data. (While zoomed: the corner hiding the
  /// fewest points.) Idempotent, so that it can run before every frame.
  void place_legends() {
    const int* size = view->GetRenderer()->GetSize();
    if (size == nullptr || size[0] <= 0 || size[1] <= 0) return;
    const double n = static_cast<double>(panels.size());
    const double width = static_cast<double>(size[0]) - border_left - border_right;
    const double height = (static_cast<double>(size[1]) - border_top - border_bottom - (n - 1.0) * gap) / n;
    if (width <= 0.0 || height <= 0.0) return;
    for (auto& panel : panels) {
      if (panel.members.empty()) continue;
      const auto [fw, fh] = legend_fraction(panel, width, height);
      // A legend that would cover most of its panel (a rack's sixteen GPUs in a small chart) is
      // left out rather than drawn over the lines.
      const bool fits = fh < 0.6 && fw < 0.6;
      if (panel.chart->GetShowLegend() != fits) panel.chart->SetShowLegend(fits);
      if (!fits) {
        panel.legend_corner = -1;
        panel.legend_hides = 0;
        continue;
      }
      vtkAxis* y_axis = panel.chart->GetAxis(vtkAxis::LEFT);
      double y_lo = y_axis->GetUnscaledMinimum(), y_hi = y_axis->GetUnscaledMaximum();
      if (!zoomed && panel.has_data) std::tie(y_lo, y_hi) = padded(panel.axis_lo, panel.axis_hi);
      int best = 0;
      std::size_t fewest = std::numeric_limits<std::size_t>::max();
      for (int corner = 0; corner < 4 && fewest > 0; ++corner) {
        const std::size_t hidden = points_in(panel, corner, fw, fh, y_lo, y_hi);
        if (hidden < fewest) {
          fewest = hidden;
          best = corner;
        }
      }
      if (fewest > 0 && !zoomed && panel.has_data) {
        // Headroom: the top fh of the raised axis lies above the highest point.
        best = 0;
        if (options.log_y) {
          const double l = std::log10(y_lo), h = std::log10(y_hi);
          y_hi = std::pow(10.0, (h - fh * l) / (1.0 - fh));
        } else {
          y_hi = (y_hi - fh * y_lo) / (1.0 - fh);
        }
      }
      if (!zoomed && panel.has_data) {
        const double tolerance = 1e-12 * std::max(std::fabs(y_hi - y_lo), 1e-300);
        if (y_axis->GetBehavior() != vtkAxis::FIXED || std::fabs(y_axis->GetUnscaledMinimum() - y_lo) > tolerance ||
            std::fabs(y_axis->GetUnscaledMaximum() - y_hi) > tolerance) {
          y_axis->SetBehavior(vtkAxis::FIXED);
          y_axis->SetUnscaledRange(y_lo, y_hi);
          panel.chart->RecalculateBounds();  // the plot transform follows the new range
        }
      }
      vtkChartLegend* legend = panel.chart->GetLegend();
      const int horizontal = best == 0 || best == 2 ? vtkChartLegend::RIGHT : vtkChartLegend::LEFT;
      const int vertical = best == 0 || best == 1 ? vtkChartLegend::TOP : vtkChartLegend::BOTTOM;
      if (legend->GetHorizontalAlignment() != horizontal) legend->SetHorizontalAlignment(horizontal);
      if (legend->GetVerticalAlignment() != vertical) legend->SetVerticalAlignment(vertical);
      panel.legend_corner = best;
      panel.legend_hides = fewest > 0 && (zoomed || !panel.has_data) ? fewest : 0;
    }
  }

  [[nodiscard]] double tolerance() const { return 1e-9 * std::max(std::fabs(full_hi - full_lo), 1e-300); }

  /// Makes `n` panels (top to bottom), each a configured vtkChartXY without plots.
  void set_panel_count(std::size_t n) {
    n = std::max<std::size_t>(n, 1);
    const int rows = static_cast<int>(n);
    for (auto& panel : panels) panel.chart->ClearPlots();
    matrix->SetSize(vtkVector2i(1, rows));
    panels.assign(n, Panel{});
    for (std::size_t p = 0; p < n; ++p) {
      // Row 0 of the matrix is the bottom one.
      auto* chart = vtkChartXY::SafeDownCast(matrix->GetChart(vtkVector2i(0, rows - 1 - static_cast<int>(p))));
      panels[p].chart = chart;
      chart->ClearPlots();
      chart->SetShowLegend(true);
      chart->GetLegend()->SetHorizontalAlignment(vtkChartLegend::RIGHT);
      chart->GetLegend()->SetVerticalAlignment(vtkChartLegend::TOP);
      chart->GetLegend()->GetLabelProperties()->SetFontSize(13);
      chart->SetZoomWithMouseWheel(true);
      chart->SetActionToButton(vtkChart::PAN, vtkContextMouseEvent::LEFT_BUTTON);
      chart->SetActionToButton(vtkChart::ZOOM, vtkContextMouseEvent::RIGHT_BUTTON);
      chart->GetTitleProperties()->SetFontSize(15);
      chart->SetTitle("");
      for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT}) {
        chart->GetAxis(axis)->GetTitleProperties()->SetFontSize(13);
        chart->GetAxis(axis)->GetLabelProperties()->SetFontSize(12);
      }
      chart->GetAxis(vtkAxis::RIGHT)->SetVisible(false);
      chart->GetAxis(vtkAxis::TOP)->SetVisible(false);
      const bool lowest = p + 1 == n;
      chart->GetAxis(vtkAxis::BOTTOM)->SetLabelsVisible(lowest);
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
      for (auto& band : line.bands) {
        const BandPoints kept = decimate_band(line.x, band.lower, band.upper, lo, hi, options.buckets, options.log_x,
                                              options.log_y);
        auto table = vtkSmartPointer<vtkTable>::New();
        vtkNew<vtkDoubleArray> xs, lower, upper;
        xs->SetName(x_title.c_str());
        lower->SetName("lower");
        upper->SetName("upper");
        const auto n = static_cast<vtkIdType>(kept.x.size());
        for (vtkDoubleArray* a : {xs.Get(), lower.Get(), upper.Get()}) a->SetNumberOfValues(n);
        for (vtkIdType i = 0; i < n; ++i) {
          const auto j = static_cast<std::size_t>(i);
          xs->SetValue(i, kept.x[j]);
          lower->SetValue(i, kept.lower[j]);
          upper->SetValue(i, kept.upper[j]);
        }
        table->AddColumn(xs);
        table->AddColumn(lower);
        table->AddColumn(upper);
        band.table->ShallowCopy(table);
        band.table->Modified();
      }
    }
    shown_lo = lo;
    shown_hi = hi;
  }

  /// The x range the user left a panel at (a zoom or pan in that panel), or the synced range.
  [[nodiscard]] std::pair<double, double> user_x() const {
    const double tol = tolerance();
    for (const auto& panel : panels) {
      vtkAxis* axis = panel.chart->GetAxis(vtkAxis::BOTTOM);
      const double lo = axis->GetUnscaledMinimum(), hi = axis->GetUnscaledMaximum();
      if (std::fabs(lo - synced_lo) > tol || std::fabs(hi - synced_hi) > tol) return {lo, hi};
    }
    return {synced_lo, synced_hi};
  }

  /// Gives every panel the x range [lo, hi], fixed.
  void sync_x(double lo, double hi) {
    for (auto& panel : panels) {
      vtkAxis* axis = panel.chart->GetAxis(vtkAxis::BOTTOM);
      axis->SetBehavior(vtkAxis::FIXED);
      axis->SetUnscaledRange(lo, hi);
    }
    synced_lo = lo;
    synced_hi = hi;
  }

  void mark_dirty() {
    for (auto& panel : panels) panel.chart->Update();
    view->GetScene()->SetDirty(true);
  }
};

ChartScene::ChartScene() : impl_(std::make_unique<Impl>()) {}
ChartScene::~ChartScene() = default;

vtkContextView* ChartScene::view() const { return impl_->view; }
std::size_t ChartScene::series_count() const { return impl_->count; }
std::string ChartScene::title() const { return impl_->panels.front().chart->GetTitle(); }
std::size_t ChartScene::panel_count() const { return impl_->panels.size(); }

std::string ChartScene::panel_axis_title(std::size_t panel) const {
  return impl_->panels.at(panel).chart->GetAxis(vtkAxis::LEFT)->GetTitle();
}

std::pair<double, double> ChartScene::panel_y_axis(std::size_t panel) const {
  vtkAxis* axis = impl_->panels.at(panel).chart->GetAxis(vtkAxis::LEFT);
  return {axis->GetUnscaledMinimum(), axis->GetUnscaledMaximum()};
}

std::pair<double, double> ChartScene::panel_y_data(std::size_t panel) const {
  const auto& p = impl_->panels.at(panel);
  return {p.y_lo, p.y_hi};
}

std::size_t ChartScene::panel_of(std::size_t series) const { return impl_->panel_of_series.at(series); }

int ChartScene::legend_corner(std::size_t panel) const { return impl_->panels.at(panel).legend_corner; }

std::size_t ChartScene::points_under_legend(std::size_t panel) const { return impl_->panels.at(panel).legend_hides; }

std::size_t ChartScene::panel_bands(std::size_t panel) const { return impl_->panels.at(panel).bands; }
std::size_t ChartScene::panel_limit_lines(std::size_t panel) const { return impl_->panels.at(panel).limit_lines; }
std::size_t ChartScene::panel_event_lines(std::size_t panel) const { return impl_->panels.at(panel).event_lines; }
const std::vector<std::string>& ChartScene::off_scale_limits() const { return impl_->off_scale; }
std::optional<double> ChartScene::cursor() const { return impl_->cursor; }

void ChartScene::set_cursor(std::optional<double> x) {
  auto& self = *impl_;
  self.cursor = x;
  for (auto& panel : self.panels) {
    if (!panel.cursor_table) continue;
    XySeries points;
    if (x && std::isfinite(*x) && !(self.options.log_x && *x <= 0.0)) points = {{*x, *x}, {panel.axis_lo, panel.axis_hi}};
    // A line of fewer than two points is not drawn (VTK refuses it): the plot is hidden instead.
    if (!points.x.empty()) {
      panel.cursor_table->ShallowCopy(make_table(self.x_title, "cursor", points));
      panel.cursor_table->Modified();
    }
    panel.cursor_plot->SetVisible(!points.x.empty());
  }
  self.mark_dirty();
}

std::optional<double> ChartScene::x_at_display(double display_x) const {
  const auto& panel = impl_->panels.back();
  vtkAxis* axis = panel.chart->GetAxis(vtkAxis::BOTTOM);
  const double p1 = axis->GetPoint1()[0], p2 = axis->GetPoint2()[0];
  if (!(p2 > p1) || display_x < p1 || display_x > p2) return std::nullopt;
  const double f = (display_x - p1) / (p2 - p1);
  const double lo = axis->GetUnscaledMinimum(), hi = axis->GetUnscaledMaximum();
  if (impl_->options.log_x) return std::pow(10.0, std::log10(lo) + f * (std::log10(hi) - std::log10(lo)));
  return lo + f * (hi - lo);
}

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

std::pair<double, double> ChartScene::visible_x() const { return impl_->user_x(); }

std::pair<double, double> ChartScene::decimated_x() const { return {impl_->shown_lo, impl_->shown_hi}; }

void ChartScene::set_series(const std::vector<double>& x, const std::string& x_title,
                            const std::vector<ChartSeries>& series, const std::string& title,
                            const ChartOptions& options) {
  auto& self = *impl_;
  // The user's view, if it is to be kept: the x range and each unit's y range while zoomed.
  std::optional<std::pair<double, double>> kept_x;
  std::map<std::string, std::pair<double, double>> kept_y;
  if (options.keep_zoom && self.zoomed && x_title == self.x_title && !self.lines.empty()) {
    const auto [lo, hi] = visible_x();
    const double tolerance = self.tolerance();
    if (lo > self.full_lo + tolerance || hi < self.full_hi - tolerance) {
      kept_x = std::make_pair(lo, hi);
      for (const auto& panel : self.panels) {
        vtkAxis* a = panel.chart->GetAxis(vtkAxis::LEFT);
        kept_y[panel.unit] = {a->GetUnscaledMinimum(), a->GetUnscaledMaximum()};
      }
    }
  }
  self.lines.clear();
  self.marker_tables.clear();
  self.off_scale.clear();
  self.options = options;
  self.x_title = x_title;
  // Panels: one per display unit, in the order of the units' first appearance.
  std::vector<std::string> units;
  self.panel_of_series.assign(series.size(), 0);
  for (std::size_t k = 0; k < series.size(); ++k) {
    auto it = std::find(units.begin(), units.end(), series[k].unit);
    if (it == units.end()) it = units.insert(units.end(), series[k].unit);
    self.panel_of_series[k] = static_cast<std::size_t>(it - units.begin());
  }
  self.set_panel_count(units.size());
  for (std::size_t p = 0; p < units.size(); ++p) self.panels[p].unit = units[p];
  std::vector<double> y_lo(self.panels.size(), std::numeric_limits<double>::infinity());
  std::vector<double> y_hi(self.panels.size(), -std::numeric_limits<double>::infinity());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const std::size_t p = self.panel_of_series[k];
    self.panels[p].members.push_back(k);
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
        y_lo[p] = std::min(y_lo[p], line.y[i]);
        y_hi[p] = std::max(y_hi[p], line.y[i]);
      }
    }
    for (const auto& band : s.bands) {
      Impl::Line::Band b{band.lower, band.upper, band.name, vtkSmartPointer<vtkTable>::New()};
      b.lower.resize(line.x.size(), std::nan(""));
      b.upper.resize(line.x.size(), std::nan(""));
      // The band's extent widens its panel's y range like the line's own values.
      for (std::size_t i = 0; i < line.x.size(); ++i) {
        if (!std::isfinite(line.x[i]) || (options.log_x && line.x[i] <= 0.0)) continue;
        for (const double v : {b.lower[i], b.upper[i]}) {
          if (!std::isfinite(v) || (options.log_y && v <= 0.0)) continue;
          y_lo[p] = std::min(y_lo[p], v);
          y_hi[p] = std::max(y_hi[p], v);
        }
      }
      line.bands.push_back(std::move(b));
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
  // Bands first, so that every line is drawn over them; the widest band is the most transparent.
  for (std::size_t k = 0; k < series.size(); ++k) {
    auto& panel = self.panels[self.panel_of_series[k]];
    const auto* rgb = palette[k % std::size(palette)];
    const std::size_t n = self.lines[k].bands.size();
    for (std::size_t b = 0; b < n; ++b) {
      auto& band = self.lines[k].bands[b];
      auto* area = vtkPlotArea::SafeDownCast(panel.chart->AddPlot(vtkChart::AREA));
      if (area == nullptr) continue;
      area->SetInputData(band.table);
      area->SetInputArray(0, x_title);
      area->SetInputArray(1, "lower");
      area->SetInputArray(2, "upper");
      const auto alpha = static_cast<unsigned char>(45 + 60 * (b + 1) / n);
      area->SetColor(rgb[0], rgb[1], rgb[2], alpha);
      area->SetLabel(band.name);
      panel.extra_labels.push_back(band.name);
      ++panel.bands;
    }
  }
  for (std::size_t k = 0; k < series.size(); ++k) {
    vtkChartXY* chart = self.panels[self.panel_of_series[k]].chart;
    vtkPlot* line = chart->AddPlot(vtkChart::LINE);
    line->SetInputData(self.lines[k].table, 0, 1);
    const std::size_t colour = series[k].colour >= 0 ? static_cast<std::size_t>(series[k].colour) : k;
    const auto* rgb = palette[colour % std::size(palette)];
    line->SetColor(rgb[0], rgb[1], rgb[2], 255);
    line->SetWidth(series.size() == 1 ? 1.5 : 2.0);
    if (series[k].dashed) line->GetPen()->SetLineType(vtkPen::DASH_LINE);
  }
  for (std::size_t p = 0; p < self.panels.size(); ++p) {
    auto& panel = self.panels[p];
    panel.has_data = y_hi[p] >= y_lo[p];
    panel.y_lo = panel.has_data ? y_lo[p] : 0.0;
    panel.y_hi = panel.has_data ? y_hi[p] : 1.0;
    panel.axis_lo = panel.y_lo;
    panel.axis_hi = panel.y_hi;
    // Limits: drawn when within one data span of the data (then the axis shows the margin).
    if (panel.has_data) {
      std::vector<double> drawn;
      for (const auto& limit : options.limits) {
        if (limit.series >= series.size() || self.panel_of_series[limit.series] != p) continue;
        if (std::find(drawn.begin(), drawn.end(), limit.value) != drawn.end()) continue;
        const double span = std::max(panel.y_hi - panel.y_lo, 1e-3 * std::max(std::fabs(panel.y_hi), 1e-300));
        const double distance = limit.value > panel.y_hi ? limit.value - panel.y_hi
                                : limit.value < panel.y_lo ? panel.y_lo - limit.value : 0.0;
        if (!std::isfinite(limit.value) || distance > span || (options.log_y && limit.value <= 0.0)) {
          char text[64];
          const std::string unit = panel.unit == "degC" ? "K" : panel.unit == "1" ? "" : panel.unit;
          std::snprintf(text, sizeof text, ": %.4g%s%s %s the data", distance, unit.empty() ? "" : " ", unit.c_str(),
                        limit.value > panel.y_hi ? "above" : "below");
          self.off_scale.push_back(limit.label + text);
          continue;
        }
        drawn.push_back(limit.value);
        panel.axis_lo = std::min(panel.axis_lo, limit.value);
        panel.axis_hi = std::max(panel.axis_hi, limit.value);
        auto table = make_table(x_title, limit.label, {{lo, hi}, {limit.value, limit.value}});
        vtkPlot* line = panel.chart->AddPlot(vtkChart::LINE);
        line->SetInputData(table, 0, 1);
        line->SetColor(200, 20, 20, 255);
        line->SetWidth(2.0);
        line->GetPen()->SetLineType(vtkPen::DASH_LINE);
        self.marker_tables.push_back(table);
        panel.extra_labels.push_back(limit.label);
        ++panel.limit_lines;
      }
    }
    // Events: dashed verticals over the panel's axis range, one plot (one legend entry) per kind.
    if (panel.has_data) {
      for (const auto& kind : options.events) {
        XySeries points;
        for (const double x_event : kind.x) {
          if (!std::isfinite(x_event) || (options.log_x && x_event <= 0.0)) continue;
          points.x.insert(points.x.end(), {x_event, x_event});
          points.y.insert(points.y.end(), {panel.axis_lo, panel.axis_hi});
        }
        if (points.x.empty()) continue;
        auto table = make_table(x_title, kind.label, points);
        vtkPlot* plot = panel.chart->AddPlot(vtkChart::LINE);
        if (auto* segments = vtkPlotLine::SafeDownCast(plot)) segments->SetPolyLine(false);  // pairs: one per event
        plot->SetInputData(table, 0, 1);
        plot->SetColor(kind.colour[0], kind.colour[1], kind.colour[2], 255);
        plot->SetWidth(1.5);
        plot->GetPen()->SetLineType(vtkPen::DASH_DOT_LINE);
        // The kinds are named once, in the lowest panel's legend (the colours are the same in all).
        const bool lowest = p + 1 == self.panels.size();
        plot->SetLegendVisibility(lowest);
        self.marker_tables.push_back(table);
        if (lowest) panel.extra_labels.push_back(kind.label);
        panel.event_lines += points.x.size() / 2;
      }
    }
    // The time cursor's line (filled by set_cursor()).
    if (panel.has_data) {
      panel.cursor_table = make_table(x_title, "cursor", {{0.0, 0.0}, {panel.axis_lo, panel.axis_hi}});
      vtkPlot* plot = panel.chart->AddPlot(vtkChart::LINE);
      plot->SetInputData(panel.cursor_table, 0, 1);
      panel.cursor_plot = plot;
      plot->SetColor(20, 20, 20, 255);
      plot->SetWidth(1.5);
      plot->SetLegendVisibility(false);
    }
    // Markers: dashed grey verticals over exactly the panel's data range, so that they never
    // widen its y axis (a marker drawn over another panel's range would flatten this one's data).
    if (panel.has_data) {
      for (const double marker : options.x_markers) {
        if (options.log_x && marker <= 0.0) continue;
        auto table = make_table(x_title, "marker", {{marker, marker}, {panel.y_lo, panel.y_hi}});
        vtkPlot* line = panel.chart->AddPlot(vtkChart::LINE);
        line->SetInputData(table, 0, 1);
        line->SetColor(110, 110, 110, 255);
        line->SetWidth(1.5);
        line->GetPen()->SetLineType(vtkPen::DASH_LINE);
        line->SetLegendVisibility(false);
        self.marker_tables.push_back(table);
      }
    }
    const bool lowest = p + 1 == self.panels.size();
    panel.chart->GetAxis(vtkAxis::BOTTOM)->SetTitle(lowest ? x_title : std::string());
    const std::string y_title = self.panels.size() == 1 && !options.left_title.empty()
                                    ? options.left_title
                                    : axis_title(series, panel.members);
    panel.chart->GetAxis(vtkAxis::LEFT)->SetTitle(y_title);
    panel.chart->GetAxis(vtkAxis::BOTTOM)->SetLogScale(options.log_x);
    panel.chart->GetAxis(vtkAxis::LEFT)->SetLogScale(options.log_y);
    panel.chart->SetTitle(p == 0 ? title : std::string());
  }
  self.count = series.size();
  set_cursor(self.cursor);
  reset_zoom();
  if (kept_x) {
    self.sync_x(kept_x->first, kept_x->second);
    for (auto& panel : self.panels) {
      const auto it = kept_y.find(panel.unit);
      vtkAxis* a = panel.chart->GetAxis(vtkAxis::LEFT);
      if (it != kept_y.end()) {
        a->SetBehavior(vtkAxis::FIXED);
        a->SetUnscaledRange(it->second.first, it->second.second);
      }
    }
    self.zoomed = true;
    const double l = std::max(kept_x->first, self.full_lo), h = std::min(kept_x->second, self.full_hi);
    if (h > l) self.decimate(l, h);
    self.mark_dirty();
  }
}

void ChartScene::reset_zoom() {
  auto& self = *impl_;
  if (self.shown_lo != self.full_lo || self.shown_hi != self.full_hi) self.decimate(self.full_lo, self.full_hi);
  // The x range is fixed to the data's (the same for every panel); the y axes follow their data.
  self.sync_x(self.full_lo, self.full_hi);
  // The y axes: each panel's own data range with a little room (its markers do not count), and
  // headroom for the legend where needed (place_legends()).
  self.zoomed = false;
  for (auto& panel : self.panels) {
    vtkAxis* axis = panel.chart->GetAxis(vtkAxis::LEFT);
    if (panel.has_data) {
      const auto [lo, hi] = self.padded(panel.axis_lo, panel.axis_hi);
      axis->SetBehavior(vtkAxis::FIXED);
      axis->SetUnscaledRange(lo, hi);
    } else {
      axis->SetBehavior(vtkAxis::AUTO);
    }
    panel.chart->RecalculateBounds();
  }
  self.place_legends();
  self.mark_dirty();
}

bool ChartScene::refresh_detail() {
  auto& self = *impl_;
  if (self.lines.empty()) return false;
  auto [lo, hi] = self.user_x();
  if (!(hi > lo)) return false;
  const double tolerance = self.tolerance();
  bool changed = false;
  if (std::fabs(lo - self.synced_lo) > tolerance || std::fabs(hi - self.synced_hi) > tolerance) {
    // A zoom or pan in one panel: every panel shows that x range, and the y axes stay where the
    // user put them while the data under them change.
    for (auto& panel : self.panels) panel.chart->GetAxis(vtkAxis::LEFT)->SetBehavior(vtkAxis::FIXED);
    self.sync_x(lo, hi);
    self.zoomed = true;
    changed = true;
  }
  if (self.options.buckets > 0) {
    lo = std::max(lo, self.full_lo);
    hi = std::min(hi, self.full_hi);
    if (hi > lo && (std::fabs(lo - self.shown_lo) > tolerance || std::fabs(hi - self.shown_hi) > tolerance)) {
      for (auto& panel : self.panels) panel.chart->GetAxis(vtkAxis::LEFT)->SetBehavior(vtkAxis::FIXED);
      self.decimate(lo, hi);
      changed = true;
    }
  }
  if (changed) self.mark_dirty();
  return changed;
}

std::vector<ChartEvents> study_chart_events(const Study& study, double seconds_per_x) {
  std::vector<ChartEvents> out;
  for (const StudyEvent::Kind kind : study_event_kinds) {
    ChartEvents events{study_event_kind_name(kind), {}, study_event_colour(kind)};
    for (const auto& e : study.events)
      if (e.kind == kind) events.x.push_back(e.time / seconds_per_x);
    if (!events.x.empty()) out.push_back(std::move(events));
  }
  return out;
}

std::string chart_csv(const std::vector<double>& x, const std::string& x_title,
                      const std::vector<ChartSeries>& series) {
  char buffer[64];
  auto number = [&](double value) -> std::string {
    if (!std::isfinite(value)) return {};
    std::snprintf(buffer, sizeof buffer, "%.10g", value);
    return buffer;
  };
  // The columns of each series: its values, then the lower and upper bound of each band.
  struct Column {
    std::string title;
    const std::vector<double>* values;
  };
  std::vector<std::vector<Column>> columns(series.size());
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    columns[k].push_back({title_with_unit(s.name, s.unit), &s.values});
    for (const auto& band : s.bands) {
      columns[k].push_back({title_with_unit(s.name + ", " + band.name + " lower", s.unit), &band.lower});
      columns[k].push_back({title_with_unit(s.name + ", " + band.name + " upper", s.unit), &band.upper});
    }
  }
  auto value_at = [&](const Column& column, std::size_t i) {
    return i < column.values->size() ? number((*column.values)[i]) : std::string();
  };
  const bool own_x = std::any_of(series.begin(), series.end(), [](const ChartSeries& s) { return !s.x.empty(); });
  std::string text;
  if (!own_x) {
    text = csv_field(x_title);
    for (const auto& group : columns) {
      for (const auto& column : group) text += "," + csv_field(column.title);
    }
    text += "\n";
    for (std::size_t i = 0; i < x.size(); ++i) {
      text += number(x[i]);
      for (const auto& group : columns) {
        for (const auto& column : group) text += "," + value_at(column, i);
      }
      text += "\n";
    }
    return text;
  }
  std::size_t rows = 0;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& sx = series[k].x.empty() ? x : series[k].x;
    rows = std::max(rows, sx.size());
    text += (k == 0 ? "" : ",") + csv_field(x_title);
    for (const auto& column : columns[k]) text += "," + csv_field(column.title);
  }
  text += "\n";
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto& sx = series[k].x.empty() ? x : series[k].x;
      if (k > 0) text += ",";
      const bool has = i < sx.size();
      text += has ? number(sx[i]) : std::string();
      for (const auto& column : columns[k]) text += "," + (has ? value_at(column, i) : std::string());
    }
    text += "\n";
  }
  return text;
}

}  // namespace dctwin::gui
