// Parameter checks and number formatting shared by the models of every domain (heat exchangers and
// plant, electrical feed, workload), beneath all of them.
//
// A model validates its parameters when it is constructed, so that a model built directly
// in C++ (not only one read from a scenario, whose ranges io/ checks from the parameter tables)
// refuses values that make no physical sense. A refused value throws core::InputError with
//
//   "<section>.<key> = <value> <unit> (must be > 0)"          key_path() = "<section>.<key>"
//   "<section>.<key> = <value> <unit> (must be >= 1 s)"       (a zero bound is printed without
//                                                             its unit, as io/ does)
//
// for a single parameter (temperatures are printed in degC, everything else in its SI unit), and
//
//   "<section>: <sentence>"                                  key_path() = "<section>"
//
// for a combination of parameters (for example an approach that no exchanger can reach).
// Numbers are printed with up to six significant digits, trailing zeros dropped.
#pragma once

#include <string>

namespace dctwin::core {
struct ParameterSpec;
}

namespace dctwin::models {

/// Up to `decimals` decimals (3 by default), trailing zeros and a trailing point dropped, no "-0";
/// "nan" / "inf" / "-inf" for non-finite values: format_decimals(2.50001) == "2.5".
[[nodiscard]] std::string format_decimals(double value, int decimals = 3);

/// Up to six significant digits, trailing zeros and a trailing point dropped, no "-0";
/// "nan" / "inf" / "-inf" for non-finite values; %g notation below 1e-4 and from 1e12 on.
[[nodiscard]] std::string format_number(double value);

/// A temperature given in K, printed in degC: format_celsius(298.15) == "25 degC".
[[nodiscard]] std::string format_celsius(double kelvin);

/// Range checks on the parameters of one section (for example "cdu" or "plant.cooling_tower").
class ParameterCheck {
 public:
  explicit ParameterCheck(std::string section) : section_(std::move(section)) {}

  /// value > bound, else "<section>.<key> = <value> <unit> (must be > <bound>)".
  void greater_than(const char* key, double value, double bound, const char* unit) const;
  /// value >= bound.
  void at_least(const char* key, double value, double bound, const char* unit) const;
  /// value <= bound.
  void at_most(const char* key, double value, double bound, const char* unit) const;
  /// value < bound.
  void less_than(const char* key, double value, double bound, const char* unit) const;
  /// low <= value <= high, else "(must be in [low, high])".
  void in_range(const char* key, double value, double low, double high, const char* unit) const;
  /// low < value <= high, else "(must be in (low, high])".
  void in_half_open_range(const char* key, double value, double low, double high, const char* unit) const;
  /// A temperature [K] in [low, high]; value and bounds printed in degC.
  void temperature_in_range(const char* key, double value, double low, double high) const;
  /// value > 0 (the common case).
  void positive(const char* key, double value, const char* unit) const { greater_than(key, value, 0.0, unit); }

  /// A number against the range of its declaration (parameter_declarations.hpp), printed in the
  /// spec's SI unit (a temperature shown in degC: in degC): one bound as greater_than / at_least /
  /// less_than / at_most word it, two as "(must be in [low, high] <unit>)" with the brackets of
  /// the bounds' inclusion (as io/ words it). Then a value that is not finite throws
  /// "<section>: <name> must be a finite number".
  void declared(const core::ParameterSpec& spec, double value) const;
  /// A choice against its declaration: "<section>.<name> = <value> (must be a, b or c)".
  void declared_choice(const core::ParameterSpec& spec, const std::string& value) const;

  /// Throws "<section>: <sentence>" for a combination of parameters.
  [[noreturn]] void fail(const std::string& sentence) const;

  [[nodiscard]] const std::string& section() const { return section_; }
  /// "<section>.<key>".
  [[nodiscard]] std::string path(const char* key) const;

 private:
  [[noreturn]] void reject(const char* key, const std::string& value_text, const std::string& rule) const;
  std::string section_;
};

}  // namespace dctwin::models
