#include "heat_map_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <limits>

#include "dctwin/gui/units.hpp"
#include "painted_canvas.hpp"

namespace dctwin::gui {
namespace {

/// About `count` round tick values (1, 2 or 5 times a power of ten) between lo and hi.
std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 1) return ticks;
  const double raw = (hi - lo) / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) ticks.push_back(std::fabs(v) < 1e-12 * step ? 0.0 : v);
  return ticks;
}

QString number(double value) { return QString::number(value, 'g', 4); }

}  // namespace

struct HeatMapView::Impl {
  std::shared_ptr<const ReportModel> report;
  QComboBox* field = nullptr;
  QComboBox* reduction = nullptr;
  QComboBox* order = nullptr;
  QLabel* note = nullptr;
  PaintedCanvas* canvas = nullptr;
  bool updating = false;
  bool loaded = false;  ///< the map of the current field and reduction is read
  RackTimeMap map;
  std::vector<std::size_t> rows;
  DisplayUnit unit;
  double lo = 0.0, hi = 1.0;  ///< colour range, display units
  QString title;
  double cursor = std::nan("");
  std::shared_ptr<const Study> study;
  double limit = std::nan("");  ///< the field's lowest upper limit [SI] (NaN: none, or a mean shown)
  std::string limit_label;
  std::size_t over_limit = 0;   ///< racks above the limit at some sample
  TimeUnit time_unit;
  QImage image;  ///< the map at the plot area's size in pixels (rebuilt when that changes)

  // Layout of the canvas [pixels].
  static constexpr int left = 118, right = 96, top = 42, bottom = 44;
  [[nodiscard]] QRect plot(const QWidget* w) const {
    return {left, top, std::max(1, w->width() - left - right), std::max(1, w->height() - top - bottom)};
  }
  [[nodiscard]] const FieldInfo* info() const {
    if (!report) return nullptr;
    return report->find_field(field->currentData().toString().toStdString());
  }
  [[nodiscard]] Reduction chosen_reduction() const { return reduction->currentIndex() == 1 ? Reduction::mean : Reduction::max; }
  /// The canvas x of a time [s]: sample k covers [k, k + 1) / samples of the width, its time at
  /// the column's centre, linear in between.
  [[nodiscard]] double x_at(const QRect& area, double t) const {
    const auto& time = report->time();
    const double k = time.size() > 1 ? (t - time.front()) / (time.back() - time.front()) * static_cast<double>(time.size() - 1) : 0.0;
    return area.left() + (k + 0.5) * area.width() / static_cast<double>(time.size());
  }
  /// The limit, its label and the racks over it, for the map read.
  void update_limit() {
    limit = std::nan("");
    limit_label.clear();
    over_limit = 0;
    const FieldInfo* f = info();
    // A mean per rack says nothing about its hottest GPU: the limit is shown with the max only.
    if (!study || f == nullptr || f->bitmask || map.racks == 0 || (f->entity == "gpu" && chosen_reduction() != Reduction::max))
      return;
    limit = study->lowest_upper_limit(f->path, &limit_label);
    if (!std::isfinite(limit)) return;
    for (std::size_t rack = 0; rack < map.racks; ++rack) {
      for (std::size_t t = 0; t < map.samples; ++t) {
        if (map.at(rack, t) > limit) {
          ++over_limit;
          break;
        }
      }
    }
  }
  [[nodiscard]] double time_at(std::size_t sample) const {
    const auto& time = report->time();
    return sample < time.size() ? time[sample] : std::nan("");
  }
};

