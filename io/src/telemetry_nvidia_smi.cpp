// nvidia-smi telemetry: `--query-gpu ... --format=csv[,noheader][,nounits]` and `dmon`.
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "dctwin/io/units.hpp"
#include "telemetry_internal.hpp"

namespace dctwin::io::telemetry_detail {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// A problem with one row; turned into a located error (or a skipped line) by the caller.
struct RowProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Role { ignored, timestamp, index, uuid, value, mask, reason };

struct Column {
  std::string name;         ///< as written, without its unit
  std::string header_unit;  ///< from `[...]` in the header, empty if none
  Role role = Role::ignored;
  std::size_t quantity = 0;
  std::string default_unit;  ///< unit of a bare number when the header gives none
  std::uint64_t bit = 0;     ///< for reasons
};

struct Reason {
  const char* name;
  std::uint64_t bit;
};
constexpr Reason reasons[] = {
    {"gpu_idle", 0x1},
    {"applications_clocks_setting", 0x2},
    {"sw_power_cap", 0x4},
    {"hw_slowdown", 0x8},
    {"sync_boost", 0x10},
    {"sw_thermal_slowdown", 0x20},
    {"hw_thermal_slowdown", 0x40},
    {"hw_power_brake_slowdown", 0x80},
    {"display_clock_setting", 0x100},
};

struct ValueField {
  const char* name;
  std::size_t quantity;
  const char* unit;
};
constexpr ValueField value_fields[] = {
    {"power.draw", q_power, "W"},
    {"power.draw.average", q_power, "W"},
    {"power.draw.instant", q_power_instant, "W"},
    {"power.limit", q_power_limit, "W"},
    {"enforced.power.limit", q_power_limit, "W"},
    {"temperature.gpu", q_gpu_temperature, "degC"},
    {"temperature.memory", q_memory_temperature, "degC"},
    {"clocks.sm", q_sm_clock, "MHz"},
    {"clocks.current.sm", q_sm_clock, "MHz"},
    {"clocks.mem", q_memory_clock, "MHz"},
    {"clocks.memory", q_memory_clock, "MHz"},
    {"clocks.current.memory", q_memory_clock, "MHz"},
    {"clocks.gr", q_graphics_clock, "MHz"},
    {"clocks.graphics", q_graphics_clock, "MHz"},
    {"clocks.current.graphics", q_graphics_clock, "MHz"},
    {"utilization.gpu", q_gpu_utilization, "%"},
    {"utilization.memory", q_memory_utilization, "%"},
};

/// Splits `power.draw [W]` into name and unit.
Column parse_header_cell(std::string_view cell) {
  Column column;
  cell = trim(cell);
  if (cell.ends_with(']')) {
    if (const auto open = cell.rfind('['); open != std::string_view::npos) {
      column.header_unit = std::string(trim(cell.substr(open + 1, cell.size() - open - 2)));
      cell = trim(cell.substr(0, open));
    }
  }
  column.name = std::string(cell);
  return column;
}

/// Gives the column its role from its name. Returns false for an unknown name.
bool classify(Column& column) {
  const std::string name = lower(column.name);
  if (name == "timestamp") {
    column.role = Role::timestamp;
    return true;
  }
  if (name == "index") {
    column.role = Role::index;
    return true;
  }
  if (name == "uuid" || name == "gpu_uuid") {
    column.role = Role::uuid;
    return true;
  }
  for (const auto& f : value_fields)
    if (name == f.name) {
      column.role = Role::value;
      column.quantity = f.quantity;
      column.default_unit = f.unit;
      return true;
    }
  for (const char* prefix : {"clocks_event_reasons.", "clocks_throttle_reasons.", "clock_throttle_reasons."}) {
    if (!name.starts_with(prefix)) continue;
    const std::string reason = name.substr(std::string_view(prefix).size());
    if (reason == "active") {
      column.role = Role::mask;
      return true;
    }
    for (const auto& r : reasons)
      if (reason == r.name) {
        column.role = Role::reason;
        column.bit = r.bit;
        return true;
      }
    return false;  // e.g. `.supported`: not a sample of the active reasons
  }
  return false;
}

/// A cell of quantity `q` with an optional unit converted to `si_unit` (`unit` used when the cell
/// has none); a physically impossible value throws ImpossibleValue.
double cell_value(std::string_view cell, std::size_t q, const std::string& field, const std::string& unit,
                  const std::string& si_unit, UnitCache& units) {
  if (is_missing(cell)) return nan;
  double si = nan;
  try {
    const Quantity quantity = parse_quantity(cell);
    const std::string& u = quantity.unit.empty() ? unit : quantity.unit;
    si = u.empty() || u == si_unit ? quantity.number : units.to_si(quantity.number, u, si_unit);
  } catch (const UnitError& e) {
    throw RowProblem(fmt::format("{}: {}", field, e.what()));
  }
  check_possible(q, si, field, cell);
  return si;
}

std::uint64_t parse_mask(std::string_view cell, const std::string& field) {
  std::string_view t = trim(cell);
  int base = 10;
  if (t.starts_with("0x") || t.starts_with("0X")) {
    t.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value, base);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size())
    throw RowProblem(fmt::format("{}: '{}' is not a bitmask", field, trim(cell)));
  return value;
}

