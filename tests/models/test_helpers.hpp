// Helpers shared by the model tests: the message of an expected InputError, and a resolved
// section holding a parameter table's defaults (what io/ builds from a scenario that writes none).
#pragma once

#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"

namespace model_test {

/// The message of the core::InputError thrown by `f`, or "" if nothing was thrown.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const dctwin::core::InputError& error) {
    return error.what();
  }
  return "";
}

/// A resolved section holding every parameter of `table` at its default.
inline dctwin::core::ParameterTree defaults_tree(const dctwin::core::ParameterTable& table,
                                                   const std::string& path) {
  dctwin::core::ParameterTree tree;
  tree.path = path;
  for (const auto& spec : table) {
    dctwin::core::ParameterValue value;
    value.from_default = true;
    if (spec.default_value) value.number = *spec.default_value;
    if (spec.default_text) value.text = *spec.default_text;
    tree.values[spec.name] = value;
  }
  return tree;
}

}  // namespace model_test