HeatMapView::HeatMapView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* controls = new QHBoxLayout();
  controls->addWidget(new QLabel(tr("Colour by:"), this));
  self.field = new QComboBox(this);
  self.field->setObjectName("heatMapField");
  controls->addWidget(self.field, 2);
  controls->addWidget(new QLabel(tr("GPUs per rack:"), this));
  self.reduction = new QComboBox(this);
  self.reduction->setObjectName("heatMapReduction");
  self.reduction->addItems({tr("max (hottest GPU)"), tr("mean")});
  controls->addWidget(self.reduction);
  controls->addWidget(new QLabel(tr("Racks by:"), this));
  self.order = new QComboBox(this);
  self.order->setObjectName("heatMapOrder");
  self.order->addItems({tr("position (pod, row, place)"), tr("peak over the run (largest first)")});
  controls->addWidget(self.order);
  layout->addLayout(controls);
  self.canvas = new PaintedCanvas(this, QSize(320, 200));
  self.canvas->setObjectName("heatMapCanvas");
  layout->addWidget(self.canvas, 1);
  self.note = new QLabel(this);
  self.note->setObjectName("heatMapNote");
  self.note->setWordWrap(true);
  layout->addWidget(self.note);

  auto* canvas = self.canvas;
  canvas->paint = [this](QPainter& painter) {
    auto& s = *impl_;
    const QWidget* w = s.canvas;
    painter.fillRect(w->rect(), Qt::white);
    const QRect area = s.plot(w);
    painter.setPen(Qt::black);
    QFont font = painter.font();
    font.setPixelSize(12);
    painter.setFont(font);
    if (s.map.racks == 0 || s.map.samples == 0) {
      painter.drawText(w->rect(), Qt::AlignCenter, s.report ? tr("No field to map") : tr("No report open"));
      return;
    }
    // The image: one pixel per plot pixel; each pixel takes the largest value of the cells it
    // covers (racks and samples), so a single hot rack or sample stays visible.
    if (s.image.size() != area.size()) {
      const int width = area.width(), height = area.height();
      std::vector<double> cells(static_cast<std::size_t>(width) * static_cast<std::size_t>(height),
                                -std::numeric_limits<double>::infinity());
      const std::size_t racks = s.rows.size(), samples = s.map.samples;
      for (std::size_t row = 0; row < racks; ++row) {
        const int y0 = static_cast<int>(static_cast<double>(row) * height / static_cast<double>(racks));
        const int y1 = std::max(y0 + 1, static_cast<int>(static_cast<double>(row + 1) * height / static_cast<double>(racks)));
        for (std::size_t t = 0; t < samples; ++t) {
          const double v = s.map.at(s.rows[row], t);
          if (!std::isfinite(v)) continue;
          const int x0 = static_cast<int>(static_cast<double>(t) * width / static_cast<double>(samples));
          const int x1 = std::max(x0 + 1, static_cast<int>(static_cast<double>(t + 1) * width / static_cast<double>(samples)));
          for (int y = y0; y < y1 && y < height; ++y) {
            for (int x = x0; x < x1 && x < width; ++x) {
              double& cell = cells[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
              cell = std::max(cell, v);
            }
          }
        }
      }
      s.image = QImage(width, height, QImage::Format_RGB32);
      for (int y = 0; y < height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(s.image.scanLine(y));
        for (int x = 0; x < width; ++x) {
          const double v = cells[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
          if (!std::isfinite(v)) {
            line[x] = qRgb(107, 107, 115);  // no value: the hall's NaN grey
            continue;
          }
          const double f = s.hi > s.lo ? (s.unit.from_si(v) - s.lo) / (s.hi - s.lo) : 0.5;
          const auto rgb = sequential_colour(f);
          line[x] = qRgb(rgb[0], rgb[1], rgb[2]);
        }
      }
    }
    painter.drawImage(area.topLeft(), s.image);
    painter.setPen(QPen(Qt::black, 1));
    painter.drawRect(area.adjusted(0, 0, -1, -1));
    painter.drawText(QRect(area.left(), 4, area.width(), 18), Qt::AlignLeft | Qt::AlignVCenter, s.title);
    // The study's events: a triangle on the map's top edge per pixel column that holds any.
    painter.setPen(Qt::NoPen);
    for (const auto& mark : event_marks()) {
      painter.setBrush(mark.colour);
      const QPoint tip = mark.position;
      const QPoint corners[3] = {tip + QPoint(-5, -11), tip + QPoint(5, -11), tip + QPoint(0, -1)};
      painter.drawPolygon(corners, 3);
    }
    painter.setBrush(Qt::NoBrush);
    painter.setPen(Qt::black);
    // Rack labels, as many as fit 14 pixels apart.
    const std::size_t racks = s.rows.size();
    const double row_height = static_cast<double>(area.height()) / static_cast<double>(racks);
    const std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(14.0 / row_height)));
    const auto& labels = s.report->layout().rack_labels;
    for (std::size_t row = 0; row < racks; row += every) {
      const int y = area.top() + static_cast<int>((static_cast<double>(row) + 0.5) * row_height);
      const std::size_t rack = s.rows[row];
      const QString label = rack < labels.size() ? QString::fromStdString(labels[rack]) : QString::number(rack);
      painter.drawText(QRect(0, y - 8, s.left - 6, 16), Qt::AlignRight | Qt::AlignVCenter, label);
    }
    // Time axis.
    const auto& time = s.report->time();
    const double t0 = time.front() / s.time_unit.seconds, t1 = time.back() / s.time_unit.seconds;
    auto x_of = [&](double t_display) { return s.x_at(area, t_display * s.time_unit.seconds); };
    for (const double tick : nice_ticks(t0, t1, std::max(2, area.width() / 90))) {
      const int x = static_cast<int>(std::lround(x_of(tick)));
      painter.drawLine(x, area.bottom() + 1, x, area.bottom() + 5);
      painter.drawText(QRect(x - 40, area.bottom() + 6, 80, 16), Qt::AlignHCenter | Qt::AlignTop, number(tick));
    }
    painter.drawText(QRect(area.left(), area.bottom() + 22, area.width(), 18), Qt::AlignHCenter,
                     tr("time [%1]").arg(QString::fromStdString(s.time_unit.unit)));
    // The time cursor.
    if (std::isfinite(s.cursor) && time.size() > 0) {
      const double x = x_of(s.cursor / s.time_unit.seconds);
      if (x >= area.left() && x <= area.right()) {
        painter.setPen(QPen(Qt::black, 2));
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        painter.setPen(QPen(Qt::white, 1, Qt::DashLine));
        painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
      }
    }
    // Colour bar.
    const QRect bar(area.right() + 14, area.top(), 16, area.height());
    for (int y = 0; y < bar.height(); ++y) {
      const auto rgb = sequential_colour(1.0 - static_cast<double>(y) / std::max(1, bar.height() - 1));
      painter.setPen(QColor(rgb[0], rgb[1], rgb[2]));
      painter.drawLine(bar.left(), bar.top() + y, bar.right(), bar.top() + y);
    }
    painter.setPen(Qt::black);
    painter.drawRect(bar.adjusted(0, 0, -1, -1));
    // The field's limit, where it falls within the colour range.
    const double limit = s.unit.from_si(s.limit);
    if (std::isfinite(limit) && s.hi > s.lo && limit >= s.lo && limit <= s.hi) {
      const int y = bar.bottom() - static_cast<int>(std::lround((limit - s.lo) / (s.hi - s.lo) * bar.height()));
      painter.setPen(QPen(QColor(220, 0, 0), 2));
      painter.drawLine(bar.left() - 5, y, bar.right(), y);
      painter.setPen(Qt::black);
    }
    if (s.hi > s.lo) {
      for (const double tick : nice_ticks(s.lo, s.hi, 5)) {
        const int y = bar.bottom() - static_cast<int>(std::lround((tick - s.lo) / (s.hi - s.lo) * bar.height()));
        painter.drawLine(bar.right(), y, bar.right() + 4, y);
        painter.drawText(QRect(bar.right() + 6, y - 8, s.right - 36, 16), Qt::AlignLeft | Qt::AlignVCenter, number(tick));
      }
    }
    painter.drawText(QRect(bar.left() - 10, 4, s.right, 18), Qt::AlignLeft | Qt::AlignVCenter,
                     QString::fromStdString(s.unit.unit == "1" ? std::string() : s.unit.unit));
  };
  canvas->clicked = [this](QPoint position) { pick_at(position); };
  canvas->tooltip = [this](QPoint position) { return tooltip_at(position); };

  connect(self.field, &QComboBox::currentIndexChanged, this, [this] {
    if (!impl_->updating) invalidate();
  });
  connect(self.reduction, &QComboBox::currentIndexChanged, this, [this] {
    if (!impl_->updating) invalidate();
  });
  connect(self.order, &QComboBox::currentIndexChanged, this, [this] {
    if (impl_->updating) return;
    update_rows();
    impl_->canvas->update();
  });
}

