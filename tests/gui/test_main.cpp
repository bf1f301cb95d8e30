// Catch2 runner for the GUI tests. The QApplication is created on first use (see gui_test.hpp), so
// that listing the tests at build time needs no display; the default surface format is set first.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "gui_test.hpp"

#include <QApplication>

#include "vtk_view.hpp"

namespace dctwin::gui::testing {
namespace {
int argc_copy = 1;
char name[] = "test_gui";
char* argv_copy[] = {name, nullptr};
QApplication* application = nullptr;
}  // namespace

QApplication& app() {
  if (application == nullptr) {
    VtkView::set_default_surface_format();
    application = new QApplication(argc_copy, argv_copy);
    QApplication::setOrganizationName("dctwin-tests");
    QApplication::setApplicationName("test_gui");
  }
  return *application;
}

}  // namespace dctwin::gui::testing

int main(int argc, char** argv) {
  const int result = Catch::Session().run(argc, argv);
  delete dctwin::gui::testing::application;
  return result;
}
