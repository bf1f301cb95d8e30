#include "hall_view.hpp"

#include <QColor>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QTableWidget>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>

#include "rack_panel.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {

struct HallView::Impl {
  std::shared_ptr<const ReportModel> report;
  HallScene scene;
  VtkView* view = nullptr;
  RackPanel* panel = nullptr;
  QComboBox* field_box = nullptr;
  QComboBox* reduction_box = nullptr;
  QSlider* slider = nullptr;
  QLabel* time_label = nullptr;
  QToolButton* play = nullptr;
  QTimer* timer = nullptr;
  QComboBox* range_box = nullptr;
  QDoubleSpinBox* range_lo = nullptr;
  QDoubleSpinBox* range_hi = nullptr;
  QLabel* spread_label = nullptr;
  QLabel* top_label = nullptr;
  QTableWidget* top_table = nullptr;
  QLabel* alarm_label = nullptr;
  QListWidget* events = nullptr;
  QLabel* events_label = nullptr;
  std::shared_ptr<const Study> study;
  std::vector<std::size_t> alarms;
  double alarm_limit = std::numeric_limits<double>::quiet_NaN();  // display units, for the table
  std::string alarm_unit;

  /// Lists the study's events, times in the unit of the report's duration.
  void fill_events() {
    events->clear();
    const bool any = study && !study->events.empty();
    events->setVisible(any);
    events_label->setVisible(any);
    if (!any) return;
    const double duration = report && !report->time().empty() ? report->time().back() : 0.0;
    for (const auto& e : study->events) {
      auto* item = new QListWidgetItem(QString::fromStdString(format_time(e.time, duration) + "  " +
                                                              study_event_kind_name(e.kind) + ": " + e.text),
                                       events);
      item->setData(Qt::UserRole, e.time);
      item->setToolTip(item->text());
    }
  }
  std::vector<double> shown;
  std::pair<double, double> range{0.0, 1.0};
  std::vector<TopEntry> top;
  /// The GPU values at the time shown (display units) for a GPU field, else empty.
  std::vector<double> gpu_values;
  FieldPresentation presentation;
  bool gpu_field = false;
  QString legend;
  bool updating = false;
};

namespace {
/// The unit of a difference of values in `unit` (a temperature difference is in K).
std::string difference_unit(const std::string& unit) { return unit == "degC" ? "K" : unit; }
}  // namespace

