#include "dctwin/io/weather_csv.hpp"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"
#include "weather_text.hpp"

namespace dctwin::io {

namespace {

using models::facility::WeatherSeries;

constexpr double kelvin_offset = 273.15;

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::string celsius(double kelvin) { return format_number(kelvin - kelvin_offset) + " degC"; }

/// Reads exactly `count` decimal digits at `pos` (advancing it) into `value`.
bool read_digits(std::string_view text, std::size_t& pos, int count, int& value) {
  if (pos + static_cast<std::size_t>(count) > text.size()) return false;
  value = 0;
  for (int i = 0; i < count; ++i) {
    const char c = text[pos++];
    if (c < '0' || c > '9') return false;
    value = 10 * value + (c - '0');
  }
  return true;
}

bool expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

/// A timestamp looks like an ISO date when it starts with four digits and a dash.
bool looks_like_date(std::string_view text) {
  if (text.size() < 5 || text[4] != '-') return false;
  for (int i = 0; i < 4; ++i)
    if (text[static_cast<std::size_t>(i)] < '0' || text[static_cast<std::size_t>(i)] > '9') return false;
  return true;
}

struct Column {
  std::string name;
  std::string unit;
  int index = -1;
  int header_position = 0;  // 1-based, for messages
};

class Reader {
 public:
  Reader(std::string label, models::facility::WeatherInterpolation interpolation)
      : label_(std::move(label)), interpolation_(interpolation) {}

  WeatherSeries read(const std::string& text) {
    std::size_t start = 0;
    int line_number = 0;
    bool header_seen = false;
    while (start <= text.size()) {
      auto end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string_view line = trim(std::string_view(text).substr(start, end - start));
      ++line_number;
      start = end + 1;
      if (line.empty() || line.front() == '#') {
        if (end == text.size()) break;
        continue;
      }
      if (!header_seen) {
        header(line, line_number);
        header_seen = true;
      } else {
        row(line, line_number);
      }
      if (end == text.size()) break;
    }
    if (!header_seen) fail(0, "no header line (expected the columns time, dry_bulb, wet_bulb)");
    if (times_.empty()) fail(0, "no data rows");
    if (iso_time_) {
      const double origin = times_.front();
      for (double& t : times_) t -= origin;
    }
    return WeatherSeries(std::move(times_), std::move(dry_), std::move(wet_), interpolation_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& problem) const {
    const std::string where = line > 0 ? label_ + ":" + std::to_string(line) : label_;
    throw WeatherFileError(where + ": " + problem, core::SourceLocation{label_, line, 0});
  }

  void header(std::string_view line, int line_number) {
    const auto fields = split_fields(line);
    field_count_ = fields.size();
    std::vector<std::string> found;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      std::string_view name = fields[i];
      std::string unit;
      if (const auto open = name.find('['); open != std::string_view::npos) {
        const auto close = name.find(']', open);
        if (close != std::string_view::npos) unit = std::string(trim(name.substr(open + 1, close - open - 1)));
        name = trim(name.substr(0, open));
      }
      found.emplace_back(name);
      Column* column = name == "time" ? &time_ : name == "dry_bulb" ? &dry_bulb_ : name == "wet_bulb" ? &wet_bulb_ : nullptr;
      if (column == nullptr) continue;
      if (column->index >= 0)
        fail(line_number, "duplicate column '" + std::string(name) + "' (also column " +
                              std::to_string(column->header_position) + ")");
      column->name = std::string(name);
      column->unit = unit;
      column->index = static_cast<int>(i);
      column->header_position = static_cast<int>(i) + 1;
      const char* si = column == &time_ ? "s" : "K";
      if (!unit.empty()) {
        if (!is_known_unit(unit)) fail(line_number, "column '" + column->name + "': unknown unit '" + unit + "'");
        if (!are_convertible(unit, si))
          fail(line_number, "column '" + column->name + "': unit '" + unit + "' is not convertible to '" + si + "'");
      }
    }
    for (const char* required : {"time", "dry_bulb", "wet_bulb"}) {
      const Column& c = std::string_view(required) == "time" ? time_ : std::string_view(required) == "dry_bulb" ? dry_bulb_ : wet_bulb_;
      if (c.index >= 0) continue;
      std::string list;
      for (const auto& name : found) list += (list.empty() ? "" : ", ") + name;
      fail(line_number, "missing column '" + std::string(required) + "' (found: " + list + ")");
    }
  }

