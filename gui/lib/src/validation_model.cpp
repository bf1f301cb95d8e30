#include "dctwin/gui/validation_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "h5_util.hpp"

namespace dctwin::gui {
namespace {

/// Opens an HDF5 file read-only without HDF5 printing its error stack; -1 when it cannot.
hid_t open_quietly(const std::filesystem::path& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return H5I_INVALID_HID;
  if (H5Fis_hdf5(path.c_str()) <= 0) return H5I_INVALID_HID;
  return H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
}

}  // namespace

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
  const hid_t file = open_quietly(path);
  if (file < 0) return false;
  const h5::Id owner(file, H5Fclose);
  return H5Aexists_by_name(file, "/", "dctwin_validation_version", H5P_DEFAULT) > 0 ||
         h5::exists(file, "/validation/metrics");
}

ValidationModel::ValidationModel(const std::filesystem::path& path) : path_(path) {
  const hid_t raw = open_quietly(path);
  if (raw < 0) throw std::runtime_error(path.string() + ": cannot open the validation report");
  const h5::Id file(raw, H5Fclose);
  if (!h5::exists(raw, "/validation")) {
    throw std::runtime_error(path.string() + ": not a validation report (no /validation)");
  }
  start_time_ = h5::number_attribute(raw, "/validation", "start_time", 0.0);
  start_time_utc_ = h5::string_attribute(raw, "/validation", "start_time_utc");
  notes_ = h5::string_attribute(raw, "/validation", "notes");
  gpus_ = h5::read_strings(raw, "/validation/gpu");
  phase_names_ = h5::read_strings(raw, "/validation/phases/names");
  phase_share_ = h5::read_numbers(raw, "/validation/phases/overall_share");
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();

  for (const auto& q : h5::members(raw, "/validation/metrics")) {
    const std::string group = "/validation/metrics/" + q;
    ValidationQuantity quantity;
    quantity.name = q;
    quantity.units = h5::string_attribute(raw, group, "units");
    const auto present = h5::members(raw, group);
    // The table's order first, then any metric a later version adds.
    std::vector<std::string> order = validation_metric_names();
    for (const auto& name : present) {
      if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    }
    for (const auto& name : order) {
      if (std::find(present.begin(), present.end(), name) == present.end()) continue;
      const std::string dataset = group + "/" + name;
      ValidationMetric metric;
      metric.name = name;
      metric.units = h5::string_attribute(raw, dataset, "units");
      metric.long_name = h5::string_attribute(raw, dataset, "long_name");
      metric.per_gpu = h5::read_numbers(raw, dataset);
      metric.overall = h5::number_attribute(raw, dataset, "overall", nan);
      quantity.metrics.push_back(std::move(metric));
    }
    if (quantity.units.empty() && !quantity.metrics.empty()) quantity.units = quantity.metrics.front().units;
    quantities_.push_back(std::move(quantity));
  }
  // Quantities that have series but no metrics still get an entry.
  for (const auto& q : h5::members(raw, "/validation/series")) {
    const std::string group = "/validation/series/" + q;
    StoredSeries stored;
    stored.quantity = q;
    std::vector<hsize_t> shape;
    stored.measured = h5::read_numbers(raw, group + "/measured", &shape);
    if (shape.size() != 2) continue;
    stored.gpus = static_cast<std::size_t>(shape[0]);
    stored.samples = static_cast<std::size_t>(shape[1]);
    std::vector<hsize_t> other;
    stored.simulated = h5::read_numbers(raw, group + "/simulated", &other);
    if (other != shape) continue;
    stored.time = h5::read_numbers(raw, group + "/time", &other);
    if (other != shape) continue;
    if (quantity(q) == nullptr) {
      ValidationQuantity bare;
      bare.name = q;
      bare.units = h5::string_attribute(raw, group + "/measured", "units");
      quantities_.push_back(std::move(bare));
    }
    series_.push_back(std::move(stored));
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