HeatMapView::~HeatMapView() = default;

void HeatMapView::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  const QString was = field();
  self.report = std::move(report);
  self.updating = true;
  self.field->clear();
  if (self.report) {
    for (const auto& f : self.report->hall_fields()) {
      self.field->addItem(QString::fromStdString(f.long_name + (f.bitmask ? " (GPUs flagged)" : "")),
                          QString::fromStdString(f.path));
    }
    int index = self.field->findData(was);
    if (index < 0 && self.report->default_field() != nullptr) {
      index = self.field->findData(QString::fromStdString(self.report->default_field()->path));
    }
    self.field->setCurrentIndex(std::max(0, index));
  }
  self.updating = false;
  invalidate();
}

void HeatMapView::set_study(std::shared_ptr<const Study> study) {
  auto& self = *impl_;
  self.study = std::move(study);
  if (self.loaded) {
    self.update_limit();
    update_note();
  }
  self.canvas->update();
}

bool HeatMapView::set_field(const QString& path) {
  const int index = impl_->field->findData(path);
  if (index < 0) return false;
  impl_->field->setCurrentIndex(index);
  return true;
}

QString HeatMapView::field() const { return impl_->field->currentData().toString(); }

QStringList HeatMapView::fields() const {
  QStringList paths;
  for (int i = 0; i < impl_->field->count(); ++i) paths << impl_->field->itemData(i).toString();
  return paths;
}

