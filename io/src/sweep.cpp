// Sweep files: checking, designs, member scenarios and member error messages (see sweep.hpp).
#include "parameter_rules.hpp"
#include "dctwin/io/sweep.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <system_error>
#include <utility>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/units.hpp"
#include "sweep_internal.hpp"
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
using rules::unknown_key_problem;

namespace {

using core::ParameterKind;
using core::ParameterSpec;
using core::SectionSchema;
using core::SourceLocation;

constexpr std::size_t max_members = 10'000'000;
/// The most values a plan holds (members x parameters): every member keeps each of its values as
/// written, in SI and as shown, with where it came from, some 200 bytes in all. Ten million
/// members of three parameters took over 6 GB before the plan was complete.
constexpr std::size_t max_member_values = 1'000'000;

// ---- text helpers ----------------------------------------------------------------------------

/// `unknown key (did you mean 'x'?)`, `unknown key (valid keys: ...)` or `unknown key`, with the
/// scenario checker's rules for "close".

const char* kind_name(ParameterKind kind) {
  switch (kind) {
    case ParameterKind::real:
      return "a real number";
    case ParameterKind::integer:
      return "an integer";
    case ParameterKind::unsigned_integer:
      return "an integer >= 0";
    case ParameterKind::boolean:
      return "true or false";
    case ParameterKind::choice:
      return "a choice";
    case ParameterKind::text:
      return "text";
  }
  return "a value";
}

// ---- ranges, as the scenario checker words them ------------------------------------------------

/// The SI value of a written scenario value, or NaN when it is not a number of the right kind.
double numeric_value(const ParameterSpec& spec, const std::string& written) {
  const std::string text = trimmed(written);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (spec.kind) {
    case ParameterKind::real:
      try {
        return parse_to_si(text, spec.unit);
      } catch (const core::InputError&) {
        return nan;
      }
    case ParameterKind::integer: {
      const auto value = parse_integer_literal(text);
      return value ? static_cast<double>(*value) : nan;
    }
    case ParameterKind::unsigned_integer: {  // rounded; the exact value is the written text
      std::uint64_t value = 0;
      return rules::unsigned_problem(text, value) ? nan : static_cast<double>(value);
    }
    case ParameterKind::boolean:
      if (text == "true" || text == "True" || text == "TRUE") return 1.0;
      if (text == "false" || text == "False" || text == "FALSE") return 0.0;
      return nan;
    case ParameterKind::choice:
    case ParameterKind::text:
      return nan;
  }
  return nan;
}

/// A sampled value as member scenarios carry it: the exact SI double and the SI unit.
std::string si_text(const ParameterSpec& spec, double value) {
  std::string text = format_number_exact(value);
  if (!is_dimensionless(spec.unit)) text += " " + spec.unit;
  return text;
}

std::string display_text(const ParameterSpec& spec, double value) {
  try {
    return format_quantity(value, spec.unit, spec.display_unit);
  } catch (const UnitError&) {
    return format_quantity(value, spec.unit, {});
  }
}

// ---- random numbers: a fixed, documented generator so that a seed means the same members on
// every platform (std:: distributions are implementation-defined) ------------------------------

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Uniform in (0, 1).
  double open_uniform() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }
  /// Uniform in {0, ..., n - 1}, without modulo bias.
  std::size_t index(std::size_t n) {
    const std::uint64_t range = n;
    const std::uint64_t threshold = (0 - range) % range;
    std::uint64_t draw = 0;
    do {
      draw = engine_();
    } while (draw < threshold);
    return static_cast<std::size_t>(draw % range);
  }
  /// Standard normal (Box-Muller, two uniforms per value).
  double normal() {
    const double u1 = open_uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  }

 private:
  std::mt19937_64 engine_;
};

// ---- key paths -------------------------------------------------------------------------------

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/// `server.gpus[5].power_scale` -> steps; nullopt when it is not a key path.
std::optional<std::vector<detail::KeyStep>> split_key(const std::string& text) {
  std::vector<detail::KeyStep> steps;
  std::size_t pos = 0;
  while (true) {
    if (pos >= text.size() || !is_name_start(text[pos])) return std::nullopt;
    detail::KeyStep step;
    while (pos < text.size() && is_name_char(text[pos])) step.name += text[pos++];
    if (pos < text.size() && text[pos] == '[') {
      ++pos;
      const std::size_t first = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') ++pos;
      if (pos == first || pos >= text.size() || text[pos] != ']') return std::nullopt;
      std::size_t index = 0;
      const auto result = std::from_chars(text.data() + first, text.data() + pos, index);
      if (result.ec != std::errc{}) return std::nullopt;
      step.index = index;
      ++pos;
    }
    steps.push_back(std::move(step));
    if (pos == text.size()) return steps;
    if (text[pos] != '.') return std::nullopt;
    ++pos;
  }
}

std::string join_key(const std::vector<detail::KeyStep>& steps, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count && i < steps.size(); ++i) {
    if (i > 0) text += '.';
    text += steps[i].name;
    if (steps[i].index) text += "[" + std::to_string(*steps[i].index) + "]";
  }
  return text;
}

std::vector<std::string> schema_keys(const SectionSchema& schema) {
  std::vector<std::string> keys;
  for (const auto& spec : schema.parameters) keys.push_back(spec.name);
  for (const auto& entry : schema.sections) keys.push_back(entry.first);
  for (const auto& entry : schema.lists) keys.push_back(entry.first);
  return keys;
}

const ParameterSpec* find_parameter(const SectionSchema& schema, const std::string& name) {
  for (const auto& spec : schema.parameters)
    if (spec.name == name) return &spec;
  return nullptr;
}

// ---- YAML ------------------------------------------------------------------------------------

