// dctwin-gui: report access, the data hall driven as a user would (QTest), charts, comparison,
// the scenario editor against the CLI's messages, runs with cancel, a screenshot against its
// baseline, and the message when OpenGL is unusable.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QTreeWidget>
#include <QMessageBox>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <QFileInfo>

#include <hdf5.h>
#include <vtkCamera.h>
#include <vtkContextView.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkRenderWindowInteractor.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <tuple>

#include "charts_view.hpp"
#include "compare_view.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/gui/chart_scene.hpp"
#include "dctwin/gui/distribution.hpp"
#include "dctwin/gui/hall_scene.hpp"
#include "dctwin/gui/live_run.hpp"
#include "dctwin/gui/report_model.hpp"
#include "dctwin/gui/scenario_form.hpp"
#include "dctwin/gui/series_tools.hpp"
#include "dctwin/gui/schematic.hpp"
#include "dctwin/gui/study.hpp"
#include "dctwin/gui/validation_model.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/validation.hpp"
#include "dctwin/models/electrical/grid_metrics.hpp"
#include "dctwin/models/facility/site.hpp"
#include "facility_report.hpp"
#include "gui_test.hpp"
#include "hall_view.hpp"
#include "heat_map_view.hpp"
#include "schematic_view.hpp"
#include "kpi_panel.hpp"
#include "main_window.hpp"
#include "rack_panel.hpp"
#include "scenario_editor.hpp"
#include "validation_view.hpp"
#include "vtk_view.hpp"

namespace fs = std::filesystem;
using namespace dctwin::gui;
using dctwin::gui::testing::app;

