#include "parameter_rules.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include "dctwin/io/units.hpp"

namespace dctwin::io::rules {

using core::ParameterKind;
using core::ParameterSpec;
using core::SourceLocation;

const std::string& shown_unit(const ParameterSpec& spec) {
  return spec.display_unit.empty() ? spec.unit : spec.display_unit;
}

bool is_dimensionless(const std::string& unit) { return unit.empty() || unit == "1"; }

std::pair<std::string, bool> bound_text(const ParameterSpec& spec, double si_bound) {
  if (spec.kind != ParameterKind::real) return {format_number(si_bound), false};
  double shown = si_bound;
  try {
    shown = convert(si_bound, spec.unit, shown_unit(spec));
  } catch (const UnitError&) {
    shown = si_bound;
  }
  if (std::abs(shown) < 1e-300) return {"0", false};
  return {format_number(shown), !is_dimensionless(shown_unit(spec))};
}

std::string range_rule(const ParameterSpec& spec) {
  const bool has_min = std::isfinite(spec.min);
  const bool has_max = std::isfinite(spec.max);
  std::string unit = shown_unit(spec);
  try {
    (void)convert(0.0, spec.unit, unit);
  } catch (const UnitError&) {
    unit = spec.unit;
  }
  if (has_min && has_max) {
    const auto low = bound_text(spec, spec.min);
    const auto high = bound_text(spec, spec.max);
    std::string rule = "must be in ";
    rule += spec.min_inclusive ? "[" : "(";
    rule += low.first + ", " + high.first;
    rule += spec.max_inclusive ? "]" : ")";
    if (low.second || high.second) rule += " " + unit;
    return rule;
  }
  const bool lower = has_min;
  const auto bound = bound_text(spec, lower ? spec.min : spec.max);
  std::string rule = "must be ";
  rule += lower ? (spec.min_inclusive ? ">= " : "> ") : (spec.max_inclusive ? "<= " : "< ");
  rule += bound.first;
  if (bound.second) rule += " " + unit;
  return rule;
}

bool in_range(const ParameterSpec& spec, double value) {
  const bool above = value > spec.min || (spec.min_inclusive && value == spec.min);
  const bool below = value < spec.max || (spec.max_inclusive && value == spec.max);
  return above && below;
}

std::string number_rule(const ParameterSpec& spec) {
  if (is_dimensionless(spec.unit) && spec.display_unit.empty()) return "must be a number";
  return "must be a number, optionally with a unit convertible to " + shown_unit(spec);
}

std::string format_location(const SourceLocation& location) {
  if (location.line <= 0) return location.file;
  return location.file + ":" + std::to_string(location.line) + ":" + std::to_string(location.column);
}

std::string join_words(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

/// The problem with a whole number 0 to 2^64-1 written as `text` (decimal digits, an optional
/// leading `+`), as a rule for `PATH = VALUE (RULE)`; nullopt when it is one. It is read as text,
/// never through a double, so every value up to 18446744073709551615 is exact.
std::optional<std::string> unsigned_problem(std::string_view text, std::uint64_t& value) {
  const std::string kept = trimmed(text);
  std::string_view digits = kept;
  const bool plus = !digits.empty() && digits.front() == '+';
  if (plus) digits.remove_prefix(1);
  const bool negative = !plus && !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::string("must be an integer");
  if (negative) {
    if (digits.find_first_not_of('0') == std::string_view::npos) {  // -0
      value = 0;
      return std::nullopt;
    }
    return std::string("must be >= 0");
  }
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec == std::errc::result_out_of_range) return std::string("must be <= 18446744073709551615");
  if (result.ec != std::errc{} || result.ptr != digits.data() + digits.size()) return std::string("must be an integer");
  return std::nullopt;
}

std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0U : 1U);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string unknown_key_problem(const std::vector<std::string>& keys, const std::string& name,
                                const char* what) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const auto& key : keys) {
    const std::size_t distance = levenshtein(name, key);
    if (distance <= limit && distance < name.size() && (best == nullptr || distance < best_distance)) {
      best = &key;
      best_distance = distance;
    }
  }
  if (best != nullptr) return std::string(what) + " (did you mean '" + *best + "'?)";
  if (!keys.empty() && keys.size() <= 8) return std::string(what) + " (valid keys: " + join_words(keys) + ")";
  return what;
}

std::optional<std::int64_t> parse_integer_literal(const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
    if (!digits.empty() && digits.front() == '-') return std::nullopt;
  }
  if (digits.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (result.ec != std::errc{} || result.ptr != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace dctwin::io::rules
