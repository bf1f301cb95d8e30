#include "hall_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <cmath>
#include <exception>

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
  std::vector<double> shown;
  QString legend;
  bool updating = false;
};

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
  self.view = new VtkView(splitter);
  self.view->setObjectName("hallView");
  self.view->render_window()->AddRenderer(self.scene.renderer());
  self.panel = new RackPanel(splitter);
  self.panel->setObjectName("rackPanel");
  self.panel->hide();
  splitter->addWidget(self.view);
  splitter->addWidget(self.panel);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
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
}

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
  self.scene.set_values(self.shown, presentation.unit.from_si(lo), presentation.unit.from_si(hi),
                        presentation.title);
  const double duration = report->time().back();
  const std::string when = format_time(report->time()[t], duration);
  self.scene.set_caption(report->path().filename().string() + "    " + when + "    " +
                         std::to_string(report->layout().rack_count()) + " racks, " +
                         std::to_string(report->layout().gpu_labels.size()) + " GPUs");
  self.time_label->setText(QString::fromStdString(when));
  self.panel->show_rack(report, info, reduction(), self.scene.selected(), t);
  self.view->update();
}

void HallView::on_clicked(QPoint position) {
  const double ratio = impl_->view->devicePixelRatioF();
  const auto rack = impl_->scene.pick(position.x() * ratio, (impl_->view->height() - 1 - position.y()) * ratio);
  select_rack(rack);
}

}  // namespace dctwin::gui
