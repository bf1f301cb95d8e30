// The scenario editor's model, without widgets: a form generated from the scenario schema (every
// section, list and parameter of the parameter tables), holding the text typed for each parameter
// (empty = take the default). It writes the form as a scenario file (YAML, keys in schema order)
// and checks it with the same functions as `dctwin check`, so an error shown in the editor is the
// message the command line gives for the saved file.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::gui {

struct FormField {
  core::ParameterSpec spec;
  std::string key_path;  ///< "loop.pump.max_flow"
  std::string text;      ///< as typed; empty = default
};

struct FormSection {
  std::string key;   ///< "pump" ("" for the root, "gpus" for a list entry)
  std::string path;  ///< "loop.pump", "server.gpus[3]"
  const core::SectionSchema* schema = nullptr;
  std::vector<FormField> fields;
  std::vector<FormSection> sections;
  std::map<std::string, std::vector<FormSection>> lists;  ///< entries of each list

  [[nodiscard]] bool has_content() const;
};

/// A problem found by the check: the complete message (as `dctwin check` prints it) and the key
/// path it concerns (may be empty).
struct FormProblem {
  std::string message;
  std::string key_path;
};

class ScenarioForm {
 public:
  explicit ScenarioForm(core::SectionSchema schema);
  ScenarioForm(const ScenarioForm&) = delete;
  ScenarioForm& operator=(const ScenarioForm&) = delete;

  /// Fills the form from a scenario file's text (values as written; invalid values are kept so
  /// that the check can show them). Keys the schema does not know are left out and returned as
  /// key paths. Throws std::runtime_error when the text is not YAML.
  std::vector<std::string> load(std::string_view yaml);

  [[nodiscard]] FormSection& root();
  [[nodiscard]] const FormSection& root() const;
  /// The field at a key path, or nullptr.
  [[nodiscard]] FormField* field(const std::string& key_path);
  /// Sets the text of a field; false when there is no such field.
  bool set(const std::string& key_path, std::string text);

  /// Adds an entry to the list `list_key` of the section at `section_path` ("" = root); returns
  /// the new entry's path or "" when there is no such list.
  std::string add_list_entry(const std::string& section_path, const std::string& list_key);
  /// Removes the last entry of a list; false when it is empty or does not exist.
  bool remove_list_entry(const std::string& section_path, const std::string& list_key);

  /// The scenario file the form describes (parameters in table order, then sections, then lists;
  /// sections and entries without content are written empty only where needed).
  [[nodiscard]] std::string yaml() const;
  /// Checks `yaml()` as `dctwin check FILE` would for a file named `file_label`: the schema
  /// (parse_scenario), then the site (check_site). Nothing when it is valid.
  [[nodiscard]] std::optional<FormProblem> check(const std::string& file_label) const;

 private:
  core::SectionSchema schema_;
  FormSection root_;
};

/// "20 L/min" (the default in the display unit), "required" when there is none.
[[nodiscard]] std::string describe_default(const core::ParameterSpec& spec);
/// "> 0 L/min", "[0, 0.6]", "<= 80 degC", "one of: series, parallel", "" when unbounded.
[[nodiscard]] std::string describe_range(const core::ParameterSpec& spec);
/// The unit a value is typed in by default (display unit, else SI unit; "" for dimensionless).
[[nodiscard]] std::string input_unit(const core::ParameterSpec& spec);

}  // namespace dctwin::gui
