// Read access to a validation report (`dctwin validate`, layout in docs/validation.md) for the
// validation view: the trace GPUs, the quantities compared, their metrics per GPU and pooled, and
// the measured and simulated series. No widgets, no VTK.
//
//   /validation                     attributes start_time [s since the epoch], start_time_utc, notes
//   /validation/gpu                 [gpu] trace GPU labels
//   /validation/metrics/<q>/<m>     [gpu], attributes overall, units, long_name
//   /validation/series/<q>/{time,measured,simulated}   [gpu x sample], NaN-padded
//   /validation/phases/{names,overall_share}
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace dctwin::gui {

/// One metric of one quantity: a value per trace GPU and the pooled value.
struct ValidationMetric {
  std::string name;       ///< mae, rmse, bias, cv_rmse, nmbe, max_error, lag, count
  std::string units;      ///< as stored: the quantity's unit, "1" or "s"
  std::string long_name;
  std::vector<double> per_gpu;
  double overall = 0.0;   ///< all GPUs pooled (NaN when the file has none)
};

struct ValidationQuantity {
  std::string name;   ///< power, junction_temperature, sm_clock (as the trace had them)
  std::string units;  ///< W, K, Hz
  std::vector<ValidationMetric> metrics;  ///< in the order of validation_metric_names(), present ones
  [[nodiscard]] const ValidationMetric* metric(const std::string& name) const;
};

/// Measured and simulated values of one quantity for one GPU; NaN padding removed.
struct ValidationSeries {
  std::vector<double> time;  ///< s since the validation's start time
  std::vector<double> measured;
  std::vector<double> simulated;
};

/// mae, rmse, bias, cv_rmse, nmbe, max_error, lag, count: the order of the metrics table.
[[nodiscard]] const std::vector<std::string>& validation_metric_names();
/// "MAE", "RMSE", "bias", "CV(RMSE)", "NMBE", "max error", "lag", "n".
[[nodiscard]] std::string validation_metric_title(const std::string& name);

class ValidationModel {
 public:
  /// Whether `path` is an HDF5 file with a /validation group or a `dctwin_validation_version`
  /// root attribute (false for a missing file or a simulation report).
  [[nodiscard]] static bool is_validation_report(const std::filesystem::path& path);

  /// Opens a validation report. Throws std::runtime_error "<path>: not a validation report
  /// (no /validation)" or "<path>: cannot open the validation report".
  explicit ValidationModel(const std::filesystem::path& path);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const std::vector<std::string>& gpu_labels() const { return gpus_; }
  [[nodiscard]] const std::vector<ValidationQuantity>& quantities() const { return quantities_; }
  [[nodiscard]] const ValidationQuantity* quantity(const std::string& name) const;
  /// Series of `quantity` for trace GPU `gpu`; empty when the file has none.
  [[nodiscard]] ValidationSeries series(const std::string& quantity, std::size_t gpu) const;
  [[nodiscard]] double start_time() const { return start_time_; }          ///< s since the epoch
  [[nodiscard]] const std::string& start_time_utc() const { return start_time_utc_; }
  [[nodiscard]] const std::string& notes() const { return notes_; }
  [[nodiscard]] const std::vector<std::string>& phase_names() const { return phase_names_; }
  [[nodiscard]] const std::vector<double>& phase_overall_share() const { return phase_share_; }

 private:
  std::filesystem::path path_;
  std::vector<std::string> gpus_;
  std::vector<ValidationQuantity> quantities_;
  struct StoredSeries {
    std::string quantity;
    std::size_t gpus = 0, samples = 0;
    std::vector<double> time, measured, simulated;  // [gpu x sample]
  };
  std::vector<StoredSeries> series_;
  double start_time_ = 0.0;
  std::string start_time_utc_;
  std::string notes_;
  std::vector<std::string> phase_names_;
  std::vector<double> phase_share_;
};

}  // namespace dctwin::gui
