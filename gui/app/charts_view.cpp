#include "charts_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <vtkContextView.h>
#include <vtkGenericOpenGLRenderWindow.h>

#include <array>
#include <cmath>
#include <exception>
#include <cstdint>
#include <cstdio>
#include <map>

#include "dctwin/gui/chart_scene.hpp"
#include "dctwin/gui/distribution.hpp"
#include "dctwin/gui/live_run.hpp"
#include "dctwin/gui/series_tools.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {
namespace {

/// "grid power" for /grid/power: short legend names for fine series, whose long names are sentences.
std::string fine_name(const std::string& path) {
  std::string name = path.substr(1);
  for (char& c : name) {
    if (c == '/' || c == '_') c = ' ';
  }
  return name;
}

/// The display unit of a rate (unit per second) of a quantity shown in `unit`.
DisplayUnit rate_unit(const std::string& si_unit, double magnitude) {
  DisplayUnit unit = display_unit_for(si_unit, magnitude);
  unit.offset = 0.0;
  unit.unit += "/s";
  return unit;
}

double largest_magnitude(const std::vector<double>& values) {
  double magnitude = 0.0;
  for (const double v : values) {
    if (std::isfinite(v)) magnitude = std::max(magnitude, std::fabs(v));
  }
  return magnitude;
}

}  // namespace

/// One series resolved for plotting: its time axis and values in SI.
struct Resolved {
  std::vector<double> time;  // [s]
  std::vector<double> si;
  std::string units, name;
  bool count = false, ramp = false, own_time = false;
  const PercentileBands* bands = nullptr;  ///< spread over the entities (si is the median)
  std::string entities;                    ///< "GPUs" or "racks", for the bands' names
};

struct ChartsView::Impl {
  std::shared_ptr<const ReportModel> report;
  std::shared_ptr<const ReportModel> other;       ///< report B of a comparison (null: none)
  QCheckBox* overlay = nullptr;                   ///< draw B's series beside A's
  std::map<std::string, PercentileBands> other_bands;  // by field path, for report B
  std::shared_ptr<const LiveRun> live;
  std::uint64_t live_version = 0;
  QTimer* live_timer = nullptr;
  QListWidget* list = nullptr;
  QComboBox* mode = nullptr;
  QCheckBox* log_frequency = nullptr;
  QCheckBox* log_energy = nullptr;
  QLabel* note = nullptr;
  VtkView* view = nullptr;
  QTimer* detail_timer = nullptr;
  ChartScene chart;
  std::vector<double> x;
  std::string x_title;
  std::vector<ChartSeries> shown;
  QString problems;
  bool updating = false;
  bool keep_zoom = false;  ///< set while a live refresh rebuilds the chart
  std::map<std::string, SeriesSpectrum> spectra;  // by id, for the report shown
  std::map<std::string, PercentileBands> bands;   // by field path, for the report shown
  std::shared_ptr<const Study> study;
  double cursor = std::nan("");  ///< [s]
  double x_seconds = 1.0;        ///< seconds per unit of the time axis shown
  QString limit_note;            ///< limits too far from the data to draw
};

