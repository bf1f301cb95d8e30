#include "kpi_panel.hpp"

#include <QBrush>
#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <exception>
#include <map>
#include <set>
#include <string>

#include "dctwin/gui/study.hpp"

namespace dctwin::gui {

struct KpiPanel::Impl {
  std::shared_ptr<const ReportModel> report;
  std::unique_ptr<KpiModel> model;
  std::size_t time_index = 0;
  QLabel* heading = nullptr;
  QTreeWidget* tree = nullptr;
  std::set<std::string> expanded;  ///< fields whose per-pod rows the user opened (their paths)
};

KpiPanel::KpiPanel(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  self.heading = new QLabel(this);
  self.heading->setObjectName("kpiHeading");
  self.heading->setWordWrap(true);
  layout->addWidget(self.heading);
  self.tree = new QTreeWidget(this);
  self.tree->setObjectName("kpiTree");
  self.tree->setColumnCount(2);
  self.tree->setHeaderLabels({tr("Figure"), tr("Value")});
  self.tree->setRootIsDecorated(false);
  // Names are long sentences for some series: the name column keeps a fixed share (elided, the
  // whole name in the tooltip) and the values get the rest.
  self.tree->header()->setSectionResizeMode(0, QHeaderView::Interactive);
  self.tree->header()->setStretchLastSection(true);
  self.tree->setColumnWidth(0, 190);
  self.tree->setTextElideMode(Qt::ElideRight);
  setMinimumWidth(380);
  layout->addWidget(self.tree, 1);
  // A field's per-pod rows stay open (or closed) as the time moves.
  auto path_of = [](const QTreeWidgetItem* item) { return item->data(0, Qt::UserRole).toString().toStdString(); };
  connect(self.tree, &QTreeWidget::itemExpanded, this, [this, path_of](QTreeWidgetItem* item) {
    if (item->parent() != nullptr) impl_->expanded.insert(path_of(item));
  });
  connect(self.tree, &QTreeWidget::itemCollapsed, this, [this, path_of](QTreeWidgetItem* item) {
    if (item->parent() != nullptr) impl_->expanded.erase(path_of(item));
  });
}

KpiPanel::~KpiPanel() = default;

QTreeWidget* KpiPanel::tree() const { return impl_->tree; }
QString KpiPanel::heading() const { return impl_->heading->text(); }

void KpiPanel::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  self.report = std::move(report);
  self.model.reset();
  self.time_index = 0;
  if (self.report) {
    try {
      self.model = std::make_unique<KpiModel>(*self.report);
    } catch (const std::exception& e) {
      Q_EMIT read_failed(QString::fromStdString(e.what()));
    }
  }
  fill();
}

void KpiPanel::set_time(double t) {
  auto& self = *impl_;
  if (!self.report) return;
  const std::size_t index = self.report->time_index(t);
  if (index == self.time_index && self.tree->topLevelItemCount() > 0) return;
  self.time_index = index;
  fill();
}

void KpiPanel::fill() {
  auto& self = *impl_;
  self.tree->clear();
  if (!self.report || !self.model) {
    self.heading->setText(self.report ? tr("Key figures: the report cannot be read") : QString());
    return;
  }
  std::vector<KpiRow> rows;
  try {
    rows = self.model->rows(self.time_index);
  } catch (const std::exception& e) {
    rows = self.model->run_rows();
    Q_EMIT read_failed(QString::fromStdString(e.what()));
  }
  const auto& time = self.report->time();
  const QString when = time.empty() ? QString()
                                    : QString::fromStdString(format_time(time[std::min(self.time_index, time.size() - 1)],
                                                                         time.back()));
  self.heading->setText(time.empty() ? tr("Key figures of the run") : tr("Key figures of the run; the state at %1").arg(when));
  std::map<std::string, QTreeWidgetItem*> sections;
  for (const auto& row : rows) {
    auto*& section = sections[row.section];
    if (section == nullptr) {
      const QString title = row.section == "Run" ? tr("Run (summary)") : QString::fromStdString(row.section) + " (" + when + ")";
      section = new QTreeWidgetItem(self.tree, {title});
      section->setFirstColumnSpanned(true);
      QFont bold = section->font(0);
      bold.setBold(true);
      section->setFont(0, bold);
      section->setExpanded(true);
    }
    auto* item = new QTreeWidgetItem(section, {QString::fromStdString(row.name), QString::fromStdString(row.value)});
    item->setToolTip(0, QString::fromStdString(row.name + " (" + row.tooltip + ")"));
    item->setData(0, Qt::UserRole, QString::fromStdString(row.tooltip));
    item->setToolTip(1, QString::fromStdString(row.value));
    if (row.state != KpiRow::State::none) {
      const QColor colour = row.state == KpiRow::State::pass ? QColor(200, 240, 200) : QColor(255, 200, 200);
      item->setBackground(1, QBrush(colour));
    }
    // Each pod's value under the range over the pods (collapsed; expanded rows stay expanded
    // when the time moves).
    for (const auto& [entity, value] : row.parts) {
      auto* part = new QTreeWidgetItem(item, {QString::fromStdString(entity), QString::fromStdString(value)});
      part->setToolTip(0, QString::fromStdString(row.name + ", " + entity + " (" + row.tooltip + ")"));
    }
    if (!row.parts.empty() && self.expanded.count(row.tooltip) != 0) item->setExpanded(true);
  }
  for (const auto& [name, section] : sections) section->setExpanded(true);
}

QString KpiPanel::value_of(const QString& name) const {
  for (int s = 0; s < impl_->tree->topLevelItemCount(); ++s) {
    const auto* section = impl_->tree->topLevelItem(s);
    for (int k = 0; k < section->childCount(); ++k) {
      if (section->child(k)->text(0) == name) return section->child(k)->text(1);
    }
  }
  return {};
}

}  // namespace dctwin::gui
