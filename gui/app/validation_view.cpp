#include "validation_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <vtkContextView.h>
#include <vtkGenericOpenGLRenderWindow.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "dctwin/gui/chart_scene.hpp"
#include "dctwin/gui/units.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// How a quantity's values are shown: temperatures in degC, clocks in MHz, power in W.
DisplayUnit value_unit(const std::string& si_unit) {
  if (si_unit == "Hz") return {"MHz", 1e-6, 0.0};
  if (si_unit == "W") return {"W", 1.0, 0.0};
  return display_unit_for(si_unit);
}

/// How a metric of a quantity is shown: differences of temperatures in K (not degC), fractions in %.
DisplayUnit metric_unit(const std::string& metric, const std::string& quantity_unit) {
  if (metric == "cv_rmse" || metric == "nmbe") return {"%", 100.0, 0.0};
  if (metric == "lag") return {"s", 1.0, 0.0};
  if (metric == "count") return {"", 1.0, 0.0};
  if (quantity_unit == "K") return {"K", 1.0, 0.0};
  DisplayUnit unit = value_unit(quantity_unit);
  unit.offset = 0.0;
  return unit;
}

std::string quantity_title(const std::string& name) {
  if (name == "power") return "Board power";
  if (name == "junction_temperature") return "Junction temperature";
  if (name == "sm_clock") return "SM clock";
  std::string text = name;
  for (char& c : text) {
    if (c == '_') c = ' ';
  }
  return text;
}

QString format_number(double value) {
  if (!std::isfinite(value)) return QStringLiteral("-");
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return QString::fromLatin1(buffer);
}

}  // namespace

struct ValidationView::Impl {
  std::shared_ptr<const ValidationModel> report;
  QComboBox* quantity = nullptr;
  QComboBox* gpu = nullptr;
  QLabel* info = nullptr;
  QTableWidget* table = nullptr;
  VtkView* view = nullptr;
  ChartScene chart;
  bool updating = false;
};

ValidationView::ValidationView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* row = new QHBoxLayout();
  row->addWidget(new QLabel(tr("Quantity:"), this));
  self.quantity = new QComboBox(this);
  self.quantity->setObjectName("validationQuantity");
  row->addWidget(self.quantity);
  row->addWidget(new QLabel(tr("GPU:"), this));
  self.gpu = new QComboBox(this);
  self.gpu->setObjectName("validationGpu");
  row->addWidget(self.gpu);
  self.info = new QLabel(tr("Open a report of `dctwin validate` (File > Open)."), this);
  self.info->setObjectName("validationInfo");
  self.info->setWordWrap(true);
  row->addWidget(self.info, 1);
  layout->addLayout(row);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  self.view = new VtkView(splitter);
  self.view->setObjectName("validationChart");
  self.chart.view()->SetRenderWindow(self.view->render_window());
  self.chart.view()->SetInteractor(self.view->interactor());
  self.table = new QTableWidget(splitter);
  self.table->setObjectName("validationMetrics");
  self.table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  self.table->setSelectionBehavior(QAbstractItemView::SelectRows);
  self.table->setSelectionMode(QAbstractItemView::SingleSelection);
  self.table->verticalHeader()->setVisible(false);
  splitter->addWidget(self.view);
  splitter->addWidget(self.table);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);

  auto changed = [this] {
    if (!impl_->updating) rebuild_chart();
  };
  connect(self.quantity, &QComboBox::currentIndexChanged, this, changed);
  connect(self.gpu, &QComboBox::currentIndexChanged, this, changed);
  // A row of the table selects its quantity and GPU.
  connect(self.table, &QTableWidget::cellClicked, this, [this](int r, int) {
    const auto* q = impl_->table->item(r, 0);
    const auto* g = impl_->table->item(r, 1);
    if (q == nullptr || g == nullptr) return;
    const int gpu = g->data(Qt::UserRole).toInt();
    if (gpu >= 0) select(q->data(Qt::UserRole).toString(), gpu);
  });
}

ValidationView::~ValidationView() = default;

