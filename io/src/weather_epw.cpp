#include "dctwin/io/weather_epw.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/models/thermal/air.hpp"
#include "weather_text.hpp"

namespace dctwin::io {

namespace {

using models::facility::WeatherSeries;
namespace psy = models::thermal::psychrometrics;

constexpr double kelvin_offset = 273.15;
// Missing-value codes of the EPW data dictionary.
constexpr double missing_temperature = 99.9;
constexpr double missing_humidity = 999.0;
constexpr double missing_pressure = 999999.0;
constexpr std::array<int, 12> days_in_month{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

/// Standard-atmosphere pressure at an elevation [Pa] (ASHRAE Handbook-Fundamentals 2017 ch. 1,
/// eq. 3: p = 101.325 (1 - 2.25577e-5 Z)^5.2559 kPa, Z in m).
double standard_pressure(double elevation) { return 101325.0 * std::pow(1.0 - 2.25577e-5 * elevation, 5.2559); }

class Reader {
 public:
  explicit Reader(std::string label) : label_(std::move(label)) {}

  WeatherSeries read(const std::string& text, models::facility::WeatherInterpolation interpolation) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start < text.size();) {
      const auto end = text.find('\n', start);
      lines.push_back(std::string_view(text).substr(start, end == std::string::npos ? std::string::npos : end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (lines.empty() || trim(lines[0]).substr(0, 8) != "LOCATION")
      throw WeatherFileError(label_ + ": not an EPW file (the first line must start with LOCATION)", {label_, 0, 0});
    // LOCATION,city,state,country,source,WMO,latitude,longitude,time zone,elevation [m]
    double elevation = 0.0;
    if (const auto location = split(lines[0]); location.size() >= 10) {
      double z = 0.0;
      if (number(location[9], z) && z > -500.0 && z < 9000.0) elevation = z;
    }
    const double default_pressure = standard_pressure(elevation);

    // Data rows start with the year, a number; header lines with a keyword.
    struct Row { int line, month, day, hour, minute; double dry_bulb, dew_point, humidity, pressure; };
    std::vector<Row> rows;
    bool leap = false;
    for (std::size_t k = 1; k < lines.size(); ++k) {
      const std::string_view line = trim(lines[k]);
      const bool numeric = !line.empty() && ((line[0] >= '0' && line[0] <= '9') || line[0] == '-');
      if (!numeric) continue;
      const int at = static_cast<int>(k) + 1;
      const auto f = split(line);
      if (f.size() < 10)
        fail(at, "expected at least 10 fields, found " + std::to_string(f.size()));
      Row row{at, whole(at, "month", f[1], 1, 12), whole(at, "day", f[2], 1, 31), whole(at, "hour", f[3], 1, 24),
              whole(at, "minute", f[4], 0, 60), real(at, "dry_bulb", f[6]), real(at, "dew_point", f[7]),
              real(at, "relative_humidity", f[8]), real(at, "pressure", f[9])};
      if (row.month == 2 && row.day == 29) leap = true;
      rows.push_back(row);
    }
    if (rows.empty()) throw WeatherFileError(label_ + ": no data rows", {label_, 0, 0});

    std::vector<double> time, dry, wet;
    time.reserve(rows.size());
    dry.reserve(rows.size());
    wet.reserve(rows.size());
    for (const Row& row : rows) {
      const int month_days = days_in_month[static_cast<std::size_t>(row.month - 1)] + (leap && row.month == 2 ? 1 : 0);
      if (row.day > month_days)
        fail(row.line, "day: '" + std::to_string(row.day) + "' is not a day of month " + std::to_string(row.month));
      int day_of_year = row.day - 1;
      for (int m = 1; m < row.month; ++m)
        day_of_year += days_in_month[static_cast<std::size_t>(m - 1)] + (leap && m == 2 ? 1 : 0);
      const double clock = (row.minute == 0 || row.minute == 60) ? 3600.0 * row.hour
                                                                 : 3600.0 * (row.hour - 1) + 60.0 * row.minute;
      const double t = 86400.0 * day_of_year + clock;
      if (!time.empty() && t <= time.back())
        fail(row.line, "time " + stamp(t) + " is not after the previous record's " + stamp(time.back()) +
                           " (line " + std::to_string(previous_line_) + ")");
      previous_line_ = row.line;

      if (row.dry_bulb >= missing_temperature) fail(row.line, "dry bulb is missing (99.9)");
      const double dry_bulb = row.dry_bulb + kelvin_offset;
      if (dry_bulb < WeatherSeries::min_plausible_temperature || dry_bulb > WeatherSeries::max_plausible_temperature)
        fail(row.line, "dry_bulb " + format_number(row.dry_bulb) +
                           " degC is outside the plausible range -90 to 60 degC");
      const double pressure = row.pressure >= missing_pressure || row.pressure <= 0.0 ? default_pressure : row.pressure;
      double humidity_ratio = 0.0;
      try {
        if (row.dew_point < missing_temperature) {
          const double dew_point = std::min(row.dew_point + kelvin_offset, dry_bulb);
          humidity_ratio = psy::humidity_ratio_from_vapor_pressure(psy::saturation_pressure(dew_point), pressure);
        } else if (row.humidity < missing_humidity) {
          const double phi = std::clamp(row.humidity / 100.0, 0.0, 1.0);
          humidity_ratio = psy::humidity_ratio_from_relative_humidity(dry_bulb, phi, pressure);
        } else {
          fail(row.line, "dew point and relative humidity are both missing");
        }
        humidity_ratio = std::min(humidity_ratio, psy::saturation_humidity_ratio(dry_bulb, pressure));
        wet.push_back(std::min(psy::wet_bulb_from_humidity_ratio(dry_bulb, humidity_ratio, pressure), dry_bulb));
      } catch (const WeatherFileError&) {
        throw;
      } catch (const core::InputError& e) {
        fail(row.line, e.what());
      }
      time.push_back(t);
      dry.push_back(dry_bulb);
    }
    return WeatherSeries(std::move(time), std::move(dry), std::move(wet), interpolation);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& problem) const {
    throw WeatherFileError(label_ + ":" + std::to_string(line) + ": " + problem, {label_, line, 0});
  }

  static bool number(std::string_view text, double& value) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end && std::isfinite(value);
  }

  double real(int line, const char* name, std::string_view text) const {
    double value = 0.0;
    if (!number(text, value)) fail(line, std::string(name) + ": '" + std::string(text) + "' is not a number");
    return value;
  }

  int whole(int line, const char* name, std::string_view text, int low, int high) const {
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end || value < low || value > high)
      fail(line, std::string(name) + ": '" + std::string(text) + "' is not a whole number from " +
                     std::to_string(low) + " to " + std::to_string(high));
    return value;
  }

  /// MM-DD hh:mm of a time in the EPW year.
  static std::string stamp(double t) {
    const int day_of_year = static_cast<int>(t / 86400.0);
    const int seconds = static_cast<int>(t - 86400.0 * day_of_year);
    int month = 0, day = day_of_year;
    while (month < 11 && day >= days_in_month[static_cast<std::size_t>(month)]) day -= days_in_month[static_cast<std::size_t>(month++)];
    char text[32];
    std::snprintf(text, sizeof text, "%02d-%02d %02d:%02d", month + 1, day + 1, seconds / 3600, seconds % 3600 / 60);
    return text;
  }

  std::string label_;
  int previous_line_ = 0;
};

bool has_epw_extension(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".epw";
}

}  // namespace

models::facility::WeatherSeries parse_weather_epw(const std::string& text, const std::string& label,
                                                  models::facility::WeatherInterpolation interpolation) {
  return Reader(label).read(text, interpolation);
}

models::facility::WeatherSeries load_weather_epw(const std::filesystem::path& file,
                                                 models::facility::WeatherInterpolation interpolation) {
  return parse_weather_epw(read_weather_text(file), file.string(), interpolation);
}

models::facility::WeatherSeries load_weather_file(const std::filesystem::path& file,
                                                  models::facility::WeatherInterpolation interpolation) {
  return has_epw_extension(file) ? load_weather_epw(file, interpolation) : load_weather_csv(file, interpolation);
}

}  // namespace dctwin::io
