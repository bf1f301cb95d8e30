// Weather files: outdoor dry and wet bulb against time, as CSV.
//
//   # Lines starting with '#' are comments (source, units, ...); blank lines are skipped.
//   time,dry_bulb [degC],wet_bulb [degC]
//   2024-07-21T00:00:00-07:00,25.74,11.62
//   2024-07-21T01:00:00-07:00,24.22,11.04
//
// The first other line is the header: comma-separated column names, each optionally followed by its
// unit in brackets (`dry_bulb [degC]`, `time [h]`; udunits2 names, see units.hpp). The columns
// `time`, `dry_bulb` and `wet_bulb` are required, in any order; other columns are ignored. Without a
// unit, temperatures are in K and times in s. A cell may carry its own unit (`25 degC`), which then
// wins over the header's.
//
// Time is either a number (seconds, or the header's time unit), taken as the series' time as is,
// or an ISO-8601 timestamp `YYYY-MM-DD[Thh:mm[:ss[.fff]]][Z|+hh:mm|-hh:mm|+hhmm|-hhmm]` (a space may
// replace the `T`), converted to seconds after the first row's timestamp (so the series starts at
// t = 0). Either all timestamps carry a zone offset or none does; without one they are taken as
// written (no daylight-saving shifts). One file uses one kind of time.
//
// Errors name the file as given and the 1-based line; messages exactly as below:
//   FILE: cannot open weather file (No such file or directory)          MissingInputError
//   FILE: no header line (expected the columns time, dry_bulb, wet_bulb)
//   FILE: no data rows
//   FILE:L: missing column 'wet_bulb' (found: time, dry_bulb)
//   FILE:L: duplicate column 'time' (also column 1)
//   FILE:L: column 'dry_bulb': unknown unit 'degX'
//   FILE:L: column 'dry_bulb': unit 'kW' is not convertible to 'K'
//   FILE:L: expected 3 fields, found 2
//   FILE:L: dry_bulb: 'abc' is not a number                     (or 'nan' is not a finite number)
//   FILE:L: time: '1e308 h' is not a finite number in s      (overflow in the unit conversion; also
//                                                             for temperatures, `in K`)
//   FILE:L: time: '2024-02-30T00:00' is not a valid ISO-8601 timestamp
//   FILE:L: time: '3600' is a number, but earlier rows give ISO-8601 timestamps  (and the reverse)
//   FILE:L: time: '2024-07-21T01:00' has no time zone, but earlier rows have one (and the reverse)
//   FILE:L: time: ISO-8601 timestamp in a column with unit 'h'
//   FILE:L: time 3600 s is not after the previous row's 3600 s (line 6)
//   FILE:L: wet_bulb 31 degC is above dry_bulb 30 degC
//   FILE:L: dry_bulb -248.15 degC is outside the plausible range -90 to 60 degC (check the column's unit)
// (L is the header's line for header problems, the row's line otherwise.)
#pragma once

#include <filesystem>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/models/facility/weather.hpp"

namespace dctwin::io {

/// A problem in the content of a weather file; `location()` gives file and line (column 0).
class WeatherFileError : public core::InputError {
 public:
  WeatherFileError(const std::string& message, core::SourceLocation location)
      : core::InputError(message), location_(std::move(location)) {}
  [[nodiscard]] const core::SourceLocation& location() const noexcept { return location_; }

 private:
  core::SourceLocation location_;
};

/// Reads a weather CSV file (format above) into a series with the given interpolation.
/// Throws MissingInputError (scenario.hpp) if the file cannot be read, WeatherFileError otherwise.
[[nodiscard]] models::facility::WeatherSeries load_weather_csv(
    const std::filesystem::path& file,
    models::facility::WeatherInterpolation interpolation = models::facility::WeatherInterpolation::linear);

/// The same, from text already in memory; `label` names the file in messages.
[[nodiscard]] models::facility::WeatherSeries parse_weather_csv(
    const std::string& text, const std::string& label,
    models::facility::WeatherInterpolation interpolation = models::facility::WeatherInterpolation::linear);

/// Seconds since 1970-01-01T00:00:00Z of an ISO-8601 timestamp (format above; no zone = taken as
/// UTC), and whether a zone was written. Returns false if `text` is not a valid timestamp.
bool parse_iso8601(const std::string& text, double& seconds, bool& has_zone);

}  // namespace dctwin::io
