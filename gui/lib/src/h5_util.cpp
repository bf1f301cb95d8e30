#include "h5_util.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace dctwin::gui::h5 {

std::string string_attribute(hid_t file, const std::string& path, const char* name) {
  if (H5Aexists_by_name(file, path.c_str(), name, H5P_DEFAULT) <= 0) return {};
  const Id attribute(H5Aopen_by_name(file, path.c_str(), name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) return {};
  const Id type(H5Aget_type(attribute.get()), H5Tclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING) return {};
  const Id space(H5Aget_space(attribute.get()), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) return {};
  if (H5Tis_variable_str(type.get()) > 0) {
    char* value = nullptr;
    const Id memory(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(memory.get(), H5T_VARIABLE);
    H5Tset_cset(memory.get(), H5Tget_cset(type.get()));
    if (H5Aread(attribute.get(), memory.get(), &value) < 0 || value == nullptr) return {};
    std::string result(value);
    H5free_memory(value);
    return result;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string buffer(size, '\0');
  const Id memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(memory.get(), size);
  if (H5Aread(attribute.get(), memory.get(), buffer.data()) < 0) return {};
  buffer.resize(std::min(buffer.find('\0'), buffer.size()));
  return buffer;
}

double number_attribute(hid_t file, const std::string& path, const char* name, double fallback) {
  if (H5Aexists_by_name(file, path.c_str(), name, H5P_DEFAULT) <= 0) return fallback;
  const Id attribute(H5Aopen_by_name(file, path.c_str(), name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) return fallback;
  const Id type(H5Aget_type(attribute.get()), H5Tclose);
  const H5T_class_t kind = H5Tget_class(type.get());
  if (kind != H5T_FLOAT && kind != H5T_INTEGER) return fallback;
  const Id space(H5Aget_space(attribute.get()), H5Sclose);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) return fallback;
  double value = fallback;
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) return fallback;
  return value;
}

bool exists(hid_t file, const std::string& path) {
  if (path.empty() || path == "/") return true;
  std::size_t position = 1;
  while (true) {
    const std::size_t slash = path.find('/', position);
    const std::string prefix = path.substr(0, slash);
    if (H5Lexists(file, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    position = slash + 1;
  }
}

std::vector<std::string> members(hid_t file, const std::string& path) {
  std::vector<std::string> names;
  if (!exists(file, path)) return names;
  const Id group(H5Gopen2(file, path.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) return names;
  H5G_info_t info{};
  if (H5Gget_info(group.get(), &info) < 0) return names;
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    const ssize_t length = H5Lget_name_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    if (length <= 0) continue;
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    H5Lget_name_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(length));
    names.push_back(name);
  }
  return names;
}

std::vector<double> read_numbers(hid_t file, const std::string& path, std::vector<hsize_t>* shape) {
  if (shape != nullptr) shape->clear();
  if (!exists(file, path)) return {};
  const Id dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) return {};
  const Id space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) return {};
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  const hssize_t declared = H5Sget_simple_extent_npoints(space.get());
  if (declared < 0) return {};
  // A few bytes of HDF5 can declare terabytes of fill values (a valid file): refuse to allocate for
  // more than 2^27 values (1 GiB as double), far beyond any validation report (8 GPUs x a day at
  // 10 Hz is 6.9 M values), instead of failing inside the allocator.
  constexpr hssize_t max_points = hssize_t{1} << 27;
  if (declared > max_points) {
    throw std::runtime_error(path + ": " + std::to_string(declared) + " values declared, more than the " +
                             std::to_string(max_points) + " this reader holds in memory");
  }
  const auto points = static_cast<std::size_t>(declared);
  std::vector<double> values(points);
  if (points > 0 && H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    return {};
  }
  if (shape != nullptr) *shape = dims;
  return values;
}

std::vector<std::string> read_strings(hid_t file, const std::string& path) {
  std::vector<std::string> result;
  if (!exists(file, path)) return result;
  const Id dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) return result;
  const Id type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) return result;
  const Id space(H5Dget_space(dataset.get()), H5Sclose);
  const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  if (count == 0) return result;
  const Id memory(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_cset(memory.get(), H5Tget_cset(type.get()));
  if (H5Tis_variable_str(type.get()) > 0) {
    H5Tset_size(memory.get(), H5T_VARIABLE);
    std::vector<char*> pointers(count, nullptr);
    if (H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0) return result;
    for (char* p : pointers) result.emplace_back(p != nullptr ? p : "");
    H5Dvlen_reclaim(memory.get(), space.get(), H5P_DEFAULT, pointers.data());
    return result;
  }
  const std::size_t size = H5Tget_size(type.get());
  H5Tset_size(memory.get(), size);
  std::string buffer(size * count, '\0');
  if (H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0) return result;
  for (std::size_t k = 0; k < count; ++k) {
    std::string item = buffer.substr(k * size, size);
    item.resize(std::min(item.find('\0'), item.size()));
    result.push_back(item);
  }
  return result;
}

}  // namespace dctwin::gui::h5
