// Scenario files: YAML checked against a core::SectionSchema and resolved into a ParameterTree.
//
// The loader is generic: it knows nothing of GPUs or loops, only the schema it is given.
//
// What a scenario file may contain
//   - The root is a mapping. In a section, every key is a parameter, a sub-section (a mapping) or
//     a list (a sequence of mappings) declared by the schema. Keys are plain names; each may appear
//     once.
//   - A sub-section written with no value (`cold_plate:`) is an empty section; an absent section is
//     resolved from its defaults (it is an error only if the schema marks it `required`, or if it
//     holds a required parameter). An absent list is empty; a `required` list must have at least
//     one entry. A list written with no value is an empty list.
//   - Parameter values are scalars (quoted or not). An empty value (`power:` or `power: ~`) is an
//     error: leave the key out to take the default.
//     * real: a number with an optional unit convertible to the parameter's SI unit (`32 degC`,
//       `1.2 L/min`, `35 kW`, `25 %`); a bare number is in the SI unit. Converted by udunits2,
//       then checked against the range (bounds are SI values). NaN and infinities are rejected.
//     * integer: an integer literal (`8`, `-2`, `+3`; not `8.0`, not `1e3`), then the range.
//     * boolean: `true` or `false` (also `True`, `TRUE`, `False`, `FALSE`).
//     * choice: exactly one of the spec's `choices`.
//     * text: any scalar.
//
// Key paths: sections are joined with dots, list entries get a 0-based index:
// `server.gpus[3].power`, `loops[2]`.
//
// Error messages (file label as given, 1-based line and column):
//   A bad value, at the value's position, `FILE:L:C: PATH = WRITTEN (RULE)`, where RULE is one of
//     `must be >= 0`, `must be > 0`, `must be <= 80 degC`, `must be < 1`,
//     `must be in [0, 0.6]`, `must be in (0, 100] kW`   (interval: `(`/`)` exclude the bound),
//     `must be a number`, `must be a number, optionally with a unit convertible to L/min`,
//     `must be a finite number`, `must be an integer`, `must be true or false`,
//     `must be one of: series, parallel`,
//     `unknown unit 'L/mn'`, `unit 'kW' is not convertible to 'm3/s'`.
//     Bounds are printed in the spec's display unit (its SI unit if it has none); a bound that is
//     zero in that unit is printed without a unit. An empty written value is shown as `""`.
//   A structural problem, `FILE:L:C: PATH: PROBLEM`:
//     `unknown key (did you mean 'gpu_count'?)`, `unknown key (valid keys: a, b, c)` (when there
//       is no close match and at most 8 keys), `unknown key` - at the key. "Close" is a Levenshtein
//       distance <= max(2, length/3) and < length of the written key (the closest key wins, the
//       first in schema order on a tie);
//     `duplicate key (first at line 4)` - at the second key;
//     `required key is missing (K/W)` - at the enclosing mapping; the detail is the display (or SI)
//       unit of a real, `dimensionless`, `integer`, `true or false`, `one of: a, b`, or `text`;
//     `required section is missing`, `required list is missing`, `required list is empty`;
//     `value is missing (W)` - an empty value, at the key;
//     `must be a single value, not a mapping` / `..., not a list` - a parameter;
//     `must be a mapping, not a list` / `..., not a single value` - a section or list entry;
//     `must be a list, not a mapping` / `..., not a single value` - a list;
//     `keys must be plain names` - a key that is itself a list, mapping or empty.
//   The whole file:
//     `FILE: scenario file is empty` (nothing, or only comments);
//     `FILE:L:C: YAML syntax error: MESSAGE` (MESSAGE from the YAML parser);
//     `FILE:L:C: the scenario must be a mapping, not a list` (or `not a single value`);
//     `FILE:L:C: a scenario file holds one YAML document (another starts here)` (a trailing
//       empty document is ignored).
//   A file that cannot be read: `FILE: cannot open scenario file (No such file or directory)`
//     (the system's reason), thrown as MissingInputError.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"

namespace dctwin::io {

/// A scenario (or other input) file that does not exist or cannot be read.
class MissingInputError : public core::InputError {
 public:
  using core::InputError::InputError;
};

/// A problem found in the content of a scenario file. The message is complete (it starts with
/// `file:line:col:`); `location()` and `path()` give the same facts to programs (the GUI's
/// editor). `key_path()` is left empty because there is no location left to add.
class ScenarioError : public core::InputError {
 public:
  ScenarioError(const std::string& message, core::SourceLocation location, std::string path)
      : core::InputError(message), location_(std::move(location)), path_(std::move(path)) {}
  [[nodiscard]] const core::SourceLocation& location() const noexcept { return location_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  core::SourceLocation location_;
  std::string path_;
};

/// A checked scenario: the text it came from and its resolved parameters (SI values, defaults
/// filled in, where each written value and section was found).
struct ScenarioDocument {
  std::string file;         ///< the label used in messages (the path as given)
  std::string source_text;  ///< the file's text
  core::ParameterTree tree;
};

/// Reads `file` and checks it against `schema` (see the rules at the top of this header).
/// Throws MissingInputError if the file cannot be read, ScenarioError for everything else.
[[nodiscard]] ScenarioDocument load_scenario(const std::filesystem::path& file,
                                             const core::SectionSchema& schema);

/// Checks YAML `text` against `schema`; `file_label` names it in messages.
/// Throws ScenarioError.
[[nodiscard]] ScenarioDocument parse_scenario(std::string_view text, std::string file_label,
                                              const core::SectionSchema& schema);

/// `file:line:col` of the closest recorded location of `key_path` (`server.gpus[3].power`,
/// `loops[2]`): the value itself if it was written, otherwise the innermost enclosing section or
/// list entry that was written; just `file` if nothing on the path matches.
[[nodiscard]] std::string locate(const ScenarioDocument& document, const std::string& key_path);

/// The message of an InputError thrown by models for a resolved scenario (for example an
/// inconsistent topology): prefixed with `locate(document, error.key_path())` when the error
/// names a key path, unchanged otherwise.
[[nodiscard]] std::string describe_error(const ScenarioDocument& document,
                                         const core::InputError& error);

/// The resolved scenario as YAML, keys in schema order (parameters in table order, then
/// sections, then lists): every parameter of `tree` (parameters missing from `tree` are left out),
/// real values in SI as `305.15 K` (the exact double, so that reading it back gives the same
/// value; dimensionless ones without a unit), integers as integers, booleans as true/false,
/// choices and text as text. `parse_scenario` with the same schema reads it back to the same
/// values.
[[nodiscard]] std::string emit_resolved_yaml(const core::ParameterTree& tree,
                                             const core::SectionSchema& schema);

}  // namespace dctwin::io
