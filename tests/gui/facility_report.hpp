// Synthetic facility reports for the GUI's tests, screenshots and benchmark, written with the
// project's ReportWriter in the conventions the facility-scale models will use (entities gpu and
// rack, /layout/*, per-rack and per-GPU fields, scalar series). The numbers are made up but smooth
// and deterministic: a warm region that moves across the hall with time, per-rack and per-GPU
// spread, GPUs above 83 degC flagged as thermally throttled.
#pragma once

#include <filesystem>

namespace dctwin::gui::testing {

struct FacilityReportOptions {
  int pods = 8;
  int racks_per_pod = 192;   ///< in rows of `racks_per_row`
  int racks_per_row = 24;
  int servers_per_rack = 2;
  int gpus_per_server = 8;
  int samples = 25;          ///< time samples, every `interval` s from 0
  double interval = 30.0;    ///< [s]
  double pod2_offset = 0.0;  ///< extra junction temperature in pod 2 [K] (for comparisons)
};

/// Writes the report (replacing `path`).
void write_facility_report(const std::filesystem::path& path, const FacilityReportOptions& options = {});

}  // namespace dctwin::gui::testing
