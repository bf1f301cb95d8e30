#include "dctwin/core/parameters.hpp"

#include <cmath>

#include "dctwin/core/check.hpp"

namespace dctwin::core {

ParameterSpec real_parameter(std::string name, std::string unit, std::string doc,
                             std::optional<double> default_value, std::string source) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::real;
  spec.unit = std::move(unit);
  spec.doc = std::move(doc);
  spec.default_value = default_value;
  spec.source = std::move(source);
  return spec;
}

ParameterSpec integer_parameter(std::string name, std::string doc,
                                std::optional<double> default_value, std::string source) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::integer;
  spec.unit = "1";
  spec.doc = std::move(doc);
  spec.default_value = default_value;
  spec.source = std::move(source);
  return spec;
}

ParameterSpec unsigned_parameter(std::string name, std::string doc, std::uint64_t default_value,
                                 std::string source) {
  DCTWIN_DEMAND(default_value <= (std::uint64_t{1} << 53), "an unsigned default must be exact as a double");
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::unsigned_integer;
  spec.unit = "1";
  spec.doc = std::move(doc);
  spec.default_value = static_cast<double>(default_value);
  spec.min = 0.0;
  spec.source = std::move(source);
  return spec;
}

ParameterSpec boolean_parameter(std::string name, std::string doc, bool default_value) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::boolean;
  spec.unit = "1";
  spec.doc = std::move(doc);
  spec.default_value = default_value ? 1.0 : 0.0;
  return spec;
}

ParameterSpec choice_parameter(std::string name, std::vector<std::string> choices, std::string doc,
                               std::optional<std::string> default_choice) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::choice;
  spec.unit = "1";
  spec.choices = std::move(choices);
  spec.doc = std::move(doc);
  spec.default_text = std::move(default_choice);
  return spec;
}

ParameterSpec text_parameter(std::string name, std::string doc,
                             std::optional<std::string> default_text) {
  ParameterSpec spec;
  spec.name = std::move(name);
  spec.kind = ParameterKind::text;
  spec.unit = "1";
  spec.doc = std::move(doc);
  spec.default_text = std::move(default_text);
  return spec;
}

ParameterSpec& at_least(ParameterSpec& spec, double min) {
  spec.min = min;
  spec.min_inclusive = true;
  return spec;
}
ParameterSpec& greater_than(ParameterSpec& spec, double min) {
  spec.min = min;
  spec.min_inclusive = false;
  return spec;
}
ParameterSpec& at_most(ParameterSpec& spec, double max) {
  spec.max = max;
  spec.max_inclusive = true;
  return spec;
}
ParameterSpec& less_than(ParameterSpec& spec, double max) {
  spec.max = max;
  spec.max_inclusive = false;
  return spec;
}

namespace {
const ParameterValue& find_value(const ParameterTree& tree, const std::string& name) {
  auto it = tree.values.find(name);
  if (it == tree.values.end()) {
    const std::string message = "parameter '" + tree.key_path(name) + "' is not in the schema";
    DCTWIN_DEMAND(false, message.c_str());
  }
  return it->second;
}
}  // namespace

double ParameterTree::number(const std::string& name) const { return find_value(*this, name).number; }

std::int64_t ParameterTree::integer(const std::string& name) const {
  return static_cast<std::int64_t>(std::llround(find_value(*this, name).number));
}

std::uint64_t ParameterTree::unsigned_integer(const std::string& name) const {
  return find_value(*this, name).unsigned_number;
}

bool ParameterTree::boolean(const std::string& name) const {
  return find_value(*this, name).number != 0.0;
}

const std::string& ParameterTree::text(const std::string& name) const {
  return find_value(*this, name).text;
}

const ParameterTree& ParameterTree::section(const std::string& name) const {
  auto it = sections.find(name);
  if (it == sections.end()) {
    const std::string message = "section '" + key_path(name) + "' is not in the resolved tree";
    DCTWIN_DEMAND(false, message.c_str());
  }
  return it->second;
}

const std::vector<ParameterTree>& ParameterTree::list(const std::string& name) const {
  static const std::vector<ParameterTree> empty;
  auto it = lists.find(name);
  return it == lists.end() ? empty : it->second;
}

bool ParameterTree::has_section(const std::string& name) const { return sections.count(name) > 0; }

std::string ParameterTree::key_path(const std::string& name) const {
  return path.empty() ? name : path + "." + name;
}

}  // namespace dctwin::core
