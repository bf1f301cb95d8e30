// Coolant property tables: grid assembly from the embedded CSV tables, interpolation, errors.
#include "dctwin/models/fluid/coolant.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/parameter_check.hpp"
#include "embedded_table.hpp"

namespace dctwin::models::fluid {

namespace {

constexpr double kelvin_offset = 273.15;      // K at 0 degC
constexpr double max_mass_fraction = 0.6;     // highest tabulated glycol mass fraction
constexpr double temperature_slack = 1e-9;    // K: round-off allowed at the table edges
constexpr double fraction_slack = 1e-12;      // round-off allowed on mass fractions
constexpr int property_count = 4;             // density, cp, conductivity, ln(viscosity)

/// Cubic Hermite interpolation on a unit interval: values f0, f1 and slopes d0, d1 (per
/// interval) at s = 0 and s = 1. Reproduces f0 exactly at s = 0 and f1 at s = 1.
double hermite(double f0, double f1, double d0, double d1, double s) {
  const double s2 = s * s;
  const double s3 = s2 * s;
  return (2.0 * s3 - 3.0 * s2 + 1.0) * f0 + (s3 - 2.0 * s2 + s) * d0 +
         (-2.0 * s3 + 3.0 * s2) * f1 + (s3 - s2) * d1;
}

/// Slopes (per grid step) of samples f[first..last] for a C1 cubic Hermite spline:
/// centred differences inside, one-sided second-order differences at both ends.
void hermite_slopes(const double* f, double* d, int first, int last) {
  DCTWIN_DEMAND(last - first >= 2, "a table column needs at least three points");
  d[first] = 0.5 * (-3.0 * f[first] + 4.0 * f[first + 1] - f[first + 2]);
  for (int i = first + 1; i < last; ++i) d[i] = 0.5 * (f[i + 1] - f[i - 1]);
  d[last] = 0.5 * (3.0 * f[last] - 4.0 * f[last - 1] + f[last - 2]);
}

/// Exactly `decimals` decimals, no "-0.0".
std::string format_fixed(double value, int decimals) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  std::string text(buffer.data());
  if (text.starts_with("-") && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
  return text;
}

/// A mass fraction as written in messages: up to 15 significant digits, so 0.8 stays "0.8".
std::string format_fraction(double value) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.15g", value);
  return buffer.data();
}

}  // namespace

namespace detail {

/// The property tables of one glycol on a uniform (mass fraction x temperature) grid. Column 0
/// is pure water; rows below the freezing point of a column are absent (NaN), so each column is
/// valid from first_row[column] to the last row.
struct PropertyGrid {
  double first_temperature = 0.0;  // degC of row 0
  double temperature_step = 0.0;   // K
  int rows = 0;
  double fraction_step = 0.0;      // mass fraction between columns
  int columns = 0;
  std::array<std::vector<double>, property_count> value;  // [property][column * rows + row]
  std::array<std::vector<double>, property_count> slope;  // d value / d row, same layout
  std::vector<int> first_row;                              // per column
  std::vector<double> freezing_point;                      // per column, degC
  std::vector<double> freezing_slope;                      // d freezing_point / d column

  [[nodiscard]] double temperature_of_row(int row) const {
    return first_temperature + temperature_step * row;
  }
};

}  // namespace detail

namespace {

using detail::PropertyGrid;
using tables::EmbeddedTable;

std::size_t demand_column(const EmbeddedTable& table, const char* name) {
  const std::size_t index = table.column_index(name);
  DCTWIN_DEMAND(index < table.columns.size(), name);
  return index;
}

/// Nearest integer of `position`, which must be an integer up to round-off.
int grid_index(double position, const char* what) {
  const double nearest = std::round(position);
  DCTWIN_DEMAND(std::abs(position - nearest) < 1e-6, what);
  return static_cast<int>(nearest);
}

/// Builds the grid of one glycol from its table, its freezing-point table and the water table.
/// The shipped tables are part of the build, so a malformed table is a defect: it aborts.
PropertyGrid build_grid(const EmbeddedTable& mixture, const EmbeddedTable& freezing,
                        const EmbeddedTable& water) {
  PropertyGrid grid;
  const std::array<const char*, property_count> property_columns = {
      "density_kg_m3", "specific_heat_J_kgK", "conductivity_W_mK", "viscosity_Pa_s"};

  // Temperature axis: the distinct temperatures of the mixture table, uniformly spaced.
  const std::size_t mix_x = demand_column(mixture, "mass_fraction");
  const std::size_t mix_t = demand_column(mixture, "temperature_degC");
  std::vector<double> temperatures;
  double max_fraction = 0.0;
  double min_fraction = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < mixture.row_count(); ++r) {
    temperatures.push_back(mixture.at(r, mix_t));
    max_fraction = std::max(max_fraction, mixture.at(r, mix_x));
    min_fraction = std::min(min_fraction, mixture.at(r, mix_x));
  }
  std::sort(temperatures.begin(), temperatures.end());
  temperatures.erase(std::unique(temperatures.begin(), temperatures.end()), temperatures.end());
  DCTWIN_DEMAND(temperatures.size() >= 3, "glycol table needs at least three temperatures");
  grid.first_temperature = temperatures.front();
  grid.temperature_step = temperatures[1] - temperatures[0];
  grid.rows = grid_index((temperatures.back() - temperatures.front()) / grid.temperature_step,
                         "glycol table temperatures must be uniformly spaced") + 1;
  DCTWIN_DEMAND(static_cast<std::size_t>(grid.rows) == temperatures.size(),
                "glycol table temperatures must be uniformly spaced");

