// How the commands turn a failure (an exception) into a message on stderr and an exit code
// (exit_codes.hpp), in one place:
//
//   io::MissingInputError       66  an input file does not exist or cannot be read
//   io::ReplayError,            3   the replay or run stopped early (only where `run_failures_end_early`)
//   solver::SolverError
//   core::InputError          65  bad scenario or input data
//   io::ReportError             73  when the message starts "cannot create" (or says it later), else 74
//   any other std::exception    70  "internal error: <what>", made printable
//
// Messages of input errors carry their own file:line:column or key path, so a command writes them
// without its name unless it asks for it; the others are preceded by the command's prefix.
#pragma once

#include <functional>
#include <string>

namespace dctwin::io {
class ReportError;
}

namespace dctwin::cli {

struct FailureWording {
  std::string prefix;                 ///< before the messages, e.g. "dctwin run: "
  bool prefix_missing_input = true;   ///< "dctwin run: x.yaml: no such file" or "x.yaml: no such file"
  bool prefix_input_error = false;    ///< input errors with the prefix too
  bool run_failures_end_early = false;  ///< io::ReplayError and solver::SolverError give 3, not 70
};

/// Exit code of a file that could not be written: exit_cannot_create or exit_io_error.
[[nodiscard]] int exit_code_for(const io::ReportError& error);

/// Writes a line on stderr.
void write_to_stderr(const std::string& line);

/// To be called inside a `catch (...)` block: writes the message of the exception being handled
/// through `write` and returns its exit code. An exception not derived from std::exception goes on.
int exit_code_of_failure(const FailureWording& wording,
                         const std::function<void(const std::string&)>& write = write_to_stderr);

}  // namespace dctwin::cli
