#include "compare_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSplitter>
#include <QVBoxLayout>

#include <vtkCamera.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkNew.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>

#include "dctwin/gui/hall_scene.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {

struct CompareView::Impl {
  std::shared_ptr<const ReportModel> a, b;
  HallScene left, right;
  VtkView* left_view = nullptr;
  VtkView* right_view = nullptr;
  QComboBox* field_box = nullptr;
  QComboBox* mode_box = nullptr;
  QSlider* slider = nullptr;
  QLabel* time_label = nullptr;
  QLabel* note = nullptr;
  std::vector<double> left_values, right_values;
  QString problem;
  std::array<double, 9> last_camera{};
  vtkNew<vtkCamera> right_camera;  // B's own camera when the halls differ
  bool shared = true;              // one camera and one colour scale
  bool updating = false;
};

namespace {
/// The same racks at the same places.
bool same_hall(const HallLayout& a, const HallLayout& b) {
  if (a.rack_count() != b.rack_count()) return false;
  for (std::size_t r = 0; r < a.rack_count(); ++r) {
    const auto& p = a.rack_position[r];
    const auto& q = b.rack_position[r];
    if (std::fabs(p.x - q.x) > 1e-6 || std::fabs(p.y - q.y) > 1e-6 || std::fabs(p.z - q.z) > 1e-6) return false;
  }
  return true;
}

std::array<double, 9> camera_state(vtkCamera* camera) {
  std::array<double, 9> s{};
  camera->GetPosition(s.data());
  camera->GetFocalPoint(s.data() + 3);
  camera->GetViewUp(s.data() + 6);
  return s;
}
}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Colour by:"), this));
  self.field_box = new QComboBox(this);
  self.field_box->setObjectName("compareFieldCombo");
  top->addWidget(self.field_box, 1);
  self.mode_box = new QComboBox(this);
  self.mode_box->setObjectName("compareModeCombo");
  self.mode_box->addItem(tr("Side by side"));
  self.mode_box->addItem(tr("Difference (A - B)"));
  top->addWidget(self.mode_box);
  layout->addLayout(top);
  self.note = new QLabel(this);
  self.note->setWordWrap(true);
  layout->addWidget(self.note);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  self.left_view = new VtkView(splitter);
  self.right_view = new VtkView(splitter);
  self.left.attach(self.left_view->render_window());
  self.right.attach(self.right_view->render_window());
  splitter->addWidget(self.left_view);
  splitter->addWidget(self.right_view);
  layout->addWidget(splitter, 1);
  auto* bottom = new QHBoxLayout;
  self.slider = new QSlider(Qt::Horizontal, this);
  self.slider->setObjectName("compareTimeSlider");
  self.time_label = new QLabel(this);
  self.time_label->setMinimumWidth(150);
  bottom->addWidget(self.slider, 1);
  bottom->addWidget(self.time_label);
  layout->addLayout(bottom);

  auto follow = [this](VtkView* other) {
    const auto state = camera_state(impl_->left.renderer()->GetActiveCamera());
    if (state != impl_->last_camera) {
      impl_->last_camera = state;
      other->update();
    }
  };
  connect(self.left_view, &VtkView::frame_rendered, this, [this, follow] { follow(impl_->right_view); });
  connect(self.right_view, &VtkView::frame_rendered, this, [this, follow] { follow(impl_->left_view); });
  connect(self.field_box, &QComboBox::currentIndexChanged, this, [this](int) {
    if (!impl_->updating) refresh();
  });
  connect(self.mode_box, &QComboBox::currentIndexChanged, this, [this](int) { refresh(); });
  connect(self.slider, &QSlider::valueChanged, this, [this](int) { refresh(); });
}

CompareView::~CompareView() = default;

VtkView* CompareView::left_view() const { return impl_->left_view; }
VtkView* CompareView::right_view() const { return impl_->right_view; }
const std::vector<double>& CompareView::left_values() const { return impl_->left_values; }
QString CompareView::problem() const { return impl_->problem; }
bool CompareView::shared_view() const { return impl_->shared; }
HallScene& CompareView::left_scene() const { return impl_->left; }
HallScene& CompareView::right_scene() const { return impl_->right; }
QString CompareView::field() const { return impl_->field_box->currentData().toString(); }
CompareView::Mode CompareView::mode() const {
  return impl_->mode_box->currentIndex() == 1 ? Mode::difference : Mode::side_by_side;
}
void CompareView::set_mode(Mode mode) { impl_->mode_box->setCurrentIndex(mode == Mode::difference ? 1 : 0); }

void CompareView::set_reports(std::shared_ptr<const ReportModel> a, std::shared_ptr<const ReportModel> b) {
  auto& self = *impl_;
  self.a = std::move(a);
  self.b = std::move(b);
  self.updating = true;
  self.field_box->clear();
  if (self.a && self.b) {
    for (const auto& info : self.a->hall_fields()) {
      if (self.b->find_field(info.path) == nullptr) continue;
      self.field_box->addItem(QString::fromStdString(info.long_name), QString::fromStdString(info.path));
    }
    if (const auto* initial = self.a->default_field()) {
      const int index = self.field_box->findData(QString::fromStdString(initial->path));
      if (index >= 0) self.field_box->setCurrentIndex(index);
    }
    self.slider->setRange(0, std::max(0, static_cast<int>(self.a->time().size()) - 1));
    self.slider->setValue(self.slider->maximum());
    // The same hall: one camera (they move together, framed by the left view) and one colour
    // scale. Different halls: each its own camera framed on its own racks, and its own scale.
    self.shared = same_hall(self.a->layout(), self.b->layout());
    if (self.shared) {
      self.right.renderer()->SetActiveCamera(self.left.renderer()->GetActiveCamera());
    } else {
      self.right.renderer()->SetActiveCamera(self.right_camera);
    }
    self.right.set_auto_frame(!self.shared);
    self.left.set_layout(self.a->layout());
    self.right.set_layout(self.b->layout());
    if (self.shared) self.left.frame();
  }
  self.updating = false;
  refresh();
}

