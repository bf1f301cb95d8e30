#include "hdf5_handles.hpp"

#include <hdf5_hl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <exception>
#include <utility>

namespace dctwin::io::h5 {

namespace {

herr_t capture_innermost(unsigned n, const H5E_error2_t* error, void* data) {
  // Walking upward, entry 0 is the most specific one: where the failure was detected.
  if (n == 0 && error != nullptr && error->desc != nullptr) {
    *static_cast<std::string*>(data) = error->desc;
  }
  return 0;
}

std::string os_error_part(const std::string& message) {
  // File drivers report "unable to open file: name = '...', errno = 13,
  // error message = 'Permission denied', ..."; the operating system's words are what a user needs.
  const std::string key = "error message = '";
  const auto begin = message.find(key);
  if (begin == std::string::npos) return message;
  const auto start = begin + key.size();
  const auto end = message.find('\'', start);
  if (end == std::string::npos) return message;
  return message.substr(start, end - start);
}

hid_t close_nothing_id() noexcept { return H5I_INVALID_HID; }

}  // namespace

void init() noexcept { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string innermost_error() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, capture_innermost, &message);
  H5Eclear2(H5E_DEFAULT);
  return os_error_part(message);
}

std::string describe(std::string_view kind, std::string_view name) {
  std::string text(kind);
  text += " '";
  text += name;
  text += '\'';
  return text;
}

void fail(std::string_view operation, std::string_view what) {
  std::string text(operation);
  text += ' ';
  text += what;
  const std::string cause = innermost_error();
  if (!cause.empty()) {
    text += ": ";
    text += cause;
  } else {
    text += " failed";
  }
  throw ReportError(text);
}

hid_t check(hid_t id, std::string_view operation, std::string_view what) {
  if (id < 0) fail(operation, what);
  return id;
}

void check_status(herr_t status, std::string_view operation, std::string_view what) {
  if (status < 0) fail(operation, what);
}

bool check_tri(htri_t answer, std::string_view operation, std::string_view what) {
  if (answer < 0) fail(operation, what);
  return answer > 0;
}

// --- Handle ---------------------------------------------------------------------------------

Handle::Handle(hid_t id, CloseFunction close_function, std::string what) noexcept
    : id_(id), close_(close_function), what_(std::move(what)) {}

Handle::~Handle() { reset(); }

Handle::Handle(Handle&& other) noexcept
    : id_(std::exchange(other.id_, close_nothing_id())),
      close_(other.close_),
      what_(std::move(other.what_)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, close_nothing_id());
    close_ = other.close_;
    what_ = std::move(other.what_);
  }
  return *this;
}

void Handle::close() {
  if (!valid()) return;
  const hid_t id = std::exchange(id_, close_nothing_id());
  check_status(close_(id), "cannot close", what_);
}

PropertyList write_through_access(hid_t fapl) {
  auto access = fapl == H5P_DEFAULT ? PropertyList::create(H5P_FILE_ACCESS, "file access")
                                    : PropertyList::adopt(H5Pcopy(fapl), "cannot copy", "file access properties");
  check_status(H5Pset_sieve_buf_size(access.id(), 0), "cannot configure", access.what());
  check_status(H5Pset_cache(access.id(), 0, 0, 0, 1.0), "cannot configure", access.what());
  return access;
}

namespace {
thread_local File* detach_on_unwind = nullptr;
thread_local bool detached_on_unwind = false;
}  // namespace

DetachStorageOnUnwind::DetachStorageOnUnwind(File& file) noexcept {
  detach_on_unwind = &file;
  detached_on_unwind = false;
}
DetachStorageOnUnwind::~DetachStorageOnUnwind() { detach_on_unwind = nullptr; }
bool DetachStorageOnUnwind::fired() const noexcept { return detached_on_unwind; }

void Handle::reset() noexcept {
  if (!valid()) return;
  if (detach_on_unwind != nullptr && std::uncaught_exceptions() > 0) {
    File* file = std::exchange(detach_on_unwind, nullptr);
    detached_on_unwind = true;
    (void)file->detach_storage();
  }
  const hid_t id = std::exchange(id_, close_nothing_id());
  if (close_(id) < 0) H5Eclear2(H5E_DEFAULT);
}

