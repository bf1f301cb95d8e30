// HDF5 simulation reports: a streaming writer and a reader.
//
// A report is an HDF5 file that is also a netCDF-4 file following the CF conventions:
//
//   /time                      float64 [time], units "s since 2000-01-01T00:00:00Z", dimension
//                              scale of dimension 0
//   /<group>/<name>            float64 [time] or [time x count], attributes units, long_name
//                              (and entity for 2-D datasets); categorical series uint32 with CF
//                              flag_masks or flag_values and flag_meanings
//   /<group>/<entity>          the labels of the entities the group's datasets run over, UTF-8
//                              strings [count], the dimension scale of their entity dimension
//   /index/<entity>            the same labels, one table per entity kind
//   /<group>/time, /<group>/<name>
//                              series on a finer time axis of their own (the grid connection at
//                              1 ms: /grid/time, /grid/power, ...), float64 [fine time]
//   /summary/<name>            float64 scalars, attributes units, long_name
//   /events/{time,component,event,message}
//                              parallel 1-D datasets (time in s, the others strings)
//   /scenario/{source,resolved} the scenario file as written and resolved, attribute file
//
// with the run status, the solver statistics and descriptive metadata as root attributes.
// The writer streams into a temporary `.<report>.XXXXXX.part` next to the report and renames it
// to `<report>` once it is closed (output_file.hpp), so the final name only ever holds a readable
// file, marked "complete" or "incomplete" with a reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dctwin/core/printable.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/solver/status.hpp"