  // Mass-fraction axis: 0 (water), then the uniformly spaced tabulated fractions.
  grid.fraction_step = min_fraction;
  grid.columns = grid_index(max_fraction / grid.fraction_step,
                            "glycol mass fractions must be multiples of the smallest one") + 1;
  DCTWIN_DEMAND(std::abs(max_fraction - max_mass_fraction) < fraction_slack,
                "glycol tables must end at the documented mass fraction 0.6");

  const std::size_t cells = static_cast<std::size_t>(grid.rows * grid.columns);
  for (auto& v : grid.value) v.assign(cells, std::numeric_limits<double>::quiet_NaN());
  for (auto& v : grid.slope) v.assign(cells, std::numeric_limits<double>::quiet_NaN());

  auto store = [&](const EmbeddedTable& table, std::size_t row, int column, int grid_row) {
    DCTWIN_DEMAND(grid_row >= 0 && grid_row < grid.rows, "table row outside the grid");
    const std::size_t cell = static_cast<std::size_t>(column * grid.rows + grid_row);
    DCTWIN_DEMAND(std::isnan(grid.value[0][cell]), "duplicate table point");
    for (int p = 0; p < property_count; ++p) {
      const double v =
          table.at(row, demand_column(table, property_columns[static_cast<std::size_t>(p)]));
      DCTWIN_DEMAND(std::isfinite(v) && v > 0.0, "property values must be positive");
      grid.value[static_cast<std::size_t>(p)][cell] = p == 3 ? std::log(v) : v;
    }
  };
  const std::size_t water_t = demand_column(water, "temperature_degC");
  for (std::size_t r = 0; r < water.row_count(); ++r) {
    store(water, r, 0,
          grid_index((water.at(r, water_t) - grid.first_temperature) / grid.temperature_step,
                     "water temperatures must lie on the glycol grid"));
  }
  for (std::size_t r = 0; r < mixture.row_count(); ++r) {
    store(mixture, r,
          grid_index(mixture.at(r, mix_x) / grid.fraction_step, "mass fraction off the grid"),
          grid_index((mixture.at(r, mix_t) - grid.first_temperature) / grid.temperature_step,
                     "temperature off the grid"));
  }

  // Each column must be valid from its first row up to the last row (only frozen points at the
  // cold end may be missing); then its Hermite slopes.
  grid.first_row.assign(static_cast<std::size_t>(grid.columns), 0);
  for (int c = 0; c < grid.columns; ++c) {
    const double* column_values = &grid.value[0][static_cast<std::size_t>(c * grid.rows)];
    int first = 0;
    while (first < grid.rows && std::isnan(column_values[first])) ++first;
    for (int r = first; r < grid.rows; ++r) {
      DCTWIN_DEMAND(!std::isnan(column_values[r]), "gap inside a table column");
    }
    grid.first_row[static_cast<std::size_t>(c)] = first;
    for (int p = 0; p < property_count; ++p) {
      const std::size_t offset = static_cast<std::size_t>(c * grid.rows);
      hermite_slopes(grid.value[static_cast<std::size_t>(p)].data() + offset,
                     grid.slope[static_cast<std::size_t>(p)].data() + offset, first,
                     grid.rows - 1);
    }
  }

