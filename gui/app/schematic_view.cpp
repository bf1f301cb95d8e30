#include "schematic_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>

#include "dctwin/gui/distribution.hpp"
#include "dctwin/gui/units.hpp"
#include "painted_canvas.hpp"

namespace dctwin::gui {
namespace {

constexpr double pipe_low = 283.15, pipe_high = 343.15;  // the pipes' colour scale [K]: 10-70 degC

QColor pipe_colour(double kelvin) {
  const auto rgb = sequential_colour(std::clamp((kelvin - pipe_low) / (pipe_high - pipe_low), 0.0, 1.0));
  return {rgb[0], rgb[1], rgb[2]};
}

/// A box with its title and items in `rect`.
void draw_box(QPainter& painter, const QRectF& rect, const SchematicBox& box) {
  painter.setPen(QPen(QColor(60, 60, 60), 1.2));
  painter.setBrush(QColor(246, 246, 246));
  painter.drawRoundedRect(rect, 6, 6);
  QFont font = painter.font();
  font.setPixelSize(12);
  font.setBold(true);
  painter.setFont(font);
  painter.setPen(Qt::black);
  const QRectF title(rect.left() + 6, rect.top() + 4, rect.width() - 12, 18);
  painter.drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                   painter.fontMetrics().elidedText(QString::fromStdString(box.title), Qt::ElideRight,
                                                    static_cast<int>(title.width())));
  font.setBold(false);
  font.setPixelSize(11);
  painter.setFont(font);
  double y = rect.top() + 24;
  for (const auto& item : box.items) {
    const QRectF line(rect.left() + 6, y, rect.width() - 12, 15);
    painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(QString::fromStdString(item.label), Qt::ElideRight,
                                                      static_cast<int>(line.width() * 0.58)));
    painter.drawText(line, Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(item.value));
    y += 15;
  }
}

/// Height a box needs for its items [px].
double box_height(const SchematicBox& box) { return 30.0 + 15.0 * static_cast<double>(box.items.size()); }

}  // namespace

struct SchematicView::Impl {
  std::shared_ptr<const ReportModel> report;
  std::unique_ptr<SchematicModel> model;
  QComboBox* pod = nullptr;
  QLabel* note = nullptr;
  PaintedCanvas* canvas = nullptr;
  SchematicState state;
  double time = std::nan("");
  bool updating = false;
};

