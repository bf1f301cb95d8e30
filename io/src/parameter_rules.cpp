#include "parameter_rules.hpp"

#include <cmath>

#include "dctwin/io/units.hpp"

namespace dctwin::io::rules {

using solver::ParameterKind;
using solver::ParameterSpec;

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

}  // namespace dctwin::io::rules