SourceLocation where(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

/// The value node of `key` in mapping `map`, with the key's mark; an invalid node when absent.
std::pair<YAML::Node, YAML::Mark> find_entry(const YAML::Node& map, const std::string& key) {
  if (!map.IsMap()) return {YAML::Node(YAML::NodeType::Undefined), YAML::Mark::null_mark()};
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return {it->second, it->first.Mark()};
  return {YAML::Node(YAML::NodeType::Undefined), YAML::Mark::null_mark()};
}

/// The first duplicate key anywhere below `node`: (second key's mark, first line, key path).
struct Duplicate {
  YAML::Mark mark;
  int first_line = 0;
  std::string path;
};
std::optional<Duplicate> find_duplicate(const YAML::Node& node, const std::string& path) {
  if (node.IsMap()) {
    std::map<std::string, int> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string name = it->first.Scalar();
      const std::string key_path = path.empty() ? name : path + "." + name;
      const auto [entry, inserted] = seen.emplace(name, it->first.Mark().line + 1);
      if (!inserted) return Duplicate{it->first.Mark(), entry->second, key_path};
      if (auto inner = find_duplicate(it->second, key_path)) return inner;
    }
  } else if (node.IsSequence()) {
    std::size_t index = 0;
    for (const auto& entry : node) {
      if (auto inner = find_duplicate(entry, path + "[" + std::to_string(index) + "]")) return inner;
      ++index;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace detail {

std::optional<std::string> apply_override(YAML::Node& root, const std::vector<KeyStep>& steps,
                                          const std::string& value) {
  YAML::Node current;
  current.reset(root);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const KeyStep& step = steps[i];
    const bool last = i + 1 == steps.size();
    if (!current.IsMap()) return "the base scenario's " + join_key(steps, i) + " is not a mapping";
    YAML::Node child = current[step.name];
    if (last && !step.index) {
      if (child.IsDefined() && (child.IsMap() || child.IsSequence()))
        return "the base scenario's " + join_key(steps, i + 1) + " is not a single value";
      child = value;
      return std::nullopt;
    }
    if (step.index) {
      const std::string list_path = join_key(steps, i) + (i > 0 ? "." : "") + step.name;
      if (!child.IsDefined() || child.IsNull()) return "the base scenario has no entries in " + list_path;
      if (!child.IsSequence()) return "the base scenario's " + list_path + " is not a list";
      if (*step.index >= child.size())
        return "the base scenario has " + std::to_string(child.size()) + " entr" +
               (child.size() == 1 ? "y" : "ies") + " in " + list_path;
      YAML::Node entry = child[*step.index];
      if (entry.IsNull()) entry = YAML::Node(YAML::NodeType::Map);
      if (!entry.IsMap()) return "the base scenario's " + join_key(steps, i + 1) + " is not a mapping";
      current.reset(entry);
    } else {
      if (!child.IsDefined() || child.IsNull()) child = YAML::Node(YAML::NodeType::Map);
      if (!child.IsMap()) return "the base scenario's " + join_key(steps, i + 1) + " is not a mapping";
      current.reset(child);
    }
  }
  return std::nullopt;
}

std::vector<YamlPlace> locate_in_yaml(const std::string& text, const std::string& file, const std::string& key_path) {
  std::vector<YamlPlace> places;
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return places;
  }
  places.push_back({where(file, node.Mark()), where(file, node.Mark())});
  const auto steps = split_key(key_path);
  if (!steps) return places;
  for (const auto& step : *steps) {
    auto [value, key_mark] = find_entry(node, step.name);
    if (!value.IsDefined()) break;
    if (step.index) {
      if (!value.IsSequence() || *step.index >= value.size()) break;
      key_mark = value[*step.index].Mark();
      value.reset(value[*step.index]);
    }
    const SourceLocation key = where(file, key_mark);
    places.push_back({key, value.IsNull() ? key : where(file, value.Mark())});
    node.reset(value);
  }
  return places;
}

}  // namespace detail

namespace {

// ---- the reader ------------------------------------------------------------------------------

const std::vector<std::string> top_keys = {"name", "description", "base", "design", "set", "parameters"};
const std::vector<std::string> design_keys = {"type", "samples", "seed"};
const std::vector<std::string> design_names = {"grid", "list", "latin_hypercube", "monte_carlo"};

/// A mapping entry: its value and where its key is.
struct KeyedNode {
  YAML::Node value;
  SourceLocation key;
};

class SweepReader {
 public:
  SweepReader(std::string file, const SectionSchema& schema) : file_(std::move(file)), schema_(schema) {}

  [[nodiscard]] SourceLocation where(const YAML::Mark& mark) const { return dctwin::io::where(file_, mark); }

  [[noreturn]] void fail(const SourceLocation& location, const std::string& path, const std::string& problem) const {
    std::string message = format_location(location) + ": ";
    if (!path.empty()) message += path + ": ";
    message += problem;
    throw SweepError(message, location, path);
  }

  [[noreturn]] void fail_value(const SourceLocation& location, const std::string& path, const std::string& written,
                               const std::string& rule) const {
    const std::string shown = written.empty() ? "\"\"" : written;
    throw SweepError(format_location(location) + ": " + path + " = " + shown + " (" + rule + ")", location, path);
  }

  /// The entries of a mapping with plain, unique keys out of `allowed`.
  std::map<std::string, KeyedNode> entries(const YAML::Node& map, const std::string& path,
                                           const std::vector<std::string>& allowed) const {
    std::map<std::string, KeyedNode> found;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const SourceLocation key_location = where(it->first.Mark());
      if (!it->first.IsScalar()) fail(key_location, path, "keys must be plain names");
      const std::string name = it->first.Scalar();
      const std::string key_path = path.empty() ? name : path + "." + name;
      if (auto seen = found.find(name); seen != found.end())
        fail(key_location, key_path, "duplicate key (first at line " + std::to_string(seen->second.key.line) + ")");
      if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
        fail(key_location, key_path, unknown_key_problem(allowed, name));
      found[name] = KeyedNode{it->second, key_location};
    }
    return found;
  }

  /// A scalar's text; fails for an empty value or a mapping/list.
  std::string scalar(const KeyedNode& entry, const std::string& path, const std::string& detail) const {
    if (entry.value.IsNull()) fail(entry.key, path, "value is missing (" + detail + ")");
    if (!entry.value.IsScalar())
      fail(where(entry.value.Mark()), path, std::string("must be a single value, not ") + node_kind(entry.value));
    return scalar_text(entry.value);
  }

  std::int64_t integer(const KeyedNode& entry, const std::string& path, std::int64_t minimum) const {
    const std::string written = scalar(entry, path, "integer");
    const auto value = parse_integer_literal(trimmed(written));
    const SourceLocation location = where(entry.value.Mark());
    if (!value) fail_value(location, path, written, "must be an integer");
    if (*value < minimum) fail_value(location, path, written, "must be >= " + std::to_string(minimum));
    return *value;
  }

  /// A whole number 0 to 2^64-1 (a seed), exact.
  std::uint64_t unsigned_integer(const KeyedNode& entry, const std::string& path) const {
    const std::string written = scalar(entry, path, "integer >= 0");
    std::uint64_t value = 0;
    if (const auto problem = rules::unsigned_problem(written, value))
      fail_value(where(entry.value.Mark()), path, written, *problem);
    return value;
  }

  /// A quantity converted to the parameter's SI unit; `difference`: a spread (no offset).
  double quantity(const KeyedNode& entry, const std::string& path, const ParameterSpec& spec,
                  bool difference = false) const {
    const std::string detail = is_dimensionless(shown_unit(spec)) ? "dimensionless" : shown_unit(spec);
    const std::string written = scalar(entry, path, detail);
    const SourceLocation location = where(entry.value.Mark());
    Quantity q;
    try {
      q = parse_quantity(trimmed(written));
    } catch (const UnitError& error) {
      fail_value(location, path, written,
                 error.reason() == UnitError::Reason::not_finite ? "must be a finite number" : number_rule(spec));
    }
    try {
      if (!difference) return to_si(q, spec.unit);
      if (q.unit.empty()) return q.number;
      const double value = convert(q.number, q.unit, spec.unit) - convert(0.0, q.unit, spec.unit);
      if (!std::isfinite(value)) throw UnitError(UnitError::Reason::not_finite, "not finite");
      return value;
    } catch (const UnitError& error) {
      fail_value(location, path, written,
                 error.reason() == UnitError::Reason::not_finite ? "must be a finite number" : std::string(error.what()));
    }
  }

  /// A scenario key path (`parameters.<key>` or `set.<key>`) checked against the schema.
  std::pair<std::vector<detail::KeyStep>, const ParameterSpec*> scenario_key(const std::string& raw,
                                                                              const SourceLocation& location,
                                                                              const std::string& section) const {
    const std::string path = section + "." + raw;
    const auto steps = split_key(raw);
    if (!steps)
      fail(location, path, "not a scenario key path (write it like loop.pump.speed or server.gpus[5].power_scale)");
    const SectionSchema* schema = &schema_;
    for (std::size_t i = 0; i < steps->size(); ++i) {
      const auto& step = (*steps)[i];
      const bool last = i + 1 == steps->size();
      const std::string here = join_key(*steps, i + 1);
      const std::string here_plain = join_key(*steps, i) + (i > 0 ? "." : "") + step.name;
      if (const ParameterSpec* spec = find_parameter(*schema, step.name)) {
        if (step.index) fail(location, path, here_plain + " is a parameter, not a list");
        if (!last) fail(location, path, here + " is a parameter, not a section");
        return {*steps, spec};
      }
      if (auto sub = schema->sections.find(step.name); sub != schema->sections.end()) {
        if (step.index) fail(location, path, here_plain + " is a section, not a list");
        if (last) fail(location, path, here + " is a section, not a parameter");
        schema = &sub->second;
        continue;
      }
      if (auto list = schema->lists.find(step.name); list != schema->lists.end()) {
        if (!step.index) fail(location, path, here + " is a list (name an entry, e.g. " + here + "[0])");
        if (last) fail(location, path, here + " is a list entry, not a parameter");
        schema = &list->second;
        continue;
      }
      fail(location, path, unknown_key_problem(schema_keys(*schema), step.name, "unknown scenario key"));
    }
    fail(location, path, "not a scenario key path");
  }

 private:
  std::string file_;
  const SectionSchema& schema_;
};

YAML::Node single_document(const std::string& text, const std::string& label, const char* what) {
  const auto fail = [&](const YAML::Mark& mark, const std::string& problem) {
    const SourceLocation location = where(label, mark);
    throw SweepError(format_location(location) + ": " + problem, location, {});
  };
  std::vector<YAML::Node> documents;
  try {
    documents = load_all_documents(text);
  } catch (const YAML::Exception& error) {
    fail(error.mark, "YAML syntax error: " + error.msg);
  }
  if (documents.empty() || documents.front().IsNull()) {
    const SourceLocation whole{label, 0, 0};
    throw SweepError(label + ": " + what + " file is empty", whole, {});
  }
  for (std::size_t i = 1; i < documents.size(); ++i)
    if (!documents[i].IsNull())
      fail(documents[i].Mark(), std::string("a ") + what + " file holds one YAML document (another starts here)");
  if (!documents.front().IsMap())
    fail(documents.front().Mark(), std::string("the ") + what + " must be a mapping, not " + node_kind(documents.front()));
  return documents.front();
}

/// A whole file; on failure, `failure` says what went wrong ("cannot open", "cannot read") and
/// `error_number` why.
std::optional<std::string> read_text(const std::filesystem::path& file, std::string& failure, int& error_number) {
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(std::fopen(file.c_str(), "rb"), &std::fclose);
  if (!stream) {
    failure = "cannot open";
    error_number = errno;
    return std::nullopt;
  }
  std::string text;
  char buffer[65536];
  while (true) {
    const std::size_t count = std::fread(buffer, 1, sizeof buffer, stream.get());
    text.append(buffer, count);
    if (count < sizeof buffer) break;
  }
  if (std::ferror(stream.get()) != 0) {
    failure = "cannot read";
    error_number = errno != 0 ? errno : EIO;
    return std::nullopt;
  }
  return text;
}

/// A message of the scenario checker for a document labelled `label`, split into the position it
/// names (line 0 when none) and the rest.
struct LocatedMessage {
  int line = 0;
  int column = 0;
  std::string rest;
};

/// Removes the location prefix that the scenario checker put before `message` (`label:L:C: ` or
/// `label: `). Returns nullopt when there is none.
std::optional<LocatedMessage> strip_location(const std::string& message, const std::string& label) {
  if (message.compare(0, label.size(), label) != 0) return std::nullopt;
  LocatedMessage located;
  std::size_t pos = label.size();
  const auto number = [&](std::size_t at, int& value) {
    std::size_t end = at;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    if (end == at || std::from_chars(message.data() + at, message.data() + end, value).ec != std::errc{}) return at;
    return end;
  };
  if (pos < message.size() && message[pos] == ':') {
    const std::size_t line_end = number(pos + 1, located.line);
    if (line_end > pos + 1 && line_end < message.size() && message[line_end] == ':') {
      const std::size_t column_end = number(line_end + 1, located.column);
      if (column_end > line_end + 1) pos = column_end;
      else located.line = 0;
    } else {
      located.line = 0;
    }
  }
  if (message.compare(pos, 2, ": ") != 0) return std::nullopt;
  located.rest = message.substr(pos + 2);
  return located;
}

/// Where in the base scenario a problem lies that the checker found at `path` of the composed text
/// (the base plus the sweep's values): the same key or value along the path, matched by the position
/// the message names; else the innermost part of the path written in the base.
SourceLocation base_location(const SweepPlan& plan, const std::string& composed, const std::string& path,
                             const LocatedMessage& located) {
  const auto in_base = detail::locate_in_yaml(plan.base_text, plan.base_file, path);
  if (in_base.empty()) return SourceLocation{plan.base_file, 0, 0};
  const auto in_composed = detail::locate_in_yaml(composed, {}, path);
  const auto same = [&](const SourceLocation& l) { return l.line == located.line && l.column == located.column; };
  for (std::size_t depth = in_composed.size(); depth-- > 0;) {
    if (depth >= in_base.size()) continue;
    if (same(in_composed[depth].key)) return in_base[depth].key;
    if (same(in_composed[depth].value)) return in_base[depth].value;
  }
  return in_base.back().value;
}

std::string error_path(const core::InputError& error) {
  if (const auto* scenario = dynamic_cast<const ScenarioError*>(&error)) return scenario->path();
  return error.key_path();
}

/// Text for a comment line of a member scenario: no line break (it would end the comment) and no
/// other control character (the scenario checker refuses them anywhere in the file).
std::string escape_comment(const std::string& text) { return core::printable(text); }

/// Base scenario with the `set:` values and `values` (one per parameter, or none) applied.
std::string compose(const SweepPlan& plan, const std::vector<std::string>* values, const std::string& header) {
  YAML::Node root = YAML::Load(plan.base_text);
  for (const auto& setting : plan.settings) {
    const auto steps = split_key(setting.key);
    const auto problem = detail::apply_override(root, *steps, setting.value);
    DCTWIN_DEMAND(!problem, "a sweep setting no longer applies to its base scenario");
  }
  if (values != nullptr) {
    for (std::size_t p = 0; p < plan.parameters.size(); ++p) {
      const auto steps = split_key(plan.parameters[p].key);
      const auto problem = detail::apply_override(root, *steps, (*values)[p]);
      DCTWIN_DEMAND(!problem, "a sweep parameter no longer applies to its base scenario");
    }
  }
  YAML::Emitter out;
  out << root;
  DCTWIN_DEMAND(out.good(), out.GetLastError().c_str());
  return header + out.c_str() + "\n";
}

std::string member_id(std::size_t index, std::size_t count) {
  const std::size_t width = std::max<std::size_t>(4, std::to_string(count > 0 ? count - 1 : 0).size());
  std::string id = std::to_string(index);
  if (id.size() < width) id.insert(0, width - id.size(), '0');
  return id;
}

}  // namespace

