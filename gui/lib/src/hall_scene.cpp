#include "dctwin/gui/hall_scene.hpp"

#include <vtkActor.h>
#include <vtkBillboardTextActor3D.h>
#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCoordinate.h>
#include <vtkCubeSource.h>
#include <vtkDoubleArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkOutlineSource.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkRenderWindow.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSmartPointer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWeakPointer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace dctwin::gui {
namespace {

struct ColourStop {
  double at;
  double r, g, b;
};

// Sequential map (perceptually ordered, dark blue -> magenta -> orange -> yellow, after matplotlib's
// "plasma") and a diverging blue-grey-red map (after Moreland's cool-warm).
constexpr ColourStop sequential_stops[] = {{0.00, 0.050, 0.030, 0.528}, {0.25, 0.494, 0.012, 0.658},
                                           {0.50, 0.798, 0.280, 0.470}, {0.75, 0.973, 0.585, 0.254},
                                           {1.00, 0.940, 0.975, 0.131}};
constexpr ColourStop diverging_stops[] = {
    {0.0, 0.230, 0.299, 0.754}, {0.5, 0.865, 0.865, 0.865}, {1.0, 0.706, 0.016, 0.150}};

template <std::size_t N>
void fill_table(vtkLookupTable* table, const ColourStop (&stops)[N]) {
  constexpr int size = 256;
  table->SetNumberOfTableValues(size);
  for (int i = 0; i < size; ++i) {
    const double s = static_cast<double>(i) / (size - 1);
    std::size_t k = 1;
    while (k < N - 1 && stops[k].at < s) ++k;
    const auto& a = stops[k - 1];
    const auto& b = stops[k];
    const double f = std::clamp((s - a.at) / (b.at - a.at), 0.0, 1.0);
    table->SetTableValue(i, a.r + f * (b.r - a.r), a.g + f * (b.g - a.g), a.b + f * (b.b - a.b), 1.0);
  }
  table->SetNanColor(0.42, 0.42, 0.45, 1.0);
  table->Modified();
}

}  // namespace

const char* camera_preset_name(CameraPreset preset) {
  switch (preset) {
    case CameraPreset::overview: return "Overview";
    case CameraPreset::top: return "Top";
    case CameraPreset::front: return "Front";
    case CameraPreset::side: return "Side";
  }
  return "Overview";
}

std::optional<double> ray_box_entry(const std::array<double, 3>& origin,
                                    const std::array<double, 3>& direction,
                                    const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  double t_enter = -std::numeric_limits<double>::infinity();
  double t_exit = std::numeric_limits<double>::infinity();
  for (int axis = 0; axis < 3; ++axis) {
    const auto a = static_cast<std::size_t>(axis);
    if (std::fabs(direction[a]) < 1e-300) {
      if (origin[a] < lo[a] || origin[a] > hi[a]) return std::nullopt;
      continue;
    }
    double t0 = (lo[a] - origin[a]) / direction[a];
    double t1 = (hi[a] - origin[a]) / direction[a];
    if (t0 > t1) std::swap(t0, t1);
    t_enter = std::max(t_enter, t0);
    t_exit = std::min(t_exit, t1);
    if (t_enter > t_exit) return std::nullopt;
  }
  if (t_exit < 0) return std::nullopt;
  return std::max(t_enter, 0.0);
}

