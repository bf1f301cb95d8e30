// The scenario schema as a JSON Schema (draft 2020-12), for editors and other tools that check
// YAML files against a schema. Made from the parameter tables, like the Markdown reference.
#include "dctwin/io/schema_doc.hpp"

#include <nlohmann/json.hpp>

#include <cmath>

namespace dctwin::io {

namespace {

using nlohmann::ordered_json;
using core::ParameterKind;
using core::ParameterSpec;
using core::SectionSchema;

std::string shown_unit(const ParameterSpec& spec) {
  return spec.display_unit.empty() ? spec.unit : spec.display_unit;
}

/// Bounds of a bare number (SI) in JSON Schema's words.
void add_bounds(ordered_json& number, const ParameterSpec& spec) {
  if (std::isfinite(spec.min)) number[spec.min_inclusive ? "minimum" : "exclusiveMinimum"] = spec.min;
  if (std::isfinite(spec.max)) number[spec.max_inclusive ? "maximum" : "exclusiveMaximum"] = spec.max;
}

ordered_json parameter(const ParameterSpec& spec) {
  ordered_json p;
  std::string description = spec.doc;
  switch (spec.kind) {
    case ParameterKind::real: {
      // A quantity is a bare number in the SI unit or a string with a unit ("32 degC"); the
      // loader converts and checks the string, a schema can only check the bare number's bounds.
      ordered_json number = {{"type", "number"}};
      add_bounds(number, spec);
      p["anyOf"] = ordered_json::array({number, {{"type", "string"}, {"pattern", "\\S"}}});
      if (spec.unit != "1") {
        description += " [SI unit " + spec.unit + "; written as a bare number in SI or with a unit, e.g. in " +
                       shown_unit(spec) + "]";
      }
      p["x-unit"] = spec.unit;
      if (spec.default_value) p["default"] = *spec.default_value;
      break;
    }
    case ParameterKind::integer:
      p["type"] = "integer";
      add_bounds(p, spec);
      if (spec.default_value) p["default"] = static_cast<long long>(*spec.default_value);
      break;
    case ParameterKind::unsigned_integer:
      // Up to 2^64-1, beyond what many JSON tools hold exactly: a number or a string of digits.
      p["anyOf"] = ordered_json::array({{{"type", "integer"}, {"minimum", 0}},
                                        {{"type", "string"}, {"pattern", "^[0-9]+$"}}});
      if (spec.default_value) p["default"] = static_cast<unsigned long long>(*spec.default_value);
      break;
    case ParameterKind::boolean:
      p["type"] = "boolean";
      if (spec.default_value) p["default"] = *spec.default_value != 0.0;
      break;
    case ParameterKind::choice:
      p["type"] = "string";
      p["enum"] = spec.choices;
      if (spec.default_text) p["default"] = *spec.default_text;
      break;
    case ParameterKind::text:
      p["type"] = "string";
      if (spec.default_text) p["default"] = *spec.default_text;
      break;
  }
  p["description"] = description + (spec.source.empty() ? "" : " Source: " + spec.source);
  return p;
}

ordered_json section(const SectionSchema& schema) {
  ordered_json s;
  // An empty section (`cooling:` alone) is a YAML null and means all defaults.
  s["type"] = ordered_json::array({"object", "null"});
  if (!schema.doc.empty()) s["description"] = schema.doc;
  ordered_json properties = ordered_json::object();
  ordered_json required = ordered_json::array();
  for (const auto& spec : schema.parameters) {
    properties[spec.name] = parameter(spec);
    if (spec.required()) required.push_back(spec.name);
  }
  for (const auto& [name, sub] : schema.sections) {
    properties[name] = section(sub);
    if (sub.required) required.push_back(name);
  }
  for (const auto& [name, sub] : schema.lists) {
    ordered_json list = {{"type", sub.required ? ordered_json("array") : ordered_json::array({"array", "null"})},
                         {"items", section(sub)}};
    if (!sub.doc.empty()) list["description"] = sub.doc;
    if (sub.required) list["minItems"] = 1;
    properties[name] = list;
    if (sub.required) required.push_back(name);
  }
  s["properties"] = properties;
  if (!required.empty()) s["required"] = required;
  s["additionalProperties"] = false;
  return s;
}

}  // namespace

std::string schema_json(const core::SectionSchema& schema, const std::string& title) {
  ordered_json root = {{"$schema", "https://json-schema.org/draft/2020-12/schema"}, {"title", title}};
  ordered_json body = section(schema);
  body["type"] = "object";  // the file itself is a mapping
  root.update(body);
  return root.dump(2) + "\n";
}

}  // namespace dctwin::io
