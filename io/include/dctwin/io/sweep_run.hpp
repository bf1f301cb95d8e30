// Running sweep members and gathering their results. Whatever runs the members (a thread pool,
// MPI ranks, Slurm array tasks) uses these functions; each member is one ordinary scenario run.
//
// A sweep's output directory:
//
//   DIR/plan/sweep.yaml    the sweep file, as given
//   DIR/plan/base.yaml     the base scenario, as given (so that DIR alone describes the sweep)
//   DIR/members/<id>.h5    one report per member (see report.hpp), written to a temporary
//                          `.<id>.h5.XXXXXX.part` and renamed when closed (output_file.hpp)
//   DIR/locks/<id>.lock    held (flock) by the process running the member
//   DIR/index.h5           the index: one row per member (see write_sweep_index)
//
// A member's report is "final" when it belongs to the member's current scenario text (its
// /scenario/source is that text) and the member need not run again: it is complete, it ended
// early for a reason the same scenario would meet again (a protection trip, a solver failure), or
// the member's scenario is invalid. A member that fails to check is recorded by a report with no
// samples, marked incomplete with the checker's message and the root attributes
// `sweep_status = "failed"` and `sweep_failure = "scenario"` (or "output" / "internal" for
// failures that another attempt may not meet; those are not final). A member interrupted by a
// cancel request leaves no report.
//
// Several processes may run members of the same sweep at once (MPI ranks, Slurm array tasks, two
// sweeps started on the same directory): a member runs only in the process that holds its lock,
// and every write goes to a temporary of its own and is put in place by an atomic rename.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/io/sweep.hpp"

namespace dctwin::io {

/// How a member stands, as recorded in the index.
enum class MemberStatus {
  complete,    ///< ran to the end
  incomplete,  ///< ended early (protection trip, solver failure); the report is marked incomplete
  failed,      ///< could not run (invalid scenario value, output error, internal error)
  missing,     ///< not run yet, interrupted, or the report is unreadable or belongs to another sweep
};
[[nodiscard]] const char* to_string(MemberStatus status) noexcept;

/// `DIR/members/<id>.h5`.
[[nodiscard]] std::filesystem::path member_report_path(const SweepPlan& plan, std::size_t index,
                                                       const std::filesystem::path& dir);

/// What a member's report says.
struct MemberRecord {
  MemberStatus status = MemberStatus::missing;
  std::string reason;        ///< why it is not complete ("" when complete)
  bool final = false;        ///< the member need not run again (see the top of this header)
  double end_time = 0.0;     ///< simulated time reached [s] (NaN when the member did not run)
  double wall_time = 0.0;    ///< wall-clock time of the run [s] (NaN when the member did not run)
  std::vector<core::SummaryFigure> summary;
};

/// Reads member `index`'s report in `dir`, if any. Never throws for a missing, unreadable or
/// foreign report (those are `missing` with the reason).
[[nodiscard]] MemberRecord inspect_sweep_member(const SweepPlan& plan, std::size_t index,
                                                const std::filesystem::path& dir);

/// How running a member went.
struct MemberOutcome {
  MemberStatus status = MemberStatus::missing;  ///< complete, incomplete or failed; missing if interrupted
  bool interrupted = false;
  std::string reason;  ///< the scenario error, the early end (`status.describe()`), or the failure
  double wall_time_seconds = 0.0;
};

/// Checks member `index`'s scenario, simulates it and writes its report in `dir`/members (which
/// must exist). A member problem (invalid value, early end, report error) is an outcome, not an
/// exception. `cancel` interrupts the run; the report is then removed. Thread-safe: several
/// members may run at once in one process. When another process holds the member's lock the
/// member is left alone: status missing, reason "another process is running this member"; when
/// the member turns out complete once locked (another process finished it), status complete.
[[nodiscard]] MemberOutcome run_sweep_member(const SweepPlan& plan, std::size_t index,
                                             const std::filesystem::path& dir,
                                             const std::atomic<bool>* cancel = nullptr);

/// Creates `dir` and `dir`/members, and stores the plan (`dir`/plan/sweep.yaml, base.yaml) unless
/// the same files are there already. Throws ReportError "cannot create sweep directory '...': ..."
/// or "cannot write '...': ...".
void prepare_sweep_directory(const SweepPlan& plan, const std::filesystem::path& dir);

/// The plan stored in `dir`/plan. Throws MissingInputError when `dir` holds no stored plan,
/// SweepError when it no longer checks (for example after a schema change).
[[nodiscard]] SweepPlan load_stored_sweep(const std::filesystem::path& dir,
                                          const core::SectionSchema& schema);

struct SweepCounts {
  std::size_t complete = 0, incomplete = 0, failed = 0, missing = 0;
  [[nodiscard]] std::size_t total() const { return complete + incomplete + failed + missing; }
};

/// Rebuilds `dir`/index.h5 from the member reports (written to a temporary name, then renamed):
///
///   /member              string [member]   member ids, dimension scale "member"
///   /status              string [member]   complete | incomplete | failed | missing
///   /reason              string [member]   why a member is not complete ("" when complete)
///   /report              string [member]   the member's report, relative to DIR
///   /end_time            float64 [member]  simulated time reached, units "s" (NaN: did not run)
///   /wall_time           float64 [member]  wall-clock time of the run, units "s" (NaN: did not run)
///   /parameters/<key>    float64 [member]  each varied scenario key, SI value, `units` = its SI
///                                          unit (NaN where a value is not a number); text and
///                                          choice keys are string columns; a seed is uint64
///                                          (exact; 0 where the value is not a seed)
///   /summary/<name>      float64 [member]  every summary figure found in any member report,
///                                          `units` and `long_name` from the reports (NaN where a
///                                          member has no such figure)
///   /sweep/source, /sweep/base   scalar strings: the sweep file and the base scenario
///
/// Every dataset has `units` and `long_name`; the root has `title`, `Conventions`,
/// `dctwin_sweep_index_version`, `dctwin_version`, `sweep_name`, `sweep_file`, `base_scenario`,
/// `design`, `design_description` (strings), `seed` (unsigned 64-bit integer), `samples`,
/// `members`, `complete`, `incomplete`, `failed`, `missing` (integers). Throws ReportError.
SweepCounts write_sweep_index(const SweepPlan& plan, const std::filesystem::path& dir);

/// An index read back (for tests and tools).
struct SweepIndex {
  struct Column {
    std::string name;
    std::string units;
    std::string long_name;
    std::vector<double> values;     ///< numeric columns
    std::vector<std::string> text;  ///< string columns
    std::vector<std::uint64_t> unsigned_values;  ///< unsigned integer columns (seeds), exact
    bool is_text = false;
  };
  std::vector<std::string> member, status, reason, report;
  std::vector<double> end_time, wall_time;
  std::vector<Column> parameters;  ///< in the sweep file's order
  std::vector<Column> summary;     ///< in the order the figures were first found
  std::map<std::string, std::string> string_attributes;
  std::map<std::string, long long> integer_attributes;
  std::map<std::string, std::uint64_t> unsigned_attributes;  ///< the seed
};

/// Reads an index written by write_sweep_index. Throws ReportError.
[[nodiscard]] SweepIndex read_sweep_index(const std::filesystem::path& path);

}  // namespace dctwin::io