HallView::HallView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Colour by:"), this));
  self.field_box = new QComboBox(this);
  self.field_box->setObjectName("fieldCombo");
  self.field_box->setMinimumContentsLength(28);
  self.field_box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  top->addWidget(self.field_box, 1);
  top->addWidget(new QLabel(tr("GPUs per rack:"), this));
  self.reduction_box = new QComboBox(this);
  self.reduction_box->setObjectName("reductionCombo");
  self.reduction_box->addItem(tr("max"), static_cast<int>(Reduction::max));
  self.reduction_box->addItem(tr("mean"), static_cast<int>(Reduction::mean));
  self.reduction_box->addItem(tr("count nonzero"), static_cast<int>(Reduction::count_nonzero));
  top->addWidget(self.reduction_box);
  top->addSpacing(12);
  top->addWidget(new QLabel(tr("Camera:"), this));
  for (const auto preset : {CameraPreset::overview, CameraPreset::top, CameraPreset::front, CameraPreset::side}) {
    auto* button = new QToolButton(this);
    button->setText(tr(camera_preset_name(preset)));
    button->setObjectName(QStringLiteral("camera") + camera_preset_name(preset));
    connect(button, &QToolButton::clicked, this, [this, preset] { apply_camera(preset); });
    top->addWidget(button);
  }
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  auto* side = new QWidget(splitter);
  side->setObjectName("hallSide");
  auto* side_layout = new QVBoxLayout(side);
  side_layout->setContentsMargins(0, 0, 4, 0);
  auto* range_form = new QFormLayout;
  self.range_box = new QComboBox(side);
  self.range_box->setObjectName("rangeCombo");
  self.range_box->addItem(tr("whole run (fixed)"), static_cast<int>(RangeMode::run));
  self.range_box->addItem(tr("this time (auto)"), static_cast<int>(RangeMode::frame));
  self.range_box->addItem(tr("limits"), static_cast<int>(RangeMode::limits));
  self.range_box->setToolTip(tr("Whole run: colours compare between times. This time: the palette spans the "
                                "values shown, so the hottest rack stands out. Limits: the values typed below."));
  range_form->addRow(tr("Colour range:"), self.range_box);
  self.range_lo = new QDoubleSpinBox(side);
  self.range_hi = new QDoubleSpinBox(side);
  self.range_lo->setObjectName("rangeLow");
  self.range_hi->setObjectName("rangeHigh");
  for (auto* box : {self.range_lo, self.range_hi}) {
    box->setRange(-1e12, 1e12);
    box->setDecimals(3);
    box->setKeyboardTracking(false);
    box->setEnabled(false);
  }
  range_form->addRow(tr("from:"), self.range_lo);
  range_form->addRow(tr("to:"), self.range_hi);
  side_layout->addLayout(range_form);
  self.spread_label = new QLabel(side);
  self.spread_label->setObjectName("spreadLabel");
  self.spread_label->setWordWrap(true);
  side_layout->addWidget(self.spread_label);
  self.top_label = new QLabel(side);
  self.top_label->setWordWrap(true);
  side_layout->addWidget(self.top_label);
  self.top_table = new QTableWidget(0, 2, side);
  self.top_table->setObjectName("topTable");
  self.top_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  self.top_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  self.top_table->setSelectionMode(QAbstractItemView::SingleSelection);
  self.top_table->verticalHeader()->setVisible(true);
  self.top_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  self.top_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  self.top_table->setToolTip(tr("Click a row to fly to its rack."));
  side_layout->addWidget(self.top_table, 1);
  self.alarm_label = new QLabel(side);
  self.alarm_label->setObjectName("alarmLabel");
  self.alarm_label->setWordWrap(true);
  self.alarm_label->setStyleSheet("color: #b00000;");
  self.alarm_label->hide();
  side_layout->addWidget(self.alarm_label);
  self.events_label = new QLabel(tr("Events (click to go to the time):"), side);
  side_layout->addWidget(self.events_label);
  self.events = new QListWidget(side);
  self.events->setObjectName("eventsList");
  self.events->setMaximumHeight(150);
  self.events->hide();
  self.events_label->hide();
  side_layout->addWidget(self.events);
  side->setMinimumWidth(230);
  self.view = new VtkView(splitter);
  self.view->setObjectName("hallView");
  self.scene.attach(self.view->render_window());
  self.panel = new RackPanel(splitter);
  self.panel->setObjectName("rackPanel");
  self.panel->hide();
  splitter->addWidget(side);
  splitter->addWidget(self.view);
  splitter->addWidget(self.panel);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 2);
  layout->addWidget(splitter, 1);

  auto* bottom = new QHBoxLayout;
  self.play = new QToolButton(this);
  self.play->setObjectName("playButton");
  self.play->setText(tr("Play"));
  self.play->setCheckable(true);
  bottom->addWidget(self.play);
  self.slider = new QSlider(Qt::Horizontal, this);
  self.slider->setObjectName("timeSlider");
  self.slider->setRange(0, 0);
  bottom->addWidget(self.slider, 1);
  self.time_label = new QLabel(this);
  self.time_label->setObjectName("timeLabel");
  self.time_label->setMinimumWidth(150);
  bottom->addWidget(self.time_label);
  layout->addLayout(bottom);

  self.timer = new QTimer(this);
  self.timer->setInterval(100);
  connect(self.timer, &QTimer::timeout, this, [this] {
    const int next = impl_->slider->value() + 1;
    if (next > impl_->slider->maximum()) {
      set_playing(false);
      return;
    }
    impl_->slider->setValue(next);
  });
  connect(self.play, &QToolButton::toggled, this, [this](bool on) { set_playing(on); });
  connect(self.slider, &QSlider::valueChanged, this, [this](int) {
    if (impl_->updating) return;
    refresh();
    Q_EMIT time_changed(time());
  });
  connect(self.field_box, &QComboBox::currentIndexChanged, this, [this](int) {
    if (impl_->updating) return;
    refresh();
    Q_EMIT field_changed(field());
  });
  connect(self.reduction_box, &QComboBox::currentIndexChanged, this, [this](int) {
    if (!impl_->updating) refresh();
  });
  connect(self.view, &VtkView::clicked, this, &HallView::on_clicked);
  connect(self.view, &VtkView::hovered, this, &HallView::on_hovered);
  connect(self.range_box, &QComboBox::currentIndexChanged, this, [this](int) {
    auto& me = *impl_;
    const bool limits = range_mode() == RangeMode::limits;
    if (limits && !me.updating) {
      // Start from the range shown so far.
      const QSignalBlocker block_lo(me.range_lo), block_hi(me.range_hi);
      me.range_lo->setValue(me.range.first);
      me.range_hi->setValue(me.range.second);
    }
    me.range_lo->setEnabled(limits);
    me.range_hi->setEnabled(limits);
    if (!me.updating) refresh();
  });
  for (auto* box : {self.range_lo, self.range_hi}) {
    connect(box, &QDoubleSpinBox::valueChanged, this, [this](double) {
      if (!impl_->updating && range_mode() == RangeMode::limits) refresh();
    });
  }
  connect(self.top_table, &QTableWidget::cellClicked, this, [this](int row, int) { fly_to_top(row); });
  connect(self.events, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    set_time(item->data(Qt::UserRole).toDouble());
  });
}

