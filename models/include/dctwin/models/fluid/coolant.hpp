// Coolant properties: water and aqueous propylene / ethylene glycol, 0 to 60 % glycol by mass.
//
// Properties are interpolated in tables compiled into the library from data/fluids/*.csv:
//   water            IAPWS-IF97 (density, specific heat), IAPWS 2008 (viscosity), IAPWS 2011
//                    (conductivity), 0 to 80 degC at 101.325 kPa;
//   glycol mixtures  Melinder (IIR, 2010) correlations, mass fraction 0.05 to 0.60 in steps of
//                    0.05, -40 to 80 degC in steps of 5 K, frozen points left out.
// docs/models/fluid.md gives the sources, accuracy and verification.
//
// Interpolation: in temperature, a cubic Hermite spline through the table points with
// centred-difference slopes (one-sided second-order slopes at the ends of a column), so every
// property is C1 in temperature and passes through the table values; viscosity is interpolated
// as ln(mu). Between two tabulated mass fractions the two column values are blended linearly
// (ln(mu) for viscosity). A lookup is O(1): direct indexing on the uniform grid, no search.
//
// Errors (dctwin::core::InputError, messages exactly as below; numbers are printed with up to
// three decimals, trailing zeros dropped; the freezing point with one decimal):
//   constructor  "glycol mass fraction 0.8 is outside the tabulated range 0-0.6"
//                "water has no glycol: mass fraction 0.25 given for Glycol::none"
//   property(T)  "PG25: 253.15 K is below the freezing point (-9.8 degC)"
//                      when T is below the freezing point of the mixture;
//                "PG25: temperature 90 degC is outside the property table (-5 to 80 degC)"
//                      when T is above the freezing point but outside the table (the range
//                      printed is [min_temperature(), max_temperature()] of this coolant);
//                "PG25: temperature nan K is not a finite number"
//   parse        "unknown coolant 'brine': expected 'water', 'PG<percent>' or 'EG<percent>' "
//                "(for example 'PG25' or 'EG 30 %')"
#pragma once

#include <string>
#include <string_view>

namespace dctwin::models::fluid {

/// The antifreeze mixed with the water.
enum class Glycol {
  none,       ///< plain water
  propylene,  ///< 1,2-propanediol (propylene glycol, "PG")
  ethylene,   ///< 1,2-ethanediol (ethylene glycol, "EG")
};

namespace detail {
struct PropertyGrid;
}

/// A coolant of fixed composition. Small and trivially copyable (a pointer to static tables and
/// a few numbers): copy it freely into components. All temperatures in K, all results in SI.
class Coolant {
 public:
  /// `mass_fraction` is the glycol mass fraction, 0 to 0.6 (0 = plain water whatever `glycol`).
  /// Throws core::InputError outside that range, or for Glycol::none with a non-zero fraction.
  Coolant(Glycol glycol, double mass_fraction);

  /// Plain water.
  static Coolant water() { return {Glycol::none, 0.0}; }

  /// Parses "water", "PG25", "EG30", "PG 25 %", "pg25%", "propylene glycol 25 %",
  /// "ethylene glycol 30%", "MPG25", "MEG30" (case-insensitive; the number is the glycol mass
  /// percent). Throws core::InputError for anything else or a percent outside 0-60.
  static Coolant parse(std::string_view text);

  /// All four transport and thermodynamic properties at one temperature (one table lookup).
  struct Properties {
    double density;        ///< kg/m3
    double specific_heat;  ///< isobaric, J/(kg K)
    double conductivity;   ///< W/(m K)
    double viscosity;      ///< dynamic, Pa s
  };

  [[nodiscard]] Properties properties(double temperature) const;
  [[nodiscard]] double density(double temperature) const;        ///< kg/m3
  [[nodiscard]] double specific_heat(double temperature) const;  ///< J/(kg K)
  [[nodiscard]] double conductivity(double temperature) const;   ///< W/(m K)
  [[nodiscard]] double viscosity(double temperature) const;      ///< Pa s
  /// Prandtl number mu cp / k [1].
  [[nodiscard]] double prandtl(double temperature) const;

  /// Temperature at which ice starts to form [K]; depends on the mass fraction only.
  [[nodiscard]] double freezing_point() const { return freezing_point_; }
  /// Lowest temperature with table data for this composition [K] (>= freezing_point()).
  [[nodiscard]] double min_temperature() const { return min_temperature_; }
  /// Highest tabulated temperature [K] (80 degC).
  [[nodiscard]] double max_temperature() const { return max_temperature_; }

  [[nodiscard]] Glycol glycol() const { return glycol_; }
  [[nodiscard]] double mass_fraction() const { return mass_fraction_; }
  /// "water", "PG25", "EG30", "PG27.5" (glycol mass percent).
  [[nodiscard]] std::string name() const;

 private:
  enum Property : int { density_index = 0, specific_heat_index, conductivity_index,
                        log_viscosity_index };
  /// Position of a temperature in the table: the cell's first row and the fraction s in [0, 1].
  struct Cell {
    int row;
    double s;
  };
  /// Throws the documented InputError unless `temperature` is inside the table, else locates it.
  [[nodiscard]] Cell locate(double temperature) const;
  /// Interpolated value of one tabulated quantity (ln(mu) for viscosity) in a located cell.
  [[nodiscard]] double interpolate(Property property, Cell cell) const;

  const detail::PropertyGrid* grid_;  ///< static tables of this glycol (never null)
  double mass_fraction_;
  double weight_;        ///< weight of column_ + 1 in the linear blend, 0 <= weight_ < 1
  double freezing_point_;
  double min_temperature_;
  double max_temperature_;
  Glycol glycol_;
  int column_;           ///< tabulated mass fraction just below (or at) mass_fraction_
  int first_row_;        ///< lowest temperature row tabulated in both blended columns
};

}  // namespace dctwin::models::fluid
