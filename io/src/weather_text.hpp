// Internal to io/: the whole text of a weather file, for the CSV and EPW readers.
#pragma once

#include <filesystem>
#include <string>

namespace dctwin::io {

/// Reads the file; throws MissingInputError "FILE: cannot open weather file (REASON)" or
/// "FILE: cannot read weather file (REASON)".
std::string read_weather_text(const std::filesystem::path& file);

}  // namespace dctwin::io
