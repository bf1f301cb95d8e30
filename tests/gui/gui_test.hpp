// Helpers shared by the GUI tests.
#pragma once

class QApplication;

namespace dctwin::gui::testing {

/// The test process's QApplication (created on first use).
QApplication& app();

}  // namespace dctwin::gui::testing
