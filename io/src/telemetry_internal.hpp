// Shared machinery of the telemetry importers: a line reader that rejects binary data, the trace
// builder that enforces the sample rules, unit conversion of cells and timestamp parsing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "dctwin/io/telemetry.hpp"

namespace dctwin::io::telemetry_detail {

/// Indices into telemetry_quantities().
enum Q : std::size_t {
  q_power,
  q_power_instant,
  q_power_limit,
  q_energy,
  q_gpu_temperature,
  q_memory_temperature,
  q_sm_clock,
  q_memory_clock,
  q_graphics_clock,
  q_gpu_utilization,
  q_memory_utilization,
  q_sm_active,
  q_tensor_active,
  q_clock_event_reasons,
  q_count
};

std::string_view trim(std::string_view text);
std::vector<std::string_view> split_on(std::string_view text, char separator);
std::vector<std::string_view> split_blanks(std::string_view text);
std::string lower(std::string_view text);

/// Reads a text file one line at a time (without the line end), rejecting NUL bytes and invalid
/// UTF-8 with `FILE:LINE: ...` errors.
class LineReader {
 public:
  LineReader(const std::filesystem::path& file, std::string label);
  /// The next line; false at the end of the file.
  bool next(std::string& line);
  [[nodiscard]] std::size_t line_number() const { return line_number_; }
  [[nodiscard]] const std::string& label() const { return label_; }

 private:
  std::ifstream in_;
  std::string label_;
  std::size_t line_number_ = 0;
};

/// A value no GPU can report (-500 W, -300 degC): the row is refused like a malformed one, and
/// counted apart when bad lines are skipped. The message is `FIELD: CELL (RULE)`.
struct ImpossibleValue : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The rule a value of quantity `quantity` (in its SI unit) breaks by being physically impossible,
/// worded in the unit the tools print it in (`must be in [-40, 150] degC`); nullopt when it is
/// possible or NaN (not given).
std::optional<std::string> impossible_value_rule(std::size_t quantity, double si);
/// Throws ImpossibleValue `FIELD: CELL (RULE)` when `si` is impossible for `quantity`.
void check_possible(std::size_t quantity, double si, std::string_view field, std::string_view cell);

/// Throws TelemetryError `LABEL:LINE: problem` (or `LABEL: problem` for line 0).
[[noreturn]] void fail(const std::string& label, std::size_t line, const std::string& problem);

/// Identity of a GPU while a trace is built.
struct GpuKey {
  std::string hostname;
  int index = 0;
  auto operator<=>(const GpuKey&) const = default;
};

/// Converts cell values in any unit to one SI unit; conversions are cached per unit text.
class UnitCache {
 public:
  /// `value` in `unit` converted to `si_unit`; throws UnitError.
  double to_si(double value, const std::string& unit, const std::string& si_unit);

 private:
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> cache_;  // scale, offset
};

/// Collects samples, enforcing: time increases per GPU; a second sample of a GPU at the same time
/// merges into the first (a quantity given twice must have the same value).
class TraceBuilder {
 public:
  TraceBuilder(std::string label, const TelemetryImportOptions& options);

  [[nodiscard]] const std::string& label() const { return label_; }
  [[nodiscard]] bool skipping() const { return skip_; }

  /// Marks a quantity as present in the source (it gets a series even if every value is NaN).
  void declare(std::size_t quantity);

  /// A problem on a line: throws unless bad lines are skipped, in which case it is recorded;
  /// `impossible`: the problem is a physically impossible value (counted apart as well).
  void bad_line(std::size_t line, const std::string& problem, bool impossible = false);
  /// Adds one sample. `values` has q_count entries (NaN = not given). Returns false (after
  /// bad_line) when the sample breaks a rule and bad lines are skipped.
  bool add(const GpuKey& gpu, const std::string& uuid, double time, const std::vector<double>& values,
           std::size_t line);

  /// An assumption made (each text once: every host of pdsh output makes the same ones).
  void note(std::string text) {
    if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
  }
  /// A problem the import goes on with; printed on stderr by the command line (each text once).
  void warn(std::string text) {
    if (std::find(warnings_.begin(), warnings_.end(), text) == warnings_.end()) warnings_.push_back(std::move(text));
  }
  /// Counts a cell that held no value (`[N/A]`, ...) of column `field`, by spelling.
  void missing(std::string_view field, std::string_view cell);
  /// Warns that the source's `what` (`columns`, `metrics`) named `names` are not read; when no
  /// quantity at all is recognised, finish() fails naming them.
  void ignored(std::string_view what, const std::vector<std::string>& names);
  void set_format(TelemetryFormat format) { format_ = format; }

  /// The trace; throws `LABEL: no samples` when nothing was added.
  TelemetryTrace finish(const TelemetryImportOptions& options);

 private:
  struct Series {
    std::string uuid;
    std::vector<double> time;
    std::size_t last_line = 0;                // line of the latest sample
    std::vector<std::vector<double>> values;  // [q_count][sample], empty for absent quantities
  };
  std::string label_;
  bool skip_ = false;
  TelemetryFormat format_ = TelemetryFormat::automatic;
  std::vector<bool> present_;
  std::map<GpuKey, Series> series_;
  std::vector<std::string> notes_;
  std::vector<std::string> warnings_;
  std::string ignored_text_;  // `columns name, serial` for the error of finish()
  std::size_t missing_count_ = 0;
  std::map<std::pair<std::string, std::string>, std::size_t> missing_;  // (field, spelling) -> count
  std::size_t skipped_count_ = 0;
  std::size_t impossible_count_ = 0;
  std::vector<std::string> skipped_;
};

/// `2025/07/26 23:32:09.703` or ISO-8601 (`2025-07-26T23:32:09.703`, optional zone) as seconds
/// since the epoch; a timestamp without zone is local time at `offset` s east of UTC.
std::optional<double> parse_timestamp(std::string_view text, double offset);
/// Seconds since the epoch of a civil date and time (UTC).
double civil_seconds(int year, int month, int day, int hour, int minute, double second);
/// `2025-07-26T23:32:09.703Z` (milliseconds shown when not whole).
std::string format_time(double seconds);

/// A number written in C locale decimal (`187.80`, `-3`, `1e-3`), whole text; nullopt otherwise.
std::optional<double> parse_number(std::string_view text);
/// `[N/A]`, `N/A`, `[Not Supported]`, `[GPU requires reset]`, `-`, empty and similar "no value"
/// spellings.
bool is_missing(std::string_view text);
/// A bitmask written in hex (`0x0000000000000004`) or decimal (`4`), whole text; nullopt otherwise.
std::optional<std::uint64_t> parse_bitmask(std::string_view text);

// The importers. Each reads `reader` to the end.
void read_nvidia_smi_csv(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                         double offset);
void read_nvidia_smi_dmon(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                          double offset);
void read_dcgmi_dmon(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options);
void read_prometheus_text(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                          double offset);
void read_prometheus_json(const std::string& text, TraceBuilder& builder);
void read_generic_csv(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options, double offset);

/// The DCGM exporter metric names and what they map to (`quantity`, source unit).
struct MetricMapping {
  std::size_t quantity;
  const char* unit;
};
const MetricMapping* find_dcgm_metric(std::string_view name);
/// The blank value DCGM writes for a missing int64 field (and neighbours up to 2^63-1).
bool is_dcgm_blank(double value);

}  // namespace dctwin::io::telemetry_detail