ChartsView::ChartsView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* side = new QWidget(splitter);
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 0, 0);
  auto* mode_row = new QHBoxLayout();
  mode_row->addWidget(new QLabel(tr("Plot:"), side));
  self.mode = new QComboBox(side);
  self.mode->setObjectName("chartMode");
  self.mode->addItem(tr("Against time"));
  self.mode->addItem(tr("Spectrum (energy per frequency bin)"));
  mode_row->addWidget(self.mode, 1);
  side_layout->addLayout(mode_row);
  auto* log_row = new QHBoxLayout();
  self.log_frequency = new QCheckBox(tr("log frequency"), side);
  self.log_frequency->setChecked(true);
  self.log_energy = new QCheckBox(tr("log energy"), side);
  log_row->addWidget(self.log_frequency);
  log_row->addWidget(self.log_energy);
  side_layout->addLayout(log_row);
  self.log_frequency->setEnabled(false);
  self.log_energy->setEnabled(false);
  self.overlay = new QCheckBox(side);
  self.overlay->setObjectName("chartOverlay");
  self.overlay->setChecked(true);
  self.overlay->setVisible(false);
  side_layout->addWidget(self.overlay);
  side_layout->addWidget(new QLabel(tr("Series (tick to plot):"), side));
  self.list = new QListWidget(side);
  self.list->setObjectName("seriesList");
  side_layout->addWidget(self.list, 1);
  self.note = new QLabel(side);
  self.note->setObjectName("chartNote");
  self.note->setWordWrap(true);
  side_layout->addWidget(self.note);
  auto* reset = new QPushButton(tr("Reset zoom"), side);
  auto* png = new QPushButton(tr("Export PNG..."), side);
  auto* csv = new QPushButton(tr("Export CSV..."), side);
  side_layout->addWidget(reset);
  side_layout->addWidget(png);
  side_layout->addWidget(csv);
  side_layout->addWidget(new QLabel(tr("Wheel: zoom. Left drag: pan.\nRight drag: zoom to a box."), side));
  self.view = new VtkView(splitter);
  self.view->setObjectName("chartView");
  self.view->installEventFilter(this);
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
  connect(self.mode, &QComboBox::currentIndexChanged, this, [this](int index) {
    impl_->log_frequency->setEnabled(index == 1);
    impl_->log_energy->setEnabled(index == 1);
    if (!impl_->updating) rebuild();
  });
  connect(self.overlay, &QCheckBox::toggled, this, [this] {
    if (!impl_->updating) rebuild();
  });
  for (auto* box : {self.log_frequency, self.log_energy}) {
    connect(box, &QCheckBox::toggled, this, [this] {
      if (!impl_->updating && mode() == Mode::spectrum) rebuild();
    });
  }
  connect(reset, &QPushButton::clicked, this, [this] {
    impl_->chart.reset_zoom();
    update_note();
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
  // After a zoom or pan (the chart's own mouse handling), decimate again over the visible range.
  self.detail_timer = new QTimer(this);
  self.detail_timer->setInterval(150);
  connect(self.detail_timer, &QTimer::timeout, this, [this] {
    if (!isVisible()) return;
    if (impl_->chart.refresh_detail()) {
      update_note();
      impl_->view->update();
    }
  });
  self.detail_timer->start();
  self.live_timer = new QTimer(this);
  self.live_timer->setInterval(1000);
  connect(self.live_timer, &QTimer::timeout, this, [this] { refresh_live(); });
}

ChartsView::~ChartsView() = default;

void ChartsView::set_study(std::shared_ptr<const Study> study) { impl_->study = std::move(study); }

void ChartsView::set_other(std::shared_ptr<const ReportModel> other) {
  auto& self = *impl_;
  self.other = std::move(other);
  self.other_bands.clear();
  self.overlay->setVisible(self.other != nullptr);
  if (self.other) {
    self.overlay->setText(tr("Overlay B: %1 (dashed)").arg(QString::fromStdString(self.other->path().filename().string())));
  }
  rebuild();
}

bool ChartsView::overlay_shown() const { return impl_->other != nullptr && impl_->overlay->isChecked(); }

void ChartsView::set_overlay(bool on) { impl_->overlay->setChecked(on); }

double ChartsView::time_cursor() const { return impl_->cursor; }

void ChartsView::set_time_cursor(double t) {
  auto& self = *impl_;
  self.cursor = t;
  if (mode() == Mode::spectrum || !std::isfinite(t)) {
    self.chart.set_cursor(std::nullopt);
  } else {
    self.chart.set_cursor(t / self.x_seconds);
  }
  self.view->update();
}

bool ChartsView::pick_time_at(QPoint position) {
  auto& self = *impl_;
  if (mode() == Mode::spectrum) return false;
  const double ratio = self.view->devicePixelRatioF();
  const auto x = self.chart.x_at_display(position.x() * ratio);
  if (!x) return false;
  set_time_cursor(*x * self.x_seconds);
  Q_EMIT time_picked(*x * self.x_seconds);
  return true;
}

bool ChartsView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == impl_->view && event->type() == QEvent::MouseButtonDblClick) {
    auto* mouse = static_cast<QMouseEvent*>(event);
    if (mouse->button() == Qt::LeftButton && pick_time_at(mouse->position().toPoint())) return true;
  }
  return QWidget::eventFilter(watched, event);
}

