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
  /// Fine grid series /grid/{time,power,frequency} (the electrical feed's layout): this many samples
  /// every `grid_dt` s; 0 writes none (the 1-s grid power and frequency are then /grid/power and
  /// /grid/frequency on /time, otherwise /utility/power and /utility/frequency).
  int grid_samples = 0;
  double grid_dt = 1e-3;          ///< [s]
  double grid_power = 100e6;      ///< mean grid power [W]
  double grid_tone_hz = 0.0;      ///< frequency of a sinusoidal power swing [Hz] (0: none)
  double grid_tone_amplitude = 5e6;  ///< its amplitude [W]
  double grid_step = 0.0;         ///< a power step [W] at the middle of the record (a ramp to see)
  /// What a study reads beside the fields: a resolved scenario with the GPU's temperature limits
  /// (max operating temperature `gpu_limit`, hardware slowdown 362.15 K, shutdown 365.15 K), the
  /// grid limits and a pump failure at 60 s (pod 0, 2 pumps); a recorded event at 90 s; summary
  /// figures (PUE 1.25, MFU 41 % of 43 % planned, lost GPU-hours 1.5 + 0.25 + 0, the grid's ramp
  /// rate limit exceeded, the cold-aisle envelope left at 30 s); and [time x pod] fields
  /// /pod/cold_aisle_temperature = 295.15 K + 0.5 K x pod + 2 K x load, /pod/pump_power =
  /// 20 kW (10 kW in pod 0 from 60 s on).
  bool study = false;
  double gpu_limit = 355.15;      ///< [K]
};

/// Writes the report (replacing `path`).
void write_facility_report(const std::filesystem::path& path, const FacilityReportOptions& options = {});

}  // namespace dctwin::gui::testing
