// The dctwin-gui command: `dctwin-gui [REPORT|SCENARIO]`, `--screenshot FILE` (render the window to
// a PNG and exit) and `--benchmark N` (frame times of the data hall).
#pragma once

namespace dctwin::gui {

/// Exit codes: 0 ok; 64 bad command line; 65 a file that is not a report or scenario; 66 missing
/// input file; 69 OpenGL unavailable (screenshot and benchmark); 73 the screenshot cannot be written.
int run_application(int argc, char** argv);

}  // namespace dctwin::gui
