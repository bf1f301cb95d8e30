#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <system_error>
#include <utility>

#include <zlib.h>

#include "dctwin/core/check.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/solver/parallel.hpp"
#include "hdf5_handles.hpp"

namespace dctwin::io {

double quantization_step_for(double resolution) {
  DCTWIN_DEMAND(resolution > 0.0 && std::isfinite(resolution), "a quantization resolution is positive and finite");
  int exponent = 0;
  (void)std::frexp(resolution, &exponent);  // resolution = m 2^exponent, 0.5 <= m < 1
  return std::ldexp(1.0, exponent - 1);     // 2^(exponent - 1) <= resolution < 2^exponent
}

double quantize(double value, double step) {
  if (!std::isfinite(value)) return value;
  // From |value| >= 2^52 step on, value is already a multiple of its own spacing, which is a
  // multiple of step (both powers of two); the division below would only risk overflow there.
  if (std::abs(value) >= std::ldexp(step, 52)) return value;
  return std::round(value / step) * step;  // value / step and the product are exact
}

namespace {

constexpr long long report_version = 1;

// Chunking: a chunk of a 2-D dataset spans at most `max_entity_chunk` entities and as many time
// rows as fit in about `chunk_target_bytes` (a power of two, at most `max_time_chunk`). Samples are
// buffered until a whole chunk row is complete, so every write covers whole chunks.
constexpr std::size_t chunk_target_bytes = std::size_t{1} << 20;
constexpr hsize_t max_entity_chunk = 4096;
constexpr hsize_t max_time_chunk = 4096;
constexpr hsize_t event_chunk = 256;
constexpr hsize_t fine_chunk_rows = 8192;  // 64 KiB per series chunk: 8 s of 1-ms samples
constexpr unsigned deflate_level = 2;

constexpr std::array<std::string_view, 5> reserved_top_level = {"time", "index", "summary",
                                                                "events", "scenario"};

constexpr std::array<std::string_view, 32> reserved_attributes = {
    "status",
    "status_reason",
    "end_time",
    "wall_time",
    "scenario_name",
    "title",
    "Conventions",
    "dctwin_report_version",
    "solver_steps",
    "solver_rhs_evaluations",
    "solver_jacobian_evaluations",
    "solver_linear_solver_setups",
    "solver_nonlinear_iterations",
    "solver_nonlinear_convergence_failures",
    "solver_error_test_failures",
    "solver_root_evaluations",
    "solver_segments",
    "solver_continued_segments",
    "solver_events",
    "solver_ticks_at_rest",
    "solver_last_step_size",
    "wall_time_integration",
    "wall_time_interpolation",
    "wall_time_periodic_updates",
    "wall_time_scheduled_updates",
    "wall_time_knots",
    "wall_time_continuations",
    "wall_time_restarts",
    "wall_time_samples",
    "wall_time_run_loop",
    "DIMENSION_LIST",
    "REFERENCE_LIST",
};

/// `value` as float32: the nearest float, +-infinity beyond float's range (a plain cast would be
/// undefined there), NaN as NaN.
float to_float32(double value) {
  constexpr double largest = std::numeric_limits<float>::max();
  if (value > largest) return std::numeric_limits<float>::infinity();
  if (value < -largest) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}

hsize_t time_chunk_rows(hsize_t entity_chunk) {
  const hsize_t fitting = chunk_target_bytes / (entity_chunk * sizeof(double));
  hsize_t rows = 1;
  while (rows * 2 <= fitting && rows * 2 <= max_time_chunk) rows *= 2;
  return rows;
}

/// Creation properties shared by all objects: no modification times, so that the same run
/// produces the same bytes.
void no_times(const h5::PropertyList& plist) {
  h5::check_status(H5Pset_obj_track_times(plist.id(), 0), "cannot configure", plist.what());
}

/// Groups (the root group through the file creation properties) remember the order in which their
/// members were created, as netCDF-4 expects, so tools list outputs in the simulator's order.
void track_link_order(const h5::PropertyList& plist) {
  h5::check_status(
      H5Pset_link_creation_order(plist.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
      "cannot configure", plist.what());
}

h5::PropertyList group_properties() {
  auto gcpl = h5::PropertyList::create(H5P_GROUP_CREATE, "group creation");
  no_times(gcpl);
  track_link_order(gcpl);
  return gcpl;
}

h5::PropertyList plain_dataset_properties() {
  auto dcpl = h5::PropertyList::create(H5P_DATASET_CREATE, "dataset creation");
  no_times(dcpl);
  return dcpl;
}

h5::PropertyList chunked_dataset_properties(std::span<const hsize_t> chunk, bool compress) {
  auto dcpl = plain_dataset_properties();
  h5::check_status(H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()),
                   "cannot set the chunk shape of", dcpl.what());
  if (compress) {
    h5::check_status(H5Pset_shuffle(dcpl.id()), "cannot enable shuffling in", dcpl.what());
    h5::check_status(H5Pset_deflate(dcpl.id(), deflate_level), "cannot enable compression in",
                     dcpl.what());
  }
  return dcpl;
}

/// One chunk as the dataset's filters would store it, and the filter mask H5Dwrite_chunk takes.
struct EncodedChunk {
  std::vector<unsigned char> bytes;
  std::uint32_t filter_mask = 0;
};

/// How a series is stored: float64, float32 (chosen by the scenario's `output` section), or
/// unsigned 32-bit integers (categorical series, whose values the writer has checked to be whole
/// numbers in range before buffering them).
enum class StoredType { float64, float32, uint32 };

hid_t file_type_of(StoredType type) {
  switch (type) {
    case StoredType::float64: return H5T_IEEE_F64LE;
    case StoredType::float32: return H5T_IEEE_F32LE;
    case StoredType::uint32: return H5T_STD_U32LE;
  }
  return H5T_IEEE_F64LE;
}

std::size_t stored_size(StoredType type) { return type == StoredType::float64 ? sizeof(double) : 4; }

/// A dataset growing along time: 1-D [time] (`width` 1, not `matrix`) or 2-D [time x width],
/// float64, float32 or uint32, written one chunk of rows at a time; float values optionally rounded
/// to a multiple of a power of two (`quantization_step`, 0: not rounded) as they are encoded. A chunk spans chunk_rows rows and (2-D)
/// up to max_entity_chunk entities, so a row of the buffer spans `tiles()` chunks.
///
/// The rows are written as chunks already passed through the filters (H5Dwrite_chunk), encoded
/// by encode_chunk(), which touches no HDF5 state: the chunks of several series (and the tiles
/// of one) are encoded on the run's threads and written on the calling thread (write_buffered).
class NumericSeries {
 public:
  NumericSeries() = default;
  NumericSeries(const h5::Object& parent, std::string_view name, hsize_t width, bool matrix,
                hsize_t chunk_rows, StoredType type = StoredType::float64, double quantization_step = 0.0)
      : width_(width),
        matrix_(matrix),
        chunk_rows_(chunk_rows),
        chunk_width_(matrix ? std::min(width, max_entity_chunk) : 1),
        type_(type),
        quantization_step_(type == StoredType::uint32 ? 0.0 : quantization_step) {
    std::vector<hsize_t> dims{0};
    std::vector<hsize_t> max_dims{H5S_UNLIMITED};
    std::vector<hsize_t> chunk{chunk_rows_};
    if (matrix_) {
      dims.push_back(width_);
      max_dims.push_back(width_);
      chunk.push_back(chunk_width_);
    }
    const auto space = h5::Dataspace::simple(dims, max_dims);
    const auto dcpl = chunked_dataset_properties(chunk, true);
    dataset_ = h5::Dataset::create(parent, name, file_type_of(type_), space, dcpl.id());
    buffer_.resize(static_cast<std::size_t>(chunk_rows_ * width_));
  }