bool CompareView::set_field(const QString& path_or_name) {
  if (!impl_->a) return false;
  const auto* info = impl_->a->find_field(path_or_name.toStdString());
  if (info == nullptr) return false;
  const int index = impl_->field_box->findData(QString::fromStdString(info->path));
  if (index < 0) return false;
  impl_->field_box->setCurrentIndex(index);
  return true;
}

void CompareView::set_time(double t) {
  if (impl_->a) impl_->slider->setValue(static_cast<int>(impl_->a->time_index(t)));
}

void CompareView::refresh() {
  try {
    draw();
  } catch (const std::exception& e) {
    auto& self = *impl_;
    self.left_values.clear();
    self.right_values.clear();
    self.problem = tr("Cannot read the reports: %1").arg(QString::fromStdString(e.what()));
    self.note->setText(self.problem);
    self.left_view->update();
    self.right_view->update();
    Q_EMIT read_failed(QString::fromStdString(e.what()));
  }
}

void CompareView::draw() {
  auto& self = *impl_;
  self.problem.clear();
  self.left_values.clear();
  const bool difference = mode() == Mode::difference;
  self.right_view->setVisible(!difference);
  if (!self.a || !self.b) {
    self.problem = tr("Open a report, then choose File > Compare with report... to pick the second one.");
  } else if (self.field_box->count() == 0) {
    self.problem = tr("The two reports have no hall field in common.");
  } else if (difference && self.a->layout().rack_count() != self.b->layout().rack_count()) {
    self.problem = tr("The difference needs the same racks in both reports (%1 and %2 racks).")
                       .arg(self.a->layout().rack_count())
                       .arg(self.b->layout().rack_count());
  }
  self.note->setText(self.problem);
  if (!self.problem.isEmpty() || self.a->time().empty() || self.b->time().empty()) {
    self.left_view->update();
    self.right_view->update();
    return;
  }
  const std::string path = field().toStdString();
  const FieldInfo& fa = *self.a->find_field(path);
  const FieldInfo& fb = *self.b->find_field(path);
  const std::size_t ta = std::min(static_cast<std::size_t>(self.slider->value()), self.a->time().size() - 1);
  const double t = self.a->time()[ta];
  const std::size_t tb = self.b->time_index(t);
  const auto [lo_a, hi_a] = self.a->rack_value_range(fa, Reduction::max);
  const auto [lo_b, hi_b] = self.b->rack_value_range(fb, Reduction::max);
  const double lo = std::min(lo_a, lo_b), hi = std::max(hi_a, hi_b);
  const auto presentation = present_field(fa, Reduction::max, std::max(std::fabs(lo), std::fabs(hi)));
  // One scale for the same hall (colours compare directly); each report's own otherwise.
  const double left_lo = self.shared ? lo : lo_a, left_hi = self.shared ? hi : hi_a;
  const double right_lo = self.shared ? lo : lo_b, right_hi = self.shared ? hi : hi_b;
  const auto& values_a = self.a->rack_values(fa, Reduction::max, ta);
  const auto& values_b = self.b->rack_values(fb, Reduction::max, tb);
  const std::string a_name = self.a->path().filename().string();
  const std::string b_name = self.b->path().filename().string();
  const std::string when = format_time(t, self.a->time().back());
  self.time_label->setText(QString::fromStdString(when));
  if (difference) {
    double largest = 0.0;
    self.left_values.resize(values_a.size());
    for (std::size_t r = 0; r < values_a.size(); ++r) {
      self.left_values[r] = presentation.unit.difference_from_si(values_a[r] - values_b[r]);
      if (std::isfinite(self.left_values[r])) largest = std::max(largest, std::fabs(self.left_values[r]));
    }
    if (largest == 0.0) largest = 1.0;
    std::string title = presentation.title;
    const auto bracket = title.rfind(" [");
    title = "A - B: " + (bracket == std::string::npos ? title : title.substr(0, bracket)) +
            (bracket == std::string::npos ? std::string() : title.substr(bracket));
    self.left.set_values(self.left_values, -largest, largest, title, ColourMap::diverging);
    self.left.set_caption("A - B    A = " + a_name + ", B = " + b_name + "    " + when);
  } else {
    auto shown = [&](const std::vector<double>& si) {
      std::vector<double> out(si.size());
      std::transform(si.begin(), si.end(), out.begin(), [&](double v) { return presentation.unit.from_si(v); });
      return out;
    };
    self.left_values = shown(values_a);
    self.right_values = shown(values_b);
    self.left.set_values(self.left_values, presentation.unit.from_si(left_lo), presentation.unit.from_si(left_hi), presentation.title);
    self.right.set_values(self.right_values, presentation.unit.from_si(right_lo), presentation.unit.from_si(right_hi), presentation.title);
    if (!self.shared) {
      self.note->setText(tr("The reports have different halls (%1 and %2 racks): each side has its own camera and "
                            "its own colour scale.")
                             .arg(self.a->layout().rack_count())
                             .arg(self.b->layout().rack_count()));
    }
    self.left.set_caption("A: " + a_name + "    " + when);
    self.right.set_caption("B: " + b_name + "    " + format_time(self.b->time()[tb], self.b->time().back()));
  }
  self.left_view->update();
  self.right_view->update();
}

}  // namespace dctwin::gui
