// Reading a validation report (`dctwin validate`, written by write_validation_hdf5; layout in
// docs/validation.md) as it is stored, for viewers:
//
//   /                               attribute dctwin_validation_version
//   /validation                     attributes start_time [s since the epoch], start_time_utc, notes
//   /validation/gpu                 [gpu] trace GPU labels
//   /validation/metrics/<q>         attribute units
//   /validation/metrics/<q>/<m>     [gpu], attributes overall, units, long_name
//   /validation/series/<q>/{time,measured,simulated}   [gpu x sample], NaN-padded
//   /validation/phases/{names,overall_share}
//
// The reader is lenient about what is missing (an absent dataset is empty, an absent or non-string
// attribute is "", an absent number attribute is NaN) and strict about what HDF5 cannot read (a
// ReportError). A numeric dataset that declares more than `max_validation_values` values is refused
// before anything is allocated: a few bytes of HDF5 can declare terabytes of fill values.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace dctwin::io {

/// 2^27 values (1 GiB as double): far beyond any validation report (8 GPUs for a day at 10 Hz is
/// 6.9 M values).
inline constexpr std::size_t max_validation_values = std::size_t{1} << 27;

/// `/validation/metrics/<quantity>/<name>`.
struct StoredValidationMetric {
  std::string name;       ///< mae, rmse, bias, cv_rmse, nmbe, max_error, lag, count
  std::string units;      ///< the quantity's unit, "1" or "s"
  std::string long_name;
  std::vector<double> per_gpu;
  double overall = 0.0;   ///< attribute `overall`; NaN when absent
};

/// `/validation/metrics/<name>`: its metrics in name order.
struct StoredValidationQuantity {
  std::string name;   ///< power, junction_temperature, sm_clock
  std::string units;  ///< attribute `units` of the group ("" when absent)
  std::vector<StoredValidationMetric> metrics;
};

/// `/validation/series/<quantity>`: three [gpu x sample] datasets of one shape, row-major.
struct StoredValidationSeries {
  std::string quantity;
  std::string units;  ///< attribute `units` of `measured`
  std::size_t gpus = 0;
  std::size_t samples = 0;
  std::vector<double> time;  ///< s since the epoch; NaN padding
  std::vector<double> measured;
  std::vector<double> simulated;
};

struct StoredValidationReport {
  double start_time = 0.0;  ///< s since the epoch (0 when absent)
  std::string start_time_utc;
  std::string notes;
  std::vector<std::string> gpus;         ///< /validation/gpu
  std::vector<std::string> phase_names;  ///< /validation/phases/names
  std::vector<double> phase_share;       ///< /validation/phases/overall_share [1]
  std::vector<StoredValidationQuantity> quantities;  ///< name order
  /// Name order; a quantity whose three datasets are not 2-D of one shape is left out.
  std::vector<StoredValidationSeries> series;
};

/// Whether `path` is an HDF5 file with a `dctwin_validation_version` root attribute or a
/// /validation/metrics group (false for a missing file, another file or a simulation report).
[[nodiscard]] bool is_validation_report(const std::filesystem::path& path);

/// Reads a validation report. Throws ReportError "<path>: cannot open the validation report",
/// "<path>: not a validation report (no /validation)", "<dataset>: N values declared, more
/// than the 134217728 this reader holds in memory" or HDF5's reason for a part it cannot read.
[[nodiscard]] StoredValidationReport read_validation_report(const std::filesystem::path& path);

}  // namespace dctwin::io
