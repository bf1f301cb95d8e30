// The scratch directories of the report tests: one empty directory per test case, below the build
// tree (tests/io/report/scratch/<name>).
#pragma once

#include <filesystem>
#include <string>

namespace test_support {

/// An empty directory `name` for one test case: removed with its contents, then created again.
inline std::filesystem::path report_scratch_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "report" / "scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace test_support
