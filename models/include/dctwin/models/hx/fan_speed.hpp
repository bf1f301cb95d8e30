// The fan speed at which an air-side heat rejecter (cooling tower, dry cooler) brings its leaving
// fluid down to a set point.
//
// For a leaving temperature T_out(s) that falls monotonically with the fan speed s, the lowest s in
// [s_min, 1] with T_out(s) <= T_set: s_min when even that meets the set point, 1 when no speed
// does (the fan then runs flat out and the set point is missed), otherwise bisection on the
// bracket [s_min, 1] to a width of 1e-12 (at most 200 halvings), returning the bracket's upper
// end, which always meets the set point.
#pragma once

namespace dctwin::models::hx {

template <class LeavingTemperature>
[[nodiscard]] double lowest_fan_speed_meeting(double minimum_speed, double set_point,
                                              const LeavingTemperature& leaving_temperature) {
  double low = minimum_speed;
  double high = 1.0;
  if (leaving_temperature(low) <= set_point) return low;
  if (leaving_temperature(high) > set_point) return high;
  for (int i = 0; i < 200 && high - low > 1e-12; ++i) {
    const double middle = 0.5 * (low + high);
    if (leaving_temperature(middle) <= set_point) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return high;
}

}  // namespace dctwin::models::hx
