// Parameter tables and the resolved parameter tree.
//
// Every model declares its parameters in a table (name, kind, SI unit, doc, default, range, source).
// The same table drives the scenario checker (io/), the docs pages, the GUI's editor and the unit
// attributes of reports. This is plain data: no physics, no numerics, no file formats.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dctwin::core {

/// What kind of value a parameter holds.
enum class ParameterKind {
  real,     ///< a physical quantity, stored in SI (`unit`); may be written with any convertible unit
  integer,  ///< a count (GPUs, pumps); written without a unit
  unsigned_integer,  ///< a whole number 0 to 2^64-1 held exactly (a seed); written without a unit
  boolean,  ///< true / false
  choice,   ///< one of `choices` (for example `series` / `parallel`)
  text,     ///< free text (names, descriptions)
};

/// One parameter of a model: everything needed to check, convert, document and display it.
struct ParameterSpec {
  std::string name;  ///< key in the scenario file, snake_case, for example `nominal_flow`
  ParameterKind kind = ParameterKind::real;
  std::string unit = "1";     ///< SI unit in udunits2 syntax (`K`, `W`, `m3/s`, `K/W`, `1`)
  std::string display_unit;   ///< unit used in docs and messages if not SI (`degC`, `L/min`); empty = unit
  std::string doc;            ///< one sentence: what it is
  std::optional<double> default_value;  ///< real / integer / boolean (0 or 1); none = required
  std::optional<std::string> default_text;  ///< choice / text default; none = required
  double min = -std::numeric_limits<double>::infinity();  ///< lower bound in SI
  double max = std::numeric_limits<double>::infinity();   ///< upper bound in SI
  bool min_inclusive = true;
  bool max_inclusive = true;
  std::vector<std::string> choices;  ///< allowed values for `choice`
  std::string source;                ///< where the default comes from (paper, datasheet, standard)

  [[nodiscard]] bool required() const {
    return kind == ParameterKind::choice || kind == ParameterKind::text ? !default_text.has_value()
                                                                         : !default_value.has_value();
  }
};

/// Builder helpers, so that tables read like tables.
ParameterSpec real_parameter(std::string name, std::string unit, std::string doc,
                             std::optional<double> default_value, std::string source = {});
ParameterSpec integer_parameter(std::string name, std::string doc,
                                std::optional<double> default_value, std::string source = {});
/// A whole number 0 to 2^64-1 (a seed); `default_value` must be exact as a double (<= 2^53).
ParameterSpec unsigned_parameter(std::string name, std::string doc, std::uint64_t default_value,
                                 std::string source = {});
ParameterSpec boolean_parameter(std::string name, std::string doc, bool default_value);
ParameterSpec choice_parameter(std::string name, std::vector<std::string> choices, std::string doc,
                               std::optional<std::string> default_choice);
ParameterSpec text_parameter(std::string name, std::string doc,
                             std::optional<std::string> default_text);

/// Range helpers; they return the spec so they chain: `real_parameter(...).positive()`.
ParameterSpec& at_least(ParameterSpec& spec, double min);
ParameterSpec& greater_than(ParameterSpec& spec, double min);
ParameterSpec& at_most(ParameterSpec& spec, double max);
ParameterSpec& less_than(ParameterSpec& spec, double max);

using ParameterTable = std::vector<ParameterSpec>;

/// Schema of one section of a scenario: its parameters, its sub-sections and its lists of
/// sub-sections (for example `server.gpus[3]`). Built by models/facility, checked by io/.
struct SectionSchema {
  std::string doc;
  ParameterTable parameters;
  std::map<std::string, SectionSchema> sections;       ///< `key: { ... }`
  std::map<std::string, SectionSchema> lists;          ///< `key: [ {...}, {...} ]`
  bool required = false;                               ///< a required sub-section
};

/// Where a value came from in its file (1-based line and column; 0 when unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

/// A resolved value: SI number or text, what the user wrote, and where.
struct ParameterValue {
  double number = 0.0;     ///< SI value for real / integer / boolean (unsigned_integer: rounded)
  std::uint64_t unsigned_number = 0;  ///< the exact value of an unsigned_integer
  std::string text;        ///< value for choice / text
  std::string as_written;  ///< the value as written in the file ("32 degC"); empty for defaults
  SourceLocation location; ///< where it was written; line 0 for defaults
  bool from_default = false;
};

/// The resolved scenario: every parameter of every section, defaults filled in, in SI.
struct ParameterTree {
  std::string path;          ///< key path of this section: "" (root), "server", "server.gpus[3]"
  SourceLocation location;   ///< where the section starts
  std::map<std::string, ParameterValue> values;
  std::map<std::string, ParameterTree> sections;
  std::map<std::string, std::vector<ParameterTree>> lists;

  /// SI number of a parameter; aborts (DCTWIN_DEMAND) if the schema did not declare it.
  [[nodiscard]] double number(const std::string& name) const;
  [[nodiscard]] std::int64_t integer(const std::string& name) const;
  /// The exact value of an unsigned_integer parameter (a seed).
  [[nodiscard]] std::uint64_t unsigned_integer(const std::string& name) const;
  [[nodiscard]] bool boolean(const std::string& name) const;
  [[nodiscard]] const std::string& text(const std::string& name) const;
  [[nodiscard]] const ParameterTree& section(const std::string& name) const;
  [[nodiscard]] const std::vector<ParameterTree>& list(const std::string& name) const;
  [[nodiscard]] bool has_section(const std::string& name) const;
  /// Key path of a parameter in this section, e.g. "server.gpus[3].power".
  [[nodiscard]] std::string key_path(const std::string& name) const;
};

}  // namespace dctwin::core