  h5::Dataset& dataset() { return dataset_; }
  [[nodiscard]] hsize_t width() const { return width_; }

  /// Whether the buffer holds a whole chunk of rows (and must be written before the next push).
  [[nodiscard]] bool full() const { return buffered_ == chunk_rows_; }
  /// Whether rows are buffered and not yet written.
  [[nodiscard]] bool pending() const { return buffered_ > 0; }
  /// Chunks across one row: ceil(width / max_entity_chunk) for a 2-D series, 1 for a 1-D one.
  [[nodiscard]] std::size_t tiles() const { return static_cast<std::size_t>((width_ + chunk_width_ - 1) / chunk_width_); }

  /// Buffers one row (`width` values); no I/O. The buffer must not be full.
  void push(const double* row) {
    const auto offset = static_cast<std::size_t>(buffered_ * width_);
    std::copy_n(row, static_cast<std::size_t>(width_),
                buffer_.begin() + static_cast<std::ptrdiff_t>(offset));
    ++buffered_;
  }

  /// Chunk `tile` of the buffered rows (entities tile * chunk_width ...) as the bytes the
  /// dataset's filters would store: its chunk_rows x chunk_width values in row order, those
  /// beyond the buffered rows or the width (an edge chunk) as zeros, which no read returns;
  /// shuffled (byte k of every value, then byte k + 1, ...: HDF5's shuffle filter) and deflated at
  /// deflate_level (its deflate filter; the deflation skipped, as HDF5 skips an optional filter,
  /// when it would not shrink the chunk). Reads the buffer only: safe on several threads at once.
  [[nodiscard]] EncodedChunk encode_chunk(std::size_t tile) const {
    const auto rows = static_cast<std::size_t>(chunk_rows_), columns = static_cast<std::size_t>(chunk_width_);
    const auto width = static_cast<std::size_t>(width_), filled_rows = static_cast<std::size_t>(buffered_);
    const std::size_t first_column = tile * columns;
    const std::size_t filled_columns = std::min(columns, width - first_column);
    const std::size_t count = rows * columns;
    const std::size_t size = stored_size(type_);
    std::vector<unsigned char> shuffled(count * size, 0);
    std::vector<std::uint32_t> converted(type_ == StoredType::uint32 ? filled_columns : 0);
    std::vector<float> narrowed(type_ == StoredType::float32 ? filled_columns : 0);
    std::vector<double> rounded(type_ == StoredType::float64 && quantization_step_ > 0.0 ? filled_columns : 0);
    for (std::size_t r = 0; r < filled_rows; ++r) {
      const double* values = &buffer_[r * width + first_column];
      const unsigned char* row = reinterpret_cast<const unsigned char*>(values);
      if (type_ == StoredType::uint32) {  // exact: push() took whole numbers in range only
        for (std::size_t c = 0; c < filled_columns; ++c) converted[c] = static_cast<std::uint32_t>(values[c]);
        row = reinterpret_cast<const unsigned char*>(converted.data());
      } else if (type_ == StoredType::float32) {
        for (std::size_t c = 0; c < filled_columns; ++c)
          narrowed[c] = to_float32(quantization_step_ > 0.0 ? quantize(values[c], quantization_step_) : values[c]);
        row = reinterpret_cast<const unsigned char*>(narrowed.data());
      } else if (quantization_step_ > 0.0) {
        for (std::size_t c = 0; c < filled_columns; ++c) rounded[c] = quantize(values[c], quantization_step_);
        row = reinterpret_cast<const unsigned char*>(rounded.data());
      }
      const std::size_t i0 = r * columns;
      for (std::size_t k = 0; k < size; ++k) {
        unsigned char* plane = &shuffled[k * count + i0];
        for (std::size_t c = 0; c < filled_columns; ++c) plane[c] = row[c * size + k];
      }
    }
    EncodedChunk chunk;
    uLongf length = compressBound(static_cast<uLong>(shuffled.size()));
    chunk.bytes.resize(length);
    const int status = compress2(chunk.bytes.data(), &length, shuffled.data(), static_cast<uLong>(shuffled.size()),
                                 static_cast<int>(deflate_level));
    if (status == Z_OK && length < shuffled.size()) {
      chunk.bytes.resize(length);
      chunk.filter_mask = 0;
    } else {
      chunk.bytes = std::move(shuffled);
      chunk.filter_mask = 1U << 1;  // filter 1, deflate, not applied
    }
    return chunk;
  }

  /// Extends the dataset over the buffered rows (before their chunks are written).
  void extend_over_buffer() {
    std::vector<hsize_t> extent{written_ + buffered_};
    if (matrix_) extent.push_back(width_);
    dataset_.set_extent(extent);
  }

  /// Writes chunk `tile` of the buffered rows, as encode_chunk(tile) formed it.
  void write_chunk(std::size_t tile, const EncodedChunk& chunk) {
    std::vector<hsize_t> offset{written_};
    if (matrix_) offset.push_back(static_cast<hsize_t>(tile) * chunk_width_);
    dataset_.write_chunk(offset, chunk.filter_mask, chunk.bytes);
  }

  /// The buffered rows have been written (every tile): the buffer starts over.
  void mark_written() {
    written_ += buffered_;
    buffered_ = 0;
  }

  void close() { dataset_.close(); }
  void reset() noexcept { dataset_.reset(); }