int parse_gpu_index(std::string_view cell, const std::string& field) {
  const std::string_view t = trim(cell);
  int value = -1;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || value < 0)
    throw RowProblem(fmt::format("{}: '{}' is not a GPU index", field, t));
  return value;
}

/// Checks at the header that a column's unit converts to its quantity's unit.
void check_unit(const std::string& label, std::size_t line, const std::string& field, const std::string& unit,
                const std::string& si_unit) {
  if (unit.empty()) return;
  if (!is_known_unit(unit)) fail(label, line, fmt::format("column '{}': unknown unit '{}'", field, unit));
  if (!are_convertible(unit, si_unit))
    fail(label, line, fmt::format("column '{}': unit '{}' is not convertible to '{}'", field, unit, si_unit));
}

bool looks_like_data(std::string_view first_cell, double offset) {
  return parse_timestamp(first_cell, offset).has_value() || parse_number(first_cell).has_value() ||
         is_missing(first_cell);
}

}  // namespace

void read_nvidia_smi_csv(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                         double offset) {
  const std::string& label = reader.label();
  std::vector<Column> columns;
  std::string line;
  std::size_t header_line = 0;
  bool have_columns = false;
  UnitCache units;
  const auto& quantities = telemetry_quantities();

  const auto set_columns = [&](const std::vector<Column>& given, std::size_t at) {
    columns = given;
    std::vector<std::string> ignored;
    bool has_time = false;
    for (auto& c : columns) {
      if (!classify(c)) {
        ignored.push_back(c.name);
        continue;
      }
      for (const auto& other : columns) {
        if (&other == &c) break;
        if (lower(other.name) == lower(c.name)) fail(label, at, fmt::format("duplicate column '{}'", c.name));
      }
      if (c.role == Role::timestamp) has_time = true;
      if (c.role == Role::value) {
        check_unit(label, at, c.name, c.header_unit, quantities[c.quantity].unit);
        builder.declare(c.quantity);
      }
      if (c.role == Role::mask || c.role == Role::reason) builder.declare(q_clock_event_reasons);
    }
    if (!has_time)
      fail(label, at, "no 'timestamp' column (query it first: nvidia-smi --query-gpu=timestamp,index,...)");
    if (!ignored.empty()) {
      std::string text = "ignored columns:";
      for (const auto& n : ignored) text += " " + n;
      builder.note(text);
    }
    have_columns = true;
  };

  if (!options.columns.empty()) {
    // Fields given by the user for a file without header: `power.draw` or `power.draw [W]`.
    std::vector<Column> given;
    for (const auto& c : options.columns) given.push_back(parse_header_cell(c));
    set_columns(given, 0);
    builder.note("columns from the --columns option");
  }

  bool has_index = false;
  const auto find_roles = [&] {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i].role == Role::index) has_index = true;
    if (!has_index) builder.note("no index column: GPUs are numbered by their row within each tick (same timestamp)");
  };
  if (have_columns) find_roles();

  // Ticks without an index column.
  double tick_time = nan;
  int position = 0;
  int gpus_per_tick = -1;

  std::vector<double> values(q_count, nan);
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    if (trim(line).empty()) continue;
    const auto cells = split_on(line, ',');
    if (!have_columns) {
      if (looks_like_data(cells[0], offset))
        fail(label, n,
             "no header line (a file written with --format=csv,noheader needs its fields in order: "
             "--columns timestamp,index,power.draw,...)");
      std::vector<Column> header;
      for (const auto cell : cells) header.push_back(parse_header_cell(cell));
      header_line = n;
      set_columns(header, n);
      find_roles();
      continue;
    }
    if (header_line == 0 && !options.columns.empty() && !looks_like_data(cells[0], offset)) {
      // A header although --columns was given: the header wins.
      std::vector<Column> header;
      for (const auto cell : cells) header.push_back(parse_header_cell(cell));
      header_line = n;
      has_index = false;
      set_columns(header, n);
      find_roles();
      builder.note("the file has a header line; --columns was not used");
      continue;
    }
    header_line = header_line == 0 ? n : header_line;
    try {
      if (cells.size() != columns.size())
        throw RowProblem(fmt::format("expected {} fields, found {}", columns.size(), cells.size()));
      std::fill(values.begin(), values.end(), nan);
      double time = nan;
      int index = 0;
      std::string uuid;
      std::uint64_t mask = 0;
      bool mask_given = false;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const Column& c = columns[i];
        const std::string_view cell = cells[i];
        switch (c.role) {
          case Role::ignored:
            break;
          case Role::timestamp: {
            const auto t = parse_timestamp(cell, offset);
            if (!t) throw RowProblem(fmt::format("{}: '{}' is not a valid timestamp", c.name, cell));
            time = *t;
            break;
          }
          case Role::index:
            index = parse_gpu_index(cell, c.name);
            break;
          case Role::uuid:
            if (!is_missing(cell)) uuid = std::string(cell);
            break;
          case Role::value: {
            const std::string& si = quantities[c.quantity].unit;
            const std::string& unit = c.header_unit.empty() ? c.default_unit : c.header_unit;
            values[c.quantity] = cell_value(cell, c.quantity, c.name, unit, si == "1" ? std::string("1") : si, units);
            break;
          }
          case Role::mask:
            if (!is_missing(cell)) {
              mask |= parse_mask(cell, c.name);
              mask_given = true;
            }
            break;
          case Role::reason: {
            if (is_missing(cell)) break;
            const std::string v = lower(cell);
            if (v == "active") {
              mask |= c.bit;
            } else if (v != "not active") {
              throw RowProblem(fmt::format("{}: '{}' is not Active or Not Active", c.name, cell));
            }
            mask_given = true;
            break;
          }
        }
      }
      if (mask_given) values[q_clock_event_reasons] = static_cast<double>(mask);
      if (!has_index) {
        if (time != tick_time) {
          if (!std::isnan(tick_time) && gpus_per_tick < 0) gpus_per_tick = position;
          tick_time = time;
          position = 0;
        }
        if (gpus_per_tick >= 0 && position >= gpus_per_tick)
          throw RowProblem(fmt::format("tick at {} has more rows than the {} GPUs of the first tick", format_time(time),
                                       gpus_per_tick));
        index = position++;
      }
      builder.add(GpuKey{"", index}, uuid, time, values, n);
    } catch (const ImpossibleValue& p) {
      builder.bad_line(n, p.what(), true);
    } catch (const RowProblem& p) {
      builder.bad_line(n, p.what());
    }
  }
}