ChartScene& ChartsView::chart() const { return impl_->chart; }
VtkView* ChartsView::vtk_view() const { return impl_->view; }
QString ChartsView::note() const { return impl_->note->text(); }
ChartsView::Mode ChartsView::mode() const { return impl_->mode->currentIndex() == 1 ? Mode::spectrum : Mode::time; }

void ChartsView::set_mode(Mode mode) { impl_->mode->setCurrentIndex(mode == Mode::spectrum ? 1 : 0); }

void ChartsView::set_spectrum_log(bool log_frequency, bool log_energy) {
  auto& self = *impl_;
  self.updating = true;
  self.log_frequency->setChecked(log_frequency);
  self.log_energy->setChecked(log_energy);
  self.updating = false;
  if (mode() == Mode::spectrum) rebuild();
}

bool ChartsView::following_live() const { return impl_->live != nullptr; }

void ChartsView::set_live(std::shared_ptr<const LiveRun> live) {
  auto& self = *impl_;
  self.live = std::move(live);
  self.live_version = 0;
  self.spectra.clear();
  if (!self.live) {
    self.live_timer->stop();
    set_report(self.report);
    return;
  }
  self.updating = true;
  self.list->clear();
  self.updating = false;
  self.live_timer->start();
  refresh_live();
}

bool ChartsView::refresh_live() {
  auto& self = *impl_;
  if (!self.live) return false;
  const std::uint64_t version = self.live->version();
  if (version == self.live_version) return false;
  self.live_version = version;
  self.spectra.clear();
  populate_live();
  self.keep_zoom = true;  // a refresh under the user's eyes keeps where they zoomed
  rebuild();
  self.keep_zoom = false;
  return true;
}

void ChartsView::populate_live() {
  auto& self = *impl_;
  std::vector<std::pair<std::string, std::string>> items;  // id, text
  for (const auto& s : self.live->series()) {
    const std::string unit = display_unit_for(s.units, s.units == "W" ? (s.fine ? 1e6 : 1e4) : 0.0).unit;
    const std::string suffix = unit == "1" ? std::string() : " [" + unit + "]";
    items.emplace_back(s.id, (s.fine ? fine_name(s.id) : s.long_name) + suffix);
    if (s.fine && s.units == "W") items.emplace_back("ramp:" + s.id, fine_name(s.id) + " ramp rate, 1-s windows [" + unit + "/s]");
  }
  if (static_cast<int>(items.size()) == self.list->count()) return;
  const QStringList was = checked();
  self.updating = true;
  self.list->clear();
  for (const auto& [id, text] : items) {
    auto* item = new QListWidgetItem(QString::fromStdString(text), self.list);
    item->setData(Qt::UserRole, QString::fromStdString(id));
    item->setToolTip(QString::fromStdString(id) + tr(" (live)"));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(was.contains(QString::fromStdString(id)) ? Qt::Checked : Qt::Unchecked);
  }
  if (checked().isEmpty() && self.list->count() > 0) self.list->item(0)->setCheckState(Qt::Checked);
  self.updating = false;
}