std::shared_ptr<const ValidationModel> ValidationView::report() const { return impl_->report; }
QTableWidget* ValidationView::metrics_table() const { return impl_->table; }
ChartScene& ValidationView::chart() const { return impl_->chart; }
VtkView* ValidationView::vtk_view() const { return impl_->view; }
QString ValidationView::quantity() const { return impl_->quantity->currentData().toString(); }
int ValidationView::gpu() const { return impl_->gpu->currentIndex(); }

void ValidationView::set_report(std::shared_ptr<const ValidationModel> report) {
  auto& self = *impl_;
  self.report = std::move(report);
  self.updating = true;
  self.quantity->clear();
  self.gpu->clear();
  if (self.report) {
    for (const auto& q : self.report->quantities()) {
      self.quantity->addItem(QString::fromStdString(quantity_title(q.name)), QString::fromStdString(q.name));
    }
    for (const auto& label : self.report->gpu_labels()) self.gpu->addItem(QString::fromStdString(label));
    QString info = tr("%1: %2 GPUs, from %3")
                       .arg(QString::fromStdString(self.report->path().filename().string()))
                       .arg(self.report->gpu_labels().size())
                       .arg(QString::fromStdString(self.report->start_time_utc()));
    const auto& names = self.report->phase_names();
    const auto& shares = self.report->phase_overall_share();
    if (!names.empty() && names.size() == shares.size()) {
      QStringList parts;
      for (std::size_t k = 0; k < names.size(); ++k) {
        parts << QStringLiteral("%1 %2 %").arg(QString::fromStdString(names[k])).arg(100.0 * shares[k], 0, 'f', 1);
      }
      info += tr("; phases: %1").arg(parts.join(", "));
    }
    self.info->setText(info);
    self.info->setToolTip(QString::fromStdString(self.report->notes()));
  }
  self.updating = false;
  fill_table();
  rebuild_chart();
}

bool ValidationView::select(const QString& quantity, int gpu) {
  auto& self = *impl_;
  const int q = self.quantity->findData(quantity);
  if (q < 0 || gpu < 0 || gpu >= self.gpu->count()) return false;
  self.updating = true;
  self.quantity->setCurrentIndex(q);
  self.gpu->setCurrentIndex(gpu);
  self.updating = false;
  rebuild_chart();
  return true;
}

QString ValidationView::table_unit(const QString& quantity, const QString& metric) const {
  if (!impl_->report) return {};
  const auto* q = impl_->report->quantity(quantity.toStdString());
  if (q == nullptr) return {};
  return QString::fromStdString(metric_unit(metric.toStdString(), q->units).unit);
}

void ValidationView::fill_table() {
  auto& self = *impl_;
  const auto& names = validation_metric_names();
  self.table->clear();
  QStringList headers{tr("quantity"), tr("GPU")};
  for (const auto& name : names) {
    QString header = QString::fromStdString(validation_metric_title(name));
    if (name == "cv_rmse" || name == "nmbe") header += " [%]";
    if (name == "lag") header += " [s]";
    headers << header;
  }
  self.table->setColumnCount(static_cast<int>(headers.size()));
  self.table->setHorizontalHeaderLabels(headers);
  self.table->setRowCount(0);
  if (!self.report) return;
  const auto& gpus = self.report->gpu_labels();
  for (const auto& q : self.report->quantities()) {
    for (std::size_t g = 0; g <= gpus.size(); ++g) {
      const bool pooled = g == gpus.size();
      const int r = self.table->rowCount();
      self.table->insertRow(r);
      const std::string error_unit = metric_unit("mae", q.units).unit;
      auto* quantity_item = new QTableWidgetItem(
          QString::fromStdString(quantity_title(q.name) + (error_unit.empty() ? "" : " [" + error_unit + "]")));
      quantity_item->setData(Qt::UserRole, QString::fromStdString(q.name));
      self.table->setItem(r, 0, quantity_item);
      auto* gpu_item = new QTableWidgetItem(pooled ? tr("all") : QString::fromStdString(gpus[g]));
      gpu_item->setData(Qt::UserRole, pooled ? -1 : static_cast<int>(g));
      self.table->setItem(r, 1, gpu_item);
      for (std::size_t m = 0; m < names.size(); ++m) {
        const auto* metric = q.metric(names[m]);
        double si = nan;
        if (metric != nullptr) si = pooled ? metric->overall : g < metric->per_gpu.size() ? metric->per_gpu[g] : nan;
        const DisplayUnit unit = metric_unit(names[m], q.units);
        const double shown = unit.from_si(si);
        auto* item = new QTableWidgetItem(format_number(shown));
        item->setData(Qt::UserRole, shown);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (metric != nullptr) {
          item->setToolTip(QString::fromStdString(metric->long_name + (unit.unit.empty() ? "" : " [" + unit.unit + "]")));
        }
        self.table->setItem(r, static_cast<int>(m) + 2, item);
      }
      if (pooled) {
        for (int c = 0; c < self.table->columnCount(); ++c) {
          QFont font = self.table->item(r, c)->font();
          font.setBold(true);
          self.table->item(r, c)->setFont(font);
        }
      }
    }
  }
  self.table->resizeColumnsToContents();
  for (int c = 2; c < self.table->columnCount(); ++c) {
    self.table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Stretch);
  }
}

