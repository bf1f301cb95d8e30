#include "dctwin/io/validation_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string_view>
#include <system_error>

#include "hdf5_handles.hpp"

namespace dctwin::io {
namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

/// Opens `path` read-only; an empty File when it is not a readable HDF5 file.
h5::File open_if_hdf5(const std::filesystem::path& path) {
  h5::init();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return {};
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    return {};
  }
  try {
    return h5::File::open_read_only(path);
  } catch (const ReportError&) {
    return {};
  }
}

bool is_kind(const h5::File& file, const std::string& path, H5I_type_t kind) {
  return file.exists(path) && file.object_type(path) == kind;
}

/// A scalar string attribute; "" when absent or of another type or shape.
std::string text_attribute(const h5::Object& object, std::string_view name) {
  if (!object.has_attribute(name)) return {};
  const auto attribute = object.open_attribute(name);
  if (attribute.type().type_class() != H5T_STRING || attribute.space().element_count() != 1) return {};
  return object.string_attribute(name);
}

/// A scalar numeric attribute as double; `fallback` when absent or of another type or shape.
double number_attribute(const h5::Object& object, std::string_view name, double fallback) {
  if (!object.has_attribute(name)) return fallback;
  const auto attribute = object.open_attribute(name);
  const H5T_class_t type_class = attribute.type().type_class();
  if ((type_class != H5T_FLOAT && type_class != H5T_INTEGER) || attribute.space().element_count() != 1) {
    return fallback;
  }
  double value = fallback;
  attribute.read(H5T_NATIVE_DOUBLE, &value);
  return value;
}

/// A numeric dataset of any rank, row-major, as double, and its dimensions; empty when absent or
/// not numeric.
std::vector<double> numbers(const h5::File& file, const std::string& path, std::vector<hsize_t>* shape = nullptr) {
  if (shape != nullptr) shape->clear();
  if (!is_kind(file, path, H5I_DATASET)) return {};
  const auto dataset = h5::Dataset::open(file, path);
  const H5T_class_t type_class = dataset.type().type_class();
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) return {};
  const auto space = dataset.space();
  const hsize_t declared = space.element_count();
  if (declared > max_validation_values) {
    throw ReportError(fmt::format("{}: {} values declared, more than the {} this reader holds in memory", path,
                                  declared, max_validation_values));
  }
  std::vector<double> values(static_cast<std::size_t>(declared));
  if (!values.empty()) dataset.read_all(H5T_NATIVE_DOUBLE, values.data());
  if (shape != nullptr) *shape = space.dims();
  return values;
}

/// A string dataset; empty when absent or not strings.
std::vector<std::string> strings(const h5::File& file, const std::string& path) {
  if (!is_kind(file, path, H5I_DATASET)) return {};
  const auto dataset = h5::Dataset::open(file, path);
  if (dataset.type().type_class() != H5T_STRING) return {};
  return h5::read_strings(dataset);
}

/// The members of a group in name order; empty when absent.
std::vector<std::string> members(const h5::File& file, const std::string& path) {
  if (!is_kind(file, path, H5I_GROUP)) return {};
  return h5::Group::open(file, path).member_names_by_index();
}

StoredValidationQuantity read_quantity(const h5::File& file, const std::string& name) {
  const std::string group_path = "/validation/metrics/" + name;
  StoredValidationQuantity quantity;
  quantity.name = name;
  quantity.units = text_attribute(h5::Group::open(file, group_path), "units");
  for (const auto& metric_name : members(file, group_path)) {
    const std::string path = group_path + "/" + metric_name;
    StoredValidationMetric metric;
    metric.name = metric_name;
    metric.per_gpu = numbers(file, path);
    if (is_kind(file, path, H5I_DATASET)) {
      const auto dataset = h5::Dataset::open(file, path);
      metric.units = text_attribute(dataset, "units");
      metric.long_name = text_attribute(dataset, "long_name");
      metric.overall = number_attribute(dataset, "overall", not_a_number);
    } else {
      metric.overall = not_a_number;
    }
    quantity.metrics.push_back(std::move(metric));
  }
  return quantity;
}

/// The series of `name`; false when its three datasets are not [gpu x sample] of one shape.
bool read_series(const h5::File& file, const std::string& name, StoredValidationSeries& series) {
  const std::string group_path = "/validation/series/" + name;
  series.quantity = name;
  std::vector<hsize_t> shape;
  series.measured = numbers(file, group_path + "/measured", &shape);
  if (shape.size() != 2) return false;
  series.gpus = static_cast<std::size_t>(shape[0]);
  series.samples = static_cast<std::size_t>(shape[1]);
  std::vector<hsize_t> other;
  series.simulated = numbers(file, group_path + "/simulated", &other);
  if (other != shape) return false;
  series.time = numbers(file, group_path + "/time", &other);
  if (other != shape) return false;
  series.units = text_attribute(h5::Dataset::open(file, group_path + "/measured"), "units");
  return true;
}

}  // namespace

bool is_validation_report(const std::filesystem::path& path) {
  const h5::File file = open_if_hdf5(path);
  if (file.id() < 0) return false;
  try {
    return file.has_attribute("dctwin_validation_version") || file.exists("/validation/metrics");
  } catch (const ReportError&) {
    return false;
  }
}

StoredValidationReport read_validation_report(const std::filesystem::path& path) {
  const h5::File file = open_if_hdf5(path);
  if (file.id() < 0) throw ReportError(path.string() + ": cannot open the validation report");
  if (!file.exists("/validation")) {
    throw ReportError(path.string() + ": not a validation report (no /validation)");
  }
  StoredValidationReport report;
  if (is_kind(file, "/validation", H5I_GROUP)) {
    const auto root = h5::Group::open(file, "/validation");
    report.start_time = number_attribute(root, "start_time", 0.0);
    report.start_time_utc = text_attribute(root, "start_time_utc");
    report.notes = text_attribute(root, "notes");
  }
  report.gpus = strings(file, "/validation/gpu");
  report.phase_names = strings(file, "/validation/phases/names");
  report.phase_share = numbers(file, "/validation/phases/overall_share");
  for (const auto& name : members(file, "/validation/metrics")) {
    if (is_kind(file, "/validation/metrics/" + name, H5I_GROUP)) report.quantities.push_back(read_quantity(file, name));
  }
  for (const auto& name : members(file, "/validation/series")) {
    StoredValidationSeries series;
    if (read_series(file, name, series)) report.series.push_back(std::move(series));
  }
  return report;
}

}  // namespace dctwin::io
