// A thin RAII layer over the HDF5 C API for the report writer and reader.
//
// Every handle owns one HDF5 identifier and closes it when destroyed; handles are move-only.
// Every HDF5 call is checked: a failure throws ReportError naming the operation and the object
// (its path inside the file, or the file name), followed by the innermost message of HDF5's error
// stack. HDF5's own printing of error stacks is turned off by `init()`.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"

namespace dctwin::io::h5 {

/// Turns off HDF5's automatic error printing for the calling thread. Called when a file is created
/// or opened and on entry to every report operation (the setting is per thread); cheap.
void init() noexcept;

/// The most specific message on HDF5's error stack of the calling thread ("" when empty). When the
/// message carries an operating-system error ("error message = '...'"), only that part.
std::string innermost_error();

/// "<kind> '<name>'", e.g. describe("dataset", "/gpu/power") == "dataset '/gpu/power'".
std::string describe(std::string_view kind, std::string_view name);

/// Throws ReportError "<operation> <what>: <innermost HDF5 message>", where `what` is a phrase such
/// as "dataset '/gpu/power'" (see `describe`).
[[noreturn]] void fail(std::string_view operation, std::string_view what);

/// Returns `id` when valid, otherwise fails.
hid_t check(hid_t id, std::string_view operation, std::string_view what);
/// Fails when `status` is negative.
void check_status(herr_t status, std::string_view operation, std::string_view what);
/// A tri-state answer as bool; fails when negative.
bool check_tri(htri_t answer, std::string_view operation, std::string_view what);

/// Owns one HDF5 identifier. `what` names the object in error messages (see `describe`).
class Handle {
 public:
  using CloseFunction = herr_t (*)(hid_t);

  Handle() noexcept = default;
  Handle(hid_t id, CloseFunction close_function, std::string what) noexcept;
  ~Handle();
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  [[nodiscard]] hid_t id() const noexcept { return id_; }
  [[nodiscard]] const std::string& what() const noexcept { return what_; }
  [[nodiscard]] bool valid() const noexcept { return id_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  /// Closes the identifier and checks the result.
  void close();
  /// Closes the identifier, ignoring failures (for destructors and error paths).
  void reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
  CloseFunction close_ = nullptr;
  std::string what_;
};

class PropertyList : public Handle {
 public:
  PropertyList() noexcept = default;
  /// A new list of class `cls` (e.g. H5P_FILE_ACCESS, H5P_DATASET_CREATE).
  static PropertyList create(hid_t cls, std::string_view what);
  /// Wraps a property list identifier returned by HDF5 (e.g. from H5Gget_create_plist).
  static PropertyList adopt(hid_t id, std::string_view operation, std::string_view what);

 private:
  using Handle::Handle;
};

class Datatype : public Handle {
 public:
  Datatype() noexcept = default;
  /// A modifiable copy of a predefined or existing type.
  static Datatype copy(hid_t type, std::string_view what);
  /// Variable-length UTF-8 string.
  static Datatype utf8_string();
  /// Wraps a type identifier returned by HDF5 (e.g. from H5Dget_type).
  static Datatype adopt(hid_t id, std::string_view operation, std::string_view what);

  [[nodiscard]] H5T_class_t type_class() const;
  [[nodiscard]] bool is_variable_string() const;
  /// An integer type without sign.
  [[nodiscard]] bool is_unsigned_integer() const;
  [[nodiscard]] std::size_t size() const;

 private:
  using Handle::Handle;
};

class Dataspace : public Handle {
 public:
  Dataspace() noexcept = default;
  static Dataspace scalar();
  /// A simple dataspace; `max_dims` empty means fixed size.
  static Dataspace simple(std::span<const hsize_t> dims, std::span<const hsize_t> max_dims = {});
  static Dataspace adopt(hid_t id, std::string_view operation, std::string_view what);

  [[nodiscard]] std::vector<hsize_t> dims() const;
  [[nodiscard]] hsize_t element_count() const;
  void select_hyperslab(std::span<const hsize_t> start, std::span<const hsize_t> count);

 private:
  using Handle::Handle;
};

class Attribute : public Handle {
 public:
  Attribute() noexcept = default;
  static Attribute adopt(hid_t id, std::string_view operation, std::string_view what);

