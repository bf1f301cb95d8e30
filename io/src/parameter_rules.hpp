// How parameter rules and file problems are worded in messages, shared by the scenario checker
// and sweeps, so a value from a sweep file is judged and reported exactly like one in a scenario.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::io::rules {

/// The unit a parameter is shown in: its display unit, else its SI unit.
const std::string& shown_unit(const core::ParameterSpec& spec);
bool is_dimensionless(const std::string& unit);
/// A bound (SI) in the parameter's shown unit, and whether a unit must follow it.
std::pair<std::string, bool> bound_text(const core::ParameterSpec& spec, double si_bound);
/// "must be >= 0", "must be in (0, 1.2]", "must be <= 80 degC".
std::string range_rule(const core::ParameterSpec& spec);
bool in_range(const core::ParameterSpec& spec, double value);
/// "must be a number" or "must be a number, optionally with a unit convertible to kW".
std::string number_rule(const core::ParameterSpec& spec);

// ---- text shared by the file checkers (scenario, sweep) ----------------------------------------

/// "file:line:col", or just "file" when the line is unknown.
std::string format_location(const core::SourceLocation& location);
std::string join_words(const std::vector<std::string>& words, const char* separator = ", ");
/// Without leading and trailing blanks.
std::string trimmed(std::string_view text);
/// The rule a whole number 0 to 2^64-1 (a seed) written as `text` breaks: "must be an integer",
/// "must be >= 0" or "must be <= 18446744073709551615"; nullopt, with `value` set, when it is one.
/// Read as text (decimal digits, an optional `+`, blanks around), never through a double.
std::optional<std::string> unsigned_problem(std::string_view text, std::uint64_t& value);
/// A whole number written as `text` exactly: decimal digits with an optional sign (`+5`, `-5`;
/// not `+-5`), nothing around them; nullopt otherwise or when it does not fit in 64 bits.
std::optional<std::int64_t> parse_integer_literal(const std::string& text);
/// Edit distance, for did-you-mean suggestions.
std::size_t levenshtein(const std::string& a, const std::string& b);
/// "unknown key (did you mean 'gpu_count'?)" when a key is within max(2, len/3) edits,
/// "unknown key (valid keys: ...)" when there are at most 8, else `what` alone.
std::string unknown_key_problem(const std::vector<std::string>& keys, const std::string& name,
                                const char* what = "unknown key");

}  // namespace dctwin::io::rules
