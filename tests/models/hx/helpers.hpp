// Small helpers shared by the hx tests.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "dctwin/solver/parameters.hpp"

namespace hx_test {

constexpr double kelvin = 273.15;

/// |a - b| <= tolerance * max(|a|, |b|).
inline bool relative_equal(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max(std::fabs(a), std::fabs(b));
}

/// The message of the solver::InputError thrown by `f`, or "" if nothing was thrown.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const dctwin::solver::InputError& error) {
    return error.what();
  }
  return "";
}

/// A resolved section holding every parameter of `table` at its default.
inline dctwin::solver::ParameterTree defaults_tree(const dctwin::solver::ParameterTable& table,
                                                   const std::string& path) {
  dctwin::solver::ParameterTree tree;
  tree.path = path;
  for (const auto& spec : table) {
    dctwin::solver::ParameterValue value;
    value.from_default = true;
    if (spec.default_value) value.number = *spec.default_value;
    if (spec.default_text) value.text = *spec.default_text;
    tree.values[spec.name] = value;
  }
  return tree;
}

}  // namespace hx_test