void HallView::set_study(std::shared_ptr<const Study> study) {
  auto& self = *impl_;
  self.study = std::move(study);
  self.panel->set_study(self.study);
  self.fill_events();
}

const std::vector<std::size_t>& HallView::alarm_racks() const { return impl_->alarms; }
QString HallView::alarm_text() const { return impl_->alarm_label->isHidden() ? QString() : impl_->alarm_label->text(); }
QListWidget* HallView::events_list() const { return impl_->events; }

HallView::~HallView() = default;

void HallView::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  set_playing(false);
  self.report = std::move(report);
  self.updating = true;
  self.field_box->clear();
  if (self.report) {
    for (const auto& info : self.report->hall_fields()) {
      self.field_box->addItem(QString::fromStdString(info.long_name + "  (" + info.path + ")"),
                              QString::fromStdString(info.path));
    }
    if (const auto* initial = self.report->default_field()) {
      self.field_box->setCurrentIndex(self.field_box->findData(QString::fromStdString(initial->path)));
    }
    self.slider->setRange(0, std::max(0, static_cast<int>(self.report->time().size()) - 1));
    self.slider->setValue(0);
    self.scene.set_layout(self.report->layout());
  }
  self.updating = false;
  self.fill_events();
  select_rack(std::nullopt);
  refresh();
}

const ReportModel* HallView::report() const { return impl_->report.get(); }

QString HallView::field() const { return impl_->field_box->currentData().toString(); }

bool HallView::set_field(const QString& path_or_name) {
  if (!impl_->report) return false;
  const auto* info = impl_->report->find_field(path_or_name.toStdString());
  if (info == nullptr) return false;
  impl_->field_box->setCurrentIndex(impl_->field_box->findData(QString::fromStdString(info->path)));
  return true;
}

Reduction HallView::reduction() const {
  return static_cast<Reduction>(impl_->reduction_box->currentData().toInt());
}

void HallView::set_reduction(Reduction reduction) {
  impl_->reduction_box->setCurrentIndex(impl_->reduction_box->findData(static_cast<int>(reduction)));
}

std::size_t HallView::time_index() const { return static_cast<std::size_t>(std::max(0, impl_->slider->value())); }

double HallView::time() const {
  if (!impl_->report || impl_->report->time().empty()) return 0.0;
  return impl_->report->time()[std::min(time_index(), impl_->report->time().size() - 1)];
}

void HallView::set_time_index(std::size_t index) { impl_->slider->setValue(static_cast<int>(index)); }

void HallView::set_time(double t) {
  if (impl_->report) set_time_index(impl_->report->time_index(t));
}

std::optional<std::size_t> HallView::selected_rack() const { return impl_->scene.selected(); }

void HallView::select_rack(std::optional<std::size_t> rack) {
  auto& self = *impl_;
  if (self.report && rack && *rack >= self.report->layout().rack_count()) rack.reset();
  self.scene.set_selected(rack);
  self.panel->setVisible(rack.has_value());
  refresh();
  Q_EMIT rack_selected(rack ? static_cast<int>(*rack) : -1);
}

void HallView::apply_camera(CameraPreset preset) {
  impl_->scene.apply_camera(preset);
  impl_->view->update();
}

void HallView::set_playing(bool playing) {
  auto& self = *impl_;
  if (playing && self.slider->value() >= self.slider->maximum()) self.slider->setValue(0);
  if (playing) {
    self.timer->start();
  } else {
    self.timer->stop();
  }
  const QSignalBlocker blocker(self.play);
  self.play->setChecked(playing);
  self.play->setText(playing ? tr("Pause") : tr("Play"));
}

