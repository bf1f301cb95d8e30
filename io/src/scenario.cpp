#include "parameter_rules.hpp"
#include "dctwin/io/scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/io/units.hpp"
#include "yaml_documents.hpp"

namespace dctwin::io {

using rules::bound_text;
using rules::format_location;
using rules::in_range;
using rules::is_dimensionless;
using rules::join_words;
using rules::parse_integer_literal;
using rules::number_rule;
using rules::range_rule;
using rules::shown_unit;
using rules::trimmed;
using rules::unsigned_problem;

namespace {

using core::ParameterKind;
using core::ParameterSpec;
using core::ParameterTree;
using core::ParameterValue;
using core::SectionSchema;
using core::SourceLocation;

std::string join_path(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

std::string indexed_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

/// The unit a real parameter is shown in: its display unit, else its SI unit.

/// A bound (SI) in the spec's display unit: `0` if it is zero there, else the number; the unit
/// is added by the caller. Falls back to the SI unit if the display unit cannot be used.

/// What a missing parameter should have been: its unit, or its kind.
std::string expected_detail(const ParameterSpec& spec) {
  switch (spec.kind) {
    case ParameterKind::real:
      return is_dimensionless(shown_unit(spec)) ? "dimensionless" : shown_unit(spec);
    case ParameterKind::integer:
      return "integer";
    case ParameterKind::unsigned_integer:
      return "integer >= 0";
    case ParameterKind::boolean:
      return "true or false";
    case ParameterKind::choice:
      return "one of: " + join_words(spec.choices);
    case ParameterKind::text:
      return "text";
  }
  return {};
}

/// The first control character in UTF-8 `text` other than tab and line feed, as `0xNN` (C0 controls
/// and DEL) or `U+00NN` (C1 controls, U+0080-U+009F); nullopt when there is none. An escape in a
/// double-quoted scalar (`"\x7f"`) can put one into a value though the file holds none, and
/// yaml-cpp writes DEL back raw, which YAML does not allow in a file (1.2, section 5.1). yaml-cpp
/// also keeps a lone carriage return inside a plain scalar (YAML reads it as a line break) and
/// drops it when it ends the line on reading again, so a value cannot carry one either.
std::optional<std::string> first_control_character(const std::string& text) {
  char code[8];
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte < 0x20 && byte != '\t' && byte != '\n') || byte == 0x7F) {
      std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(byte));
      return std::string(code);
    }
    if (byte == 0xC2 && i + 1 < text.size()) {
      const auto next = static_cast<unsigned char>(text[i + 1]);
      if (next >= 0x80 && next <= 0x9F) {
        std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(next));
        return std::string(code);
      }
    }
  }
  return std::nullopt;
}

