#include "dctwin/gui/validation_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dctwin/io/validation_report.hpp"

namespace dctwin::gui {

const std::vector<std::string>& validation_metric_names() {
  static const std::vector<std::string> names{"mae", "rmse", "bias", "cv_rmse", "nmbe", "max_error", "lag", "count"};
  return names;
}

std::string validation_metric_title(const std::string& name) {
  if (name == "mae") return "MAE";
  if (name == "rmse") return "RMSE";
  if (name == "bias") return "bias";
  if (name == "cv_rmse") return "CV(RMSE)";
  if (name == "nmbe") return "NMBE";
  if (name == "max_error") return "max error";
  if (name == "lag") return "lag";
  if (name == "count") return "n";
  return name;
}

const ValidationMetric* ValidationQuantity::metric(const std::string& wanted) const {
  for (const auto& m : metrics) {
    if (m.name == wanted) return &m;
  }
  return nullptr;
}

bool ValidationModel::is_validation_report(const std::filesystem::path& path) {
  return io::is_validation_report(path);
}

ValidationModel::ValidationModel(const std::filesystem::path& path) : path_(path) {
  io::StoredValidationReport stored = io::read_validation_report(path);
  start_time_ = stored.start_time;
  start_time_utc_ = std::move(stored.start_time_utc);
  notes_ = std::move(stored.notes);
  gpus_ = std::move(stored.gpus);
  phase_names_ = std::move(stored.phase_names);
  phase_share_ = std::move(stored.phase_share);

  for (auto& stored_quantity : stored.quantities) {
    ValidationQuantity quantity;
    quantity.name = std::move(stored_quantity.name);
    quantity.units = std::move(stored_quantity.units);
    // The table's order first, then any metric a later version adds (in name order).
    std::vector<std::string> order = validation_metric_names();
    for (const auto& metric : stored_quantity.metrics) {
      if (std::find(order.begin(), order.end(), metric.name) == order.end()) order.push_back(metric.name);
    }
    for (const auto& name : order) {
      for (auto& metric : stored_quantity.metrics) {
        if (metric.name != name) continue;
        quantity.metrics.push_back({std::move(metric.name), std::move(metric.units), std::move(metric.long_name),
                                    std::move(metric.per_gpu), metric.overall});
        break;
      }
    }
    if (quantity.units.empty() && !quantity.metrics.empty()) quantity.units = quantity.metrics.front().units;
    quantities_.push_back(std::move(quantity));
  }
  // Quantities that have series but no metrics still get an entry.
  for (auto& series : stored.series) {
    if (quantity(series.quantity) == nullptr) {
      ValidationQuantity bare;
      bare.name = series.quantity;
      bare.units = series.units;
      quantities_.push_back(std::move(bare));
    }
    series_.push_back({std::move(series.quantity), series.gpus, series.samples, std::move(series.time),
                       std::move(series.measured), std::move(series.simulated)});
  }
  // The order of `dctwin validate`'s table (HDF5 lists groups by name).
  const std::vector<std::string> preferred{"power", "junction_temperature", "sm_clock"};
  auto rank = [&](const ValidationQuantity& q) {
    const auto it = std::find(preferred.begin(), preferred.end(), q.name);
    return static_cast<std::size_t>(it - preferred.begin());
  };
  std::stable_sort(quantities_.begin(), quantities_.end(),
                   [&](const ValidationQuantity& a, const ValidationQuantity& b) { return rank(a) < rank(b); });
  if (gpus_.empty()) {
    std::size_t count = 0;
    for (const auto& q : quantities_) {
      for (const auto& m : q.metrics) count = std::max(count, m.per_gpu.size());
    }
    for (std::size_t g = 0; g < count; ++g) gpus_.push_back("gpu" + std::to_string(g));
  }
}

const ValidationQuantity* ValidationModel::quantity(const std::string& name) const {
  for (const auto& q : quantities_) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

ValidationSeries ValidationModel::series(const std::string& quantity, std::size_t gpu) const {
  ValidationSeries result;
  for (const auto& stored : series_) {
    if (stored.quantity != quantity || gpu >= stored.gpus) continue;
    for (std::size_t k = 0; k < stored.samples; ++k) {
      const std::size_t i = gpu * stored.samples + k;
      if (!std::isfinite(stored.time[i])) continue;  // padding
      result.time.push_back(stored.time[i] - start_time_);
      result.measured.push_back(stored.measured[i]);
      result.simulated.push_back(stored.simulated[i]);
    }
  }
  return result;
}

}  // namespace dctwin::gui