bool HallView::playing() const { return impl_->timer->isActive(); }

VtkView* HallView::vtk_view() const { return impl_->view; }
HallScene& HallView::scene() const { return impl_->scene; }
RackPanel* HallView::rack_panel() const { return impl_->panel; }
const std::vector<double>& HallView::shown_values() const { return impl_->shown; }
QString HallView::legend_title() const { return impl_->legend; }

QPoint HallView::rack_position_in_view(std::size_t rack) const {
  const auto display = impl_->scene.rack_display_position(rack);
  const double ratio = impl_->view->devicePixelRatioF();
  return {static_cast<int>(std::lround(display[0] / ratio)),
          static_cast<int>(std::lround(impl_->view->height() - 1 - display[1] / ratio))};
}

void HallView::refresh() {
  try {
    draw();
  } catch (const std::exception& e) {
    // A damaged dataset (a corrupt compressed chunk): the report stays open, the field is not shown.
    auto& self = *impl_;
    self.shown.clear();
    self.legend.clear();
    self.top.clear();
    self.gpu_values.clear();
    self.top_table->setRowCount(0);
    self.scene.set_caption("Cannot read this field of the report");
    self.scene.set_legend_visible(false);
    self.time_label->setText(QString());
    self.panel->show_rack(nullptr, nullptr, reduction(), std::nullopt, 0);
    self.view->update();
    Q_EMIT read_failed(QString::fromStdString(e.what()));
  }
}

void HallView::draw() {
  auto& self = *impl_;
  const ReportModel* report = self.report.get();
  const FieldInfo* info = report != nullptr ? report->find_field(field().toStdString()) : nullptr;
  self.reduction_box->setEnabled(info != nullptr && info->entity == "gpu" && !info->bitmask);
  if (report == nullptr || info == nullptr || report->time().empty()) {
    self.shown.clear();
    self.legend.clear();
    self.top.clear();
    self.gpu_values.clear();
    self.top_table->setRowCount(0);
    self.spread_label->clear();
    self.scene.set_caption(report == nullptr ? "No report open" : "This report has no per-rack or per-GPU field");
    self.scene.set_legend_visible(false);
    self.time_label->setText(QString());
    self.panel->show_rack(report, nullptr, reduction(), std::nullopt, 0);
    self.view->update();
    return;
  }
  const std::size_t t = std::min(time_index(), report->time().size() - 1);
  const auto [lo, hi] = report->rack_value_range(*info, reduction());
  const auto presentation = present_field(*info, reduction(), std::max(std::fabs(lo), std::fabs(hi)));
  const auto& si = report->rack_values(*info, reduction(), t);
  self.shown.resize(si.size());
  std::transform(si.begin(), si.end(), self.shown.begin(), [&](double v) { return presentation.unit.from_si(v); });
  self.legend = QString::fromStdString(presentation.title);
  self.presentation = presentation;
  // The values at this time: their range, and the colour scale's range as chosen.
  double now_lo = std::numeric_limits<double>::infinity(), now_hi = -now_lo;
  for (const double v : self.shown) {
    if (!std::isfinite(v)) continue;
    now_lo = std::min(now_lo, v);
    now_hi = std::max(now_hi, v);
  }
  const std::string& unit = presentation.unit.unit;
  const std::string shown_unit = unit == "1" ? std::string() : unit;
  if (now_hi >= now_lo) {
    self.spread_label->setText(tr("At this time: %1 to %2 (spread %3)")
                                   .arg(QString::fromStdString(format_value(now_lo, shown_unit)),
                                        QString::fromStdString(format_value(now_hi, shown_unit)),
                                        QString::fromStdString(format_value(now_hi - now_lo, difference_unit(shown_unit)))));
  } else {
    self.spread_label->setText(tr("At this time: no values"));
  }
  switch (range_mode()) {
    case RangeMode::run: self.range = {presentation.unit.from_si(lo), presentation.unit.from_si(hi)}; break;
    case RangeMode::frame:
      if (now_hi >= now_lo) {
        self.range = {now_lo, now_hi};
      } else {
        self.range = {presentation.unit.from_si(lo), presentation.unit.from_si(hi)};
      }
      break;
    case RangeMode::limits: self.range = {self.range_lo->value(), self.range_hi->value()}; break;
  }
  if (!(self.range.second > self.range.first)) {
    // One value everywhere: a unit-wide scale around it, so that it takes the middle colour.
    const double middle = self.range.first;
    self.range = {middle - 0.5, middle + 0.5};
  }
  self.scene.set_values(self.shown, self.range.first, self.range.second, presentation.title);
  // Alarms: the racks holding a value over the field's lowest upper limit (a GPU field's racks
  // by their hottest GPU, whatever the reduction shown).
  self.alarms.clear();
  self.alarm_limit = std::numeric_limits<double>::quiet_NaN();
  std::string limit_label;
  const double limit = self.study ? self.study->lowest_upper_limit(info->path, &limit_label)
                                  : std::numeric_limits<double>::quiet_NaN();
  if (std::isfinite(limit) && !info->bitmask) {
    const auto& rack_max = report->rack_values(*info, Reduction::max, t);
    for (std::size_t r = 0; r < rack_max.size(); ++r) {
      if (std::isfinite(rack_max[r]) && rack_max[r] > limit) self.alarms.push_back(r);
    }
  }
  self.scene.set_alarms(self.alarms);
  const DisplayUnit limit_unit = display_unit_for(info->units, std::fabs(limit));
  if (std::isfinite(limit) && !info->bitmask) {
    self.alarm_limit = limit_unit.from_si(limit);
    self.alarm_unit = limit_unit.unit;
  }
  fill_top(*info, presentation, t);
  if (std::isfinite(self.alarm_limit)) {
    QString text = tr("Over %1, %2: %3 racks")
                       .arg(QString::fromStdString(limit_label),
                            QString::fromStdString(format_value(self.alarm_limit, limit_unit.unit)))
                       .arg(self.alarms.size());
    if (self.gpu_field && presentation.unit.unit == self.alarm_unit) {
      const auto over = std::count_if(self.gpu_values.begin(), self.gpu_values.end(),
                                      [&](double v) { return std::isfinite(v) && v > self.alarm_limit; });
      text += tr(", %1 GPUs").arg(over);
    }
    text += tr(" (framed in red)");
    self.alarm_label->setText(text);
    self.alarm_label->show();
  } else {
    self.alarm_label->hide();
  }
  const double duration = report->time().back();
  const std::string when = format_time(report->time()[t], duration);
  // Three short lines, so that the caption and the legend's title share the top of a narrow view.
  self.scene.set_caption(report->path().filename().string() + "\n" + when + "\n" +
                         std::to_string(report->layout().rack_count()) + " racks, " +
                         std::to_string(report->layout().gpu_labels.size()) + " GPUs");
  self.time_label->setText(QString::fromStdString(when));
  self.panel->show_rack(report, info, reduction(), self.scene.selected(), t);
  self.view->update();
}