std::optional<bool> parse_boolean(const std::string& text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

/// Checks one document against a schema and builds its tree. Throws ScenarioError.
class Resolver {
 public:
  explicit Resolver(std::string file) : file_(std::move(file)) {}

  [[nodiscard]] SourceLocation where(const YAML::Mark& mark) const {
    if (mark.is_null()) return SourceLocation{file_, 0, 0};
    return SourceLocation{file_, mark.line + 1, mark.column + 1};
  }

  /// `FILE:L:C: PATH: PROBLEM` (or `FILE:L:C: PROBLEM` at the root).
  [[noreturn]] void fail(const SourceLocation& location, const std::string& path,
                         const std::string& problem) const {
    std::string message = format_location(location) + ": ";
    if (!path.empty()) message += path + ": ";
    message += problem;
    throw ScenarioError(message, location, path);
  }

  /// `FILE:L:C: PATH = WRITTEN (RULE)`.
  [[noreturn]] void fail_value(const SourceLocation& location, const std::string& path,
                               const std::string& written, const std::string& rule) const {
    const std::string shown = written.empty() ? "\"\"" : written;
    throw ScenarioError(format_location(location) + ": " + path + " = " + shown + " (" + rule + ")",
                        location, path);
  }

  /// A mapping (or an empty/absent one when `node` is null) checked against `schema`.
  /// `location` is where the section starts (line 0 if absent); `enclosing` is the closest written
  /// mapping, where missing required keys are reported.
  ParameterTree section(const YAML::Node* node, const SectionSchema& schema,
                        const std::string& path, const SourceLocation& location,
                        const SourceLocation& enclosing) const {
    ParameterTree tree;
    tree.path = path;
    tree.location = location;
    std::unordered_map<std::string, int> first_line;

    if (node != nullptr && node->IsMap()) {
      for (auto it = node->begin(); it != node->end(); ++it) {
        const YAML::Node key = it->first;  // copies: it-> yields a temporary pair
        const YAML::Node value = it->second;
        const SourceLocation key_location = where(key.Mark());
        if (!key.IsScalar()) fail(key_location, path, "keys must be plain names");
        const std::string name = scalar_text(key);
        const std::string key_path = join_path(path, name);
        if (auto seen = first_line.find(name); seen != first_line.end())
          fail(key_location, key_path,
               "duplicate key (first at line " + std::to_string(seen->second) + ")");
        first_line.emplace(name, key_location.line);

        if (const ParameterSpec* spec = find_parameter(schema, name)) {
          tree.values.emplace(name, parameter(key_location, value, *spec, key_path));
        } else if (auto sub = schema.sections.find(name); sub != schema.sections.end()) {
          tree.sections.emplace(name, written_section(key_location, value, sub->second, key_path));
        } else if (auto list = schema.lists.find(name); list != schema.lists.end()) {
          auto entries = written_list(key_location, value, list->second, key_path);
          if (entries.empty() && list->second.required)
            fail(value.IsNull() ? key_location : where(value.Mark()), key_path,
                 "required list is empty");
          tree.lists.emplace(name, std::move(entries));
        } else {
          fail(key_location, key_path, unknown_key_problem(schema, name));
        }
      }
    }

    const SourceLocation& report = location.line > 0 ? location : enclosing;
    for (const auto& spec : schema.parameters) {
      if (tree.values.count(spec.name) != 0) continue;
      if (spec.required())
        fail(report, join_path(path, spec.name),
             "required key is missing (" + expected_detail(spec) + ")");
      tree.values.emplace(spec.name, default_value(spec));
    }
    for (const auto& [name, sub] : schema.sections) {
      if (tree.sections.count(name) != 0) continue;
      if (sub.required) fail(report, join_path(path, name), "required section is missing");
      tree.sections.emplace(
          name, section(nullptr, sub, join_path(path, name), SourceLocation{file_, 0, 0}, report));
    }
    for (const auto& [name, sub] : schema.lists) {
      if (tree.lists.count(name) != 0) continue;
      if (sub.required) fail(report, join_path(path, name), "required list is missing");
      tree.lists.emplace(name, std::vector<ParameterTree>{});
    }
    return tree;
  }

 private:
  static const ParameterSpec* find_parameter(const SectionSchema& schema, const std::string& name) {
    for (const auto& spec : schema.parameters)
      if (spec.name == name) return &spec;
    return nullptr;
  }

  static std::string unknown_key_problem(const SectionSchema& schema, const std::string& name) {
    std::vector<std::string> keys;
    for (const auto& spec : schema.parameters) keys.push_back(spec.name);
    for (const auto& entry : schema.sections) keys.push_back(entry.first);
    for (const auto& entry : schema.lists) keys.push_back(entry.first);
    return rules::unknown_key_problem(keys, name);
  }

  [[nodiscard]] ParameterValue default_value(const ParameterSpec& spec) const {
    ParameterValue value;
    value.from_default = true;
    value.location = SourceLocation{file_, 0, 0};
    if (spec.kind == ParameterKind::choice || spec.kind == ParameterKind::text)
      value.text = spec.default_text.value_or(std::string{});
    else
      value.number = spec.default_value.value_or(0.0);
    if (spec.kind == ParameterKind::unsigned_integer) value.unsigned_number = static_cast<std::uint64_t>(value.number);
    return value;
  }

  ParameterTree written_section(const SourceLocation& key_location, const YAML::Node& value,
                                const SectionSchema& schema, const std::string& path) const {
    if (value.IsNull()) return section(nullptr, schema, path, key_location, key_location);
    const SourceLocation location = where(value.Mark());
    if (!value.IsMap())
      fail(location, path, std::string("must be a mapping, not ") + node_kind(value));
    return section(&value, schema, path, location, location);
  }

  std::vector<ParameterTree> written_list(const SourceLocation& key_location,
                                          const YAML::Node& value, const SectionSchema& schema,
                                          const std::string& path) const {
    std::vector<ParameterTree> entries;
    if (value.IsNull()) return entries;
    if (!value.IsSequence())
      fail(where(value.Mark()), path, std::string("must be a list, not ") + node_kind(value));
    entries.reserve(value.size());
    std::size_t index = 0;
    for (const auto& entry : value) {
      const std::string entry_path = indexed_path(path, index++);
      SourceLocation location = where(entry.Mark());
      if (location.line <= 0) location = key_location;
      if (entry.IsNull()) {
        entries.push_back(section(nullptr, schema, entry_path, location, location));
        continue;
      }
      if (!entry.IsMap())
        fail(location, entry_path, std::string("must be a mapping, not ") + node_kind(entry));
      entries.push_back(section(&entry, schema, entry_path, location, location));
    }
    return entries;
  }

  ParameterValue parameter(const SourceLocation& key_location, const YAML::Node& node,
                           const ParameterSpec& spec, const std::string& path) const {
    if (node.IsNull()) fail(key_location, path, "value is missing (" + expected_detail(spec) + ")");
    const SourceLocation location = where(node.Mark());
    if (!node.IsScalar())
      fail(location, path, std::string("must be a single value, not ") + node_kind(node));

    ParameterValue value;
    value.as_written = scalar_text(node);
    value.location = location;
    const std::string& written = value.as_written;
    const std::string text = trimmed(written);

    switch (spec.kind) {
      case ParameterKind::real: {
        Quantity quantity;
        try {
          quantity = parse_quantity(text);
        } catch (const UnitError& error) {
          fail_value(location, path, written,
                     error.reason() == UnitError::Reason::not_finite ? "must be a finite number"
                                                                     : number_rule(spec));
        }
        try {
          value.number = to_si(quantity, spec.unit);
        } catch (const UnitError& error) {
          fail_value(location, path, written,
                     error.reason() == UnitError::Reason::not_finite ? "must be a finite number"
                                                                     : std::string(error.what()));
        }
        if (!in_range(spec, value.number)) fail_value(location, path, written, range_rule(spec));
        break;
      }
      case ParameterKind::integer: {
        const auto integer = parse_integer_literal(text);
        if (!integer) fail_value(location, path, written, "must be an integer");
        value.number = static_cast<double>(*integer);
        if (!in_range(spec, value.number)) fail_value(location, path, written, range_rule(spec));
        break;
      }
      case ParameterKind::unsigned_integer: {
        if (const auto problem = unsigned_problem(text, value.unsigned_number))
          fail_value(location, path, written, *problem);
        value.number = static_cast<double>(value.unsigned_number);
        break;
      }
      case ParameterKind::boolean: {
        const auto flag = parse_boolean(text);
        if (!flag) fail_value(location, path, written, "must be true or false");
        value.number = *flag ? 1.0 : 0.0;
        break;
      }
      case ParameterKind::choice: {
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
          fail_value(location, path, written, "must be one of: " + join_words(spec.choices));
        value.text = text;
        break;
      }
      case ParameterKind::text:
        if (const auto control = first_control_character(written))
          fail(location, path,
               "text holds control character " + *control +
                   " (text allows tab and line feed only)");
        value.text = written;
        break;
    }
    return value;
  }

  std::string file_;
};

// ---- resolved YAML ---------------------------------------------------------------------------

std::string resolved_value_text(const ParameterSpec& spec, const ParameterValue& value) {
  switch (spec.kind) {
    case ParameterKind::real: {
      std::string text = format_number_exact(value.number);
      if (!is_dimensionless(spec.unit)) text += " " + spec.unit;
      return text;
    }
    case ParameterKind::integer:
      return std::to_string(std::llround(value.number));
    case ParameterKind::unsigned_integer:
      return std::to_string(value.unsigned_number);
    case ParameterKind::boolean:
      return value.number != 0.0 ? "true" : "false";
    case ParameterKind::choice:
    case ParameterKind::text:
      return value.text;
  }
  return {};
}

void emit_section(YAML::Emitter& out, const ParameterTree& tree, const SectionSchema& schema) {
  out << YAML::BeginMap;
  for (const auto& spec : schema.parameters) {
    const auto it = tree.values.find(spec.name);
    if (it == tree.values.end()) continue;
    out << YAML::Key << spec.name << YAML::Value << resolved_value_text(spec, it->second);
  }
  for (const auto& [name, sub] : schema.sections) {
    const auto it = tree.sections.find(name);
    if (it == tree.sections.end()) continue;
    out << YAML::Key << name << YAML::Value;
    emit_section(out, it->second, sub);
  }
  for (const auto& [name, sub] : schema.lists) {
    out << YAML::Key << name << YAML::Value;
    const auto it = tree.lists.find(name);
    if (it == tree.lists.end() || it->second.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      continue;
    }
    out << YAML::BeginSeq;
    for (const auto& entry : it->second) emit_section(out, entry, sub);
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

// ---- key paths -------------------------------------------------------------------------------

struct PathStep {
  std::string name;
  std::optional<std::size_t> index;
};

/// `server.gpus[3].power` -> server, gpus[3], power. Malformed parts end the path.
std::vector<PathStep> split_key_path(const std::string& key_path) {
  std::vector<PathStep> steps;
  std::size_t pos = 0;
  while (pos < key_path.size()) {
    std::size_t end = key_path.find('.', pos);
    if (end == std::string::npos) end = key_path.size();
    const std::string part = key_path.substr(pos, end - pos);
    PathStep step;
    const auto bracket = part.find('[');
    step.name = part.substr(0, bracket);
    if (bracket != std::string::npos) {
      const auto close = part.find(']', bracket);
      if (close == std::string::npos) break;
      std::size_t index = 0;
      const char* first = part.data() + bracket + 1;
      const char* last = part.data() + close;
      const auto result = std::from_chars(first, last, index);
      if (result.ec != std::errc{} || result.ptr != last || first == last) break;
      step.index = index;
    }
    if (step.name.empty()) break;
    steps.push_back(std::move(step));
    pos = end + 1;
  }
  return steps;
}

}  // namespace

ScenarioDocument parse_scenario(std::string_view text, std::string file_label,
                                const SectionSchema& schema) {
  ScenarioDocument document;
  document.file = std::move(file_label);
  document.source_text = std::string(text);
  const Resolver resolver(document.file);

  // A scenario file is UTF-8 text, and YAML allows no control characters in it but tab, line feed
  // and carriage return (YAML 1.2, sections 5.1 and 5.2). yaml-cpp lets some through inside
  // scalars (a NUL byte; bytes that are not UTF-8, which its emitter then writes as escapes of
  // other characters), and the resolved scenario written into a report could not carry them back.
  // Columns here count bytes.
  const std::string& source = document.source_text;
  int line = 1, column = 1;
  for (std::size_t i = 0; i < source.size();) {
    const auto byte = static_cast<unsigned char>(source[i]);
    const auto refuse = [&](const char* what, const char* rule) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(byte));
      resolver.fail(SourceLocation{document.file, line, column}, {}, std::string(what) + code + rule);
    };
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7F)
      refuse("control character ", " (YAML allows tab, line feed and carriage return only)");
    const std::size_t length = utf8_sequence_length(source, i);
    if (length == 0) refuse("byte ", " is not UTF-8 (a scenario file is UTF-8 text)");
    if (byte == '\n') {
      ++line;
      column = 1;
    } else {
      column += static_cast<int>(length);
    }
    i += length;
  }
  std::vector<YAML::Node> documents;
  try {
    documents = load_all_documents(document.source_text);
  } catch (const YAML::Exception& error) {
    resolver.fail(resolver.where(error.mark), {}, "YAML syntax error: " + error.msg);
  }
  if (documents.empty() || documents.front().IsNull()) {
    const SourceLocation whole_file{document.file, 0, 0};
    throw ScenarioError(document.file + ": scenario file is empty", whole_file, {});
  }
  for (std::size_t i = 1; i < documents.size(); ++i)  // an empty trailing `---` is harmless
    if (!documents[i].IsNull())
      resolver.fail(resolver.where(documents[i].Mark()), {},
                    "a scenario file holds one YAML document (another starts here)");
  const YAML::Node& root = documents.front();
  const SourceLocation root_location = resolver.where(root.Mark());
  if (!root.IsMap())
    resolver.fail(root_location, {},
                  std::string("the scenario must be a mapping, not ") + node_kind(root));
  document.tree = resolver.section(&root, schema, {}, root_location, root_location);
  return document;
}