const char* to_string(SweepDesign design) noexcept {
  switch (design) {
    case SweepDesign::grid:
      return "grid";
    case SweepDesign::list:
      return "list";
    case SweepDesign::latin_hypercube:
      return "latin_hypercube";
    case SweepDesign::monte_carlo:
      return "monte_carlo";
  }
  return "unknown";
}

std::string SweepPlan::design_text() const {
  switch (design) {
    case SweepDesign::grid: {
      std::vector<std::string> sizes;
      for (const auto& p : parameters)
        sizes.push_back(std::to_string(p.distribution == SweepDistribution::spaced ? p.count : p.values.size()));
      return "grid " + join_words(sizes, " x ");
    }
    case SweepDesign::list:
      return "list of " + std::to_string(members.size());
    case SweepDesign::latin_hypercube:
    case SweepDesign::monte_carlo:
      return std::string(to_string(design)) + ", " + std::to_string(samples) + " samples, seed " + std::to_string(seed);
  }
  return {};
}

namespace {

/// The top-level entries of a sweep file and where its document starts.
struct TopEntries {
  const SweepReader& reader;
  std::map<std::string, KeyedNode> entries;
  SourceLocation root_location;

  /// The entry `key`; fails "required key is missing (<detail>)" when absent.
  [[nodiscard]] const KeyedNode& required(const char* key, const std::string& detail) const {
    const auto it = entries.find(key);
    if (it == entries.end()) reader.fail(root_location, key, "required key is missing (" + detail + ")");
    return it->second;
  }
};

/// `base:`: the base scenario's text (read from the file the sweep names, unless `base` gives it)
/// as a YAML tree without duplicate keys.
YAML::Node read_base(SweepPlan& plan, const SweepReader& reader, const TopEntries& top,
                     const std::optional<SweepBase>& base) {
  const KeyedNode& base_entry = top.required("base", "path of the base scenario, relative to the sweep file");
  plan.base_written = reader.scalar(base_entry, "base", "path of the base scenario, relative to the sweep file");
  if (base) {
    plan.base_text = base->text;
    plan.base_file = base->label;
  } else {
    std::filesystem::path path(trimmed(plan.base_written));
    if (path.is_relative()) path = std::filesystem::path(plan.file).parent_path() / path;
    path = path.lexically_normal();
    plan.base_file = path.string();
    std::string failure;
    int error_number = 0;
    auto base_text = read_text(path, failure, error_number);
    if (!base_text)
      throw MissingInputError(format_location(reader.where(base_entry.value.Mark())) + ": base = " +
                              plan.base_written + " (" + failure + " scenario file " + plan.base_file + ": " +
                              std::generic_category().message(error_number) + ")");
    plan.base_text = std::move(*base_text);
  }
  YAML::Node base_root = single_document(plan.base_text, plan.base_file, "scenario");
  if (const auto duplicate = find_duplicate(base_root, {})) {
    const SourceLocation location = where(plan.base_file, duplicate->mark);
    throw SweepError(format_location(location) + ": " + duplicate->path + ": duplicate key (first at line " +
                         std::to_string(duplicate->first_line) + ")",
                     location, duplicate->path);
  }
  return base_root;
}

/// `design:`: a design name, or a mapping {type, samples, seed} (samples and seed for the sampled
/// designs only).
void read_design(SweepPlan& plan, const SweepReader& reader, const TopEntries& top) {
  const KeyedNode& design_entry = top.required("design", "grid, list, latin_hypercube or monte_carlo");
  std::map<std::string, KeyedNode> design;
  std::string type_path = "design";
  KeyedNode type_entry = design_entry;
  SourceLocation design_location = design_entry.key;
  if (design_entry.value.IsMap()) {
    design = reader.entries(design_entry.value, "design", design_keys);
    design_location = reader.where(design_entry.value.Mark());
    type_path = "design.type";
    const auto it = design.find("type");
    if (it == design.end()) reader.fail(design_location, "design.type", "required key is missing (grid, list, latin_hypercube or monte_carlo)");
    type_entry = it->second;
  } else if (design_entry.value.IsSequence()) {
    reader.fail(reader.where(design_entry.value.Mark()), "design",
                "must be a design name or a mapping {type, samples, seed}, not a list");
  }
  const std::string type = trimmed(reader.scalar(type_entry, type_path, "grid, list, latin_hypercube or monte_carlo"));
  if (type == "grid") plan.design = SweepDesign::grid;
  else if (type == "list") plan.design = SweepDesign::list;
  else if (type == "latin_hypercube") plan.design = SweepDesign::latin_hypercube;
  else if (type == "monte_carlo") plan.design = SweepDesign::monte_carlo;
  else reader.fail_value(reader.where(type_entry.value.Mark()), type_path, type_entry.value.Scalar(),
                         "must be one of: " + join_words(design_names));
  const bool sampled = plan.design == SweepDesign::latin_hypercube || plan.design == SweepDesign::monte_carlo;
  for (const char* key : {"samples", "seed"}) {
    const auto it = design.find(key);
    if (!sampled && it != design.end())
      reader.fail(it->second.key, std::string("design.") + key, std::string("not used by a ") + to_string(plan.design) + " design");
  }
  if (sampled) {
    const auto samples = design.find("samples");
    if (samples == design.end()) reader.fail(design_location, "design.samples", "required key is missing (integer)");
    const auto count = reader.integer(samples->second, "design.samples", 1);
    if (static_cast<std::uint64_t>(count) > max_members)
      reader.fail_value(reader.where(samples->second.value.Mark()), "design.samples", samples->second.value.Scalar(),
                        "must be <= " + std::to_string(max_members));
    plan.samples = static_cast<std::size_t>(count);
    if (const auto seed = design.find("seed"); seed != design.end())
      plan.seed = reader.unsigned_integer(seed->second, "design.seed");
  }
}

/// `set:`: the values fixed for every member, each applicable to the base. Returns the line of
/// each key, by canonical key path.
std::map<std::string, int> read_settings(SweepPlan& plan, const SweepReader& reader, const TopEntries& top,
                                         const YAML::Node& base_root) {
  std::map<std::string, int> fixed_lines;
  const auto it = top.entries.find("set");
  if (it == top.entries.end() || it->second.value.IsNull()) return fixed_lines;
  const YAML::Node& set = it->second.value;
  if (!set.IsMap()) reader.fail(reader.where(set.Mark()), "set", std::string("must be a mapping, not ") + node_kind(set));
  for (auto entry = set.begin(); entry != set.end(); ++entry) {
    const SourceLocation key_location = reader.where(entry->first.Mark());
    if (!entry->first.IsScalar()) reader.fail(key_location, "set", "keys must be plain names");
    const auto resolved = reader.scenario_key(entry->first.Scalar(), key_location, "set");
    const auto& steps = resolved.first;
    const ParameterSpec* spec = resolved.second;
    const std::string key = join_key(steps, steps.size());
    const std::string path = "set." + entry->first.Scalar();
    if (auto seen = fixed_lines.find(key); seen != fixed_lines.end())
      reader.fail(key_location, path, "duplicate key (first at line " + std::to_string(seen->second) + ")");
    fixed_lines.emplace(key, key_location.line);
    const KeyedNode node{entry->second, key_location};
    SweepSetting setting;
    setting.key = key;
    setting.value = reader.scalar(node, path, kind_name(spec->kind));
    setting.location = reader.where(entry->second.Mark());
    YAML::Node probe = YAML::Clone(base_root);
    if (const auto problem = detail::apply_override(probe, steps, setting.value)) reader.fail(key_location, path, *problem);
    plan.settings.push_back(std::move(setting));
  }
  return fixed_lines;
}

/// The value of one entry of `parameters:` for the plan's design: a list of values or
/// {min, max, count} (grid, list), a range {min, max} (latin_hypercube), a distribution
/// (monte_carlo).
class ParameterValueReader {
 public:
  ParameterValueReader(const SweepReader& reader, SweepDesign design, SweepParameter& parameter, std::string path)
      : reader_(reader), design_(design), parameter_(parameter), spec_(parameter.spec), path_(std::move(path)) {}