namespace {

/// This process's own directory: ctest runs every test case as its own process, two at a time, and
/// a fixture one process rewrites while another reads it gave a different picture now and then.
/// Removed when the process ends.
const fs::path work_dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "gui" / "work" /
                          std::to_string(QCoreApplication::applicationPid());
struct WorkDirCleanup {
  ~WorkDirCleanup() {
    std::error_code ignored;
    fs::remove_all(work_dir, ignored);
  }
} const work_dir_cleanup;

/// A synthetic report written once per test process: "small" is 2 pods x 24 racks (768 GPUs),
/// "facility" the full 8 x 192 racks (24,576 GPUs), "small-hot" = "small" with pod... (no pod 2),
/// so its difference comes from a changed supply offset instead.
fs::path fixture(const std::string& name) {
  static std::map<std::string, fs::path> written;
  if (const auto it = written.find(name); it != written.end()) return it->second;
  fs::create_directories(work_dir);
  const fs::path path = work_dir / (name + ".h5");
  dctwin::gui::testing::FacilityReportOptions options;
  if (name == "small" || name == "small-hot" || name == "study") {
    options.pods = 3;
    options.racks_per_pod = 24;
    options.racks_per_row = 8;
    options.samples = 11;
    options.pod2_offset = name == "small-hot" || name == "study" ? 5.0 : 0.0;
    options.study = name == "study";
  }
  if (name == "grid-tone") {  // 20 s of 1-ms grid power with a 2.5-Hz swing of 5 MW on 100 MW
    options.pods = 1;
    options.racks_per_pod = 8;
    options.racks_per_row = 8;
    options.samples = 21;
    options.interval = 1.0;
    options.grid_samples = 20000;
    options.grid_tone_hz = 2.5;
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
    dctwin::core::EntityTable gpus{"gpu", {}};
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
  const std::string csv = chart_csv({0, 1.5}, "time [min]", {{"Coolant return temperature", "degC", {40.0, 41.25}},
                                                             {"MFU, a, b", "1", {0.4, NAN}}});
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
  // Zoom with the wheel (in the upper of the two panels, degC and 1), then reset: the picture
  // changes and comes back.
  const QPoint centre(charts.vtk_view()->width() / 2, charts.vtk_view()->height() / 4);
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

TEST_CASE("editor: choices and booleans are drop-downs of their allowed values", "[editor]") {
  app();
  QTemporaryDir dir;
  ScenarioEditor editor;
  REQUIRE(editor.open(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml"));
  auto* mode = editor.findChild<QComboBox*>("choice:simulation.mode");
  REQUIRE(mode != nullptr);
  QStringList items;
  for (int i = 0; i < mode->count(); ++i) items << mode->itemText(i);
  CHECK(items == QStringList{"", "fast", "reference"});  // empty: the default
  CHECK(mode->currentText() == "fast");                  // as the file has it
  // A plain number is a line edit, not a drop-down.
  CHECK(editor.findChild<QComboBox*>("choice:loop.pump.max_flow") == nullptr);
  // Picking an item is an edit of the scenario, checked and saved like a typed one.
  mode->setCurrentIndex(mode->findText("reference"));
  emit mode->textActivated(mode->currentText());
  CHECK(editor.check_now().isEmpty());
  REQUIRE(editor.save_as(dir.filePath("picked.yaml")));
  QFile saved(dir.filePath("picked.yaml"));
  REQUIRE(saved.open(QIODevice::ReadOnly));
  CHECK(saved.readAll().contains("mode: reference"));
  // A value typed into the drop-down is checked like any other, with the CLI's message.
  REQUIRE(editor.set_value("simulation.mode", "fastest"));
  CHECK(editor.message().contains("simulation.mode = fastest"));
  CHECK(editor.field_message("simulation.mode") == editor.message());
  // Booleans offer true and false.
  auto* enabled = editor.findChild<QComboBox*>("choice:workload.power_smoothing.enabled");
  REQUIRE(enabled != nullptr);
  CHECK(enabled->findText("true") > 0);
  CHECK(enabled->findText("false") > 0);
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

TEST_CASE("run: the main window cancels a run and opens another, ten times in a row", "[gl][run]") {
  app();
  QTemporaryDir dir;
  MainWindow window;
  window.set_interactive(false);
  window.resize(1200, 800);
  window.show();
  ScenarioEditor* editor = window.editor();
  QSignalSpy finished(editor, &ScenarioEditor::run_finished);
  QSignalSpy started(editor, &ScenarioEditor::run_started);
  const QString other = dir.filePath("other-node.yaml");
  REQUIRE(QFile::copy(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml", other));
  for (int k = 0; k < 10; ++k) {
    INFO("round " << k);
    // Alternate between two scenario files, so that each round opens another file.
    const QString scenario = k % 2 == 0 ? QString(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml") : other;
    REQUIRE(window.open_file(scenario));
    REQUIRE(editor->set_value("simulation.duration", "24 h"));
    const QString report = dir.filePath(QString("run%1.h5").arg(k));
    REQUIRE(editor->start_run(report));
    CHECK(editor->running());
    CHECK(window.charts()->following_live());
    // Cancel at a different moment each round: at once, or after some samples reached the view.
    QTest::qWait(40 * k);
    editor->cancel_run();
    REQUIRE(finished.wait(120000));
    CHECK_FALSE(editor->running());
    CHECK_FALSE(finished.back().at(2).toBool());
    // The cancelled run leaves a complete file marked incomplete, and no temporary (*.part).
    CHECK(QDir(QFileInfo(report).absolutePath()).entryList({"*.part"}, QDir::Files | QDir::Hidden).isEmpty());
    const dctwin::io::ReportReader reader(report.toStdString());
    CHECK(reader.status() == "incomplete");
    CHECK(reader.end_time() < 86400.0);
    // The window opened the report when the run ended; the hall and the charts show it.
    REQUIRE(window.hall()->report() != nullptr);
    CHECK(QFileInfo(QString::fromStdString(window.hall()->report()->path().string())) == QFileInfo(report));
    CHECK(window.current_view() == MainWindow::View::hall);
    CHECK_FALSE(window.charts()->following_live());
    CHECK(window.last_error().isEmpty());
  }
  CHECK(started.count() == 10);
  CHECK(finished.count() == 10);
  // After ten cancellations a run still goes to its end.
  REQUIRE(window.open_file(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml"));
  REQUIRE(editor->set_value("simulation.duration", "30 s"));
  REQUIRE(editor->start_run(dir.filePath("last.h5")));
  REQUIRE(finished.wait(120000));
  CHECK(finished.back().at(2).toBool());
  CHECK(dctwin::io::ReportReader(dir.filePath("last.h5").toStdString()).status() == "complete");
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

// ---- damaged reports ------------------------------------------------------------------------------

namespace {

/// The 42 kB report of the fuzz corpus with three bytes of its global heap changed: libhdf5 1.10.8
/// dies of SIGSEGV reading it (tests/io/robustness has more of these).
fs::path heap_damaged_report() {
  std::ifstream in(DCTWIN_SOURCE_DIR "/tests/fuzz/corpus/report/tiny-incomplete.hdf5-report", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == 42158);
  for (const auto& [offset, value] : {std::pair<std::size_t, int>{5203, 215}, {2379, 132}, {6028, 207}}) {
    bytes[offset] = static_cast<char>(value);
  }
  fs::create_directories(work_dir);
  const fs::path path = work_dir / "heap-damaged.h5";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

/// A copy of the "small" fixture whose first compressed chunk of `dataset` has its middle
/// overwritten, so that inflating it fails (everything else of the report reads).
fs::path chunk_damaged_report(const std::string& dataset) {
  const fs::path path = work_dir / "chunk-damaged.h5";
  fs::copy_file(fixture("small"), path, fs::copy_options::overwrite_existing);
  haddr_t address = HADDR_UNDEF;
  hsize_t size = 0;
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    const hid_t data = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
    REQUIRE(data >= 0);
    hsize_t offset[2] = {0, 0};
    unsigned filter_mask = 0;
    const hid_t space = H5Dget_space(data);
    CHECK(H5Dget_chunk_info(data, space, 0, offset, &filter_mask, &address, &size) >= 0);
    H5Sclose(space);
    H5Dclose(data);
    H5Fclose(file);
  }
  REQUIRE(address != HADDR_UNDEF);
  REQUIRE(size > 64);
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(address + size / 4));
  const std::string junk(static_cast<std::size_t>(size / 2), '\x55');
  io.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  return path;
}

}  // namespace

TEST_CASE("damaged report: one that crashes libhdf5 gives an error dialog and the application keeps running", "[gl][damaged]") {
  app();
  MainWindow window;
  window.set_interactive(true);  // the real dialog: window-modal, opened without blocking
  window.resize(1200, 800);
  window.show();
  QSignalSpy errors(&window, &MainWindow::error_reported);
  const fs::path damaged = heap_damaged_report();
  CHECK_FALSE(window.open_report(QString::fromStdString(damaged.string())));
  REQUIRE(errors.count() == 1);
  const QString message = errors.at(0).at(0).toString();
  INFO(message.toStdString());
  CHECK(message.startsWith(QString::fromStdString(damaged.string() + ": damaged: ")));
  CHECK(message.contains(" while reading "));
  CHECK(window.last_error() == message);
  auto* dialog = window.findChild<QMessageBox*>("errorDialog");
  REQUIRE(dialog != nullptr);
  CHECK(dialog->isVisible());
  CHECK(dialog->text() == message);
  CHECK(window.hall()->report() == nullptr);
  // Compare refuses it the same way.
  REQUIRE(window.open_report(QString::fromStdString(fixture("small").string())));
  CHECK_FALSE(window.compare_with(QString::fromStdString(damaged.string())));
  CHECK(errors.count() == 2);
  dialog->accept();
  QApplication::processEvents();
  CHECK_FALSE(dialog->isVisible());
  // Still running: the good report is shown and its time can be moved.
  CHECK(window.hall()->report() != nullptr);
  window.hall()->set_time_index(3);
  CHECK(window.hall()->time_index() == 3);
  CHECK(window.hall()->shown_values().size() == window.hall()->report()->layout().rack_count());
  // The command line: exit 65 with the message.
  const QString shot = QString::fromStdString((work_dir / "damaged.png").string());
  const auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, QString::fromStdString(damaged.string())});
  CHECK(r.exit_code == 65);
  CHECK(r.err.contains(": damaged: libhdf5 crashed ("));
}

TEST_CASE("damaged report: a corrupt compressed chunk gives an error dialog, not an abort", "[gl][damaged]") {
  app();
  MainWindow window;
  window.set_interactive(true);
  window.resize(1200, 800);
  window.show();
  QSignalSpy errors(&window, &MainWindow::error_reported);
  const fs::path damaged = chunk_damaged_report("/gpu/junction_temperature");
  // The rest of the report reads: it opens, and the hall meets the chunk when it colours the racks.
  CHECK(window.open_report(QString::fromStdString(damaged.string())));
  REQUIRE(errors.count() >= 1);
  const QString message = errors.last().at(0).toString();
  INFO(message.toStdString());
  CHECK(message.contains("/gpu/junction_temperature"));
  auto* dialog = window.findChild<QMessageBox*>("errorDialog");
  REQUIRE(dialog != nullptr);
  CHECK(dialog->isVisible());
  CHECK(window.hall()->shown_values().empty());
  // Other fields of the same report still show; moving in time with the damaged one is a message
  // again, not an abort.
  const auto errors_before = errors.count();
  window.hall()->set_time_index(5);
  CHECK(errors.count() > errors_before);
  CHECK(window.hall()->set_field("/gpu/power"));
  CHECK(window.hall()->shown_values().size() == window.hall()->report()->layout().rack_count());
  // The charts of the damaged field give the message too.
  window.show_view(MainWindow::View::charts);
  window.charts()->set_checked({"max:/gpu/junction_temperature"});
  CHECK(window.charts()->note().contains("Cannot read the report"));
  dialog->accept();
  REQUIRE(window.open_report(QString::fromStdString(fixture("small").string())));
  CHECK(window.hall()->shown_values().size() == window.hall()->report()->layout().rack_count());
  // The command line: exit 65 with the reader's message.
  const QString shot = QString::fromStdString((work_dir / "chunk.png").string());
  const auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, QString::fromStdString(damaged.string())});
  CHECK(r.exit_code == 65);
  CHECK(r.err.contains("cannot read dataset '/gpu/junction_temperature'"));
}

// ---- fine series (/grid), ramp rate, spectrum, decimation -------------------------------------------

TEST_CASE("series tools: min/max decimation keeps every extreme, ramp series, spectrum of a tone", "[model]") {
  // 100,000 samples of a slow sine with two one-sample spikes: 200 buckets keep both spikes.
  const std::size_t n = 100000;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = static_cast<double>(i) * 1e-3;
    y[i] = std::sin(static_cast<double>(i) * 1e-4);
  }
  y[12345] = 7.0;
  y[77777] = -9.0;
  const auto d = decimate_min_max(x, y, x.front(), x.back(), 200);
  CHECK(d.x.size() <= 2 * 200 + 2);
  CHECK(d.x.size() >= 200);
  CHECK(*std::max_element(d.y.begin(), d.y.end()) == 7.0);
  CHECK(*std::min_element(d.y.begin(), d.y.end()) == -9.0);
  CHECK(std::is_sorted(d.x.begin(), d.x.end()));
  // A zoomed range holds the samples themselves, plus one neighbour either side.
  const auto zoom = decimate_min_max(x, y, 12.3, 12.4, 200);
  CHECK(zoom.x.size() == 103);
  CHECK(zoom.x.front() == Approx(12.299));
  // Log-spaced buckets drop x <= 0.
  const auto log = decimate_min_max(x, y, 1e-3, x.back(), 50, true);
  CHECK(log.x.front() > 0.0);

  // Ramp series: a linear ramp of 2 MW/s gives 2 MW/s wherever defined; its largest magnitude is
  // models::electrical::max_ramp_rate for any signal.
  std::vector<double> ramp(5000);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = 1e8 + 2e6 * static_cast<double>(i) * 1e-3;
  const auto rate = ramp_rate_series(ramp, 1e-3, 1.0);
  CHECK(std::isnan(rate[999]));
  CHECK(rate[1000] == Approx(2e6).epsilon(1e-9));
  CHECK(rate[4000] == Approx(2e6).epsilon(1e-9));
  CHECK(std::isnan(rate[4001]));
  std::vector<double> step(4000, 5e7);
  for (std::size_t i = 2100; i < step.size(); ++i) step[i] = 5.3e7;
  for (std::size_t i = 0; i < step.size(); ++i) step[i] += 1e5 * std::sin(0.013 * static_cast<double>(i));
  const auto step_rate = ramp_rate_series(step, 1e-3, 1.0);
  double largest = 0.0;
  for (const double r : step_rate) {
    if (std::isfinite(r)) largest = std::max(largest, std::fabs(r));
  }
  CHECK(largest == Approx(dctwin::models::electrical::max_ramp_rate(step, 1e-3, 1.0)).epsilon(1e-9));

  // Spectrum of a 2.5-Hz tone over 20 s at 1 ms: bin 50 (0.05 Hz resolution) holds the variance.
  std::vector<double> time(20000), tone(20000);
  for (std::size_t i = 0; i < time.size(); ++i) {
    time[i] = static_cast<double>(i) * 1e-3;
    tone[i] = 1e8 + 5e6 * std::sin(2.0 * std::acos(-1.0) * 2.5 * time[i]);
  }
  const auto spectrum = series_spectrum(time, tone, "tone");
  CHECK(spectrum.dt == Approx(1e-3));
  CHECK(spectrum.peak_frequency() == Approx(2.5).epsilon(1e-12));
  CHECK(spectrum.energy[50] == Approx(0.5 * 5e6 * 5e6).epsilon(1e-6));  // variance of A sin: A^2 / 2
  CHECK(spectrum.band_fraction == Approx(1.0).epsilon(1e-9));
  time[7] += 1e-4;
  CHECK_THROWS_WITH(series_spectrum(time, tone, "/grid/power"),
                    "/grid/power: the time axis is not uniformly sampled, no spectrum");
}

TEST_CASE("report model: a group with a time axis of its own is a fine series group", "[model]") {
  const ReportModel report(fixture("grid-tone"));
  REQUIRE(report.fine_groups().size() == 1);
  const auto& group = report.fine_groups().front();
  CHECK(group.group == "/grid");
  CHECK(group.time_path == "/grid/time");
  CHECK(group.samples == 20000);
  REQUIRE(group.series.size() == 2);
  CHECK(group.series[0].path == "/grid/frequency");
  CHECK(group.series[1].path == "/grid/power");
  CHECK(report.fine_time(group).size() == 20000);
  CHECK(report.fine_time(group)[1] == Approx(1e-3));
  CHECK(report.find_series("/grid/power") == nullptr);  // not on /time
  CHECK(report.find_fine_series("/grid/power") != nullptr);
  CHECK(report.fine_group_of("/grid/power") == &group);
  CHECK(report.find_series("/utility/power") != nullptr);
  CHECK(report.series_values("/grid/power").size() == 20000);
}

TEST_CASE("grid charts: the pod report's /grid series are listed, plotted decimated, and a second series changes the image", "[gl]") {
  app();
  fs::create_directories(work_dir);
  const fs::path pod = work_dir / "pod-l2a-20s.h5";
  if (!fs::exists(pod)) {
    const auto result = run_process(DCTWIN_EXE, {"run", DCTWIN_SOURCE_DIR "/scenarios/pod-l2a.yaml", "-o",
                                                 QString::fromStdString(pod.string()), "--duration", "20s", "-q"});
    INFO(result.err.toStdString());
    REQUIRE(result.exit_code == 0);
  }
  ChartsView charts;
  charts.resize(1100, 650);
  charts.set_report(std::make_shared<const ReportModel>(pod));
  show_and_wait(charts, charts.vtk_view());
  const QStringList available = charts.available();
  INFO(available.join(", ").toStdString());
  for (const char* id : {"/grid/power", "/grid/frequency", "/grid/voltage", "/grid/capacitor_energy",
                         "/grid/battery_soc", "/grid/transformer_hot_spot", "ramp:/grid/power"}) {
    CHECK(available.contains(id));
  }
  CHECK_FALSE(available.contains("/grid/time"));
  REQUIRE(charts.set_checked({"/grid/power"}) == 1);
  CHECK(charts.chart().series_count() == 1);
  CHECK(charts.chart().input_points() == 20001);
  CHECK(charts.chart().drawn_points() <= 4002);
  CHECK(charts.note().contains("Decimated for display: 20,001 samples drawn as"));
  const QImage power = render(charts.vtk_view());
  CHECK(distinct_colours(power) > 10);
  // The line is drawn in the first palette colour (68, 119, 170) over a good part of the plot.
  CHECK(pixels_near(power, power.rect(), {68 / 255.0, 119 / 255.0, 170 / 255.0}, 20) > 300);
  // The power is shown in MW.
  CHECK(charts.csv().rfind("time [s],grid power [MW]\n", 0) == 0);

  REQUIRE(charts.set_checked({"/grid/power", "/grid/frequency"}) == 2);
  CHECK(charts.chart().series_count() == 2);
  const QImage both = render(charts.vtk_view());
  CHECK(fraction_changed(power, both) > 0.005);

  // Zoom in with the wheel: the visible range is decimated again, with more detail per second.
  REQUIRE(charts.set_checked({"/grid/power"}) == 1);
  const std::size_t whole = charts.chart().drawn_points();
  const QPoint centre(charts.vtk_view()->width() / 2, charts.vtk_view()->height() / 2);
  QWheelEvent wheel(centre, charts.vtk_view()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  for (int k = 0; k < 6; ++k) QApplication::sendEvent(charts.vtk_view(), &wheel);
  render(charts.vtk_view());
  const auto [lo, hi] = charts.chart().visible_x();
  CHECK(hi - lo < 15.0);
  charts.chart().refresh_detail();  // (the view's timer may have done it already)
  CHECK(charts.chart().decimated_x().first == Approx(std::max(lo, 0.0)).margin(1e-9));
  CHECK(charts.chart().decimated_x().second == Approx(std::min(hi, 20.0)).margin(1e-9));
  CHECK_FALSE(charts.chart().refresh_detail());  // nothing moved since
  CHECK(charts.chart().drawn_points() > 0);
  CHECK(charts.chart().drawn_points() <= whole + 4);
  charts.chart().reset_zoom();
  CHECK(charts.chart().drawn_points() == whole);
  // The view's detail timer may fire between a reset and the next render: it must find nothing to
  // refresh (reading the zoomed axes, not yet redrawn, it would zoom back in).
  CHECK_FALSE(charts.chart().refresh_detail());
  CHECK(charts.chart().drawn_points() == whole);

  // Ramp rate: its largest magnitude is the report's grid_ramp_rate_max_1s (same definition).
  REQUIRE(charts.set_checked({"ramp:/grid/power"}) == 1);
  const std::string csv = charts.csv();
  CHECK(csv.rfind("time [s],grid power ramp rate (1 s) [MW/s]\n", 0) == 0);
  const ReportModel model(pod);
  const auto values = model.series_values("/grid/power");
  const double expected = dctwin::models::electrical::max_ramp_rate(values, 1e-3, 1.0);
  double largest = 0.0;
  for (const double r : ramp_rate_series(values, 1e-3, 1.0)) {
    if (std::isfinite(r)) largest = std::max(largest, std::fabs(r));
  }
  CHECK(largest == Approx(expected).epsilon(1e-9));
  CHECK(distinct_colours(render(charts.vtk_view())) > 10);
}

TEST_CASE("grid charts: the spectrum of a report with a 2.5-Hz power swing peaks at that bin", "[gl]") {
  app();
  ChartsView charts;
  charts.resize(1100, 650);
  charts.set_report(std::make_shared<const ReportModel>(fixture("grid-tone")));
  show_and_wait(charts, charts.vtk_view());
  charts.set_mode(ChartsView::Mode::spectrum);
  REQUIRE(charts.set_checked({"/grid/power"}) == 1);
  CHECK(charts.chart().series_count() == 1);
  const std::string title = charts.chart().title();
  INFO(title);
  CHECK(title.find("grid power: 100.0 % of the variance in 0.1-20 Hz (peak 2.5 Hz)") != std::string::npos);
  // The chart's data: frequency [Hz] and energy [MW^2] per bin; the largest is the tone's bin, and
  // it holds the swing's variance (5 MW)^2 / 2.
  const std::string csv = charts.csv();
  REQUIRE(csv.rfind("frequency [Hz],grid power [MW^2]\n", 0) == 0);
  std::istringstream lines(csv.substr(csv.find('\n') + 1));
  std::string line;
  double best_f = -1.0, best_e = -1.0;
  std::size_t bins = 0;
  while (std::getline(lines, line)) {
    const auto comma = line.find(',');
    const double f = std::stod(line.substr(0, comma)), e = std::stod(line.substr(comma + 1));
    ++bins;
    if (e > best_e) {
      best_e = e;
      best_f = f;
    }
  }
  CHECK(bins == 10001);
  CHECK(best_f == Approx(2.5).epsilon(1e-12));
  CHECK(best_e == Approx(12.5).epsilon(1e-6));
  const QImage log_image = render(charts.vtk_view());
  CHECK(distinct_colours(log_image) > 10);
  charts.set_spectrum_log(false, true);
  CHECK(fraction_changed(log_image, render(charts.vtk_view())) > 0.005);
}

// ---- validation view ------------------------------------------------------------------------------

namespace {

/// A validation result with known metrics and series (two GPUs, power and junction temperature).
dctwin::io::ValidationResult known_validation() {
  using namespace dctwin::io;
  ValidationResult r;
  r.gpu_labels = {"gpu0", "gpu1"};
  r.model_gpus = {0, 1};
  r.start_time = 1753572729.0;
  r.notes = {"synthetic validation for the GUI tests"};
  const std::size_t samples = 30;
  r.phases.assign(2, std::vector<ReplayPhase>(samples, ReplayPhase::compute));
  r.phase_share.assign(2, {0.0, 0.0, 0.0, 1.0});
  r.overall_phase_share = {0.0, 0.0, 0.0, 1.0};
  auto metrics = [](double scale) {
    ErrorMetrics m;
    m.count = 30;
    m.mae = 11.5 * scale;
    m.rmse = 15.25 * scale;
    m.bias = -7.125 * scale;
    m.cv_rmse = 0.0325 * scale;
    m.nmbe = 0.0160 * scale;
    m.max_error = 35.75 * scale;
    m.lag = scale > 1.5 ? -1.0 : 0.0;
    return m;
  };
  r.metrics = {{"power", "W", {metrics(1.0), metrics(2.0)}, metrics(1.5)},
               {"junction_temperature", "K", {metrics(0.1), metrics(0.2)}, metrics(0.15)}};
  for (const auto& [quantity, unit, level] : {std::tuple<std::string, std::string, double>{"power", "W", 600.0},
                                              {"junction_temperature", "K", 340.0}}) {
    QuantitySeries s{quantity, unit, {}, {}, {}};
    for (std::size_t g = 0; g < 2; ++g) {
      s.time.emplace_back();
      s.measured.emplace_back();
      s.simulated.emplace_back();
      for (std::size_t k = 0; k < samples; ++k) {
        s.time.back().push_back(r.start_time + static_cast<double>(k));
        s.measured.back().push_back(level + 20.0 * std::sin(0.4 * static_cast<double>(k)) + 5.0 * static_cast<double>(g));
        s.simulated.back().push_back(level + 18.0 * std::sin(0.4 * static_cast<double>(k) - 0.2));
      }
    }
    r.series.push_back(s);
  }
  return r;
}

}  // namespace

TEST_CASE("validation model: reads the metrics and series of a dctwin validate file", "[model]") {
  fs::create_directories(work_dir);
  const fs::path file = work_dir / "validation.h5";
  dctwin::io::write_validation_hdf5(known_validation(), file);
  CHECK(ValidationModel::is_validation_report(file));
  CHECK_FALSE(ValidationModel::is_validation_report(fixture("small")));
  CHECK_FALSE(ValidationModel::is_validation_report(work_dir / "no-such-file.h5"));
  const ValidationModel model(file);
  CHECK(model.gpu_labels() == std::vector<std::string>{"gpu0", "gpu1"});
  REQUIRE(model.quantities().size() == 2);
  const auto* power = model.quantity("power");
  REQUIRE(power != nullptr);
  CHECK(power->units == "W");
  std::vector<std::string> names;
  for (const auto& m : power->metrics) names.push_back(m.name);
  CHECK(names == validation_metric_names());
  CHECK(power->metric("rmse")->per_gpu == std::vector<double>{15.25, 30.5});
  CHECK(power->metric("rmse")->overall == 15.25 * 1.5);
  CHECK(power->metric("cv_rmse")->units == "1");
  CHECK(power->metric("lag")->units == "s");
  const auto series = model.series("junction_temperature", 1);
  REQUIRE(series.time.size() == 30);
  CHECK(series.time[3] == Approx(3.0));
  CHECK(series.measured[0] == Approx(345.0));
  CHECK(model.start_time_utc() == "2025-07-26T23:32:09Z");
  CHECK_THROWS_WITH(ValidationModel(fixture("small")), Catch::Contains("not a validation report (no /validation)"));
}

TEST_CASE("validation view: a validation report opens with measured and simulated series and the metrics table", "[gl]") {
  app();
  fs::create_directories(work_dir);
  const fs::path file = work_dir / "validation-view.h5";
  dctwin::io::write_validation_hdf5(known_validation(), file);
  MainWindow window;
  window.set_interactive(false);
  window.resize(1300, 850);
  REQUIRE(window.open_file(QString::fromStdString(file.string())));
  CHECK(window.current_view() == MainWindow::View::validation);
  ValidationView* view = window.validation();
  show_and_wait(window, view->vtk_view());
  CHECK(view->quantity() == "power");
  CHECK(view->gpu() == 0);
  CHECK(view->chart().series_count() == 2);
  // The table: 2 quantities x (2 GPUs + all), values as in the file, in display units.
  QTableWidget* table = view->metrics_table();
  REQUIRE(table->rowCount() == 6);
  CHECK(table->horizontalHeaderItem(2)->text() == "MAE");
  CHECK(table->horizontalHeaderItem(5)->text() == "CV(RMSE) [%]");
  CHECK(table->horizontalHeaderItem(8)->text() == "lag [s]");
  CHECK(view->table_value("power", "gpu0", "mae") == 11.5);
  CHECK(view->table_value("power", "gpu1", "rmse") == 30.5);
  CHECK(view->table_value("power", "all", "bias") == -7.125 * 1.5);
  CHECK(view->table_value("power", "gpu0", "cv_rmse") == Approx(3.25));
  CHECK(view->table_value("power", "gpu1", "nmbe") == Approx(3.2));
  CHECK(view->table_value("power", "gpu0", "max_error") == 35.75);
  CHECK(view->table_value("power", "gpu1", "lag") == -1.0);
  CHECK(view->table_value("power", "gpu0", "count") == 30.0);
  // Temperature errors are differences: kelvin, not degC.
  CHECK(view->table_value("junction_temperature", "gpu0", "rmse") == Approx(1.525));
  CHECK(view->table_unit("junction_temperature", "rmse") == "K");
  CHECK(view->table_unit("power", "cv_rmse") == "%");
  CHECK(table->item(0, 0)->text() == "Board power [W]");
  CHECK(table->item(3, 0)->text() == "Junction temperature [K]");
  CHECK(table->item(0, 3)->text() == "15.25");
  CHECK(table->item(2, 1)->text() == "all");

  const QImage power = render(view->vtk_view());
  CHECK(distinct_colours(power) > 10);
  REQUIRE(view->select("junction_temperature", 1));
  CHECK(view->chart().title() == "Junction temperature, gpu1: RMSE 3.05 K");
  CHECK(fraction_changed(power, render(view->vtk_view())) > 0.005);
  CHECK_FALSE(view->select("sm_clock", 0));  // not in this file
  CHECK_FALSE(view->select("power", 2));

  // The command line renders it.
  const QString shot = QString::fromStdString((work_dir / "validation.png").string());
  auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "validation", "--size", "1200x800",
                                        QString::fromStdString(file.string())});
  INFO(r.err.toStdString());
  CHECK(r.exit_code == 0);
  CHECK(distinct_colours(QImage(shot).convertToFormat(QImage::Format_RGB32)) > 10);
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "validation", "--field", "sm_clock",
                                   QString::fromStdString(file.string())});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("no such quantity or GPU (quantities: power, junction_temperature"));
}

TEST_CASE("live charts: a run started from the editor is charted as it grows, with the samples its report gets", "[gl][run]") {
  app();
  QTemporaryDir dir;
  ScenarioEditor editor;
  REQUIRE(editor.open(DCTWIN_SOURCE_DIR "/scenarios/single-node.yaml"));
  REQUIRE(editor.set_value("simulation.duration", "2 h"));
  ChartsView charts;
  charts.resize(1000, 600);
  QObject::connect(&editor, &ScenarioEditor::run_started, &charts, [&] { charts.set_live(editor.live_run()); });
  QSignalSpy finished(&editor, &ScenarioEditor::run_finished);
  REQUIRE(editor.start_run(dir.filePath("live.h5")));
  REQUIRE(charts.following_live());
  show_and_wait(charts, charts.vtk_view());
  // While the run goes, the chart follows it (at most one refresh a second).
  bool seen_while_running = false;
  for (int k = 0; k < 600 && finished.isEmpty(); ++k) {
    QTest::qWait(50);
    if (editor.running() && charts.chart().input_points() > 0) seen_while_running = true;
  }
  if (finished.isEmpty()) REQUIRE(finished.wait(300000));
  if (!seen_while_running) WARN("the run ended before the view's first refresh");
  charts.refresh_live();
  REQUIRE(charts.checked().size() == 1);
  std::string id;
  for (const auto& series : editor.live_run()->series()) {
    if (id.empty() && series.id.rfind("/", 0) == 0 && !series.fine) id = series.id;
  }
  REQUIRE(charts.set_checked({QString::fromStdString(id)}) == 1);
  // What the live view holds is what the report got.
  const ReportModel report(dir.filePath("live.h5").toStdString());
  const auto live = editor.live_run()->snapshot(id);
  CHECK(live.time == report.time());
  CHECK(live.values == report.series_values(id));
  CHECK(editor.live_run()->samples() == report.time().size());
  CHECK(charts.chart().input_points() == report.time().size());
  CHECK(charts.chart().title().rfind("Live: the run so far, t = 120 min", 0) == 0);
  CHECK(distinct_colours(render(charts.vtk_view())) > 10);
  // The GPU aggregates are the report's too.
  const auto* field = report.find_field("/gpu/junction_temperature");
  REQUIRE(field != nullptr);
  const auto max_live = editor.live_run()->snapshot("max:/gpu/junction_temperature").values;
  const auto& max_report = report.aggregate_series(*field, Reduction::max);
  CHECK(max_live == max_report);
  charts.set_report(std::make_shared<const ReportModel>(dir.filePath("live.h5").toStdString()));
  CHECK_FALSE(charts.following_live());
}

TEST_CASE("live charts: a refresh keeps the user's zoom, and without a zoom the chart follows the run", "[gl]") {
  app();
  // A run's samples handed to a LiveRun by hand: one scalar output, 1 sample a second.
  auto live = std::make_shared<LiveRun>();
  dctwin::io::ReportLayout layout;
  layout.outputs.push_back({{"coolant", "supply_temperature", "K", "Coolant supply temperature", "", 1}, 0});
  live->set_layout(layout);
  double t = 0.0;
  auto add_samples = [&](int count) {
    for (int i = 0; i < count; ++i, t += 1.0) {
      const double value = 300.0 + 5.0 * std::sin(t / 20.0);
      live->add_sample(t, std::span<const double>(&value, 1));
    }
  };
  add_samples(300);  // 0-299 s, and 420 s at the end: the time axis stays in seconds
  ChartsView charts;
  charts.resize(1000, 600);
  charts.set_live(live);
  show_and_wait(charts, charts.vtk_view());
  REQUIRE(charts.chart().input_points() == 300);
  const auto full = charts.chart().visible_x();
  // Zoom in with the wheel.
  const QPoint centre(charts.vtk_view()->width() / 2, charts.vtk_view()->height() / 2);
  QWheelEvent wheel(centre, charts.vtk_view()->mapToGlobal(centre), QPoint(), QPoint(0, 120), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  for (int k = 0; k < 3; ++k) QApplication::sendEvent(charts.vtk_view(), &wheel);
  charts.chart().refresh_detail();
  const auto zoomed = charts.chart().visible_x();
  REQUIRE(zoomed.second - zoomed.first < 0.9 * (full.second - full.first));
  // New samples arrive and the view refreshes: the zoom stays, the data under it are the new ones.
  add_samples(60);
  REQUIRE(charts.refresh_live());
  render(charts.vtk_view());
  CHECK(charts.chart().input_points() == 360);
  const auto kept = charts.chart().visible_x();
  CHECK(kept.first == Approx(zoomed.first).margin(1e-9));
  CHECK(kept.second == Approx(zoomed.second).margin(1e-9));
  CHECK(charts.chart().decimated_x().first == Approx(zoomed.first).margin(1e-9));
  // Back to the whole range: now each refresh shows all of the run, up to its last sample.
  charts.chart().reset_zoom();
  add_samples(60);
  REQUIRE(charts.refresh_live());
  render(charts.vtk_view());  // the axes take their automatic range when drawn
  CHECK(charts.chart().visible_x().second >= t - 1.0 - 1e-9);
}

// ---- one axis per unit, legends, reframing, colour range, largest values, loading -------------

TEST_CASE("charts: one panel per unit, each y axis titled with its own unit and spanning its own data", "[gl]") {
  app();
  ChartsView charts;
  charts.resize(1100, 800);
  charts.set_report(std::make_shared<const ReportModel>(fixture("small")));
  show_and_wait(charts, charts.vtk_view());
  REQUIRE(charts.set_checked({"/coolant/return_temperature", "count:/gpu/throttle_reasons", "/job/mfu",
                              "max:/gpu/junction_temperature"}) == 4);
  render(charts.vtk_view());
  const ChartScene& chart = charts.chart();
  REQUIRE(chart.series_count() == 4);
  REQUIRE(chart.panel_count() == 3);  // degC, 1, GPUs
  // The series in the list's order: coolant return, MFU, junction temperature (max), throttled.
  CHECK(chart.panel_of(0) == 0);
  CHECK(chart.panel_of(1) == 1);
  CHECK(chart.panel_of(2) == 0);  // the second temperature shares the first one's panel
  CHECK(chart.panel_of(3) == 2);
  CHECK(chart.panel_axis_title(0) == "[degC]");
  CHECK(chart.panel_axis_title(1) == "Model FLOPs utilisation");
  CHECK(chart.panel_axis_title(2) == "[GPUs]");  // (the name is too long for the axis; the legend has it)
  for (std::size_t p = 0; p < chart.panel_count(); ++p) {
    INFO("panel " << p << ": " << chart.panel_axis_title(p));
    const auto [data_lo, data_hi] = chart.panel_y_data(p);
    const auto [axis_lo, axis_hi] = chart.panel_y_axis(p);
    CHECK(axis_lo <= data_lo);
    CHECK(axis_hi >= data_hi);
    // The axis spans the panel's own data (with room for its legend), not another unit's range.
    const double span = std::max(data_hi - data_lo, 1e-9);
    CHECK((axis_hi - axis_lo) < 3.0 * span + 1e-6);
    CHECK(chart.points_under_legend(p) == 0);
  }
}

TEST_CASE("charts: the band markers of a spectrum leave each spectrum's axis on its own data", "[gl]") {
  app();
  ChartsView charts;
  charts.resize(1100, 700);
  charts.set_report(std::make_shared<const ReportModel>(fixture("grid-tone")));
  show_and_wait(charts, charts.vtk_view());
  charts.set_mode(ChartsView::Mode::spectrum);
  charts.set_spectrum_log(true, false);
  REQUIRE(charts.set_checked({"/grid/power", "/grid/frequency"}) == 2);
  render(charts.vtk_view());
  const ChartScene& chart = charts.chart();
  REQUIRE(chart.panel_count() == 2);
  // The series in the list's order: frequency, then power.
  const std::size_t frequency = chart.panel_of(0), power = chart.panel_of(1);
  REQUIRE(frequency != power);
  CHECK(chart.panel_axis_title(power) == "grid power [MW^2]");
  CHECK(chart.panel_axis_title(frequency) == "grid frequency [Hz^2]");
  // The frequency swings by 5 mHz: its largest bin is (5 mHz)^2 / 2; the power's is 12.5 MW^2.
  CHECK(chart.panel_y_data(frequency).second == Approx(1.25e-5).epsilon(1e-6));
  CHECK(chart.panel_y_data(power).second == Approx(12.5).epsilon(1e-6));
  for (std::size_t p = 0; p < 2; ++p) {
    const auto [data_lo, data_hi] = chart.panel_y_data(p);
    const auto [axis_lo, axis_hi] = chart.panel_y_axis(p);
    INFO("panel " << p << ": data " << data_lo << " to " << data_hi << ", axis " << axis_lo << " to " << axis_hi);
    CHECK(axis_hi < 3.0 * data_hi);
    CHECK(axis_lo <= data_lo);
  }
}

namespace {
/// A chart scene hosted in a bare view, for the legend tests.
struct ChartHost {
  VtkView view;
  ChartScene scene;
  ChartHost() {
    scene.view()->SetRenderWindow(view.render_window());
    scene.view()->SetInteractor(view.interactor());
    view.resize(900, 500);
  }
};
}  // namespace

TEST_CASE("charts: the legend goes where it hides no data, or above the data", "[gl]") {
  app();
  ChartHost host;
  show_and_wait(host.view, &host.view);
  std::vector<double> x(400), rising(400), wave(400);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i);
    rising[i] = 30.0 + 62.0 * std::pow(static_cast<double>(i) / 399.0, 4.0);  // a climax at the end, top right
    wave[i] = std::sin(0.2 * static_cast<double>(i));                         // in every corner
  }
  host.scene.set_series(x, "time [s]", {ChartSeries{"GPU junction temperature (max)", "degC", rising}});
  render(&host.view);
  CHECK(host.scene.legend_corner(0) == 1);  // top left: the top right holds the climax
  CHECK(host.scene.points_under_legend(0) == 0);
  CHECK(host.scene.panel_y_axis(0).second == Approx(92.0 + 0.04 * 62.0).epsilon(1e-9));
  host.scene.set_series(x, "time [s]", {ChartSeries{"a wave", "1", wave}});
  render(&host.view);
  CHECK(host.scene.legend_corner(0) == 0);
  CHECK(host.scene.points_under_legend(0) == 0);
  CHECK(host.scene.panel_y_axis(0).second > 1.0 + 0.04 * 2.0 + 0.05);  // raised: room above the wave
}

namespace {
/// True when every corner of every rack lies inside [x0, x1] x [0, height) of the display.
bool all_racks_inside(const HallScene& scene, std::size_t racks, double x0, double x1, double height) {
  for (std::size_t r = 0; r < racks; ++r) {
    for (const auto& corner : scene.rack_display_corners(r)) {
      if (corner[0] < x0 || corner[0] > x1 || corner[1] < 0.0 || corner[1] > height) return false;
    }
  }
  return true;
}
}  // namespace

TEST_CASE("hall: the camera reframes when the view changes shape, and the colour bar stays beside the racks", "[gl]") {
  app();
  HallView hall;
  hall.resize(1400, 800);
  hall.set_report(std::make_shared<const ReportModel>(fixture("small")));
  show_and_wait(hall, hall.vtk_view());
  render(hall.vtk_view());
  const std::size_t racks = hall.report()->layout().rack_count();
  auto inside = [&] {
    const double width = hall.vtk_view()->width() * hall.vtk_view()->devicePixelRatioF();
    const double height = hall.vtk_view()->height() * hall.vtk_view()->devicePixelRatioF();
    const double strip = hall.scene().legend_strip_fraction();
    INFO("view " << width << " x " << height << ", colour bar strip " << strip);
    REQUIRE(strip > 0.0);
    return all_racks_inside(hall.scene(), racks, 0.0, width * (1.0 - strip), height);
  };
  for (const auto preset : {CameraPreset::overview, CameraPreset::top, CameraPreset::front, CameraPreset::side}) {
    hall.apply_camera(preset);
    render(hall.vtk_view());
    CHECK(inside());
  }
  hall.apply_camera(CameraPreset::overview);
  const int wide = hall.vtk_view()->width();
  hall.select_rack(5);  // the rack panel opens beside the hall: the view gets narrower
  QTest::qWait(50);
  render(hall.vtk_view());
  REQUIRE(hall.vtk_view()->width() < wide - 100);
  CHECK(inside());
  hall.select_rack(std::nullopt);
  QTest::qWait(50);
  render(hall.vtk_view());
  CHECK(inside());
  hall.resize(700, 900);  // tall and narrow
  QTest::qWait(50);
  render(hall.vtk_view());
  CHECK(inside());
}

TEST_CASE("compare: each side frames its hall; different halls get their own camera and colour scale", "[gl]") {
  app();
  CompareView compare;
  compare.resize(1400, 700);
  compare.set_reports(std::make_shared<const ReportModel>(fixture("small-hot")),
                      std::make_shared<const ReportModel>(fixture("small")));
  show_and_wait(compare, compare.left_view());
  render(compare.left_view());
  render(compare.right_view());
  CHECK(compare.shared_view());
  CHECK(compare.left_scene().renderer()->GetActiveCamera() == compare.right_scene().renderer()->GetActiveCamera());
  auto framed = [&](VtkView* view, const HallScene& scene, std::size_t racks) {
    const double ratio = view->devicePixelRatioF();
    return all_racks_inside(scene, racks, 0.0, view->width() * ratio * (1.0 - scene.legend_strip_fraction()),
                            view->height() * ratio);
  };
  CHECK(framed(compare.left_view(), compare.left_scene(), 72));
  CHECK(framed(compare.right_view(), compare.right_scene(), 72));

  // A 72-rack hall beside an 8-rack one.
  auto a = std::make_shared<const ReportModel>(fixture("small"));
  auto b = std::make_shared<const ReportModel>(fixture("grid-tone"));
  compare.set_reports(a, b);
  render(compare.left_view());
  render(compare.right_view());
  CHECK_FALSE(compare.shared_view());
  CHECK(compare.left_scene().renderer()->GetActiveCamera() != compare.right_scene().renderer()->GetActiveCamera());
  CHECK(framed(compare.left_view(), compare.left_scene(), 72));
  CHECK(framed(compare.right_view(), compare.right_scene(), 8));
  // Each side's colour scale is its own report's range: B's hottest value takes the top colour.
  const FieldInfo* field_b = b->find_field("/gpu/junction_temperature");
  REQUIRE(field_b != nullptr);
  const auto [lo_b, hi_b] = b->rack_value_range(*field_b, Reduction::max);
  const auto unit = present_field(*field_b, Reduction::max, std::max(std::fabs(lo_b), std::fabs(hi_b))).unit;
  const auto top = compare.right_scene().colour_of(unit.from_si(hi_b));
  const auto above = compare.right_scene().colour_of(unit.from_si(hi_b) + 100.0);
  CHECK(top == above);
  const auto bottom = compare.right_scene().colour_of(unit.from_si(lo_b));
  const auto below = compare.right_scene().colour_of(unit.from_si(lo_b) - 100.0);
  CHECK(bottom == below);
  CHECK(top != bottom);
}

TEST_CASE("hall: colour range over the run, of the time shown, or typed limits", "[gl]") {
  app();
  HallView hall;
  hall.resize(1400, 800);
  auto report = std::make_shared<const ReportModel>(fixture("small"));
  hall.set_report(report);
  show_and_wait(hall, hall.vtk_view());
  hall.set_time_index(4);
  const FieldInfo* field = report->find_field("/gpu/junction_temperature");
  REQUIRE(field != nullptr);
  CHECK(hall.range_mode() == HallView::RangeMode::run);
  const auto [lo, hi] = report->rack_value_range(*field, Reduction::max);
  CHECK(hall.colour_range().first == Approx(lo - 273.15).margin(1e-9));
  CHECK(hall.colour_range().second == Approx(hi - 273.15).margin(1e-9));
  hall.set_range_mode(HallView::RangeMode::frame);
  const auto& shown = hall.shown_values();
  const auto [now_lo, now_hi] = std::minmax_element(shown.begin(), shown.end());
  CHECK(hall.colour_range().first == Approx(*now_lo).margin(1e-9));
  CHECK(hall.colour_range().second == Approx(*now_hi).margin(1e-9));
  // The hottest rack takes the top colour of the palette, the coolest the bottom one.
  CHECK(hall.scene().colour_of(*now_hi) == hall.scene().colour_of(*now_hi + 50.0));
  CHECK(hall.scene().colour_of(*now_lo) == hall.scene().colour_of(*now_lo - 50.0));
  hall.set_limits(20.0, 90.0);
  CHECK(hall.range_mode() == HallView::RangeMode::limits);
  CHECK(hall.colour_range() == std::make_pair(20.0, 90.0));
  hall.set_time_index(7);
  CHECK(hall.colour_range() == std::make_pair(20.0, 90.0));
}

TEST_CASE("hall: the table of largest values lists the hottest GPUs, flies to their rack, and tooltips name racks", "[gl]") {
  app();
  HallView hall;
  hall.resize(1400, 800);
  auto report = std::make_shared<const ReportModel>(fixture("small"));
  hall.set_report(report);
  show_and_wait(hall, hall.vtk_view());
  hall.set_time_index(6);
  render(hall.vtk_view());
  const auto& top = hall.top_entries();
  REQUIRE(top.size() == HallView::top_count);
  for (std::size_t k = 1; k < top.size(); ++k) CHECK(top[k - 1].value >= top[k].value);
  // The hottest GPU is the hottest rack's maximum, and its label names its rack.
  const auto& shown = hall.shown_values();
  CHECK(top[0].value == Approx(*std::max_element(shown.begin(), shown.end())).margin(1e-9));
  const auto& layout = report->layout();
  CHECK(top[0].label.rfind(layout.rack_labels[top[0].rack] + "/", 0) == 0);
  CHECK(hall.top_table()->rowCount() == static_cast<int>(HallView::top_count));
  CHECK(hall.top_table()->item(0, 0)->text().toStdString() == top[0].label);

  // Click the third row: the rack is selected and the camera flies close to it.
  vtkCamera* camera = hall.scene().renderer()->GetActiveCamera();
  const double far = camera->GetDistance();
  const QRect row = hall.top_table()->visualRect(hall.top_table()->model()->index(2, 0));
  QTest::mouseClick(hall.top_table()->viewport(), Qt::LeftButton, Qt::NoModifier, row.center());
  CHECK(hall.selected_rack() == top[2].rack);
  CHECK(camera->GetDistance() < 0.5 * far);
  double focal[3];
  camera->GetFocalPoint(focal);
  const auto& p = layout.rack_position[top[2].rack];
  CHECK(std::hypot(focal[0] - p.x, focal[1] - p.y) < 1e-6);
  QTest::qWait(50);
  render(hall.vtk_view());
  const double ratio = hall.vtk_view()->devicePixelRatioF();
  for (const auto& corner : hall.scene().rack_display_corners(top[2].rack)) {
    CHECK(corner[0] >= 0.0);
    CHECK(corner[0] <= hall.vtk_view()->width() * ratio * (1.0 - hall.scene().legend_strip_fraction()));
  }

  // Hover: the rack's label, its value with the unit, and its hottest GPU.
  hall.select_rack(std::nullopt);
  hall.apply_camera(CameraPreset::top);
  render(hall.vtk_view());
  const std::size_t rack = 10;
  const QPoint at = hall.rack_position_in_view(rack) + QPoint(0, 3);
  const QString text = hall.tooltip_at(at);
  INFO(text.toStdString());
  CHECK(text.startsWith(QString::fromStdString(layout.rack_labels[rack]) + "\n"));
  CHECK(text.contains(QString::fromStdString("GPU junction temperature, max per rack: " +
                                             format_value(shown[rack], "degC"))));
  CHECK(text.contains("largest GPU: " + QString::fromStdString(layout.rack_labels[rack]) + "/"));
  QTest::mouseMove(hall.vtk_view(), at);
  QTest::qWait(100);
  CHECK(QToolTip::text() == text);
  CHECK(hall.tooltip_at(QPoint(2, 2)).isEmpty());
}

TEST_CASE("main window: a report is read in the background and followed when it is replaced", "[gl][follow]") {
  app();
  QTemporaryDir dir;
  const fs::path run = fs::path(dir.path().toStdString()) / "run.h5";
  fs::copy_file(fixture("small"), run);
  MainWindow window;
  window.set_interactive(false);
  window.resize(1300, 800);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window, 10000));
  // An event posted before the open is handled while the report is being read.
  bool handled_while_reading = false;
  QTimer::singleShot(0, &window, [&] { handled_while_reading = window.loading(); });
  REQUIRE(window.open_report(QString::fromStdString(run.string())));
  CHECK(handled_while_reading);
  CHECK_FALSE(window.loading());
  CHECK(window.followed_file() == QFileInfo(QString::fromStdString(run.string())).absoluteFilePath());
  REQUIRE(window.hall()->report()->time().size() == 11);
  window.hall()->set_time_index(10);  // the last sample: stays on the last one after a reload
  window.hall()->select_rack(3);

  // A longer run's report renamed over it (as a run's end does).
  dctwin::gui::testing::FacilityReportOptions longer;
  longer.pods = 3;
  longer.racks_per_pod = 24;
  longer.racks_per_row = 8;
  longer.samples = 21;
  const fs::path next = fs::path(dir.path().toStdString()) / ".run.h5.next01.part";
  dctwin::gui::testing::write_facility_report(next, longer);
  QSignalSpy reloaded(&window, &MainWindow::report_reloaded);
  fs::rename(next, run);
  REQUIRE(reloaded.wait(20000));
  CHECK(window.hall()->report()->time().size() == 21);
  CHECK(window.hall()->time_index() == 20);
  CHECK(window.hall()->selected_rack() == std::optional<std::size_t>(3));
  CHECK(window.last_error().isEmpty());
}

