// dctwin-gui: report access, the data hall driven as a user would (QTest), charts, comparison,
// the scenario editor against the CLI's messages, runs with cancel, a screenshot against its
// baseline, and the message when OpenGL is unusable.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "charts_view.hpp"
#include "compare_view.hpp"
#include "dctwin/gui/chart_scene.hpp"
#include "dctwin/gui/hall_scene.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/scenario_form.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/models/facility/site.hpp"
#include "facility_report.hpp"
#include "gui_test.hpp"
#include "hall_view.hpp"
#include "main_window.hpp"
#include "rack_panel.hpp"
#include "scenario_editor.hpp"
#include "vtk_view.hpp"

namespace fs = std::filesystem;
using namespace dctwin::gui;
using dctwin::gui::testing::app;

namespace {

const fs::path work_dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "gui" / "work";

/// A synthetic report written once per test process: "small" is 2 pods x 24 racks (768 GPUs),
/// "facility" the full 8 x 192 racks (24,576 GPUs), "small-hot" = "small" with pod... (no pod 2),
/// so its difference comes from a changed supply offset instead.
fs::path fixture(const std::string& name) {
  static std::map<std::string, fs::path> written;
  if (const auto it = written.find(name); it != written.end()) return it->second;
  fs::create_directories(work_dir);
  const fs::path path = work_dir / (name + ".h5");
  dctwin::gui::testing::FacilityReportOptions options;
  if (name == "small" || name == "small-hot") {
    options.pods = 3;
    options.racks_per_pod = 24;
    options.racks_per_row = 8;
    options.samples = 11;
    options.pod2_offset = name == "small-hot" ? 5.0 : 0.0;
  }
  dctwin::gui::testing::write_facility_report(path, options);
  written[name] = path;
  return path;
}

/// Renders a view now and returns its image.
QImage render(VtkView* view) {
  QApplication::processEvents();
  return view->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

/// Shows a window and waits until `view` has rendered once.
void show_and_wait(QWidget& window, VtkView* view) {
  QSignalSpy frames(view, &VtkView::frame_rendered);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window, 10000));
  if (frames.isEmpty()) frames.wait(10000);
  REQUIRE(view->gl_problem().isEmpty());
}

std::size_t distinct_colours(const QImage& image) {
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colours.insert(image.pixel(x, y) & 0xF8F8F8u);
  }
  return colours.size();
}

/// Fraction of pixels whose colour differs by more than `threshold` in some channel.
double fraction_changed(const QImage& a, const QImage& b, int threshold = 24) {
  REQUIRE(a.size() == b.size());
  std::size_t changed = 0;
  for (int y = 0; y < a.height(); ++y) {
    for (int x = 0; x < a.width(); ++x) {
      const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
      if (std::abs(qRed(p) - qRed(q)) > threshold || std::abs(qGreen(p) - qGreen(q)) > threshold ||
          std::abs(qBlue(p) - qBlue(q)) > threshold) {
        ++changed;
      }
    }
  }
  return static_cast<double>(changed) / (a.width() * a.height());
}

/// Number of pixels in the rectangle within `tolerance` of colour `rgb` (components in [0, 1]).
int pixels_near(const QImage& image, QRect area, const std::array<double, 3>& rgb, int tolerance = 28) {
  int count = 0;
  area = area.intersected(image.rect());
  for (int y = area.top(); y <= area.bottom(); ++y) {
    for (int x = area.left(); x <= area.right(); ++x) {
      const QRgb p = image.pixel(x, y);
      if (std::abs(qRed(p) - static_cast<int>(rgb[0] * 255)) <= tolerance &&
          std::abs(qGreen(p) - static_cast<int>(rgb[1] * 255)) <= tolerance &&
          std::abs(qBlue(p) - static_cast<int>(rgb[2] * 255)) <= tolerance) {
        ++count;
      }
    }
  }
  return count;
}

struct ProcessResult {
  int exit_code = -1;
  QString out, err;
};

ProcessResult run_process(const QString& program, const QStringList& arguments,
                          const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
  QProcess process;
  process.setProcessEnvironment(environment);
  process.start(program, arguments);
  REQUIRE(process.waitForStarted(10000));
  REQUIRE(process.waitForFinished(300000));
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromLocal8Bit(process.readAllStandardOutput()),
          QString::fromLocal8Bit(process.readAllStandardError())};
}

}  // namespace

