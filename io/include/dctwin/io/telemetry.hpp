// Measured GPU telemetry: importers for the common collection tools and a canonical trace.
//
// A trace holds, per GPU, a time series of canonical quantities in SI units (see
// `telemetry_quantities()`): time in seconds since 1970-01-01T00:00:00Z, power in W, temperatures
// in K, clocks in Hz, utilisations and activity ratios as fractions 0-1, the clock-event (throttle)
// reason bitmask as its integer value, energy in J. A value the source did not give is NaN; nothing
// is interpolated or invented.
//
// Formats (see docs/telemetry.md for every detail):
//   nvidia-smi-csv   nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]
//   nvidia-smi-dmon  nvidia-smi dmon [-o T|DT]
//   dcgmi-dmon       dcgmi dmon -e 100,140,150,155,...
//   prometheus       dcgm-exporter text exposition (one or several scrapes)
//   prometheus-json  Prometheus HTTP API query_range answer (resultType matrix)
//   csv              any CSV file, with a YAML column map naming the time, GPU and quantity columns
//
// Errors in the content of a file are TelemetryError with the message `FILE:LINE: problem`
// (`FILE: problem` for problems of the whole file, such as `file is empty`). A file that cannot be
// opened is MissingInputError (scenario.hpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/output_file.hpp"

namespace dctwin::io {

/// A problem in the content of a telemetry file or in the import options.
class TelemetryError : public core::InputError {
 public:
  using core::InputError::InputError;
};

enum class TelemetryFormat {
  automatic,        ///< detected from the file's first lines
  nvidia_smi_csv,   ///< `nvidia-smi --query-gpu=... --format=csv...`
  nvidia_smi_dmon,  ///< `nvidia-smi dmon`
  dcgmi_dmon,       ///< `dcgmi dmon -e ...`
  prometheus_text,  ///< dcgm-exporter text exposition
  prometheus_json,  ///< Prometheus `query_range` JSON
  generic_csv,      ///< any CSV with a column map (YAML)
};

/// The name used on the command line and in provenance (`nvidia-smi-csv`, ..., `auto`).
[[nodiscard]] std::string_view format_name(TelemetryFormat format);
/// The format of a name as `format_name` writes it; nullopt when unknown.
[[nodiscard]] std::optional<TelemetryFormat> parse_format_name(std::string_view name);

/// One canonical quantity.
struct TelemetryQuantity {
  std::string name;       ///< e.g. `power`
  std::string unit;       ///< SI unit as written in files: `W`, `K`, `Hz`, `1`, `J`, `s`
  std::string long_name;  ///< e.g. `GPU board power (driver average)`
};

/// Every canonical quantity, in the order used by traces and HDF5 files.
[[nodiscard]] const std::vector<TelemetryQuantity>& telemetry_quantities();
/// The quantity named `name`, or nullptr.
[[nodiscard]] const TelemetryQuantity* find_telemetry_quantity(std::string_view name);

/// The samples of one GPU. `values[q]` has one entry per `time` entry for each quantity of the
/// trace (`TelemetryTrace::quantities[q]`).
struct GpuSeries {
  int index = 0;             ///< GPU index as the source numbers it
  std::string uuid;          ///< `GPU-...` when the source gives it
  std::string hostname;      ///< when the source gives it (several hosts: GPUs differ by host)
  std::vector<double> time;  ///< s since the Unix epoch, strictly increasing
  std::vector<std::vector<double>> values;

