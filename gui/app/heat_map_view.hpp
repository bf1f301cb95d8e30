// The rack x time heat map: one row per rack, one column per sample, coloured by a field of the
// report (a GPU field reduced per rack by its max or mean, or a rack field) on the data hall's
// sequential colour map, with a colour bar, the time axis and the racks' labels. Rows are ordered
// by the racks' place in the hall (pod, row, place in the row) or by their peak over the run
// (largest first). When there are more racks (samples) than pixel rows (columns), a pixel shows
// the largest value of the racks (samples) it covers, so that a hot rack is never hidden.
//
// The time shown in the hall is drawn as a vertical line (the time cursor); hovering a cell shows
// its rack, time and value; a click moves the time there (time_picked) and selects the rack
// (rack_picked). The study's events are marked above the map by triangles in their kind's colour
// (hovering one names its events), and the field's lowest upper limit is a line on the colour bar
// with the number of racks that exceed it (by their hottest GPU) in the note. Painted with QPainter: no OpenGL, so it also draws on the offscreen platform.
// The map is read (every row of the field once) when the view is shown or its field changes.
#pragma once

#include <QColor>
#include <QPoint>
#include <QString>
#include <QWidget>

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "dctwin/gui/distribution.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/study.hpp"

namespace dctwin::gui {

class HeatMapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatMapView(QWidget* parent = nullptr);
  ~HeatMapView() override;

  void set_report(std::shared_ptr<const ReportModel> report);
  /// The events marked above the map and the limits drawn on its colour bar.
  void set_study(std::shared_ptr<const Study> study);
  /// Colours by a field (its dataset path); false when the report has no such non-bitmask field.
  bool set_field(const QString& path);
  [[nodiscard]] QString field() const;
  /// The fields offered: the report's hall fields that are not bit fields.
  [[nodiscard]] QStringList fields() const;
  void set_reduction(Reduction reduction);  ///< max or mean per rack (a GPU field)
  [[nodiscard]] Reduction reduction() const;
  void set_order(RackOrder order);
  [[nodiscard]] RackOrder order() const;
  /// The time cursor at `t` [s] (NaN: none).
  void set_time_cursor(double t);
  [[nodiscard]] double time_cursor() const;

  /// Reads the map now if it is not read yet (it is otherwise read when the view is shown); a read
  /// failure empties the map and is passed on as read_failed.
  void ensure_map();
  /// The map shown (SI) and its racks from the top row down.
  [[nodiscard]] const RackTimeMap& map() const;
  [[nodiscard]] const std::vector<std::size_t>& rows() const;
  /// The colour range in display units (the map's smallest and largest finite value).
  [[nodiscard]] std::pair<double, double> colour_range() const;
  [[nodiscard]] QString title() const;
  /// The rack and sample under a position of the map's canvas (canvas pixels), or nothing.
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> cell_at(QPoint position) const;
  /// The canvas position of the centre of a rack's and sample's cell.
  [[nodiscard]] QPoint position_of(std::size_t rack, std::size_t sample) const;
  /// "pod0/rack012 at t = 3.5 min: 78.31 degC" for a cell.
  [[nodiscard]] QString cell_text(std::size_t rack, std::size_t sample) const;
  /// An event mark: where its triangle points (canvas pixels, on the map's top edge), its colour
  /// and what it marks ("pump failure at t = 2 min: pod 0: 2 pumps failed"; events that fall on
  /// one pixel column share a mark, one line each).
  struct EventMark {
    QPoint position;
    QColor colour;
    QString text;
  };
  [[nodiscard]] std::vector<EventMark> event_marks() const;
  /// The tooltip at a canvas position: a mark's events, a cell's value, or nothing.
  [[nodiscard]] QString tooltip_at(QPoint position) const;
  /// The racks above the field's lowest upper limit at some sample (by their hottest GPU), and
  /// the limit (SI; NaN: the field has none, or the map shows a mean).
  [[nodiscard]] std::size_t racks_over_limit() const;
  [[nodiscard]] double limit() const;
  /// Acts as a click at a canvas position: the time and the rack there are picked.
  bool pick_at(QPoint position);
  [[nodiscard]] QWidget* canvas() const;
  bool export_png(const QString& file);

 Q_SIGNALS:
  void time_picked(double t);
  void rack_picked(std::size_t rack);
  void read_failed(const QString& message);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void invalidate();
  void update_rows();
  void update_note();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::gui