TEST_CASE("main window: a report still being written gives a status, then opens when it is complete", "[gl][follow]") {
  app();
  QTemporaryDir dir;
  const fs::path folder(dir.path().toStdString());
  // A run's temporary with only the first 4 kB written so far.
  const fs::path part = folder / ".live.h5.a1b2c3.part";
  {
    std::ifstream in(fixture("small"), std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream out(part, std::ios::binary);
    out.write(head.data(), static_cast<std::streamsize>(head.size()));
  }
  MainWindow window;
  window.set_interactive(false);
  QSignalSpy errors(&window, &MainWindow::error_reported);
  window.resize(1300, 800);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window, 10000));
  CHECK_FALSE(window.open_report(QString::fromStdString(part.string())));
  CHECK(errors.isEmpty());
  CHECK(window.last_error().isEmpty());
  INFO(window.status_text().toStdString());
  CHECK(window.status_text().startsWith(".live.h5.a1b2c3.part is still being written (0.0 MB so far)"));
  // The run ends: its report appears under the final name and the temporary goes.
  QSignalSpy reloaded(&window, &MainWindow::report_reloaded);
  fs::copy_file(fixture("small"), folder / ".live.h5.tmp");
  fs::rename(folder / ".live.h5.tmp", folder / "live.h5");
  fs::remove(part);
  REQUIRE(reloaded.wait(20000));
  REQUIRE(window.hall()->report() != nullptr);
  CHECK(window.hall()->report()->path().filename() == "live.h5");
  CHECK(window.followed_file().endsWith("/live.h5"));
  CHECK(errors.isEmpty());
}