 private:
  h5::Dataset dataset_;
  hsize_t width_ = 1;
  bool matrix_ = false;
  hsize_t chunk_rows_ = 1;
  hsize_t chunk_width_ = 1;
  StoredType type_ = StoredType::float64;
  double quantization_step_ = 0.0;
  std::vector<double> buffer_;
  hsize_t buffered_ = 0;
  hsize_t written_ = 0;
};

/// Writes the buffered rows of every series given that has any: their chunks are encoded on the
/// run's threads, up to `chunk_batch` at a time (a few MiB of encoded bytes in memory at once),
/// and written on this thread in order (HDF5 calls stay on one thread). A series' rows count as
/// written only once all its chunks are: after a failed write every series keeps its rows for the
/// next try.
void write_buffered(std::span<NumericSeries* const> series) {
  constexpr std::size_t chunk_batch = 16;
  struct Job {
    NumericSeries* series;
    std::size_t tile;
  };
  std::vector<Job> jobs;
  for (NumericSeries* s : series) {
    if (!s->pending()) continue;
    s->extend_over_buffer();
    for (std::size_t tile = 0; tile < s->tiles(); ++tile) jobs.push_back({s, tile});
  }
  if (jobs.empty()) return;
  std::vector<EncodedChunk> encoded(std::min(chunk_batch, jobs.size()));
  for (std::size_t first = 0; first < jobs.size(); first += chunk_batch) {
    const std::size_t count = std::min(chunk_batch, jobs.size() - first);
    solver::for_each_block(
        count,
        [&](const solver::BlockRange& block) {
          for (std::size_t k = block.first; k < block.last; ++k)
            encoded[k] = jobs[first + k].series->encode_chunk(jobs[first + k].tile);
        },
        2);
    for (std::size_t k = 0; k < count; ++k) jobs[first + k].series->write_chunk(jobs[first + k].tile, encoded[k]);
  }
  for (NumericSeries* s : series)
    if (s->pending()) s->mark_written();
}

/// A 1-D dataset of UTF-8 strings growing by appends, written `event_chunk` strings at a time.
class StringSeries {
 public:
  StringSeries() = default;
  StringSeries(const h5::Object& parent, std::string_view name) {
    const std::array<hsize_t, 1> dims{0};
    const std::array<hsize_t, 1> max_dims{H5S_UNLIMITED};
    const std::array<hsize_t, 1> chunk{event_chunk};
    const auto space = h5::Dataspace::simple(dims, max_dims);
    const auto dcpl = chunked_dataset_properties(chunk, false);
    const auto type = h5::Datatype::utf8_string();
    dataset_ = h5::Dataset::create(parent, name, type.id(), space, dcpl.id());
  }

  h5::Dataset& dataset() { return dataset_; }

  [[nodiscard]] bool full() const { return buffer_.size() >= event_chunk; }

  /// Buffers one string; no I/O.
  void push(std::string text) { buffer_.push_back(std::move(text)); }

  void flush_if_full() {
    if (full()) flush();
  }

  void flush() {
    if (buffer_.empty()) return;
    const hsize_t rows = buffer_.size();
    const std::array<hsize_t, 1> extent{written_ + rows};
    const std::array<hsize_t, 1> start{written_};
    const std::array<hsize_t, 1> count{rows};
    dataset_.set_extent(extent);
    auto file_space = dataset_.space();
    file_space.select_hyperslab(start, count);
    const auto memory_space = h5::Dataspace::simple(count);
    std::vector<const char*> pointers;
    pointers.reserve(buffer_.size());
    for (const auto& text : buffer_) pointers.push_back(text.c_str());
    const auto type = h5::Datatype::utf8_string();
    dataset_.write(type.id(), memory_space, file_space, pointers.data());
    written_ += rows;
    buffer_.clear();
  }

  void close() { dataset_.close(); }
  void reset() noexcept { dataset_.reset(); }