TEST_CASE("report model: fields, layout and per-rack reductions of a facility report", "[model]") {
  const ReportModel report(fixture("small"));
  const auto& layout = report.layout();
  CHECK(layout.from_report);
  CHECK(layout.rack_count() == 72);
  CHECK(layout.pod_count() == 3);
  CHECK(layout.gpu_labels.size() == 72 * 16);
  CHECK(layout.rack_labels[25] == "pod1/rack001");
  CHECK(layout.rack_gpus[25].size() == 16);
  CHECK(layout.gpu_labels[layout.rack_gpus[25][3]] == "pod1/rack001/server0/gpu3");
  CHECK(layout.rack_size.z == Approx(2.2));

  std::set<std::string> fields;
  for (const auto& f : report.hall_fields()) fields.insert(f.path + ":" + f.entity);
  CHECK(fields == std::set<std::string>{"/gpu/junction_temperature:gpu", "/gpu/power:gpu",
                                        "/gpu/throttle_reasons:gpu",
                                        "/rack/coolant_supply_temperature:rack",
                                        "/rack/coolant_return_temperature:rack",
                                        "/rack/door_outlet_air_temperature:rack"});
  CHECK(report.find_field("throttle_reasons")->bitmask);
  CHECK_FALSE(report.find_field("power")->bitmask);
  CHECK(report.series().size() == 4);
  CHECK(report.default_field()->path == "/gpu/junction_temperature");

  // Max and mean per rack against the raw GPU row.
  const auto* tj = report.find_field("/gpu/junction_temperature");
  const std::size_t t = 7;
  const auto row = report.entity_row(*tj, t);
  const auto& max = report.rack_values(*tj, Reduction::max, t);
  const auto& mean = report.rack_values(*tj, Reduction::mean, t);
  for (const std::size_t rack : {std::size_t{0}, std::size_t{25}, std::size_t{71}}) {
    double expected_max = -1e300, sum = 0;
    for (const auto g : layout.rack_gpus[rack]) {
      expected_max = std::max(expected_max, row[g]);
      sum += row[g];
    }
    CHECK(max[rack] == expected_max);
    CHECK(mean[rack] == Approx(sum / 16));
  }
  // Column reads agree with rows.
  const std::size_t gpus[] = {layout.rack_gpus[25][0], layout.rack_gpus[25][15]};
  const auto columns = report.entity_series(*tj, gpus);
  CHECK(columns[1][t] == row[gpus[1]]);
  const auto [lo, hi] = report.rack_value_range(*tj, Reduction::max);
  CHECK(lo < hi);
  CHECK(report.time_index(95.0) == 3);  // samples every 30 s: 90 s is nearest
  const auto presentation = present_field(*tj, Reduction::max, hi);
  CHECK(presentation.unit.unit == "degC");
  CHECK(presentation.title == "GPU junction temperature\nmax per rack [degC]");
  CHECK(present_field(*report.find_field("throttle_reasons"), Reduction::max, 4).unit.unit == "GPUs");
}

TEST_CASE("report model: a report without layout is one rack holding its GPUs", "[model]") {
  const fs::path path = work_dir / "single-server.h5";
  fs::create_directories(work_dir);
  {
    dctwin::io::ReportLayout layout;
    layout.scenario_name = "single-node";
    dctwin::solver::EntityTable gpus{"gpu", {}};
    for (int g = 0; g < 8; ++g) gpus.labels.push_back("server0/gpu" + std::to_string(g));
    layout.entities = {gpus};
    layout.outputs = {{{"gpu", "junction_temperature", "K", "GPU junction temperature", "gpu", 8}, 0},
                      {{"coolant", "return_temperature", "K", "Coolant return temperature", "", 1}, 8}};
    dctwin::io::ReportWriter writer(path, layout);
    for (int k = 0; k < 5; ++k) {
      std::vector<double> values(9);
      for (int g = 0; g < 8; ++g) values[std::size_t(g)] = 320.0 + g + k;
      values[8] = 310.0 + k;
      writer.append_sample(k * 1.0, values);
    }
    writer.finish({}, {});
  }
  const ReportModel report(path);
  CHECK_FALSE(report.layout().from_report);
  REQUIRE(report.layout().rack_count() == 1);
  CHECK(report.layout().rack_labels[0] == "single-node");
  CHECK(report.layout().rack_gpus[0].size() == 8);
  const auto* tj = report.default_field();
  REQUIRE(tj != nullptr);
  CHECK(report.rack_values(*tj, Reduction::max, 2)[0] == 329.0);
  CHECK(report.rack_values(*tj, Reduction::mean, 2)[0] == Approx(325.5));
  CHECK(report.rack_values(*tj, Reduction::count_nonzero, 2)[0] == 8.0);
  CHECK(report.aggregate_series(*tj, Reduction::max)[4] == 331.0);
}

