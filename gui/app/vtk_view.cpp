#include "vtk_view.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QSurfaceFormat>
#include <QTimer>
#include <QWheelEvent>

#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkOpenGLState.h>

#include <cmath>
#include <map>
#include <vector>

namespace dctwin::gui {

struct VtkView::Impl {
  vtkNew<vtkGenericOpenGLRenderWindow> window;
  vtkNew<vtkGenericRenderWindowInteractor> interactor;
  QString problem;
  bool initialized = false;
  bool timing = false;
  double frame_ms = 0.0;
  QPointF press_position;
  bool dragged = false;
  std::map<int, QTimer*> timers;  ///< by the platform id given to VTK
  int next_timer = 1;
};

VtkView::VtkView(QWidget* parent) : QOpenGLWidget(parent), impl_(std::make_unique<Impl>()) {
  auto& self = *impl_;
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(120, 90);

  self.window->SetReadyForRendering(false);  // rendering happens in paintGL only
  self.window->SetMultiSamples(0);
  self.window->SetFrameBlitModeToBlitToCurrent();
  self.window->SetSwapBuffers(true);  // the blit happens in Frame() only with swap-buffers on
  self.window->SetInteractor(self.interactor);
  self.interactor->SetRenderWindow(self.window);
  self.interactor->EnableRenderOff();  // a render request becomes update() (RenderEvent below)
  self.interactor->TimerEventResetsTimerOff();
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  self.interactor->SetInteractorStyle(style);

  for (const unsigned long event :
       {static_cast<unsigned long>(vtkCommand::WindowMakeCurrentEvent),
        static_cast<unsigned long>(vtkCommand::WindowIsCurrentEvent),
        static_cast<unsigned long>(vtkCommand::WindowSupportsOpenGLEvent),
        static_cast<unsigned long>(vtkCommand::WindowIsDirectEvent)}) {
    self.window->AddObserver(event, this, &VtkView::vtk_event);
  }
  for (const unsigned long event : {static_cast<unsigned long>(vtkCommand::RenderEvent),
                                    static_cast<unsigned long>(vtkCommand::CreateTimerEvent),
                                    static_cast<unsigned long>(vtkCommand::DestroyTimerEvent)}) {
    self.interactor->AddObserver(event, this, &VtkView::vtk_event);
  }
}

VtkView::~VtkView() {
  release_graphics();
  impl_->window->RemoveObservers(vtkCommand::WindowMakeCurrentEvent);
  impl_->window->RemoveObservers(vtkCommand::WindowIsCurrentEvent);
  impl_->window->RemoveObservers(vtkCommand::WindowSupportsOpenGLEvent);
  impl_->window->RemoveObservers(vtkCommand::WindowIsDirectEvent);
  impl_->interactor->RemoveAllObservers();
}

vtkGenericOpenGLRenderWindow* VtkView::render_window() const { return impl_->window; }
vtkRenderWindowInteractor* VtkView::interactor() const { return impl_->interactor; }
const QString& VtkView::gl_problem() const { return impl_->problem; }
double VtkView::last_frame_ms() const { return impl_->frame_ms; }
void VtkView::set_timing(bool finish_each_frame) { impl_->timing = finish_each_frame; }

void VtkView::set_default_surface_format() {
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
  format.setRedBufferSize(8);
  format.setGreenBufferSize(8);
  format.setBlueBufferSize(8);
  format.setAlphaBufferSize(8);
  format.setDepthBufferSize(24);
  format.setStencilBufferSize(8);
  format.setSamples(0);
  format.setStereo(false);
  QSurfaceFormat::setDefaultFormat(format);
}

QString VtkView::probe_opengl() {
  QOpenGLContext context;
  context.setFormat(QSurfaceFormat::defaultFormat());
  if (!context.create()) {
    return QStringLiteral("no OpenGL context could be created (no display, or no OpenGL driver)");
  }
  QOffscreenSurface surface;
  surface.setFormat(context.format());
  surface.create();
  if (!surface.isValid() || !context.makeCurrent(&surface)) {
    return QStringLiteral("an OpenGL context was created but cannot be made current");
  }
  const auto version = context.format().version();
  const auto* text = reinterpret_cast<const char*>(context.functions()->glGetString(GL_VERSION));
  const QString description = text != nullptr ? QString::fromLatin1(text) : QStringLiteral("unknown");
  context.doneCurrent();
  if (context.isOpenGLES()) return QStringLiteral("OpenGL ES (%1) is not supported; OpenGL 3.2 is needed").arg(description);
  if (version < qMakePair(3, 2)) {
    return QStringLiteral("OpenGL %1.%2 (%3) is too old; OpenGL 3.2 or newer is needed")
        .arg(version.first)
        .arg(version.second)
        .arg(description);
  }
  return {};
}

void VtkView::vtk_event(vtkObject*, unsigned long event, void* call_data) {
  auto& self = *impl_;
  switch (event) {
    case vtkCommand::WindowMakeCurrentEvent:
      // Through the context, not QOpenGLWidget::makeCurrent(), which would rebind Qt's framebuffer.
      if (context() != nullptr && QOpenGLContext::currentContext() != context()) {
        context()->makeCurrent(context()->surface());
      }
      break;
    case vtkCommand::WindowIsCurrentEvent:
      *static_cast<bool*>(call_data) = context() != nullptr && QOpenGLContext::currentContext() == context();
      break;
    case vtkCommand::WindowSupportsOpenGLEvent:
      *static_cast<int*>(call_data) = self.problem.isEmpty() ? 1 : 0;
      break;
    case vtkCommand::WindowIsDirectEvent: *static_cast<int*>(call_data) = 1; break;
    case vtkCommand::RenderEvent: update(); break;
    case vtkCommand::CreateTimerEvent: {
      const int vtk_id = self.interactor->GetTimerEventId();
      const int platform_id = self.next_timer++;
      auto* timer = new QTimer(this);
      timer->setSingleShot(self.interactor->GetTimerEventType() == vtkRenderWindowInteractor::OneShotTimer);
      timer->setInterval(static_cast<int>(self.interactor->GetTimerEventDuration()));
      connect(timer, &QTimer::timeout, this, [this, vtk_id] {
        int id = vtk_id;
        impl_->interactor->SetTimerEventId(id);
        impl_->interactor->InvokeEvent(vtkCommand::TimerEvent, &id);
        update();
      });
      self.timers[platform_id] = timer;
      self.interactor->SetTimerEventPlatformId(platform_id);
      timer->start();
      break;
    }
    case vtkCommand::DestroyTimerEvent: {
      const int platform_id = call_data != nullptr ? *static_cast<int*>(call_data) : self.interactor->GetTimerEventPlatformId();
      if (const auto it = self.timers.find(platform_id); it != self.timers.end()) {
        it->second->stop();
        it->second->deleteLater();
        self.timers.erase(it);
      }
      break;
    }
    default: break;
  }
}

void VtkView::initializeGL() {
  auto& self = *impl_;
  QOpenGLContext* gl = context();
  if (gl == nullptr || !gl->isValid()) {
    self.problem = QStringLiteral("no OpenGL context could be created for the view");
    return;
  }
  connect(gl, &QOpenGLContext::aboutToBeDestroyed, this, &VtkView::release_graphics, Qt::DirectConnection);
  const auto version = gl->format().version();
  if (gl->isOpenGLES() || version < qMakePair(3, 2)) {
    self.problem = QStringLiteral("OpenGL %1.%2 is too old; OpenGL 3.2 or newer is needed")
                       .arg(version.first)
                       .arg(version.second);
    return;
  }
  self.window->SetReadyForRendering(true);
  const bool ok = self.window->InitializeFromCurrentContext();
  self.window->SetReadyForRendering(false);
  if (!ok) {
    self.problem = QStringLiteral("VTK could not initialise OpenGL in this context");
    return;
  }
  self.window->SetMapped(1);
  self.window->SetIsCurrent(true);
  self.initialized = true;
  self.interactor->Initialize();
}

void VtkView::release_graphics() {
  auto& self = *impl_;
  if (!self.initialized || context() == nullptr) return;
  makeCurrent();
  self.window->SetReadyForRendering(true);
  self.window->Finalize();
  self.window->SetReadyForRendering(false);
  doneCurrent();
  self.initialized = false;
}

void VtkView::resizeGL(int w, int h) {
  const double ratio = devicePixelRatioF();
  const int width = static_cast<int>(std::lround(w * ratio));
  const int height = static_cast<int>(std::lround(h * ratio));
  impl_->window->SetSize(width, height);
  impl_->interactor->SetSize(width, height);
}

void VtkView::paintGL() {
  auto& self = *impl_;
  if (!self.initialized) {
    QPainter painter(this);
    painter.fillRect(rect(), QColor(38, 40, 48));
    painter.setPen(QColor(235, 235, 235));
    const QString text = self.problem.isEmpty() ? QStringLiteral("The 3-D view is not ready.")
                                                : QStringLiteral("The 3-D view is unavailable: ") + self.problem;
    painter.drawText(rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, text);
    return;
  }
  const double ratio = devicePixelRatioF();
  const int width = static_cast<int>(std::lround(this->width() * ratio));
  const int height = static_cast<int>(std::lround(this->height() * ratio));
  if (width <= 0 || height <= 0) return;
  self.window->SetSize(width, height);
  self.interactor->SetSize(width, height);

  QElapsedTimer clock;
  clock.start();
  self.window->SetReadyForRendering(true);
  vtkOpenGLState* state = self.window->GetState();
  state->Reset();  // Qt may have changed GL state since the last frame
  state->Push();
  self.window->Render();
  state->Pop();
  self.window->SetReadyForRendering(false);
  QOpenGLFunctions* gl = context()->functions();
  if (self.timing) gl->glFinish();
  self.frame_ms = static_cast<double>(clock.nsecsElapsed()) * 1e-6;

  // The window is composed as an opaque image: VTK may leave alpha below 1.
  gl->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  gl->glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  gl->glClear(GL_COLOR_BUFFER_BIT);
  gl->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  Q_EMIT frame_rendered();
}

void VtkView::forward_mouse(QMouseEvent* event, unsigned long vtk_event, bool repeat) {
  auto& self = *impl_;
  const double ratio = devicePixelRatioF();
  const QPointF position = event->position();
  const auto modifiers = event->modifiers();
  self.interactor->SetEventInformationFlipY(static_cast<int>(std::lround(position.x() * ratio)),
                                            static_cast<int>(std::lround(position.y() * ratio)),
                                            (modifiers & Qt::ControlModifier) ? 1 : 0,
                                            (modifiers & Qt::ShiftModifier) ? 1 : 0, 0, repeat ? 1 : 0);
  self.interactor->SetAltKey((modifiers & Qt::AltModifier) ? 1 : 0);
  if (self.initialized) self.interactor->InvokeEvent(vtk_event, event);
  update();
}

namespace {
unsigned long press_event(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton: return vtkCommand::LeftButtonPressEvent;
    case Qt::MiddleButton: return vtkCommand::MiddleButtonPressEvent;
    case Qt::RightButton: return vtkCommand::RightButtonPressEvent;
    default: return vtkCommand::NoEvent;
  }
}
unsigned long release_event(Qt::MouseButton button) {
  switch (button) {
    case Qt::LeftButton: return vtkCommand::LeftButtonReleaseEvent;
    case Qt::MiddleButton: return vtkCommand::MiddleButtonReleaseEvent;
    case Qt::RightButton: return vtkCommand::RightButtonReleaseEvent;
    default: return vtkCommand::NoEvent;
  }
}
}  // namespace

