// Entry points of the fuzz targets: each hands arbitrary bytes to one of dctwin's readers.
//
// Every function returns normally when the reader accepts the bytes or refuses them with one of its
// documented exception types (listed per function); any other exception escapes, and a crash or a
// sanitizer report stops the process. The libFuzzer targets (tests/fuzz/fuzz_*.cpp, built with
// -DDCTWIN_FUZZ=ON and clang) call them on generated inputs; the regular test suite calls them on
// every file of the seed corpora (tests/fuzz/corpus/<target>/), so the corpora also guard against
// regressions in the gcc build.
//
// Readers that take a path get the bytes through a temporary file (one per process, removed after
// each call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dctwin::fuzz {

using Bytes = std::span<const std::uint8_t>;

/// Scenario YAML: parse_scenario against dctwin's scenario schema; an accepted scenario must also
/// read back from its resolved YAML (emit_resolved_yaml) to the same text.
/// Accepted refusals: core::InputError (ScenarioError).
void scenario(Bytes data);

/// The same, then check_site on an accepted scenario (builds the whole site: slower, so a target of
/// its own). Accepted refusals: core::InputError (ScenarioError, MissingInputError for a weather
/// file the scenario names, the models' topology and cross-field errors).
void scenario_site(Bytes data);

/// Weather CSV: parse_weather_csv. Accepted refusals: core::InputError (WeatherFileError).
void weather(Bytes data);

/// A telemetry importer forced to one format (`format` as format_name() writes it, e.g.
/// `nvidia-smi-csv`, or `auto` for detection). For `csv` the input is a column map (YAML), a line
/// `%%`, then the CSV text; without that line a fixed map is used.
/// Accepted refusals: core::InputError (TelemetryError, MissingInputError).
void telemetry(std::string_view format, Bytes data);

/// HDF5 report: ReportReader on the bytes, then every accessor and every dataset read.
/// Accepted refusals: io::ReportError.
void report(Bytes data);

/// Sweep file: parse_sweep against the scenario schema, then the text, label and checked scenario of
/// three members (the first, the middle and the last). The input is the sweep file, optionally
/// followed by a line `%%` and the base scenario; without that line a fixed small base is used.
/// Accepted refusals: core::InputError (SweepError, ScenarioError, MissingInputError).
void sweep(Bytes data);

/// HDF5 report through the desktop application's readers (gui/lib, built without Qt and VTK):
/// ReportModel and every accessor on every field and series (the hall's per-rack values and
/// ranges, aggregates, entity rows and columns, fine time axes), then ValidationModel when the file
/// looks like a validation report. Accepted refusals: io::ReportError (ReportModel) and
/// std::runtime_error (ValidationModel's constructor).
void gui_report(Bytes data);

/// The target names, as used for corpus folders and fuzz executables (`scenario`, `scenario-site`,
/// `weather`, `report`, `sweep`, `gui-report`, `telemetry-<format>` for every format and
/// `telemetry-auto`).
[[nodiscard]] std::vector<std::string> target_names();

/// Runs target `name` on `data`; throws std::invalid_argument for an unknown name.
void run_target(std::string_view name, Bytes data);

}  // namespace dctwin::fuzz
