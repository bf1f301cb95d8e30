#include "rack_panel.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <vtkContextView.h>
#include <vtkGenericOpenGLRenderWindow.h>

#include <cmath>
#include <map>

#include "dctwin/gui/chart_scene.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {
namespace {

/// "pod0/rack012/server1/gpu3" -> {"server1", "gpu3"}; labels without a server give {"", label}.
std::pair<std::string, std::string> server_and_gpu(const std::string& label) {
  const auto last = label.rfind('/');
  if (last == std::string::npos) return {"", label};
  const auto previous = label.rfind('/', last - 1);
  const std::string server = label.substr(previous == std::string::npos ? 0 : previous + 1,
                                          last - (previous == std::string::npos ? 0 : previous + 1));
  return {server, label.substr(last + 1)};
}

}  // namespace

struct RackPanel::Impl {
  QLabel* title = nullptr;
  QLabel* details = nullptr;
  QTreeWidget* tree = nullptr;
  VtkView* view = nullptr;
  ChartScene chart;
  std::shared_ptr<const Study> study;
  std::string chart_key;
  int gpu_rows = 0;
};

void RackPanel::set_study(std::shared_ptr<const Study> study) {
  impl_->study = std::move(study);
  impl_->chart_key.clear();  // the next show_rack() draws the chart again
}

RackPanel::RackPanel(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  self.title = new QLabel(this);
  self.title->setObjectName("rackTitle");
  QFont font = self.title->font();
  font.setBold(true);
  font.setPointSizeF(font.pointSizeF() * 1.15);
  self.title->setFont(font);
  layout->addWidget(self.title);
  self.details = new QLabel(this);
  self.details->setObjectName("rackDetails");
  self.details->setWordWrap(true);
  layout->addWidget(self.details);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  self.tree = new QTreeWidget(splitter);
  self.tree->setObjectName("rackTree");
  self.tree->setColumnCount(2);
  self.tree->setHeaderLabels({tr("Server / GPU"), tr("Value")});
  self.tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  self.view = new VtkView(splitter);
  self.view->setObjectName("rackChart");
  self.chart.view()->SetRenderWindow(self.view->render_window());
  self.chart.view()->SetInteractor(self.view->interactor());
  splitter->addWidget(self.tree);
  splitter->addWidget(self.view);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  layout->addWidget(splitter, 1);
  setMinimumWidth(320);
}

RackPanel::~RackPanel() = default;

QString RackPanel::title() const { return impl_->title->text(); }
int RackPanel::gpu_row_count() const { return impl_->gpu_rows; }
ChartScene& RackPanel::chart() const { return impl_->chart; }
VtkView* RackPanel::chart_view() const { return impl_->view; }

void RackPanel::show_rack(const ReportModel* report, const FieldInfo* field, Reduction reduction,
                          std::optional<std::size_t> rack, std::size_t time_index) {
  auto& self = *impl_;
  if (report == nullptr || !rack || *rack >= report->layout().rack_count()) {
    self.title->clear();
    self.details->clear();
    self.tree->clear();
    self.gpu_rows = 0;
    self.chart_key.clear();
    return;
  }
  const auto& layout = report->layout();
  const auto& gpus = layout.rack_gpus[*rack];
  self.title->setText(tr("Rack %1").arg(QString::fromStdString(layout.rack_labels[*rack])));
  const auto& position = layout.rack_position[*rack];
  QString details = tr("pod %1, %2 GPUs, position (%3 m, %4 m)")
                        .arg(layout.rack_pod[*rack])
                        .arg(gpus.size())
                        .arg(position.x, 0, 'f', 1)
                        .arg(position.y, 0, 'f', 1);

  // Values at the current time.
  self.tree->clear();
  self.gpu_rows = 0;
  if (field != nullptr && !report->time().empty()) {
    const auto [lo, hi] = report->rack_value_range(*field, reduction);
    const auto presentation = present_field(*field, reduction, std::max(std::fabs(lo), std::fabs(hi)));
    const DisplayUnit unit = field->entity == "gpu" && !field->bitmask
                                 ? presentation.unit
                                 : display_unit_for(field->units, std::max(std::fabs(lo), std::fabs(hi)));
    const double rack_value = report->rack_values(*field, reduction, time_index)[*rack];
    details += "\n" + QString::fromStdString(presentation.short_title + ": " +
                                             format_value(presentation.unit.from_si(rack_value),
                                                          presentation.unit.unit));
    if (field->entity == "gpu" && !gpus.empty()) {
      const auto row = report->entity_row(*field, time_index);
      std::map<std::string, QTreeWidgetItem*> servers;
      for (const std::size_t gpu : gpus) {
        const auto [server, name] = server_and_gpu(layout.gpu_labels[gpu]);
        QTreeWidgetItem*& parent = servers[server];
        if (parent == nullptr) {
          parent = new QTreeWidgetItem(self.tree, {QString::fromStdString(server.empty() ? "GPUs" : server)});
          parent->setExpanded(true);
        }
        const double value = gpu < row.size() ? row[gpu] : std::nan("");
        const std::string text = field->bitmask ? format_value(value, "") : format_value(unit.from_si(value), unit.unit);
        new QTreeWidgetItem(parent, {QString::fromStdString(name), QString::fromStdString(text)});
        ++self.gpu_rows;
      }
    }
    // Time series (rebuilt only when the rack or the field changes).
    const std::string key = field->path + "#" + std::to_string(*rack) + "#" + reduction_name(reduction);
    if (key != self.chart_key) {
      self.chart_key = key;
      const TimeUnit time_unit = time_unit_for(report->time().back());
      std::vector<double> x(report->time().size());
      for (std::size_t t = 0; t < x.size(); ++t) x[t] = report->time()[t] / time_unit.seconds;
      std::vector<ChartSeries> series;
      if (field->entity == "gpu") {
        const auto columns = report->entity_series(*field, gpus);
        for (std::size_t k = 0; k < gpus.size(); ++k) {
          const auto [server, name] = server_and_gpu(layout.gpu_labels[gpus[k]]);
          ChartSeries s{server.empty() ? name : server + "/" + name, field->bitmask ? "1" : unit.unit, {}};
          s.values.reserve(columns[k].size());
          for (const double v : columns[k]) s.values.push_back(field->bitmask ? v : unit.from_si(v));
          series.push_back(std::move(s));
        }
      } else {
        const std::size_t one[] = {*rack};
        const auto columns = report->entity_series(*field, one);
        ChartSeries s{layout.rack_labels[*rack], unit.unit, {}};
        for (const double v : columns[0]) s.values.push_back(unit.from_si(v));
        series.push_back(std::move(s));
      }
      ChartOptions options;
      if (self.study) {
        options.events = study_chart_events(*self.study, time_unit.seconds);
        // The field's limits (absolute ones: those about a first sample belong to grid series).
        if (!field->bitmask)
          for (const auto& limit : self.study->limits_for(field->path))
            if (!limit.relative_to_first)
              options.limits.push_back(
                  {0, unit.from_si(limit.value), limit.label + " " + format_value(unit.from_si(limit.value), unit.unit)});
      }
      self.chart.set_series(x, "time [" + time_unit.unit + "]", series, field->long_name, options);
      self.view->update();
    }
    // The time shown in the hall, as the chart's cursor.
    if (time_index < report->time().size()) {
      self.chart.set_cursor(report->time()[time_index] / time_unit_for(report->time().back()).seconds);
      self.view->update();
    }
  }
  self.details->setText(details);
}

}  // namespace dctwin::gui
