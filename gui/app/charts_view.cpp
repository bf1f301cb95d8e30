#include "charts_view.hpp"

#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <vtkContextView.h>
#include <vtkGenericOpenGLRenderWindow.h>

#include <cmath>

#include "dctwin/gui/chart_scene.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {

struct ChartsView::Impl {
  std::shared_ptr<const ReportModel> report;
  QListWidget* list = nullptr;
  VtkView* view = nullptr;
  ChartScene chart;
  std::vector<double> x;
  std::string x_title;
  std::vector<ChartSeries> shown;
  bool updating = false;
};

ChartsView::ChartsView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* side = new QWidget(splitter);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  side_layout->addWidget(new QLabel(tr("Series (tick to plot):"), side));
  self.list = new QListWidget(side);
  self.list->setObjectName("seriesList");
  side_layout->addWidget(self.list, 1);
  auto* reset = new QPushButton(tr("Reset zoom"), side);
  auto* png = new QPushButton(tr("Export PNG..."), side);
  auto* csv = new QPushButton(tr("Export CSV..."), side);
  side_layout->addWidget(reset);
  side_layout->addWidget(png);
  side_layout->addWidget(csv);
  side_layout->addWidget(new QLabel(tr("Wheel: zoom. Left drag: pan.\nRight drag: zoom to a box."), side));
  self.view = new VtkView(splitter);
  self.view->setObjectName("chartView");
  self.chart.view()->SetRenderWindow(self.view->render_window());
  self.chart.view()->SetInteractor(self.view->interactor());
  splitter->addWidget(side);
  splitter->addWidget(self.view);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({300, 900});
  layout->addWidget(splitter);

  connect(self.list, &QListWidget::itemChanged, this, [this] {
    if (!impl_->updating) rebuild();
  });
  connect(reset, &QPushButton::clicked, this, [this] {
    impl_->chart.reset_zoom();
    impl_->view->update();
  });
  connect(png, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export chart as PNG"), "chart.png", tr("PNG images (*.png)"));
    if (!file.isEmpty() && !export_png(file)) QMessageBox::warning(this, tr("Export PNG"), tr("Cannot write %1").arg(file));
  });
  connect(csv, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export chart data as CSV"), "chart.csv", tr("CSV files (*.csv)"));
    if (!file.isEmpty() && !export_csv(file)) QMessageBox::warning(this, tr("Export CSV"), tr("Cannot write %1").arg(file));
  });
}

ChartsView::~ChartsView() = default;

ChartScene& ChartsView::chart() const { return impl_->chart; }
VtkView* ChartsView::vtk_view() const { return impl_->view; }

void ChartsView::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  self.report = std::move(report);
  self.updating = true;
  self.list->clear();
  if (self.report) {
    auto add = [&](const std::string& id, const std::string& text, const std::string& tooltip) {
      auto* item = new QListWidgetItem(QString::fromStdString(text), self.list);
      item->setData(Qt::UserRole, QString::fromStdString(id));
      item->setToolTip(QString::fromStdString(tooltip));
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    };
    for (const auto& s : self.report->series()) {
      add(s.path, s.long_name + " [" + display_unit_for(s.units).unit + "]", s.path);
    }
    for (const auto& f : self.report->hall_fields()) {
      if (f.entity != "gpu") continue;
      if (f.bitmask) {
        add("count:" + f.path, "GPUs flagged: " + f.long_name, "number of GPUs with a nonzero value of " + f.path);
        continue;
      }
      add("max:" + f.path, f.long_name + ", max over GPUs", "largest value over all GPUs of " + f.path);
      add("mean:" + f.path, f.long_name + ", mean over GPUs", "mean over all GPUs of " + f.path);
    }
    if (self.list->count() > 0) self.list->item(0)->setCheckState(Qt::Checked);
  }
  self.updating = false;
  rebuild();
}

QStringList ChartsView::available() const {
  QStringList ids;
  for (int i = 0; i < impl_->list->count(); ++i) ids << impl_->list->item(i)->data(Qt::UserRole).toString();
  return ids;
}

QStringList ChartsView::checked() const {
  QStringList ids;
  for (int i = 0; i < impl_->list->count(); ++i) {
    if (impl_->list->item(i)->checkState() == Qt::Checked) ids << impl_->list->item(i)->data(Qt::UserRole).toString();
  }
  return ids;
}

int ChartsView::set_checked(const QStringList& ids) {
  auto& self = *impl_;
  self.updating = true;
  int found = 0;
  for (int i = 0; i < self.list->count(); ++i) {
    auto* item = self.list->item(i);
    const QString id = item->data(Qt::UserRole).toString();
    bool on = false;
    for (const auto& wanted : ids) {
      if (id == wanted || id.endsWith("/" + wanted) || id == "/" + wanted) on = true;
    }
    found += on ? 1 : 0;
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  self.updating = false;
  rebuild();
  return found;
}

void ChartsView::rebuild() {
  auto& self = *impl_;
  self.shown.clear();
  self.x.clear();
  if (!self.report || self.report->time().empty()) {
    self.chart.set_series({}, "time [s]", {});
    self.view->update();
    return;
  }
  const auto& time = self.report->time();
  const TimeUnit time_unit = time_unit_for(time.back());
  self.x.resize(time.size());
  for (std::size_t t = 0; t < time.size(); ++t) self.x[t] = time[t] / time_unit.seconds;
  self.x_title = "time [" + time_unit.unit + "]";
  std::string first_unit;
  for (const auto& id_text : checked()) {
    const std::string id = id_text.toStdString();
    std::vector<double> si;
    std::string units, name;
    std::string path = id;
    Reduction reduction = Reduction::max;
    bool count = false;
    if (const auto colon = id.find(':'); colon != std::string::npos) {
      const std::string how = id.substr(0, colon);
      path = id.substr(colon + 1);
      reduction = how == "mean" ? Reduction::mean : how == "count" ? Reduction::count_nonzero : Reduction::max;
      count = reduction == Reduction::count_nonzero;
      const auto* field = self.report->find_field(path);
      if (field == nullptr) continue;
      si = self.report->aggregate_series(*field, reduction);
      units = count ? "GPUs" : field->units;
      name = count ? "GPUs flagged (" + field->long_name + ")" : field->long_name + " (" + reduction_name(reduction) + ")";
    } else {
      const auto* series = self.report->find_series(path);
      if (series == nullptr) continue;
      si = self.report->series_values(path);
      units = series->units;
      name = series->long_name;
    }
    double magnitude = 0.0;
    for (const double v : si) {
      if (std::isfinite(v)) magnitude = std::max(magnitude, std::fabs(v));
    }
    const DisplayUnit unit = count ? DisplayUnit{"GPUs", 1.0, 0.0} : display_unit_for(units, magnitude);
    ChartSeries s{name, unit.unit, {}, false};
    s.values.reserve(si.size());
    for (const double v : si) s.values.push_back(unit.from_si(v));
    if (first_unit.empty()) first_unit = unit.unit;
    s.right_axis = unit.unit != first_unit;
    self.shown.push_back(std::move(s));
  }
  self.chart.set_series(self.x, self.x_title, self.shown,
                        self.report->path().filename().string());
  self.view->update();
}

std::string ChartsView::csv() const { return chart_csv(impl_->x, impl_->x_title, impl_->shown); }

bool ChartsView::export_csv(const QString& file) {
  QFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const std::string text = csv();
  return out.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

bool ChartsView::export_png(const QString& file) {
  return impl_->view->grabFramebuffer().save(file, "PNG");
}

}  // namespace dctwin::gui
