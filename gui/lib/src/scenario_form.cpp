#include "dctwin/gui/scenario_form.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"

namespace dctwin::gui {
namespace {

FormSection build(const core::SectionSchema& schema, const std::string& key, const std::string& path) {
  FormSection section;
  section.key = key;
  section.path = path;
  section.schema = &schema;
  const std::string prefix = path.empty() ? std::string() : path + ".";
  for (const auto& spec : schema.parameters) section.fields.push_back({spec, prefix + spec.name, {}});
  for (const auto& [name, child] : schema.sections) section.sections.push_back(build(child, name, prefix + name));
  for (const auto& [name, child] : schema.lists) section.lists[name];
  return section;
}

FormSection* find_section(FormSection& section, const std::string& path) {
  if (section.path == path) return &section;
  for (auto& child : section.sections) {
    if (auto* found = find_section(child, path)) return found;
  }
  for (auto& [name, entries] : section.lists) {
    for (auto& entry : entries) {
      if (auto* found = find_section(entry, path)) return found;
    }
  }
  return nullptr;
}

std::string entry_path(const FormSection& section, const std::string& list_key, std::size_t index) {
  return (section.path.empty() ? std::string() : section.path + ".") + list_key + "[" +
         std::to_string(index) + "]";
}

void load_section(FormSection& section, const YAML::Node& node, std::vector<std::string>& unknown) {
  if (!node || !node.IsMap()) return;
  const std::string prefix = section.path.empty() ? std::string() : section.path + ".";
  for (const auto& item : node) {
    if (!item.first.IsScalar()) continue;
    const auto key = item.first.Scalar();
    bool known = false;
    for (auto& field : section.fields) {
      if (field.spec.name != key) continue;
      known = true;
      if (item.second.IsScalar()) field.text = item.second.Scalar();
    }
    for (auto& child : section.sections) {
      if (child.key != key) continue;
      known = true;
      load_section(child, item.second, unknown);
    }
    if (const auto list = section.lists.find(key); list != section.lists.end()) {
      known = true;
      const auto& entry_schema = section.schema->lists.at(key);
      list->second.clear();
      if (item.second.IsSequence()) {
        for (const auto& element : item.second) {
          const std::size_t index = list->second.size();
          list->second.push_back(build(entry_schema, key, entry_path(section, key, index)));
          load_section(list->second.back(), element, unknown);
        }
      }
    }
    if (!known) unknown.push_back(prefix + key);
  }
}

/// A scalar as YAML: plain when it reads back as the same string, double-quoted otherwise.
std::string yaml_scalar(const std::string& text) {
  static const std::string special_first = "-?:,[]{}#&*!|>'\"%@`";
  const bool negative_number =
      text.size() > 1 && text[0] == '-' && (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.');
  const bool plain = !text.empty() && text.front() != ' ' && text.back() != ' ' && text.back() != ':' &&
                     (special_first.find(text.front()) == std::string::npos || negative_number) &&
                     text.find(": ") == std::string::npos && text.find(" #") == std::string::npos &&
                     text.find('\n') == std::string::npos;
  if (plain) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    quoted += c;
  }
  return quoted + "\"";
}

void emit(const FormSection& section, int indent, std::string& out) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  for (const auto& field : section.fields) {
    if (field.text.empty()) continue;
    out += pad + field.spec.name + ": " + yaml_scalar(field.text) + "\n";
  }
  for (const auto& child : section.sections) {
    if (!child.has_content() && !child.schema->required) continue;
    out += pad + child.key + ":\n";
    emit(child, indent + 2, out);
  }
  for (const auto& [key, entries] : section.lists) {
    if (entries.empty()) continue;
    out += pad + key + ":\n";
    for (const auto& entry : entries) {
      std::string body;
      emit(entry, indent + 4, body);
      if (body.empty()) {
        out += pad + "  - {}\n";
      } else {
        // The first key goes on the dash's line.
        out += pad + "  - " + body.substr(static_cast<std::size_t>(indent) + 4);
      }
    }
  }
}

std::string number_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

double to_input_unit(const core::ParameterSpec& spec, double si) {
  if (spec.kind != core::ParameterKind::real || spec.display_unit.empty() ||
      spec.display_unit == spec.unit || !std::isfinite(si)) {
    return si;
  }
  try {
    return io::convert(si, spec.unit, spec.display_unit);
  } catch (const std::exception&) {
    return si;
  }
}

}  // namespace

bool FormSection::has_content() const {
  for (const auto& field : fields) {
    if (!field.text.empty()) return true;
  }
  for (const auto& child : sections) {
    if (child.has_content()) return true;
  }
  for (const auto& [list_key, entries] : lists) {
    if (!entries.empty()) return true;
  }
  return false;
}

