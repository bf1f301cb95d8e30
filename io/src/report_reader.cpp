#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <system_error>
#include <utility>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "hdf5_handles.hpp"

namespace dctwin::io {

struct ReportReader::Impl {
  std::filesystem::path path;
  h5::File file;

  /// Runs `body`, prefixing any ReportError it throws with the report's file name.
  template <typename Body>
  auto guarded(Body&& body) const -> decltype(body()) {
    try {
      return body();
    } catch (const ReportError& error) {
      throw ReportError(fmt::format("{}: {}", path.string(), error.what()));
    }
  }

  h5::Dataset open_dataset(const std::string& name) const {
    if (name.empty() || !file.exists(name)) {
      throw ReportError(fmt::format("no dataset '{}'", name));
    }
    if (file.object_type(name) != H5I_DATASET) {
      throw ReportError(fmt::format("'{}' is not a dataset", name));
    }
    return h5::Dataset::open(file, name);
  }

  static std::string optional_string(const h5::Object& object, std::string_view name) {
    if (!object.has_attribute(name)) return {};
    const auto attribute = object.open_attribute(name);
    if (attribute.type().type_class() != H5T_STRING) return {};
    return object.string_attribute(name);
  }

  static void require_numeric(const h5::Dataset& dataset) {
    const H5T_class_t cls = dataset.type().type_class();
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
      throw ReportError(fmt::format("{} is not numeric", dataset.what()));
    }
  }

  /// A numeric 2-D [time x entity] dataset with its dataspace and dimensions.
  struct Table {
    h5::Dataset dataset;
    h5::Dataspace space;
    std::vector<hsize_t> dims;
  };

  Table open_table(const std::string& name) const {
    Table table{open_dataset(name), {}, {}};
    require_numeric(table.dataset);
    table.space = table.dataset.space();
    table.dims = table.space.dims();
    if (table.dims.size() != 2) {
      throw ReportError(fmt::format("{} has {} dimensions, not 2 [time x entity]",
                                    table.dataset.what(), table.dims.size()));
    }
    return table;
  }

  /// The block of `count` rows and columns from `start`, as double, row-major.
  static std::vector<double> read_block(Table& table, const std::array<hsize_t, 2>& start,
                                        const std::array<hsize_t, 2>& count) {
    std::vector<double> values(static_cast<std::size_t>(count[0] * count[1]));
    if (values.empty()) return values;
    table.space.select_hyperslab(start, count);
    const auto memory_space = h5::Dataspace::simple(count);
    table.dataset.read(H5T_NATIVE_DOUBLE, memory_space, table.space, values.data());
    return values;
  }
};

ReportReader::ReportReader(const std::filesystem::path& path) : impl_(std::make_unique<Impl>()) {
  h5::init();
  impl_->path = path;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw ReportError(fmt::format("{}: no such file", path.string()));
  }
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw ReportError(fmt::format("{}: not an HDF5 file or truncated", path.string()));
  }
  try {
    auto fapl = h5::PropertyList::create(H5P_FILE_ACCESS, "file access");
    h5::check_status(H5Pset_file_locking(fapl.id(), 1, 1), "cannot configure", fapl.what());
    impl_->file = h5::File::open_read_only(path, fapl.id());
  } catch (const ReportError&) {
    throw ReportError(fmt::format("{}: not an HDF5 file or truncated", path.string()));
  }
  const bool versioned =
      impl_->guarded([&] { return impl_->file.has_attribute("dctwin_report_version"); });
  if (!versioned) {
    throw ReportError(
        fmt::format("{}: not a dctwin report (no dctwin_report_version)", path.string()));
  }
}

ReportReader::~ReportReader() = default;
ReportReader::ReportReader(ReportReader&&) noexcept = default;
ReportReader& ReportReader::operator=(ReportReader&&) noexcept = default;

ReportReader::Impl& ReportReader::impl() const {
  if (!impl_) throw ReportError("report reader used after it was moved from");
  h5::init();
  return *impl_;
}

const std::filesystem::path& ReportReader::path() const { return impl().path; }

std::string ReportReader::status() const {
  const auto& self = impl();
  return self.guarded([&] { return self.file.string_attribute("status"); });
}

std::string ReportReader::status_reason() const {
  const auto& self = impl();
  return self.guarded([&] { return Impl::optional_string(self.file, "status_reason"); });
}

namespace {
/// The root group's scalar attributes of one HDF5 type class, each read by `read(name)`.
/// `unsigned_64`: only unsigned integers of 64 bits (true), or everything else of the class (false;
/// a value of such a type may not fit a long long), or no distinction (nullopt).
template <typename Value, typename Read>
std::map<std::string, Value> scalar_attributes(const h5::File& file, H5T_class_t type_class, Read read,
                                               std::optional<bool> unsigned_64 = std::nullopt) {
  std::map<std::string, Value> values;
  for (const auto& name : file.attribute_names()) {
    const auto attribute = file.open_attribute(name);
    if (attribute.type().type_class() != type_class || attribute.space().element_count() != 1) continue;
    if (unsigned_64) {
      const auto type = attribute.type();
      const bool wide_unsigned = type.is_unsigned_integer() && type.size() >= 8;
      if (wide_unsigned != *unsigned_64) continue;
    }
    values.emplace(name, read(name));
  }
  return values;
}
}  // namespace

std::map<std::string, std::string> ReportReader::string_attributes() const {
  const auto& self = impl();
  return self.guarded([&] {
    return scalar_attributes<std::string>(self.file, H5T_STRING,
                                          [&](const std::string& name) { return self.file.string_attribute(name); });
  });
}