namespace dctwin::io {

/// Any failure to create, write, read or interpret a report. The message names the operation, the
/// file or the object inside it, and the cause.
/// Messages name files and objects that may come from outside, so they are stored through
/// `core::printable()`: control characters appear as visible escapes.
class ReportError : public std::runtime_error {
 public:
  explicit ReportError(const std::string& message) : std::runtime_error(core::printable(message)) {}
  explicit ReportError(const char* message) : ReportError(std::string(message)) {}
};

/// Units of every time axis of a report (/time, /<group>/time, /events/time): seconds from the
/// run's start, which reports place at this nominal epoch (a scenario has no calendar date).
inline constexpr const char* report_time_units = "s since 2000-01-01T00:00:00Z";

/// A categorical series: stored as unsigned 32-bit integers (H5T_STD_U32LE) instead of float64,
/// with the CF attributes that name its values. A bit field's value is any combination of its
/// bits (`flag_masks`, e.g. NVML clock-event reasons); an enumeration's value is one of its values
/// at a time (`flag_values`, e.g. the job phase). The samples of such a series must be whole
/// numbers in [0, 2^32 - 1].
struct SeriesFlags {
  enum class Kind { none, bit_field, enumeration };
  Kind kind = Kind::none;
  std::vector<std::uint32_t> values;  ///< the bits (bit field) or the values (enumeration)
  std::vector<std::string> meanings;  ///< one word per value (letters, digits, '_': CF flag_meanings)
};

/// How a measured (float) series is stored; the scenario's `output` section chooses it
/// (report_storage.hpp). Categorical series are always written as uint32, whatever `float32` and
/// `resolution` say.
struct SeriesStorage {
  bool written = true;    ///< false: the series is left out of the report
  bool float32 = false;   ///< H5T_IEEE_F32LE instead of H5T_IEEE_F64LE
  /// > 0: every value is rounded to the nearest multiple of `quantization_step` (the largest power
  /// of two <= resolution, so the rounded values end in zero bits that deflate stores cheaply);
  /// in the series' units. The dataset's attributes `resolution` and `quantization_step` say so.
  double resolution = 0.0;
  double quantization_step = 0.0;
  std::string resolution_as_written;  ///< e.g. "0.01 K", for the attribute `comment`
};

/// The largest power of two that is at most `resolution` (> 0, finite).
double quantization_step_for(double resolution);

/// `value` rounded to the nearest multiple of `step` (a power of two), ties away from zero;
/// non-finite values unchanged. Exact in float64: the error is at most step / 2.
double quantize(double value, double step);

/// One recorded output and where its values sit in a sample vector: values
/// [first_value, first_value + spec.count) of every sample belong to it.
struct ReportOutput {
  core::OutputSpec spec;
  std::size_t first_value = 0;
  SeriesFlags flags = {};  ///< Kind::none: a float series
  SeriesStorage storage = {};
};

/// Scalar series sampled on a time axis of their own, `/<group>/time` (e.g. the electrical feed at
/// 1 ms while the thermal outputs are sampled every second).
struct FineSeriesLayout {
  std::string group;                       ///< e.g. "grid"
  std::string time_long_name;              ///< long_name of /<group>/time
  std::vector<core::OutputSpec> series;  ///< name, unit, long_name of each (count 1, no entity)
  /// How each series is stored, in `series` order; empty: all float64, full precision. The group's
  /// time axis is written whenever one of its series is.
  std::vector<SeriesStorage> storage = {};
};

/// Everything a report needs to know before the first sample.
struct ReportLayout {
  std::vector<ReportOutput> outputs;
  std::vector<core::EntityTable> entities;  ///< one table per entity kind used by the outputs
  std::string scenario_name;
  std::string scenario_file;
  std::string scenario_source;    ///< the scenario file as written
  std::string resolved_scenario;  ///< the resolved scenario (defaults filled in), as YAML
  /// Extra root attributes, stored as strings (e.g. seed, dctwin_version). Names must not clash
  /// with the attributes the report writes itself.
  std::map<std::string, std::string> attributes;
  /// Extra root attributes stored as unsigned 64-bit integers (H5T_STD_U64LE), exact over the
  /// whole range (the seed). Names must not clash with any other attribute.
  std::map<std::string, std::uint64_t> unsigned_attributes;
  std::vector<core::StaticData> static_data;  ///< written once, e.g. /layout/rack_position
  std::vector<FineSeriesLayout> fine_series;
};

/// How the run ended, for the report's root attributes.
struct RunInfo {
  solver::SimulationStatus status;
  solver::SolverStatistics statistics;
  double wall_time_seconds = 0;
};

/// Streams samples into an HDF5 report.
///
/// Samples are buffered and written a chunk at a time. The file lives under a temporary name in the
/// final name's directory (an OutputFile) until `finish` or `abandon` closes it and renames it to
/// the final name (replacing a regular file there; a character device gets a copy).
/// Destroying an open writer abandons the report; if even that fails, the temporary file is
/// removed. Any I/O failure throws ReportError.
class ReportWriter {
 public:
  /// Checks `final_path` (check_output_path; it must not be one of `inputs`), creates the
  /// temporary and writes the layout (index tables, scenario, metadata). Throws ReportError when
  /// the layout is inconsistent or the file cannot be created, e.g.
  /// "cannot create report 'out/run.h5': Permission denied".
  ReportWriter(std::filesystem::path final_path, ReportLayout layout, const std::vector<InputFile>& inputs = {});
  ~ReportWriter();

  ReportWriter(ReportWriter&&) noexcept;
  /// Abandons the report this writer holds (if still open), then takes over `other`'s.
  ReportWriter& operator=(ReportWriter&&) noexcept;
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  /// Records the values of all outputs at time `t` [s]. Times must be finite and must not
  /// decrease; `values` must hold at least every value the layout refers to.
  void append_sample(double t, std::span<const double> values);

  /// Records one sample of the fine series `layout.fine_series[group]`: its time [s] (not
  /// decreasing) and one value per series, in layout order.
  void append_fine_sample(std::size_t group, double t, std::span<const double> values);
  /// Records a discrete event (a trip, a checkpoint, a failure) at time `t` [s].
  void add_event(double t, std::string component, std::string event, std::string message);

