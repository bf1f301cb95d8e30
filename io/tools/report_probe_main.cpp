// dctwin-report-probe: reads a report in a process of its own for io::probe_report
// (dctwin/io/report_probe.hpp), for callers that must not fork a copy of themselves (the desktop
// application, whose other threads may be inside libhdf5 at any moment).
#include "dctwin/io/report_probe.hpp"

int main(int argc, char** argv) { return dctwin::io::report_probe_main(argc, argv); }
