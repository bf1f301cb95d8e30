#include "dctwin/models/parameter_check.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "dctwin/solver/parameters.hpp"

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
  throw solver::InputError(path(key) + " = " + value_text + " (must be " + rule + ")", path(key));
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

void ParameterCheck::fail(const std::string& sentence) const {
  throw solver::InputError(section_ + ": " + sentence, section_);
}

}  // namespace dctwin::models
