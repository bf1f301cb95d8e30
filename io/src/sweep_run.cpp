// Sweep members: running one, reading its record, and the sweep directory (see sweep_run.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/io/sweep_run.hpp"
#include "dctwin/models/facility/site.hpp"
#include "hdf5_handles.hpp"
#include "sweep_internal.hpp"

namespace dctwin::io {

namespace fs = std::filesystem;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

/// A report with no samples that records why a member could not run.
void write_failure_record(const SweepPlan& plan, std::size_t index, const fs::path& report,
                          const std::string& scenario_text, const std::string& failure,
                          const std::string& reason) {
  ReportLayout layout;
  layout.scenario_name = plan.name;
  layout.scenario_file = member_label(plan, index);
  layout.scenario_source = scenario_text;
  layout.attributes["sweep_name"] = plan.name;
  layout.attributes["sweep_member"] = plan.members.at(index).id;
  layout.attributes["sweep_status"] = "failed";
  layout.attributes["sweep_failure"] = failure;
  ReportWriter writer(report, layout);
  writer.abandon(reason);
}

bool read_text_file(const fs::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return false;
  text = buffer.str();
  return true;
}

}  // namespace

namespace detail {

void write_file_atomically(const fs::path& path, const std::string& text) { write_output_text(path, text, ""); }

}  // namespace detail

namespace {

/// An exclusive lock on one member of a sweep directory: flock() on DIR/locks/<id>.lock, held
/// while the member runs, so that two sweeps on the same directory (two shells, two array tasks
/// with overlapping ranges) never run, record or remove the same member at once. The kernel
/// releases it when the process ends, however it ends; the lock files stay (removing one would
/// let a third process lock a new file of the same name while the second still holds the old).
class MemberLock {
 public:
  MemberLock(const fs::path& dir, const std::string& id) {
    const fs::path locks = dir / "locks";
    std::error_code ignored;
    fs::create_directories(locks, ignored);
    path_ = locks / (id + ".lock");
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0) throw ReportError("cannot create lock file '" + path_.string() + "': " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    // A file system without flock() (some parallel file systems): carry on unlocked, as HDF5's
    // own file locking does.
    held_ = errno != EWOULDBLOCK;
  }
  ~MemberLock() { ::close(fd_); }
  MemberLock(const MemberLock&) = delete;
  MemberLock& operator=(const MemberLock&) = delete;
  [[nodiscard]] bool held() const { return held_; }

 private:
  fs::path path_;
  int fd_ = -1;
  bool held_ = true;
};

}  // namespace

const char* to_string(MemberStatus status) noexcept {
  switch (status) {
    case MemberStatus::complete:
      return "complete";
    case MemberStatus::incomplete:
      return "incomplete";
    case MemberStatus::failed:
      return "failed";
    case MemberStatus::missing:
      return "missing";
  }
  return "unknown";
}

fs::path member_report_path(const SweepPlan& plan, std::size_t index, const fs::path& dir) {
  return dir / "members" / (plan.members.at(index).id + ".h5");
}

MemberRecord inspect_sweep_member(const SweepPlan& plan, std::size_t index, const fs::path& dir) {
  MemberRecord record;
  record.end_time = not_a_number;
  record.wall_time = not_a_number;
  const fs::path path = member_report_path(plan, index, dir);
  std::error_code error;
  if (!fs::exists(path, error)) return record;
  try {
    const ReportReader report(path);
    const auto source = report.read_strings("/scenario/source");
    if (source.size() != 1 || source.front() != member_scenario_text(plan, index)) {
      record.reason = "the report belongs to another definition of this member";
      return record;
    }
    const auto attributes = report.string_attributes();
    const auto attribute = [&](const char* name) {
      const auto it = attributes.find(name);
      return it == attributes.end() ? std::string() : it->second;
    };
    if (attribute("sweep_status") == "failed") {
      record.status = MemberStatus::failed;
      record.reason = report.status_reason();
      record.final = attribute("sweep_failure") == "scenario";
      return record;  // nothing ran: no times, no summary
    } else if (report.status() == "complete") {
      record.status = MemberStatus::complete;
      record.final = true;
    } else {
      record.reason = report.status_reason();
      if (record.reason.find(std::string(": ") + solver::to_string(solver::StopReason::interrupted)) !=
          std::string::npos) {
        record.status = MemberStatus::missing;
        return record;
      }
      record.status = MemberStatus::incomplete;
      record.final = true;
    }
    record.end_time = report.end_time();
    record.summary = report.summary();
  } catch (const ReportError& failure) {
    record = MemberRecord{};
    record.end_time = not_a_number;
    record.wall_time = not_a_number;
    record.reason = std::string("unreadable report: ") + failure.what();
    return record;
  }
  try {
    h5::init();
    const auto file = h5::File::open_read_only(path);
    if (file.has_attribute("wall_time")) record.wall_time = file.double_attribute("wall_time");
  } catch (const ReportError&) {
    record.wall_time = not_a_number;
  }
  return record;
}