  void read(const YAML::Node& value) {
    if (value.IsNull()) reader_.fail(parameter_.location, path_, "value is missing (values of " + parameter_.key + ")");
    if (design_ == SweepDesign::grid || design_ == SweepDesign::list) {
      read_levels(value);
    } else {
      read_distribution(value);
    }
  }

 private:
  /// Grid and list designs: the values as written, or evenly spaced ones.
  void read_levels(const YAML::Node& value) {
    if (value.IsScalar())
      reader_.fail(reader_.where(value.Mark()), path_,
                   "a " + std::string(to_string(design_)) + " design needs a list of values or {min, max, count}, not a single value");
    if (value.IsSequence()) {
      if (value.size() == 0) reader_.fail(reader_.where(value.Mark()), path_, "the list of values is empty");
      std::size_t index = 0;
      for (const auto& item : value) {
        const std::string item_path = path_ + "[" + std::to_string(index++) + "]";
        const SourceLocation item_location = reader_.where(item.Mark());
        if (item.IsNull()) reader_.fail(item_location, item_path, "value is missing");
        if (!item.IsScalar())
          reader_.fail(item_location, item_path, std::string("must be a single value, not ") + node_kind(item));
        parameter_.values.push_back(scalar_text(item));
        parameter_.value_locations.push_back(item_location);
      }
      parameter_.distribution = SweepDistribution::values;
      return;
    }
    const auto keys = reader_.entries(value, path_, {"min", "max", "count"});
    require_real("evenly spaced values need a real-valued key; list the values instead");
    const SourceLocation at = reader_.where(value.Mark());
    range(keys, at);
    const auto count = keys.find("count");
    if (count == keys.end()) reader_.fail(at, path_ + ".count", "required key is missing (integer)");
    const auto n = reader_.integer(count->second, path_ + ".count", 2);
    if (static_cast<std::uint64_t>(n) > max_members)
      reader_.fail_value(reader_.where(count->second.value.Mark()), path_ + ".count", count->second.value.Scalar(),
                         "must be <= " + std::to_string(max_members));
    parameter_.count = static_cast<std::size_t>(n);
    parameter_.distribution = SweepDistribution::spaced;
  }

