#include "dctwin/gui/units.hpp"

#include <cmath>
#include <cstdio>

#include "dctwin/io/units.hpp"

namespace dctwin::gui {
namespace {

/// `si_unit` shown as `label`, which udunits2 spells `expression` ("MWh" is "MW.h"): the affine
/// map display = si * scale + offset from two points of io's unit conversion.
DisplayUnit shown_as(const std::string& label, const std::string& expression, const std::string& si_unit) {
  const double offset = io::convert(0.0, si_unit, expression);
  return {label, io::convert(1.0, si_unit, expression) - offset, offset};
}

}  // namespace

DisplayUnit display_unit_for(const std::string& si_unit, double typical_magnitude) {
  const double magnitude = std::fabs(typical_magnitude);
  if (si_unit == "K") return shown_as("degC", "degC", si_unit);
  if (si_unit == "Pa") return shown_as("kPa", "kPa", si_unit);
  if (si_unit == "m3/s" || si_unit == "m3 s-1") return shown_as("L/min", "L/min", si_unit);
  if (si_unit == "W") {
    if (magnitude >= 1e6) return shown_as("MW", "MW", si_unit);
    if (magnitude >= 1e4) return shown_as("kW", "kW", si_unit);
    return {"W", 1.0, 0.0};
  }
  if (si_unit == "J") {
    if (magnitude >= 3.6e9) return shown_as("MWh", "MW.h", si_unit);
    if (magnitude >= 3.6e6) return shown_as("kWh", "kW.h", si_unit);
    return {"J", 1.0, 0.0};
  }
  if (si_unit.empty()) return {"1", 1.0, 0.0};
  return {si_unit, 1.0, 0.0};
}

std::string title_with_unit(const std::string& name, const std::string& unit) {
  if (unit.empty() || unit == "1") return name;
  return name + " [" + unit + "]";
}

TimeUnit time_unit_for(double duration) {
  if (duration > 7200.0) return {"h", 3600.0};
  if (duration > 600.0) return {"min", 60.0};
  return {"s", 1.0};
}

std::string format_time(double seconds, double duration) {
  const TimeUnit unit = time_unit_for(duration);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "t = %.4g %s", seconds / unit.seconds, unit.unit.c_str());
  return buffer;
}

std::string format_si(double si, const std::string& si_unit) {
  const DisplayUnit unit = display_unit_for(si_unit, std::fabs(si));
  return format_value(unit.from_si(si), unit.unit);
}

std::string format_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "no data";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return unit.empty() || unit == "1" ? std::string(buffer) : std::string(buffer) + " " + unit;
}

}  // namespace dctwin::gui