struct HallScene::Impl {
  vtkNew<vtkRenderer> renderer;
  vtkNew<vtkRenderer> legend_renderer;  // the strip on the right holding the colour bar
  vtkNew<vtkCallbackCommand> on_window_start;
  vtkWeakPointer<vtkRenderWindow> window;
  unsigned long observer = 0;
  int window_width = 0, window_height = 0;  // size at the last layout [pixels]
  double strip = 0.0;                        // width fraction of the colour bar's strip
  std::array<double, 9> framed_state{};      // the camera as fit_camera() left it
  bool auto_frame = true;
  vtkNew<vtkPolyData> racks;
  vtkNew<vtkDoubleArray> values;
  vtkNew<vtkCubeSource> box;
  vtkNew<vtkGlyph3DMapper> rack_mapper;
  vtkNew<vtkActor> rack_actor;
  vtkNew<vtkLookupTable> table;
  vtkNew<vtkScalarBarActor> legend;
  vtkNew<vtkPolyData> floors;
  vtkNew<vtkPolyDataMapper> floor_mapper;
  vtkNew<vtkActor> floor_actor;
  vtkNew<vtkOutlineSource> outline;
  vtkNew<vtkPolyDataMapper> outline_mapper;
  vtkNew<vtkActor> outline_actor;
  vtkNew<vtkPolyData> alarms;  // red frames (12 edges each) around the racks in alarm
  vtkNew<vtkPolyDataMapper> alarm_mapper;
  vtkNew<vtkActor> alarm_actor;
  std::size_t alarm_count = 0;
  vtkNew<vtkTextActor> caption;
  vtkNew<vtkTextActor> legend_title;
  std::vector<vtkSmartPointer<vtkBillboardTextActor3D>> pod_labels;

  HallLayout layout;
  std::array<double, 3> drawn_size{0.54, 1.14, 2.2};
  std::optional<std::size_t> selected;
  ColourMap map = ColourMap::sequential;
  std::array<double, 6> bounds{0, 1, 0, 1, 0, 1};

  Impl() {
    renderer->GradientBackgroundOn();
    renderer->SetBackground(0.10, 0.11, 0.14);
    renderer->SetBackground2(0.27, 0.30, 0.36);
    legend_renderer->GradientBackgroundOn();
    legend_renderer->SetBackground(0.10, 0.11, 0.14);
    legend_renderer->SetBackground2(0.27, 0.30, 0.36);
    legend_renderer->InteractiveOff();
    on_window_start->SetClientData(this);
    on_window_start->SetCallback([](vtkObject*, unsigned long, void* client, void*) {
      static_cast<Impl*>(client)->follow_window_size();
    });

    values->SetName("value");
    racks->GetPointData()->AddArray(values);
    fill_table(table, sequential_stops);
    table->SetTableRange(0.0, 1.0);

    rack_mapper->SetInputData(racks);
    rack_mapper->SetSourceConnection(box->GetOutputPort());
    rack_mapper->ScalingOff();
    rack_mapper->OrientOff();
    rack_mapper->SetScalarModeToUsePointFieldData();
    rack_mapper->SelectColorArray("value");
    rack_mapper->SetColorModeToMapScalars();
    rack_mapper->SetLookupTable(table);
    rack_mapper->UseLookupTableScalarRangeOn();
    rack_mapper->ScalarVisibilityOn();
    rack_actor->SetMapper(rack_mapper);
    rack_actor->GetProperty()->SetAmbient(0.25);
    rack_actor->GetProperty()->SetDiffuse(0.8);
    renderer->AddActor(rack_actor);

    floor_mapper->SetInputData(floors);
    floor_mapper->SetScalarModeToUseCellData();
    floor_mapper->SetColorModeToDirectScalars();
    floor_actor->SetMapper(floor_mapper);
    floor_actor->PickableOff();
    renderer->AddActor(floor_actor);

    outline_mapper->SetInputConnection(outline->GetOutputPort());
    outline_actor->SetMapper(outline_mapper);
    outline_actor->GetProperty()->SetColor(0.2, 1.0, 0.4);
    outline_actor->GetProperty()->SetLineWidth(3.0);
    outline_actor->GetProperty()->LightingOff();
    outline_actor->VisibilityOff();
    outline_actor->PickableOff();
    renderer->AddActor(outline_actor);

    alarm_mapper->SetInputData(alarms);
    alarm_actor->SetMapper(alarm_mapper);
    alarm_actor->GetProperty()->SetColor(1.0, 0.1, 0.1);
    alarm_actor->GetProperty()->SetLineWidth(3.0);
    alarm_actor->GetProperty()->LightingOff();
    alarm_actor->PickableOff();
    alarm_actor->VisibilityOff();
    renderer->AddActor(alarm_actor);

    // The bar in its strip with its labels on its left; the title is a separate text, right-aligned
    // at the top of the hall's viewport beside the strip, so that long titles are not clipped.
    legend->SetLookupTable(table);
    legend->SetNumberOfLabels(6);
    legend->SetLabelFormat("%.4g");
    legend->SetTextPositionToPrecedeScalarBar();
    legend->SetMaximumWidthInPixels(110);
    legend->SetBarRatio(0.35);
    legend->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    legend->GetPositionCoordinate()->SetValue(0.02, 0.05);
    legend->SetWidth(0.94);
    legend->SetHeight(0.80);
    legend->UnconstrainedFontSizeOn();
    legend->GetLabelTextProperty()->SetFontSize(13);
    legend->GetLabelTextProperty()->ItalicOff();
    legend->GetLabelTextProperty()->ShadowOff();
    legend->GetLabelTextProperty()->SetColor(0.95, 0.95, 0.95);
    legend->VisibilityOff();
    legend_renderer->AddViewProp(legend);
    legend_title->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    legend_title->GetPositionCoordinate()->SetValue(0.995, 0.975);
    legend_title->GetTextProperty()->SetFontSize(14);
    legend_title->GetTextProperty()->SetJustificationToRight();
    legend_title->GetTextProperty()->SetVerticalJustificationToTop();
    legend_title->GetTextProperty()->SetColor(0.95, 0.95, 0.95);
    legend_title->VisibilityOff();
    renderer->AddViewProp(legend_title);

    caption->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    caption->GetPositionCoordinate()->SetValue(0.01, 0.97);
    caption->GetTextProperty()->SetFontSize(14);
    caption->GetTextProperty()->SetVerticalJustificationToTop();
    caption->GetTextProperty()->SetColor(0.95, 0.95, 0.95);
    renderer->AddViewProp(caption);
  }