  /// Sampled designs: a range, or for Monte Carlo a uniform or normal distribution.
  void read_distribution(const YAML::Node& value) {
    const std::string design_name = to_string(design_);
    const std::string form = design_ == SweepDesign::latin_hypercube
                                 ? "a range {min, max}"
                                 : "a distribution {min, max} or {distribution: normal, mean, std}";
    if (!value.IsMap())
      reader_.fail(reader_.where(value.Mark()), path_, "a " + design_name + " design needs " + form + ", not " + node_kind(value));
    require_real("a " + design_name + " design samples real-valued keys only");
    const SourceLocation at = reader_.where(value.Mark());
    if (design_ == SweepDesign::latin_hypercube) {
      range(reader_.entries(value, path_, {"min", "max"}), at);
      parameter_.distribution = SweepDistribution::uniform;
      return;
    }
    std::string distribution = "uniform";
    if (const auto [node, key_mark] = find_entry(value, "distribution"); node.IsDefined()) {
      const KeyedNode written{node, reader_.where(key_mark)};
      distribution = trimmed(reader_.scalar(written, path_ + ".distribution", "uniform or normal"));
      if (distribution != "uniform" && distribution != "normal")
        reader_.fail_value(reader_.where(node.Mark()), path_ + ".distribution", node.Scalar(), "must be one of: uniform, normal");
    }
    const auto all = reader_.entries(value, path_,
                                     distribution == "uniform" ? std::vector<std::string>{"distribution", "min", "max"}
                                                               : std::vector<std::string>{"distribution", "mean", "std"});
    if (distribution == "uniform") {
      range(all, at);
      parameter_.distribution = SweepDistribution::uniform;
      return;
    }
    require_keys(all, at, {"mean", "std"});
    parameter_.a = reader_.quantity(all.at("mean"), path_ + ".mean", spec_);
    parameter_.b = reader_.quantity(all.at("std"), path_ + ".std", spec_, true);
    if (!(parameter_.b > 0.0))
      reader_.fail_value(reader_.where(all.at("std").value.Mark()), path_ + ".std", all.at("std").value.Scalar(),
                         "must be > 0");
    parameter_.distribution = SweepDistribution::normal;
  }

