#include "application.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPainter>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <limits>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "charts_view.hpp"
#include "compare_view.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/units.hpp"
#include "hall_view.hpp"
#include "heat_map_view.hpp"
#include "main_window.hpp"
#include "rack_panel.hpp"
#include "schematic_view.hpp"
#include "validation_view.hpp"
#include "vtk_view.hpp"

namespace dctwin::gui {
namespace {

constexpr int exit_ok = 0;
constexpr int exit_usage = 64;
constexpr int exit_data = 65;
constexpr int exit_no_input = 66;
constexpr int exit_unavailable = 69;
constexpr int exit_cannot_create = 73;

/// Messages quote file names, options and report contents: control characters are shown as escapes.
void fail(const QString& message) {
  std::fprintf(stderr, "dctwin-gui: %s\n", dctwin::core::printable(message.toStdString()).c_str());
}

QString visible_gl_problem(QWidget& window) {
  for (auto* view : window.findChildren<VtkView*>()) {
    if (view->isVisible() && !view->gl_problem().isEmpty()) return view->gl_problem();
  }
  return {};
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

int benchmark(QApplication& app, MainWindow& window, int frames) {
  (void)app;
  HallView* hall = window.hall();
  if (hall->report() == nullptr) {
    fail(QStringLiteral("--benchmark needs a report"));
    return exit_usage;
  }
  window.show_view(MainWindow::View::hall);
  wait_for_frames(window, 30000);
  if (const QString problem = visible_gl_problem(window); !problem.isEmpty()) {
    fail(QStringLiteral("OpenGL unavailable: ") + problem);
    return exit_unavailable;
  }
  VtkView* view = hall->vtk_view();
  view->set_timing(true);
  auto measure = [&](auto&& change) {
    std::vector<double> render, whole;
    for (int i = 0; i < frames; ++i) {
      QElapsedTimer clock;
      clock.start();
      change(i);
      view->repaint();
      QApplication::processEvents();
      whole.push_back(static_cast<double>(clock.nsecsElapsed()) * 1e-6);
      render.push_back(view->last_frame_ms());
    }
    return std::make_pair(median(render), median(whole));
  };
  const auto rotate = measure([&](int) {
    hall->scene().rotate_camera(360.0 / frames);
  });
  const std::size_t samples = hall->report()->time().size();
  const auto step = measure([&](int i) { hall->set_time_index(static_cast<std::size_t>(i) % std::max<std::size_t>(samples, 1)); });
  const auto& layout = hall->report()->layout();
  std::printf("dctwin-gui benchmark: %zu racks, %zu GPUs, hall view %dx%d px, %d frames each\n",
              layout.rack_count(), layout.gpu_labels.size(), view->width(), view->height(), frames);
  std::printf("  orbit camera     : VTK render %.2f ms, whole frame %.2f ms (median; %.0f frames/s)\n",
              rotate.first, rotate.second, 1000.0 / std::max(rotate.second, 1e-3));
  std::printf("  change time step : VTK render %.2f ms, whole frame %.2f ms (median, incl. reading and reducing the field)\n",
              step.first, step.second);
  return exit_ok;
}

}  // namespace

int run_application(int argc, char** argv) {
  // The command line is read before the application starts: help, version and usage errors need
  // no display (a QApplication without one aborts).
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  QCommandLineParser parser;
  parser.setApplicationDescription("dctwin-gui: the desktop application of the dctwin digital twin.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A report (.h5) or a scenario (.yaml) to open.", "[REPORT|SCENARIO]");
  const QCommandLineOption screenshot({"s", "screenshot"}, "Render the window to a PNG FILE and exit.", "FILE");
  const QCommandLineOption view_option("view", "View for the screenshot: hall, charts, scenario, compare, validation, heatmap, schematic (default hall).", "VIEW", "hall");
  const QCommandLineOption pod_option("pod", "The pod whose cooling loop the schematic shows (default 0).", "N", "0");
  const QCommandLineOption field_option("field", "Field of the hall (path or name, e.g. junction_temperature), comma-separated series of the charts, or the quantity of the validation view.", "NAME");
  const QCommandLineOption spectrum_option("spectrum", "In the charts view, plot the spectra of the series (log frequency axis).");
  const QCommandLineOption gpu_option("gpu", "In the validation view, the trace GPU shown (index, default 0).", "N", "0");
  const QCommandLineOption time_option("time", "Time shown in the hall, in s or with a unit (\"10 min\"); default: the end.", "T");
  const QCommandLineOption reduction_option("reduction", "How GPU values make a rack's value: max, mean, count.", "HOW", "max");
  const QCommandLineOption rack_option("rack", "Select a rack (label or index) and open its panel.", "RACK");
  const QCommandLineOption camera_option("camera", "Camera preset: overview, top, front, side.", "PRESET", "overview");
  const QCommandLineOption compare_option("compare", "Compare the report with REPORT_B (difference with --view compare).", "REPORT_B");
  const QCommandLineOption difference_option("difference", "In the compare view, show A - B instead of side by side.");
  const QCommandLineOption size_option("size", "Window size for screenshots and the benchmark (default 1400x900).", "WxH", "1400x900");
  const QCommandLineOption browser_option("browser", "Keep the scenario browser in screenshots.");
  const QCommandLineOption kpi_option("kpi", "Keep the key figures panel in screenshots.");
  const QCommandLineOption range_option("range", "Colour range of the hall: run (the whole run, default), frame (the time shown) or LO:HI in display units.", "RANGE");
  const QCommandLineOption fly_option("fly-to", "Fly the camera to the rack of row N (1 = largest) of the hall's table of largest values.", "N");
  const QCommandLineOption hover_option("hover", "Show the tooltip of a rack (label or index) in the screenshot, as when the mouse rests on it.", "RACK");
  const QCommandLineOption order_option("order", "Rows of the heat map: racks by position (default) or by peak.", "ORDER", "position");
  const QCommandLineOption benchmark_option("benchmark", "Time N frames of the data hall and print the figures.", "N");
  const QCommandLineOption animate_option("animate", "Write the window at each sample as DIR/frame-0000.png, ... and DIR/frames.csv (the view, field and options as for --screenshot), then exit.", "DIR");
  const QCommandLineOption from_option("from", "First time of --animate, in s or with a unit (default: the first sample).", "T");
  const QCommandLineOption to_option("to", "Last time of --animate, in s or with a unit (default: the last sample).", "T");
  const QCommandLineOption frames_option("frames", "At most N frames for --animate (every k-th sample when the range holds more; default 200).", "N", "200");
  parser.addOptions({screenshot, pod_option, animate_option, from_option, to_option, frames_option, view_option, field_option, time_option, reduction_option, rack_option,
                     camera_option, compare_option, difference_option, size_option, browser_option, kpi_option,
                     benchmark_option, spectrum_option, gpu_option, range_option, fly_option, hover_option,
                     order_option});
  if (!parser.parse(arguments)) {
    fail(parser.errorText());
    return exit_usage;
  }
  if (parser.isSet("help")) {
    const QCoreApplication core(argc, argv);  // for the program's name in the usage line
    std::printf("%s", parser.helpText().toLocal8Bit().constData());
    return exit_ok;
  }
  if (parser.isSet("version")) {
    std::printf("dctwin-gui %s\n", DCTWIN_VERSION);
    return exit_ok;
  }
  const QStringList files = parser.positionalArguments();
  if (files.size() > 1) {
    fail(QStringLiteral("one file at a time (got %1)").arg(files.size()));
    return exit_usage;
  }
  const bool batch = parser.isSet(screenshot) || parser.isSet(benchmark_option) || parser.isSet(animate_option);
  if (batch && files.isEmpty()) {
    fail(QStringLiteral("--screenshot, --animate and --benchmark need a REPORT"));
    return exit_usage;
  }
  const QStringList size = parser.value(size_option).split('x');
  const int width = size.size() == 2 ? size[0].toInt() : 0;
  const int height = size.size() == 2 ? size[1].toInt() : 0;
  if (width < 200 || height < 150) {
    fail(QStringLiteral("--size %1: expected WIDTHxHEIGHT, at least 200x150").arg(parser.value(size_option)));
    return exit_usage;
  }

  VtkView::set_default_surface_format();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("dctwin");
  QApplication::setApplicationName("dctwin-gui");
  QApplication::setApplicationVersion(DCTWIN_VERSION);

  const QString gl_problem = VtkView::probe_opengl();
  if (!gl_problem.isEmpty()) {
    if (batch) {
      fail(QStringLiteral("OpenGL unavailable: ") + gl_problem);
      return exit_unavailable;
    }
    QMessageBox::warning(nullptr, "dctwin-gui",
                         QStringLiteral("OpenGL is unavailable: %1\n\nThe 3-D hall and the charts cannot be drawn; "
                                        "the scenario editor and runs still work.")
                             .arg(gl_problem));
  }

  MainWindow window;
  window.set_interactive(!batch);
  if (batch && !parser.isSet(browser_option)) window.set_browser_visible(false);
  if (batch && !parser.isSet(kpi_option)) window.set_kpi_visible(false);
  window.resize(width, height);
  if (!files.isEmpty()) {
    const QString& file = files.front();
    if (!QFileInfo::exists(file)) {
      fail(QStringLiteral("%1: no such file").arg(file));
      if (batch) return exit_no_input;
    } else if (!window.open_file(file) && batch) {
      // A report still being written is no error for the window (it waits), but a screenshot fails.
      fail(window.last_error().isEmpty() ? window.status_text() : window.last_error());
      return exit_data;
    }
  }

  // Options that set the views up.
  HallView* hall = window.hall();
  const QString view = !parser.isSet(view_option) && window.current_view() == MainWindow::View::validation
                           ? QStringLiteral("validation")
                           : parser.value(view_option);
  const QString how = parser.value(reduction_option);
  if (how != "max" && how != "mean" && how != "count") {
    fail(QStringLiteral("--reduction %1: expected max, mean or count").arg(how));
    return exit_usage;
  }
  if (view != "hall" && view != "charts" && view != "scenario" && view != "compare" && view != "validation" &&
      view != "heatmap" && view != "schematic") {
    fail(QStringLiteral("--view %1: expected hall, charts, scenario, compare, validation, heatmap or schematic").arg(view));
    return exit_usage;
  }
  if (parser.isSet(pod_option)) {
    bool number = false;
    const int pod = parser.value(pod_option).toInt(&number);
    const int pods = hall->report() != nullptr ? std::max(1, hall->report()->layout().pod_count()) : 1;
    if (!number || pod < 0 || pod >= pods) {
      fail(QStringLiteral("--pod %1: expected a pod from 0 to %2").arg(parser.value(pod_option)).arg(pods - 1));
      return exit_usage;
    }
    window.schematic()->set_pod(static_cast<std::size_t>(pod));
  }
  const QString order = parser.value(order_option);
  if (order != "position" && order != "peak") {
    fail(QStringLiteral("--order %1: expected position or peak").arg(order));
    return exit_usage;
  }
  window.heat_map()->set_order(order == "peak" ? RackOrder::peak : RackOrder::position);
  window.heat_map()->set_reduction(how == "mean" ? Reduction::mean : Reduction::max);
  hall->set_reduction(how == "mean" ? Reduction::mean : how == "count" ? Reduction::count_nonzero : Reduction::max);
  if (parser.isSet(spectrum_option)) window.charts()->set_mode(ChartsView::Mode::spectrum);
  if (view == "validation") {
    if (window.validation()->report() == nullptr) {
      fail(QStringLiteral("--view validation needs a report of `dctwin validate`"));
      return exit_usage;
    }
    bool number = false;
    const int gpu = parser.value(gpu_option).toInt(&number);
    const QString quantity = parser.isSet(field_option) ? parser.value(field_option) : window.validation()->quantity();
    if (!number || !window.validation()->select(quantity, gpu)) {
      QStringList names;
      for (const auto& q : window.validation()->report()->quantities()) names << QString::fromStdString(q.name);
      fail(QStringLiteral("--field %1 --gpu %2: no such quantity or GPU (quantities: %3; GPUs 0 to %4)")
               .arg(quantity, parser.value(gpu_option), names.join(", "))
               .arg(static_cast<int>(window.validation()->report()->gpu_labels().size()) - 1));
      return exit_usage;
    }
  } else if (parser.isSet(field_option)) {
    const QString field = parser.value(field_option);
    if (view == "charts") {
      if (window.charts()->set_checked(field.split(',', Qt::SkipEmptyParts)) == 0) {
        fail(QStringLiteral("--field %1: no such series (series: %2)").arg(field, window.charts()->available().join(", ")));
        return exit_usage;
      }
    } else if (view == "heatmap") {
      QString path = field;
      for (const auto& candidate : window.heat_map()->fields()) {
        if (candidate == field || candidate.endsWith("/" + field)) path = candidate;
      }
      if (!window.heat_map()->set_field(path)) {
        fail(QStringLiteral("--field %1: no such field in the report (fields: %2)").arg(field, window.heat_map()->fields().join(", ")));
        return exit_usage;
      }
    } else if (!hall->set_field(field)) {
      QStringList names;
      if (hall->report() != nullptr) {
        for (const auto& info : hall->report()->hall_fields()) names << QString::fromStdString(info.path);
      }
      fail(QStringLiteral("--field %1: no such field in the report (fields: %2)").arg(field, names.join(", ")));
      return exit_usage;
    }
  }
  if (hall->report() != nullptr && !hall->report()->time().empty()) {
    hall->set_time_index(hall->report()->time().size() - 1);
  }
  // A time option in s, or with a unit; nothing (and a message) when it does not read.
  auto seconds_of = [&](const QCommandLineOption& option) -> std::optional<double> {
    try {
      const auto quantity = io::parse_quantity(parser.value(option).toStdString());
      return quantity.unit.empty() ? quantity.number : io::convert(quantity.number, quantity.unit, "s");
    } catch (const std::exception& e) {
      fail(QStringLiteral("--%1 %2: %3").arg(option.names().front(), parser.value(option), QString::fromStdString(e.what())));
      return std::nullopt;
    }
  };
  if (parser.isSet(time_option)) {
    const auto seconds = seconds_of(time_option);
    if (!seconds) return exit_usage;
    hall->set_time(*seconds);
    window.compare()->set_time(*seconds);
  }
  // The animation's range and frames, checked before anything is drawn.
  double animate_from = -std::numeric_limits<double>::infinity(), animate_to = std::numeric_limits<double>::infinity();
  std::size_t animate_frames = MainWindow::animation_frames_default;
  if (parser.isSet(animate_option)) {
    for (const auto& [option, value] : {std::pair{&from_option, &animate_from}, std::pair{&to_option, &animate_to}}) {
      if (!parser.isSet(*option)) continue;
      const auto seconds = seconds_of(*option);
      if (!seconds) return exit_usage;
      *value = *seconds;
    }
    bool number = false;
    const int frames = parser.value(frames_option).toInt(&number);
    if (!number || frames < 1) {
      fail(QStringLiteral("--frames %1: expected a number of frames of at least 1").arg(parser.value(frames_option)));
      return exit_usage;
    }
    animate_frames = static_cast<std::size_t>(frames);
  }
  if (parser.isSet(rack_option) && hall->report() != nullptr) {
    const QString rack = parser.value(rack_option);
    const auto& labels = hall->report()->layout().rack_labels;
    std::optional<std::size_t> index;
    for (std::size_t r = 0; r < labels.size(); ++r) {
      if (QString::fromStdString(labels[r]) == rack) index = r;
    }
    bool number = false;
    const int n = rack.toInt(&number);
    if (!index && number && n >= 0 && static_cast<std::size_t>(n) < labels.size()) index = static_cast<std::size_t>(n);
    if (!index) {
      fail(QStringLiteral("--rack %1: no such rack").arg(rack));
      return exit_usage;
    }
    hall->select_rack(index);
  }
  // Rack by label or index.
  auto find_rack = [&](const QString& rack) -> std::optional<std::size_t> {
    if (hall->report() == nullptr) return std::nullopt;
    const auto& labels = hall->report()->layout().rack_labels;
    for (std::size_t r = 0; r < labels.size(); ++r) {
      if (QString::fromStdString(labels[r]) == rack) return r;
    }
    bool number = false;
    const int n = rack.toInt(&number);
    if (number && n >= 0 && static_cast<std::size_t>(n) < labels.size()) return static_cast<std::size_t>(n);
    return std::nullopt;
  };
  if (parser.isSet(range_option)) {
    const QString range = parser.value(range_option);
    const QStringList limits = range.split(':');
    bool lo_ok = false, hi_ok = false;
    if (range == "run") {
      hall->set_range_mode(HallView::RangeMode::run);
    } else if (range == "frame") {
      hall->set_range_mode(HallView::RangeMode::frame);
    } else if (limits.size() == 2 && (limits[0].toDouble(&lo_ok), lo_ok) && (limits[1].toDouble(&hi_ok), hi_ok) &&
               limits[1].toDouble() > limits[0].toDouble()) {
      hall->set_limits(limits[0].toDouble(), limits[1].toDouble());
    } else {
      fail(QStringLiteral("--range %1: expected run, frame or LO:HI with LO < HI").arg(range));
      return exit_usage;
    }
  }
  const QString camera = parser.value(camera_option);
  const CameraPreset preset = camera == "top" ? CameraPreset::top : camera == "front" ? CameraPreset::front
                              : camera == "side" ? CameraPreset::side : CameraPreset::overview;
  hall->apply_camera(preset);
  if (parser.isSet(fly_option)) {
    bool number = false;
    const int row = parser.value(fly_option).toInt(&number);
    if (!number || row < 1 || static_cast<std::size_t>(row) > hall->top_entries().size()) {
      fail(QStringLiteral("--fly-to %1: expected a row from 1 to %2").arg(parser.value(fly_option)).arg(hall->top_entries().size()));
      return exit_usage;
    }
    window.show();  // the camera is framed for the view's size first
    wait_for_frames(window, 30000);
    hall->fly_to_top(row - 1);
  }
  std::optional<std::size_t> hover_rack;
  if (parser.isSet(hover_option)) {
    hover_rack = find_rack(parser.value(hover_option));
    if (!hover_rack) {
      fail(QStringLiteral("--hover %1: no such rack").arg(parser.value(hover_option)));
      return exit_usage;
    }
  }
  if (parser.isSet(compare_option)) {
    if (!window.compare_with(parser.value(compare_option)) && batch) {
      fail(window.last_error());
      return exit_data;
    }
    if (parser.isSet(field_option)) window.compare()->set_field(parser.value(field_option));
    if (hall->report() != nullptr && !hall->report()->time().empty()) window.compare()->set_time(hall->time());
    if (parser.isSet(difference_option)) window.compare()->set_mode(CompareView::Mode::difference);
  }
  const MainWindow::View shown = view == "charts" ? MainWindow::View::charts
                                 : view == "scenario" ? MainWindow::View::scenario
                                 : view == "compare" ? MainWindow::View::compare
                                 : view == "validation" ? MainWindow::View::validation
                                 : view == "heatmap"    ? MainWindow::View::heat_map
                                 : view == "schematic"  ? MainWindow::View::schematic
                                                        : MainWindow::View::hall;
  if (batch || parser.isSet(view_option)) window.show_view(shown);
  window.show();

  // A part of the report that could not be read while the views were set up (a corrupt chunk).
  if (batch && !window.last_error().isEmpty()) {
    fail(window.last_error());
    return exit_data;
  }
  if (parser.isSet(benchmark_option)) {
    bool ok = false;
    const int frames = parser.value(benchmark_option).toInt(&ok);
    if (!ok || frames < 1) {
      fail(QStringLiteral("--benchmark %1: expected a number of frames").arg(parser.value(benchmark_option)));
      return exit_usage;
    }
    return benchmark(app, window, frames);
  }
  if (parser.isSet(animate_option)) {
    const QString directory = parser.value(animate_option);
    try {
      const std::size_t written = window.export_animation(directory, animate_from, animate_to, animate_frames);
      std::printf("dctwin-gui: %zu frames in %s (frames.csv lists their times)\n", written,
                  dctwin::core::printable(directory.toStdString()).c_str());
    } catch (const std::invalid_argument& e) {
      fail(QStringLiteral("--animate %1: %2").arg(directory, QString::fromStdString(e.what())));
      return exit_usage;
    } catch (const std::exception& e) {
      fail(QStringLiteral("--animate %1: %2").arg(directory, QString::fromStdString(e.what())));
      return exit_cannot_create;
    }
    if (const QString problem = visible_gl_problem(window); !problem.isEmpty()) {
      fail(QStringLiteral("OpenGL unavailable: ") + problem);
      return exit_unavailable;
    }
    return exit_ok;
  }
  if (parser.isSet(screenshot)) {
    wait_for_frames(window, 30000);
    QImage image = window.grab().toImage();
    if (hover_rack) {
      // The rack's tooltip, drawn into the screenshot where Qt shows it (below right of the
      // pointer) in the tooltip's palette and font: a tooltip is a window of its own, which a grab
      // of the main window does not hold.
      const QPoint at = hall->rack_position_in_view(*hover_rack) + QPoint(0, 2);
      const QString text = hall->tooltip_at(at);
      if (!text.isEmpty()) {
        QLabel tip(text);
        tip.setPalette(QToolTip::palette());
        tip.setFont(QToolTip::font());
        tip.setAutoFillBackground(true);
        tip.setFrameStyle(QFrame::Box | QFrame::Plain);
        tip.setMargin(4);
        tip.adjustSize();
        QPainter painter(&image);
        painter.drawPixmap(hall->vtk_view()->mapTo(&window, at) + QPoint(12, 18), tip.grab());
      }
    }
    const QString problem = visible_gl_problem(window);
    if (!image.save(parser.value(screenshot), "PNG")) {
      fail(QStringLiteral("%1: cannot write the screenshot").arg(parser.value(screenshot)));
      return exit_cannot_create;
    }
    if (!problem.isEmpty()) {
      fail(QStringLiteral("OpenGL unavailable: ") + problem);
      return exit_unavailable;
    }
    return exit_ok;
  }
  return QApplication::exec();
}

}  // namespace dctwin::gui