TEST_CASE("study: events, limits and key figures are read from the report", "[model]") {
  const ReportModel report(fixture("study"));
  const Study study = read_study(report);
  CHECK(study.notes.empty());
  REQUIRE(std::is_sorted(study.events.begin(), study.events.end(),
                         [](const StudyEvent& a, const StudyEvent& b) { return a.time < b.time; }));
  auto first_of = [&](StudyEvent::Kind kind) -> const StudyEvent* {
    for (const auto& e : study.events) {
      if (e.kind == kind) return &e;
    }
    return nullptr;
  };
  const auto* pump = first_of(StudyEvent::Kind::pump_failure);
  REQUIRE(pump != nullptr);
  CHECK(pump->time == 60.0);
  CHECK(pump->text == "pod 0: 2 pumps failed");
  const auto* recorded = first_of(StudyEvent::Kind::recorded);
  REQUIRE(recorded != nullptr);
  CHECK(recorded->time == 90.0);
  CHECK(recorded->text == "gpu shutdown: pod0/rack001/server0/gpu0 reached the shutdown temperature 92.00 degC");
  const auto* envelope = first_of(StudyEvent::Kind::envelope_left);
  REQUIRE(envelope != nullptr);
  CHECK(envelope->time == 30.0);
  CHECK(envelope->text == "outside the cold_aisle_ashrae_a1 envelope (worst 33 degC)");
  // The electrical chain's firsts that happened (BBUs and servers held: -1, no event).
  std::vector<const StudyEvent*> electrical;
  for (const auto& e : study.events)
    if (e.kind == StudyEvent::Kind::electrical) electrical.push_back(&e);
  REQUIRE(electrical.size() == 2);
  CHECK(electrical[0]->time == 45.0);
  CHECK(electrical[0]->text == "utility input sags or is lost (20 s in all)");
  CHECK(electrical[1]->time == 58.5);
  CHECK(electrical[1]->text == "a UPS battery runs out");
  CHECK(std::string(study_event_kind_name(StudyEvent::Kind::electrical)) == "electrical event");
  // Throttling: the intervals of the flagged GPUs, all of them among the events.
  const auto* throttle = report.find_field("/gpu/throttle_reasons");
  REQUIRE(throttle != nullptr);
  const auto throttling = throttling_events(report.time(), report.aggregate_series(*throttle, Reduction::count_nonzero));
  REQUIRE(!throttling.empty());
  for (const auto& t : throttling) {
    CHECK(std::any_of(study.events.begin(), study.events.end(),
                      [&](const StudyEvent& e) { return e.kind == t.kind && e.time == t.time && e.text == t.text; }));
  }
  CHECK(study.events.size() == 5 + throttling.size());

  // Limits from the resolved scenario.
  const auto junction = study.limits_for("max:/gpu/junction_temperature");
  REQUIRE(junction.size() == 3);
  CHECK(junction[0].value == 355.15);
  CHECK(junction[0].source == "facility.gpu.max_operating_temperature");
  CHECK(junction[1].value == 362.15);
  CHECK(junction[2].value == 365.15);
  CHECK(study.limits_for("mean:/gpu/junction_temperature").size() == 3);
  std::string label;
  CHECK(study.lowest_upper_limit("/gpu/junction_temperature", &label) == 355.15);
  CHECK(label == "GPU max operating temperature");
  CHECK(std::isnan(study.lowest_upper_limit("/gpu/power")));
  CHECK(study.limits_for("/gpu/hbm_temperature").size() == 1);
  const auto ramp = study.limits_for("ramp:/grid/power");
  REQUIRE(ramp.size() == 2);
  CHECK(ramp[0].value == 1e6);
  CHECK(ramp[1].value == -1e6);
  CHECK_FALSE(ramp[1].upper);
  const auto frequency = study.limits_for("/grid/frequency");
  REQUIRE(frequency.size() == 2);
  CHECK(frequency[0].relative_to_first);
  CHECK(frequency[0].value == 0.05);
  CHECK(study.limits_for("/grid/voltage").size() == 2);
  REQUIRE(study.limits_for("/grid/transformer_hot_spot").size() == 1);
  CHECK(study.limits_for("/grid/transformer_hot_spot")[0].value == 383.15);
  CHECK(study.limits_for("/grid/power").empty());

  // A report without a study's data has neither events (but its throttling) nor limits.
  const ReportModel plain(fixture("small"));
  const Study none = read_study(plain);
  CHECK(none.limits.empty());
  for (const auto& e : none.events) {
    CHECK((e.kind == StudyEvent::Kind::throttling_start || e.kind == StudyEvent::Kind::throttling_end));
  }

  // Throttling intervals by hand.
  const auto by_hand = throttling_events({0, 10, 20, 30, 40, 50}, {0, 2, 5, 0, 0, 1});
  REQUIRE(by_hand.size() == 3);
  CHECK(by_hand[0].kind == StudyEvent::Kind::throttling_start);
  CHECK(by_hand[0].time == 10.0);
  CHECK(by_hand[0].text == "GPUs throttled (up to 5 at once)");
  CHECK(by_hand[1].kind == StudyEvent::Kind::throttling_end);
  CHECK(by_hand[1].time == 30.0);
  CHECK(by_hand[2].time == 50.0);
  CHECK(by_hand[2].text == "GPUs throttled (up to 1 at once)");

  // Key figures: the run's (summary), then the state at t = 120 s (sample 4: load 0.91).
  const KpiModel kpi(report);
  const auto rows = kpi.rows(4);
  auto value = [&](const std::string& name) {
    for (const auto& row : rows) {
      if (row.name == name) return row;
    }
    return KpiRow{};
  };
  CHECK(value("PUE").value == "<= 1.250");  // a chiller model range left: a bound
  CHECK(value("MFU, mean").value == "41.0 % (planned 43.0 %)");
  CHECK(value("Lost GPU-hours").value == "1.75 h (throttling 1.5, checkpoints 0.25, failures 0)");
  CHECK(value("Grid limits").value == "fail: ramp_rate");
  CHECK(value("Grid limits").state == KpiRow::State::fail);
  CHECK(value("Limits exceeded").value == "2");
  CHECK(value("Models at their data's edge").value == "1: chiller_chilled_water");
  CHECK(value("Models at their data's edge").state == KpiRow::State::none);
  CHECK(value("Pod cold aisle temperature").value == "23.82 to 24.82 degC over 3 pods");
  CHECK(value("Pod pump power").value == "10 to 20 kW over 3 pods");
  // Each pod's own value, in the range's unit: 22 degC + 0.5 K x pod + 2 K x 0.91; pod 0's pumps
  // failed at 60 s.
  using Parts = std::vector<std::pair<std::string, std::string>>;
  CHECK(value("Pod cold aisle temperature").parts ==
        Parts{{"pod0", "23.82 degC"}, {"pod1", "24.32 degC"}, {"pod2", "24.82 degC"}});
  CHECK(value("Pod pump power").parts == Parts{{"pod0", "10 kW"}, {"pod1", "20 kW"}, {"pod2", "20 kW"}});
  CHECK(value("PUE").parts.empty());
  CHECK(value("Model FLOPs utilisation").value == "0.4095");
  CHECK(value("Model FLOPs utilisation").section == "Job");
  CHECK(kpi.rows(0).size() == rows.size());
}