  void require_real(const std::string& why) const {
    if (spec_.kind != ParameterKind::real)
      reader_.fail(parameter_.location, path_, why + " (" + parameter_.key + " is " + kind_name(spec_.kind) + ")");
  }

  /// Fails "required key is missing (<unit>)" for the first of `names` absent from `keys`.
  void require_keys(const std::map<std::string, KeyedNode>& keys, const SourceLocation& at,
                    std::initializer_list<const char*> names) const {
    for (const char* name : names)
      if (keys.find(name) == keys.end())
        reader_.fail(at, path_ + "." + name,
                     "required key is missing (" +
                         (is_dimensionless(shown_unit(spec_)) ? std::string("dimensionless") : shown_unit(spec_)) + ")");
  }

  void check_bound(const KeyedNode& node, const std::string& bound_path, double si) const {
    if (!in_range(spec_, si))
      reader_.fail_value(reader_.where(node.value.Mark()), bound_path, node.value.Scalar(),
                         range_rule(spec_) + ", the range of " + parameter_.key);
  }

  /// {min, max}: within the key's range, max > min.
  void range(const std::map<std::string, KeyedNode>& keys, const SourceLocation& at) {
    require_keys(keys, at, {"min", "max"});
    const KeyedNode& low = keys.at("min");
    const KeyedNode& high = keys.at("max");
    parameter_.a = reader_.quantity(low, path_ + ".min", spec_);
    parameter_.b = reader_.quantity(high, path_ + ".max", spec_);
    check_bound(low, path_ + ".min", parameter_.a);
    check_bound(high, path_ + ".max", parameter_.b);
    if (!(parameter_.b > parameter_.a))
      reader_.fail_value(reader_.where(high.value.Mark()), path_ + ".max", high.value.Scalar(), "must be > min");
  }