 private:
  h5::Dataset dataset_;
  std::vector<std::string> buffer_;
  hsize_t written_ = 0;
};

std::string output_path(const core::OutputSpec& spec) {
  return spec.group.empty() ? "/" + spec.name : "/" + spec.group + "/" + spec.name;
}

bool valid_name(std::string_view name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos;
}

bool valid_group(std::string_view group) {
  if (group.empty()) return true;
  std::size_t start = 0;
  while (true) {
    const auto slash = group.find('/', start);
    const auto part = group.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (!valid_name(part)) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

std::string first_component(const core::OutputSpec& spec) {
  if (spec.group.empty()) return spec.name;
  return spec.group.substr(0, spec.group.find('/'));
}

[[noreturn]] void layout_error(const std::string& detail) {
  throw ReportError("invalid report layout: " + detail);
}

/// `/<group>/<name>`, or `/<name>` in the root group.
std::string member_path(std::string_view group, std::string_view name) {
  std::string path(1, '/');
  if (!group.empty()) path.append(group).append(1, '/');
  return path.append(name);
}

/// The netCDF dimension of dimension `d` of static data that does not run over an entity (e.g. the
/// x, y, z of /layout/rack_position): `<name>_dim<d>`, a dimension without a coordinate variable.
std::string static_dimension_name(const core::StaticData& data, std::size_t d) {
  return data.name + "_dim" + std::to_string(d);
}

/// A CF flag meaning: a word of letters, digits and underscores (flag_meanings separates the words
/// by blanks).
bool valid_flag_meaning(std::string_view meaning) {
  return !meaning.empty() && std::all_of(meaning.begin(), meaning.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void check_flags(const std::string& path, const SeriesFlags& flags) {
  if (flags.kind == SeriesFlags::Kind::none) {
    if (!flags.values.empty() || !flags.meanings.empty())
      layout_error(fmt::format("output '{}': flag values or meanings without a flag kind", path));
    return;
  }
  if (flags.values.empty() || flags.values.size() != flags.meanings.size()) {
    layout_error(fmt::format("output '{}': {} flag values and {} meanings (must be as many, at least one)", path,
                             flags.values.size(), flags.meanings.size()));
  }
  std::set<std::uint32_t> values;
  for (std::size_t k = 0; k < flags.values.size(); ++k) {
    if (!valid_flag_meaning(flags.meanings[k]))
      layout_error(fmt::format("output '{}': flag meaning '{}' is not a word of letters, digits and '_'", path,
                               flags.meanings[k]));
    if (flags.kind == SeriesFlags::Kind::bit_field && flags.values[k] == 0)
      layout_error(fmt::format("output '{}': flag mask of '{}' is 0", path, flags.meanings[k]));
    if (!values.insert(flags.values[k]).second)
      layout_error(fmt::format("output '{}': flag value {} appears twice", path, flags.values[k]));
  }
}

/// Every group `path` lies in, e.g. "/a" and "/a/b" for "/a/b/c".
void add_parent_groups(const std::string& path, std::set<std::string>& groups) {
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
    groups.insert(path.substr(0, slash));
}

/// Checks the layout and returns how many values a sample must hold at least.
std::size_t check_layout(const ReportLayout& layout) {
  std::map<std::string, std::size_t> entity_sizes;
  for (const auto& table : layout.entities) {
    if (!valid_name(table.entity)) {
      layout_error(fmt::format("entity name '{}' is empty or contains '/'", table.entity));
    }
    if (!entity_sizes.emplace(table.entity, table.labels.size()).second) {
      layout_error(fmt::format("entity '{}' has two index tables", table.entity));
    }
  }
  std::set<std::string> paths;
  std::size_t required = 0;
  for (const auto& output : layout.outputs) {
    const auto& spec = output.spec;
    const std::string path = output_path(spec);
    if (!valid_name(spec.name) || !valid_group(spec.group)) {
      layout_error(fmt::format("output '{}': group '{}' or name '{}' is not a valid HDF5 path",
                               path, spec.group, spec.name));
    }
    const std::string top = first_component(spec);
    if (std::find(reserved_top_level.begin(), reserved_top_level.end(), top) !=
        reserved_top_level.end()) {
      layout_error(fmt::format("output '{}': '/{}' is reserved by the report", path, top));
    }
    if (!paths.insert(path).second) layout_error(fmt::format("output '{}' appears twice", path));
    check_flags(path, output.flags);
    if (spec.count < 1) {
      layout_error(fmt::format("output '{}': count = {} (must be >= 1)", path, spec.count));
    }
    const auto count = static_cast<std::size_t>(spec.count);
    if (spec.entity.empty()) {
      if (count != 1) {
        layout_error(fmt::format("output '{}': count = {} without an entity (a scalar series has "
                                 "count 1)",
                                 path, count));
      }
    } else {
      const auto table = entity_sizes.find(spec.entity);
      if (table == entity_sizes.end()) {
        layout_error(fmt::format("output '{}': no index table for entity '{}'", path,
                                 spec.entity));
      }
      if (table->second != count) {
        layout_error(fmt::format("output '{}': {} values, but entity '{}' has {} labels", path,
                                 count, spec.entity, table->second));
      }
    }
    required = std::max(required, output.first_value + count);
  }
  for (const auto& data : layout.static_data) {
    const std::string path = data.group + "/" + data.name;
    if (!valid_name(data.name) || !valid_group(data.group) || data.group.empty()) {
      layout_error(fmt::format("static data '{}': group '{}' or name '{}' is not a valid HDF5 path", path,
                               data.group, data.name));
    }
    if (!paths.insert(path).second) layout_error(fmt::format("static data '{}' appears twice", path));
    std::size_t size = 1;
    for (std::size_t d : data.shape) size *= d;
    if (data.shape.empty() || size != data.values.size()) {
      layout_error(fmt::format("static data '{}': {} values do not fill its shape", path, data.values.size()));
    }
    if (!data.entity.empty()) {
      const auto table = entity_sizes.find(data.entity);
      if (table == entity_sizes.end() || table->second != data.shape.front()) {
        layout_error(fmt::format("static data '{}': first dimension does not match entity '{}'", path,
                                 data.entity));
      }
    }
  }
  for (const auto& group : layout.fine_series) {
    for (const auto& spec : group.series) paths.insert(member_path(group.group, spec.name));
    paths.insert(member_path(group.group, "time"));
  }
  // The names the report adds next to the outputs: each group's coordinate variables of the
  // entities its datasets run over (netCDF finds a dimension only in the group of the dataset or
  // above it) and the dimensions of static data that run over no entity.
  std::set<std::string> groups;
  for (const auto& path : paths) add_parent_groups(path, groups);
  const auto claim = [&](const std::string& path, const std::string& what) {
    const std::string top = path.substr(1, path.find('/', 1) - 1);
    if (paths.count(path) != 0 || groups.count(path) != 0 ||
        std::find(reserved_top_level.begin(), reserved_top_level.end(), top) != reserved_top_level.end())
      layout_error(fmt::format("'{}' is taken: the report stores {} there", path, what));
  };
  std::set<std::string> added;
  for (const auto& output : layout.outputs) {
    const std::string path = member_path(output.spec.group, output.spec.entity);
    if (!output.spec.entity.empty() && added.insert(path).second)
      claim(path, "the labels of the " + output.spec.entity + " entities");
  }
  for (const auto& data : layout.static_data) {
    const std::string path = member_path(data.group, data.entity);
    if (!data.entity.empty() && added.insert(path).second)
      claim(path, "the labels of the " + data.entity + " entities");
    for (std::size_t d = data.entity.empty() ? 0 : 1; d < data.shape.size(); ++d) {
      const std::string dimension = member_path(data.group, static_dimension_name(data, d));
      if (!added.insert(dimension).second) layout_error(fmt::format("'{}' is taken twice", dimension));
      claim(dimension, "a dimension of " + member_path(data.group, data.name));
    }
  }
  for (const auto& [name, value] : layout.attributes) {
    if (name.empty()) layout_error("an extra attribute has an empty name");
    if (std::find(reserved_attributes.begin(), reserved_attributes.end(), name) !=
        reserved_attributes.end()) {
      layout_error(fmt::format("attribute '{}' is written by the report itself", name));
    }
  }
  for (const auto& [name, value] : layout.unsigned_attributes) {
    if (name.empty()) layout_error("an extra attribute has an empty name");
    if (std::find(reserved_attributes.begin(), reserved_attributes.end(), name) !=
            reserved_attributes.end() ||
        layout.attributes.count(name) != 0) {
      layout_error(fmt::format("attribute '{}' is written twice", name));
    }
  }
  return required;
}

void set_text_attributes(h5::Object& object, std::string_view units, std::string_view long_name) {
  object.set_attribute("units", units);
  object.set_attribute("long_name", long_name);
}

/// CF attributes of a time axis: seconds since the nominal epoch of the run's start.
void set_time_attributes(h5::Object& object, std::string_view long_name) {
  set_text_attributes(object, report_time_units, long_name);
  object.set_attribute("calendar", "standard");
  object.set_attribute("standard_name", "time");
  object.set_attribute("axis", "T");
}

/// CF attributes of a categorical series: flag_masks (bit field) or flag_values (enumeration),
/// both of the series' type, and flag_meanings.
void set_flag_attributes(h5::Object& object, const SeriesFlags& flags) {
  if (flags.kind == SeriesFlags::Kind::none) return;
  object.set_unsigned_attribute(flags.kind == SeriesFlags::Kind::bit_field ? "flag_masks" : "flag_values",
                                std::span<const std::uint32_t>(flags.values));
  std::string meanings;
  for (const auto& meaning : flags.meanings) meanings.append(meanings.empty() ? "" : " ").append(meaning);
  object.set_attribute("flag_meanings", meanings);
}

StoredType stored_type_of(const SeriesStorage& storage, bool categorical) {
  if (categorical) return StoredType::uint32;
  return storage.float32 ? StoredType::float32 : StoredType::float64;
}

/// How fine series `k` of `group` is stored (the default when the layout gives none).
const SeriesStorage& storage_of(const FineSeriesLayout& group, std::size_t k) {
  static const SeriesStorage full_precision;
  return k < group.storage.size() ? group.storage[k] : full_precision;
}

/// Attributes of a rounded series: `resolution` and `quantization_step` (float64, in the series'
/// units) and a `comment` that says what the rounding means.
void set_storage_attributes(h5::Object& object, const SeriesStorage& storage, std::string_view units) {
  if (storage.quantization_step <= 0.0) return;
  object.set_attribute("resolution", storage.resolution);
  object.set_attribute("quantization_step", storage.quantization_step);
  object.set_attribute(
      "comment", fmt::format("values rounded to the nearest multiple of quantization_step = {} {} (the largest power "
                             "of two at most the resolution{}{}); each differs from the simulated value by at most "
                             "half of it{}",
                             storage.quantization_step, units,
                             storage.resolution_as_written.empty() ? "" : " ",
                             storage.resolution_as_written, storage.float32 ? ", plus float32's rounding" : ""));
}

/// NAME of the dimension scale of a netCDF-4 dimension that has no coordinate variable: the mark
/// the netCDF library itself writes and looks for, followed by the length in ten places.
std::string dimension_without_variable(hsize_t length) {
  return fmt::format("This is a netCDF dimension but not a netCDF variable.{:10}", length);
}

}  // namespace

struct ReportWriter::Impl {
  enum class State { open, closed, discarded };

  // The temporary the file lives in; declared first, so that it is removed (when not committed)
  // only after the file is closed.
  std::optional<OutputFile> temporary;
  // Declared next so that it is destroyed after every object inside the file.
  h5::File file;

  std::filesystem::path final_path;
  State state = State::open;
  std::size_t required_values = 0;
  double last_time = 0.0;
  bool has_samples = false;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  struct Output {
    std::size_t first_value = 0;
    NumericSeries series;
    bool categorical = false;  ///< stored as uint32: values checked before they are buffered
    std::string path;
  };
  NumericSeries time;
  std::vector<Output> outputs;
  struct FineGroup {
    std::string group;
    std::vector<std::size_t> written;  ///< the layout's series that are written, in order
    std::size_t layout_size = 0;       ///< how many series a sample holds
    NumericSeries time;
    std::vector<NumericSeries> series;  ///< one per `written`
    double last_time = -std::numeric_limits<double>::infinity();
  };
  std::vector<FineGroup> fine;
  NumericSeries event_time;
  StringSeries event_component;
  StringSeries event_name;
  StringSeries event_message;

  void create(const ReportLayout& layout, const std::vector<InputFile>& inputs);
  void ensure_group(const std::string& group, std::set<std::string>& existing,
                    const h5::PropertyList& gcpl);
  void require_open(std::string_view operation) const;
  void flush_full_samples();
  void flush_full_events();
  void flush_all();
  void write_status(bool complete, const std::string& reason, double end_time, double wall_time);
  void close_file();
  void publish();
  void discard() noexcept;
  void abandon(const std::string& reason);
};

void ReportWriter::Impl::create(const ReportLayout& layout, const std::vector<InputFile>& inputs) {
  temporary.emplace(final_path, "report", inputs);
  auto fapl = h5::PropertyList::create(H5P_FILE_ACCESS, "file access");
  // HDF5 1.8 object formats: readable by every current tool, with dense attribute storage and
  // link creation order.
  h5::check_status(H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V18, H5F_LIBVER_V18),
                   "cannot configure", fapl.what());
  // Lock the file where the file system supports it; elsewhere (some parallel file systems)
  // carry on without locking.
  h5::check_status(H5Pset_file_locking(fapl.id(), 1, 1), "cannot configure", fapl.what());
  h5::check_status(H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_SEMI), "cannot configure",
                   fapl.what());
  auto fcpl = h5::PropertyList::create(H5P_FILE_CREATE, "file creation");
  no_times(fcpl);
  track_link_order(fcpl);
  file = h5::File::create(temporary->open_path(), fcpl.id(), fapl.id(), temporary->describe());

  const auto gcpl = group_properties();
  const auto plain_dcpl = plain_dataset_properties();
  const auto text_type = h5::Datatype::utf8_string();
  const auto scalar = h5::Dataspace::scalar();

  // Root attributes; the status is replaced when the report is closed.
  file.set_attribute("title", layout.scenario_name.empty()
                                  ? std::string("dctwin simulation report")
                                  : "dctwin simulation report: " + layout.scenario_name);
  file.set_attribute("Conventions", "CF-1.8");
  file.set_attribute("dctwin_report_version", report_version);
  file.set_attribute("scenario_name", layout.scenario_name);
  file.set_attribute("scenario_file", layout.scenario_file);
  file.set_attribute("status", "incomplete");
  file.set_attribute("status_reason", "the report is still being written");
  file.set_attribute("end_time", 0.0);
  file.set_attribute("wall_time", 0.0);
  for (const auto& [name, value] : layout.attributes) file.set_attribute(name, value);
  for (const auto& [name, value] : layout.unsigned_attributes) file.set_unsigned_attribute(name, value);

  // The scenario as written and resolved.
  {
    auto scenario = h5::Group::create(file, "scenario", gcpl.id());
    scenario.set_attribute("file", layout.scenario_file);
    const std::array<std::pair<const char*, const std::string*>, 2> texts = {
        std::pair{"source", &layout.scenario_source},
        std::pair{"resolved", &layout.resolved_scenario}};
    for (const auto& [name, text] : texts) {
      auto dataset = h5::Dataset::create(scenario, name, text_type.id(), scalar, plain_dcpl.id());
      const char* pointer = text->c_str();
      dataset.write_all(text_type.id(), &pointer);
      set_text_attributes(dataset, "1",
                          std::string_view(name) == "source"
                              ? "scenario file as written"
                              : "resolved scenario (defaults filled in), YAML");
      dataset.close();
    }
    scenario.close();
  }

  // Time coordinate.
  time = NumericSeries(file, "time", 1, false, time_chunk_rows(1));
  set_time_attributes(time.dataset(), "simulated time");
  time.dataset().make_scale("time");

  // Entity index tables.
  {
    auto index = h5::Group::create(file, "index", gcpl.id());
    for (const auto& table : layout.entities) {
      const std::array<hsize_t, 1> dims{table.labels.size()};
      const auto space = h5::Dataspace::simple(dims);
      auto dataset =
          h5::Dataset::create(index, table.entity, text_type.id(), space, plain_dcpl.id());
      if (!table.labels.empty()) {
        std::vector<const char*> pointers;
        pointers.reserve(table.labels.size());
        for (const auto& label : table.labels) pointers.push_back(label.c_str());
        dataset.write_all(text_type.id(), pointers.data());
      }
      set_text_attributes(dataset, "1", "labels of the " + table.entity + " entities");
      dataset.make_scale(table.entity);
      dataset.close();
    }
    index.close();
  }
  // The coordinate variable `/<group>/<entity>` of each group whose datasets run over the entity
  // (netCDF-4 resolves a dimension in the dataset's own group or above it, never in a sibling
  // such as /index): the labels again, as the dimension scale those datasets attach to.
  std::map<std::string, const std::vector<std::string>*> labels_of;
  for (const auto& table : layout.entities) labels_of.emplace(table.entity, &table.labels);
  std::map<std::string, h5::Dataset> coordinates;
  const auto coordinate = [&](const std::string& group, const std::string& entity) -> h5::Dataset& {
    const std::string path = member_path(group, entity);
    auto found = coordinates.find(path);
    if (found != coordinates.end()) return found->second;
    const auto& labels = *labels_of.at(entity);
    const std::array<hsize_t, 1> dims{labels.size()};
    auto dataset = h5::Dataset::create(file, path, text_type.id(), h5::Dataspace::simple(dims), plain_dcpl.id());
    if (!labels.empty()) {
      std::vector<const char*> pointers;
      pointers.reserve(labels.size());
      for (const auto& label : labels) pointers.push_back(label.c_str());
      dataset.write_all(text_type.id(), pointers.data());
    }
    set_text_attributes(dataset, "1", "labels of the " + entity + " entities");
    dataset.make_scale(entity);
    return coordinates.emplace(path, std::move(dataset)).first->second;
  };

  // Outputs.
  std::set<std::string> groups;
  outputs.reserve(layout.outputs.size());
  for (const auto& output : layout.outputs) {
    const auto& spec = output.spec;
    if (!output.storage.written) continue;
    ensure_group(spec.group, groups, gcpl);
    const bool matrix = !spec.entity.empty();
    const auto width = static_cast<hsize_t>(spec.count);
    const hsize_t rows = time_chunk_rows(matrix ? std::min(width, max_entity_chunk) : 1);
    const bool categorical = output.flags.kind != SeriesFlags::Kind::none;
    if (matrix) (void)coordinate(spec.group, spec.entity);  // before the dataset: netCDF lists it first
    Output entry{output.first_value,
                 NumericSeries(file, output_path(spec), width, matrix, rows, stored_type_of(output.storage, categorical),
                               categorical ? 0.0 : output.storage.quantization_step),
                 categorical, output_path(spec)};
    auto& dataset = entry.series.dataset();
    set_text_attributes(dataset, spec.unit, spec.long_name);
    set_flag_attributes(dataset, output.flags);
    if (!categorical) set_storage_attributes(dataset, output.storage, spec.unit);
    dataset.attach_scale(time.dataset(), 0);
    if (matrix) {
      dataset.set_attribute("entity", spec.entity);
      dataset.attach_scale(coordinate(spec.group, spec.entity), 1);
    }
    outputs.push_back(std::move(entry));
  }
  // Fine series: their own time axis in their group.
  for (const auto& layout_group : layout.fine_series) {
    for (const auto& spec : layout_group.series)
      if (!valid_name(spec.name) || spec.name == "time")
        throw ReportError(fmt::format("invalid fine series name '{}' in group '{}'", spec.name, layout_group.group));
    if (!layout_group.storage.empty() && layout_group.storage.size() != layout_group.series.size())
      throw ReportError(fmt::format("fine series group '{}': {} storage entries for {} series", layout_group.group,
                                    layout_group.storage.size(), layout_group.series.size()));
    auto& g = fine.emplace_back();
    g.group = layout_group.group;
    g.layout_size = layout_group.series.size();
    for (std::size_t k = 0; k < layout_group.series.size(); ++k)
      if (storage_of(layout_group, k).written) g.written.push_back(k);
    if (g.written.empty()) continue;  // no time axis for a group without series
    ensure_group(layout_group.group, groups, gcpl);
    g.time = NumericSeries(file, layout_group.group + "/time", 1, false, fine_chunk_rows);
    set_time_attributes(g.time.dataset(), layout_group.time_long_name);
    g.time.dataset().make_scale(layout_group.group + "_time");
    for (const std::size_t k : g.written) {
      const auto& spec = layout_group.series[k];
      const SeriesStorage& storage = storage_of(layout_group, k);
      auto& series = g.series.emplace_back(file, layout_group.group + "/" + spec.name, 1, false, fine_chunk_rows,
                                           stored_type_of(storage, false), storage.quantization_step);
      set_text_attributes(series.dataset(), spec.unit, spec.long_name);
      set_storage_attributes(series.dataset(), storage, spec.unit);
      series.dataset().attach_scale(g.time.dataset(), 0);
    }
  }
  // Static data (geometry, maps): written once, float64, uncompressed.
  for (const auto& data : layout.static_data) {
    ensure_group(data.group, groups, gcpl);
    std::vector<hsize_t> dims(data.shape.begin(), data.shape.end());
    if (!data.entity.empty()) (void)coordinate(data.group, data.entity);
    // Dimensions over no entity: netCDF dimensions without a coordinate variable (an empty
    // float32 dataset marked as netCDF marks them), so that every dimension has a name.
    std::vector<h5::Dataset> plain_dimensions;
    for (std::size_t d = data.entity.empty() ? 0 : 1; d < dims.size(); ++d) {
      const std::array<hsize_t, 1> length{dims[d]};
      auto dimension = h5::Dataset::create(file, member_path(data.group, static_dimension_name(data, d)),
                                           H5T_IEEE_F32LE, h5::Dataspace::simple(length), plain_dcpl.id());
      set_text_attributes(dimension, "1", fmt::format("dimension {} of {}", d, data.name));
      dimension.make_scale(dimension_without_variable(dims[d]));
      plain_dimensions.push_back(std::move(dimension));
    }
    const auto space = h5::Dataspace::simple(dims);
    auto dataset = h5::Dataset::create(file, data.group + "/" + data.name, H5T_NATIVE_DOUBLE, space,
                                       plain_dcpl.id());
    if (!data.values.empty()) dataset.write_all(H5T_NATIVE_DOUBLE, data.values.data());
    set_text_attributes(dataset, data.unit, data.long_name);
    if (!data.entity.empty()) {
      dataset.set_attribute("entity", data.entity);
      dataset.attach_scale(coordinate(data.group, data.entity), 0);
    }
    for (std::size_t k = 0; k < plain_dimensions.size(); ++k) {
      dataset.attach_scale(plain_dimensions[k], static_cast<unsigned>(dims.size() - plain_dimensions.size() + k));
      plain_dimensions[k].close();
    }
    dataset.close();
  }
  for (auto& [path, dataset] : coordinates) dataset.close();

  // Summary (filled by finish) and events.
  h5::Group::create(file, "summary", gcpl.id()).close();
  {
    auto events = h5::Group::create(file, "events", gcpl.id());
    event_time = NumericSeries(events, "time", 1, false, event_chunk);
    set_time_attributes(event_time.dataset(), "event time");
    event_time.dataset().make_scale("time");  // the events' own dimension, `time` in /events
    event_component = StringSeries(events, "component");
    set_text_attributes(event_component.dataset(), "1", "component that raised the event");
    event_name = StringSeries(events, "event");
    set_text_attributes(event_name.dataset(), "1", "event kind");
    event_message = StringSeries(events, "message");
    set_text_attributes(event_message.dataset(), "1", "event description");
    for (StringSeries* series : {&event_component, &event_name, &event_message})
      series->dataset().attach_scale(event_time.dataset(), 0);
    events.close();
  }
}

void ReportWriter::Impl::ensure_group(const std::string& group, std::set<std::string>& existing,
                                      const h5::PropertyList& gcpl) {
  if (group.empty()) return;
  std::size_t slash = 0;
  while (true) {
    slash = group.find('/', slash);
    std::string path(1, '/');
    path.append(group, 0, slash);
    if (existing.insert(path).second) h5::Group::create(file, path, gcpl.id()).close();
    if (slash == std::string::npos) return;
    ++slash;
  }
}

void ReportWriter::Impl::require_open(std::string_view operation) const {
  if (state != State::open) {
    throw ReportError(fmt::format("cannot {} report '{}': it is already closed", operation,
                                  final_path.string()));
  }
}

void ReportWriter::Impl::flush_full_samples() {
  // The series' chunks span different numbers of rows (32 for a 24,576-wide one, 4,096 for time).
  std::vector<NumericSeries*> series;
  if (time.full()) series.push_back(&time);
  for (auto& output : outputs)
    if (output.series.full()) series.push_back(&output.series);
  write_buffered(series);
}

void ReportWriter::Impl::flush_full_events() {
  if (event_time.full()) {
    NumericSeries* const series[] = {&event_time};
    write_buffered(series);
  }
  event_component.flush_if_full();
  event_name.flush_if_full();
  event_message.flush_if_full();
}

void ReportWriter::Impl::flush_all() {
  std::vector<NumericSeries*> series{&time};
  for (auto& output : outputs) series.push_back(&output.series);
  for (auto& g : fine) {
    series.push_back(&g.time);
    for (auto& fine_series : g.series) series.push_back(&fine_series);
  }
  series.push_back(&event_time);
  write_buffered(series);
  event_component.flush();
  event_name.flush();
  event_message.flush();
}

void ReportWriter::Impl::write_status(bool complete, const std::string& reason, double end_time,
                                      double wall_time) {
  file.set_attribute("status", complete ? "complete" : "incomplete");
  file.set_attribute("status_reason", complete ? std::string() : reason);
  file.set_attribute("end_time", end_time);
  file.set_attribute("wall_time", wall_time);
}

void ReportWriter::Impl::close_file() {
  flush_all();
  // Everything reaches the file before any handle is closed: a failure surfaces here, while
  // discard() can still throw the file away cleanly.
  file.flush();
  time.close();
  for (auto& output : outputs) output.series.close();
  for (auto& g : fine) {
    g.time.close();
    for (auto& series : g.series) series.close();
  }
  event_time.close();
  event_component.close();
  event_name.close();
  event_message.close();
  file.close();
}

void ReportWriter::Impl::publish() {
  state = State::closed;
  temporary->commit();  // removes the temporary when it fails
}

void ReportWriter::Impl::discard() noexcept {
  state = State::discarded;
  // Whatever HDF5 still has to write goes to memory, so closing the handles cannot fail.
  (void)file.detach_storage();
  time.reset();
  for (auto& output : outputs) output.series.reset();
  for (auto& g : fine) {
    g.time.reset();
    for (auto& series : g.series) series.reset();
  }
  event_time.reset();
  event_component.reset();
  event_name.reset();
  event_message.reset();
  file.reset();
  if (temporary) temporary->discard();
}

void ReportWriter::Impl::abandon(const std::string& reason) {
  if (state != State::open) return;
  try {
    const double wall_time =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    flush_all();
    write_status(false, reason.empty() ? std::string("the run was abandoned") : reason,
                 has_samples ? last_time : 0.0, wall_time);
    close_file();
  } catch (...) {
    discard();
    throw;
  }
  publish();
}

// --- ReportWriter ---------------------------------------------------------------------------

ReportWriter::ReportWriter(std::filesystem::path final_path, ReportLayout layout,
                           const std::vector<InputFile>& inputs)
    : impl_(std::make_unique<Impl>()) {
  h5::init();
  impl_->required_values = check_layout(layout);
  impl_->final_path = std::move(final_path);
  try {
    impl_->create(layout, inputs);
  } catch (...) {
    impl_->discard();
    throw;
  }
}

ReportWriter::~ReportWriter() {
  if (!impl_ || impl_->state != Impl::State::open) return;
  try {
    impl_->abandon(std::uncaught_exceptions() > 0
                       ? "the run was aborted by an error before the report was finished"
                       : "the report was closed before the run finished");
  } catch (...) {
    // A destructor must not throw; abandon() has already removed a file it could not complete.
  }
}

ReportWriter::ReportWriter(ReportWriter&&) noexcept = default;

ReportWriter& ReportWriter::operator=(ReportWriter&& other) noexcept {
  if (this != &other) {
    if (impl_ && impl_->state == Impl::State::open) {
      try {
        impl_->abandon("the report writer was replaced before the run finished");
      } catch (...) {
        // As in the destructor: nothing more can be done for the abandoned report.
      }
    }
    impl_ = std::move(other.impl_);
  }
  return *this;
}

ReportWriter::Impl& ReportWriter::impl() const {
  if (!impl_) throw ReportError("report writer used after it was moved from");
  h5::init();
  return *impl_;
}

void ReportWriter::append_sample(double t, std::span<const double> values) {
  auto& self = impl();
  self.require_open("append a sample to");
  if (!std::isfinite(t)) {
    throw ReportError(fmt::format("report '{}': sample time {} is not finite",
                                  self.final_path.string(), t));
  }
  if (self.has_samples && t < self.last_time) {
    throw ReportError(fmt::format("report '{}': sample time {} s is before the previous one ({} s)",
                                  self.final_path.string(), t, self.last_time));
  }
  if (values.size() < self.required_values) {
    throw ReportError(fmt::format("report '{}': a sample has {} values, the layout needs {}",
                                  self.final_path.string(), values.size(),
                                  self.required_values));
  }
  // Categorical series store whole numbers: checked before any series takes the row.
  for (const auto& output : self.outputs) {
    if (!output.categorical) continue;
    const auto width = static_cast<std::size_t>(output.series.width());
    for (std::size_t k = 0; k < width; ++k) {
      const double value = values[output.first_value + k];
      if (!(value >= 0.0 && value <= 4294967295.0 && value == std::floor(value))) {
        throw ReportError(fmt::format("report '{}': {} value {} at t = {} s is not a whole number in [0, 4294967295]",
                                      self.final_path.string(), output.path, value, t));
      }
    }
  }
  // Every series takes the row before any of them writes, so that a failed write leaves them
  // all the same length (the row is written later, by a retry or when the report is closed).
  self.flush_full_samples();
  self.time.push(&t);
  for (auto& output : self.outputs) output.series.push(values.data() + output.first_value);
  self.last_time = t;
  self.has_samples = true;
  self.flush_full_samples();
}

void ReportWriter::append_fine_sample(std::size_t group, double t, std::span<const double> values) {
  auto& self = impl();
  self.require_open("append a sample to");
  if (group >= self.fine.size())
    throw ReportError(fmt::format("report '{}': no fine series group {}", self.final_path.string(), group));
  auto& g = self.fine[group];
  if (!std::isfinite(t) || t < g.last_time) {
    throw ReportError(fmt::format("report '{}': /{} sample time {} s is not finite or before the previous one",
                                  self.final_path.string(), g.group, t));
  }
  if (values.size() != g.layout_size) {
    throw ReportError(fmt::format("report '{}': a /{} sample has {} values, the layout has {} series",
                                  self.final_path.string(), g.group, values.size(), g.layout_size));
  }
  if (g.written.empty()) {  // none of the group's series is written
    g.last_time = t;
    return;
  }
  if (g.time.full()) {
    for (const auto& series : g.series) DCTWIN_DEMAND(series.full(), "a fine series group's series fill together");
    // The group's series fill their chunks together (8,192 samples each): they are shuffled and
    // deflated side by side on the run's threads, then written one after the other.
    std::vector<NumericSeries*> series{&g.time};
    for (auto& fine_series : g.series) series.push_back(&fine_series);
    write_buffered(series);
  }
  g.time.push(&t);
  for (std::size_t k = 0; k < g.series.size(); ++k) g.series[k].push(&values[g.written[k]]);
  g.last_time = t;
}

void ReportWriter::add_event(double t, std::string component, std::string event,
                             std::string message) {
  auto& self = impl();
  self.require_open("add an event to");
  if (!std::isfinite(t)) {
    throw ReportError(fmt::format("report '{}': event time {} is not finite",
                                  self.final_path.string(), t));
  }
  self.flush_full_events();
  self.event_time.push(&t);
  self.event_component.push(std::move(component));
  self.event_name.push(std::move(event));
  self.event_message.push(std::move(message));
  self.flush_full_events();
}

void ReportWriter::finish(const RunInfo& run, const std::vector<core::SummaryFigure>& summary) {
  auto& self = impl();
  self.require_open("finish");
  std::set<std::string> names;
  for (const auto& figure : summary) {
    if (!valid_name(figure.name)) {
      throw ReportError(fmt::format("report '{}': summary figure name '{}' is empty or contains '/'",
                                    self.final_path.string(), figure.name));
    }
    if (!names.insert(figure.name).second) {
      throw ReportError(fmt::format("report '{}': summary figure '{}' appears twice",
                                    self.final_path.string(), figure.name));
    }
  }
  try {
    self.flush_all();
    {
      auto group = h5::Group::open(self.file, "summary");
      const auto dcpl = plain_dataset_properties();
      const auto scalar = h5::Dataspace::scalar();
      for (const auto& figure : summary) {
        auto dataset =
            h5::Dataset::create(group, figure.name, H5T_IEEE_F64LE, scalar, dcpl.id());
        dataset.write_all(H5T_NATIVE_DOUBLE, &figure.value);
        set_text_attributes(dataset, figure.unit, figure.long_name);
        dataset.close();
      }
      group.close();
    }
    const auto& status = run.status;
    self.write_status(status.finished(), status.describe(), status.time, run.wall_time_seconds);
    const auto& s = run.statistics;
    const std::array<std::pair<const char*, long>, 12> counters = {
        std::pair{"solver_steps", s.steps},
        std::pair{"solver_rhs_evaluations", s.rhs_evaluations},
        std::pair{"solver_jacobian_evaluations", s.jacobian_evaluations},
        std::pair{"solver_linear_solver_setups", s.linear_solver_setups},
        std::pair{"solver_nonlinear_iterations", s.nonlinear_iterations},
        std::pair{"solver_nonlinear_convergence_failures", s.nonlinear_convergence_failures},
        std::pair{"solver_error_test_failures", s.error_test_failures},
        std::pair{"solver_root_evaluations", s.root_evaluations},
        std::pair{"solver_segments", s.segments},
        std::pair{"solver_continued_segments", s.continued_segments},
        std::pair{"solver_events", s.events},
        std::pair{"solver_ticks_at_rest", s.ticks_at_rest}};
    for (const auto& [name, value] : counters) {
      self.file.set_attribute(name, static_cast<long long>(value));
    }
    self.file.set_attribute("solver_last_step_size", s.last_step_size);
    const auto& w = s.wall_time;
    const std::array<std::pair<const char*, double>, 9> parts = {
        std::pair{"wall_time_integration", w.integration},
        std::pair{"wall_time_interpolation", w.interpolation},
        std::pair{"wall_time_periodic_updates", w.periodic_updates},
        std::pair{"wall_time_scheduled_updates", w.scheduled_updates},
        std::pair{"wall_time_knots", w.knots},
        std::pair{"wall_time_continuations", w.continuations},
        std::pair{"wall_time_restarts", w.restarts},
        std::pair{"wall_time_samples", w.samples},
        std::pair{"wall_time_run_loop", w.total}};
    for (const auto& [name, value] : parts) self.file.set_attribute(name, value);
    self.close_file();
  } catch (...) {
    self.discard();
    throw;
  }
  self.publish();
}

void ReportWriter::abandon(const std::string& reason) { impl().abandon(reason); }

const std::filesystem::path& ReportWriter::final_path() const {
  return impl().final_path;
}

}  // namespace dctwin::io