TEST_CASE("charts: limit lines, event lines and a time cursor linked with the hall", "[gl]") {
  app();
  const fs::path path = fixture("study");
  const ReportModel report(path);
  const Study study = read_study(report);
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(path.string())));
  window.show_view(MainWindow::View::charts);
  ChartsView* charts = window.charts();
  show_and_wait(window, charts->vtk_view());
  REQUIRE(charts->set_checked({"max:/gpu/junction_temperature"}) == 1);
  ChartScene& chart = charts->chart();
  REQUIRE(chart.panel_count() == 1);
  // The 82, 89 and 92 degC limits: each drawn, or named in the note as off the scale.
  CHECK(chart.panel_limit_lines(0) + chart.off_scale_limits().size() == 3);
  CHECK(chart.panel_limit_lines(0) >= 1);
  CHECK(chart.panel_y_axis(0).second >= 82.0);
  for (const auto& text : chart.off_scale_limits()) CHECK(charts->note().contains(QString::fromStdString(text)));
  // One dashed line per event in the panel.
  CHECK(chart.panel_event_lines(0) == study.events.size());
  const QImage with = render(charts->vtk_view());
  charts->set_study(nullptr);
  charts->set_checked({"max:/gpu/junction_temperature"});
  CHECK(chart.panel_limit_lines(0) == 0);
  CHECK(chart.panel_event_lines(0) == 0);
  CHECK(fraction_changed(with, render(charts->vtk_view())) > 0.001);

  // The hall's time is the charts' cursor.
  window.hall()->set_time(120.0);
  CHECK(charts->time_cursor() == 120.0);
  REQUIRE(chart.cursor().has_value());
  CHECK(*chart.cursor() * time_unit_for(report.time().back()).seconds == Approx(120.0));
  // A double click in the chart moves the hall (and the key figures) to the sample nearest to it.
  QApplication::processEvents();
  const QPoint where(charts->vtk_view()->width() / 3, charts->vtk_view()->height() / 2);
  const auto x = chart.x_at_display(where.x() * charts->vtk_view()->devicePixelRatioF());
  REQUIRE(x.has_value());
  const double picked = *x * time_unit_for(report.time().back()).seconds;
  QSignalSpy picks(charts, &ChartsView::time_picked);
  QTest::mouseDClick(charts->vtk_view(), Qt::LeftButton, {}, where);
  REQUIRE(picks.count() == 1);
  CHECK(picks.front().front().toDouble() == Approx(picked));
  const double sample = report.time()[report.time_index(picked)];
  CHECK(window.hall()->time() == sample);
  CHECK(charts->time_cursor() == sample);
  CHECK(window.kpi()->heading().contains(QString::fromStdString(format_time(sample, report.time().back()))));
}