SchematicView::SchematicView(QWidget* parent) : QWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* controls = new QHBoxLayout();
  controls->addWidget(new QLabel(tr("Cooling loop of:"), this));
  self.pod = new QComboBox(this);
  self.pod->setObjectName("schematicPod");
  controls->addWidget(self.pod);
  controls->addStretch(1);
  layout->addLayout(controls);
  self.canvas = new PaintedCanvas(this, QSize(640, 420));
  self.canvas->setObjectName("schematicCanvas");
  layout->addWidget(self.canvas, 1);
  self.note = new QLabel(this);
  self.note->setObjectName("schematicNote");
  self.note->setWordWrap(true);
  layout->addWidget(self.note);
  connect(self.pod, &QComboBox::currentIndexChanged, this, [this] {
    if (!impl_->updating) refresh();
  });

  self.canvas->paint = [this](QPainter& painter) {
    const auto& s = *impl_;
    const QWidget* w = s.canvas;
    painter.fillRect(w->rect(), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setPixelSize(13);
    font.setBold(true);
    painter.setFont(font);
    if (s.state.cooling.empty() && s.state.electrical.empty()) {
      painter.drawText(w->rect(), Qt::AlignCenter, s.report ? tr("Nothing to draw: the report has no plant, pod or rack values")
                                                            : tr("No report open"));
      return;
    }
    const double margin = 16.0, gap = 76.0;
    const double half = w->height() * (s.state.electrical.empty() ? 1.0 : 0.56);
    std::map<std::string, QRectF> where;

    // Cooling loop: one row, left to right.
    painter.drawText(QRectF(margin, 4, w->width() - 2 * margin, 20), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Cooling loop (pipes coloured by water temperature, 10-70 degC)"));
    const auto& cooling = s.state.cooling;
    if (!cooling.empty()) {
      const double n = static_cast<double>(cooling.size());
      const double width = (w->width() - 2 * margin - gap * (n - 1)) / n;
      double tallest = 0.0;
      for (const auto& b : cooling) tallest = std::max(tallest, box_height(b));
      const double top = 34.0;
      for (std::size_t k = 0; k < cooling.size(); ++k) {
        const QRectF rect(margin + static_cast<double>(k) * (width + gap), top, width, std::min(tallest, half - top - 30));
        where[cooling[k].id] = rect;
      }
      // Pipes first, under the boxes' edges: supply at a third of the height, return at two thirds.
      for (const auto& pipe : s.state.pipes) {
        const QRectF a = where[pipe.from], b = where[pipe.to];
        const double y = a.top() + a.height() * (pipe.supply ? 0.33 : 0.67);
        const QColor colour = pipe_colour(pipe.temperature);
        painter.setPen(QPen(colour, 7, Qt::SolidLine, Qt::FlatCap));
        painter.drawLine(QPointF(a.right(), y), QPointF(b.left(), y));
        // The direction: supply towards the racks, return back.
        const double x = 0.5 * (a.right() + b.left());
        const double d = pipe.supply ? 6.0 : -6.0;
        QPainterPath arrow;
        arrow.moveTo(x + d, y);
        arrow.lineTo(x - d, y - 7);
        arrow.lineTo(x - d, y + 7);
        arrow.closeSubpath();
        painter.fillPath(arrow, colour.darker(160));
        font.setBold(false);
        font.setPixelSize(10);
        painter.setFont(font);
        painter.setPen(Qt::black);
        painter.drawText(QRectF(a.right(), y + (pipe.supply ? -22 : 6), b.left() - a.right(), 14), Qt::AlignHCenter,
                         QString::fromStdString(format_si(pipe.temperature, "K")));
      }
      for (const auto& b : cooling) draw_box(painter, where[b.id], b);
    }

    // Electrical single line: the supply chain in a row, the cooling load and storage below it.
    const auto& electrical = s.state.electrical;
    if (!electrical.empty()) {
      font.setPixelSize(13);
      font.setBold(true);
      painter.setFont(font);
      painter.setPen(Qt::black);
      painter.drawText(QRectF(margin, half + 4, w->width() - 2 * margin, 20), Qt::AlignLeft | Qt::AlignVCenter,
                       tr("Electrical single line (feeders as wide as the power they carry)"));
      std::vector<const SchematicBox*> chain, below;
      for (const auto& b : electrical) (b.id == "cooling_load" || b.id == "storage" ? below : chain).push_back(&b);
      const double n = static_cast<double>(std::max<std::size_t>(chain.size(), 1));
      const double width = (w->width() - 2 * margin - gap * (n - 1)) / n;
      const double top = half + 34.0;
      const double row = std::max(60.0, (w->height() - top - margin - gap) / 2.0);
      for (std::size_t k = 0; k < chain.size(); ++k)
        where[chain[k]->id] = QRectF(margin + static_cast<double>(k) * (width + gap), top, width,
                                     std::min(box_height(*chain[k]), row));
      // Below: the cooling load under the box after the bus, storage under the utility.
      for (const auto* b : below) {
        const std::size_t column = b->id == "storage" ? 0 : std::min<std::size_t>(2, chain.size() - 1);
        where[b->id] = QRectF(margin + static_cast<double>(column) * (width + gap), top + row + gap, width,
                              std::min(box_height(*b), row));
      }
      double largest = 0.0;
      for (const auto& f : s.state.feeders)
        if (std::isfinite(f.power)) largest = std::max(largest, f.power);
      for (const auto& f : s.state.feeders) {
        const QRectF a = where[f.from], b = where[f.to];
        const double thickness = std::isfinite(f.power) && largest > 0.0 ? 1.5 + 8.0 * f.power / largest : 1.5;
        painter.setPen(QPen(QColor(40, 70, 140), thickness, Qt::SolidLine, Qt::FlatCap));
        QPointF p, q;
        if (std::fabs(a.top() - b.top()) < 1.0) {  // same row: side to side, level with the titles
          p = QPointF(a.right(), a.top() + 14.0);
          q = QPointF(b.left(), b.top() + 14.0);
          painter.drawLine(p, q);
        } else {  // to a box below: down from the bus, then across
          const bool down = b.top() > a.top();
          const QRectF upper = down ? a : b, lower = down ? b : a;
          p = QPointF(upper.center().x(), upper.bottom());
          q = QPointF(lower.left() > upper.right() ? lower.left() : lower.center().x(),
                      lower.left() > upper.right() ? lower.center().y() : lower.top());
          const QPointF corner(p.x(), q.y());
          painter.drawLine(p, corner);
          painter.drawLine(corner, q);
          p = corner;
        }
        if (!f.label.empty()) {
          font.setBold(false);
          font.setPixelSize(10);
          painter.setFont(font);
          painter.setPen(Qt::black);
          painter.drawText(QRectF(std::min(p.x(), q.x()), std::min(p.y(), q.y()) - 16, std::fabs(q.x() - p.x()) + 60, 14),
                           Qt::AlignLeft, QString::fromStdString(f.label));
        }
      }
      for (const auto& b : electrical) draw_box(painter, where[b.id], b);
    }
  };
}

SchematicView::~SchematicView() = default;

void SchematicView::set_report(std::shared_ptr<const ReportModel> report) {
  auto& self = *impl_;
  self.report = std::move(report);
  self.model.reset();  // read when the view is first shown (refresh)
  self.state = {};
  self.updating = true;
  const int was = self.pod->currentIndex();
  self.pod->clear();
  if (self.report) {
    const int pods = std::max(1, self.report->layout().pod_count());
    for (int p = 0; p < pods; ++p) self.pod->addItem(tr("pod %1").arg(p));
    self.pod->setCurrentIndex(std::clamp(was, 0, self.pod->count() - 1));
    if (!std::isfinite(self.time) && !self.report->time().empty()) self.time = self.report->time().back();
  }
  self.updating = false;
  if (isVisible()) refresh();
}

void SchematicView::set_time_cursor(double t) {
  impl_->time = t;
  if (isVisible()) refresh();
}

void SchematicView::set_pod(std::size_t pod) {
  if (static_cast<int>(pod) < impl_->pod->count()) impl_->pod->setCurrentIndex(static_cast<int>(pod));
  if (isVisible()) refresh();
}

std::size_t SchematicView::pod() const { return static_cast<std::size_t>(std::max(0, impl_->pod->currentIndex())); }
const SchematicState& SchematicView::state() const { return impl_->state; }
QWidget* SchematicView::canvas() const { return impl_->canvas; }
bool SchematicView::export_png(const QString& file) { return impl_->canvas->grab().save(file, "PNG"); }

void SchematicView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refresh();
}

void SchematicView::refresh() {
  auto& self = *impl_;
  self.state = {};
  if (!self.model && self.report) {
    try {
      self.model = std::make_unique<SchematicModel>(*self.report);
    } catch (const std::exception& e) {
      self.note->setText(tr("Cannot read the report: %1").arg(QString::fromStdString(e.what())));
      self.canvas->update();
      Q_EMIT read_failed(QString::fromStdString(e.what()));
      return;
    }
  }
  if (self.model && self.report && !self.report->time().empty()) {
    const std::size_t index = self.report->time_index(std::isfinite(self.time) ? self.time : self.report->time().back());
    try {
      self.state = self.model->at(index, pod());
      self.note->setText(tr("At %1. Values the report does not hold are left out; the grid's values are those of "
                            "its 1-ms record at that time.")
                             .arg(QString::fromStdString(format_time(self.report->time()[index], self.report->time().back()))));
    } catch (const std::exception& e) {
      self.state = {};
      self.note->setText(tr("Cannot read the report: %1").arg(QString::fromStdString(e.what())));
      Q_EMIT read_failed(QString::fromStdString(e.what()));
    }
  }
  self.canvas->update();
}

}  // namespace dctwin::gui
