// Checks a report before the desktop application reads it: a damaged file can crash or hang
// libhdf5, which would take the whole application (and the user's other work in it) down.
#pragma once

#include <filesystem>
#include <string>

namespace dctwin::gui {

/// Reads the report at `path` in a separate process (io::probe_report through the
/// dctwin-report-probe helper) the way ReportModel and ValidationModel read it: every attribute,
/// every string dataset, the time axis and the numeric datasets up to 16 M values (beyond that
/// their first and last rows). Returns "" when the application may read it, else the sentence for
/// the user, e.g. "out/run.h5: damaged: libhdf5 crashed (SIGSEGV) while reading /index/gpu". A report
/// the readers merely refuse (not HDF5, truncated) is left to them and their own messages.
[[nodiscard]] std::string check_report(const std::filesystem::path& path);

/// The helper program used by check_report: $DCTWIN_REPORT_PROBE when set, else
/// dctwin-report-probe beside the running executable, else the one of the build tree; "" when none
/// exists (check_report then reads in a forked copy of the application; see report_check.cpp).
[[nodiscard]] std::filesystem::path report_probe_program();

}  // namespace dctwin::gui