TEST_CASE("hall: racks over the limit are framed in red, and a click on an event moves the time", "[gl]") {
  app();
  const fs::path path = fixture("study");
  const ReportModel report(path);
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(path.string())));
  HallView* hall = window.hall();
  show_and_wait(window, hall->vtk_view());
  // The sample with the most racks holding a GPU over the 82 degC limit.
  const auto* field = report.find_field("/gpu/junction_temperature");
  REQUIRE(field != nullptr);
  std::size_t end = 0;
  std::vector<std::size_t> expected;
  for (std::size_t t = 0; t < report.time().size(); ++t) {
    std::vector<std::size_t> over;
    const auto& hottest = report.rack_values(*field, Reduction::max, t);
    for (std::size_t r = 0; r < hottest.size(); ++r) {
      if (hottest[r] > 355.15) over.push_back(r);
    }
    if (over.size() > expected.size()) {
      expected = over;
      end = t;
    }
  }
  REQUIRE(end > 0);
  hall->set_time_index(end);
  const auto& hottest = report.rack_values(*field, Reduction::max, end);
  REQUIRE(!expected.empty());
  REQUIRE(expected.size() < hottest.size());
  hall->set_reduction(Reduction::mean);
  CHECK(hall->alarm_racks() == expected);
  CHECK(hall->scene().alarm_count() == expected.size());
  const auto gpus = report.entity_row(*field, end);
  const auto over = std::count_if(gpus.begin(), gpus.end(), [](double v) { return v > 355.15; });
  CHECK(hall->alarm_text() == QString("Over GPU max operating temperature, 82 degC: %1 racks, %2 GPUs (framed in red)")
                                  .arg(expected.size())
                                  .arg(over));
  // The largest values over the limit are marked in the table.
  REQUIRE(!hall->top_entries().empty());
  CHECK(hall->top_entries().front().value > 82.0);
  CHECK(hall->top_table()->item(0, 0)->background().color() == QColor(255, 205, 205));
  // The frames are drawn: red pixels that are not there without the limits.
  const std::array<double, 3> red{1.0, 0.1, 0.1};
  const int framed = pixels_near(render(hall->vtk_view()), QRect(0, 0, 100000, 100000), red, 20);
  hall->set_study(nullptr);
  hall->set_time_index(end - 1);
  hall->set_time_index(end);
  CHECK(hall->alarm_racks().empty());
  CHECK(hall->alarm_text().isEmpty());
  CHECK(hall->scene().alarm_count() == 0);
  const int plain = pixels_near(render(hall->vtk_view()), QRect(0, 0, 100000, 100000), red, 20);
  CHECK(framed > plain + 50);

  // The events list: a click moves the hall, the charts' cursor and the key figures to its time.
  hall->set_study(std::make_shared<const Study>(read_study(report)));
  QListWidget* events = hall->events_list();
  REQUIRE(events->isVisible());
  int pump_row = -1;
  for (int k = 0; k < events->count(); ++k) {
    if (events->item(k)->text().contains("pump failure: pod 0: 2 pumps failed")) pump_row = k;
  }
  REQUIRE(pump_row >= 0);
  CHECK(events->item(pump_row)->text() == "t = 60 s  pump failure: pod 0: 2 pumps failed");
  events->scrollToItem(events->item(pump_row));
  QTest::mouseClick(events->viewport(), Qt::LeftButton, {}, events->visualItemRect(events->item(pump_row)).center());
  CHECK(hall->time() == 60.0);
  CHECK(window.charts()->time_cursor() == 60.0);
  CHECK(window.kpi()->heading().contains("t = 60 s"));
  // The rack panel's chart has the cursor too (the time axis is in s for this 300-s run).
  hall->select_rack(expected.front());
  REQUIRE(hall->rack_panel()->chart().cursor().has_value());
  CHECK(*hall->rack_panel()->chart().cursor() == Approx(60.0));
  // And the study's events and the field's limits (82, 89 and 92 degC: drawn, or named as off the
  // scale); without a study, neither.
  ChartScene& rack_chart = hall->rack_panel()->chart();
  REQUIRE(rack_chart.panel_count() == 1);
  CHECK(rack_chart.panel_event_lines(0) == read_study(report).events.size());
  CHECK(rack_chart.panel_limit_lines(0) + rack_chart.off_scale_limits().size() == 3);
  CHECK(rack_chart.panel_limit_lines(0) >= 1);
  hall->set_study(nullptr);
  hall->select_rack(expected.back());
  CHECK(rack_chart.panel_event_lines(0) == 0);
  CHECK(rack_chart.panel_limit_lines(0) == 0);
}

TEST_CASE("charts: a compared report's series overlaid, dashed, in the same panels", "[gl]") {
  app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(fixture("study").string())));
  ChartsView* charts = window.charts();
  CHECK_FALSE(charts->overlay_shown());
  REQUIRE(window.compare_with(QString::fromStdString(fixture("small").string())));
  window.show_view(MainWindow::View::charts);
  show_and_wait(window, charts->vtk_view());
  CHECK(charts->overlay_shown());
  REQUIRE(charts->set_checked({"max:/gpu/junction_temperature"}) == 1);
  ChartScene& chart = charts->chart();
  // A's line and B's, one unit: one panel. B is the study without its hot pod 2: 5 K cooler at its max.
  CHECK(chart.series_count() == 2);
  CHECK(chart.panel_count() == 1);
  const std::string csv = charts->csv();
  CHECK(csv.find("GPU junction temperature (max) [degC]") != std::string::npos);
  CHECK(csv.find("B: GPU junction temperature (max) [degC]") != std::string::npos);
  const ReportModel a(fixture("study")), b(fixture("small"));
  const auto a_max = a.aggregate_series(*a.find_field("/gpu/junction_temperature"), Reduction::max);
  const auto b_max = b.aggregate_series(*b.find_field("/gpu/junction_temperature"), Reduction::max);
  const auto [lo, hi] = chart.panel_y_data(0);
  CHECK(lo == Approx(std::min(*std::min_element(a_max.begin(), a_max.end()), *std::min_element(b_max.begin(), b_max.end())) - 273.15));
  CHECK(hi == Approx(std::max(*std::max_element(a_max.begin(), a_max.end()), *std::max_element(b_max.begin(), b_max.end())) - 273.15));
  // Off: A alone.
  charts->set_overlay(false);
  CHECK_FALSE(charts->overlay_shown());
  CHECK(chart.series_count() == 1);
  charts->set_overlay(true);
  CHECK(chart.series_count() == 2);
  // A series report B lacks is named in the note; A's is still drawn.
  REQUIRE(window.open_report(QString::fromStdString(fixture("grid-tone").string())));
  REQUIRE(charts->set_checked({"/utility/power"}) == 1);
  CHECK(chart.series_count() == 1);
  CHECK(charts->note().contains("Not in report B: Power at the grid connection."));
}

TEST_CASE("schematic: a pod's cooling loop and the single line at a sample, from the report", "[model]") {
  const ReportModel report(fixture("study"));
  const SchematicModel model(report);
  CHECK(model.pods() == 3);
  const SchematicState state = model.at(4, 0);  // t = 120 s
  // The fixture has neither plant nor weather series: those boxes are left out, with their pipes.
  CHECK(state.box("outdoor") == nullptr);
  CHECK(state.box("plant") == nullptr);
  CHECK(state.pipes.empty());
  // Pod 0's own values (22 degC + 0.5 K x pod + 2 K x 0.91; its pumps failed at 60 s).
  CHECK(state.value("pod", "cold aisle") == "23.82 degC");
  CHECK(state.value("pod", "pump power") == "10 kW");
  CHECK(model.at(4, 1).value("pod", "cold aisle") == "24.32 degC");
  CHECK(model.at(4, 1).value("pod", "pump power") == "20 kW");
  // Its racks and GPUs against reductions by hand.
  const auto& layout = report.layout();
  const auto* junction = report.find_field("/gpu/junction_temperature");
  const auto* power = report.find_field("/gpu/power");
  REQUIRE(junction != nullptr);
  REQUIRE(power != nullptr);
  const auto row = report.entity_row(*junction, 4);
  const auto watts = report.entity_row(*power, 4);
  double hottest = -1.0, total = 0.0;
  std::size_t racks = 0;
  for (std::size_t r = 0; r < layout.rack_count(); ++r) {
    if (layout.rack_pod[r] != 0) continue;
    ++racks;
    for (const std::size_t g : layout.rack_gpus[r]) {
      hottest = std::max(hottest, row[g]);
      total += watts[g];
    }
  }
  REQUIRE(state.box("racks") != nullptr);
  CHECK(state.box("racks")->title == std::to_string(racks) + " racks of Pod 0");
  CHECK(state.value("gpus", "hottest junction") == format_si(hottest, "K"));
  CHECK(state.value("gpus", "board power, all GPUs") == format_si(total, "W"));
  // The utility's values on /time at the same sample.
  CHECK(state.value("utility", "power drawn") == format_si(report.series_values("/grid/power")[4], "W"));
  CHECK(state.value("utility", "frequency") == format_si(report.series_values("/grid/frequency")[4], "Hz"));
  // Only the utility has values in the fixture: no transformer, UPS or storage box, no feeder.
  CHECK(state.box("transformers") == nullptr);
  CHECK(state.box("ups") == nullptr);
}

