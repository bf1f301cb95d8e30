// How parameter rules are worded in messages, shared by the scenario checker and sweeps, so a
// value from a sweep file is judged and reported exactly like one in a scenario file.
#pragma once

#include <string>
#include <utility>

#include "dctwin/solver/parameters.hpp"

namespace dctwin::io::rules {

/// The unit a parameter is shown in: its display unit, else its SI unit.
const std::string& shown_unit(const solver::ParameterSpec& spec);
bool is_dimensionless(const std::string& unit);
/// A bound (SI) in the parameter's shown unit, and whether a unit must follow it.
std::pair<std::string, bool> bound_text(const solver::ParameterSpec& spec, double si_bound);
/// "must be >= 0", "must be in (0, 1.2]", "must be <= 80 degC".
std::string range_rule(const solver::ParameterSpec& spec);
bool in_range(const solver::ParameterSpec& spec, double value);
/// "must be a number" or "must be a number, optionally with a unit convertible to kW".
std::string number_rule(const solver::ParameterSpec& spec);

}  // namespace dctwin::io::rules