  /// Writes the remaining samples, the events, the summary figures and the run status, closes the
  /// file and renames it to the final name. The report is "complete" when the status is
  /// `finished`, otherwise "incomplete" with `status.describe()` as the reason; `end_time` is
  /// `status.time`. Summary names must be unique and must not contain '/'. If writing fails, the
  /// temporary file is removed and ReportError is thrown.
  void finish(const RunInfo& run, const std::vector<core::SummaryFigure>& summary);

  /// Closes the report marked "incomplete" with `reason` and renames it to the final name, with
  /// the samples and events written so far, `end_time` = the last sample time and no solver
  /// statistics. Does nothing when the report is already closed.
  void abandon(const std::string& reason);

  [[nodiscard]] const std::filesystem::path& final_path() const;

 private:
  struct Impl;
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

/// Read access to a report written by ReportWriter (or any file with the same layout).
class ReportReader {
 public:
  /// Opens a report read-only. Throws ReportError "<path>: not an HDF5 file or truncated" or
  /// "<path>: not a dctwin report (no dctwin_report_version)".
  explicit ReportReader(const std::filesystem::path& path);
  ~ReportReader();
  ReportReader(ReportReader&&) noexcept;
  ReportReader& operator=(ReportReader&&) noexcept;
  ReportReader(const ReportReader&) = delete;
  ReportReader& operator=(const ReportReader&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const;

  /// "complete" or "incomplete".
  [[nodiscard]] std::string status() const;
  /// Why the run ended early; empty when complete.
  [[nodiscard]] std::string status_reason() const;
  /// All string attributes of the root group.
  [[nodiscard]] std::map<std::string, std::string> string_attributes() const;
  /// All integer attributes of the root group (report version, solver statistics), except the
  /// unsigned 64-bit ones.
  [[nodiscard]] std::map<std::string, long long> integer_attributes() const;
  /// The unsigned 64-bit integer attributes of the root group (the seed), exact.
  [[nodiscard]] std::map<std::string, std::uint64_t> unsigned_attributes() const;
  /// All floating-point attributes of the root group (end and wall times, the last step size).
  [[nodiscard]] std::map<std::string, double> double_attributes() const;
  /// Simulated time reached [s].
  [[nodiscard]] double end_time() const;

  struct DatasetInfo {
    std::string path;                ///< absolute, e.g. "/gpu/junction_temperature"
    std::vector<std::size_t> shape;  ///< empty for scalars
    std::string units;
    std::string long_name;
    bool numeric = true;             ///< integers or floating point (false: strings and others)
  };
  /// Every dataset in the file, in path order.
  [[nodiscard]] std::vector<DatasetInfo> datasets() const;

  /// The figures under /summary, in the order they were written.
  [[nodiscard]] std::vector<core::SummaryFigure> summary() const;

  /// A numeric dataset of any rank, row-major, converted to double.
  [[nodiscard]] std::vector<double> read(const std::string& path) const;
  /// Row `time_index` of a 2-D [time x entity] dataset.
  [[nodiscard]] std::vector<double> read_row(const std::string& path,
                                             std::size_t time_index) const;
  /// Columns [first, first + count) of a 2-D [time x entity] dataset, every row, row-major
  /// ([time x count]).
  [[nodiscard]] std::vector<double> read_columns(const std::string& path, std::size_t first,
                                                 std::size_t count) const;
  /// A 1-D (or scalar) string dataset.
  [[nodiscard]] std::vector<std::string> read_strings(const std::string& path) const;
  /// Whether an object (group or dataset) exists at the absolute `path`.
  [[nodiscard]] bool contains(const std::string& path) const;
  /// The scalar string attribute `name` of the object at `path`; "" when either is absent or the
  /// attribute is not a string.
  [[nodiscard]] std::string string_attribute(const std::string& path, const std::string& name) const;
  /// The /time coordinate [s].
  [[nodiscard]] std::vector<double> time() const;

 private:
  struct Impl;
  Impl& impl() const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::io