  // Freezing points, one per column, and their slopes along the mass fraction.
  grid.freezing_point.assign(static_cast<std::size_t>(grid.columns),
                             std::numeric_limits<double>::quiet_NaN());
  const std::size_t fr_x = demand_column(freezing, "mass_fraction");
  const std::size_t fr_t = demand_column(freezing, "freezing_point_degC");
  for (std::size_t r = 0; r < freezing.row_count(); ++r) {
    const int c = grid_index(freezing.at(r, fr_x) / grid.fraction_step,
                             "freezing-point mass fraction off the grid");
    DCTWIN_DEMAND(c >= 0 && c < grid.columns, "freezing-point mass fraction outside the grid");
    grid.freezing_point[static_cast<std::size_t>(c)] = freezing.at(r, fr_t);
  }
  for (int c = 0; c < grid.columns; ++c) {
    const double t_freeze = grid.freezing_point[static_cast<std::size_t>(c)];
    DCTWIN_DEMAND(std::isfinite(t_freeze), "a mass fraction has no freezing point");
    // The table must not hold frozen points (0.01 K allows the 2-decimal rounding of the CSV).
    DCTWIN_DEMAND(grid.temperature_of_row(grid.first_row[static_cast<std::size_t>(c)]) >=
                      t_freeze - 0.01,
                  "a table point lies below the freezing point");
  }
  grid.freezing_slope.assign(static_cast<std::size_t>(grid.columns), 0.0);
  hermite_slopes(grid.freezing_point.data(), grid.freezing_slope.data(), 0, grid.columns - 1);
  return grid;
}

const PropertyGrid& propylene_grid() {
  static const PropertyGrid grid = build_grid(
      tables::propylene_glycol, tables::propylene_glycol_freezing, tables::water);
  return grid;
}

const PropertyGrid& ethylene_grid() {
  static const PropertyGrid grid =
      build_grid(tables::ethylene_glycol, tables::ethylene_glycol_freezing, tables::water);
  return grid;
}

}  // namespace

Coolant::Coolant(Glycol glycol, double mass_fraction)
    : grid_(nullptr),
      mass_fraction_(mass_fraction),
      weight_(0.0),
      freezing_point_(0.0),
      min_temperature_(0.0),
      max_temperature_(0.0),
      glycol_(glycol),
      column_(0),
      first_row_(0) {
  if (!(mass_fraction >= 0.0 && mass_fraction <= max_mass_fraction + fraction_slack)) {
    throw core::InputError("glycol mass fraction " + format_fraction(mass_fraction) +
                             " is outside the tabulated range 0-0.6");
  }
  if (glycol == Glycol::none && mass_fraction != 0.0) {
    throw core::InputError("water has no glycol: mass fraction " +
                             format_fraction(mass_fraction) + " given for Glycol::none");
  }
  mass_fraction_ = std::min(mass_fraction, max_mass_fraction);
  if (mass_fraction_ == 0.0) glycol_ = Glycol::none;
  // Plain water is column 0 of either glycol grid (both hold the same water table).
  grid_ = glycol_ == Glycol::ethylene ? &ethylene_grid() : &propylene_grid();
  const PropertyGrid& grid = *grid_;

  const double position = mass_fraction_ / grid.fraction_step;
  column_ = std::min(static_cast<int>(std::floor(position)), grid.columns - 1);
  weight_ = position - column_;
  if (weight_ < 1e-12) weight_ = 0.0;  // on a tabulated column: no blend
  if (weight_ > 1.0 - 1e-12) {          // round-off just below the next column
    ++column_;
    weight_ = 0.0;
  }
  if (column_ == grid.columns - 1) weight_ = 0.0;

  const auto c = static_cast<std::size_t>(column_);
  int first_row = grid.first_row[c];
  double freezing_c = grid.freezing_point[c];
  if (weight_ > 0.0) {
    first_row = std::max(first_row, grid.first_row[c + 1]);
    freezing_c = hermite(grid.freezing_point[c], grid.freezing_point[c + 1],
                         grid.freezing_slope[c], grid.freezing_slope[c + 1], weight_);
  }
  first_row_ = first_row;
  freezing_point_ = freezing_c + kelvin_offset;
  min_temperature_ = grid.temperature_of_row(first_row) + kelvin_offset;
  max_temperature_ = grid.temperature_of_row(grid.rows - 1) + kelvin_offset;
}

std::string Coolant::name() const {
  if (glycol_ == Glycol::none) return "water";
  return (glycol_ == Glycol::propylene ? "PG" : "EG") + format_decimals(100.0 * mass_fraction_, 3);
}