ScenarioForm::ScenarioForm(core::SectionSchema schema) : schema_(std::move(schema)) {
  root_ = build(schema_, "", "");
}

std::vector<std::string> ScenarioForm::load(std::string_view yaml) {
  YAML::Node node;
  try {
    node = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("not a YAML file: ") + e.what());
  }
  root_ = build(schema_, "", "");
  std::vector<std::string> unknown;
  load_section(root_, node, unknown);
  return unknown;
}

FormSection& ScenarioForm::root() { return root_; }
const FormSection& ScenarioForm::root() const { return root_; }

FormField* ScenarioForm::field(const std::string& key_path) {
  const auto dot = key_path.rfind('.');
  FormSection* section = find_section(root_, dot == std::string::npos ? std::string() : key_path.substr(0, dot));
  if (section == nullptr) return nullptr;
  for (auto& field : section->fields) {
    if (field.key_path == key_path) return &field;
  }
  return nullptr;
}

bool ScenarioForm::set(const std::string& key_path, std::string text) {
  auto* target = field(key_path);
  if (target == nullptr) return false;
  target->text = std::move(text);
  return true;
}

std::string ScenarioForm::add_list_entry(const std::string& section_path, const std::string& list_key) {
  FormSection* section = find_section(root_, section_path);
  if (section == nullptr || !section->lists.contains(list_key)) return {};
  auto& entries = section->lists[list_key];
  const std::string path = entry_path(*section, list_key, entries.size());
  entries.push_back(build(section->schema->lists.at(list_key), list_key, path));
  return path;
}

bool ScenarioForm::remove_list_entry(const std::string& section_path, const std::string& list_key) {
  FormSection* section = find_section(root_, section_path);
  if (section == nullptr || !section->lists.contains(list_key) || section->lists[list_key].empty()) {
    return false;
  }
  section->lists[list_key].pop_back();
  return true;
}

std::string ScenarioForm::yaml() const {
  std::string out;
  emit(root_, 0, out);
  return out;
}

std::optional<FormProblem> ScenarioForm::check(const std::string& file_label) const {
  try {
    const io::ScenarioDocument document = io::parse_scenario(yaml(), file_label, schema_);
    (void)io::check_site(document);
    return std::nullopt;
  } catch (const io::ScenarioError& e) {
    return FormProblem{e.what(), e.path()};
  } catch (const core::InputError& e) {
    return FormProblem{e.what(), e.key_path()};
  }
}

std::string input_unit(const core::ParameterSpec& spec) {
  if (spec.kind != core::ParameterKind::real) return {};
  const std::string& unit = spec.display_unit.empty() ? spec.unit : spec.display_unit;
  return unit == "1" ? std::string() : unit;
}

std::string describe_default(const core::ParameterSpec& spec) {
  using core::ParameterKind;
  if (spec.required()) return "required";
  switch (spec.kind) {
    case ParameterKind::real: {
      const std::string unit = input_unit(spec);
      return number_text(to_input_unit(spec, *spec.default_value)) + (unit.empty() ? "" : " " + unit);
    }
    case ParameterKind::integer: return number_text(*spec.default_value);
    case ParameterKind::unsigned_integer: return std::to_string(static_cast<std::uint64_t>(*spec.default_value));
    case ParameterKind::boolean: return *spec.default_value != 0.0 ? "true" : "false";
    case ParameterKind::choice:
    case ParameterKind::text: return *spec.default_text;
  }
  return {};
}

std::string describe_range(const core::ParameterSpec& spec) {
  using core::ParameterKind;
  if (spec.kind == ParameterKind::choice) {
    std::string text = "one of: ";
    for (std::size_t i = 0; i < spec.choices.size(); ++i) text += (i ? ", " : "") + spec.choices[i];
    return text;
  }
  if (spec.kind == ParameterKind::boolean) return "true or false";
  if (spec.kind == ParameterKind::text) return {};
  const bool has_min = std::isfinite(spec.min);
  const bool has_max = std::isfinite(spec.max);
  const std::string unit = input_unit(spec);
  const std::string suffix = unit.empty() ? "" : " " + unit;
  const std::string lo = has_min ? number_text(to_input_unit(spec, spec.min)) : "";
  const std::string hi = has_max ? number_text(to_input_unit(spec, spec.max)) : "";
  if (has_min && has_max) {
    return (spec.min_inclusive ? "[" : "(") + lo + ", " + hi + (spec.max_inclusive ? "]" : ")") + suffix;
  }
  if (has_min) return (spec.min_inclusive ? ">= " : "> ") + lo + suffix;
  if (has_max) return (spec.max_inclusive ? "<= " : "< ") + hi + suffix;
  return {};
}

}  // namespace dctwin::gui