// --- PropertyList, Datatype, Dataspace, Attribute ------------------------------------------------

PropertyList PropertyList::create(hid_t cls, std::string_view what) {
  const std::string name = describe("property list", what);
  return PropertyList(check(H5Pcreate(cls), "cannot create", name), H5Pclose, name);
}

PropertyList PropertyList::adopt(hid_t id, std::string_view operation, std::string_view what) {
  return PropertyList(check(id, operation, what), H5Pclose, "property list of " + std::string(what));
}

Datatype Datatype::copy(hid_t type, std::string_view what) {
  const std::string name = describe("datatype", what);
  return Datatype(check(H5Tcopy(type), "cannot copy", name), H5Tclose, name);
}

Datatype Datatype::utf8_string() {
  Datatype type = copy(H5T_C_S1, "UTF-8 string");
  check_status(H5Tset_size(type.id(), H5T_VARIABLE), "cannot set the size of", type.what());
  check_status(H5Tset_cset(type.id(), H5T_CSET_UTF8), "cannot set the character set of",
               type.what());
  return type;
}

Datatype Datatype::adopt(hid_t id, std::string_view operation, std::string_view what) {
  return Datatype(check(id, operation, what), H5Tclose, "datatype of " + std::string(what));
}

bool Datatype::is_unsigned_integer() const {
  if (type_class() != H5T_INTEGER) return false;
  const H5T_sign_t sign = H5Tget_sign(id());
  if (sign == H5T_SGN_ERROR) fail("cannot get the sign of", what());
  return sign == H5T_SGN_NONE;
}

H5T_class_t Datatype::type_class() const {
  const H5T_class_t cls = H5Tget_class(id());
  if (cls == H5T_NO_CLASS) fail("cannot get the class of", what());
  return cls;
}

bool Datatype::is_variable_string() const {
  return check_tri(H5Tis_variable_str(id()), "cannot inspect", what());
}

std::size_t Datatype::size() const {
  const std::size_t bytes = H5Tget_size(id());
  if (bytes == 0) fail("cannot get the size of", what());
  return bytes;
}

Dataspace Dataspace::scalar() {
  const std::string name = describe("dataspace", "scalar");
  return Dataspace(check(H5Screate(H5S_SCALAR), "cannot create", name), H5Sclose, name);
}

Dataspace Dataspace::simple(std::span<const hsize_t> dims, std::span<const hsize_t> max_dims) {
  const std::string name = describe("dataspace", "simple");
  if (!max_dims.empty() && max_dims.size() != dims.size()) {
    throw ReportError("cannot create " + name + ": rank of maximum dimensions differs");
  }
  const int rank = static_cast<int>(dims.size());
  return Dataspace(check(H5Screate_simple(rank, dims.data(),
                                          max_dims.empty() ? nullptr : max_dims.data()),
                         "cannot create", name),
                   H5Sclose, name);
}

Dataspace Dataspace::adopt(hid_t id, std::string_view operation, std::string_view what) {
  return Dataspace(check(id, operation, what), H5Sclose, "dataspace of " + std::string(what));
}

std::vector<hsize_t> Dataspace::dims() const {
  const int rank = H5Sget_simple_extent_ndims(id());
  if (rank < 0) fail("cannot get the rank of", what());
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) {
    check_status(H5Sget_simple_extent_dims(id(), dims.data(), nullptr),
                 "cannot get the dimensions of", what());
  }
  return dims;
}

hsize_t Dataspace::element_count() const {
  const hssize_t points = H5Sget_simple_extent_npoints(id());
  if (points < 0) fail("cannot count the elements of", what());
  return static_cast<hsize_t>(points);
}

