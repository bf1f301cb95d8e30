// dctwin: run, check and inspect digital-twin scenarios of a GPU training facility.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/output_file.hpp"
#include "exit_codes.hpp"
#include "import_command.hpp"
#include "sweep_command.hpp"
#include "validate_command.hpp"

namespace {

std::atomic<bool> stop_requested{false};
volatile std::sig_atomic_t stop_signal = 0;
struct sigaction inherited_sigint {}, inherited_sigterm {};  // the dispositions main() started with

extern "C" void on_stop_signal(int signal_number) {
  stop_signal = signal_number;
  stop_requested.store(true);
}

/// First thing in main(): from here on SIGINT and SIGTERM only set the flag, so that a run
/// stopped while it starts still ends by its own rules (exit 130 / 143, an incomplete report or
/// none). Unblocked too: a mask left by the parent would otherwise hold them back for the whole run.
void install_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &inherited_sigint);
  sigaction(SIGTERM, &action, &inherited_sigterm);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigprocmask(SIG_UNBLOCK, &stop_signals, nullptr);
}

/// For the subcommands that do not watch the flag: the dispositions they started with again (the
/// default action, or SIG_IGN as a shell gives background jobs for SIGINT).
void restore_inherited_signals() {
  sigaction(SIGINT, &inherited_sigint, nullptr);
  sigaction(SIGTERM, &inherited_sigterm, nullptr);
}

/// A signal that came while the command line was read, delivered now to the handling the
/// subcommand has set up (its own handler, the default action, or none if ignored).
void deliver_pending_signal() {
  if (stop_signal != 0) std::raise(stop_signal);
}

// import, validate and calibrate keep nothing of an interrupted command: the handler removes the
// temporary output being written, if any, and ends the process at once.
const char* volatile interrupted_message = "dctwin: interrupted\n";

extern "C" void on_stop_signal_discard(int signal_number) {
  dctwin::io::remove_output_temporaries();
  const char* message = interrupted_message;
  std::size_t length = 0;
  while (message[length] != '\0') ++length;
  (void)!::write(STDERR_FILENO, message, length);
  ::_exit(signal_number == SIGTERM ? dctwin::cli::exit_interrupted_sigterm : dctwin::cli::exit_interrupted_sigint);
}

