// nvidia-smi telemetry: `--query-gpu ... --format=csv[,noheader][,nounits]` and `dmon`.
#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
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

enum class Role { ignored, timestamp, index, uuid, bus_id, serial, value, mask, reason };

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
  if (name == "pci.bus_id" || name == "gpu_bus_id") {
    column.role = Role::bus_id;
    return true;
  }
  if (name == "serial") {
    column.role = Role::serial;
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
                  const std::string& si_unit, UnitCache& units, TraceBuilder& builder) {
  if (is_missing(cell)) {
    builder.missing(field, cell);
    return nan;
  }
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
  const auto value = parse_bitmask(cell);
  if (!value) throw RowProblem(fmt::format("{}: '{}' is not a bitmask", field, trim(cell)));
  return *value;
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

namespace {

/// One data row of an nvidia-smi CSV file, parsed, waiting for its tick to be complete.
struct SmiRow {
  std::size_t line = 0;
  bool bad = false;  ///< skipped as a bad line: it only holds its place among the rows of a tick
  double time = nan;
  int index = -1;        ///< from the index column
  std::string id;        ///< uuid, else pci.bus_id, else serial: what tells GPUs apart without index
  std::string uuid;
  bool requires_reset = false;  ///< a cell reads `[GPU requires reset]`
  std::vector<double> values;
};

/// How the rows of one query of every GPU (a tick) are told apart.
enum class Grouping {
  index,     ///< by the index column
  id,        ///< by uuid, pci.bus_id or serial; GPUs numbered in the order they first appear
  position,  ///< by their row within the tick
};

// Consecutive rows are compared through their time gaps: nvidia-smi queries the GPUs one after the
// other (a few ms each) and then waits for the loop interval (-lms/-l), so the gaps fall into two
// groups. The largest ratio between consecutive sorted gaps, below which every gap is at most
// `tick_window`, separates them when it is at least `split_ratio`; the threshold is the geometric
// mean of the two gaps. Gaps under `gap_floor` (timestamps are written to the millisecond) count
// as equal. Without such a split, rows at most `tick_window` apart are one tick.
constexpr double gap_floor = 1e-3;          // s
constexpr double split_ratio = 3.0;
constexpr double tick_window = 0.05;        // s: the longest gap between two rows of one tick
constexpr std::size_t learning_rows = 256;  // rows read before the ticks are found

/// `node-a: rest` as written by pdsh (or clush): the host and the rest; nullopt otherwise.
std::optional<std::pair<std::string_view, std::string_view>> host_prefix(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 >= line.size() || line[colon + 1] != ' ')
    return std::nullopt;
  const std::string_view host = line.substr(0, colon);
  if (!std::isalnum(static_cast<unsigned char>(host.front()))) return std::nullopt;
  for (const char c : host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return std::nullopt;
  return std::make_pair(host, line.substr(colon + 2));
}

std::string ms_text(double seconds) { return format_number(std::round(seconds * 1e4) / 10.0) + " ms"; }

/// The rows of one host (pdsh) or of the whole file: header, row parsing and the grouping of rows
/// into ticks.
class SmiSource {
 public:
  SmiSource(std::string host, const std::string& label, TraceBuilder& builder, const TelemetryImportOptions& options,
            double offset)
      : host_(std::move(host)), label_(label), builder_(builder), options_(options), offset_(offset) {
    if (!options.columns.empty()) {
      // Fields given by the user for a file without header: `power.draw` or `power.draw [W]`.
      std::vector<Column> given;
      for (const auto& c : options.columns) given.push_back(parse_header_cell(c));
      set_columns(given, 0);
      builder_.note("columns from the --columns option");
    }
  }

  void line(std::string_view text, std::size_t n) {
    const auto cells = split_on(text, ',');
    if (!have_columns_) {
      if (looks_like_data(cells[0], offset_))
        fail(label_, n,
             "no header line (a file written with --format=csv,noheader needs its fields in order: "
             "--columns timestamp,index,power.draw,...)");
      read_header(cells, n);
      return;
    }
    if (header_line_ == 0 && !options_.columns.empty() && !looks_like_data(cells[0], offset_)) {
      // A header although --columns was given: the header wins.
      read_header(cells, n);
      builder_.note("the file has a header line; --columns was not used");
      return;
    }
    header_line_ = header_line_ == 0 ? n : header_line_;
    SmiRow row;
    row.line = n;
    try {
      parse_row(cells, row);
    } catch (const ImpossibleValue& p) {
      builder_.bad_line(n, p.what(), true);
      row.bad = true;
    } catch (const RowProblem& p) {
      builder_.bad_line(n, p.what());
      row.bad = true;
    }
    if (!learned_) {
      pending_.push_back(std::move(row));
      if (pending_.size() >= learning_rows) learn();
      return;
    }
    place(std::move(row));
  }

  void finish() {
    if (!learned_) learn();
    flush(true);
    const std::string who = host_.empty() ? std::string() : " of " + host_;
    if (max_spread_ > 0.0)
      builder_.note(fmt::format("rows of one tick{} are up to {} apart: each tick is one sample, at the time of its "
                                "first row",
                                who, ms_text(max_spread_)));
    for (const auto& [index, reset] : reset_rows_)
      builder_.warn(fmt::format("GPU {}{}: {} row{} read [GPU requires reset] (first at line {}); their values are "
                                "missing",
                                index, who, reset.first, reset.first == 1 ? "" : "s", reset.second));
  }

 private:
  void read_header(const std::vector<std::string_view>& cells, std::size_t n) {
    std::vector<Column> header;
    for (const auto cell : cells) header.push_back(parse_header_cell(cell));
    header_line_ = n;
    set_columns(header, n);
  }

  void set_columns(const std::vector<Column>& given, std::size_t at) {
    columns_ = given;
    const auto& quantities = telemetry_quantities();
    std::vector<std::string> ignored, all;
    bool has_time = false, has_quantity = false;
    int uuid = -1, bus = -1, serial = -1;
    has_index_ = false;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      Column& c = columns_[i];
      all.push_back(c.name);
      if (!classify(c)) {
        ignored.push_back(c.name);
        continue;
      }
      for (const auto& other : columns_) {
        if (&other == &c) break;
        if (lower(other.name) == lower(c.name)) fail(label_, at, fmt::format("duplicate column '{}'", c.name));
      }
      switch (c.role) {
        case Role::timestamp:
          has_time = true;
          break;
        case Role::index:
          has_index_ = true;
          break;
        case Role::uuid:
          uuid = static_cast<int>(i);
          break;
        case Role::bus_id:
          bus = static_cast<int>(i);
          break;
        case Role::serial:
          serial = static_cast<int>(i);
          break;
        case Role::value:
          check_unit(label_, at, c.name, c.header_unit, quantities[c.quantity].unit);
          builder_.declare(c.quantity);
          has_quantity = true;
          break;
        case Role::mask:
        case Role::reason:
          builder_.declare(q_clock_event_reasons);
          has_quantity = true;
          break;
        case Role::ignored:
          break;
      }
    }
    if (!has_time)
      fail(label_, at, "no 'timestamp' column (query it first: nvidia-smi --query-gpu=timestamp,index,...)");
    if (!has_quantity) {
      std::string names;
      for (const auto& a : all) names += (names.empty() ? "" : ", ") + a;
      fail(label_, at,
           fmt::format("no telemetry quantity among the columns ({}); query power.draw, temperature.gpu, clocks.sm, "
                       "... (docs/telemetry.md lists the fields read)",
                       names));
    }
    builder_.ignored("columns", ignored);
    id_column_ = uuid >= 0 ? uuid : bus >= 0 ? bus : serial;
    if (has_index_) {
      grouping_ = Grouping::index;
    } else if (id_column_ >= 0) {
      grouping_ = Grouping::id;
      builder_.note(fmt::format("no index column: GPUs are numbered in the order their {} first appears",
                                columns_[static_cast<std::size_t>(id_column_)].name));
    } else {
      grouping_ = Grouping::position;
      if (options_.gpus > 0)
        builder_.note(fmt::format("no index, uuid or pci.bus_id column: every {} consecutive rows are one tick, "
                                  "GPUs numbered by their row in it (--gpus)",
                                  options_.gpus));
      else
        builder_.note(
            "no index, uuid or pci.bus_id column: rows are grouped into ticks by the pauses between them, GPUs "
            "numbered by their row in the tick");
    }
    have_columns_ = true;
  }

  void parse_row(const std::vector<std::string_view>& cells, SmiRow& row) {
    if (cells.size() != columns_.size())
      throw RowProblem(fmt::format("expected {} fields, found {}", columns_.size(), cells.size()));
    const auto& quantities = telemetry_quantities();
    row.values.assign(q_count, nan);
    std::uint64_t mask = 0;
    bool mask_given = false;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const Column& c = columns_[i];
      const std::string_view cell = cells[i];
      if (cell.starts_with('[') && lower(cell) == "[gpu requires reset]") row.requires_reset = true;
      switch (c.role) {
        case Role::ignored:
          break;
        case Role::timestamp: {
          const auto t = parse_timestamp(cell, offset_);
          if (!t) throw RowProblem(fmt::format("{}: '{}' is not a valid timestamp", c.name, cell));
          row.time = *t;
          break;
        }
        case Role::index:
          row.index = parse_gpu_index(cell, c.name);
          break;
        case Role::uuid:
        case Role::bus_id:
        case Role::serial:
          if (c.role == Role::uuid && !is_missing(cell)) row.uuid = std::string(cell);
          if (static_cast<int>(i) == id_column_ && grouping_ == Grouping::id) {
            if (is_missing(cell))
              throw RowProblem(fmt::format("{}: '{}' does not tell which GPU the row is", c.name, cell));
            row.id = std::string(cell);
          }
          break;
        case Role::value: {
          const std::string& si = quantities[c.quantity].unit;
          const std::string& unit = c.header_unit.empty() ? c.default_unit : c.header_unit;
          row.values[c.quantity] = cell_value(cell, c.quantity, c.name, unit, si, units_, builder_);
          break;
        }
        case Role::mask:
          if (is_missing(cell)) {
            builder_.missing(c.name, cell);
          } else {
            mask |= parse_mask(cell, c.name);
            mask_given = true;
          }
          break;
        case Role::reason: {
          if (is_missing(cell)) {
            builder_.missing(c.name, cell);
            break;
          }
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
    if (mask_given) row.values[q_clock_event_reasons] = static_cast<double>(mask);
  }

  /// Finds the gap that separates ticks from the rows read so far, then places them.
  void learn() {
    learned_ = true;
    std::vector<double> gaps;
    const SmiRow* previous = nullptr;
    for (const auto& row : pending_) {
      if (row.bad) continue;
      if (previous) gaps.push_back(std::max(row.time - previous->time, gap_floor));
      previous = &row;
    }
    std::sort(gaps.begin(), gaps.end());
    double best = 1.0;
    for (std::size_t k = 0; k + 1 < gaps.size() && gaps[k] <= tick_window; ++k)
      if (gaps[k + 1] / gaps[k] > best) {
        best = gaps[k + 1] / gaps[k];
        threshold_ = std::sqrt(gaps[k] * gaps[k + 1]);
      }
    if (best < split_ratio) {
      // No pause between ticks stands out: every row is its own tick, unless rows are only a few ms
      // apart (one query of every GPU, or a loop faster than the GPUs can be queried).
      threshold_ = tick_window;
      const bool in_between = std::any_of(gaps.begin(), gaps.end(), [](double g) { return g > gap_floor && g <= tick_window; });
      if (grouping_ == Grouping::position && options_.gpus <= 0 && in_between) {
        std::size_t first_line = 0;
        for (const auto& row : pending_)
          if (!row.bad) {
            first_line = row.line;
            break;
          }
        fail(label_, first_line,
             fmt::format("cannot tell the GPUs apart: rows are {} to {} apart with no longer pause between ticks "
                         "(query index, uuid or pci.bus_id, or give the number of GPUs with --gpus)",
                         ms_text(gaps.front() > gap_floor ? gaps.front() : 0.0), ms_text(gaps.back())));
      }
    }
    auto rows = std::move(pending_);
    pending_.clear();
    for (auto& row : rows) place(std::move(row));
  }

  /// Adds a row to the current tick, closing the tick first when the row starts the next one.
  void place(SmiRow row) {
    if (grouping_ == Grouping::position) {
      if (options_.gpus > 0) {
        if (tick_.size() == static_cast<std::size_t>(options_.gpus)) flush();
        tick_.push_back(std::move(row));
        return;
      }
      if (row.bad) {
        if (gpus_per_tick_ > 0 && tick_.size() >= static_cast<std::size_t>(gpus_per_tick_)) flush();
        tick_.push_back(std::move(row));
        return;
      }
      if (!std::isnan(last_time_) && row.time - last_time_ > threshold_) flush();
      if (gpus_per_tick_ > 0 && tick_.size() >= static_cast<std::size_t>(gpus_per_tick_)) {
        builder_.bad_line(row.line, fmt::format("tick at {} has more rows than the {} GPUs of the first tick",
                                                format_time(tick_time()), gpus_per_tick_));
        return;
      }
      last_time_ = row.time;
      tick_.push_back(std::move(row));
      return;
    }
    if (row.bad) return;
    const std::string key = grouping_ == Grouping::index ? std::to_string(row.index) : row.id;
    if (!tick_.empty() && (keys_.contains(key) || row.time - last_time_ > threshold_)) flush();
    keys_.insert(key);
    last_time_ = row.time;
    tick_.push_back(std::move(row));
  }

  [[nodiscard]] double tick_time() const {
    for (const auto& r : tick_)
      if (!r.bad) return r.time;
    return nan;
  }

  /// Adds the rows of the current tick to the trace, all at the time of its first row. `at_end`: the
  /// file ends with this tick, which may then be cut short (nvidia-smi stopped while it wrote it):
  /// its rows are the first GPUs.
  void flush(bool at_end = false) {
    if (tick_.empty()) return;
    const double time = tick_time();
    std::vector<SmiRow> rows = std::move(tick_);
    tick_.clear();
    keys_.clear();
    if (std::isnan(time)) return;  // bad lines only
    if (grouping_ == Grouping::position && options_.gpus <= 0) {
      if (gpus_per_tick_ < 0) {
        gpus_per_tick_ = static_cast<int>(rows.size());
      } else if (rows.size() < static_cast<std::size_t>(gpus_per_tick_) && at_end) {
        builder_.note(fmt::format("the file ends within its last tick{}: {} of {} rows, the first GPUs",
                                  host_.empty() ? std::string() : " of " + host_, rows.size(), gpus_per_tick_));
      } else if (rows.size() < static_cast<std::size_t>(gpus_per_tick_)) {
        for (const auto& r : rows)
          if (!r.bad)
            builder_.bad_line(r.line, fmt::format("tick at {} has {} row{}, fewer than the {} GPUs of the first tick: "
                                                  "which GPU is missing is unknown (query index, uuid or pci.bus_id)",
                                                  format_time(time), rows.size(), rows.size() == 1 ? "" : "s",
                                                  gpus_per_tick_));
        return;
      }
    }
    double last = time;
    for (std::size_t position = 0; position < rows.size(); ++position) {
      const SmiRow& r = rows[position];
      if (r.bad) continue;
      int index = static_cast<int>(position);
      if (grouping_ == Grouping::index) {
        index = r.index;
      } else if (grouping_ == Grouping::id) {
        index = id_index_.try_emplace(r.id, static_cast<int>(id_index_.size())).first->second;
      }
      last = std::max(last, r.time);
      if (r.requires_reset) {
        auto& [count, first] = reset_rows_[index];
        if (count++ == 0) first = r.line;
      }
      builder_.add(GpuKey{host_, index}, r.uuid, time, r.values, r.line);
    }
    max_spread_ = std::max(max_spread_, last - time);
  }

  std::string host_;
  const std::string& label_;
  TraceBuilder& builder_;
  const TelemetryImportOptions& options_;
  double offset_;
  UnitCache units_;

  std::vector<Column> columns_;
  bool have_columns_ = false;
  std::size_t header_line_ = 0;
  bool has_index_ = false;
  int id_column_ = -1;
  Grouping grouping_ = Grouping::position;

  bool learned_ = false;
  std::vector<SmiRow> pending_;
  double threshold_ = tick_window;

  std::vector<SmiRow> tick_;
  std::set<std::string> keys_;
  double last_time_ = nan;
  int gpus_per_tick_ = -1;
  std::map<std::string, int> id_index_;
  double max_spread_ = 0.0;
  std::map<int, std::pair<std::size_t, std::size_t>> reset_rows_;  // index -> (rows, first line)
};

}  // namespace

void read_nvidia_smi_csv(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                         double offset) {
  const std::string& label = reader.label();
  std::map<std::string, std::unique_ptr<SmiSource>, std::less<>> sources;
  std::optional<bool> pdsh;
  std::string line;
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    if (trim(line).empty()) continue;
    std::string_view text = line;
    std::string_view host;
    const auto prefixed = host_prefix(text);
    if (!pdsh) {
      pdsh = prefixed.has_value();
      if (*pdsh) builder.note("pdsh output: every line starts with its host; GPUs are told apart per host");
    }
    if (*pdsh) {
      if (!prefixed) {
        builder.bad_line(n, "no 'host: ' prefix, although the file's first line has one (pdsh output)");
        continue;
      }
      host = prefixed->first;
      text = prefixed->second;
      if (trim(text).empty()) continue;
    }
    auto it = sources.find(host);
    if (it == sources.end())
      it = sources.emplace(std::string(host), std::make_unique<SmiSource>(std::string(host), label, builder, options,
                                                                           offset))
               .first;
    it->second->line(text, n);
  }
  for (auto& [host, source] : sources) source->finish();
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
        builder.ignored("columns", ignored);
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
        values[q] = cell_value(cells[i], q, names[i], units[i], quantities[q].unit, cache, builder);
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
