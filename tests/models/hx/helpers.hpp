// Small helpers shared by the hx tests.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "../test_helpers.hpp"
#include "dctwin/core/parameters.hpp"

namespace hx_test {

constexpr double kelvin = 273.15;

/// |a - b| <= tolerance * max(|a|, |b|).
inline bool relative_equal(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

using model_test::defaults_tree;
using model_test::input_error;

}  // namespace hx_test