void VtkView::mousePressEvent(QMouseEvent* event) {
  impl_->press_position = event->position();
  impl_->dragged = false;
  if (const auto vtk_event = press_event(event->button()); vtk_event != vtkCommand::NoEvent) {
    forward_mouse(event, vtk_event);
  }
}

void VtkView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (const auto vtk_event = press_event(event->button()); vtk_event != vtkCommand::NoEvent) {
    forward_mouse(event, vtk_event, true);
  }
}

void VtkView::mouseReleaseEvent(QMouseEvent* event) {
  if (const auto vtk_event = release_event(event->button()); vtk_event != vtkCommand::NoEvent) {
    forward_mouse(event, vtk_event);
  }
  if (event->button() == Qt::LeftButton && !impl_->dragged) {
    Q_EMIT clicked(event->position().toPoint());
  }
}

void VtkView::mouseMoveEvent(QMouseEvent* event) {
  if ((event->position() - impl_->press_position).manhattanLength() > 4.0) impl_->dragged = true;
  forward_mouse(event, vtkCommand::MouseMoveEvent);
  if (event->buttons() == Qt::NoButton) Q_EMIT hovered(event->position().toPoint());
}

void VtkView::wheelEvent(QWheelEvent* event) {
  auto& self = *impl_;
  const double ratio = devicePixelRatioF();
  const QPointF position = event->position();
  self.interactor->SetEventInformationFlipY(static_cast<int>(std::lround(position.x() * ratio)),
                                            static_cast<int>(std::lround(position.y() * ratio)),
                                            (event->modifiers() & Qt::ControlModifier) ? 1 : 0,
                                            (event->modifiers() & Qt::ShiftModifier) ? 1 : 0);
  const int delta = event->angleDelta().y();
  if (self.initialized && delta != 0) {
    self.interactor->InvokeEvent(delta > 0 ? vtkCommand::MouseWheelForwardEvent
                                           : vtkCommand::MouseWheelBackwardEvent,
                                 event);
  }
  event->accept();
  update();
}