TEST_CASE("schematic view: follows the hall's time and the chosen pod, and draws", "[gl]") {
  app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(fixture("study").string())));
  window.show_view(MainWindow::View::hall);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window, 10000));
  // Nothing is read for the schematic until its tab is shown.
  SchematicView* schematic = window.schematic();
  CHECK(schematic->state().cooling.empty());
  window.show_view(MainWindow::View::schematic);
  CHECK_FALSE(schematic->state().cooling.empty());
  window.hall()->set_time(120.0);
  CHECK(schematic->state().value("pod", "cold aisle") == "23.82 degC");
  window.hall()->set_time(0.0);
  CHECK(schematic->state().value("pod", "pump power") == "20 kW");  // before the failure
  schematic->set_pod(2);
  CHECK(schematic->pod() == 2);
  CHECK(schematic->state().box("pod")->title == "Pod 2: CDU, pumps, CRAH");
  const QImage image = schematic->canvas()->grab().toImage();
  CHECK(distinct_colours(image) > 20);
  // On the command line: --view schematic --pod N, and a pod that is not there.
  const QString report = QString::fromStdString(fixture("study").string());
  const QString shot = QString::fromStdString((work_dir / "schematic.png").string());
  auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "schematic", "--pod", "1", "--time", "2 min",
                                        "--size", "1200x800", report});
  INFO(r.err.toStdString());
  CHECK(r.exit_code == 0);
  CHECK(QImage(shot).size() == QSize(1200, 800));
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "schematic", "--pod", "3", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--pod 3: expected a pod from 0 to 2"));
}

TEST_CASE("key figures: the run's summary and the pods at the time shown in the hall", "[gl]") {
  app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(fixture("study").string())));
  KpiPanel* kpi = window.kpi();
  REQUIRE(kpi != nullptr);
  show_and_wait(window, window.hall()->vtk_view());
  REQUIRE(kpi->isVisible());
  CHECK(kpi->value_of("PUE") == "<= 1.250");
  CHECK(kpi->value_of("Grid limits") == "fail: ramp_rate");
  CHECK(kpi->value_of("Limits exceeded") == "2");
  window.hall()->set_time(0.0);
  CHECK(kpi->heading() == "Key figures of the run; the state at t = 0 s");
  CHECK(kpi->value_of("Pod pump power") == "20 kW");
  window.hall()->set_time(120.0);
  CHECK(kpi->value_of("Pod cold aisle temperature") == "23.82 to 24.82 degC over 3 pods");
  CHECK(kpi->value_of("Pod pump power") == "10 to 20 kW over 3 pods");
  // Each pod's value under the range, collapsed until opened; opened, it stays open as the time moves.
  auto pump_row = [&] {
    const auto items = kpi->tree()->findItems("Pod pump power", Qt::MatchExactly | Qt::MatchRecursive, 0);
    REQUIRE(items.size() == 1);
    return items.front();
  };
  REQUIRE(pump_row()->childCount() == 3);
  CHECK(pump_row()->child(0)->text(0) == "pod0");
  CHECK(pump_row()->child(0)->text(1) == "10 kW");
  CHECK(pump_row()->child(2)->text(1) == "20 kW");
  CHECK_FALSE(pump_row()->isExpanded());
  pump_row()->setExpanded(true);
  window.hall()->set_time(0.0);
  CHECK(pump_row()->isExpanded());
  CHECK(pump_row()->child(0)->text(1) == "20 kW");  // before the failure
  CHECK(pump_row()->childCount() == 3);  // also when the pods agree
  pump_row()->setExpanded(false);
  window.hall()->set_time(120.0);
  CHECK_FALSE(pump_row()->isExpanded());
  // Pass and fail are coloured.
  const auto found = kpi->tree()->findItems("Grid limits", Qt::MatchExactly | Qt::MatchRecursive, 0);
  REQUIRE(found.size() == 1);
  CHECK(found.front()->background(1).color() == QColor(255, 200, 200));
  // A report without a summary shows the state at the time only.
  REQUIRE(window.open_report(QString::fromStdString(fixture("small").string())));
  CHECK(kpi->value_of("PUE").isEmpty());
  CHECK_FALSE(kpi->value_of("Model FLOPs utilisation").isEmpty());
}

// ---- percentile bands and the rack x time heat map -------------------------------------------------

TEST_CASE("distribution: sample quantiles, percentile bands and the rack x time map of a report", "[model]") {
  // Hyndman and Fan definition 7: linear between order statistics at h = (n - 1) p.
  const std::vector<double> four{1.0, 2.0, 3.0, 4.0};
  CHECK(sorted_quantile(four, 0.0) == 1.0);
  CHECK(sorted_quantile(four, 0.5) == 2.5);
  CHECK(sorted_quantile(four, 1.0) == 4.0);
  CHECK(sorted_quantile(four, 0.05) == Approx(1.15));
  CHECK(std::isnan(sorted_quantile({}, 0.5)));
  std::vector<double> hundred(101);
  for (std::size_t i = 0; i < hundred.size(); ++i) hundred[i] = static_cast<double>(i);
  CHECK(sorted_quantile(hundred, 0.05) == Approx(5.0));
  CHECK(sorted_quantile(hundred, 0.95) == Approx(95.0));
  // NaN is left out; the order of the values does not matter.
  const auto q = row_quantiles(std::vector<double>{NAN, 3.0, 1.0, 2.0});
  CHECK(q[0] == 1.0);
  CHECK(q[1] == Approx(1.1));
  CHECK(q[2] == 2.0);
  CHECK(q[3] == Approx(2.9));
  CHECK(q[4] == 3.0);
  CHECK(std::isnan(row_quantiles(std::vector<double>{NAN, NAN})[2]));

  const ReportModel report(fixture("small"));
  const auto* tj = report.find_field("/gpu/junction_temperature");
  REQUIRE(tj != nullptr);
  const PercentileBands bands = percentile_bands(report, *tj);
  const std::size_t samples = report.time().size();
  REQUIRE(bands.median().size() == samples);
  const auto& max = report.aggregate_series(*tj, Reduction::max);
  for (std::size_t t = 0; t < samples; ++t) {
    CHECK(bands.max()[t] == max[t]);
    CHECK(bands.min()[t] <= bands.p5()[t]);
    CHECK(bands.p5()[t] <= bands.median()[t]);
    CHECK(bands.median()[t] <= bands.p95()[t]);
    CHECK(bands.p95()[t] <= bands.max()[t]);
  }
  const auto at7 = row_quantiles(report.entity_row(*tj, 7));
  for (std::size_t k = 0; k < at7.size(); ++k) CHECK(bands.q[k][7] == at7[k]);
  CHECK(bands.p95()[7] - bands.p5()[7] > 0.1);  // the fixture's GPUs do differ

  // The map holds the hall's per-rack values.
  const RackTimeMap map = rack_time_map(report, *tj, Reduction::max);
  REQUIRE(map.racks == 72);
  REQUIRE(map.samples == samples);
  for (const std::size_t t : {std::size_t{0}, std::size_t{7}, samples - 1}) {
    const auto& per_rack = report.rack_values(*tj, Reduction::max, t);
    for (const std::size_t r : {std::size_t{0}, std::size_t{25}, std::size_t{71}}) CHECK(map.at(r, t) == per_rack[r]);
  }
  const RackTimeMap mean = rack_time_map(report, *tj, Reduction::mean);
  CHECK(mean.at(25, 7) == Approx(report.rack_values(*tj, Reduction::mean, 7)[25]));
  // Throttled GPUs are counted per rack whatever the reduction asked for.
  const auto* throttle = report.find_field("/gpu/throttle_reasons");
  const RackTimeMap flagged = rack_time_map(report, *throttle, Reduction::max);
  CHECK(flagged.at(70, 10) == report.rack_values(*throttle, Reduction::count_nonzero, 10)[70]);
  // A rack field as stored.
  const auto* supply = report.find_field("/rack/coolant_supply_temperature");
  CHECK(rack_time_map(report, *supply, Reduction::max).at(3, 4) == report.entity_row(*supply, 4)[3]);

  // Orders: a permutation of the racks; by peak non-increasing; by position pod, y, x.
  const auto by_peak = rack_order(report.layout(), map, RackOrder::peak);
  const auto by_position = rack_order(report.layout(), map, RackOrder::position);
  for (const auto* order : {&by_peak, &by_position}) {
    CHECK(std::set<std::size_t>(order->begin(), order->end()).size() == 72);
  }
  for (std::size_t i = 1; i < by_peak.size(); ++i) CHECK(map.peak(by_peak[i - 1]) >= map.peak(by_peak[i]));
  double hottest = -1e300;
  for (std::size_t r = 0; r < 72; ++r) hottest = std::max(hottest, map.peak(r));
  CHECK(map.peak(by_peak.front()) == hottest);
  const auto& layout = report.layout();
  for (std::size_t i = 1; i < by_position.size(); ++i) {
    const std::size_t a = by_position[i - 1], b = by_position[i];
    CHECK(std::make_tuple(layout.rack_pod[a], layout.rack_position[a].y, layout.rack_position[a].x) <=
          std::make_tuple(layout.rack_pod[b], layout.rack_position[b].y, layout.rack_position[b].x));
  }
  // The colour map's ends are the hall's (plasma's first and last colours).
  CHECK(sequential_colour(0.0) == std::array<unsigned char, 3>{13, 8, 135});
  CHECK(sequential_colour(1.0) == std::array<unsigned char, 3>{240, 249, 33});
  CHECK(sequential_colour(2.0) == sequential_colour(1.0));
}

TEST_CASE("chart CSV: a band adds its lower and upper bound after its series", "[model]") {
  ChartSeries median{"GPU junction temperature (median of GPUs)", "degC", {60.0, 61.5}};
  median.bands.push_back({"p5-p95 over GPUs", {58.0, 59.25}, {62.0, 63.0}});
  const std::string csv = chart_csv({0, 0.5}, "time [min]", {median});
  CHECK(csv ==
        "time [min],GPU junction temperature (median of GPUs) [degC],"
        "\"GPU junction temperature (median of GPUs), p5-p95 over GPUs lower [degC]\","
        "\"GPU junction temperature (median of GPUs), p5-p95 over GPUs upper [degC]\"\n"
        "0,60,58,62\n0.5,61.5,59.25,63\n");
}

TEST_CASE("charts: percentile bands of all GPUs around their median, with the limit lines", "[gl]") {
  app();
  const fs::path path = fixture("study");
  const ReportModel report(path);
  const auto* tj = report.find_field("/gpu/junction_temperature");
  const PercentileBands bands = percentile_bands(report, *tj);
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(path.string())));
  window.show_view(MainWindow::View::charts);
  ChartsView* charts = window.charts();
  show_and_wait(window, charts->vtk_view());
  CHECK(charts->available().contains("bands:/gpu/junction_temperature"));
  CHECK(charts->available().contains("bands:/rack/coolant_return_temperature"));
  CHECK_FALSE(charts->available().contains("bands:/gpu/throttle_reasons"));
  REQUIRE(charts->set_checked({"max:/gpu/junction_temperature"}) == 1);
  const QImage max_only = render(charts->vtk_view());
  REQUIRE(charts->set_checked({"bands:/gpu/junction_temperature"}) == 1);
  ChartScene& chart = charts->chart();
  REQUIRE(chart.panel_count() == 1);
  CHECK(chart.panel_bands(0) == 2);
  // The panel spans the bands: from the coldest GPU to the hottest over the run (degC).
  const auto [lo, hi] = chart.panel_y_data(0);
  CHECK(lo == Approx(*std::min_element(bands.min().begin(), bands.min().end()) - 273.15));
  CHECK(hi == Approx(*std::max_element(bands.max().begin(), bands.max().end()) - 273.15));
  // The field's limits hold the median line's panel as they hold the max's.
  CHECK(chart.panel_limit_lines(0) + chart.off_scale_limits().size() == 3);
  // The CSV has the median and both bands at full resolution.
  const std::string csv = charts->csv();
  CHECK(csv.find("GPU junction temperature (median of GPUs) [degC]") != std::string::npos);
  CHECK(csv.find("min-max over GPUs lower [degC]") != std::string::npos);
  CHECK(csv.find("p5-p95 over GPUs upper [degC]") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == static_cast<long>(report.time().size() + 1));
  // Shaded: many pixels in the band's tints of the first series colour (68, 119, 170) over white.
  const QImage with_bands = render(charts->vtk_view());
  CHECK(fraction_changed(max_only, with_bands) > 0.01);
  const QRect plot(100, 40, with_bands.width() - 140, with_bands.height() - 100);
  const int outer = pixels_near(with_bands, plot, {200 / 255.0, 216 / 255.0, 230 / 255.0}, 14);
  const int inner = pixels_near(with_bands, plot, {146 / 255.0, 176 / 255.0, 205 / 255.0}, 14);
  INFO("outer band pixels " << outer << ", inner band pixels " << inner);
  CHECK(outer > 500);
  CHECK(inner > 500);
}

