#include "failures.hpp"

#include <cstdio>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/validation.hpp"
#include "dctwin/solver/integrator.hpp"
#include "exit_codes.hpp"

namespace dctwin::cli {

int exit_code_for(const io::ReportError& error) {
  const std::string message = error.what();
  return message.find("cannot create") != std::string::npos ? exit_cannot_create : exit_io_error;
}

void write_to_stderr(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }

int exit_code_of_failure(const FailureWording& wording, const std::function<void(const std::string&)>& write) {
  const std::string& prefix = wording.prefix;
  try {
    throw;
  } catch (const io::MissingInputError& e) {
    write((wording.prefix_missing_input ? prefix : std::string()) + e.what());
    return exit_no_input;
  } catch (const core::InputError& e) {
    write((wording.prefix_input_error ? prefix : std::string()) + e.what());
    return exit_data_error;
  } catch (const io::ReportError& e) {
    write(prefix + e.what());
    return exit_code_for(e);
  } catch (const std::exception& e) {
    const bool ended_early = dynamic_cast<const io::ReplayError*>(&e) != nullptr ||
                             dynamic_cast<const solver::SolverError*>(&e) != nullptr;
    if (ended_early && wording.run_failures_end_early) {
      write(prefix + e.what());
      return exit_run_ended_early;
    }
    write(prefix + "internal error: " + core::printable(e.what()));
    return exit_internal;
  }
}

}  // namespace dctwin::cli