Coolant::Cell Coolant::locate(double temperature) const {
  if (!std::isfinite(temperature)) {
    throw core::InputError(name() + ": temperature " + format_decimals(temperature, 3) +
                             " K is not a finite number");
  }
  if (temperature < freezing_point_ - temperature_slack) {
    throw core::InputError(name() + ": " + format_decimals(temperature, 3) +
                             " K is below the freezing point (" +
                             format_fixed(freezing_point_ - kelvin_offset, 1) + " degC)");
  }
  if (temperature < min_temperature_ - temperature_slack ||
      temperature > max_temperature_ + temperature_slack) {
    throw core::InputError(name() + ": temperature " +
                             format_decimals(temperature - kelvin_offset, 3) +
                             " degC is outside the property table (" +
                             format_decimals(min_temperature_ - kelvin_offset, 3) + " to " +
                             format_decimals(max_temperature_ - kelvin_offset, 3) + " degC)");
  }
  const PropertyGrid& grid = *grid_;
  const double position =
      (temperature - kelvin_offset - grid.first_temperature) / grid.temperature_step;
  // The cell below `position`, kept inside the valid rows so that the edges use the end cells.
  const int row = std::clamp(static_cast<int>(std::floor(position)), first_row_, grid.rows - 2);
  return {row, position - row};
}

double Coolant::interpolate(Property property, Cell cell) const {
  const PropertyGrid& grid = *grid_;
  const auto& values = grid.value[static_cast<std::size_t>(property)];
  const auto& slopes = grid.slope[static_cast<std::size_t>(property)];
  auto at_column = [&](int column) {
    const std::size_t i = static_cast<std::size_t>(column * grid.rows + cell.row);
    return hermite(values[i], values[i + 1], slopes[i], slopes[i + 1], cell.s);
  };
  const double low = at_column(column_);
  if (weight_ == 0.0) return low;
  return low + weight_ * (at_column(column_ + 1) - low);
}

Coolant::Properties Coolant::properties(double temperature) const {
  const Cell cell = locate(temperature);
  return {interpolate(density_index, cell), interpolate(specific_heat_index, cell),
          interpolate(conductivity_index, cell),
          std::exp(interpolate(log_viscosity_index, cell))};
}

double Coolant::density(double temperature) const {
  return interpolate(density_index, locate(temperature));
}

double Coolant::specific_heat(double temperature) const {
  return interpolate(specific_heat_index, locate(temperature));
}

double Coolant::conductivity(double temperature) const {
  return interpolate(conductivity_index, locate(temperature));
}

double Coolant::viscosity(double temperature) const {
  return std::exp(interpolate(log_viscosity_index, locate(temperature)));
}

double Coolant::prandtl(double temperature) const {
  const Properties p = properties(temperature);
  return p.viscosity * p.specific_heat / p.conductivity;
}

Coolant Coolant::parse(std::string_view text) {
  auto unknown = [&]() {
    return core::InputError("unknown coolant '" + std::string(text) +
                              "': expected 'water', 'PG<percent>' or 'EG<percent>' "
                              "(for example 'PG25' or 'EG 30 %')");
  };
  // Lower case, without blanks, '-' and '_': "PG 25 %" -> "pg25%".
  std::string key;
  for (const char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (std::isspace(u) || ch == '-' || ch == '_') continue;
    key.push_back(static_cast<char>(std::tolower(u)));
  }
  if (key == "water") return water();
  if (!key.empty() && key.back() == '%') key.pop_back();

  struct Prefix {
    std::string_view text;
    Glycol glycol;
  };
  static constexpr std::array<Prefix, 8> prefixes = {{
      {"propyleneglycol", Glycol::propylene},
      {"ethyleneglycol", Glycol::ethylene},
      {"propylene", Glycol::propylene},
      {"ethylene", Glycol::ethylene},
      {"mpg", Glycol::propylene},
      {"meg", Glycol::ethylene},
      {"pg", Glycol::propylene},
      {"eg", Glycol::ethylene},
  }};
  for (const Prefix& prefix : prefixes) {
    if (!std::string_view(key).starts_with(prefix.text)) continue;
    const std::string_view number = std::string_view(key).substr(prefix.text.size());
    // Only digits with at most one decimal point: no sign, exponent, inf or nan.
    const bool well_formed =
        !number.empty() && number.find_first_not_of("0123456789.") == std::string_view::npos &&
        std::count(number.begin(), number.end(), '.') <= 1 && number != ".";
    if (!well_formed) throw unknown();
    double percent = 0.0;
    const auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), percent);
    if (error != std::errc() || end != number.data() + number.size()) throw unknown();
    return Coolant(prefix.glycol, percent / 100.0);
  }
  throw unknown();
}

}  // namespace dctwin::models::fluid
