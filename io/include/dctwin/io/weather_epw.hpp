// Weather files in the EnergyPlus Weather format (EPW), as published for thousands of stations
// (TMY3, IWEC, ...): outdoor dry bulb, dew point, relative humidity and station pressure hour by
// hour; the wet bulb the plant needs is computed from them by psychrometrics.
//
// Format (EnergyPlus "Auxiliary Programs", section "EnergyPlus Weather File (EPW) Data
// Dictionary"): eight header lines (LOCATION, DESIGN CONDITIONS, TYPICAL/EXTREME PERIODS, GROUND
// TEMPERATURES, HOLIDAYS/DAYLIGHT SAVINGS, COMMENTS 1, COMMENTS 2, DATA PERIODS), then one
// comma-separated row per record with at least these fields:
//   1 year, 2 month, 3 day, 4 hour (1-24: the hour ending at that clock hour), 5 minute,
//   6 data source and uncertainty flags, 7 dry bulb [degC], 8 dew point [degC],
//   9 relative humidity [%], 10 station pressure [Pa]
// Missing values are coded 99.9 (temperatures), 999 (humidity) and 999999 (pressure).
//
// Time: a record at month M, day D, hour H, minute m sits at clock time H:00 of that day when m is
// 0 or 60 (hourly files: the hour's end, where TMY data give the dry bulb), at (H-1):m otherwise
// (sub-hourly files), counted in seconds from 1 January 00:00 of a year without 29 February unless
// the file holds a 29 February (typical years mix source years; the year field is not used).
// Wet bulb: the humidity ratio from the dew point at the station pressure (ASHRAE
// Handbook-Fundamentals 2017 ch. 1 eqs. 20 and 5/6), or from the relative humidity where the dew
// point is missing, then the thermodynamic wet bulb (eq. 33/35); a dew point above the dry bulb
// (rounding in the data) gives a saturated record. A missing pressure is taken from the LOCATION
// line's elevation (standard atmosphere, eq. 3).
//
// Errors name the file as given and the 1-based line (WeatherFileError, weather_csv.hpp):
//   FILE: not an EPW file (the first line must start with LOCATION)
//   FILE: no data rows
//   FILE:L: expected at least 10 fields, found 7
//   FILE:L: month: '13' is not a whole number from 1 to 12      (day, hour 1-24, minute 0-60 alike)
//   FILE:L: dry_bulb: 'abc' is not a number
//   FILE:L: dry bulb is missing (99.9)
//   FILE:L: dew point and relative humidity are both missing
//   FILE:L: time 02-01 01:00 is not after the previous record's 02-01 01:00 (line 33)
#pragma once

#include <filesystem>
#include <string>

#include "dctwin/io/weather_csv.hpp"

namespace dctwin::io {

/// Reads an EPW file (format above). Throws MissingInputError if it cannot be read,
/// WeatherFileError otherwise.
[[nodiscard]] models::facility::WeatherSeries load_weather_epw(
    const std::filesystem::path& file,
    models::facility::WeatherInterpolation interpolation = models::facility::WeatherInterpolation::linear);

/// The same, from text already in memory; `label` names the file in messages.
[[nodiscard]] models::facility::WeatherSeries parse_weather_epw(
    const std::string& text, const std::string& label,
    models::facility::WeatherInterpolation interpolation = models::facility::WeatherInterpolation::linear);

/// A weather file by its name: `.epw` (any case) as EPW, anything else as the CSV format.
[[nodiscard]] models::facility::WeatherSeries load_weather_file(
    const std::filesystem::path& file,
    models::facility::WeatherInterpolation interpolation = models::facility::WeatherInterpolation::linear);

}  // namespace dctwin::io