  const SweepReader& reader_;
  SweepDesign design_;
  SweepParameter& parameter_;
  const ParameterSpec& spec_;
  std::string path_;
};

/// `parameters:`: the keys to vary, none also fixed by `set:`, each applicable to the base.
void read_parameters(SweepPlan& plan, const SweepReader& reader, const KeyedNode& parameters_entry,
                     const std::map<std::string, int>& fixed_lines, const YAML::Node& base_root) {
  const YAML::Node& parameters = parameters_entry.value;
  if (parameters.IsNull() || (parameters.IsMap() && parameters.size() == 0))
    reader.fail(parameters_entry.key, "parameters", "must name at least one scenario key");
  if (!parameters.IsMap())
    reader.fail(reader.where(parameters.Mark()), "parameters", std::string("must be a mapping, not ") + node_kind(parameters));
  std::map<std::string, int> varied_lines;
  for (auto entry = parameters.begin(); entry != parameters.end(); ++entry) {
    const SourceLocation key_location = reader.where(entry->first.Mark());
    if (!entry->first.IsScalar()) reader.fail(key_location, "parameters", "keys must be plain names");
    const std::string raw = entry->first.Scalar();
    const std::string path = "parameters." + raw;
    const auto resolved = reader.scenario_key(raw, key_location, "parameters");
    const auto& steps = resolved.first;
    SweepParameter parameter;
    parameter.key = join_key(steps, steps.size());
    parameter.spec = *resolved.second;
    parameter.location = key_location;
    if (auto seen = varied_lines.find(parameter.key); seen != varied_lines.end())
      reader.fail(key_location, path, "duplicate key (first at line " + std::to_string(seen->second) + ")");
    if (auto fixed = fixed_lines.find(parameter.key); fixed != fixed_lines.end())
      reader.fail(key_location, path, "also fixed by set (line " + std::to_string(fixed->second) + ")");
    varied_lines.emplace(parameter.key, key_location.line);
    {
      YAML::Node probe = YAML::Clone(base_root);
      if (const auto problem = detail::apply_override(probe, steps, "0")) reader.fail(key_location, path, *problem);
    }
    const YAML::Node value = entry->second;  // a copy: entry-> yields a temporary pair
    ParameterValueReader(reader, plan.design, parameter, path).read(value);
    plan.parameters.push_back(std::move(parameter));
  }
}

/// The number of values of a grid or list parameter.
std::size_t level_count(const SweepParameter& p) {
  return p.distribution == SweepDistribution::spaced ? p.count : p.values.size();
}

/// Value `k` of a grid or list parameter, into slot `p` of `member`.
void set_level(const SweepParameter& parameter, std::size_t k, SweepMember& member, std::size_t p) {
  if (parameter.distribution == SweepDistribution::values) {
    member.written[p] = parameter.values[k];
    member.si[p] = numeric_value(parameter.spec, member.written[p]);
    member.shown[p] = trimmed(member.written[p]);
    member.where[p] = parameter.value_locations[k];
  } else {
    const double si = k + 1 == parameter.count
                          ? parameter.b
                          : parameter.a + (parameter.b - parameter.a) * static_cast<double>(k) /
                                              static_cast<double>(parameter.count - 1);
    member.si[p] = si;
    member.written[p] = si_text(parameter.spec, si);
    member.shown[p] = display_text(parameter.spec, si);
    member.where[p] = parameter.location;
  }
}

/// How many members the design makes, within max_members and max_member_values.
std::size_t member_count(const SweepPlan& plan, const SweepReader& reader, const KeyedNode& parameters_entry) {
  const std::size_t dims = plan.parameters.size();
  std::size_t count = 0;
  if (plan.design == SweepDesign::grid) {
    count = 1;
    for (const auto& p : plan.parameters) {
      const std::size_t n = level_count(p);
      if (count > max_members / n)
        reader.fail(parameters_entry.key, "parameters", "the grid has more than " + std::to_string(max_members) + " members");
      count *= n;
    }
  } else if (plan.design == SweepDesign::list) {
    count = level_count(plan.parameters.front());
    for (std::size_t p = 1; p < dims; ++p) {
      const std::size_t n = level_count(plan.parameters[p]);
      if (n != count)
        reader.fail(plan.parameters[p].location, "parameters." + plan.parameters[p].key,
                    "a list design pairs the i-th values of every parameter: " + std::to_string(n) + " value" +
                        (n == 1 ? "" : "s") + " here, " + std::to_string(count) + " in parameters." +
                        plan.parameters.front().key);
    }
  } else {
    count = plan.samples;
  }
  if (count > max_member_values / dims)
    reader.fail(parameters_entry.key, "parameters",
                std::to_string(count) + " members x " + std::to_string(dims) + " parameters = " +
                    std::to_string(count * dims) + " values (must be at most " + std::to_string(max_member_values) +
                    ": fewer members or parameters, or several sweeps)");
  return count;
}

/// Latin hypercube and Monte Carlo members, drawn from the plan's seed.
void sample_members(SweepPlan& plan) {
  const std::size_t count = plan.members.size();
  const std::size_t dims = plan.parameters.size();
  Random random(plan.seed);
  const auto assign = [&](std::size_t i, std::size_t p, double si) {
    auto& m = plan.members[i];
    const auto& parameter = plan.parameters[p];
    m.si[p] = si;
    m.written[p] = si_text(parameter.spec, si);
    m.shown[p] = display_text(parameter.spec, si);
    m.where[p] = parameter.location;
  };
  if (plan.design == SweepDesign::latin_hypercube) {
    std::vector<std::size_t> strata(count);
    for (std::size_t p = 0; p < dims; ++p) {
      for (std::size_t k = 0; k < count; ++k) strata[k] = k;
      for (std::size_t k = count; k-- > 1;) std::swap(strata[k], strata[random.index(k + 1)]);
      const auto& parameter = plan.parameters[p];
      for (std::size_t i = 0; i < count; ++i) {
        const double t = (static_cast<double>(strata[i]) + random.open_uniform()) / static_cast<double>(count);
        assign(i, p, parameter.a + (parameter.b - parameter.a) * t);
      }
    }
    return;
  }
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t p = 0; p < dims; ++p) {
      const auto& parameter = plan.parameters[p];
      const double si = parameter.distribution == SweepDistribution::normal
                            ? parameter.a + parameter.b * random.normal()
                            : parameter.a + (parameter.b - parameter.a) * random.uniform();
      assign(i, p, si);
    }
}

