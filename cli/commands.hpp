// The subcommands of `dctwin`; each returns an exit code (exit_codes.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace dctwin::cli {

struct RunArguments {
  std::string scenario;
  std::string report = "report.h5";
  std::optional<std::string> duration;
  std::optional<std::string> output_interval;
  std::optional<std::uint64_t> seed;
  int threads = 0;  ///< threads for the loops over GPUs (0: OpenMP's default)
  bool quiet = false;
};

/// What is wrong with `text` as a --seed, a whole number 0 to 18446744073709551615 (read exactly,
/// never through a double), e.g. `must be a whole number >= 0, not '-1'`; empty when it is one.
std::string seed_problem(const std::string& text);

int run_command(const RunArguments& arguments, const std::atomic<bool>& stop_requested);
int check_command(const std::string& scenario, bool json);
int info_command(const std::string& report, bool all_attributes, bool json);
int schema_command(bool json);

}  // namespace dctwin::cli