void ChartsView::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  self.report = std::move(report);
  self.live.reset();
  self.live_timer->stop();
  self.spectra.clear();
  self.bands.clear();
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
      if (!f.bitmask) {
        const std::string entities = f.entity == "gpu" ? "GPUs" : "racks";
        add("bands:" + f.path, f.long_name + ", spread over " + entities + " (min, p5, median, p95, max)",
            "median of all " + entities + " of " + f.path + " with the 5th-95th percentile and min-max bands");
      }
      if (f.entity != "gpu") continue;
      if (f.bitmask) {
        add("count:" + f.path, "GPUs flagged: " + f.long_name, "number of GPUs with a nonzero value of " + f.path);
        continue;
      }
      add("max:" + f.path, f.long_name + ", max over GPUs", "largest value over all GPUs of " + f.path);
      add("mean:" + f.path, f.long_name + ", mean over GPUs", "mean over all GPUs of " + f.path);
    }
    for (const auto& group : self.report->fine_groups()) {
      double dt = 0.0;
      try {
        dt = uniform_spacing(self.report->fine_time(group));
      } catch (const std::exception& e) {
        Q_EMIT read_failed(QString::fromStdString(e.what()));
        continue;
      }
      char spacing[64];
      std::snprintf(spacing, sizeof spacing, dt > 0.0 ? "every %.3g ms" : "irregular", dt * 1e3);
      for (const auto& s : group.series) {
        const std::string unit = display_unit_for(s.units, s.units == "W" ? 1e6 : 0.0).unit;
        add(s.path, fine_name(s.path) + (unit == "1" ? std::string() : " [" + unit + "]") + " (" + spacing + ")",
            s.path + ": " + s.long_name + ", " + std::to_string(group.samples) + " samples on " + group.time_path);
        if (s.units == "W") {
          add("ramp:" + s.path, fine_name(s.path) + " ramp rate, 1-s windows [" + unit + "/s]",
              "difference of the means of adjacent 1-s windows of " + s.path + " per second");
        }
      }
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
  try {
    draw();
  } catch (const std::exception& e) {
    auto& self = *impl_;
    self.shown.clear();
    self.x.clear();
    self.problems = tr("Cannot read the report: %1. ").arg(QString::fromStdString(e.what()));
    self.chart.set_series({}, self.x_title, {});
    update_note();
    self.view->update();
    Q_EMIT read_failed(QString::fromStdString(e.what()));
  }
}

