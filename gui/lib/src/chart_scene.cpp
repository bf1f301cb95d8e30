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
#include <vtkTable.h>
#include <vtkTextProperty.h>

#include <cmath>
#include <cstdio>
#include <set>

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

}  // namespace

struct ChartScene::Impl {
  vtkNew<vtkContextView> view;
  vtkNew<vtkChartXY> chart;
  vtkNew<vtkTable> table;
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
};

ChartScene::ChartScene() : impl_(std::make_unique<Impl>()) {}
ChartScene::~ChartScene() = default;

vtkContextView* ChartScene::view() const { return impl_->view; }
std::size_t ChartScene::series_count() const { return impl_->count; }

void ChartScene::set_series(const std::vector<double>& x, const std::string& x_title,
                            const std::vector<ChartSeries>& series, const std::string& title) {
  auto& self = *impl_;
  self.chart->ClearPlots();
  vtkNew<vtkTable> table;
  vtkNew<vtkDoubleArray> x_column;
  x_column->SetName(x_title.c_str());
  x_column->SetNumberOfValues(static_cast<vtkIdType>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) x_column->SetValue(static_cast<vtkIdType>(i), x[i]);
  table->AddColumn(x_column);
  for (const auto& s : series) {
    vtkNew<vtkDoubleArray> column;
    column->SetName(title_with_unit(s.name, s.unit).c_str());
    column->SetNumberOfValues(static_cast<vtkIdType>(x.size()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      column->SetValue(static_cast<vtkIdType>(i), i < s.values.size() ? s.values[i] : std::nan(""));
    }
    table->AddColumn(column);
  }
  self.table->DeepCopy(table);
  bool any_right = false;
  for (std::size_t k = 0; k < series.size(); ++k) {
    vtkPlot* line = self.chart->AddPlot(vtkChart::LINE);
    line->SetInputData(self.table, 0, static_cast<vtkIdType>(k + 1));
    const auto* rgb = palette[k % std::size(palette)];
    line->SetColor(rgb[0], rgb[1], rgb[2], 255);
    line->SetWidth(2.0);
    if (series[k].right_axis) {
      self.chart->SetPlotCorner(line, 1);
      any_right = true;
    }
  }
  self.count = series.size();
  self.chart->GetAxis(vtkAxis::BOTTOM)->SetTitle(x_title);
  self.chart->GetAxis(vtkAxis::LEFT)->SetTitle(axis_title(series, false));
  self.chart->GetAxis(vtkAxis::RIGHT)->SetTitle(any_right ? axis_title(series, true) : std::string());
  self.chart->SetTitle(title);
  reset_zoom();
}

void ChartScene::reset_zoom() {
  auto& self = *impl_;
  for (const int axis : {vtkAxis::LEFT, vtkAxis::BOTTOM, vtkAxis::RIGHT, vtkAxis::TOP}) {
    self.chart->GetAxis(axis)->SetBehavior(vtkAxis::AUTO);
  }
  self.chart->RecalculateBounds();
  self.chart->Update();
  self.view->GetScene()->SetDirty(true);
}

std::string chart_csv(const std::vector<double>& x, const std::string& x_title,
                      const std::vector<ChartSeries>& series) {
  std::string text = csv_field(x_title);
  for (const auto& s : series) text += "," + csv_field(title_with_unit(s.name, s.unit));
  text += "\n";
  char buffer[64];
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::snprintf(buffer, sizeof buffer, "%.10g", x[i]);
    text += buffer;
    for (const auto& s : series) {
      text += ",";
      if (i < s.values.size() && std::isfinite(s.values[i])) {
        std::snprintf(buffer, sizeof buffer, "%.10g", s.values[i]);
        text += buffer;
      }
    }
    text += "\n";
  }
  return text;
}

}  // namespace dctwin::gui