namespace {

struct DmonField {
  const char* name;
  std::size_t quantity;
  const char* unit;
};
constexpr DmonField dmon_fields[] = {
    {"pwr", q_power, "W"},          {"gtemp", q_gpu_temperature, "degC"}, {"mtemp", q_memory_temperature, "degC"},
    {"sm", q_gpu_utilization, "%"}, {"mem", q_memory_utilization, "%"},   {"mclk", q_memory_clock, "MHz"},
    {"pclk", q_sm_clock, "MHz"},
};

std::string dmon_unit(std::string_view unit) {
  if (unit == "C") return "degC";
  if (unit == "F") return "degF";
  return std::string(unit);
}

}  // namespace

void read_nvidia_smi_dmon(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                          double offset) {
  const std::string& label = reader.label();
  const auto& quantities = telemetry_quantities();
  std::vector<std::string> names;  // lower-case field names
  std::vector<std::string> units;  // per field, after the units line
  std::vector<int> quantity_of;    // -1 if not a value
  int date_column = -1, time_column = -1, gpu_column = -1;
  std::size_t names_line = 0;
  bool units_seen = false;
  UnitCache cache;

  // Time without timestamps: ticks of `interval`; with time of day only: day count.
  long long tick = -1;
  int previous_gpu = std::numeric_limits<int>::max();
  double previous_time_of_day = -1.0;
  long long day = 0;
  bool noted = false;

  std::vector<double> values(q_count, nan);
  std::string line;
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    const std::string_view text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      const auto words = split_blanks(text.substr(1));
      if (words.empty()) continue;
      if (names.empty() || (!units_seen && names_line + 1 != n)) {
        // The names line (the first comment line).
        names.clear();
        quantity_of.clear();
        // A names line read again (no units line after the first) starts afresh: columns found in
        // the earlier one may lie beyond this one's fields.
        date_column = time_column = gpu_column = -1;
        std::vector<std::string> ignored;
        for (std::size_t i = 0; i < words.size(); ++i) {
          const std::string w = lower(words[i]);
          names.push_back(w);
          int q = -1;
          if (w == "date")
            date_column = static_cast<int>(i);
          else if (w == "time")
            time_column = static_cast<int>(i);
          else if (w == "gpu" || w == "idx")
            gpu_column = static_cast<int>(i);
          else {
            bool found = false;
            for (const auto& f : dmon_fields)
              if (w == f.name) {
                q = static_cast<int>(f.quantity);
                builder.declare(f.quantity);
                found = true;
              }
            if (!found) ignored.push_back(w);
          }
          quantity_of.push_back(q);
        }
        if (gpu_column < 0) fail(label, n, "dmon header without a 'gpu' column");
        if (!ignored.empty()) {
          std::string note = "ignored columns:";
          for (const auto& w : ignored) note += " " + w;
          builder.note(note);
        }
        names_line = n;
        units.assign(names.size(), "");
        for (std::size_t i = 0; i < names.size(); ++i)
          for (const auto& f : dmon_fields)
            if (names[i] == f.name) units[i] = f.unit;
        continue;
      }
      if (!units_seen && names_line + 1 == n) {
        if (words.size() != names.size())
          fail(label, n, fmt::format("dmon units line has {} fields, the names line {}", words.size(), names.size()));
        for (std::size_t i = 0; i < words.size(); ++i) {
          if (quantity_of[i] < 0) continue;
          units[i] = dmon_unit(words[i]);
          check_unit(label, n, names[i], units[i], quantities[static_cast<std::size_t>(quantity_of[i])].unit);
        }
        units_seen = true;
        continue;
      }
      // dmon repeats its two header lines every screenful; they must not change.
      std::vector<std::string> again;
      for (const auto w : words) again.push_back(lower(w));
      if (again.size() != names.size())
        fail(label, n, fmt::format("dmon header line has {} fields, the first header {}", again.size(), names.size()));
      continue;
    }
    if (names.empty()) fail(label, n, "no dmon header line ('# gpu pwr gtemp ...') before the first row");
    try {
      const auto cells = split_blanks(text);
      if (cells.size() != names.size())
        throw RowProblem(fmt::format("expected {} fields, found {}", names.size(), cells.size()));
      const int gpu = parse_gpu_index(cells[static_cast<std::size_t>(gpu_column)], "gpu");
      std::fill(values.begin(), values.end(), nan);
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (quantity_of[i] < 0) continue;
        const auto q = static_cast<std::size_t>(quantity_of[i]);
        values[q] = cell_value(cells[i], q, names[i], units[i], quantities[q].unit, cache);
      }
      double time = 0.0;
      if (time_column >= 0) {
        const std::string_view t = cells[static_cast<std::size_t>(time_column)];
        int hh = 0, mm = 0, ss = 0;
        if (t.size() != 8 || t[2] != ':' || t[5] != ':' ||
            std::from_chars(t.data(), t.data() + 2, hh).ptr != t.data() + 2 ||
            std::from_chars(t.data() + 3, t.data() + 5, mm).ptr != t.data() + 5 ||
            std::from_chars(t.data() + 6, t.data() + 8, ss).ptr != t.data() + 8 || hh > 23 || mm > 59 || ss > 60)
          throw RowProblem(fmt::format("time: '{}' is not HH:MM:SS", t));
        const double of_day = 3600.0 * hh + 60.0 * mm + ss;
        if (date_column >= 0) {
          const std::string_view d = cells[static_cast<std::size_t>(date_column)];
          int y = 0, mo = 0, da = 0;
          bool ok = d.size() == 8 && std::from_chars(d.data(), d.data() + 4, y).ptr == d.data() + 4 &&
                    std::from_chars(d.data() + 4, d.data() + 6, mo).ptr == d.data() + 6 &&
                    std::from_chars(d.data() + 6, d.data() + 8, da).ptr == d.data() + 8 && mo >= 1 && mo <= 12 &&
                    da >= 1 && da <= 31;
          if (ok) {
            using namespace std::chrono;
            ok = year_month_day{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(mo)},
                                std::chrono::day{static_cast<unsigned>(da)}}
                     .ok();
          }
          if (!ok) throw RowProblem(fmt::format("date: '{}' is not YYYYMMDD", d));
          time = civil_seconds(y, mo, da, 0, 0, 0.0) + of_day - offset;
        } else {
          if (!noted) {
            builder.note(
                "dmon rows carry the time of day only: the first day is taken as 1970-01-01, "
                "a new day starting when the time of day goes back by more than 12 h");
            noted = true;
          }
          if (previous_time_of_day >= 0.0 && of_day < previous_time_of_day - 43200.0) ++day;
          previous_time_of_day = of_day;
          time = 86400.0 * static_cast<double>(day) + of_day - offset;
        }
      } else {
        if (!noted) {
          builder.note(
              fmt::format("no timestamps: sample k is at k x {} s from 0 (--interval); a new sample "
                          "starts when the GPU index does not increase",
                          format_number(options.interval)));
          noted = true;
        }
        if (gpu <= previous_gpu) ++tick;
        time = static_cast<double>(tick) * options.interval;
      }
      previous_gpu = gpu;
      builder.add(GpuKey{"", gpu}, "", time, values, n);
    } catch (const ImpossibleValue& p) {
      builder.bad_line(n, p.what(), true);
    } catch (const RowProblem& p) {
      builder.bad_line(n, p.what());
    }
  }
}

}  // namespace dctwin::io::telemetry_detail