  [[nodiscard]] std::array<double, 3> lo_corner(std::size_t rack) const {
    const auto& p = layout.rack_position[rack];
    return {p.x - drawn_size[0] / 2, p.y - drawn_size[1] / 2, p.z};
  }
  [[nodiscard]] std::array<double, 3> hi_corner(std::size_t rack) const {
    const auto& p = layout.rack_position[rack];
    return {p.x + drawn_size[0] / 2, p.y + drawn_size[1] / 2, p.z + drawn_size[2]};
  }

  /// Width of the colour bar's strip [pixels]: the bar and its labels.
  static constexpr double strip_pixels = 118.0;
  /// Height kept free at the top of the hall's viewport for the caption and the legend title.
  static constexpr double top_pixels = 66.0;

  /// Lays out the two viewports for the window's size when it changed. A camera the user has not
  /// moved since it was last framed is framed again; a camera the user moved (orbit, zoom, a
  /// fly-to) keeps its focal point and is moved along its direction so that the same width of the
  /// hall stays in view (its distance scales with the inverse of the viewport's aspect ratio).
  void follow_window_size() {
    if (window == nullptr) return;
    const int* size = window->GetSize();
    if (size[0] <= 0 || size[1] <= 0) return;
    if (size[0] == window_width && size[1] == window_height) return;
    const double old_aspect = window_width > 0 && window_height > 0
                                  ? window_width * (1.0 - strip) / window_height
                                  : 0.0;
    window_width = size[0];
    window_height = size[1];
    layout_viewports();
    if (!auto_frame) return;
    if (old_aspect <= 0.0 || camera_state() == framed_state) {
      fit_camera();
      return;
    }
    const double new_aspect = window_width * (1.0 - strip) / window_height;
    vtkCamera* camera = renderer->GetActiveCamera();
    camera->Dolly(new_aspect / old_aspect);  // Dolly(f) divides the distance by f
    renderer->ResetCameraClippingRange();
    framed_state = {};
  }

