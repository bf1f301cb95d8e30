// Number formatting for the error messages of the air-side and weather models (private header).
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::detail {

inline constexpr double kelvin_offset = 273.15;

/// Up to 3 decimals by default (dctwin/models/parameter_check.hpp).
using models::format_decimals;

/// A temperature given in K written in degC with up to 3 decimals: 303.15 -> "30 degC". A
/// non-finite value is written in K ("nan K"), since there is nothing to convert.
inline std::string format_celsius(double kelvin) {
  if (!std::isfinite(kelvin)) return format_decimals(kelvin) + " K";
  return format_decimals(kelvin - kelvin_offset) + " degC";
}

/// Up to 4 significant digits (`%.4g`): 0.027312 -> "0.02731".
inline std::string format_significant(double value, int digits = 4) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
  return buffer.data();
}

}  // namespace dctwin::models::detail
