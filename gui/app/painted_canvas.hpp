// A widget painted by a callback, for views drawn with QPainter (the heat map, the schematic): the
// view keeps the state and sets `paint`; `clicked` (left button) and `tooltip` (the text at a
// position, empty for none) are optional.
#pragma once

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QString>
#include <QToolTip>
#include <QWidget>

#include <functional>

namespace dctwin::gui {

class PaintedCanvas : public QWidget {
 public:
  explicit PaintedCanvas(QWidget* parent, QSize minimum) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumSize(minimum);
    setAttribute(Qt::WA_OpaquePaintEvent);
  }
  std::function<void(QPainter&)> paint;
  std::function<void(QPoint)> clicked;
  std::function<QString(QPoint)> tooltip;

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    if (paint) paint(painter);
  }
  void mousePressEvent(QMouseEvent* event) override {
    if (event->button() == Qt::LeftButton && clicked) clicked(event->position().toPoint());
  }
  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip && tooltip) {
      auto* help = static_cast<QHelpEvent*>(event);
      const QString text = tooltip(help->pos());
      if (text.isEmpty()) {
        QToolTip::hideText();
      } else {
        QToolTip::showText(help->globalPos(), text, this);
      }
      return true;
    }
    return QWidget::event(event);
  }
};

}  // namespace dctwin::gui
