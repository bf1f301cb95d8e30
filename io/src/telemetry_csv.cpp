// Generic CSV telemetry with a column map written in YAML:
//
//   delimiter: ","                    # optional; one character
//   time: {column: ts, unit: s}       # unit: a time unit for numbers since the epoch; without a
//                                     # unit, numbers are seconds and text is a timestamp
//   gpu: {column: idx}                # optional: without it, every row is GPU 0
//   uuid: {column: id}                # optional
//   hostname: {column: host}          # optional
//   power: {column: P, unit: kW}      # any canonical quantity; unit defaults to its SI unit
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"
#include "telemetry_internal.hpp"

namespace dctwin::io::telemetry_detail {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct RowProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MappedColumn {
  std::string key;                 ///< map key (`time`, `gpu`, `power`, ...)
  std::string column;              ///< CSV column name
  std::string unit;                ///< unit of bare numbers (may be empty for time)
  std::size_t quantity = q_count;  ///< for quantities
  std::size_t position = 0;        ///< resolved from the header
};

struct ColumnMap {
  char delimiter = ',';
  std::optional<MappedColumn> time, gpu, uuid, hostname;
  std::vector<MappedColumn> quantities;
};

ColumnMap load_map(const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw MissingInputError(file + ": cannot open column map (No such file or directory)");
  } catch (const YAML::Exception& e) {
    throw TelemetryError(fmt::format("{}:{}:{}: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  const auto where = [&](const YAML::Node& node) {
    return fmt::format("{}:{}:{}", file, node.Mark().line + 1, node.Mark().column + 1);
  };
  if (!root.IsMap())
    throw TelemetryError(file + ": the column map must be a mapping of keys to {column: ..., unit: ...}");
  // Keys are names: a mapping or sequence as a key (`{a: b}: c`, `? [a]`) is refused with its place.
  const auto key_text = [&](const YAML::Node& node) {
    if (!node.IsScalar()) throw TelemetryError(where(node) + ": a key of the column map must be a name");
    return node.as<std::string>();
  };
  ColumnMap map;
  for (const auto& entry : root) {
    const std::string key = key_text(entry.first);
    const YAML::Node& value = entry.second;
    if (key == "delimiter") {
      const std::string d = value.IsScalar() ? value.as<std::string>() : std::string();
      if (d.size() != 1) throw TelemetryError(where(value) + ": delimiter must be one character");
      map.delimiter = d[0];
      continue;
    }
    const TelemetryQuantity* quantity = find_telemetry_quantity(key);
    if (!quantity && key != "time" && key != "gpu" && key != "uuid" && key != "hostname") {
      std::string names;
      for (const auto& q : telemetry_quantities()) names += (names.empty() ? "" : ", ") + q.name;
      throw TelemetryError(
          fmt::format("{}: unknown key '{}' (expected delimiter, time, gpu, uuid, hostname or a "
                      "quantity: {})",
                      where(entry.first), key, names));
    }
    if (!value.IsMap())
      throw TelemetryError(fmt::format("{}: {} must be {{column: NAME, unit: UNIT}}", where(value), key));
    MappedColumn c;
    c.key = key;
    for (const auto& field : value) {
      const std::string name = key_text(field.first);
      if (name != "column" && name != "unit")
        throw TelemetryError(
            fmt::format("{}: unknown key '{}.{}' (expected column, unit)", where(field.first), key, name));
      if (!field.second.IsScalar())
        throw TelemetryError(fmt::format("{}: {}.{} must be text", where(field.second), key, name));
      (name == "column" ? c.column : c.unit) = field.second.as<std::string>();
    }
    if (c.column.empty()) throw TelemetryError(fmt::format("{}: {}.column is missing", where(value), key));
    if (quantity) {
      if (c.unit.empty()) c.unit = quantity->unit;
      if (!is_known_unit(c.unit))
        throw TelemetryError(fmt::format("{}: {}.unit: unknown unit '{}'", where(value), key, c.unit));
      if (!are_convertible(c.unit, quantity->unit))
        throw TelemetryError(fmt::format("{}: {}.unit: unit '{}' is not convertible to '{}'", where(value), key, c.unit,
                                         quantity->unit));
      c.quantity = static_cast<std::size_t>(quantity - telemetry_quantities().data());
      map.quantities.push_back(c);
    } else if (key == "time") {
      if (!c.unit.empty() && (!is_known_unit(c.unit) || !are_convertible(c.unit, "s")))
        throw TelemetryError(fmt::format("{}: time.unit: '{}' is not a time unit", where(value), c.unit));
      map.time = c;
    } else if (key == "gpu") {
      map.gpu = c;
    } else if (key == "uuid") {
      map.uuid = c;
    } else {
      map.hostname = c;
    }
  }
  if (!map.time) throw TelemetryError(file + ": the column map has no 'time' entry");
  if (map.quantities.empty()) throw TelemetryError(file + ": the column map names no quantity");
  return map;
}

}  // namespace

void read_generic_csv(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options, double offset) {
  ColumnMap map = load_map(options.map_file);
  const std::string& label = reader.label();
  const auto& quantities = telemetry_quantities();
  UnitCache units;
  std::size_t field_count = 0;
  bool header_seen = false;
  if (!map.gpu) builder.note("no gpu column in the map: every row is GPU 0");
  std::vector<double> values(q_count, nan);
  std::string line;
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const auto cells = split_on(text, map.delimiter);
    if (!header_seen) {
      field_count = cells.size();
      const auto resolve = [&](MappedColumn& c) {
        for (std::size_t i = 0; i < cells.size(); ++i)
          if (cells[i] == c.column) {
            c.position = i;
            return;
          }
        fail(label, n, fmt::format("column '{}' ({} in {}) not found", c.column, c.key, options.map_file));
      };
      for (auto* c : {&map.time, &map.gpu, &map.uuid, &map.hostname})
        if (*c) resolve(**c);
      for (auto& c : map.quantities) {
        resolve(c);
        builder.declare(c.quantity);
      }
      header_seen = true;
      continue;
    }
    try {
      if (cells.size() != field_count)
        throw RowProblem(fmt::format("expected {} fields, found {}", field_count, cells.size()));
      const std::string_view time_cell = cells[map.time->position];
      double time = nan;
      if (const auto number = parse_number(time_cell)) {
        try {
          time = map.time->unit.empty() ? *number : units.to_si(*number, map.time->unit, "s");
        } catch (const UnitError&) {
          time = nan;  // overflow in the conversion
        }
      } else if (map.time->unit.empty()) {
        if (const auto t = parse_timestamp(time_cell, offset)) time = *t;
      }
      // parse_number accepts `inf`: a time must be finite.
      if (!std::isfinite(time)) throw RowProblem(fmt::format("{}: '{}' is not a valid time", map.time->column, time_cell));
      int gpu = 0;
      if (map.gpu) {
        const std::string_view g = cells[map.gpu->position];
        const auto number = parse_number(g);
        if (!number || *number < 0 || *number != std::floor(*number) || *number > 1e6)
          throw RowProblem(fmt::format("{}: '{}' is not a GPU index", map.gpu->column, g));
        gpu = static_cast<int>(*number);
      }
      std::string uuid, host;
      if (map.uuid) uuid = std::string(cells[map.uuid->position]);
      if (map.hostname) host = std::string(cells[map.hostname->position]);
      std::fill(values.begin(), values.end(), nan);
      for (const auto& c : map.quantities) {
        const std::string_view cell = cells[c.position];
        if (is_missing(cell)) {
          builder.missing(c.column, cell);
          continue;
        }
        if (c.quantity == q_clock_event_reasons) {
          // A bitmask as NVML tools write it: hex (0x...) or decimal.
          if (const auto mask = parse_bitmask(cell)) {
            values[c.quantity] = static_cast<double>(*mask);
            continue;
          }
        }
        try {
          const Quantity q = parse_quantity(cell);
          const std::string& unit = q.unit.empty() ? c.unit : q.unit;
          values[c.quantity] = units.to_si(q.number, unit, quantities[c.quantity].unit);
        } catch (const UnitError& e) {
          throw RowProblem(fmt::format("{}: {}", c.column, e.what()));
        }
        check_possible(c.quantity, values[c.quantity], c.column, cell);
      }
      builder.add(GpuKey{host, gpu}, uuid, time, values, n);
    } catch (const ImpossibleValue& p) {
      builder.bad_line(n, p.what(), true);
    } catch (const RowProblem& p) {
      builder.bad_line(n, p.what());
    }
  }
}

}  // namespace dctwin::io::telemetry_detail
