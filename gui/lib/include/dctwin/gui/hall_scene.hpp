// The 3-D data hall as a VTK scene, without widgets: one box per rack drawn by a glyph mapper
// (instanced rendering: the 1,536 racks of the facility are one draw call), coloured by per-rack
// values through a lookup table with a scalar bar legend, pod floor tiles, an outline around the
// selected rack, a caption, camera presets and picking by ray casting against the racks' boxes.
//
// The scene has two renderers: the hall, and beside it on the right a strip of its own for the
// colour bar, so that the bar never lies over racks. The widget that hosts the scene owns the
// render window (attach()). Whenever that window changes size (a panel opens beside the view, the
// window is resized), the strip is laid out again and the camera reframes the hall: it keeps its
// direction and is moved so that every rack and pod label fits between the caption and the
// bottom edge, left of the colour bar.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "dctwin/gui/report_model.hpp"

class vtkRenderer;
class vtkRenderWindow;

namespace dctwin::gui {

enum class CameraPreset { overview, top, front, side };
[[nodiscard]] const char* camera_preset_name(CameraPreset preset);

/// Colour maps of the legend: sequential for values, diverging (centred on zero) for differences.
enum class ColourMap { sequential, diverging };

class HallScene {
 public:
  HallScene();
  ~HallScene();
  HallScene(const HallScene&) = delete;
  HallScene& operator=(const HallScene&) = delete;

  [[nodiscard]] vtkRenderer* renderer() const;
  /// Adds the scene's renderers to a window and follows its size (see above). Once per scene.
  void attach(vtkRenderWindow* window);
  /// Reframe the camera when the window changes size (on by default; off for a scene that shares
  /// another scene's camera, which frames it).
  void set_auto_frame(bool on);
  /// Fits the hall into the view along the camera's current direction (see above).
  void frame();
  /// Fraction of the window's width [0, 1) the colour bar's strip takes (0 before attach()).
  [[nodiscard]] double legend_strip_fraction() const;

  /// Builds the racks, pod floors and labels of a layout and frames the camera (overview).
  void set_layout(const HallLayout& layout);
  /// Colours the racks: one value per rack in display units (NaN: no data, grey), mapped over
  /// [lo, hi]. `legend_title` is the scalar bar's title, e.g. "GPU junction temperature, max
  /// per rack [degC]".
  void set_values(std::span<const double> values, double lo, double hi, const std::string& legend_title,
                  ColourMap map = ColourMap::sequential);
  /// Text in the upper left corner (report, time).
  void set_caption(const std::string& text);
  void set_selected(std::optional<std::size_t> rack);
  [[nodiscard]] std::optional<std::size_t> selected() const;
  /// Highlights racks in alarm (over a limit): a red frame around each, drawn over the colours,
  /// so that a rack over its limit is found whatever the colour range. Empty: none.
  void set_alarms(std::span<const std::size_t> racks);
  [[nodiscard]] std::size_t alarm_count() const;
  void set_legend_visible(bool visible);

  void apply_camera(CameraPreset preset);
  /// Flies the camera to a rack: it looks at the rack from the current direction, close enough
  /// that the rack and its neighbours fill the view, and selects it.
  void focus_rack(std::size_t rack);
  /// Turns the camera about the vertical axis by `degrees` (for the benchmark).
  void rotate_camera(double degrees);

  /// The rack under a display position (VTK display coordinates: pixels, origin at the bottom left
  /// of the render window), or nothing. Needs a render window of the right size.
  [[nodiscard]] std::optional<std::size_t> pick(double display_x, double display_y) const;
  /// Display positions of the corners of a rack's box (for tests: is the whole rack in view?).
  [[nodiscard]] std::array<std::array<double, 2>, 8> rack_display_corners(std::size_t rack) const;
  /// Display position of the top centre of a rack (for tests and tooltips).
  [[nodiscard]] std::array<double, 2> rack_display_position(std::size_t rack) const;
  /// Colour [0, 1] the lookup table gives to a display value.
  [[nodiscard]] std::array<double, 3> colour_of(double value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Where a ray from `origin` along `direction` first enters an axis-aligned box [lo, hi], as the
/// ray parameter, or nothing when it misses (pure geometry; exposed for tests).
[[nodiscard]] std::optional<double> ray_box_entry(const std::array<double, 3>& origin,
                                                  const std::array<double, 3>& direction,
                                                  const std::array<double, 3>& lo,
                                                  const std::array<double, 3>& hi);

}  // namespace dctwin::gui
