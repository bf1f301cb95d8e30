// Small helpers over the HDF5 C API for the GUI's readers (report attributes the report reader does
// not expose, and validation files, which are not simulation reports).
#pragma once

#include <hdf5.h>

#include <string>
#include <vector>

namespace dctwin::gui::h5 {

/// Owns an HDF5 identifier.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// The string attribute `name` of the object at `path`, or "" when it is absent or not a string.
std::string string_attribute(hid_t file, const std::string& path, const char* name);
/// The numeric scalar attribute `name` of the object at `path`; `fallback` when absent.
double number_attribute(hid_t file, const std::string& path, const char* name, double fallback);
/// Whether a link exists at `path` (every intermediate group is checked).
bool exists(hid_t file, const std::string& path);
/// Names of the members of the group at `path`, in name order.
std::vector<std::string> members(hid_t file, const std::string& path);
/// A numeric dataset, row-major, as double; its dimensions in `shape`. Empty when absent; throws
/// std::runtime_error for a dataset that declares more than 2^27 values.
std::vector<double> read_numbers(hid_t file, const std::string& path, std::vector<hsize_t>* shape = nullptr);
/// A 1-D dataset of strings (variable or fixed length). Empty when absent.
std::vector<std::string> read_strings(hid_t file, const std::string& path);

}  // namespace dctwin::gui::h5
