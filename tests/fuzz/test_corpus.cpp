// Every file of the fuzz seed corpora (tests/fuzz/corpus/<target>/) through its fuzz entry point, in
// the regular build: each must be accepted or refused with the reader's documented exception type.
// Inputs that once crashed a reader are kept there too, so this is also the regression test of the
// fuzzing findings (docs/reliability.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_entries.hpp"

namespace {

const std::filesystem::path corpus_root = std::filesystem::path(DCTWIN_SOURCE_DIR) / "tests/fuzz/corpus";

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::filesystem::path> corpus_files(const std::string& target) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_root / target))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("every fuzz target has a seed corpus, and every corpus folder a target", "[fuzz]") {
  const auto names = dctwin::fuzz::target_names();
  for (const auto& name : names) {
    INFO("target " << name);
    REQUIRE(std::filesystem::is_directory(corpus_root / name));
    CHECK_FALSE(corpus_files(name).empty());
  }
  for (const auto& entry : std::filesystem::directory_iterator(corpus_root)) {
    INFO("corpus folder " << entry.path().filename().string());
    CHECK(std::find(names.begin(), names.end(), entry.path().filename().string()) != names.end());
  }
}

TEST_CASE("fuzz corpora: every file is accepted or refused with a documented error", "[fuzz]") {
  for (const auto& name : dctwin::fuzz::target_names()) {
    for (const auto& file : corpus_files(name)) {
      INFO("target " << name << ", input " << file.filename().string());
      const auto bytes = read_bytes(file);
      CHECK_NOTHROW(dctwin::fuzz::run_target(name, bytes));
    }
  }
}

TEST_CASE("fuzz entry points reject unknown targets", "[fuzz]") {
  const std::vector<std::uint8_t> none;
  CHECK_THROWS_AS(dctwin::fuzz::run_target("telemetry-xml", none), std::invalid_argument);
  CHECK_THROWS_AS(dctwin::fuzz::run_target("yaml", none), std::invalid_argument);
}
