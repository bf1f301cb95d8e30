// make_facility_report OUT.h5 [PODS [RACKS_PER_POD [SAMPLES [POD2_OFFSET_K]]]]: writes a synthetic
// facility report (default: 8 pods x 192 racks x 16 GPUs = 24,576 GPUs, 25 samples).
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "facility_report.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 6) {
    std::fprintf(stderr, "usage: make_facility_report OUT.h5 [PODS [RACKS_PER_POD [SAMPLES [POD2_OFFSET_K]]]]\n");
    return 64;
  }
  dctwin::gui::testing::FacilityReportOptions options;
  if (argc > 2) options.pods = std::atoi(argv[2]);
  if (argc > 3) options.racks_per_pod = std::atoi(argv[3]);
  if (argc > 4) options.samples = std::atoi(argv[4]);
  if (argc > 5) options.pod2_offset = std::atof(argv[5]);
  if (options.pods < 1 || options.racks_per_pod < 1 || options.samples < 1) {
    std::fprintf(stderr, "make_facility_report: counts must be positive\n");
    return 64;
  }
  try {
    dctwin::gui::testing::write_facility_report(argv[1], options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_facility_report: %s\n", e.what());
    return 74;
  }
  return 0;
}
