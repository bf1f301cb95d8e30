#include "main_window.hpp"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileSystemWatcher>
#include <QPointer>
#include <QProgressBar>
#include <QRegularExpression>
#include <QThread>
#include <QTimer>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTreeWidget>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <utility>

#include "charts_view.hpp"
#include "heat_map_view.hpp"
#include "compare_view.hpp"
#include "dctwin/gui/report_check.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/study.hpp"
#include "dctwin/gui/units.hpp"
#include "hall_view.hpp"
#include "kpi_panel.hpp"
#include "dctwin/gui/validation_model.hpp"
#include "scenario_editor.hpp"
#include "schematic_view.hpp"
#include "validation_view.hpp"
#include "vtk_view.hpp"

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
  HeatMapView* heat_map = nullptr;
  SchematicView* schematic = nullptr;
  QTreeWidget* browser = nullptr;
  QDockWidget* dock = nullptr;
  KpiPanel* kpi = nullptr;
  QDockWidget* kpi_dock = nullptr;
  QMenu* recent_menu = nullptr;
  QLabel* status = nullptr;
  QProgressBar* progress = nullptr;
  QMessageBox* error_box = nullptr;  ///< the error dialog, reused while it is open
  QFileSystemWatcher* watcher = nullptr;
  QTimer* settle = nullptr;          ///< a change is acted on when the file was quiet for a while
  QString followed;                  ///< the report file followed ("" when none)
  qint64 followed_size = -1;         ///< size and modification time when it was last read
  QDateTime followed_modified;
  bool waiting = false;              ///< the followed file could not be read yet (being written)
  bool loading = false;
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
  self.heat_map = new HeatMapView(self.tabs);
  self.schematic = new SchematicView(self.tabs);
  self.tabs->addTab(self.hall, tr("Data hall"));
  self.tabs->addTab(self.charts, tr("Charts"));
  self.tabs->addTab(self.editor, tr("Scenario"));
  self.tabs->addTab(self.compare, tr("Compare"));
  self.tabs->addTab(self.validation, tr("Validation"));
  self.tabs->addTab(self.heat_map, tr("Heat map"));
  self.tabs->addTab(self.schematic, tr("Schematic"));
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

  // Key figures.
  self.kpi_dock = new QDockWidget(tr("Key figures"), this);
  self.kpi_dock->setObjectName("kpiDock");
  self.kpi = new KpiPanel(self.kpi_dock);
  self.kpi->setObjectName("kpiPanel");
  self.kpi_dock->setWidget(self.kpi);
  addDockWidget(Qt::RightDockWidgetArea, self.kpi_dock);
  // One time everywhere: the hall's time is the charts' cursor and the key figures' time.
  connect(self.hall, &HallView::time_changed, this, [this](double t) {
    impl_->charts->set_time_cursor(t);
    impl_->heat_map->set_time_cursor(t);
    impl_->schematic->set_time_cursor(t);
    impl_->kpi->set_time(t);
  });
  connect(self.charts, &ChartsView::time_picked, this, [this](double t) { impl_->hall->set_time(t); });
  // A cell of the heat map: its time everywhere, and its rack selected in the hall.
  connect(self.heat_map, &HeatMapView::time_picked, this, [this](double t) { impl_->hall->set_time(t); });
  connect(self.heat_map, &HeatMapView::rack_picked, this, [this](std::size_t rack) { impl_->hall->select_rack(rack); });

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
    if (!file.isEmpty() && !grab().save(file, "PNG")) report_error(tr("%1: cannot write the PNG").arg(file));
  });
  file_menu->addAction(tr("Export &animation..."), this, [this] {
    auto& s = *impl_;
    if (!s.report || s.report->time().empty()) {
      report_error(tr("Export animation: no report with samples is open"));
      return;
    }
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Export animation: frames into"));
    if (directory.isEmpty()) return;
    QProgressDialog progress(tr("Writing the frames..."), tr("Stop"), 0, 1, this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    try {
      const std::size_t frames = export_animation(
          directory, s.report->time().front(), s.report->time().back(), animation_frames_default,
          [&progress](std::size_t done, std::size_t total) {
            progress.setMaximum(static_cast<int>(total));
            progress.setValue(static_cast<int>(done));
            return !progress.wasCanceled();
          });
      statusBar()->showMessage(tr("%1 frames written to %2 (frames.csv lists their times)").arg(frames).arg(directory), 10000);
    } catch (const std::exception& e) {
      report_error(tr("Export animation: %1").arg(QString::fromStdString(e.what())));
    }
  });
  file_menu->addSeparator();
  file_menu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  auto* view_menu = menuBar()->addMenu(tr("&View"));
  view_menu->addAction(dock->toggleViewAction());
  view_menu->addAction(self.kpi_dock->toggleViewAction());
  auto* help_menu = menuBar()->addMenu(tr("&Help"));
  help_menu->addAction(tr("&About dctwin-gui"), this, [this] {
    QMessageBox::about(this, tr("About dctwin-gui"),
                       tr("dctwin-gui %1\nDigital twin of a GPU training facility.\nBSD-3-Clause.").arg(DCTWIN_VERSION));
  });

  self.status = new QLabel(this);
  self.status->setObjectName("statusText");
  statusBar()->addWidget(self.status, 1);
  self.progress = new QProgressBar(this);
  self.progress->setObjectName("loadProgress");
  self.progress->setRange(0, 0);  // busy: the steps have no known length
  self.progress->setMaximumWidth(160);
  self.progress->hide();
  statusBar()->addPermanentWidget(self.progress);
  self.watcher = new QFileSystemWatcher(this);
  self.settle = new QTimer(this);
  self.settle->setSingleShot(true);
  self.settle->setInterval(1000);
  connect(self.watcher, &QFileSystemWatcher::fileChanged, this, [this] { impl_->settle->start(); });
  connect(self.watcher, &QFileSystemWatcher::directoryChanged, this, [this] { impl_->settle->start(); });
  connect(self.settle, &QTimer::timeout, this, &MainWindow::on_followed_changed);

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
  connect(self.kpi, &KpiPanel::read_failed, this, &MainWindow::report_error);
  connect(self.compare, &CompareView::read_failed, this, &MainWindow::report_error);
  connect(self.heat_map, &HeatMapView::read_failed, this, &MainWindow::report_error);
  connect(self.schematic, &SchematicView::read_failed, this, &MainWindow::report_error);

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
HeatMapView* MainWindow::heat_map() const { return impl_->heat_map; }
SchematicView* MainWindow::schematic() const { return impl_->schematic; }

std::size_t MainWindow::export_animation(const QString& directory, double from, double to, std::size_t max_frames,
                                         const std::function<bool(std::size_t, std::size_t)>& progress) {
  auto& self = *impl_;
  if (!self.report || self.report->time().empty()) throw std::invalid_argument("no report with samples is open");
  if (max_frames == 0) throw std::invalid_argument("the number of frames must be at least 1");
  const auto& time = self.report->time();
  std::vector<std::size_t> samples;
  for (std::size_t k = 0; k < time.size(); ++k)
    if (time[k] >= from && time[k] <= to) samples.push_back(k);
  if (samples.empty()) {
    const std::string range = std::isfinite(from) && std::isfinite(to) ? "from " + format_time(from, time.back()) + " to " + format_time(to, time.back())
                              : std::isfinite(from)                      ? "from " + format_time(from, time.back()) + " on"
                              : std::isfinite(to)                        ? "up to " + format_time(to, time.back())
                                                                         : "at any time";
    throw std::invalid_argument("no sample " + range + " (the report's samples run from " +
                                format_time(time.front(), time.back()) + " to " + format_time(time.back(), time.back()) + ")");
  }
  const std::size_t stride = (samples.size() + max_frames - 1) / max_frames;
  std::vector<std::size_t> frames;
  for (std::size_t i = 0; i < samples.size(); i += stride) frames.push_back(samples[i]);
  const QDir dir(directory);
  if (!QDir().mkpath(directory)) throw std::runtime_error(directory.toStdString() + ": cannot create the directory");
  QFile index(dir.filePath("frames.csv"));
  if (!index.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
    throw std::runtime_error(index.fileName().toStdString() + ": cannot write");
  index.write("frame,file,time [s]\n");
  const double was = self.hall->time();
  std::size_t written = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    self.hall->set_time_index(frames[i]);
    wait_for_frames(*this, 30000);
    const QString name = QStringLiteral("frame-%1.png").arg(static_cast<qulonglong>(i), 4, 10, QChar('0'));
    if (!grab().save(dir.filePath(name), "PNG")) {
      self.hall->set_time(was);
      throw std::runtime_error(dir.filePath(name).toStdString() + ": cannot write");
    }
    index.write(QStringLiteral("%1,%2,%3\n").arg(i).arg(name).arg(time[frames[i]], 0, 'g', 10).toUtf8());
    ++written;
    if (progress && !progress(written, frames.size())) break;
  }
  self.hall->set_time(was);
  return written;
}
QString MainWindow::last_error() const { return impl_->last_error; }
void MainWindow::set_interactive(bool interactive) { impl_->interactive = interactive; }
void MainWindow::set_browser_visible(bool visible) { impl_->dock->setVisible(visible); }
void MainWindow::set_kpi_visible(bool visible) { impl_->kpi_dock->setVisible(visible); }
KpiPanel* MainWindow::kpi() const { return impl_->kpi; }

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


bool MainWindow::open_file(const QString& file) {
  const QString suffix = QFileInfo(file).suffix().toLower();
  if (suffix == "yaml" || suffix == "yml") return open_scenario(file);
  return open_report(file);
}

/// What the worker thread read: a report, a validation report, or why neither.
struct MainWindow::Loaded {
  std::shared_ptr<const ReportModel> report;
  std::shared_ptr<const Study> study;
  QString study_error;  ///< why the events and limits could not be read (the report still opens)
  bool validation = false;
  QString damage;  ///< the check's message (a file that crashes or hangs libhdf5)
  QString error;   ///< the reader's message
};

namespace {
/// A run's temporary report: ".NAME.TAG.part" beside NAME (io/src/output_file.cpp).
bool is_run_temporary(const QString& file) {
  static const QRegularExpression pattern(QStringLiteral("^\\..+\\.[A-Za-z0-9]+\\.part$"));
  return pattern.match(QFileInfo(file).fileName()).hasMatch();
}

/// The report a run's temporary becomes when the run ends ("" for another file).
QString final_name_of(const QString& file) {
  if (!is_run_temporary(file)) return {};
  QString name = QFileInfo(file).fileName().mid(1);
  name.chop(5);                                  // ".part"
  name = name.left(name.lastIndexOf('.'));       // ".TAG"
  return QFileInfo(file).dir().filePath(name);
}

/// A file that may still be being written: a run's temporary, or one whose size or modification
/// time differs from `before` (taken before it was read).
bool maybe_being_written(const QString& file, const QFileInfo& before) {
  if (is_run_temporary(file)) return true;
  const QFileInfo now(file);
  return now.exists() && (now.size() != before.size() || now.lastModified() != before.lastModified());
}

QString megabytes(qint64 bytes) { return QString::number(static_cast<double>(bytes) / 1e6, 'f', 1) + " MB"; }
}  // namespace

bool MainWindow::loading() const { return impl_->loading; }
QString MainWindow::followed_file() const { return impl_->followed; }
QString MainWindow::status_text() const { return impl_->status->text(); }

MainWindow::Loaded MainWindow::load_in_background(const QString& file) {
  auto& self = *impl_;
  self.loading = true;
  const QString name = QFileInfo(file).fileName();
  std::atomic<int> step{0};
  Loaded loaded;
  const std::string path = file.toStdString();
  // The worker owns nothing of the window; it hands the model over when it has finished (the
  // model's caches are filled by the worker alone until then).
  QThread* worker = QThread::create([&loaded, &step, path] {
    try {
      loaded.damage = QString::fromStdString(check_report(path));
      if (!loaded.damage.isEmpty()) return;
      step = 1;
      if (ValidationModel::is_validation_report(path)) {
        loaded.validation = true;
        return;
      }
      step = 2;
      auto report = std::make_shared<const ReportModel>(path);
      (void)report->status();
      (void)report->status_reason();
      step = 3;
      // The first picture's data: the default field's range over the run and its first sample.
      // Only to have them ready: a damaged field is left for the views, which say so and go on.
      try {
        if (const FieldInfo* field = report->default_field(); field != nullptr && !report->time().empty()) {
          (void)report->rack_value_range(*field, Reduction::max);
          (void)report->rack_values(*field, Reduction::max, 0);
        }
      } catch (const std::exception&) {
      }
      try {
        loaded.study = std::make_shared<const Study>(read_study(*report));
      } catch (const std::exception& e) {
        loaded.study_error = QString::fromStdString(e.what());
      }
      loaded.report = std::move(report);
    } catch (const std::exception& e) {
      loaded.error = QString::fromStdString(e.what());
    }
  });
  QEventLoop loop;
  connect(worker, &QThread::finished, &loop, &QEventLoop::quit, Qt::QueuedConnection);
  QElapsedTimer clock;
  clock.start();
  QTimer ticker;
  ticker.setInterval(100);
  const QString before = self.status->text();
  auto show_step = [&] {
    static const char* const steps[] = {"checking the file", "reading its index", "reading the layout and series",
                                        "reading the first field"};
    self.status->setText(tr("Opening %1: %2 (%3 s)")
                             .arg(name, tr(steps[std::clamp(step.load(), 0, 3)]))
                             .arg(static_cast<double>(clock.elapsed()) / 1000.0, 0, 'f', 1));
  };
  connect(&ticker, &QTimer::timeout, &loop, show_step);
  show_step();
  self.progress->show();
  ticker.start();
  worker->start();
  loop.exec(QEventLoop::ExcludeUserInputEvents);
  worker->wait();
  delete worker;
  ticker.stop();
  self.progress->hide();
  self.status->setText(before);
  self.loading = false;
  return loaded;
}

bool MainWindow::open_report(const QString& file) {
  auto& self = *impl_;
  if (self.loading) {
    statusBar()->showMessage(tr("Still opening a report; %1 was not opened").arg(QFileInfo(file).fileName()), 10000);
    return false;
  }
  if (!QFileInfo::exists(file)) {
    report_error(tr("%1: no such report file").arg(file));
    return false;
  }
  const QFileInfo before(file);
  Loaded loaded = load_in_background(file);
  if (!loaded.damage.isEmpty()) {
    report_error(loaded.damage);
    return false;
  }
  if (loaded.validation) return open_validation(file);
  if (!loaded.report && maybe_being_written(file, before)) {
    // Not readable yet, and likely because it is being written: say so, and open it when it is.
    follow(file);
    self.waiting = true;
    self.status->setText(tr("%1 is still being written (%2 so far): it opens as soon as it can be read")
                             .arg(QFileInfo(file).fileName(), megabytes(QFileInfo(file).size())));
    self.status->setToolTip(loaded.error);
    return false;
  }
  return apply_report(file, std::move(loaded), false);
}

bool MainWindow::apply_report(const QString& file, Loaded loaded, bool reload) {
  auto& self = *impl_;
  if (!loaded.report) {
    report_error(loaded.error);
    return false;
  }
  // A report read again keeps what the views showed.
  const QString field = self.hall->field();
  const Reduction reduction = self.hall->reduction();
  const bool at_end = self.report && self.hall->time_index() + 1 >= self.report->time().size();
  const double time = self.hall->time();
  const auto rack = self.hall->selected_rack();
  const QStringList series = self.charts->checked();
  self.report = std::move(loaded.report);
  self.last_error.clear();
  self.waiting = false;
  self.hall->set_study(loaded.study);
  self.charts->set_study(loaded.study);
  self.heat_map->set_study(loaded.study);
  self.hall->set_report(self.report);
  self.charts->set_report(self.report);
  self.heat_map->set_report(self.report);
  self.schematic->set_report(self.report);
  self.kpi->set_report(self.report);
  self.kpi->set_time(self.hall->time());
  self.charts->set_time_cursor(self.hall->time());
  self.heat_map->set_time_cursor(self.hall->time());
  self.schematic->set_time_cursor(self.hall->time());
  if (!loaded.study_error.isEmpty()) report_error(tr("%1: the events and limits cannot be read: %2").arg(QFileInfo(file).fileName(), loaded.study_error));
  if (reload) {
    if (!field.isEmpty()) self.hall->set_field(field);
    self.hall->set_reduction(reduction);
    if (at_end) {
      self.hall->set_time_index(self.report->time().empty() ? 0 : self.report->time().size() - 1);
    } else {
      self.hall->set_time(time);
    }
    if (rack) self.hall->select_rack(rack);
    if (!series.isEmpty()) self.charts->set_checked(series);
  }
  if (self.other) self.compare->set_reports(self.report, self.other);
  const auto& layout = self.report->layout();
  QString status = tr("%1: %2, %3 samples, %4 racks, %5 GPUs")
                       .arg(QFileInfo(file).fileName(), QString::fromStdString(self.report->status()))
                       .arg(self.report->time().size())
                       .arg(layout.rack_count())
                       .arg(layout.gpu_labels.size());
  if (!self.report->status_reason().empty()) status += " (" + QString::fromStdString(self.report->status_reason()) + ")";
  if (!layout.from_report) status += tr("; no layout in the report: shown as one rack");
  if (reload) status += tr("; read again at %1").arg(QDateTime::currentDateTime().toString("HH:mm:ss"));
  self.status->setText(status);
  self.status->setToolTip(QFileInfo(file).absoluteFilePath());
  setWindowTitle(tr("dctwin - %1").arg(QFileInfo(file).fileName()));
  follow(file);
  if (!reload) {
    add_recent(file);
    if (current_view() != View::charts) show_view(View::hall);
  }
  return true;
}

void MainWindow::follow(const QString& file) {
  auto& self = *impl_;
  if (!self.watcher->files().isEmpty()) self.watcher->removePaths(self.watcher->files());
  if (!self.watcher->directories().isEmpty()) self.watcher->removePaths(self.watcher->directories());
  self.followed = QFileInfo(file).absoluteFilePath();
  const QFileInfo info(self.followed);
  self.followed_size = info.size();
  self.followed_modified = info.lastModified();
  self.watcher->addPath(self.followed);
  // The directory too: a file renamed over the report (a run's end) replaces it.
  self.watcher->addPath(info.absolutePath());
}

void MainWindow::on_followed_changed() {
  auto& self = *impl_;
  if (self.followed.isEmpty()) return;
  if (self.loading) {
    self.settle->start();  // after the current read
    return;
  }
  if (!QFileInfo::exists(self.followed)) {
    // A run's temporary disappears when the run ends: its report is the file to follow now.
    const QString final_name = final_name_of(self.followed);
    if (!final_name.isEmpty() && QFileInfo::exists(final_name)) {
      self.followed = QFileInfo(final_name).absoluteFilePath();
      self.followed_size = -1;
    } else {
      self.status->setText(tr("%1 was removed; the report shown is the one read before")
                               .arg(QFileInfo(self.followed).fileName()));
      return;
    }
  }
  reload_followed();
}

bool MainWindow::reload_followed() {
  auto& self = *impl_;
  if (self.followed.isEmpty() || self.loading) return false;
  const QFileInfo info(self.followed);
  if (!info.exists()) return false;
  if (!self.waiting && info.size() == self.followed_size && info.lastModified() == self.followed_modified) return false;
  // The watcher drops a file that was replaced; watch the new one.
  if (!self.watcher->files().contains(self.followed)) self.watcher->addPath(self.followed);
  const QString file = self.followed;
  const QFileInfo before(file);
  Loaded loaded = load_in_background(file);
  if (!loaded.damage.isEmpty()) {
    report_error(loaded.damage);
    return false;
  }
  if (!loaded.report) {
    self.followed_size = info.size();
    self.followed_modified = info.lastModified();
    // A followed file that failed after it changed is taken as being written while it keeps
    // changing (and for a run's temporary).
    if (self.waiting || maybe_being_written(file, before)) {
      self.waiting = true;
      self.status->setText(tr("%1 is still being written (%2 so far): it opens as soon as it can be read")
                               .arg(info.fileName(), megabytes(info.size())));
      self.status->setToolTip(loaded.error);
      // Changed while it was read: look again soon (the watcher may have reported those writes
      // while this read was going on).
      const QFileInfo now(file);
      if (now.size() != before.size() || now.lastModified() != before.lastModified()) self.settle->start();
      return false;
    }
    self.waiting = false;
    report_error(loaded.error);
    return false;
  }
  const bool had_report = self.report != nullptr;
  if (!apply_report(file, std::move(loaded), had_report)) return false;
  Q_EMIT report_reloaded(file);
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
  if (self.loading) return false;
  Loaded loaded = load_in_background(file);
  if (!loaded.damage.isEmpty()) {
    report_error(loaded.damage);
    return false;
  }
  if (!loaded.report) {
    report_error(loaded.validation ? tr("%1 is a validation report; compare needs a simulation report").arg(file)
                                   : loaded.error);
    return false;
  }
  self.other = std::move(loaded.report);
  self.compare->set_reports(self.report, self.other);
  self.charts->set_other(self.other);
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
