// Physical units: quantities written as text ("32 degC", "1.2 L/min", "35 kW") converted to SI.
//
// Conversions go through the udunits2 unit database (the default XML database, loaded once on first
// use). Unit strings use udunits2 syntax: `degC`, `K`, `W`, `kW`, `L/min`, `m3/s`, `m3/h`, `kPa`,
// `bar`, `%`, `s`, `min`, `h`, `d`, `K/W`; UTF-8 spellings such as `°C` and `m³/s` are accepted
// too. The dimensionless unit is `1`.
//
// Rules for a quantity written as text:
//   - it is a decimal number (optional sign, optional fraction, optional exponent: `-3`, `.5`,
//     `1e-3`), optionally followed by a unit (`32 degC`, `1.2 L/min`; the space may be omitted);
//   - text after the number that itself starts like a number (`1.2.3`, `5 2`) makes the whole
//     thing not a number, except a reciprocal unit such as `1/s`;
//   - a bare number (`600`) is in the target SI unit;
//   - `nan`, `inf`, `.inf` and numbers too large for a double are rejected as not finite;
//   - units with an offset convert exactly (`32 degC` -> 305.15 K).
//
// All functions are thread-safe (udunits2 itself is not: every call into it is serialised).
#pragma once

#include <string>
#include <string_view>

#include "dctwin/core/input_error.hpp"


namespace dctwin::io {

/// A problem with a quantity, a unit or a duration written by the user. `what()` is a short
/// reason meant to be placed inside a longer message, for example `unknown unit 'L/mn'`.
class UnitError : public core::InputError {
 public:
  enum class Reason {
    not_a_number,     ///< `'abc' is not a number`
    not_finite,       ///< `'nan' is not a finite number`
    unknown_unit,     ///< `unknown unit 'L/mn'`
    not_convertible,  ///< `unit 'kW' is not convertible to 'm3/s'`
  };
  UnitError(Reason reason, const std::string& message)
      : core::InputError(message), reason_(reason) {}
  [[nodiscard]] Reason reason() const noexcept { return reason_; }

 private:
  Reason reason_;
};

/// A number as written and the unit text that follows it (empty when none was written).
struct Quantity {
  double number = 0.0;
  std::string unit;
};

/// Splits `text` (surrounding blanks ignored) into its number and unit text; the unit is not
/// looked up here. Throws UnitError (`not_a_number`: `'abc' is not a number`, or `not_finite`:
/// `'inf' is not a finite number`).
[[nodiscard]] Quantity parse_quantity(std::string_view text);

/// Converts `value` from `from_unit` to `to_unit`. Throws UnitError `unknown unit 'X'` (either
/// unit) or `unit 'A' is not convertible to 'B'`.
[[nodiscard]] double convert(double value, std::string_view from_unit, std::string_view to_unit);

/// The quantity in `si_unit`: a bare number is taken as already in `si_unit`; otherwise its unit is
/// converted. Throws UnitError as `convert`, and `not_finite` if the result overflows.
[[nodiscard]] double to_si(const Quantity& quantity, std::string_view si_unit);

/// `parse_quantity` followed by `to_si`.
[[nodiscard]] double parse_to_si(std::string_view text, std::string_view si_unit);

/// True if udunits2 knows `unit`.
[[nodiscard]] bool is_known_unit(std::string_view unit);

/// True if both units are known and a value in one can be converted to the other.
[[nodiscard]] bool are_convertible(std::string_view from_unit, std::string_view to_unit);

/// A duration written on the command line, in seconds: `600` (seconds), `30 s`, `10 min`, `1.5 h`,
/// `24 h`, `2 d`. Must be finite and >= 0. Throws core::InputError with messages of the form
/// `invalid duration '10 mn' (unknown unit 'mn')`, `invalid duration '5 kg' (unit 'kg' is not
/// convertible to 's')`, `invalid duration 'soon' (must be a number of seconds or a number with a
/// time unit, such as '10 min')`, `invalid duration '-5 s' (must be >= 0)`.
[[nodiscard]] double parse_duration(std::string_view text);

/// `si_value` (in `si_unit`) shown in `display_unit` (or in `si_unit` if `display_unit` is empty):
/// the number as `format_number` writes it, a space and the unit; no unit for the dimensionless
/// unit `1`. Example: `format_quantity(305.15, "K", "degC")` is `32 degC`.
[[nodiscard]] std::string format_quantity(double si_value, const std::string& si_unit,
                                          const std::string& display_unit);

/// The shortest `%g`-style text that keeps `value` to 10 significant digits, which hides
/// conversion noise: 32.000000000000028 -> `32`, 1.6666666666666667e-05 -> `1.666666667e-05`,
/// 1e6 -> `1000000`, 0.6 -> `0.6`.
[[nodiscard]] std::string format_number(double value);

/// The shortest text that reads back as exactly `value` (round trip), for files that are read
/// again: 0.1 + 0.2 is `0.30000000000000004`. Plain notation for decimal exponents -4 to 16
/// (`100000`, `0.001`), scientific otherwise (`2e-05`, `1e+20`).
[[nodiscard]] std::string format_number_exact(double value);

}  // namespace dctwin::io