  [[nodiscard]] std::array<double, 9> camera_state() const {
    std::array<double, 9> state{};
    vtkCamera* camera = renderer->GetActiveCamera();
    camera->GetPosition(state.data());
    camera->GetFocalPoint(state.data() + 3);
    camera->GetViewUp(state.data() + 6);
    return state;
  }

  void layout_viewports() {
    strip = window_width > 0 ? std::min(0.4, strip_pixels / window_width) : 0.0;
    renderer->SetViewport(0.0, 0.0, 1.0 - strip, 1.0);
    legend_renderer->SetViewport(1.0 - strip, 0.0, 1.0, 1.0);
  }

  /// Corners of the region to keep in view: the racks, the pod floors and their labels.
  [[nodiscard]] std::array<std::array<double, 3>, 8> framed_corners() const {
    const double margin = std::max(1.0, layout.rack_size.y);
    const double x0 = bounds[0] - margin, x1 = bounds[1] + margin;
    const double y0 = bounds[2] - 1.5 * margin, y1 = bounds[3] + margin;
    const double z0 = bounds[4], z1 = bounds[5];
    std::array<std::array<double, 3>, 8> corners{};
    for (std::size_t k = 0; k < 8; ++k) {
      corners[k] = {(k & 1U) != 0U ? x1 : x0, (k & 2U) != 0U ? y1 : y0, (k & 4U) != 0U ? z1 : z0};
    }
    return corners;
  }