TEST_CASE("heat map: racks x time coloured by a field, ordered by place or peak, linked with the hall", "[gl]") {
  app();
  const fs::path path = fixture("study");
  const ReportModel report(path);
  const auto* tj = report.find_field("/gpu/junction_temperature");
  MainWindow window;
  window.set_interactive(false);
  window.resize(1400, 900);
  REQUIRE(window.open_report(QString::fromStdString(path.string())));
  HeatMapView* heat = window.heat_map();
  window.show_view(MainWindow::View::heat_map);
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window, 10000));
  QApplication::processEvents();
  CHECK(heat->field() == "/gpu/junction_temperature");
  REQUIRE(heat->map().racks == 72);
  REQUIRE(heat->map().samples == report.time().size());
  CHECK(heat->title() == "GPU junction temperature, max per rack [degC], racks by position");
  const RackTimeMap expected = rack_time_map(report, *tj, Reduction::max);
  CHECK(heat->map().values == expected.values);
  CHECK(heat->rows() == rack_order(report.layout(), expected, RackOrder::position));
  heat->set_order(RackOrder::peak);
  const auto& rows = heat->rows();
  REQUIRE(rows.size() == 72);
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(expected.peak(rows[i - 1]) >= expected.peak(rows[i]));
  CHECK(heat->title().endsWith("racks by peak"));

  // Every cell is painted in its value's colour on the colour range of the map (no cursor over it).
  heat->set_time_cursor(NAN);
  const auto [lo, hi] = heat->colour_range();
  CHECK(lo < hi);
  const QImage image = heat->canvas()->grab().toImage().convertToFormat(QImage::Format_RGB32);
  for (const std::size_t rack : {rows.front(), rows[36], rows.back()}) {
    for (const std::size_t t : {std::size_t{0}, std::size_t{5}, report.time().size() - 1}) {
      const QPoint at = heat->position_of(rack, t);
      const auto cell = heat->cell_at(at);
      REQUIRE(cell.has_value());
      CHECK(cell->first == rack);
      CHECK(cell->second == t);
      const double value = expected.at(rack, t) - 273.15;
      const auto rgb = sequential_colour((value - lo) / (hi - lo));
      const QRgb pixel = image.pixel(at);
      INFO("rack " << rack << " sample " << t);
      CHECK(std::abs(qRed(pixel) - rgb[0]) <= 2);
      CHECK(std::abs(qGreen(pixel) - rgb[1]) <= 2);
      CHECK(std::abs(qBlue(pixel) - rgb[2]) <= 2);
    }
  }
  // Tooltip: the rack, the time and the value with its unit.
  const std::size_t hottest = rows.front();
  const QString text = heat->cell_text(hottest, 5);
  CHECK(text == QString::fromStdString(report.layout().rack_labels[hottest] + " at " +
                                       format_time(report.time()[5], report.time().back()) + ": " +
                                       format_value(expected.at(hottest, 5) - 273.15, "degC")));

  // The hall's time is the map's cursor; a click on a cell moves the hall there and selects the rack.
  window.hall()->set_time(120.0);
  CHECK(heat->time_cursor() == 120.0);
  QSignalSpy picked(heat, &HeatMapView::time_picked);
  QTest::mouseClick(heat->canvas(), Qt::LeftButton, {}, heat->position_of(hottest, 8));
  REQUIRE(picked.count() == 1);
  CHECK(window.hall()->time() == report.time()[8]);
  CHECK(heat->time_cursor() == report.time()[8]);
  REQUIRE(window.hall()->selected_rack().has_value());
  CHECK(*window.hall()->selected_rack() == hottest);
  CHECK_FALSE(heat->cell_at(QPoint(2, 2)).has_value());

  // The study's events above the map: every event named by one mark (events a pixel column or two
  // apart share one), each in its kind's colour; the pump failure at 60 s a purple triangle.
  heat->set_time_cursor(NAN);
  const Study study = read_study(report);
  const auto marks = heat->event_marks();
  REQUIRE_FALSE(marks.empty());
  qsizetype named = 0;
  for (const auto& mark : marks) named += mark.text.count('\n') + 1;
  CHECK(named == static_cast<qsizetype>(study.events.size()));
  const auto pump = std::find_if(marks.begin(), marks.end(), [](const auto& m) { return m.text.startsWith("pump failure"); });
  REQUIRE(pump != marks.end());
  CHECK(pump->text == "pump failure at " + QString::fromStdString(format_time(60.0, report.time().back())) +
                          ": pod 0: 2 pumps failed");
  CHECK(pump->colour == QColor(140, 0, 160));
  // It points at the column of the sample at 60 s.
  const auto at_60 = std::find(report.time().begin(), report.time().end(), 60.0);
  REQUIRE(at_60 != report.time().end());
  const QPoint column = heat->position_of(hottest, static_cast<std::size_t>(at_60 - report.time().begin()));
  CHECK(std::abs(pump->position.x() - column.x()) <= 1);
  CHECK(heat->cell_at(pump->position + QPoint(0, 1)).has_value());  // the tip sits on the map's top edge
  const QImage marked = heat->canvas()->grab().toImage().convertToFormat(QImage::Format_RGB32);
  CHECK(QColor(marked.pixel(pump->position + QPoint(0, -6))) == pump->colour);
  CHECK(heat->tooltip_at(pump->position + QPoint(1, -5)) == pump->text);
  CHECK(heat->tooltip_at(heat->position_of(hottest, 5)) == text);
  // The GPU max operating temperature (82 degC) on the colour bar, and the racks above it by their
  // hottest GPU at some sample; a mean per rack has no limit.
  CHECK(heat->limit() == 355.15);
  std::size_t over = 0;
  for (std::size_t rack = 0; rack < expected.racks; ++rack) {
    bool above = false;
    for (std::size_t t = 0; t < expected.samples; ++t) above = above || expected.at(rack, t) > 355.15;
    over += above ? 1 : 0;
  }
  CHECK(heat->racks_over_limit() == over);
  const auto* note = heat->findChild<QLabel*>("heatMapNote");
  REQUIRE(note != nullptr);
  CHECK(note->text().contains(over == 0 ? QString("No rack exceeds the GPU max operating temperature 82 degC")
                                        : QString("%1 of 72 racks exceed the GPU max operating temperature 82 degC").arg(over)));
  heat->set_reduction(Reduction::mean);
  CHECK(std::isnan(heat->limit()));
  CHECK_FALSE(note->text().contains("GPU max operating temperature"));
  heat->set_reduction(Reduction::max);

  // Another field: the throttled GPUs per rack; the map is read again.
  REQUIRE(heat->set_field("/gpu/throttle_reasons"));
  const auto* throttle = report.find_field("/gpu/throttle_reasons");
  CHECK(heat->map().values == rack_time_map(report, *throttle, Reduction::count_nonzero).values);
  CHECK(heat->title() == "GPU throttle reasons (NVML bitmask), GPUs flagged per rack [GPUs], racks by peak");
  CHECK_FALSE(heat->set_field("/no/such/field"));
}

TEST_CASE("animation: frames of the window at the samples, on the command line and from the window", "[gl]") {
  const QString report = QString::fromStdString(fixture("study").string());
  const ReportModel model(fixture("study"));
  const auto& time = model.time();
  const QString dir = QString::fromStdString((work_dir / "animation").string());
  QDir(dir).removeRecursively();
  // The heat map from 30 s to 4 min: the samples in range, thinned to at most 3 frames.
  auto r = run_process(DCTWIN_GUI_EXE, {"--animate", dir, "--view", "heatmap", "--from", "30 s", "--to", "4 min",
                                        "--frames", "3", "--size", "1000x700", report});
  INFO(r.err.toStdString());
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.contains("3 frames in"));
  std::vector<double> in_range;
  for (const double t : time)
    if (t >= 30.0 && t <= 240.0) in_range.push_back(t);
  REQUIRE(in_range.size() > 3);
  const std::size_t stride = (in_range.size() + 2) / 3;
  QFile index(dir + "/frames.csv");
  REQUIRE(index.open(QIODevice::ReadOnly | QIODevice::Text));
  const QStringList lines = QString::fromUtf8(index.readAll()).split('\n', Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 4);
  CHECK(lines[0] == "frame,file,time [s]");
  std::vector<QImage> frames;
  for (int i = 0; i < 3; ++i) {
    const QStringList fields = lines[i + 1].split(',');
    REQUIRE(fields.size() == 3);
    CHECK(fields[0].toInt() == i);
    CHECK(fields[1] == QString("frame-%1.png").arg(i, 4, 10, QChar('0')));
    CHECK(fields[2].toDouble() == in_range[static_cast<std::size_t>(i) * stride]);
    frames.emplace_back(dir + "/" + fields[1]);
    REQUIRE_FALSE(frames.back().isNull());
    CHECK(frames.back().size() == QSize(1000, 700));
  }
  // The time cursor moves across the map from frame to frame.
  CHECK(fraction_changed(frames[0], frames[1]) > 0.0005);
  CHECK(fraction_changed(frames[1], frames[2]) > 0.0005);
  // Bad ranges and counts are refused before anything is drawn.
  r = run_process(DCTWIN_GUI_EXE, {"--animate", dir, "--from", "20 min", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains(QString::fromStdString(": no sample from " + format_time(1200.0, time.back()) +
                                              " on (the report's samples run from " + format_time(time.front(), time.back()) +
                                              " to " + format_time(time.back(), time.back()) + ")")));
  r = run_process(DCTWIN_GUI_EXE, {"--animate", dir, "--frames", "0", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--frames 0: expected a number of frames of at least 1"));
  r = run_process(DCTWIN_GUI_EXE, {"--animate", dir, "--from", "soon", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--from soon: "));

  // From the window: stopped after two frames by the progress callback; the hall's time is put back.
  app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(900, 600);
  REQUIRE(window.open_report(report));
  window.show();
  window.hall()->set_time(120.0);
  const QString again = QString::fromStdString((work_dir / "animation-window").string());
  QDir(again).removeRecursively();
  std::vector<std::size_t> calls;
  const std::size_t written = window.export_animation(again, 0.0, 1e9, 1000, [&](std::size_t done, std::size_t total) {
    CHECK(total == time.size());
    calls.push_back(done);
    return done < 2;
  });
  CHECK(written == 2);
  CHECK(calls == std::vector<std::size_t>{1, 2});
  CHECK(QFileInfo::exists(again + "/frame-0001.png"));
  CHECK_FALSE(QFileInfo::exists(again + "/frame-0002.png"));
  CHECK(window.hall()->time() == 120.0);
  CHECK_THROWS_AS(window.export_animation(again, 1e6, 2e6, 10), std::invalid_argument);
  CHECK_THROWS_AS(window.export_animation(again, 0.0, 1e9, 0), std::invalid_argument);
}

TEST_CASE("command line: a heat map screenshot, and its options checked", "[gl]") {
  const QString report = QString::fromStdString(fixture("study").string());
  const QString shot = QString::fromStdString((work_dir / "heatmap.png").string());
  auto r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "heatmap", "--field", "junction_temperature",
                                        "--order", "peak", "--time", "2 min", "--size", "1000x700", report});
  INFO(r.err.toStdString());
  CHECK(r.exit_code == 0);
  const QImage image(shot);
  REQUIRE_FALSE(image.isNull());
  CHECK(image.size() == QSize(1000, 700));
  CHECK(distinct_colours(image) > 50);
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "heatmap", "--order", "hottest", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--order hottest: expected position or peak"));
  r = run_process(DCTWIN_GUI_EXE, {"--screenshot", shot, "--view", "heatmap", "--field", "nothing", report});
  CHECK(r.exit_code == 64);
  CHECK(r.err.contains("--field nothing: no such field in the report (fields: /gpu/junction_temperature"));
}