/// `count` members: every combination (grid, the last parameter varying fastest), the i-th values
/// together (list) or samples.
void make_members(SweepPlan& plan, std::size_t count) {
  const std::size_t dims = plan.parameters.size();
  plan.members.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    SweepMember& member = plan.members[i];
    member.id = member_id(i, count);
    member.written.resize(dims);
    member.si.resize(dims);
    member.shown.resize(dims);
    member.where.resize(dims);
  }
  if (plan.design == SweepDesign::grid) {
    for (std::size_t i = 0; i < count; ++i) {
      std::size_t rest = i;
      for (std::size_t p = dims; p-- > 0;) {
        const std::size_t n = level_count(plan.parameters[p]);
        set_level(plan.parameters[p], rest % n, plan.members[i], p);
        rest /= n;
      }
    }
  } else if (plan.design == SweepDesign::list) {
    for (std::size_t i = 0; i < count; ++i)
      for (std::size_t p = 0; p < dims; ++p) set_level(plan.parameters[p], i, plan.members[i], p);
  } else {
    sample_members(plan);
  }
}

/// The base with the fixed values must pass the scenario checker at every key the sweep does not
/// vary; a problem there is a problem of the sweep, not of one member.
void check_base_with_settings(const SweepPlan& plan, const SectionSchema& schema) {
  const std::string check_label = plan.file + " (base scenario)";
  try {
    (void)parse_scenario(compose(plan, nullptr, {}), check_label, schema);
  } catch (const ScenarioError& error) {
    const std::string& path = error.path();
    const bool varied = std::any_of(plan.parameters.begin(), plan.parameters.end(),
                                    [&](const SweepParameter& p) { return p.key == path; });
    if (!varied) {
      const std::string composed = compose(plan, nullptr, {});
      const auto located = strip_location(error.what(), check_label).value_or(LocatedMessage{0, 0, error.what()});
      SourceLocation location = base_location(plan, composed, path, located);
      for (const auto& setting : plan.settings)
        if (setting.key == path) location = setting.location;
      throw SweepError(format_location(location) + ": " + located.rest, location, path);
    }
  }
}

}  // namespace

SweepPlan parse_sweep(std::string_view text, std::string file_label, const SectionSchema& schema,
                      const std::optional<SweepBase>& base) {
  SweepPlan plan;
  plan.file = std::move(file_label);
  plan.source_text = std::string(text);
  const SweepReader reader(plan.file, schema);

  const YAML::Node root = single_document(plan.source_text, plan.file, "sweep");
  const TopEntries top{reader, reader.entries(root, {}, top_keys), reader.where(root.Mark())};
  plan.name = reader.scalar(top.required("name", "text"), "name", "text");
  if (auto it = top.entries.find("description"); it != top.entries.end())
    plan.description = reader.scalar(it->second, "description", "text");

  const YAML::Node base_root = read_base(plan, reader, top, base);
  read_design(plan, reader, top);
  const auto fixed_lines = read_settings(plan, reader, top, base_root);
  const KeyedNode& parameters_entry = top.required("parameters", "scenario keys to vary");
  read_parameters(plan, reader, parameters_entry, fixed_lines, base_root);
  make_members(plan, member_count(plan, reader, parameters_entry));
  check_base_with_settings(plan, schema);
  return plan;
}

SweepPlan load_sweep(const std::filesystem::path& file, const SectionSchema& schema) {
  std::string failure;
  int error_number = 0;
  const auto text = read_text(file, failure, error_number);
  if (!text)
    throw MissingInputError(file.string() + ": " + failure + " sweep file (" +
                            std::generic_category().message(error_number) + ")");
  return parse_sweep(*text, file.string(), schema);
}

std::string member_label(const SweepPlan& plan, std::size_t index) {
  return plan.base_file + " [sweep member " + plan.members.at(index).id + "]";
}

std::string member_scenario_text(const SweepPlan& plan, std::size_t index) {
  const SweepMember& member = plan.members.at(index);
  std::string header = "# dctwin sweep '" + escape_comment(plan.name) + "', member " + member.id + " (" +
                       std::to_string(index + 1) + " of " + std::to_string(plan.members.size()) + ")\n";
  for (std::size_t p = 0; p < plan.parameters.size(); ++p)
    header += "#   " + plan.parameters[p].key + " = " + escape_comment(member.shown[p]) + "\n";
  return compose(plan, &member.written, header);
}

std::string describe_member_error(const SweepPlan& plan, std::size_t index, const core::InputError& error) {
  const SweepMember& member = plan.members.at(index);
  const std::string message = error.what();
  const auto located = strip_location(message, member_label(plan, index));
  if (!located) return plan.file + ": member " + member.id + ": " + message;
  const std::string path = error_path(error);
  SourceLocation location{plan.file, 0, 0};
  bool found = false;
  for (std::size_t p = 0; p < plan.parameters.size() && !found && !path.empty(); ++p)
    if (plan.parameters[p].key == path) {
      location = member.where[p];
      found = true;
    }
  for (std::size_t s = 0; s < plan.settings.size() && !found && !path.empty(); ++s)
    if (plan.settings[s].key == path) {
      location = plan.settings[s].location;
      found = true;
    }
  if (!found && !path.empty()) location = base_location(plan, member_scenario_text(plan, index), path, *located);
  return format_location(location) + ": member " + member.id + ": " + located->rest;
}

ScenarioDocument load_sweep_member(const SweepPlan& plan, std::size_t index, const SectionSchema& schema) {
  try {
    return parse_scenario(member_scenario_text(plan, index), member_label(plan, index), schema);
  } catch (const core::InputError& error) {
    throw core::InputError(describe_member_error(plan, index, error));
  }
}

}  // namespace dctwin::io
