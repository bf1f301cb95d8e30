#include "dctwin/models/parameter_check.hpp"
#include "dctwin/models/parameter_declarations.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"

namespace dctwin::models {

namespace {

constexpr double kelvin_offset = 273.15;
constexpr int significant_digits = 6;

/// "value unit" or "value" for a dimensionless quantity.
std::string with_unit(double value, const char* unit) {
  std::string text = format_number(value);
  if (unit != nullptr && unit[0] != '\0') {
    text += ' ';
    text += unit;
  }
  return text;
}

std::string unit_suffix(const char* unit) {
  return unit != nullptr && unit[0] != '\0' ? std::string(" ") + unit : std::string();
}

/// A bound as io/ prints it in scenario messages: a zero bound without its unit ("> 0").
std::string bound_text(double bound, const char* unit) { return bound == 0.0 ? "0" : with_unit(bound, unit); }

}  // namespace

std::string format_decimals(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0.0 ? "inf" : "-inf";
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  std::string text(buffer.data());
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0.0 ? "inf" : "-inf";
  const double magnitude = std::fabs(value);
  if (magnitude != 0.0 && (magnitude < 1e-4 || magnitude >= 1e12)) {
    std::array<char, 64> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.*g", significant_digits, value);
    return buffer.data();
  }
  // Decimals so that six significant digits are shown: 1234.56, 3.88889, 0.000123457, 2000000.
  int decimals = significant_digits - 1;
  if (magnitude != 0.0) decimals -= static_cast<int>(std::floor(std::log10(magnitude)));
  if (decimals < 0) decimals = 0;
  return format_decimals(value, decimals);
}

std::string format_celsius(double kelvin) { return format_number(kelvin - kelvin_offset) + " degC"; }

std::string ParameterCheck::path(const char* key) const { return section_ + "." + key; }

void ParameterCheck::reject(const char* key, const std::string& value_text, const std::string& rule) const {
  throw core::InputError(path(key) + " = " + value_text + " (must be " + rule + ")", path(key));
}

void ParameterCheck::greater_than(const char* key, double value, double bound, const char* unit) const {
  if (!(value > bound)) reject(key, with_unit(value, unit), "> " + bound_text(bound, unit));
}

void ParameterCheck::at_least(const char* key, double value, double bound, const char* unit) const {
  if (!(value >= bound)) reject(key, with_unit(value, unit), ">= " + bound_text(bound, unit));
}

void ParameterCheck::at_most(const char* key, double value, double bound, const char* unit) const {
  if (!(value <= bound)) reject(key, with_unit(value, unit), "<= " + bound_text(bound, unit));
}

void ParameterCheck::less_than(const char* key, double value, double bound, const char* unit) const {
  if (!(value < bound)) reject(key, with_unit(value, unit), "< " + bound_text(bound, unit));
}

void ParameterCheck::in_range(const char* key, double value, double low, double high, const char* unit) const {
  if (!(value >= low && value <= high))
    reject(key, with_unit(value, unit),
           "in [" + format_number(low) + ", " + format_number(high) + "]" +
               (low == 0.0 && high == 0.0 ? std::string() : unit_suffix(unit)));
}

void ParameterCheck::in_half_open_range(const char* key, double value, double low, double high,
                                        const char* unit) const {
  if (!(value > low && value <= high))
    reject(key, with_unit(value, unit),
           "in (" + format_number(low) + ", " + format_number(high) + "]" +
               (low == 0.0 && high == 0.0 ? std::string() : unit_suffix(unit)));
}

void ParameterCheck::temperature_in_range(const char* key, double value, double low, double high) const {
  if (!(value >= low && value <= high))
    reject(key, format_celsius(value),
           "in [" + format_number(low - kelvin_offset) + ", " + format_number(high - kelvin_offset) + "] degC");
}

namespace {

/// The unit a declared number is printed with in models' messages: its SI unit, none for a count
/// or a dimensionless value.
const char* message_unit(const core::ParameterSpec& spec) {
  if (spec.kind != core::ParameterKind::real || spec.unit == "1") return "";
  return spec.unit.c_str();
}

bool shown_in_celsius(const core::ParameterSpec& spec) {
  return spec.kind == core::ParameterKind::real && spec.unit == "K" && spec.display_unit == "degC";
}

}  // namespace

void ParameterCheck::declared(const core::ParameterSpec& spec, double value) const {
  const char* key = spec.name.c_str();
  const bool has_min = std::isfinite(spec.min);
  const bool has_max = std::isfinite(spec.max);
  const bool above_min = !has_min || value > spec.min || (spec.min_inclusive && value == spec.min);
  const bool below_max = !has_max || value < spec.max || (spec.max_inclusive && value == spec.max);
  if (has_min && has_max && !(above_min && below_max)) {
    const bool celsius = shown_in_celsius(spec);
    const double offset = celsius ? kelvin_offset : 0.0;
    const char* unit = celsius ? "degC" : message_unit(spec);
    std::string rule = spec.min_inclusive ? "in [" : "in (";
    rule += format_number(spec.min - offset) + ", " + format_number(spec.max - offset);
    rule += spec.max_inclusive ? "]" : ")";
    if (!(spec.min - offset == 0.0 && spec.max - offset == 0.0)) rule += unit_suffix(unit);
    reject(key, celsius ? format_celsius(value) : with_unit(value, unit), rule);
  }
  if (shown_in_celsius(spec) && !(above_min && below_max)) {
    const double bound = above_min ? spec.max : spec.min;
    const char* relation = above_min ? (spec.max_inclusive ? "<= " : "< ") : (spec.min_inclusive ? ">= " : "> ");
    reject(key, format_celsius(value), relation + format_celsius(bound));
  }
  const char* unit = message_unit(spec);
  if (!above_min) {
    if (spec.min_inclusive) at_least(key, value, spec.min, unit);
    else greater_than(key, value, spec.min, unit);
  }
  if (!below_max) {
    if (spec.max_inclusive) at_most(key, value, spec.max, unit);
    else less_than(key, value, spec.max, unit);
  }
  if (!std::isfinite(value)) fail(spec.name + " must be a finite number");
}

void ParameterCheck::declared_choice(const core::ParameterSpec& spec, const std::string& value) const {
  for (const std::string& choice : spec.choices)
    if (value == choice) return;
  std::string rule;
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (i > 0) rule += i + 1 == spec.choices.size() ? " or " : ", ";
    rule += spec.choices[i];
  }
  reject(spec.name.c_str(), value, rule);
}

void ParameterCheck::fail(const std::string& sentence) const {
  throw core::InputError(section_ + ": " + sentence, section_);
}

std::string section_path(const core::ParameterTree& section, const char* fallback) {
  return section.path.empty() ? std::string(fallback) : section.path;
}

}  // namespace dctwin::models
