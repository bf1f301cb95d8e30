// The bridge between Qt 6 and VTK: a QOpenGLWidget that owns the OpenGL context and lets a
// vtkGenericOpenGLRenderWindow render into it.
//
// How it works: VTK renders only inside paintGL (the render window is "ready for rendering" only
// there), into its own framebuffer, and blits the result to the framebuffer Qt has bound for the
// widget (blit-to-current). VTK's requests to make its context current or to know whether it is
// current are answered through the widget's QOpenGLContext. Render requests from VTK (interactor
// styles, charts) become QWidget::update(). Qt's mouse and wheel events are forwarded to a
// vtkGenericRenderWindowInteractor in VTK's display coordinates, and VTK's timers run on QTimers.
//
// When OpenGL is unusable (no context, or older than 3.2 core), the widget shows the reason
// instead of rendering: see `gl_problem()` and `probe_opengl()`.
#pragma once

#include <QOpenGLWidget>
#include <QString>

#include <memory>

class vtkGenericOpenGLRenderWindow;
class vtkObject;
class vtkRenderWindowInteractor;

namespace dctwin::gui {

class VtkView : public QOpenGLWidget {
  Q_OBJECT

 public:
  explicit VtkView(QWidget* parent = nullptr);
  ~VtkView() override;

  [[nodiscard]] vtkGenericOpenGLRenderWindow* render_window() const;
  [[nodiscard]] vtkRenderWindowInteractor* interactor() const;

  /// Why this view cannot render (empty while it can, or before it was first shown).
  [[nodiscard]] const QString& gl_problem() const;
  /// Duration of the last VTK render in paintGL, including glFinish when `set_timing(true)` [ms].
  [[nodiscard]] double last_frame_ms() const;
  void set_timing(bool finish_each_frame);

  /// Creates a context with the default surface format and checks that it provides OpenGL 3.2
  /// or newer; returns the problem in words, or an empty string when OpenGL is usable.
  static QString probe_opengl();
  /// The surface format VTK needs (OpenGL 3.2 core, depth and stencil, no multisampling); set
  /// as the default before the QApplication is created.
  static void set_default_surface_format();

 Q_SIGNALS:
  /// A left click without dragging, in widget coordinates.
  void clicked(QPoint position);
  /// The mouse moved over the view with no button pressed, in widget coordinates (for tooltips).
  void hovered(QPoint position);
  /// A frame was rendered (after paintGL).
  void frame_rendered();

 protected:
  void initializeGL() override;
  void paintGL() override;
  void resizeGL(int w, int h) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void enterEvent(QEnterEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  void vtk_event(vtkObject* caller, unsigned long event, void* call_data);
  void forward_mouse(QMouseEvent* event, unsigned long vtk_event, bool repeat = false);
  void release_graphics();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Waits until every visible VTK view inside `window` has rendered once (or cannot render), at
/// most `ms`, then lets pending events run.
void wait_for_frames(QWidget& window, int ms);

}  // namespace dctwin::gui