  double temperature(std::string_view cell, const Column& column, int line_number) const {
    try {
      const Quantity q = parse_quantity(cell);
      const std::string& unit = q.unit.empty() ? column.unit : q.unit;
      const double kelvin = unit.empty() ? q.number : convert(q.number, unit, "K");
      if (!std::isfinite(kelvin)) fail(line_number, column.name + ": '" + std::string(trim(cell)) + "' is not a finite number in K");
      return kelvin;
    } catch (const UnitError& e) {
      fail(line_number, column.name + ": " + e.what());
    }
  }

  double time(std::string_view cell, int line_number) {
    const std::string text(cell);
    if (looks_like_date(cell)) {
      if (!time_.unit.empty()) fail(line_number, "time: ISO-8601 timestamp in a column with unit '" + time_.unit + "'");
      double seconds = 0.0;
      bool has_zone = false;
      if (!parse_iso8601(text, seconds, has_zone))
        fail(line_number, "time: '" + text + "' is not a valid ISO-8601 timestamp");
      if (iso_time_ && !*iso_time_) fail(line_number, "time: '" + text + "' is an ISO-8601 timestamp, but earlier rows give numbers");
      if (iso_time_ && has_zone != zoned_)
        fail(line_number, "time: '" + text + (has_zone ? "' has a time zone, but earlier rows have none"
                                                       : "' has no time zone, but earlier rows have one"));
      iso_time_ = true;
      zoned_ = has_zone;
      return seconds;
    }
    if (iso_time_ && *iso_time_) fail(line_number, "time: '" + text + "' is a number, but earlier rows give ISO-8601 timestamps");
    iso_time_ = false;
    try {
      const Quantity q = parse_quantity(cell);
      const std::string& unit = q.unit.empty() ? time_.unit : q.unit;
      const double seconds = unit.empty() ? q.number : convert(q.number, unit, "s");
      // A huge time in a large unit (1e308 h) overflows in the conversion.
      if (!std::isfinite(seconds)) fail(line_number, "time: '" + text + "' is not a finite number in s");
      return seconds;
    } catch (const UnitError& e) {
      fail(line_number, std::string("time: ") + e.what());
    }
  }

  void row(std::string_view line, int line_number) {
    const auto fields = split_fields(line);
    if (fields.size() != field_count_)
      fail(line_number, "expected " + std::to_string(field_count_) + " fields, found " + std::to_string(fields.size()));
    const double t = time(fields[static_cast<std::size_t>(time_.index)], line_number);
    const double db = temperature(fields[static_cast<std::size_t>(dry_bulb_.index)], dry_bulb_, line_number);
    const double wb = temperature(fields[static_cast<std::size_t>(wet_bulb_.index)], wet_bulb_, line_number);
    if (!times_.empty() && !(t > times_.back())) {
      const double origin = *iso_time_ ? times_.front() : 0.0;
      fail(line_number, "time " + format_number(t - origin) + " s is not after the previous row's " +
                            format_number(times_.back() - origin) + " s (line " + std::to_string(last_line_) + ")");
    }
    for (const auto& [value, name] : {std::pair{db, "dry_bulb"}, std::pair{wb, "wet_bulb"}})
      if (value < WeatherSeries::min_plausible_temperature || value > WeatherSeries::max_plausible_temperature)
        fail(line_number, std::string(name) + " " + celsius(value) +
                              " is outside the plausible range -90 to 60 degC (check the column's unit)");
    if (wb > db + WeatherSeries::wet_bulb_tolerance)
      fail(line_number, "wet_bulb " + celsius(wb) + " is above dry_bulb " + celsius(db));
    times_.push_back(t);
    dry_.push_back(db);
    wet_.push_back(wb);
    last_line_ = line_number;
  }