void HeatMapView::set_reduction(Reduction reduction) { impl_->reduction->setCurrentIndex(reduction == Reduction::mean ? 1 : 0); }
Reduction HeatMapView::reduction() const { return impl_->chosen_reduction(); }
void HeatMapView::set_order(RackOrder order) { impl_->order->setCurrentIndex(order == RackOrder::peak ? 1 : 0); }
RackOrder HeatMapView::order() const { return impl_->order->currentIndex() == 1 ? RackOrder::peak : RackOrder::position; }

void HeatMapView::set_time_cursor(double t) {
  impl_->cursor = t;
  impl_->canvas->update();
}

double HeatMapView::time_cursor() const { return impl_->cursor; }
const RackTimeMap& HeatMapView::map() const { return impl_->map; }
const std::vector<std::size_t>& HeatMapView::rows() const { return impl_->rows; }
std::pair<double, double> HeatMapView::colour_range() const { return {impl_->lo, impl_->hi}; }
QString HeatMapView::title() const { return impl_->title; }
QWidget* HeatMapView::canvas() const { return impl_->canvas; }

void HeatMapView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  ensure_map();
}

void HeatMapView::invalidate() {
  auto& self = *impl_;
  self.loaded = false;
  self.map = {};
  self.rows.clear();
  self.image = {};
  const FieldInfo* info = self.info();
  self.reduction->setEnabled(info != nullptr && info->entity == "gpu" && !info->bitmask);
  if (isVisible()) ensure_map();
  self.canvas->update();
}

void HeatMapView::ensure_map() {
  auto& self = *impl_;
  if (self.loaded) return;
  self.loaded = true;
  self.map = {};
  self.rows.clear();
  self.image = {};
  self.note->clear();
  const FieldInfo* info = self.info();
  if (info == nullptr || self.report->time().empty()) {
    self.canvas->update();
    return;
  }
  try {
    self.map = rack_time_map(*self.report, *info, self.chosen_reduction());
  } catch (const std::exception& e) {
    self.map = {};
    self.note->setText(tr("Cannot read the report: %1").arg(QString::fromStdString(e.what())));
    self.canvas->update();
    Q_EMIT read_failed(QString::fromStdString(e.what()));
    return;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const double v : self.map.values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!(hi >= lo)) lo = hi = 0.0;
  const FieldPresentation presentation = present_field(*info, self.chosen_reduction(), std::max(std::fabs(lo), std::fabs(hi)));
  self.unit = presentation.unit;
  self.lo = self.unit.from_si(lo);
  self.hi = self.unit.from_si(hi);
  self.time_unit = time_unit_for(self.report->time().back());
  update_rows();
  self.update_limit();
  update_note();
  self.canvas->update();
}

void HeatMapView::update_note() {
  auto& self = *impl_;
  QString text = tr("%1 racks x %2 samples, %3 to %4 %5 over the run.")
                     .arg(self.map.racks)
                     .arg(self.map.samples)
                     .arg(number(self.lo), number(self.hi), QString::fromStdString(self.unit.unit));
  if (std::isfinite(self.limit)) {
    const QString limit = QString::fromStdString(self.limit_label + " " +
                                                 format_value(self.unit.from_si(self.limit), self.unit.unit));
    text += self.over_limit == 0 ? tr(" No rack exceeds the %1 (red on the colour bar when in range).").arg(limit)
                                 : tr(" %1 of %2 racks exceed the %3 at some sample (red on the colour bar).")
                                       .arg(self.over_limit)
                                       .arg(self.map.racks)
                                       .arg(limit);
  }
  if (self.study && !self.study->events.empty()) text += tr(" Triangles above the map mark the events; hover for each.");
  text += tr(" Where racks or samples outnumber the pixels, a pixel shows the largest value of the cells it covers.");
  self.note->setText(text);
}

void HeatMapView::update_rows() {
  auto& self = *impl_;
  self.image = {};
  if (!self.report || self.map.racks == 0) {
    self.rows.clear();
    return;
  }
  self.rows = rack_order(self.report->layout(), self.map, order());
  const FieldInfo* info = self.info();
  if (info == nullptr) return;
  const FieldPresentation presentation = present_field(*info, self.chosen_reduction(), 0.0);
  self.title = QString::fromStdString(title_with_unit(presentation.short_title, self.unit.unit)) +
               (order() == RackOrder::peak ? tr(", racks by peak") : tr(", racks by position"));
}

