// The exception for problems with user input (scenario, telemetry file, command line).
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "dctwin/core/printable.hpp"

namespace dctwin::core {

/// A problem with user input (scenario, telemetry file, command line). The message is complete
/// and ready to print; `key_path` names the offending key when there is one, so that io/ can add
/// the file, line and column of that key. Messages quote what users wrote (file names, cells,
/// headers, names), so the message is stored through `printable()` (printable.hpp): control
/// characters, line breaks included, and bytes that are not UTF-8 appear as visible escapes
/// (`\x1b`, `\n`) and never reach a terminal as such.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message, std::string key_path = {})
      : std::runtime_error(printable(message)), key_path_(std::move(key_path)) {}
  [[nodiscard]] const std::string& key_path() const noexcept { return key_path_; }

 private:
  std::string key_path_;
};

}  // namespace dctwin::core
