// dctwin-report-probe: reads a report in a process of its own for io::probe_report
// (dctwin/io/report_probe.hpp), for callers that must not fork a copy of themselves (the desktop
// application, whose other threads may be inside libhdf5 at any moment).
#include <cstdlib>

#include "dctwin/io/report_probe.hpp"

// _Exit: the exit status is the verdict on the report; nothing of this process needs tearing down
// (libhdf5 may keep memory of a file it refused, which a leak check at exit would count).
int main(int argc, char** argv) { std::_Exit(dctwin::io::report_probe_main(argc, argv)); }