std::optional<std::pair<std::size_t, std::size_t>> HeatMapView::cell_at(QPoint position) const {
  const auto& self = *impl_;
  if (self.rows.empty() || self.map.samples == 0) return std::nullopt;
  const QRect area = self.plot(self.canvas);
  if (!area.contains(position)) return std::nullopt;
  const double fy = static_cast<double>(position.y() - area.top()) / area.height();
  const double fx = static_cast<double>(position.x() - area.left()) / area.width();
  const auto row = std::min(self.rows.size() - 1, static_cast<std::size_t>(fy * static_cast<double>(self.rows.size())));
  const auto sample = std::min(self.map.samples - 1, static_cast<std::size_t>(fx * static_cast<double>(self.map.samples)));
  return std::make_pair(self.rows[row], sample);
}

QPoint HeatMapView::position_of(std::size_t rack, std::size_t sample) const {
  const auto& self = *impl_;
  const QRect area = self.plot(self.canvas);
  const auto it = std::find(self.rows.begin(), self.rows.end(), rack);
  const double row = static_cast<double>(it - self.rows.begin());
  const double y = area.top() + (row + 0.5) * area.height() / static_cast<double>(std::max<std::size_t>(1, self.rows.size()));
  const double x = area.left() + (static_cast<double>(sample) + 0.5) * area.width() / static_cast<double>(std::max<std::size_t>(1, self.map.samples));
  return {static_cast<int>(x), static_cast<int>(y)};
}

QString HeatMapView::cell_text(std::size_t rack, std::size_t sample) const {
  const auto& self = *impl_;
  if (!self.report || rack >= self.map.racks || sample >= self.map.samples) return {};
  const auto& labels = self.report->layout().rack_labels;
  const QString label = rack < labels.size() ? QString::fromStdString(labels[rack]) : QString::number(rack);
  const double v = self.map.at(rack, sample);
  const QString value = std::isfinite(v) ? QString::fromStdString(format_value(self.unit.from_si(v), self.unit.unit)) : tr("no value");
  return tr("%1 at %2: %3")
      .arg(label, QString::fromStdString(format_time(self.time_at(sample), self.report->time().back())), value);
}

std::vector<HeatMapView::EventMark> HeatMapView::event_marks() const {
  const auto& self = *impl_;
  std::vector<EventMark> marks;
  if (!self.study || !self.report || self.map.samples == 0 || self.report->time().empty()) return marks;
  const QRect area = self.plot(self.canvas);
  const auto& time = self.report->time();
  for (const auto& e : self.study->events) {  // in time order
    if (!(e.time >= time.front() && e.time <= time.back())) continue;
    const int x = static_cast<int>(std::lround(self.x_at(area, e.time)));
    const QString line = tr("%1 at %2: %3")
                             .arg(QString::fromUtf8(study_event_kind_name(e.kind)),
                                  QString::fromStdString(format_time(e.time, time.back())), QString::fromStdString(e.text));
    if (!marks.empty() && x - marks.back().position.x() <= 2) {
      marks.back().text += "\n" + line;
      continue;
    }
    const auto rgb = study_event_colour(e.kind);
    marks.push_back({QPoint(x, area.top()), QColor(rgb[0], rgb[1], rgb[2]), line});
  }
  return marks;
}

QString HeatMapView::tooltip_at(QPoint position) const {
  const QRect area = impl_->plot(impl_->canvas);
  if (position.y() >= area.top() - 12 && position.y() < area.top()) {
    // The nearest mark within its half-width.
    QString text;
    int nearest = 6;
    for (const auto& mark : event_marks()) {
      const int distance = std::abs(position.x() - mark.position.x());
      if (distance < nearest) {
        nearest = distance;
        text = mark.text;
      }
    }
    return text;
  }
  const auto cell = cell_at(position);
  return cell ? cell_text(cell->first, cell->second) : QString();
}

std::size_t HeatMapView::racks_over_limit() const { return impl_->over_limit; }
double HeatMapView::limit() const { return impl_->limit; }

bool HeatMapView::pick_at(QPoint position) {
  const auto cell = cell_at(position);
  if (!cell) return false;
  const double t = impl_->time_at(cell->second);
  set_time_cursor(t);
  Q_EMIT time_picked(t);
  Q_EMIT rack_picked(cell->first);
  return true;
}

bool HeatMapView::export_png(const QString& file) { return impl_->canvas->grab().save(file, "PNG"); }

}  // namespace dctwin::gui
