#include "main_window.hpp"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeWidget>

#include "charts_view.hpp"
#include "compare_view.hpp"
#include "dctwin/gui/report_check.hpp"
#include "dctwin/gui/report_model.hpp"
#include "hall_view.hpp"
#include "dctwin/gui/validation_model.hpp"
#include "scenario_editor.hpp"
#include "validation_view.hpp"

namespace dctwin::gui {

struct MainWindow::Impl {
  std::shared_ptr<const ReportModel> report;
  std::shared_ptr<const ReportModel> other;
  QTabWidget* tabs = nullptr;
  HallView* hall = nullptr;
  ChartsView* charts = nullptr;
  ScenarioEditor* editor = nullptr;
  CompareView* compare = nullptr;
  ValidationView* validation = nullptr;
  QTreeWidget* browser = nullptr;
  QDockWidget* dock = nullptr;
  QMenu* recent_menu = nullptr;
  QLabel* status = nullptr;
  QMessageBox* error_box = nullptr;  ///< the error dialog, reused while it is open
  QString last_error;
  QString scenarios;
  bool interactive = true;
};

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  setWindowTitle(tr("dctwin"));
  self.tabs = new QTabWidget(this);
  self.tabs->setObjectName("viewTabs");
  self.hall = new HallView(self.tabs);
  self.charts = new ChartsView(self.tabs);
  self.editor = new ScenarioEditor(self.tabs);
  self.compare = new CompareView(self.tabs);
  self.validation = new ValidationView(self.tabs);
  self.tabs->addTab(self.hall, tr("Data hall"));
  self.tabs->addTab(self.charts, tr("Charts"));
  self.tabs->addTab(self.editor, tr("Scenario"));
  self.tabs->addTab(self.compare, tr("Compare"));
  self.tabs->addTab(self.validation, tr("Validation"));
  setCentralWidget(self.tabs);

  // Scenario browser.
  auto* dock = new QDockWidget(tr("Scenarios and recent files"), this);
  self.dock = dock;
  dock->setObjectName("browserDock");
  self.browser = new QTreeWidget(dock);
  self.browser->setObjectName("scenarioBrowser");
  self.browser->setHeaderHidden(true);
  dock->setWidget(self.browser);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  connect(self.browser, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
    const QString file = item->data(0, Qt::UserRole).toString();
    if (!file.isEmpty()) open_file(file);
  });

  // Menus.
  auto* file_menu = menuBar()->addMenu(tr("&File"));
  file_menu->addAction(tr("&Open report or scenario..."), QKeySequence::Open, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Open"), QString(),
                                                      tr("Reports and scenarios (*.h5 *.yaml *.yml);;All files (*)"));
    if (!file.isEmpty()) open_file(file);
  });
  self.recent_menu = file_menu->addMenu(tr("Open &recent"));
  file_menu->addAction(tr("&Compare with report..."), this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Compare with"), QString(), tr("Reports (*.h5)"));
    if (!file.isEmpty()) compare_with(file);
  });
  file_menu->addAction(tr("Save &window as PNG..."), this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Save window as PNG"), "dctwin.png", tr("PNG images (*.png)"));
    if (!file.isEmpty()) grab().save(file, "PNG");
  });
  file_menu->addSeparator();
  file_menu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  auto* view_menu = menuBar()->addMenu(tr("&View"));
  view_menu->addAction(dock->toggleViewAction());
  auto* help_menu = menuBar()->addMenu(tr("&Help"));
  help_menu->addAction(tr("&About dctwin-gui"), this, [this] {
    QMessageBox::about(this, tr("About dctwin-gui"),
                       tr("dctwin-gui %1\nDigital twin of a GPU training facility.\nBSD-3-Clause.").arg(DCTWIN_VERSION));
  });

  self.status = new QLabel(this);
  statusBar()->addWidget(self.status, 1);

  connect(self.editor, &ScenarioEditor::run_started, this, [this] {
    impl_->charts->set_live(impl_->editor->live_run());
    statusBar()->showMessage(tr("Run started: the Charts tab follows it as it runs (refreshed every second)"), 10000);
  });
  connect(self.editor, &ScenarioEditor::run_finished, this, [this](const QString& report, const QString& summary, bool) {
    statusBar()->showMessage(tr("Run ended: %1").arg(summary), 10000);
    if (QFileInfo::exists(report)) open_report(report);
  });

  // A report that turns out damaged while a view reads it (a corrupt compressed chunk): a message,
  // and the application goes on with the rest of the report.
  connect(self.hall, &HallView::read_failed, this, &MainWindow::report_error);
  connect(self.charts, &ChartsView::read_failed, this, &MainWindow::report_error);
  connect(self.compare, &CompareView::read_failed, this, &MainWindow::report_error);

  const QString source_scenarios = QStringLiteral(DCTWIN_SOURCE_DIR "/scenarios");
  const QString env = qEnvironmentVariable("DCTWIN_SCENARIOS");
  set_scenarios_directory(!env.isEmpty() ? env : QDir(source_scenarios).exists() ? source_scenarios : QStringLiteral("scenarios"));
}