MemberOutcome run_sweep_member(const SweepPlan& plan, std::size_t index, const fs::path& dir,
                               const std::atomic<bool>* cancel) {
  const auto started = std::chrono::steady_clock::now();
  const fs::path report = member_report_path(plan, index, dir);
  MemberOutcome outcome;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  std::string text;
  std::optional<MemberLock> lock;
  try {
    lock.emplace(dir, plan.members.at(index).id);
  } catch (const ReportError& error) {
    outcome.status = MemberStatus::failed;
    outcome.reason = error.what();
    return outcome;
  }
  if (!lock->held()) {
    outcome.status = MemberStatus::missing;
    outcome.reason = "another process is running this member";
    outcome.wall_time_seconds = elapsed();
    return outcome;
  }
  {
    // Another process may have finished it since this one looked.
    const MemberRecord now = inspect_sweep_member(plan, index, dir);
    if (now.status == MemberStatus::complete) {
      outcome.status = MemberStatus::complete;
      outcome.wall_time_seconds = elapsed();
      return outcome;
    }
  }
  const auto fail = [&](const char* failure, const std::string& reason) {
    outcome.status = MemberStatus::failed;
    outcome.reason = reason;
    try {
      write_failure_record(plan, index, report, text, failure, reason);
    } catch (const ReportError& error) {
      outcome.reason += " (the failure could not be recorded: " + std::string(error.what()) + ")";
    }
    outcome.wall_time_seconds = elapsed();
    return outcome;
  };

  ScenarioDocument document;
  try {
    text = member_scenario_text(plan, index);
    document = parse_scenario(text, member_label(plan, index), models::facility::scenario_schema());
  } catch (const core::InputError& error) {
    return fail("scenario", describe_member_error(plan, index, error));
  }
  try {
    RunCallbacks callbacks;
    callbacks.cancel = cancel;
    const RunResult result = run_scenario(document, report, callbacks);
    outcome.wall_time_seconds = elapsed();
    if (result.status.reason == solver::StopReason::interrupted) {
      std::error_code ignored;
      fs::remove(report, ignored);
      outcome.status = MemberStatus::missing;
      outcome.interrupted = true;
      outcome.reason = result.status.describe();
      return outcome;
    }
    outcome.status = result.status.finished() ? MemberStatus::complete : MemberStatus::incomplete;
    if (!result.status.finished()) outcome.reason = result.status.describe();
    return outcome;
  } catch (const core::InputError& error) {
    return fail("scenario", describe_member_error(plan, index, error));
  } catch (const ReportError& error) {
    return fail("output", error.what());
  } catch (const std::exception& error) {
    return fail("internal", std::string("internal error: ") + error.what());
  }
}

void prepare_sweep_directory(const SweepPlan& plan, const fs::path& dir) {
  if (dir.empty()) throw ReportError("cannot create sweep directory '': the name is empty");
  for (const fs::path& path : {dir, dir / "members", dir / "plan"}) {
    std::error_code error;
    fs::create_directories(path, error);
    if (error || !fs::is_directory(path))
      throw ReportError("cannot create sweep directory '" + path.string() + "': " +
                        (error ? error.message() : std::string("not a directory")));
  }
  const std::pair<const char*, const std::string*> files[] = {{"sweep.yaml", &plan.source_text},
                                                              {"base.yaml", &plan.base_text}};
  for (const auto& [name, text] : files) {
    const fs::path path = dir / "plan" / name;
    std::string existing;
    if (read_text_file(path, existing) && existing == *text) continue;
    detail::write_file_atomically(path, *text);
  }
}

SweepPlan load_stored_sweep(const fs::path& dir, const core::SectionSchema& schema) {
  const fs::path sweep = dir / "plan" / "sweep.yaml";
  const fs::path base = dir / "plan" / "base.yaml";
  std::string sweep_text;
  std::string base_text;
  if (!read_text_file(sweep, sweep_text) || !read_text_file(base, base_text))
    throw MissingInputError(dir.string() + ": no sweep stored here (" + sweep.string() + " and " +
                            base.string() + " are written by 'dctwin sweep SWEEP.yaml -o " +
                            dir.string() + "')");
  return parse_sweep(sweep_text, sweep.string(), schema, SweepBase{base_text, base.string()});
}

}  // namespace dctwin::io