void install_discarding_signal_handlers(const char* message) {
  interrupted_message = message;
  struct sigaction action {};
  action.sa_handler = on_stop_signal_discard;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  using namespace dctwin::cli;
  CLI::App app{"dctwin: digital twin of a GPU training facility (thermal, electrical, workload).\n"
               "Exit codes: 0 ok, 3 run ended early (report marked incomplete), 64 usage, 65 bad scenario or\n"
               "input data, 66 missing input, 70 internal error, 73 cannot create output, 74 output error,\n"
               "130/143 interrupted by SIGINT/SIGTERM (report marked incomplete).",
               "dctwin"};
  app.set_version_flag("--version", std::string("dctwin ") + DCTWIN_VERSION);
  app.require_subcommand(1);

  RunArguments run;
  auto* run_cmd = app.add_subcommand("run", "Simulate a scenario and write an HDF5 report");
  run_cmd->add_option("scenario", run.scenario, "Scenario file (YAML)")->required();
  run_cmd->add_option("-o,--output", run.report, "Report file (HDF5)")->capture_default_str();
  run_cmd->add_option("--duration", run.duration, "Simulated time, e.g. 600, '10 min', '24 h'");
  run_cmd->add_option("--output-interval", run.output_interval, "Sampling interval, e.g. 1, '0.5 s', '1 min'");
  // A seed is a whole number 0 to 2^64-1 (seed_problem, commands.cpp).
  const CLI::Validator seed_number(seed_problem, "INT>=0");
  run_cmd->add_option("--seed", run.seed, "Seed of the random draws, 0 to 18446744073709551615")->check(seed_number);
  run_cmd->add_option("--threads", run.threads,
                      "Threads for the loops over GPUs (0: OMP_NUM_THREADS if set, else one per CPU); results do not "
                      "depend on it")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  run_cmd->add_flag("-q,--quiet", run.quiet, "No progress and no summary table");

  std::string check_scenario;
  auto* check_cmd = app.add_subcommand("check", "Check a scenario file and the site it describes");
  check_cmd->add_option("scenario", check_scenario, "Scenario file (YAML)")->required();
  bool check_json = false;
  check_cmd->add_flag("--json", check_json, "Print the result as JSON (for editors): valid, site or errors with their locations");

  std::string info_report;
  bool info_all = false;
  auto* info_cmd = app.add_subcommand("info", "Show the structure, status and summary of a report");
  info_cmd->add_option("report", info_report, "Report file (HDF5)")->required();
  info_cmd->add_flag("--attributes", info_all, "Also list every root attribute");
  bool info_json = false;
  info_cmd->add_flag("--json", info_json, "Print the same as JSON: status, time, datasets with units, summary with units");

  SweepArguments sweep;
  auto* sweep_cmd = app.add_subcommand(
      "sweep",
      "Run the members of a sweep (a base scenario and parameters to vary) and gather an index.\n"
      "Members run on a local thread pool (-j), across MPI ranks under mpirun (when built with\n"
      "DCTWIN_WITH_MPI), or a range of them per Slurm array task (--member-range). Completed\n"
      "members are skipped when the sweep runs again. See docs/sweeps.md.\n"
      "Exit codes: 0 every member complete, 3 some member ended early or failed (see the index),\n"
      "64 usage, 65 bad sweep file or base scenario, 66 missing input, 73/74 output errors,\n"
      "130/143 interrupted (finished members are kept).");
  sweep_cmd->add_option("sweep", sweep.sweep, "Sweep file (YAML)");
  sweep_cmd->add_option("-o,--output", sweep.output, "Output directory (default: the sweep file's name without .yaml)");
  sweep_cmd->add_option("-j,--jobs", sweep.jobs, "Members run at once on this machine (0: one per CPU)")->capture_default_str();
  sweep_cmd->add_option("--member-range", sweep.member_range, "Run members A to B-1 only (A:B, A:, :B or A), e.g. per Slurm array task");
  sweep_cmd->add_option("--collect", sweep.collect, "Only rebuild DIR/index.h5 from the member reports in DIR");
  sweep_cmd->add_flag("--dry-run", sweep.dry_run, "Check every member's scenario and list the members; run nothing");
  sweep_cmd->add_flag("--rerun-failed", sweep.rerun_failed, "Also run again members that failed or ended early");
  sweep_cmd->add_flag("-q,--quiet", sweep.quiet, "No progress lines");

  ImportArguments import_arguments;
  auto* import_cmd = add_import_command(app, import_arguments);
  ValidateArguments validate_arguments;
  auto* validate_cmd = add_validate_command(app, validate_arguments);
  CalibrateArguments calibrate_arguments;
  auto* calibrate_cmd = add_calibrate_command(app, calibrate_arguments);

  auto* schema_cmd = app.add_subcommand("schema", "Print the scenario reference (every key, unit, default, range) as Markdown");
  bool schema_as_json = false;
  schema_cmd->add_flag("--json", schema_as_json, "Print a JSON Schema (draft 2020-12) of scenario files instead, for editors");

  // CLI11's own messages quote what was typed: each line shown with its control characters escaped.
  app.failure_message([](const CLI::App* failed, const CLI::Error& error) {
    const std::string text = CLI::FailureMessage::simple(failed, error);
    std::string out;
    std::size_t begin = 0;
    while (begin < text.size()) {
      const std::size_t end = std::min(text.find('\n', begin), text.size());
      out += dctwin::core::printable(text.substr(begin, end - begin)) + "\n";
      begin = end + 1;
    }
    return out;
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_usage;
  }

  if (*run_cmd) {
    const int code = run_command(run, stop_requested);
    if (stop_requested.load() && code == exit_interrupted_sigint && stop_signal == SIGTERM)
      return exit_interrupted_sigterm;
    return code;
  }
  if (*sweep_cmd) {
    const int code = sweep_command(sweep, stop_requested);
    if (stop_requested.load() && code == exit_interrupted_sigint && stop_signal == SIGTERM)
      return exit_interrupted_sigterm;
    return code;
  }
  // Each other subcommand's handling replaces the flag at once (no gap with the default action).
  if (*import_cmd) install_discarding_signal_handlers("dctwin import: interrupted; nothing written\n");
  else if (*validate_cmd) install_discarding_signal_handlers("dctwin validate: interrupted; nothing written\n");
  else if (*calibrate_cmd) install_discarding_signal_handlers("dctwin calibrate: interrupted; nothing written\n");
  else restore_inherited_signals();
  deliver_pending_signal();
  if (*check_cmd) return check_command(check_scenario, check_json);
  if (*info_cmd) return info_command(info_report, info_all, info_json);
  if (*import_cmd) return import_command(import_arguments);
  if (*validate_cmd) return validate_command(validate_arguments);
  if (*calibrate_cmd) return calibrate_command(calibrate_arguments);
  if (*schema_cmd) return schema_command(schema_as_json);
  return exit_usage;
}
