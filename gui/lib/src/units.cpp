#include "dctwin/gui/units.hpp"

#include <cmath>
#include <cstdio>

namespace dctwin::gui {

DisplayUnit display_unit_for(const std::string& si_unit, double typical_magnitude) {
  const double magnitude = std::fabs(typical_magnitude);
  if (si_unit == "K") return {"degC", 1.0, -273.15};
  if (si_unit == "Pa") return {"kPa", 1e-3, 0.0};
  if (si_unit == "m3/s" || si_unit == "m3 s-1") return {"L/min", 60000.0, 0.0};
  if (si_unit == "W") {
    if (magnitude >= 1e6) return {"MW", 1e-6, 0.0};
    if (magnitude >= 1e4) return {"kW", 1e-3, 0.0};
    return {"W", 1.0, 0.0};
  }
  if (si_unit == "J") {
    if (magnitude >= 3.6e9) return {"MWh", 1.0 / 3.6e9, 0.0};
    if (magnitude >= 3.6e6) return {"kWh", 1.0 / 3.6e6, 0.0};
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

std::string format_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "no data";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return unit.empty() || unit == "1" ? std::string(buffer) : std::string(buffer) + " " + unit;
}

}  // namespace dctwin::gui
