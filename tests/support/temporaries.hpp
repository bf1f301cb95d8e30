// The temporaries dctwin writes an output under (`.<name>.XXXXXX.part` in the output's directory,
// io/output_file.hpp) that are left in a directory: none may be after a command has ended.
#pragma once

#include <filesystem>
#include <vector>

namespace test_support {

/// Every `*.part` file directly in `dir`.
inline std::vector<std::filesystem::path> temporaries_in(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".part") found.push_back(entry.path());
  return found;
}

}  // namespace test_support