  [[nodiscard]] Datatype type() const;
  [[nodiscard]] Dataspace space() const;
  void write(hid_t memory_type, const void* buffer);
  void read(hid_t memory_type, void* buffer) const;

 private:
  using Handle::Handle;
};

/// Common operations of files, groups and datasets: attributes and (for files and groups) links.
class Object : public Handle {
 public:
  Object() noexcept = default;

  /// Path of a child object, e.g. child_path("/gpu", "power") == "/gpu/power".
  [[nodiscard]] std::string child_path(std::string_view name) const;
  /// The object's path inside its file ("/" for a file).
  [[nodiscard]] std::string object_path() const;

  [[nodiscard]] bool has_attribute(std::string_view name) const;
  [[nodiscard]] std::vector<std::string> attribute_names() const;
  [[nodiscard]] Attribute open_attribute(std::string_view name) const;
  /// Writes (or replaces) a scalar attribute.
  void set_attribute(std::string_view name, std::string_view value);
  void set_attribute(std::string_view name, double value);
  void set_attribute(std::string_view name, long long value);
  /// Writes (or replaces) a scalar unsigned 64-bit attribute (H5T_STD_U64LE).
  void set_unsigned_attribute(std::string_view name, std::uint64_t value);
  /// Writes (or replaces) a 1-D attribute of unsigned 32-bit integers (H5T_STD_U32LE).
  void set_unsigned_attribute(std::string_view name, std::span<const std::uint32_t> values);
  [[nodiscard]] std::string string_attribute(std::string_view name) const;
  [[nodiscard]] double double_attribute(std::string_view name) const;
  [[nodiscard]] long long integer_attribute(std::string_view name) const;
  /// An integer attribute read exactly as unsigned 64 bits; a negative value is an error.
  [[nodiscard]] std::uint64_t unsigned_attribute(std::string_view name) const;

  /// Whether `path` (relative to this object, or absolute) names an existing object.
  [[nodiscard]] bool exists(std::string_view path) const;
  /// The kind of the object at `path` (H5I_GROUP, H5I_DATASET, H5I_DATATYPE); `path` must exist.
  [[nodiscard]] H5I_type_t object_type(std::string_view path) const;
  /// Paths (relative to this object) of every object reachable through hard links below it, in
  /// name order, visiting each group's members before going deeper.
  [[nodiscard]] std::vector<std::string> walk() const;

 protected:
  Object(hid_t id, CloseFunction close_function, std::string what, std::string path) noexcept;

 private:
  void replace_attribute(std::string_view name, hid_t file_type, hid_t memory_type,
                         const void* buffer, const Dataspace& space);
  void replace_attribute(std::string_view name, hid_t file_type, hid_t memory_type,
                         const void* buffer);
  std::string path_;
};

class Dataset;

class Group : public Object {
 public:
  Group() noexcept = default;
  /// Creates `name` in `parent`; `gcpl` may be H5P_DEFAULT.
  static Group create(const Object& parent, std::string_view name, hid_t gcpl = H5P_DEFAULT);
  static Group open(const Object& parent, std::string_view name);
  /// Names of the direct members, in creation order when the group tracks it, else name order.
  [[nodiscard]] std::vector<std::string> member_names() const;
  /// Names of the direct members in name order, asked for one by one by index
  /// (H5Lget_name_by_idx); a member whose name cannot be read is left out.
  [[nodiscard]] std::vector<std::string> member_names_by_index() const;

 private:
  using Object::Object;
};

class File : public Object {
 public:
  File() noexcept = default;
  /// Creates (truncating) a file. Fails with "cannot create <what>: <reason>"; `what` (e.g.
  /// "report 'run.h5'", see OutputFile::describe) names the file in every message, by default
  /// "report '<path>'".
  static File create(const std::filesystem::path& path, hid_t fcpl, hid_t fapl, std::string_view what = {});
  static File open_read_only(const std::filesystem::path& path, hid_t fapl = H5P_DEFAULT);
  [[nodiscard]] Group root() const;
  /// Writes all buffered data and metadata to the file.
  void flush();
  /// For a file about to be thrown away: sends every further write to an anonymous in-memory
  /// file, so that closing cannot fail on the real storage (disk full, I/O error). HDF5 1.10
  /// leaves a file whose close failed half-destroyed, and crashes when it shuts down.
  /// Best effort; returns whether the writes were redirected.
  bool detach_storage() noexcept;