MainWindow::~MainWindow() = default;

HallView* MainWindow::hall() const { return impl_->hall; }
ChartsView* MainWindow::charts() const { return impl_->charts; }
ScenarioEditor* MainWindow::editor() const { return impl_->editor; }
CompareView* MainWindow::compare() const { return impl_->compare; }
ValidationView* MainWindow::validation() const { return impl_->validation; }
QString MainWindow::last_error() const { return impl_->last_error; }
void MainWindow::set_interactive(bool interactive) { impl_->interactive = interactive; }
void MainWindow::set_browser_visible(bool visible) { impl_->dock->setVisible(visible); }

void MainWindow::set_scenarios_directory(const QString& directory) {
  impl_->scenarios = directory;
  refresh_browser();
}

void MainWindow::report_error(const QString& message) {
  auto& self = *impl_;
  self.last_error = message;
  statusBar()->showMessage(message, 15000);
  if (self.interactive) {
    // Window-modal and opened without a nested event loop: the caller (often a view in the middle
    // of an update) returns at once, and one dialog shows the latest error instead of a pile.
    if (self.error_box == nullptr) {
      self.error_box = new QMessageBox(QMessageBox::Warning, tr("dctwin"), QString(), QMessageBox::Ok, this);
      self.error_box->setObjectName("errorDialog");
      self.error_box->setWindowModality(Qt::WindowModal);
    }
    self.error_box->setText(message);
    if (!self.error_box->isVisible()) self.error_box->open();
  }
  Q_EMIT error_reported(message);
}

namespace {
/// check_report with a busy cursor: "" when the report may be read here, else the message.
QString checked_report(const QString& file) {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const std::string problem = check_report(file.toStdString());
  QApplication::restoreOverrideCursor();
  return QString::fromStdString(problem);
}
}  // namespace

bool MainWindow::open_file(const QString& file) {
  const QString suffix = QFileInfo(file).suffix().toLower();
  if (suffix == "yaml" || suffix == "yml") return open_scenario(file);
  return open_report(file);
}