void Dataspace::select_hyperslab(std::span<const hsize_t> start, std::span<const hsize_t> count) {
  check_status(H5Sselect_hyperslab(id(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                                   nullptr),
               "cannot select a hyperslab of", what());
}

Attribute Attribute::adopt(hid_t id, std::string_view operation, std::string_view what) {
  return Attribute(check(id, operation, what), H5Aclose, std::string(what));
}

Datatype Attribute::type() const {
  return Datatype::adopt(H5Aget_type(id()), "cannot get the type of", what());
}

Dataspace Attribute::space() const {
  return Dataspace::adopt(H5Aget_space(id()), "cannot get the dataspace of", what());
}

void Attribute::write(hid_t memory_type, const void* buffer) {
  check_status(H5Awrite(id(), memory_type, buffer), "cannot write", what());
}

void Attribute::read(hid_t memory_type, void* buffer) const {
  check_status(H5Aread(id(), memory_type, buffer), "cannot read", what());
}

// --- Object -----------------------------------------------------------------------------------

Object::Object(hid_t id, CloseFunction close_function, std::string what, std::string path) noexcept
    : Handle(id, close_function, std::move(what)), path_(std::move(path)) {}

std::string Object::object_path() const { return path_; }

std::string Object::child_path(std::string_view name) const {
  if (!name.empty() && name.front() == '/') return std::string(name);
  std::string path = path_;
  if (path.empty() || path.back() != '/') path += '/';
  path += name;
  return path;
}

namespace {

std::string attribute_what(const Object& object, std::string_view name) {
  return describe("attribute", name) + " of " + object.what();
}

herr_t collect_attribute_name(hid_t, const char* name, const H5A_info_t*, void* data) {
  try {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // namespace

bool Object::has_attribute(std::string_view name) const {
  const std::string key(name);
  return check_tri(H5Aexists(id(), key.c_str()), "cannot look up", attribute_what(*this, name));
}

std::vector<std::string> Object::attribute_names() const {
  std::vector<std::string> names;
  hsize_t index = 0;
  check_status(H5Aiterate2(id(), H5_INDEX_NAME, H5_ITER_INC, &index, collect_attribute_name,
                           &names),
               "cannot list the attributes of", what());
  return names;
}

Attribute Object::open_attribute(std::string_view name) const {
  const std::string key(name);
  return Attribute::adopt(H5Aopen(id(), key.c_str(), H5P_DEFAULT), "cannot open",
                          attribute_what(*this, name));
}

void Object::replace_attribute(std::string_view name, hid_t file_type, hid_t memory_type,
                               const void* buffer) {
  replace_attribute(name, file_type, memory_type, buffer, Dataspace::scalar());
}

void Object::replace_attribute(std::string_view name, hid_t file_type, hid_t memory_type,
                               const void* buffer, const Dataspace& space) {
  const std::string key(name);
  const std::string what_text = attribute_what(*this, name);
  if (has_attribute(name)) {
    check_status(H5Adelete(id(), key.c_str()), "cannot replace", what_text);
  }
  Attribute attribute = Attribute::adopt(
      H5Acreate2(id(), key.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
      "cannot create", what_text);
  attribute.write(memory_type, buffer);
  attribute.close();
}

void Object::set_attribute(std::string_view name, std::string_view value) {
  const Datatype type = Datatype::utf8_string();
  const std::string text(value);
  const char* pointer = text.c_str();
  replace_attribute(name, type.id(), type.id(), &pointer);
}

void Object::set_attribute(std::string_view name, double value) {
  replace_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

void Object::set_attribute(std::string_view name, long long value) {
  replace_attribute(name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value);
}

void Object::set_unsigned_attribute(std::string_view name, std::uint64_t value) {
  replace_attribute(name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void Object::set_unsigned_attribute(std::string_view name, std::span<const std::uint32_t> values) {
  const std::array<hsize_t, 1> dims{values.size()};
  replace_attribute(name, H5T_STD_U32LE, H5T_NATIVE_UINT32, values.data(), Dataspace::simple(dims));
}

namespace {

/// Reads a one-element numeric attribute as `memory_type`.
template <typename T>
T numeric_attribute(const Object& object, std::string_view name, hid_t memory_type) {
  const Attribute attribute = object.open_attribute(name);
  const H5T_class_t cls = attribute.type().type_class();
  if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
    throw ReportError(attribute.what() + " is not numeric");
  }
  if (attribute.space().element_count() != 1) {
    throw ReportError(attribute.what() + " is not a single value");
  }
  T value{};
  attribute.read(memory_type, &value);
  return value;
}

}  // namespace

std::string Object::string_attribute(std::string_view name) const {
  const Attribute attribute = open_attribute(name);
  std::vector<std::string> values = read_strings(attribute, attribute.what());
  if (values.size() != 1) throw ReportError(attribute.what() + " is not a single string");
  return std::move(values.front());
}

double Object::double_attribute(std::string_view name) const {
  return numeric_attribute<double>(*this, name, H5T_NATIVE_DOUBLE);
}

long long Object::integer_attribute(std::string_view name) const {
  const Attribute attribute = open_attribute(name);
  if (attribute.type().type_class() != H5T_INTEGER) {
    throw ReportError(attribute.what() + " is not an integer");
  }
  return numeric_attribute<long long>(*this, name, H5T_NATIVE_LLONG);
}

std::uint64_t Object::unsigned_attribute(std::string_view name) const {
  const Attribute attribute = open_attribute(name);
  if (attribute.type().type_class() != H5T_INTEGER) {
    throw ReportError(attribute.what() + " is not an integer");
  }
  if (!attribute.type().is_unsigned_integer() && integer_attribute(name) < 0) {
    throw ReportError(attribute.what() + " is negative");
  }
  return numeric_attribute<std::uint64_t>(*this, name, H5T_NATIVE_UINT64);
}

bool Object::exists(std::string_view path) const {
  const std::string key(path);
  if (key.empty()) return false;
  return check_tri(H5LTpath_valid(id(), key.c_str(), 1), "cannot look up",
                   describe("object", child_path(path)));
}

H5I_type_t Object::object_type(std::string_view path) const {
  const std::string key(path);
  const std::string what_text = describe("object", child_path(path));
  const hid_t object = check(H5Oopen(id(), key.c_str(), H5P_DEFAULT), "cannot open", what_text);
  const H5I_type_t type = H5Iget_type(object);
  const herr_t closed = H5Oclose(object);
  if (type == H5I_BADID) fail("cannot get the kind of", what_text);
  check_status(closed, "cannot close", what_text);
  return type;
}

namespace {

herr_t collect_hard_link(hid_t, const char* name, const H5L_info_t* info, void* data) {
  try {
    if (info == nullptr || info->type == H5L_TYPE_HARD) {
      static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    }
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // namespace

std::vector<std::string> Object::walk() const {
  std::vector<std::string> paths;
  check_status(H5Lvisit(id(), H5_INDEX_NAME, H5_ITER_INC, collect_hard_link, &paths),
               "cannot walk", what());
  return paths;
}

// --- Group ----------------------------------------------------------------------------------

Group Group::create(const Object& parent, std::string_view name, hid_t gcpl) {
  const std::string key(name);
  const std::string path = parent.child_path(name);
  const std::string what_text = describe("group", path);
  return Group(check(H5Gcreate2(parent.id(), key.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT),
                     "cannot create", what_text),
               H5Gclose, what_text, path);
}

Group Group::open(const Object& parent, std::string_view name) {
  const std::string key(name);
  const std::string path = parent.child_path(name);
  const std::string what_text = describe("group", path);
  return Group(check(H5Gopen2(parent.id(), key.c_str(), H5P_DEFAULT), "cannot open", what_text),
               H5Gclose, what_text, path);
}

namespace {

herr_t collect_link_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  try {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // namespace

std::vector<std::string> Group::member_names() const {
  const PropertyList gcpl = PropertyList::adopt(
      H5Gget_create_plist(id()), "cannot get the creation properties of", what());
  unsigned order_flags = 0;
  check_status(H5Pget_link_creation_order(gcpl.id(), &order_flags),
               "cannot get the link order of", what());
  const H5_index_t index_type =
      (order_flags & H5P_CRT_ORDER_INDEXED) != 0 ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
  std::vector<std::string> names;
  hsize_t index = 0;
  check_status(H5Literate(id(), index_type, H5_ITER_INC, &index, collect_link_name, &names),
               "cannot list the members of", what());
  return names;
}

std::vector<std::string> Group::member_names_by_index() const {
  H5G_info_t info{};
  check_status(H5Gget_info(id(), &info), "cannot get the size of", what());
  std::vector<std::string> names;
  for (hsize_t k = 0; k < info.nlinks; ++k) {
    const ssize_t length = H5Lget_name_by_idx(id(), ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    if (length <= 0) continue;
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    if (H5Lget_name_by_idx(id(), ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT) < 0) continue;
    name.resize(static_cast<std::size_t>(length));
    names.push_back(std::move(name));
  }
  return names;
}

// --- File -----------------------------------------------------------------------------------

File File::create(const std::filesystem::path& path, hid_t fcpl, hid_t fapl, std::string_view what) {
  init();
  const std::string what_text = what.empty() ? describe("report", path.string()) : std::string(what);
  return File(check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl, fapl), "cannot create",
                    what_text),
              H5Fclose, what_text, "/");
}

File File::open_read_only(const std::filesystem::path& path, hid_t fapl) {
  init();
  const std::string what_text = describe("report", path.string());
  return File(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl), "cannot open", what_text),
              H5Fclose, what_text, "/");
}

Group File::root() const { return Group::open(*this, "/"); }

void File::flush() {
  check_status(H5Fflush(id(), H5F_SCOPE_LOCAL), "cannot flush", what());
}

bool File::detach_storage() noexcept {
  if (!valid()) return false;
  void* handle = nullptr;
  if (H5Fget_vfd_handle(id(), H5P_DEFAULT, &handle) < 0 || handle == nullptr) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  const int fd = *static_cast<int*>(handle);  // the sec2 and core drivers hand out an int*
  const int memory = ::memfd_create("dctwin-discarded-report", 0);
  if (memory < 0) return false;
  const bool redirected = ::dup2(memory, fd) == fd;
  ::close(memory);
  if (!redirected) return false;
  // After a failed flush, HDF5 1.10's metadata cache refuses the next flush once ("slist already
  // enabled") but still writes everything and recovers; a second flush then succeeds. Get that
  // over with here, where the writes land in memory, so that closing the file succeeds.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (H5Fflush(id(), H5F_SCOPE_LOCAL) >= 0) break;
    H5Eclear2(H5E_DEFAULT);
  }
  return true;
}

// --- Dataset --------------------------------------------------------------------------------

Dataset Dataset::create(const Object& parent, std::string_view name, hid_t type,
                        const Dataspace& space, hid_t dcpl) {
  const std::string key(name);
  const std::string path = parent.child_path(name);
  const std::string what_text = describe("dataset", path);
  return Dataset(check(H5Dcreate2(parent.id(), key.c_str(), type, space.id(), H5P_DEFAULT, dcpl,
                                  H5P_DEFAULT),
                       "cannot create", what_text),
                 H5Dclose, what_text, path);
}

Dataset Dataset::open(const Object& parent, std::string_view name) {
  const std::string key(name);
  const std::string path = parent.child_path(name);
  const std::string what_text = describe("dataset", path);
  return Dataset(check(H5Dopen2(parent.id(), key.c_str(), H5P_DEFAULT), "cannot open",
                       what_text),
                 H5Dclose, what_text, path);
}

Datatype Dataset::type() const {
  return Datatype::adopt(H5Dget_type(id()), "cannot get the type of", what());
}

Dataspace Dataset::space() const {
  return Dataspace::adopt(H5Dget_space(id()), "cannot get the dataspace of", what());
}

void Dataset::set_extent(std::span<const hsize_t> dims) {
  check_status(H5Dset_extent(id(), dims.data()), "cannot extend", what());
}

void Dataset::write(hid_t memory_type, const Dataspace& memory_space,
                    const Dataspace& file_space, const void* buffer) {
  check_status(H5Dwrite(id(), memory_type, memory_space.id(), file_space.id(), H5P_DEFAULT,
                        buffer),
               "cannot write", what());
}

void Dataset::write_chunk(std::span<const hsize_t> offset, std::uint32_t filter_mask,
                          std::span<const unsigned char> bytes) {
  check_status(H5Dwrite_chunk(id(), H5P_DEFAULT, filter_mask, offset.data(), bytes.size(), bytes.data()),
               "cannot write a chunk of", what());
}

void Dataset::write_all(hid_t memory_type, const void* buffer) {
  check_status(H5Dwrite(id(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer),
               "cannot write", what());
}

void Dataset::read(hid_t memory_type, const Dataspace& memory_space, const Dataspace& file_space,
                   void* buffer) const {
  check_status(H5Dread(id(), memory_type, memory_space.id(), file_space.id(), H5P_DEFAULT,
                       buffer),
               "cannot read", what());
}

void Dataset::read_all(hid_t memory_type, void* buffer) const {
  check_status(H5Dread(id(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer), "cannot read",
               what());
}

void Dataset::make_scale(std::string_view dimension_name) {
  const std::string name(dimension_name);
  check_status(H5DSset_scale(id(), name.c_str()), "cannot make a dimension scale of", what());
}

void Dataset::attach_scale(const Dataset& scale, unsigned dimension) {
  check_status(H5DSattach_scale(id(), scale.id(), dimension),
               "cannot attach " + scale.what() + " to dimension " + std::to_string(dimension) +
                   " of",
               what());
}

// --- strings --------------------------------------------------------------------------------

namespace {

/// Reads all elements of a string dataset or attribute; `read` performs the H5Dread/H5Aread.
template <typename Read>
std::vector<std::string> read_string_elements(const Datatype& file_type, const Dataspace& space,
                                              std::string_view what, Read&& read) {
  if (file_type.type_class() != H5T_STRING) {
    throw ReportError(std::string(what) + " does not hold strings");
  }
  const auto count = static_cast<std::size_t>(space.element_count());
  std::vector<std::string> values;
  values.reserve(count);
  if (count == 0) return values;

  const H5T_cset_t cset = H5Tget_cset(file_type.id());
  if (cset == H5T_CSET_ERROR) fail("cannot get the character set of", what);

  if (file_type.is_variable_string()) {
    Datatype memory_type = Datatype::copy(H5T_C_S1, "string");
    check_status(H5Tset_size(memory_type.id(), H5T_VARIABLE), "cannot set the size of",
                 memory_type.what());
    check_status(H5Tset_cset(memory_type.id(), cset), "cannot set the character set of",
                 memory_type.what());
    std::vector<char*> pointers(count, nullptr);
    read(memory_type.id(), pointers.data());
    std::exception_ptr error;
    try {
      for (const char* pointer : pointers) values.emplace_back(pointer != nullptr ? pointer : "");
    } catch (...) {
      error = std::current_exception();
    }
    if (H5Dvlen_reclaim(memory_type.id(), space.id(), H5P_DEFAULT, pointers.data()) < 0) {
      H5Eclear2(H5E_DEFAULT);
    }
    if (error) std::rethrow_exception(error);
    return values;
  }

  const std::size_t width = file_type.size();
  const Datatype memory_type = Datatype::copy(file_type.id(), "string");
  std::vector<char> buffer(width * count, '\0');
  read(memory_type.id(), buffer.data());
  const H5T_str_t padding = H5Tget_strpad(file_type.id());
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view text(buffer.data() + i * width, width);
    if (const auto nul = text.find('\0'); nul != std::string_view::npos) text = text.substr(0, nul);
    if (padding == H5T_STR_SPACEPAD) {
      while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    }
    values.emplace_back(text);
  }
  return values;
}

}  // namespace

std::vector<std::string> read_strings(const Dataset& dataset) {
  const Datatype file_type = dataset.type();
  const Dataspace space = dataset.space();
  return read_string_elements(file_type, space, dataset.what(),
                              [&](hid_t memory_type, void* buffer) {
                                dataset.read_all(memory_type, buffer);
                              });
}

std::vector<std::string> read_strings(const Attribute& attribute, std::string_view what) {
  const Datatype file_type = attribute.type();
  const Dataspace space = attribute.space();
  return read_string_elements(file_type, space, what, [&](hid_t memory_type, void* buffer) {
    attribute.read(memory_type, buffer);
  });
}

}  // namespace dctwin::io::h5
