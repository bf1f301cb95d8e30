// Exit codes of the `dctwin` command (sysexits.h values where one fits).
#pragma once

namespace dctwin::cli {

enum ExitCode : int {
  exit_ok = 0,
  exit_run_ended_early = 3,   ///< the run stopped early (trip, solver failure); report marked incomplete
  exit_usage = 64,            ///< bad command line
  exit_data_error = 65,       ///< bad scenario or input data
  exit_no_input = 66,         ///< an input file does not exist or cannot be read
  exit_internal = 70,         ///< an internal error (a defect in dctwin)
  exit_cannot_create = 73,    ///< the output file cannot be created
  exit_io_error = 74,         ///< writing the output failed
  exit_interrupted_sigint = 130,   ///< interrupted by SIGINT; report marked incomplete
  exit_interrupted_sigterm = 143,  ///< interrupted by SIGTERM; report marked incomplete
};

}  // namespace dctwin::cli