double ValidationView::table_value(const QString& quantity, const QString& gpu_label, const QString& metric) const {
  const auto& self = *impl_;
  const auto& names = validation_metric_names();
  int column = -1;
  for (std::size_t m = 0; m < names.size(); ++m) {
    if (QString::fromStdString(names[m]) == metric) column = static_cast<int>(m) + 2;
  }
  if (column < 0) return nan;
  for (int r = 0; r < self.table->rowCount(); ++r) {
    if (self.table->item(r, 0)->data(Qt::UserRole).toString() == quantity && self.table->item(r, 1)->text() == gpu_label) {
      return self.table->item(r, column)->data(Qt::UserRole).toDouble();
    }
  }
  return nan;
}

void ValidationView::rebuild_chart() {
  auto& self = *impl_;
  std::vector<ChartSeries> series;
  std::string title;
  std::vector<double> x;
  if (self.report && self.quantity->currentIndex() >= 0 && self.gpu->currentIndex() >= 0) {
    const std::string q = quantity().toStdString();
    const auto* info = self.report->quantity(q);
    const auto trace = self.report->series(q, static_cast<std::size_t>(self.gpu->currentIndex()));
    const DisplayUnit unit = value_unit(info != nullptr ? info->units : std::string());
    x = trace.time;
    ChartSeries measured{"measured", unit.unit, {}};
    ChartSeries simulated{"simulated", unit.unit, {}};
    for (std::size_t k = 0; k < trace.time.size(); ++k) {
      measured.values.push_back(unit.from_si(trace.measured[k]));
      simulated.values.push_back(unit.from_si(trace.simulated[k]));
    }
    series = {measured, simulated};
    title = quantity_title(q) + ", " + self.gpu->currentText().toStdString();
    if (info != nullptr) {
      if (const auto* rmse = info->metric("rmse")) {
        const std::size_t g = static_cast<std::size_t>(self.gpu->currentIndex());
        const DisplayUnit error = metric_unit("rmse", info->units);
        if (g < rmse->per_gpu.size()) title += ": RMSE " + format_value(error.from_si(rmse->per_gpu[g]), error.unit);
      }
    }
  }
  ChartOptions options;
  if (!series.empty()) options.left_title = title_with_unit(quantity_title(quantity().toStdString()), series.front().unit);
  options.buckets = 0;  // telemetry traces are short; every sample is drawn
  self.chart.set_series(x, "time since the first sample [s]", series, title, options);
  // Highlight the table row shown.
  for (int r = 0; r < self.table->rowCount(); ++r) {
    if (self.table->item(r, 0)->data(Qt::UserRole).toString() == quantity() &&
        self.table->item(r, 1)->data(Qt::UserRole).toInt() == gpu()) {
      self.table->selectRow(r);
    }
  }
  self.view->update();
}

}  // namespace dctwin::gui