std::map<std::string, long long> ReportReader::integer_attributes() const {
  const auto& self = impl();
  return self.guarded([&] {
    return scalar_attributes<long long>(
        self.file, H5T_INTEGER, [&](const std::string& name) { return self.file.integer_attribute(name); }, false);
  });
}

std::map<std::string, std::uint64_t> ReportReader::unsigned_attributes() const {
  const auto& self = impl();
  return self.guarded([&] {
    return scalar_attributes<std::uint64_t>(
        self.file, H5T_INTEGER, [&](const std::string& name) { return self.file.unsigned_attribute(name); }, true);
  });
}

std::map<std::string, double> ReportReader::double_attributes() const {
  const auto& self = impl();
  return self.guarded([&] {
    return scalar_attributes<double>(self.file, H5T_FLOAT,
                                     [&](const std::string& name) { return self.file.double_attribute(name); });
  });
}

double ReportReader::end_time() const {
  const auto& self = impl();
  return self.guarded([&] { return self.file.double_attribute("end_time"); });
}

std::vector<ReportReader::DatasetInfo> ReportReader::datasets() const {
  const auto& self = impl();
  return self.guarded([&] {
    std::vector<DatasetInfo> infos;
    for (const auto& relative : self.file.walk()) {
      const std::string path = "/" + relative;
      if (self.file.object_type(path) != H5I_DATASET) continue;
      const auto dataset = h5::Dataset::open(self.file, path);
      DatasetInfo info;
      info.path = path;
      for (const hsize_t extent : dataset.space().dims()) {
        info.shape.push_back(static_cast<std::size_t>(extent));
      }
      info.units = Impl::optional_string(dataset, "units");
      info.long_name = Impl::optional_string(dataset, "long_name");
      const H5T_class_t type_class = dataset.type().type_class();
      info.numeric = type_class == H5T_INTEGER || type_class == H5T_FLOAT;
      infos.push_back(std::move(info));
    }
    std::sort(infos.begin(), infos.end(),
              [](const DatasetInfo& a, const DatasetInfo& b) { return a.path < b.path; });
    return infos;
  });
}

std::vector<core::SummaryFigure> ReportReader::summary() const {
  const auto& self = impl();
  return self.guarded([&] {
    std::vector<core::SummaryFigure> figures;
    if (!self.file.exists("/summary")) return figures;
    const auto group = h5::Group::open(self.file, "/summary");
    for (const auto& name : group.member_names()) {
      if (group.object_type(name) != H5I_DATASET) continue;
      const auto dataset = h5::Dataset::open(group, name);
      Impl::require_numeric(dataset);
      if (dataset.space().element_count() != 1) {
        throw ReportError(fmt::format("{} is not a single value", dataset.what()));
      }
      core::SummaryFigure figure;
      figure.name = name;
      dataset.read_all(H5T_NATIVE_DOUBLE, &figure.value);
      figure.unit = Impl::optional_string(dataset, "units");
      figure.long_name = Impl::optional_string(dataset, "long_name");
      figures.push_back(std::move(figure));
    }
    return figures;
  });
}

std::vector<double> ReportReader::read(const std::string& path) const {
  const auto& self = impl();
  return self.guarded([&] {
    const auto dataset = self.open_dataset(path);
    Impl::require_numeric(dataset);
    std::vector<double> values(static_cast<std::size_t>(dataset.space().element_count()));
    if (!values.empty()) dataset.read_all(H5T_NATIVE_DOUBLE, values.data());
    return values;
  });
}

std::vector<double> ReportReader::read_row(const std::string& path,
                                           std::size_t time_index) const {
  const auto& self = impl();
  return self.guarded([&] {
    auto table = self.open_table(path);
    if (time_index >= table.dims[0]) {
      throw ReportError(fmt::format("{}: time index {} is out of range (the dataset has {} rows)",
                                    table.dataset.what(), time_index, table.dims[0]));
    }
    return Impl::read_block(table, {time_index, 0}, {1, table.dims[1]});
  });
}

std::vector<double> ReportReader::read_columns(const std::string& path, std::size_t first,
                                               std::size_t count) const {
  const auto& self = impl();
  return self.guarded([&] {
    auto table = self.open_table(path);
    if (count == 0 || first + count > table.dims[1]) {
      throw ReportError(fmt::format("{}: columns {} to {} are out of range (the dataset has {} columns)",
                                    table.dataset.what(), first, first + count, table.dims[1]));
    }
    return Impl::read_block(table, {0, first}, {table.dims[0], count});
  });
}

bool ReportReader::contains(const std::string& path) const {
  const auto& self = impl();
  return self.guarded([&] { return !path.empty() && self.file.exists(path); });
}

std::string ReportReader::string_attribute(const std::string& path, const std::string& name) const {
  const auto& self = impl();
  return self.guarded([&] {
    if (path.empty() || !self.file.exists(path)) return std::string();
    switch (self.file.object_type(path)) {
      case H5I_DATASET: return Impl::optional_string(h5::Dataset::open(self.file, path), name);
      case H5I_GROUP: return Impl::optional_string(h5::Group::open(self.file, path), name);
      default: return std::string();
    }
  });
}

std::vector<std::string> ReportReader::read_strings(const std::string& path) const {
  const auto& self = impl();
  return self.guarded([&] { return h5::read_strings(self.open_dataset(path)); });
}

std::vector<double> ReportReader::time() const { return read("/time"); }

}  // namespace dctwin::io