TEST_CASE("ray-box picking geometry", "[model]") {
  const std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 2};
  CHECK(ray_box_entry({-1, 0.5, 1}, {1, 0, 0}, lo, hi).value() == Approx(1.0));
  CHECK_FALSE(ray_box_entry({-1, 1.5, 1}, {1, 0, 0}, lo, hi).has_value());
  CHECK_FALSE(ray_box_entry({2, 0.5, 1}, {1, 0, 0}, lo, hi).has_value());  // box behind the ray
  CHECK(ray_box_entry({0.5, 0.5, 10}, {0, 0, -2}, lo, hi).value() == Approx(4.0));
}

TEST_CASE("chart CSV has units in the header and one row per sample", "[model]") {
  const std::string csv = chart_csv({0, 1.5}, "time [min]", {{"Coolant return temperature", "degC", {40.0, 41.25}, false},
                                                             {"MFU, a, b", "1", {0.4, NAN}, true}});
  CHECK(csv == "time [min],Coolant return temperature [degC],\"MFU, a, b\"\n0,40,0.4\n1.5,41.25,\n");
}

TEST_CASE("hall: open a report, choose a field, move the time slider, pick a rack", "[gl]") {
  app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(1300, 850);
  REQUIRE(window.open_report(QString::fromStdString(fixture("small").string())));
  HallView* hall = window.hall();
  VtkView* view = hall->vtk_view();
  show_and_wait(window, view);
  REQUIRE(hall->report() != nullptr);
  CHECK(hall->field() == "/gpu/junction_temperature");
  CHECK(hall->time_index() == 0);

  const QImage first = render(view);
  CHECK(distinct_colours(first) > 40);  // not blank: background gradient, racks, text
  // A legend is drawn: the right part of the view holds the lookup table's end colours.
  const auto [lo, hi] = hall->report()->rack_value_range(*hall->report()->find_field("/gpu/junction_temperature"), Reduction::max);
  (void)lo;
  (void)hi;
  const QRect legend_area(static_cast<int>(first.width() * 0.84), 0, first.width() / 6, first.height());
  const double lo_shown = *std::min_element(hall->shown_values().begin(), hall->shown_values().end());
  CHECK(pixels_near(first, legend_area, hall->scene().colour_of(-1e9)) > 30);
  CHECK(pixels_near(first, legend_area, hall->scene().colour_of(1e9)) > 30);
  CHECK(hall->legend_title().contains("[degC]"));
  CHECK(lo_shown > 20.0);   // degC, not K
  CHECK(lo_shown < 80.0);

  // Choose another field with the combo box.
  auto* combo = hall->findChild<QComboBox*>("fieldCombo");
  REQUIRE(combo != nullptr);
  QSignalSpy field_changes(hall, &HallView::field_changed);
  combo->setFocus();
  const int power_index = combo->findData(QStringLiteral("/gpu/power"));
  REQUIRE(power_index >= 0);
  while (combo->currentIndex() != power_index) {
    QTest::keyClick(combo, combo->currentIndex() < power_index ? Qt::Key_Down : Qt::Key_Up);
  }
  CHECK(hall->field() == "/gpu/power");
  CHECK(field_changes.count() >= 1);
  CHECK(hall->legend_title().contains("[W]"));
  const QImage power = render(view);
  CHECK(fraction_changed(first, power) > 0.01);

  // Move the time slider to the end with the keyboard.
  auto* slider = hall->findChild<QSlider*>("timeSlider");
  REQUIRE(slider != nullptr);
  slider->setFocus();
  QTest::keyClick(slider, Qt::Key_End);
  CHECK(hall->time_index() == hall->report()->time().size() - 1);
  CHECK(hall->time() == Approx(300.0));
  const QImage later = render(view);
  CHECK(fraction_changed(power, later) > 0.01);
  QTest::keyClick(slider, Qt::Key_Left);
  CHECK(hall->time() == Approx(270.0));

  // Pick a rack of the front row by clicking on it.
  const std::size_t rack = 3;  // pod0/rack003, first row, faces the overview camera
  const QPoint where = hall->rack_position_in_view(rack) + QPoint(0, 6);
  QSignalSpy picked(hall, &HallView::rack_selected);
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, where);
  REQUIRE(picked.count() == 1);
  REQUIRE(hall->selected_rack().has_value());
  CHECK(*hall->selected_rack() == rack);
  CHECK(hall->rack_panel()->isVisible());
  CHECK(hall->rack_panel()->title() == "Rack pod0/rack003");
  CHECK(hall->rack_panel()->gpu_row_count() == 16);
  CHECK(hall->rack_panel()->chart().series_count() == 16);
  // The panel's chart renders.
  QApplication::processEvents();
  CHECK(distinct_colours(render(hall->rack_panel()->chart_view())) > 8);
  // Clicking the floor clears the selection.
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, QPoint(5, view->height() - 5));
  CHECK_FALSE(hall->selected_rack().has_value());

  // Camera presets change the picture; playback advances time and stops at the end.
  const QImage before_camera = render(view);
  hall->apply_camera(CameraPreset::top);
  CHECK(fraction_changed(before_camera, render(view)) > 0.05);
  hall->set_time_index(0);
  hall->set_playing(true);
  QTest::qWait(450);
  CHECK(hall->time_index() > 0);
  hall->set_playing(false);
}

