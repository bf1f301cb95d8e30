// `dctwin sweep`: run the members of a sweep on a local thread pool, under MPI (when built with
// DCTWIN_WITH_MPI and started by mpirun), or a range of them (Slurm job arrays); gather the index.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/io/sweep.hpp"
#include "dctwin/io/sweep_run.hpp"

namespace dctwin::cli {

struct SweepArguments {
  std::string sweep;                        ///< sweep file (empty with --collect)
  std::optional<std::string> output;        ///< -o DIR; default: the sweep file's stem
  int jobs = 1;                             ///< -j N; 0 = one per available CPU
  std::optional<std::string> member_range;  ///< --member-range A:B (0-based, B excluded)
  std::optional<std::string> collect;       ///< --collect DIR
  bool quiet = false;
  bool dry_run = false;
  bool rerun_failed = false;
};

int sweep_command(const SweepArguments& arguments, const std::atomic<bool>& stop_requested);

/// One invocation of `dctwin sweep` on a sweep file: the plan, the members this invocation is
/// responsible for, progress lines and the final index. Used by the local runner and the MPI one.
class SweepJob {
 public:
  /// `speak`: this process prints progress and errors (false on MPI ranks other than 0).
  SweepJob(const SweepArguments& arguments, bool speak);

  /// Loads and checks the sweep and the member range. Returns 0 to go on, else an exit code.
  int load();
  /// Creates the output directory and finds the members that need running. 0 or an exit code.
  int prepare();

  [[nodiscard]] const io::SweepPlan& plan() const { return plan_; }
  [[nodiscard]] const std::filesystem::path& directory() const { return directory_; }
  [[nodiscard]] const std::vector<std::size_t>& pending() const { return pending_; }

  /// Prints what is about to run, e.g. "running 17 on 2 threads".
  void announce(const std::string& runner) const;
  /// Records a member that ran (thread-safe) and prints its progress line.
  void record(std::size_t index, const io::MemberOutcome& outcome);
  /// Writes the index and prints the closing line. Returns the exit code of the invocation.
  int finish(bool interrupted);

 private:
  void say(const std::string& line) const;
  void complain(const std::string& line) const;
  [[nodiscard]] std::string values_text(std::size_t index) const;

  const SweepArguments& arguments_;
  bool speak_;
  io::SweepPlan plan_;
  std::filesystem::path directory_;
  std::size_t first_ = 0, last_ = 0;  ///< member range [first_, last_)
  std::vector<std::size_t> pending_;
  std::vector<io::MemberStatus> status_;  ///< per member of the range
  std::size_t done_ = 0;
  std::size_t skipped_ = 0;
  std::mutex mutex_;
};

/// Runs the job's pending members on a pool of `jobs` threads (0: one per available CPU) and
/// finishes the job. Returns the exit code.
int run_on_threads(SweepJob& job, int jobs, const std::atomic<bool>& stop_requested);

#ifdef DCTWIN_WITH_MPI
/// True when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI).
bool launched_by_mpi();
/// Runs the sweep across MPI ranks: rank 0 hands out members one at a time, the others run them.
int sweep_command_mpi(const SweepArguments& arguments, const std::atomic<bool>& stop_requested);
#endif

}  // namespace dctwin::cli