  /// Moves the camera along its direction and across it so that the framed region fills the hall's
  /// viewport below the caption: in normalised device coordinates x in [-0.95, 0.95], y in
  /// [-0.94, 1 - 2 top_pixels / height]. A point at camera coordinates (x, y, z) (z along the view
  /// direction) projects to X = x / (z tan(a/2) aspect), Y = y / (z tan(a/2)) for the vertical view
  /// angle a; the camera is shifted by the centre offset and moved back by the ratio of the
  /// projected extent to the allowed one, a few times (the two interact through the perspective).
  void fit_camera() {
    vtkCamera* camera = renderer->GetActiveCamera();
    if (window_width <= 0 || window_height <= 0) {
      renderer->ResetCamera(bounds.data());
      renderer->ResetCameraClippingRange();
      return;
    }
    const double width = window_width * (1.0 - strip), height = window_height;
    const double aspect = width / height;
    const double tv = std::tan(camera->GetViewAngle() * std::acos(-1.0) / 360.0), th = tv * aspect;
    const double x0 = -0.95, x1 = 0.95, y0 = -0.94, y1 = std::max(0.0, 1.0 - 2.0 * top_pixels / height);
    const auto corners = framed_corners();
    std::array<double, 3> focal{}, position{}, up{};
    camera->GetFocalPoint(focal.data());
    camera->GetPosition(position.data());
    camera->GetViewUp(up.data());
    auto sub = [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
      return std::array<double, 3>{a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    };
    auto dot = [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
      return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    };
    auto cross = [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
      return std::array<double, 3>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    };
    auto unit = [&](std::array<double, 3> a) {
      const double n = std::sqrt(dot(a, a));
      if (n > 0.0) {
        for (auto& c : a) c /= n;
      }
      return a;
    };
    for (int iteration = 0; iteration < 12; ++iteration) {
      const auto towards = sub(focal, position);
      const double distance = std::sqrt(dot(towards, towards));
      if (!(distance > 0.0)) break;
      const auto forward = unit(towards);
      const auto right = unit(cross(forward, up));
      const auto upward = cross(right, forward);
      double lo_x = std::numeric_limits<double>::infinity(), hi_x = -lo_x, lo_y = lo_x, hi_y = -lo_x;
      bool behind = false;
      for (const auto& corner : corners) {
        const auto relative = sub(corner, position);
        const double z = dot(relative, forward);
        if (z <= 1e-6 * distance) {
          behind = true;
          break;
        }
        const double px = dot(relative, right) / (z * th), py = dot(relative, upward) / (z * tv);
        lo_x = std::min(lo_x, px);
        hi_x = std::max(hi_x, px);
        lo_y = std::min(lo_y, py);
        hi_y = std::max(hi_y, py);
      }
      double scale = 2.0;
      if (!behind) {
        scale = std::max((hi_x - lo_x) / (x1 - x0), (hi_y - lo_y) / (y1 - y0));
        const double shift_x = ((lo_x + hi_x) - (x0 + x1)) / 2.0 * th * distance;
        const double shift_y = ((lo_y + hi_y) - (y0 + y1)) / 2.0 * tv * distance;
        for (std::size_t k = 0; k < 3; ++k) focal[k] += right[k] * shift_x + upward[k] * shift_y;
        if (std::fabs(scale - 1.0) < 1e-4 && std::fabs(shift_x) + std::fabs(shift_y) < 1e-6 * distance) break;
      }
      for (std::size_t k = 0; k < 3; ++k) position[k] = focal[k] - forward[k] * distance * scale;
    }
    camera->SetFocalPoint(focal.data());
    camera->SetPosition(position.data());
    renderer->ResetCameraClippingRange();
    framed_state = camera_state();
  }

  void build_floors() {
    vtkNew<vtkPoints> points;
    vtkNew<vtkCellArray> quads;
    vtkNew<vtkUnsignedCharArray> colours;
    colours->SetNumberOfComponents(3);
    colours->SetName("colour");
    auto add_quad = [&](double x0, double y0, double x1, double y1, double z, unsigned char shade) {
      const vtkIdType first = points->GetNumberOfPoints();
      points->InsertNextPoint(x0, y0, z);
      points->InsertNextPoint(x1, y0, z);
      points->InsertNextPoint(x1, y1, z);
      points->InsertNextPoint(x0, y1, z);
      const vtkIdType ids[4] = {first, first + 1, first + 2, first + 3};
      quads->InsertNextCell(4, ids);
      const unsigned char rgb[3] = {shade, shade, static_cast<unsigned char>(shade + 8)};
      colours->InsertNextTypedTuple(rgb);
    };
    for (auto& label : pod_labels) renderer->RemoveViewProp(label);
    pod_labels.clear();
    const double margin = std::max(1.0, layout.rack_size.y);
    add_quad(bounds[0] - 2 * margin, bounds[2] - 2 * margin, bounds[1] + 2 * margin,
             bounds[3] + 2 * margin, -0.02, 58);
    const int pods = layout.pod_count();
    for (int pod = 0; pod < pods; ++pod) {
      double x0 = std::numeric_limits<double>::infinity(), y0 = x0, x1 = -x0, y1 = -x0;
      for (std::size_t r = 0; r < layout.rack_count(); ++r) {
        if (layout.rack_pod[r] != pod) continue;
        const auto lo = lo_corner(r);
        const auto hi = hi_corner(r);
        x0 = std::min(x0, lo[0]);
        y0 = std::min(y0, lo[1]);
        x1 = std::max(x1, hi[0]);
        y1 = std::max(y1, hi[1]);
      }
      if (x0 > x1) continue;
      add_quad(x0 - margin / 2, y0 - margin / 2, x1 + margin / 2, y1 + margin / 2, -0.01,
               static_cast<unsigned char>(pod % 2 == 0 ? 92 : 80));
      if (pods > 1) {
        auto label = vtkSmartPointer<vtkBillboardTextActor3D>::New();
        label->SetInput(("pod " + std::to_string(pod)).c_str());
        label->SetPosition((x0 + x1) / 2, y0 - margin, 0.1);
        label->GetTextProperty()->SetFontSize(16);
        label->GetTextProperty()->SetColor(0.85, 0.88, 0.95);
        label->GetTextProperty()->SetJustificationToCentered();
        label->PickableOff();
        renderer->AddViewProp(label);
        pod_labels.push_back(label);
      }
    }
    floors->SetPoints(points);
    floors->SetPolys(quads);
    floors->GetCellData()->SetScalars(colours);
    floors->Modified();
  }
};

HallScene::HallScene() : impl_(std::make_unique<Impl>()) {}

HallScene::~HallScene() {
  if (impl_->window != nullptr) impl_->window->RemoveObserver(impl_->observer);
}

vtkRenderer* HallScene::renderer() const { return impl_->renderer; }

void HallScene::attach(vtkRenderWindow* window) {
  auto& self = *impl_;
  if (self.window != nullptr) self.window->RemoveObserver(self.observer);
  self.window = window;
  window->AddRenderer(self.renderer);
  window->AddRenderer(self.legend_renderer);
  self.observer = window->AddObserver(vtkCommand::StartEvent, self.on_window_start);
  self.window_width = self.window_height = 0;
  self.follow_window_size();
}

void HallScene::set_auto_frame(bool on) { impl_->auto_frame = on; }

void HallScene::frame() {
  auto& self = *impl_;
  if (self.window != nullptr) {
    // The window's current size, also before its first render.
    self.window_width = self.window_height = 0;
    const bool was = self.auto_frame;
    self.auto_frame = false;
    self.follow_window_size();
    self.auto_frame = was;
  }
  self.fit_camera();
}

double HallScene::legend_strip_fraction() const { return impl_->strip; }

void HallScene::set_layout(const HallLayout& layout) {
  auto& self = *impl_;
  self.layout = layout;
  self.selected.reset();
  set_alarms({});
  self.outline_actor->VisibilityOff();
  // Racks drawn slightly narrower than their pitch so that neighbours stay distinguishable.
  self.drawn_size = {layout.rack_size.x * 0.9, layout.rack_size.y * 0.95, layout.rack_size.z};
  self.box->SetXLength(self.drawn_size[0]);
  self.box->SetYLength(self.drawn_size[1]);
  self.box->SetZLength(self.drawn_size[2]);
  vtkNew<vtkPoints> points;
  points->SetNumberOfPoints(static_cast<vtkIdType>(layout.rack_count()));
  double b[6] = {0, 0, 0, 0, 0, layout.rack_size.z};
  for (std::size_t r = 0; r < layout.rack_count(); ++r) {
    const auto& p = layout.rack_position[r];
    points->SetPoint(static_cast<vtkIdType>(r), p.x, p.y, p.z + layout.rack_size.z / 2);
    if (r == 0) {
      b[0] = b[1] = p.x;
      b[2] = b[3] = p.y;
    }
    b[0] = std::min(b[0], p.x - layout.rack_size.x / 2);
    b[1] = std::max(b[1], p.x + layout.rack_size.x / 2);
    b[2] = std::min(b[2], p.y - layout.rack_size.y / 2);
    b[3] = std::max(b[3], p.y + layout.rack_size.y / 2);
  }
  std::copy(std::begin(b), std::end(b), self.bounds.begin());
  self.racks->SetPoints(points);
  self.values->SetNumberOfTuples(static_cast<vtkIdType>(layout.rack_count()));
  self.values->Fill(std::numeric_limits<double>::quiet_NaN());
  self.racks->Modified();
  self.build_floors();
  apply_camera(CameraPreset::overview);
}

void HallScene::set_values(std::span<const double> values, double lo, double hi,
                           const std::string& legend_title, ColourMap map) {
  auto& self = *impl_;
  if (map != self.map) {
    self.map = map;
    if (map == ColourMap::sequential) {
      fill_table(self.table, sequential_stops);
    } else {
      fill_table(self.table, diverging_stops);
    }
  }
  const auto count = static_cast<vtkIdType>(self.layout.rack_count());
  self.values->SetNumberOfTuples(count);
  for (vtkIdType r = 0; r < count; ++r) {
    const auto index = static_cast<std::size_t>(r);
    self.values->SetValue(r, index < values.size() ? values[index] : std::numeric_limits<double>::quiet_NaN());
  }
  self.values->Modified();
  self.racks->Modified();
  if (!(hi > lo)) hi = lo + 1.0;
  self.table->SetTableRange(lo, hi);
  self.legend_title->SetInput(legend_title.c_str());
  self.legend_title->VisibilityOn();
  self.legend->VisibilityOn();
}

void HallScene::set_caption(const std::string& text) { impl_->caption->SetInput(text.c_str()); }

void HallScene::set_selected(std::optional<std::size_t> rack) {
  auto& self = *impl_;
  if (rack && *rack >= self.layout.rack_count()) rack.reset();
  self.selected = rack;
  if (!rack) {
    self.outline_actor->VisibilityOff();
    return;
  }
  const auto lo = self.lo_corner(*rack);
  const auto hi = self.hi_corner(*rack);
  const double pad = 0.05;
  self.outline->SetBounds(lo[0] - pad, hi[0] + pad, lo[1] - pad, hi[1] + pad, lo[2], hi[2] + pad);
  self.outline_actor->VisibilityOn();
}

std::optional<std::size_t> HallScene::selected() const { return impl_->selected; }

void HallScene::set_alarms(std::span<const std::size_t> racks) {
  auto& self = *impl_;
  vtkNew<vtkPoints> points;
  vtkNew<vtkCellArray> edges;
  std::size_t count = 0;
  // Corner k of a box: bit 0 x, bit 1 y, bit 2 z; the 12 edges join corners differing in one bit.
  static constexpr int edge_corners[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                              {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const std::size_t rack : racks) {
    if (rack >= self.layout.rack_count()) continue;
    const auto lo = self.lo_corner(rack);
    const auto hi = self.hi_corner(rack);
    const double pad = 0.03;
    const vtkIdType first = points->GetNumberOfPoints();
    for (int k = 0; k < 8; ++k) {
      points->InsertNextPoint((k & 1) != 0 ? hi[0] + pad : lo[0] - pad, (k & 2) != 0 ? hi[1] + pad : lo[1] - pad,
                              (k & 4) != 0 ? hi[2] + pad : lo[2]);
    }
    for (const auto& edge : edge_corners) {
      const vtkIdType ids[2] = {first + edge[0], first + edge[1]};
      edges->InsertNextCell(2, ids);
    }
    ++count;
  }
  self.alarms->Initialize();
  self.alarms->SetPoints(points);
  self.alarms->SetLines(edges);
  self.alarms->Modified();
  self.alarm_count = count;
  self.alarm_actor->SetVisibility(count > 0);
}

std::size_t HallScene::alarm_count() const { return impl_->alarm_count; }

void HallScene::set_legend_visible(bool visible) {
  impl_->legend->SetVisibility(visible);
  impl_->legend_title->SetVisibility(visible);
}

void HallScene::apply_camera(CameraPreset preset) {
  auto& self = *impl_;
  const auto& b = self.bounds;
  const double cx = (b[0] + b[1]) / 2, cy = (b[2] + b[3]) / 2, cz = (b[4] + b[5]) / 2;
  const double d = std::max({b[1] - b[0], b[3] - b[2], 2.0 * (b[5] - b[4]), 1.0});
  vtkCamera* camera = self.renderer->GetActiveCamera();
  camera->SetFocalPoint(cx, cy, cz);
  camera->SetViewUp(0, 0, 1);
  switch (preset) {
    case CameraPreset::overview: camera->SetPosition(cx - 0.45 * d, cy - 1.0 * d, cz + 0.75 * d); break;
    case CameraPreset::top:
      camera->SetPosition(cx, cy, cz + 1.5 * d);
      camera->SetViewUp(0, 1, 0);
      break;
    case CameraPreset::front: camera->SetPosition(cx, cy - 1.5 * d, cz + 0.15 * d); break;
    case CameraPreset::side: camera->SetPosition(cx - 1.5 * d, cy, cz + 0.15 * d); break;
  }
  camera->SetViewAngle(30.0);
  frame();
}

void HallScene::focus_rack(std::size_t rack) {
  auto& self = *impl_;
  if (rack >= self.layout.rack_count()) return;
  set_selected(rack);
  vtkCamera* camera = self.renderer->GetActiveCamera();
  double focal[3], position[3];
  camera->GetFocalPoint(focal);
  camera->GetPosition(position);
  double direction[3] = {position[0] - focal[0], position[1] - focal[1], position[2] - focal[2]};
  const double length = std::sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
  if (!(length > 0.0)) return;
  // Close enough that about six racks' pitch spans the view's height.
  const auto& size = self.layout.rack_size;
  const double distance = 6.0 * std::max({size.x, size.y, size.z / 2.0, 0.5}) /
                          std::tan(camera->GetViewAngle() * std::acos(-1.0) / 360.0) / 2.0;
  const auto& p = self.layout.rack_position[rack];
  const double centre[3] = {p.x, p.y, p.z + self.drawn_size[2] / 2.0};
  camera->SetFocalPoint(centre);
  camera->SetPosition(centre[0] + direction[0] / length * distance, centre[1] + direction[1] / length * distance,
                      centre[2] + direction[2] / length * distance);
  self.renderer->ResetCameraClippingRange();
}

void HallScene::rotate_camera(double degrees) {
  impl_->renderer->GetActiveCamera()->Azimuth(degrees);
  impl_->renderer->ResetCameraClippingRange();
}

std::optional<std::size_t> HallScene::pick(double display_x, double display_y) const {
  auto& self = *impl_;
  vtkRenderer* renderer = self.renderer;
  if (renderer->GetRenderWindow() == nullptr) return std::nullopt;
  std::array<double, 3> near_point{}, far_point{};
  for (int end = 0; end < 2; ++end) {
    renderer->SetDisplayPoint(display_x, display_y, end == 0 ? 0.0 : 1.0);
    renderer->DisplayToWorld();
    double world[4];
    renderer->GetWorldPoint(world);
    if (world[3] == 0.0) return std::nullopt;
    auto& point = end == 0 ? near_point : far_point;
    for (std::size_t k = 0; k < 3; ++k) point[k] = world[k] / world[3];
  }
  const std::array<double, 3> direction{far_point[0] - near_point[0], far_point[1] - near_point[1],
                                        far_point[2] - near_point[2]};
  std::optional<std::size_t> best;
  double best_t = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < self.layout.rack_count(); ++r) {
    const auto t = ray_box_entry(near_point, direction, self.lo_corner(r), self.hi_corner(r));
    if (t && *t < best_t) {
      best_t = *t;
      best = r;
    }
  }
  return best;
}

std::array<double, 2> HallScene::rack_display_position(std::size_t rack) const {
  auto& self = *impl_;
  const auto& p = self.layout.rack_position.at(rack);
  self.renderer->SetWorldPoint(p.x, p.y, p.z + self.drawn_size[2], 1.0);
  self.renderer->WorldToDisplay();
  double display[3];
  self.renderer->GetDisplayPoint(display);
  return {display[0], display[1]};
}

std::array<std::array<double, 2>, 8> HallScene::rack_display_corners(std::size_t rack) const {
  auto& self = *impl_;
  const auto lo = self.lo_corner(rack), hi = self.hi_corner(rack);
  std::array<std::array<double, 2>, 8> out{};
  for (std::size_t k = 0; k < 8; ++k) {
    self.renderer->SetWorldPoint((k & 1U) != 0U ? hi[0] : lo[0], (k & 2U) != 0U ? hi[1] : lo[1],
                                 (k & 4U) != 0U ? hi[2] : lo[2], 1.0);
    self.renderer->WorldToDisplay();
    double display[3];
    self.renderer->GetDisplayPoint(display);
    out[k] = {display[0], display[1]};
  }
  return out;
}

std::array<double, 3> HallScene::colour_of(double value) const {
  std::array<double, 3> rgb{};
  impl_->table->GetColor(value, rgb.data());
  return rgb;
}

}  // namespace dctwin::gui