HallView::RangeMode HallView::range_mode() const {
  return static_cast<RangeMode>(impl_->range_box->currentData().toInt());
}

void HallView::set_range_mode(RangeMode mode) {
  impl_->range_box->setCurrentIndex(impl_->range_box->findData(static_cast<int>(mode)));
}

void HallView::set_limits(double lo, double hi) {
  auto& self = *impl_;
  self.updating = true;
  self.range_lo->setValue(lo);
  self.range_hi->setValue(hi);
  set_range_mode(RangeMode::limits);
  self.updating = false;
  refresh();
}

std::pair<double, double> HallView::colour_range() const { return impl_->range; }
const std::vector<HallView::TopEntry>& HallView::top_entries() const { return impl_->top; }
QTableWidget* HallView::top_table() const { return impl_->top_table; }

void HallView::fill_top(const FieldInfo& info, const FieldPresentation& presentation, std::size_t t) {
  auto& self = *impl_;
  const HallLayout& layout = self.report->layout();
  self.top.clear();
  self.gpu_values.clear();
  // A GPU field lists GPUs (flags are counted per rack, so a flag field lists racks).
  self.gpu_field = info.entity == "gpu" && !info.bitmask;
  if (self.gpu_field) {
    const auto row = self.report->entity_row(info, t);
    self.gpu_values.resize(row.size());
    std::transform(row.begin(), row.end(), self.gpu_values.begin(), [&](double v) { return presentation.unit.from_si(v); });
  }
  const std::vector<double>& values = self.gpu_field ? self.gpu_values : self.shown;
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (std::isfinite(values[k])) order.push_back(k);
  }
  const std::size_t n = std::min(top_count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](std::size_t a, std::size_t b) { return values[a] > values[b] || (values[a] == values[b] && a < b); });
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t index = order[k];
    TopEntry entry;
    if (self.gpu_field) {
      entry.label = index < layout.gpu_labels.size() ? layout.gpu_labels[index] : "gpu " + std::to_string(index);
      entry.rack = index < layout.gpu_rack.size() ? layout.gpu_rack[index] : 0;
    } else {
      entry.label = index < layout.rack_labels.size() ? layout.rack_labels[index] : "rack " + std::to_string(index);
      entry.rack = index;
    }
    entry.value = values[index];
    self.top.push_back(std::move(entry));
  }
  const std::string& unit = presentation.unit.unit;
  self.top_label->setText(tr("Largest %1 at this time (click to fly there):")
                              .arg(self.gpu_field ? tr("GPU values") : tr("rack values")));
  self.top_table->setHorizontalHeaderLabels(
      {self.gpu_field ? tr("GPU") : tr("rack"), unit == "1" ? tr("value") : QString::fromStdString("[" + unit + "]")});
  self.top_table->setRowCount(static_cast<int>(self.top.size()));
  for (std::size_t k = 0; k < self.top.size(); ++k) {
    const int row = static_cast<int>(k);
    auto* name = new QTableWidgetItem(QString::fromStdString(self.top[k].label));
    auto* value = new QTableWidgetItem(QString::number(self.top[k].value, 'f', std::fabs(self.top[k].value) >= 1000.0 ? 0 : 2));
    value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (std::isfinite(self.alarm_limit) && presentation.unit.unit == self.alarm_unit &&
        self.top[k].value > self.alarm_limit) {
      for (auto* item : {name, value}) {
        item->setBackground(QColor(255, 205, 205));
        item->setToolTip(tr("over the limit, %1").arg(QString::fromStdString(format_value(self.alarm_limit, presentation.unit.unit))));
      }
    }
    self.top_table->setItem(row, 0, name);
    self.top_table->setItem(row, 1, value);
  }
}

