#include "dctwin/gui/report_check.hpp"

#include <cstdlib>
#include <system_error>

#include "dctwin/io/report_probe.hpp"

namespace dctwin::gui {

std::filesystem::path report_probe_program() {
  std::error_code error;
  if (const char* chosen = std::getenv("DCTWIN_REPORT_PROBE"); chosen != nullptr && *chosen != '\0') return chosen;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    const auto beside = self.parent_path() / "dctwin-report-probe";
    if (std::filesystem::is_regular_file(beside, error)) return beside;
  }
#ifdef DCTWIN_REPORT_PROBE_EXE
  if (std::filesystem::is_regular_file(DCTWIN_REPORT_PROBE_EXE, error)) return DCTWIN_REPORT_PROBE_EXE;
#endif
  return {};
}

std::string check_report(const std::filesystem::path& path) {
  io::ReportProbeOptions options;
  options.datasets = {"/time"};
  options.read_strings = true;
  options.read_all_data = true;
  options.max_values = std::size_t{1} << 24;
  options.timeout_seconds = 30.0;
  // The application runs simulations in worker threads that write reports through libhdf5 while
  // the user opens another one; a forked copy of it would inherit libhdf5's lock held by such a
  // thread and wait forever. So the reading runs in a helper program of its own (fork + exec, with
  // nothing but system calls in between). Without the helper (a copied binary), a forked copy is
  // the fallback: right whenever no run is in progress.
  options.helper = report_probe_program();
  const io::ReportProbe probe = io::probe_report(path, options);
  if (!probe.damaged()) return {};
  return path.string() + ": " + probe.message;
}

}  // namespace dctwin::gui