TEST_CASE("hall: all 1,536 racks of the facility are drawn and pickable", "[gl]") {
  app();
  HallView hall;
  hall.resize(1200, 800);
  hall.set_report(std::make_shared<const ReportModel>(fixture("facility")));
  show_and_wait(hall, hall.vtk_view());
  REQUIRE(hall.report()->layout().rack_count() == 1536);
  REQUIRE(hall.shown_values().size() == 1536);
  const QImage image = render(hall.vtk_view());
  CHECK(distinct_colours(image) > 60);
  hall.apply_camera(CameraPreset::top);
  render(hall.vtk_view());
  // From the top every rack is visible: pick a few across the pods.
  for (const std::size_t rack : {std::size_t{0}, std::size_t{200}, std::size_t{1000}, std::size_t{1535}}) {
    const auto display = hall.scene().rack_display_position(rack);
    CHECK(hall.scene().pick(display[0], display[1]) == rack);
  }
}

TEST_CASE("charts: scalar series and GPU aggregates, zoom reset, PNG and CSV export", "[gl]") {
  app();
  ChartsView charts;
  charts.resize(1000, 600);
  charts.set_report(std::make_shared<const ReportModel>(fixture("small")));
  show_and_wait(charts, charts.vtk_view());
  CHECK(charts.available().contains("/coolant/return_temperature"));
  CHECK(charts.available().contains("count:/gpu/throttle_reasons"));
  CHECK(charts.checked() == QStringList{"/coolant/return_temperature"});
  CHECK(charts.set_checked({"/coolant/return_temperature", "max:/gpu/junction_temperature", "/job/mfu"}) == 3);
  CHECK(charts.chart().series_count() == 3);
  const std::string csv = charts.csv();
  INFO(csv);
  CHECK(csv.rfind("time [s],Facility coolant return temperature [degC],Model FLOPs utilisation,GPU junction temperature (max) [degC]\n", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 12);
  const QImage image = render(charts.vtk_view());
  CHECK(distinct_colours(image) > 10);
  // Zoom with the wheel, then reset: the picture changes and comes back.
  const QPoint centre(charts.vtk_view()->width() / 2, charts.vtk_view()->height() / 2);
  QWheelEvent wheel(centre, charts.vtk_view()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  for (int k = 0; k < 3; ++k) QApplication::sendEvent(charts.vtk_view(), &wheel);
  const QImage zoomed = render(charts.vtk_view());
  CHECK(fraction_changed(image, zoomed) > 0.005);
  charts.chart().reset_zoom();
  CHECK(fraction_changed(image, render(charts.vtk_view())) < 0.002);

  QTemporaryDir dir;
  CHECK(charts.export_csv(dir.filePath("chart.csv")));
  QFile file(dir.filePath("chart.csv"));
  REQUIRE(file.open(QIODevice::ReadOnly));
  CHECK(file.readAll().toStdString() == csv);
  CHECK(charts.export_png(dir.filePath("chart.png")));
  CHECK(distinct_colours(QImage(dir.filePath("chart.png"))) > 10);
}

TEST_CASE("compare: side by side and difference of two reports", "[gl]") {
  app();
  CompareView compare;
  compare.resize(1400, 700);
  auto a = std::make_shared<const ReportModel>(fixture("small-hot"));
  auto b = std::make_shared<const ReportModel>(fixture("small"));
  compare.set_reports(a, b);
  show_and_wait(compare, compare.left_view());
  CHECK(compare.problem().isEmpty());
  CHECK(compare.field() == "/gpu/junction_temperature");
  compare.set_mode(CompareView::Mode::difference);
  CHECK(compare.right_view()->isHidden());
  const auto& difference = compare.left_values();
  REQUIRE(difference.size() == 72);
  CHECK(difference[0] == Approx(0.0).margin(1e-9));        // pod 0: the same
  CHECK(difference[48 + 5] == Approx(5.0).margin(1e-9));   // pod 2: 5 K hotter in A
  CHECK(distinct_colours(render(compare.left_view())) > 20);
}

TEST_CASE("editor: a bad value is rejected with the message `dctwin check` gives", "[editor]") {
  app();
  QTemporaryDir dir;
  const QString file = dir.filePath("edited.yaml");
  REQUIRE(QFile::copy(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml", file));
  ScenarioEditor editor;
  REQUIRE(editor.open(file));
  CHECK(editor.check_now().isEmpty());
  CHECK(editor.message().endsWith(": OK"));

  for (const auto& [key, value] : std::vector<std::pair<QString, QString>>{
           {"loop.pump.max_flow", "-20 L/min"},
           {"loop.supply_temperature", "32 degF/s"},
           {"server.gpu_count", "8.5"},
           {"workload.job.compute_efficiency", "lots"}}) {
    ScenarioEditor bad;
    REQUIRE(bad.open(file));
    REQUIRE(bad.set_value(key, value));
    const QString message = bad.message();
    INFO(message.toStdString());
    CHECK(message.startsWith(file + ":"));
    CHECK(message.contains(key + " = " + value));
    CHECK(bad.field_message(key) == message);  // shown inline at the field too
    const QString saved = dir.filePath("bad.yaml");
    REQUIRE(bad.save_as(saved));
    // The saved file gets the same message from the CLI (the label is the file name as given).
    const QString relabelled = bad.check_now();
    const auto cli = run_process(DCTWIN_EXE, {"check", saved});
    CHECK(cli.exit_code == 65);
    CHECK(cli.err.trimmed() == relabelled);
  }
}

TEST_CASE("editor: the form is generated from the parameter tables and writes valid YAML", "[editor]") {
  ScenarioForm form(dctwin::models::facility::scenario_schema());
  REQUIRE(form.field("loop.pump.max_flow") != nullptr);
  CHECK(input_unit(form.field("loop.pump.max_flow")->spec) == "L/min");
  CHECK(describe_range(form.field("loop.pump.max_flow")->spec) == "> 0 L/min");
  QFile file(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml");
  REQUIRE(file.open(QIODevice::ReadOnly));
  CHECK(form.load(file.readAll().toStdString()).empty());
  CHECK(form.field("loop.supply_temperature")->text == "32 degC");
  CHECK_FALSE(form.check("written.yaml").has_value());
  // Lists: entries can be added and removed, and survive the round trip through YAML.
  const std::string entry = form.add_list_entry("server", "gpus");
  CHECK(entry == "server.gpus[8]");
  const auto problem = form.check("written.yaml");  // 9 entries for 8 GPUs
  if (problem) CHECK_FALSE(problem->message.empty());
  CHECK(form.remove_list_entry("server", "gpus"));
  CHECK_FALSE(form.check("written.yaml").has_value());
  ScenarioForm again(dctwin::models::facility::scenario_schema());
  again.load(form.yaml());
  CHECK(again.yaml() == form.yaml());
}

TEST_CASE("run: a scenario runs in a worker thread with progress, and a cancelled run leaves an incomplete report", "[run]") {
  app();
  QTemporaryDir dir;
  ScenarioEditor editor;
  REQUIRE(editor.open(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml"));
  REQUIRE(editor.set_value("simulation.duration", "60 s"));
  QSignalSpy finished(&editor, &ScenarioEditor::run_finished);
  QSignalSpy progress(&editor, &ScenarioEditor::progress);
  REQUIRE(editor.start_run(dir.filePath("short.h5")));
  CHECK(editor.running());
  REQUIRE(finished.wait(120000));
  CHECK(finished.front().at(2).toBool());
  CHECK(progress.count() > 0);
  CHECK(dctwin::io::ReportReader(dir.filePath("short.h5").toStdString()).status() == "complete");

  REQUIRE(editor.set_value("simulation.duration", "24 h"));
  REQUIRE(editor.start_run(dir.filePath("cancelled.h5")));
  QTest::qWait(300);
  editor.cancel_run();
  REQUIRE(finished.wait(120000));
  CHECK_FALSE(finished.back().at(2).toBool());
  const dctwin::io::ReportReader cancelled(dir.filePath("cancelled.h5").toStdString());
  CHECK(cancelled.status() == "incomplete");
  CHECK(cancelled.end_time() < 86400.0);
}

TEST_CASE("screenshot: dctwin-gui --screenshot matches the stored baseline", "[gl][screenshot]") {
  const QString report = QString::fromStdString(fixture("small").string());
  const QString shot = QString::fromStdString((work_dir / "hall.png").string());
  const auto result = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "hall", "--field",
                                                   "junction_temperature", "--time", "4 min", "--size",
                                                   "1000x650", report});
  INFO(result.err.toStdString());
  REQUIRE(result.exit_code == 0);
  const QImage image = QImage(shot).convertToFormat(QImage::Format_RGB32);
  REQUIRE(!image.isNull());
  CHECK(image.size() == QSize(1000, 650));
  const QString baseline_file = DCTWIN_BASELINE_DIR "/hall.png";
  if (qEnvironmentVariableIsSet("DCTWIN_UPDATE_BASELINE")) {
    QFile::remove(baseline_file);
    REQUIRE(QFile::copy(shot, baseline_file));
  }
  const QImage baseline = QImage(baseline_file).convertToFormat(QImage::Format_RGB32);
  INFO("baseline " << baseline_file.toStdString() << "; regenerate with DCTWIN_UPDATE_BASELINE=1");
  REQUIRE(!baseline.isNull());
  REQUIRE(baseline.size() == image.size());
  // Tolerance: fonts and rasterisation may differ slightly between Mesa and FreeType versions.
  CHECK(fraction_changed(image, baseline, 40) < 0.02);
}

TEST_CASE("command line: errors and an unusable OpenGL give messages and exit codes, not crashes", "[gl]") {
  const QString report = QString::fromStdString(fixture("small").string());
  const QString shot = QString::fromStdString((work_dir / "unused.png").string());
  auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "/nonexistent/report.h5"});
  CHECK(r.exit_code == 66);
  CHECK(r.err.contains("/nonexistent/report.h5: no such file"));
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--field", "no_such_field", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--field no_such_field: no such field in the report (fields: /gpu/junction_temperature"));
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, DCTWIN_SOURCE_DIR "/README.md"});
  CHECK(r.exit_code == 65);
  CHECK(r.err.contains("not an HDF5 file"));
  // An OpenGL older than 3.2 (Mesa told to offer 2.1 only).
  auto environment = QProcessEnvironment::systemEnvironment();
  environment.insert("MESA_GL_VERSION_OVERRIDE", "2.1");
  environment.insert("MESA_GLSL_VERSION_OVERRIDE", "120");
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, report}, environment);
  CHECK(r.exit_code == 69);
  CHECK(r.err.contains("OpenGL unavailable"));
}