void HallView::fly_to_top(int row) {
  auto& self = *impl_;
  if (row < 0 || static_cast<std::size_t>(row) >= self.top.size()) return;
  const std::size_t rack = self.top[static_cast<std::size_t>(row)].rack;
  select_rack(rack);
  self.scene.focus_rack(rack);
  self.view->update();
}

QString HallView::tooltip_at(QPoint position) const {
  const auto& self = *impl_;
  if (!self.report || self.shown.empty()) return {};
  const double ratio = self.view->devicePixelRatioF();
  const auto rack = self.scene.pick(position.x() * ratio, (self.view->height() - 1 - position.y()) * ratio);
  if (!rack || *rack >= self.shown.size()) return {};
  const HallLayout& layout = self.report->layout();
  const std::string& unit = self.presentation.unit.unit;
  const std::string shown_unit = unit == "1" ? std::string() : unit;
  const double value = self.shown[*rack];
  QString text = QString::fromStdString(*rack < layout.rack_labels.size() ? layout.rack_labels[*rack] : "rack " + std::to_string(*rack));
  text += "\n" + QString::fromStdString(self.presentation.short_title) + ": " +
          (std::isfinite(value) ? QString::fromStdString(format_value(value, shown_unit)) : tr("no data"));
  if (self.gpu_field && *rack < layout.rack_gpus.size() && !layout.rack_gpus[*rack].empty()) {
    std::size_t hottest = layout.rack_gpus[*rack].front();
    for (const std::size_t g : layout.rack_gpus[*rack]) {
      if (g < self.gpu_values.size() && self.gpu_values[g] > self.gpu_values[hottest]) hottest = g;
    }
    if (hottest < self.gpu_values.size() && hottest < layout.gpu_labels.size()) {
      text += "\n" + tr("largest GPU: %1, %2")
                         .arg(QString::fromStdString(layout.gpu_labels[hottest]),
                              QString::fromStdString(format_value(self.gpu_values[hottest], shown_unit)));
    }
  }
  return text;
}

void HallView::on_hovered(QPoint position) {
  const QString text = tooltip_at(position);
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(impl_->view->mapToGlobal(position), text, impl_->view);
  }
}

void HallView::on_clicked(QPoint position) {
  const double ratio = impl_->view->devicePixelRatioF();
  const auto rack = impl_->scene.pick(position.x() * ratio, (impl_->view->height() - 1 - position.y()) * ratio);
  select_rack(rack);
}

}  // namespace dctwin::gui
