// Display units: reports store SI values; the GUI shows some quantities in the units facility
// engineers read (degC for temperatures, kPa for pressures, L/min for flows, kW / MW for large
// powers). A display unit is an affine map of the SI value: display = si * scale + offset, its
// factors taken from io's unit conversion (udunits2, dctwin/io/units.hpp).
#pragma once

#include <string>

namespace dctwin::gui {

struct DisplayUnit {
  std::string unit = "1";  ///< shown in legends and axis titles ("degC", "kW", "1")
  double scale = 1.0;
  double offset = 0.0;

  [[nodiscard]] double from_si(double si) const { return si * scale + offset; }
  /// A difference of two SI values in this unit (no offset: 1 K of difference is 1 degC).
  [[nodiscard]] double difference_from_si(double si_difference) const { return si_difference * scale; }
};

/// The display unit of a quantity stored in `si_unit` (udunits2 syntax, as in the report's `units`
/// attribute). `typical_magnitude` (SI, e.g. the largest absolute value) chooses between W, kW and
/// MW. Units without a preferred display unit are shown as stored.
[[nodiscard]] DisplayUnit display_unit_for(const std::string& si_unit, double typical_magnitude = 0.0);

/// "GPU junction temperature [degC]"; a dimensionless unit ("1") is left out.
[[nodiscard]] std::string title_with_unit(const std::string& name, const std::string& unit);

/// The unit of a time axis for a run of `duration` seconds: "s", "min" or "h", with its divisor.
struct TimeUnit {
  std::string unit = "s";
  double seconds = 1.0;
};
[[nodiscard]] TimeUnit time_unit_for(double duration);

/// "t = 300 s", "t = 12.5 min", "t = 3.25 h" (the unit chosen for the run's `duration`).
[[nodiscard]] std::string format_time(double seconds, double duration);
/// A value with 4 significant digits and its unit: "71.38 degC", "12 GPUs" ("1" is left out).
[[nodiscard]] std::string format_value(double value, const std::string& unit);
/// An SI value in the display unit its magnitude gets (display_unit_for): "18 degC", "3.2 MW".
[[nodiscard]] std::string format_si(double si, const std::string& si_unit);

}  // namespace dctwin::gui
