// Numeric tables compiled into the library from data/fluids/*.csv (see cmake/EmbedTable.cmake).
// The models never open a file: the coolant property tables are constexpr arrays in a source
// file generated at configure time, and this header is how the model code reaches them.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace dctwin::models::fluid::tables {

/// One CSV file as compiled in: its column names and its numbers, row-major.
struct EmbeddedTable {
  const char* file;                      ///< file name, for messages (`water.csv`)
  std::span<const char* const> columns;  ///< column names from the header line
  std::span<const double> values;        ///< rows x columns numbers, row-major

  [[nodiscard]] std::size_t row_count() const { return values.size() / columns.size(); }
  [[nodiscard]] double at(std::size_t row, std::size_t column) const {
    return values[row * columns.size() + column];
  }
  /// Index of a named column; columns.size() when there is none.
  [[nodiscard]] std::size_t column_index(std::string_view name) const {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (name == columns[c]) return c;
    }
    return columns.size();
  }
};

// The tables of data/fluids/ (defined in the generated source).
extern const EmbeddedTable water;                          ///< water.csv
extern const EmbeddedTable propylene_glycol;               ///< propylene_glycol.csv
extern const EmbeddedTable propylene_glycol_freezing;      ///< propylene_glycol_freezing.csv
extern const EmbeddedTable ethylene_glycol;                ///< ethylene_glycol.csv
extern const EmbeddedTable ethylene_glycol_freezing;       ///< ethylene_glycol_freezing.csv

}  // namespace dctwin::models::fluid::tables