 private:
  using Object::Object;
};

class Dataset : public Object {
 public:
  Dataset() noexcept = default;
  static Dataset create(const Object& parent, std::string_view name, hid_t type,
                        const Dataspace& space, hid_t dcpl = H5P_DEFAULT);
  static Dataset open(const Object& parent, std::string_view name);

  [[nodiscard]] Datatype type() const;
  [[nodiscard]] Dataspace space() const;
  void set_extent(std::span<const hsize_t> dims);
  void write(hid_t memory_type, const Dataspace& memory_space, const Dataspace& file_space,
             const void* buffer);
  void write_all(hid_t memory_type, const void* buffer);
  /// Writes one whole chunk, already passed through the dataset's filters (H5Dwrite_chunk):
  /// `offset` is its first element, bit i of `filter_mask` set when filter i was skipped.
  void write_chunk(std::span<const hsize_t> offset, std::uint32_t filter_mask, std::span<const unsigned char> bytes);
  void read(hid_t memory_type, const Dataspace& memory_space, const Dataspace& file_space,
            void* buffer) const;
  void read_all(hid_t memory_type, void* buffer) const;

  /// Makes this dataset a dimension scale named `dimension_name`.
  void make_scale(std::string_view dimension_name);
  /// Attaches `scale` to dimension `dimension` of this dataset.
  void attach_scale(const Dataset& scale, unsigned dimension);

 private:
  using Object::Object;
};

/// Reads a whole string dataset or attribute (variable- or fixed-length strings, any cset).
std::vector<std::string> read_strings(const Dataset& dataset);
std::vector<std::string> read_strings(const Attribute& attribute, std::string_view what);

/// A copy of the file access properties `fapl` (H5P_DEFAULT: the defaults) with no sieve buffer and
/// no chunk cache, so that raw data reaches the file when it is written: closing a dataset then has
/// none left to write, and cannot fail (and be ignored, in a destructor) on a full disk.
PropertyList write_through_access(hid_t fapl);

/// While alive, the first handle closed during stack unwinding (Handle::reset() with an exception
/// in flight, on this thread) first sends `file`'s further writes to memory (File::detach_storage):
/// closing the objects of a file whose writing failed then cannot fail on its storage (a close
/// that fails leaves HDF5 1.10 with a half-closed object, and it crashes at exit).
class DetachStorageOnUnwind {
 public:
  explicit DetachStorageOnUnwind(File& file) noexcept;
  ~DetachStorageOnUnwind();
  /// Whether the storage was detached (an exception passed by, even one caught later).
  [[nodiscard]] bool fired() const noexcept;
  DetachStorageOnUnwind(const DetachStorageOnUnwind&) = delete;
  DetachStorageOnUnwind& operator=(const DetachStorageOnUnwind&) = delete;
};

/// Writes a whole HDF5 output through `output`: `write(file)` fills the file, created at the
/// temporary, and must end with file.flush() while its objects are still open (the flush writes
/// their cached chunks and reports a failure; closing them afterwards writes nothing, and closing
/// them during unwinding goes to memory, see DetachStorageOnUnwind). Then the file is closed and
/// committed. Raw data is neither sieve-buffered nor chunk-cached (see write_through_access): a
/// failed write throws where it happens. On any failure the temporary is removed.
template <typename Write>
void write_output(OutputFile& output, hid_t fcpl, hid_t fapl, Write&& write) {
  const PropertyList access = write_through_access(fapl);
  File file = File::create(output.open_path(), fcpl, access.id(), output.describe());
  try {
    {
      const DetachStorageOnUnwind detach(file);
      write(file);
      // Everything since went to memory: the file on disk is not whole.
      if (detach.fired()) throw ReportError("cannot write " + output.describe() + ": an error interrupted the writing");
    }
    file.close();
  } catch (const ReportError& error) {
    (void)file.detach_storage();
    file.reset();
    output.discard();
    // Name the file in every message ("cannot write dataset '/x': ..." alone does not).
    const std::string message = error.what();
    if (message.find(output.describe()) != std::string::npos) throw;
    throw ReportError("cannot write " + output.describe() + ": " + message);
  } catch (...) {
    (void)file.detach_storage();
    file.reset();
    output.discard();
    throw;
  }
  output.commit();
}

}  // namespace dctwin::io::h5