void VtkView::enterEvent(QEnterEvent* event) {
  if (impl_->initialized) impl_->interactor->InvokeEvent(vtkCommand::EnterEvent, event);
  QOpenGLWidget::enterEvent(event);
}

void VtkView::leaveEvent(QEvent* event) {
  if (impl_->initialized) impl_->interactor->InvokeEvent(vtkCommand::LeaveEvent, event);
  QOpenGLWidget::leaveEvent(event);
}

void wait_for_frames(QWidget& window, int ms) {
  QElapsedTimer clock;
  clock.start();
  auto views = window.findChildren<VtkView*>();
  std::vector<int> frames(static_cast<std::size_t>(views.size()), 0);
  std::vector<QMetaObject::Connection> connections;
  for (qsizetype i = 0; i < views.size(); ++i) {
    connections.push_back(QObject::connect(views[i], &VtkView::frame_rendered, [&frames, i] {
      ++frames[static_cast<std::size_t>(i)];
    }));
    views[i]->update();
  }
  auto pending = [&] {
    for (qsizetype i = 0; i < views.size(); ++i) {
      if (views[i]->isVisible() && views[i]->gl_problem().isEmpty() && frames[static_cast<std::size_t>(i)] == 0) return true;
    }
    return false;
  };
  while (pending() && clock.elapsed() < ms) QApplication::processEvents(QEventLoop::AllEvents, 20);
  for (int k = 0; k < 5; ++k) QApplication::processEvents(QEventLoop::AllEvents, 20);
  for (auto& connection : connections) QObject::disconnect(connection);
}

}  // namespace dctwin::gui