  std::string label_;
  models::facility::WeatherInterpolation interpolation_;
  Column time_, dry_bulb_, wet_bulb_;
  std::size_t field_count_ = 0;
  std::optional<bool> iso_time_;
  bool zoned_ = false;
  int last_line_ = 0;
  std::vector<double> times_, dry_, wet_;
};

}  // namespace

bool parse_iso8601(const std::string& input, double& seconds, bool& has_zone) {
  const std::string_view text = trim(input);
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  double fraction = 0.0, offset_seconds = 0.0;
  if (!read_digits(text, pos, 4, year) || !expect(text, pos, '-') || !read_digits(text, pos, 2, month) ||
      !expect(text, pos, '-') || !read_digits(text, pos, 2, day))
    return false;
  has_zone = false;
  if (pos < text.size()) {
    if (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ') return false;
    ++pos;
    if (!read_digits(text, pos, 2, hour) || !expect(text, pos, ':') || !read_digits(text, pos, 2, minute)) return false;
    if (pos < text.size() && text[pos] == ':') {
      ++pos;
      if (!read_digits(text, pos, 2, second)) return false;
      if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
        ++pos;
        double scale = 0.1;
        const std::size_t first = pos;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
          fraction += scale * (text[pos++] - '0');
          scale *= 0.1;
        }
        if (pos == first) return false;
      }
    }
    if (pos < text.size()) {
      if (text[pos] == 'Z' || text[pos] == 'z') {
        ++pos;
      } else if (text[pos] == '+' || text[pos] == '-') {
        const int sign = text[pos] == '-' ? -1 : 1;
        ++pos;
        int zone_hours = 0, zone_minutes = 0;
        if (!read_digits(text, pos, 2, zone_hours)) return false;
        if (pos < text.size() && text[pos] == ':') ++pos;
        if (pos < text.size() && !read_digits(text, pos, 2, zone_minutes)) return false;
        if (zone_hours > 18 || zone_minutes > 59) return false;
        offset_seconds = sign * (3600.0 * zone_hours + 60.0 * zone_minutes);
      } else {
        return false;
      }
      if (pos != text.size()) return false;
      has_zone = true;
    }
  }
  // 24:00 (end of the day) is allowed; a leap second 60 is accepted as written.
  if (minute > 59 || second > 60 || hour > 24 || (hour == 24 && (minute != 0 || second != 0 || fraction > 0.0)))
    return false;
  using namespace std::chrono;
  const year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                            std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return false;
  const auto days_since_epoch = static_cast<double>(sys_days{date}.time_since_epoch().count());
  // Local time = UTC + offset, so UTC = local - offset.
  seconds = 86400.0 * days_since_epoch + 3600.0 * hour + 60.0 * minute + second + fraction - offset_seconds;
  return true;
}

models::facility::WeatherSeries parse_weather_csv(const std::string& text, const std::string& label,
                                                  models::facility::WeatherInterpolation interpolation) {
  return Reader(label, interpolation).read(text);
}

std::string read_weather_text(const std::filesystem::path& file) {
  const std::string label = file.string();
  const auto failure = [&](const char* what, int error_number) {
    return MissingInputError(label + ": " + what + " weather file (" + std::generic_category().message(error_number) +
                             ")");
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> stream(std::fopen(label.c_str(), "rb"), &std::fclose);
  if (!stream) throw failure("cannot open", errno);
  std::string text;
  char buffer[65536];
  while (true) {
    const std::size_t count = std::fread(buffer, 1, sizeof buffer, stream.get());
    text.append(buffer, count);
    if (count < sizeof buffer) break;
  }
  if (std::ferror(stream.get()) != 0) throw failure("cannot read", errno != 0 ? errno : EIO);
  return text;
}

models::facility::WeatherSeries load_weather_csv(const std::filesystem::path& file,
                                                 models::facility::WeatherInterpolation interpolation) {
  return parse_weather_csv(read_weather_text(file), file.string(), interpolation);
}

}  // namespace dctwin::io
