// Runs a scenario through the installed library and checks the run's energy balance:
//   consumer SCENARIO REPORT
// prints "finished <simulated s> s, energy balance <relative error>" and exits 0 when the run
// finished with its energy balance within 1e-6; 1 otherwise.
#include <cstdio>
#include <exception>
#include <string>

#include "dctwin/io/run.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer SCENARIO REPORT\n");
    return 2;
  }
  try {
    dctwin::io::ScenarioOverrides overrides;
    overrides.duration = 60.0;
    const auto document = dctwin::io::load_scenario_file(argv[1], overrides);
    const auto result = dctwin::io::run_scenario(document, argv[2]);
    double balance = -1.0;
    for (const auto& figure : result.summary) {
      if (figure.name == "energy_balance_relative_error") balance = figure.value;
    }
    std::printf("%s %g s, energy balance %g\n", result.status.finished() ? "finished" : "stopped",
                result.status.time, balance);
    return result.status.finished() && balance >= 0.0 && balance <= 1e-6 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