ScenarioDocument load_scenario(const std::filesystem::path& file, const SectionSchema& schema) {
  const std::string label = file.string();
  const auto failure = [&](const char* what, int error_number) {
    return MissingInputError(label + ": " + what + " scenario file (" +
                             std::generic_category().message(error_number) + ")");
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(std::fopen(label.c_str(), "rb"),
                                                         &std::fclose);
  if (!stream) throw failure("cannot open", errno);
  std::string text;
  char buffer[65536];
  while (true) {
    const std::size_t count = std::fread(buffer, 1, sizeof buffer, stream.get());
    text.append(buffer, count);
    if (count < sizeof buffer) break;
  }
  if (std::ferror(stream.get()) != 0) throw failure("cannot read", errno != 0 ? errno : EIO);
  return parse_scenario(text, label, schema);
}

std::string locate(const ScenarioDocument& document, const std::string& key_path) {
  const ParameterTree* tree = &document.tree;
  SourceLocation best{document.file, 0, 0};
  for (const auto& step : split_key_path(key_path)) {
    if (auto value = tree->values.find(step.name); value != tree->values.end()) {
      if (!step.index && value->second.location.line > 0) best = value->second.location;
      break;
    }
    if (auto sub = tree->sections.find(step.name); sub != tree->sections.end()) {
      if (step.index) break;
      tree = &sub->second;
    } else if (auto list = tree->lists.find(step.name); list != tree->lists.end()) {
      if (!step.index || *step.index >= list->second.size()) break;
      tree = &list->second[*step.index];
    } else {
      break;
    }
    if (tree->location.line > 0) best = tree->location;
  }
  best.file = document.file;
  return format_location(best);
}

std::string describe_error(const ScenarioDocument& document, const core::InputError& error) {
  if (error.key_path().empty()) return error.what();
  return locate(document, error.key_path()) + ": " + error.what();
}

std::string emit_resolved_yaml(const ParameterTree& tree, const SectionSchema& schema) {
  YAML::Emitter out;
  emit_section(out, tree, schema);
  DCTWIN_DEMAND(out.good(), out.GetLastError().c_str());
  std::string text = out.c_str();
  text += "\n";
  return text;
}

}  // namespace dctwin::io