  /// `host:gpuN` or `gpuN`.
  [[nodiscard]] std::string label() const;
};

/// Where a trace came from.
struct TelemetryProvenance {
  std::string source;                ///< the file as given
  std::string format;                ///< format_name() of the format read
  std::string options;               ///< the import options, as text
  std::vector<std::string> notes;    ///< assumptions made (no timestamps, how rows were grouped...)
  /// Problems the import went on with but that the user should see (columns or metrics ignored,
  /// samples without times); the command line prints them on stderr. Stored in the HDF5 file as
  /// notes starting with `warning: `.
  std::vector<std::string> warnings;
  /// Cells that held no value (`[N/A]`, `[Not Supported]`, `[GPU requires reset]`, `-`, ...), over
  /// every value column; a note names them per column and spelling. Not stored in the HDF5 file.
  std::size_t missing_count = 0;
  std::size_t skipped_count = 0;     ///< lines skipped with skip_bad_lines
  /// Of those, the lines skipped for a physically impossible value (-500 W, -300 degC); not
  /// stored in the HDF5 file (its skipped_lines name them).
  std::size_t impossible_count = 0;
  std::vector<std::string> skipped;  ///< the first 10 of them, `LINE: problem`
};

struct TelemetryTrace {
  std::vector<std::string> quantities;  ///< names of the canonical quantities the source gave
  std::vector<GpuSeries> gpus;          ///< ordered by hostname, then index
  TelemetryProvenance provenance;

  /// Total number of samples (time points) over all GPUs.
  [[nodiscard]] std::size_t sample_count() const;
  /// Position of `name` in `quantities`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> quantity_index(std::string_view name) const;
};

struct TelemetryImportOptions {
  TelemetryFormat format = TelemetryFormat::automatic;
  /// Zone of timestamps written without one: `UTC` (or `Z`) or a fixed offset `+02:00`, `-0530`,
  /// `+02`. Named zones are not accepted.
  std::string timezone = "UTC";
  /// nvidia-smi CSV without header: the queried fields in order (required then).
  std::vector<std::string> columns;
  /// Column map of a generic CSV file (YAML); giving one selects the `csv` format.
  std::string map_file;
  /// Sampling interval (s) for sources without timestamps (dmon, dcgmi dmon, Prometheus scrapes).
  double interval = 1.0;
  /// Skip (and count) malformed lines instead of failing on the first one.
  bool skip_bad_lines = false;
  /// nvidia-smi CSV without an index, uuid or pci.bus_id column: the number of GPUs per host, each
  /// `gpus` consecutive rows being one tick (0: found from the pauses between ticks).
  int gpus = 0;

  /// The options as one line of text for provenance.
  [[nodiscard]] std::string describe() const;
};

/// The offset (s east of UTC) of a zone written as `UTC`, `Z`, `+hh:mm`, `-hhmm` or `+hh`. Throws
/// TelemetryError `invalid time zone 'X' (use UTC or a fixed offset such as +02:00)`.
[[nodiscard]] double parse_utc_offset(std::string_view zone);

/// `2025-07-26T23:32:09.703Z`: seconds since the epoch as UTC text (milliseconds when not whole).
[[nodiscard]] std::string format_utc_time(double seconds);

/// The format of a text from its first lines (comments and blank lines included); nullopt when
/// none fits.
[[nodiscard]] std::optional<TelemetryFormat> detect_telemetry_format(std::string_view head);

/// Reads a telemetry file. Throws MissingInputError if it cannot be opened, TelemetryError for
/// bad content or bad options. Line-oriented formats are read one line at a time.
[[nodiscard]] TelemetryTrace import_telemetry(const std::filesystem::path& file,
                                              const TelemetryImportOptions& options = {});

/// Writes `trace` as an HDF5 telemetry file (layout in docs/telemetry.md), through an OutputFile
/// (output_file.hpp): under a temporary name, put in place when complete; `file` must not be one
/// of `inputs`. Throws ReportError (report.hpp) on failure; the message starts with
/// `cannot create` when the file cannot be created.
void write_telemetry_hdf5(const TelemetryTrace& trace, const std::filesystem::path& file,
                          const std::vector<InputFile>& inputs = {});

/// Reads an HDF5 telemetry file back. Each GPU keeps the time points at which at least one of its
/// quantities is finite. Throws ReportError.
[[nodiscard]] TelemetryTrace read_telemetry_hdf5(const std::filesystem::path& file);

}  // namespace dctwin::io