void ChartsView::draw() {
  auto& self = *impl_;
  self.shown.clear();
  self.x.clear();
  self.problems.clear();
  const bool spectrum = mode() == Mode::spectrum;
  const bool live = self.live != nullptr;
  if (!live && (!self.report || (self.report->time().empty() && self.report->fine_groups().empty()))) {
    self.x_title = "time [s]";
    self.chart.set_series({}, self.x_title, {});
    update_note();
    self.view->update();
    return;
  }
  // The report's time axis (or the live run's), and the duration that chooses the time unit.
  std::vector<double> time;
  double duration = 0.0;
  if (live) {
    duration = self.live->last_time();
  } else {
    time = self.report->time();
    duration = time.empty() ? 0.0 : time.back();
    for (const auto& group : self.report->fine_groups()) {
      const auto& fine = self.report->fine_time(group);
      if (!fine.empty()) duration = std::max(duration, fine.back());
    }
  }
  // A series of a report (`rep`, on its time axis `rep_time`, its bands cached in `band_cache`),
  // or of the live run.
  auto resolve = [&](const ReportModel* rep, const std::vector<double>& rep_time,
                     std::map<std::string, PercentileBands>& band_cache, const std::string& id, Resolved& out) -> bool {
    std::string path = id, how;
    if (const auto colon = id.find(':'); colon != std::string::npos) {
      how = id.substr(0, colon);
      path = id.substr(colon + 1);
    }
    if (how == "ramp") {
      if (live) {
        auto snapshot = self.live->snapshot(path);
        out.time = std::move(snapshot.time);
        out.si = std::move(snapshot.values);
        for (const auto& s : self.live->series()) {
          if (s.id == path) out.units = s.units;
        }
      } else {
        const auto* group = rep->fine_group_of(path);
        const auto* series = rep->find_fine_series(path);
        if (group == nullptr || series == nullptr) return false;
        out.time = rep->fine_time(*group);
        out.si = rep->series_values(path);
        out.units = series->units;
      }
      const double dt = uniform_spacing(out.time);
      if (dt <= 0.0) {
        if (out.time.size() > 1) self.problems += QString::fromStdString(path) + tr(": irregular time axis, no ramp rate. ");
        return false;
      }
      out.si = ramp_rate_series(out.si, dt, 1.0);
      out.name = fine_name(path) + " ramp rate (1 s)";
      out.ramp = out.own_time = true;
      return true;
    }
    if (live) {
      for (const auto& s : self.live->series()) {
        if (s.id != id) continue;
        auto snapshot = self.live->snapshot(id);
        out.time = std::move(snapshot.time);
        out.si = std::move(snapshot.values);
        out.units = s.units;
        out.name = s.fine ? fine_name(id) : s.long_name;
        out.own_time = true;
        return true;
      }
      return false;
    }
    if (how == "bands") {
      const auto* field = rep->find_field(path);
      if (field == nullptr || field->bitmask) return false;
      auto cached = band_cache.find(path);
      if (cached == band_cache.end()) cached = band_cache.emplace(path, percentile_bands(*self.report, *field)).first;
      out.time = rep_time;
      out.si = cached->second.median();
      out.bands = &cached->second;
      out.units = field->units;
      out.entities = field->entity == "gpu" ? "GPUs" : "racks";
      out.name = field->long_name + " (median of " + out.entities + ")";
      return true;
    }
    if (!how.empty()) {
      const Reduction reduction = how == "mean" ? Reduction::mean : how == "count" ? Reduction::count_nonzero : Reduction::max;
      const auto* field = rep->find_field(path);
      if (field == nullptr) return false;
      out.count = reduction == Reduction::count_nonzero;
      out.time = rep_time;
      out.si = rep->aggregate_series(*field, reduction);
      out.units = out.count ? "GPUs" : field->units;
      out.name = out.count ? "GPUs flagged (" + field->long_name + ")" : field->long_name + " (" + reduction_name(reduction) + ")";
      return true;
    }
    if (const auto* series = rep->find_series(path)) {
      out.time = rep_time;
      out.si = rep->series_values(path);
      out.units = series->units;
      out.name = series->long_name;
      return true;
    }
    if (const auto* fine = rep->find_fine_series(path)) {
      out.time = rep->fine_time(*rep->fine_group_of(path));
      out.si = rep->series_values(path);
      out.units = fine->units;
      out.name = fine_name(path);
      out.own_time = true;
      return true;
    }
    return false;
  };

  const TimeUnit time_unit = time_unit_for(duration);
  self.x_seconds = spectrum ? 1.0 : time_unit.seconds;
  std::vector<ChartLimit> limits;
  self.limit_note.clear();
  self.x.resize(time.size());
  for (std::size_t t = 0; t < time.size(); ++t) self.x[t] = time[t] / time_unit.seconds;
  self.x_title = spectrum ? "frequency [Hz]" : "time [" + time_unit.unit + "]";
  std::string band_text;
  // The A/B overlay: against time, of a report (not a live run) compared with another.
  const bool overlay = !live && self.other != nullptr && self.overlay->isChecked();
  const std::vector<double> no_time;
  const std::vector<double>& other_time = overlay ? self.other->time() : no_time;
  QStringList missing_in_b;
  for (const auto& id_text : checked()) {
    const std::string id = id_text.toStdString();
    Resolved r;
    if (!resolve(self.report.get(), time, self.bands, id, r)) continue;
    const double magnitude = largest_magnitude(r.bands != nullptr ? r.bands->max() : r.si);
    const DisplayUnit unit = r.count ? DisplayUnit{"GPUs", 1.0, 0.0} : r.ramp ? rate_unit(r.units, magnitude) : display_unit_for(r.units, magnitude);
    ChartSeries s{r.name, unit.unit, {}};
    if (spectrum) {
      auto cached = self.spectra.find(id);
      if (cached == self.spectra.end()) {
        try {
          cached = self.spectra.emplace(id, series_spectrum(r.time, r.si, id)).first;
        } catch (const std::exception& e) {
          self.problems += QString::fromStdString(e.what()) + ". ";
          continue;
        }
      }
      const SeriesSpectrum& sp = cached->second;
      // Energy per bin is a variance: it scales with the square of the unit and has no offset.
      s.unit = unit.unit == "1" ? "1" : unit.unit + "^2";
      s.x = sp.frequency;
      s.values.reserve(sp.energy.size());
      for (const double e : sp.energy) s.values.push_back(e * unit.scale * unit.scale);
      char text[200];
      std::snprintf(text, sizeof text, "%s%s: %.1f %% of the variance in %g-%g Hz (peak %.4g Hz)",
                    band_text.empty() ? "" : "; ", r.name.c_str(), 100.0 * sp.band_fraction, sp.band_low,
                    sp.band_high, sp.peak_frequency());
      band_text += text;
    } else {
      s.values.reserve(r.si.size());
      for (const double v : r.si) s.values.push_back(unit.from_si(v));
      if (r.bands != nullptr) {
        auto band = [&](const std::string& name, const std::vector<double>& lower, const std::vector<double>& upper) {
          ChartBand b{name + " over " + r.entities, {}, {}};
          for (const double v : lower) b.lower.push_back(unit.from_si(v));
          for (const double v : upper) b.upper.push_back(unit.from_si(v));
          s.bands.push_back(std::move(b));
        };
        band("min-max", r.bands->min(), r.bands->max());
        band("p5-p95", r.bands->p5(), r.bands->p95());
      }
      // The limits this series is held to (relative ones about its first sample).
      if (self.study && !live) {
        double first = std::nan("");
        for (const double v : r.si) {
          if (std::isfinite(v)) {
            first = v;
            break;
          }
        }
        for (const auto& limit : self.study->limits_for(id)) {
          const double si = limit.relative_to_first ? first + limit.value : limit.value;
          if (!std::isfinite(si)) continue;
          std::string text = limit.label + " " + format_value(unit.from_si(si), unit.unit);
          if (limit.relative_to_first) {
            text = limit.label + " (first sample " + (limit.value >= 0.0 ? "+ " : "- ") +
                   format_value(unit.difference_from_si(std::fabs(limit.value)), unit.unit == "degC" ? "K" : unit.unit) + ")";
          }
          limits.push_back({self.shown.size(), unit.from_si(si), text});
        }
      }
      if (r.own_time) {
        s.x.reserve(r.time.size());
        for (const double t : r.time) s.x.push_back(t / time_unit.seconds);
      }
    }
    const int colour = static_cast<int>(self.shown.size());
    self.shown.push_back(std::move(s));
    // Report B's series of the same id beside A's: A's unit (so the same panel) and colour, dashed,
    // on B's own time axis. Its bands and limits are A's to show.
    if (overlay && !spectrum) {
      Resolved b;
      if (!resolve(self.other.get(), other_time, self.other_bands, id, b)) {
        missing_in_b << QString::fromStdString(r.name);
        continue;
      }
      ChartSeries line{"B: " + b.name, unit.unit, {}};
      line.values.reserve(b.si.size());
      for (const double v : b.si) line.values.push_back(unit.from_si(v));
      line.x.reserve(b.time.size());
      for (const double t : b.time) line.x.push_back(t / time_unit.seconds);
      line.colour = colour;
      line.dashed = true;
      self.shown.push_back(std::move(line));
    }
  }
  if (!missing_in_b.isEmpty()) self.problems += tr("Not in report B: %1. ").arg(missing_in_b.join(", "));
  ChartOptions options;
  options.keep_zoom = live && self.keep_zoom;
  if (!spectrum && !live) {
    options.limits = std::move(limits);
    if (self.study) options.events = study_chart_events(*self.study, time_unit.seconds);
  }
  self.chart.set_cursor(spectrum || !std::isfinite(self.cursor) ? std::nullopt
                                                                  : std::optional<double>(self.cursor / self.x_seconds));
  std::string title = live ? "Live: the run so far, " + format_time(self.live->last_time(), duration)
                           : self.report->path().filename().string();
  if (spectrum) {
    options.log_x = self.log_frequency->isChecked();
    options.log_y = self.log_energy->isChecked();
    options.x_markers = {0.1, 20.0};
    title = (live ? std::string("Live spectrum. ") : std::string("Spectrum, 0.1-20 Hz band marked. ")) + band_text;
  }
  self.chart.set_series(self.x, self.x_title, self.shown, title, options);
  for (const auto& text : self.chart.off_scale_limits()) {
    self.limit_note += tr("Off the scale, not drawn: %1. ").arg(QString::fromStdString(text));
  }
  update_note();
  self.view->update();
}

void ChartsView::update_note() {
  auto& self = *impl_;
  QString text = self.problems + self.limit_note;
  const std::size_t input = self.chart.input_points();
  const std::size_t drawn = self.chart.drawn_points();
  if (input > drawn) {
    const QLocale locale(QLocale::English);
    text += tr("Decimated for display: %1 samples drawn as %2 points (the smallest and largest sample of "
               "each 1/2000 of the visible range, so peaks stay visible; zoom in for every sample).")
                .arg(locale.toString(static_cast<qulonglong>(input)), locale.toString(static_cast<qulonglong>(drawn)));
  }
  self.note->setText(text);
  self.note->setVisible(!text.isEmpty());
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