bool MainWindow::open_report(const QString& file) {
  auto& self = *impl_;
  if (!QFileInfo::exists(file)) {
    report_error(tr("%1: no such report file").arg(file));
    return false;
  }
  if (const QString damage = checked_report(file); !damage.isEmpty()) {
    report_error(damage);
    return false;
  }
  if (ValidationModel::is_validation_report(file.toStdString())) return open_validation(file);
  std::shared_ptr<const ReportModel> report;
  try {
    report = std::make_shared<const ReportModel>(file.toStdString());
    (void)report->status();
    (void)report->status_reason();
  } catch (const std::exception& e) {
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  self.report = std::move(report);
  self.last_error.clear();
  self.hall->set_report(self.report);
  self.charts->set_report(self.report);
  if (self.other) self.compare->set_reports(self.report, self.other);
  const auto& layout = self.report->layout();
  QString status = tr("%1: %2, %3 samples, %4 racks, %5 GPUs")
                       .arg(QFileInfo(file).fileName(), QString::fromStdString(self.report->status()))
                       .arg(self.report->time().size())
                       .arg(layout.rack_count())
                       .arg(layout.gpu_labels.size());
  if (!self.report->status_reason().empty()) status += " (" + QString::fromStdString(self.report->status_reason()) + ")";
  if (!layout.from_report) status += tr("; no layout in the report: shown as one rack");
  self.status->setText(status);
  self.status->setToolTip(QFileInfo(file).absoluteFilePath());
  setWindowTitle(tr("dctwin - %1").arg(QFileInfo(file).fileName()));
  add_recent(file);
  if (current_view() != View::charts) show_view(View::hall);
  return true;
}

bool MainWindow::open_validation(const QString& file) {
  std::shared_ptr<const ValidationModel> model;
  try {
    model = std::make_shared<const ValidationModel>(file.toStdString());
  } catch (const std::exception& e) {
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  impl_->last_error.clear();
  impl_->validation->set_report(model);
  impl_->status->setText(tr("%1: validation report, %2 GPUs, %3 quantities")
                             .arg(QFileInfo(file).fileName())
                             .arg(model->gpu_labels().size())
                             .arg(model->quantities().size()));
  impl_->status->setToolTip(QFileInfo(file).absoluteFilePath());
  setWindowTitle(tr("dctwin - %1").arg(QFileInfo(file).fileName()));
  add_recent(file);
  show_view(View::validation);
  return true;
}

bool MainWindow::open_scenario(const QString& file) {
  if (!impl_->editor->open(file)) {
    report_error(impl_->editor->message());
    return false;
  }
  add_recent(file);
  show_view(View::scenario);
  return true;
}

bool MainWindow::compare_with(const QString& file) {
  auto& self = *impl_;
  if (!self.report) {
    report_error(tr("Open a report first, then compare it with another."));
    return false;
  }
  if (const QString damage = checked_report(file); !damage.isEmpty()) {
    report_error(damage);
    return false;
  }
  try {
    self.other = std::make_shared<const ReportModel>(file.toStdString());
  } catch (const std::exception& e) {
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  self.compare->set_reports(self.report, self.other);
  show_view(View::compare);
  return true;
}

void MainWindow::show_view(View view) { impl_->tabs->setCurrentIndex(static_cast<int>(view)); }
MainWindow::View MainWindow::current_view() const { return static_cast<View>(impl_->tabs->currentIndex()); }

QStringList MainWindow::recent_files() const {
  return QSettings().value("recent_files").toStringList();
}

void MainWindow::add_recent(const QString& file) {
  if (!impl_->interactive) return;  // screenshots and tests leave the user's list alone
  QStringList recent = recent_files();
  const QString absolute = QFileInfo(file).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > 10) recent.removeLast();
  QSettings().setValue("recent_files", recent);
  refresh_browser();
}

void MainWindow::refresh_browser() {
  auto& self = *impl_;
  self.browser->clear();
  auto* scenarios = new QTreeWidgetItem(self.browser, {tr("Scenarios (%1)").arg(self.scenarios)});
  const auto entries = QDir(self.scenarios).entryInfoList({"*.yaml", "*.yml"}, QDir::Files, QDir::Name);
  for (const auto& entry : entries) {
    auto* item = new QTreeWidgetItem(scenarios, {entry.fileName()});
    item->setData(0, Qt::UserRole, entry.absoluteFilePath());
    item->setToolTip(0, entry.absoluteFilePath());
  }
  scenarios->setExpanded(true);
  auto* recent = new QTreeWidgetItem(self.browser, {tr("Recent files")});
  self.recent_menu->clear();
  for (const auto& file : recent_files()) {
    auto* item = new QTreeWidgetItem(recent, {QFileInfo(file).fileName()});
    item->setData(0, Qt::UserRole, file);
    item->setToolTip(0, file);
    self.recent_menu->addAction(file, this, [this, file] { open_file(file); });
  }
  recent->setExpanded(true);
}

}  // namespace dctwin::gui
