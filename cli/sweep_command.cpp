#include "sweep_command.hpp"

#include <fmt/core.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <exception>
#include <thread>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"
#include "dctwin/models/facility/site.hpp"
#include "dctwin/solver/parallel.hpp"
#include "exit_codes.hpp"
#include "failures.hpp"

namespace dctwin::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* prefix = "dctwin sweep: ";

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

std::optional<std::size_t> parse_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc{} || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

struct MemberRange {
  std::optional<std::size_t> first, last;
};

/// `A:B`, `A:`, `:B` or `A` (members A to B - 1; `A` alone is one member).
std::optional<MemberRange> parse_range(const std::string& text) {
  MemberRange range;
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    range.first = parse_count(text);
    if (!range.first) return std::nullopt;
    range.last = *range.first + 1;
    return range;
  }
  const std::string_view head(text.data(), colon);
  const std::string_view tail(text.data() + colon + 1, text.size() - colon - 1);
  if (!head.empty() && !(range.first = parse_count(head))) return std::nullopt;
  if (!tail.empty() && !(range.last = parse_count(tail))) return std::nullopt;
  return range;
}

int collect_command(const std::string& directory, bool quiet) {
  try {
    const io::SweepPlan plan = io::load_stored_sweep(directory, models::facility::scenario_schema());
    const io::SweepCounts counts = io::write_sweep_index(plan, directory);
    if (!quiet)
      std::printf("sweep %s: %zu members: %zu complete, %zu incomplete, %zu failed, %zu missing; index %s\n",
                  core::printable(plan.name).c_str(), counts.total(), counts.complete, counts.incomplete,
                  counts.failed, counts.missing, core::printable((fs::path(directory) / "index.h5").string()).c_str());
    return counts.complete == counts.total() ? exit_ok : exit_run_ended_early;
  } catch (...) {
    return exit_code_of_failure({prefix});
  }
}

/// Checks every member's scenario and site without running anything.
int dry_run(SweepJob& job, bool quiet) {
  const auto& plan = job.plan();
  const auto schema = models::facility::scenario_schema();
  bool all_valid = true;
  if (!quiet)
    std::printf("sweep %s: %zu members (%s), base %s\n", core::printable(plan.name).c_str(), plan.members.size(),
                plan.design_text().c_str(), core::printable(plan.base_file).c_str());
  for (std::size_t i = 0; i < plan.members.size(); ++i) {
    std::string values;
    for (std::size_t p = 0; p < plan.parameters.size(); ++p)
      values += (p > 0 ? ", " : "") + plan.parameters[p].key + " = " + plan.members[i].shown[p];
    std::string verdict = "ok";
    try {
      const io::ScenarioDocument document = io::load_sweep_member(plan, i, schema);
      try {
        (void)io::check_site(document);
      } catch (const core::InputError& e) {
        throw core::InputError(io::describe_member_error(plan, i, e));
      }
    } catch (const core::InputError& e) {
      verdict = e.what();
      all_valid = false;
    }
    if (!quiet)
      std::printf("member %s: %s: %s\n", plan.members[i].id.c_str(), core::printable(values).c_str(),
                  core::printable(verdict).c_str());
  }
  return all_valid ? exit_ok : exit_data_error;
}

}  // namespace

SweepJob::SweepJob(const SweepArguments& arguments, bool speak) : arguments_(arguments), speak_(speak) {}

void SweepJob::say(const std::string& line) const {
  if (!speak_ || arguments_.quiet) return;
  std::fputs((core::printable(line) + "\n").c_str(), stdout);  // names and values from the sweep file
  std::fflush(stdout);
}

void SweepJob::complain(const std::string& line) const {
  if (!speak_) return;
  std::fputs((core::printable(line) + "\n").c_str(), stderr);
  std::fflush(stderr);
}

int SweepJob::load() {
  std::optional<MemberRange> range;
  if (arguments_.member_range) {
    range = parse_range(*arguments_.member_range);
    if (!range) {
      complain(std::string(prefix) + "--member-range " + *arguments_.member_range +
               ": must be A:B, A:, :B or A (0-based member numbers, B excluded)");
      return exit_usage;
    }
  }
  try {
    plan_ = io::load_sweep(arguments_.sweep, models::facility::scenario_schema());
  } catch (...) {
    return exit_code_of_failure({prefix}, [this](const std::string& line) { complain(line); });
  }
  const std::size_t count = plan_.members.size();
  first_ = 0;
  last_ = count;
  if (range) {
    first_ = std::min(range->first.value_or(0), count);
    last_ = std::min(range->last.value_or(count), count);
    if (range->first && range->last && *range->first > *range->last) {
      complain(std::string(prefix) + "--member-range " + *arguments_.member_range + ": the first member comes after the last");
      return exit_usage;
    }
  }
  directory_ = arguments_.output ? fs::path(*arguments_.output) : fs::path(arguments_.sweep).stem();
  return exit_ok;
}

int SweepJob::prepare() {
  try {
    io::prepare_sweep_directory(plan_, directory_);
  } catch (const io::ReportError& e) {
    complain(std::string(prefix) + e.what());
    return exit_code_for(e);
  }
  status_.assign(last_ - first_, io::MemberStatus::missing);
  pending_.clear();
  skipped_ = 0;
  for (std::size_t i = first_; i < last_; ++i) {
    const io::MemberRecord record = io::inspect_sweep_member(plan_, i, directory_);
    const bool skip = record.final && (!arguments_.rerun_failed || record.status == io::MemberStatus::complete);
    if (skip) {
      status_[i - first_] = record.status;
      ++skipped_;
    } else {
      pending_.push_back(i);
    }
  }
  std::string what = fmt::format("sweep {}: {} members ({}), base {}, output {}", plan_.name, plan_.members.size(),
                                 plan_.design_text(), plan_.base_file, directory_.string());
  if (last_ - first_ != plan_.members.size()) {
    what += first_ == last_ ? fmt::format("; member range {}:{} is empty", first_, last_)
                            : fmt::format("; members {} to {}", first_, last_ - 1);
  }
  say(what);
  return exit_ok;
}

void SweepJob::announce(const std::string& runner) const {
  std::string line = "sweep " + plan_.name + ": ";
  if (skipped_ > 0) line += fmt::format("{} member{} already done, ", skipped_, skipped_ == 1 ? "" : "s");
  line += pending_.empty() ? "nothing to run" : fmt::format("running {} {}", pending_.size(), runner);
  say(line);
}

std::string SweepJob::values_text(std::size_t index) const {
  constexpr std::size_t shown_parameters = 4;
  std::string text;
  const auto& member = plan_.members[index];
  for (std::size_t p = 0; p < plan_.parameters.size() && p < shown_parameters; ++p)
    text += (p > 0 ? ", " : "") + plan_.parameters[p].key + " = " + member.shown[p];
  if (plan_.parameters.size() > shown_parameters) text += fmt::format(", ... ({} parameters)", plan_.parameters.size());
  return text;
}

void SweepJob::record(std::size_t index, const io::MemberOutcome& outcome) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (index >= first_ && index < last_) status_[index - first_] = outcome.status;
  ++done_;
  const int width = static_cast<int>(std::to_string(pending_.size()).size());
  const char* word = outcome.interrupted ? "interrupted" : io::to_string(outcome.status);
  std::string line = fmt::format("[{:>{}}/{}] member {} {} after {:.3g} s ({})", done_, width, pending_.size(),
                                 plan_.members[index].id, word, outcome.wall_time_seconds, values_text(index));
  if (!outcome.interrupted && outcome.status != io::MemberStatus::complete) line += ": " + outcome.reason;
  say(line);
}

int SweepJob::finish(bool interrupted) {
  io::SweepCounts counts;
  try {
    counts = io::write_sweep_index(plan_, directory_);
  } catch (const io::ReportError& e) {
    complain(std::string(prefix) + e.what());
    return exit_code_for(e);
  }
  say(fmt::format("sweep {}: {} members: {} complete, {} incomplete, {} failed, {} missing; index {}", plan_.name,
                  counts.total(), counts.complete, counts.incomplete, counts.failed, counts.missing,
                  (directory_ / "index.h5").string()));
  if (interrupted) {
    complain(std::string(prefix) + "interrupted; the members that did not finish will run when the sweep is started again");
    return exit_interrupted_sigint;
  }
  const bool all_complete = std::all_of(status_.begin(), status_.end(),
                                        [](io::MemberStatus s) { return s == io::MemberStatus::complete; });
  return all_complete ? exit_ok : exit_run_ended_early;
}

int sweep_command(const SweepArguments& arguments, const std::atomic<bool>& stop_requested) {
  if (arguments.collect) {
    if (!arguments.sweep.empty()) {
      std::fprintf(stderr, "%s--collect DIR takes no sweep file\n", prefix);
      return exit_usage;
    }
    return collect_command(*arguments.collect, arguments.quiet);
  }
  if (arguments.sweep.empty()) {
    std::fprintf(stderr, "%sa sweep file is required (or --collect DIR)\n", prefix);
    return exit_usage;
  }
  if (arguments.jobs < 0) {
    std::fprintf(stderr, "%s-j %d: must be >= 0 (0: one per available CPU)\n", prefix, arguments.jobs);
    return exit_usage;
  }
#ifdef DCTWIN_WITH_MPI
  if (!arguments.dry_run && launched_by_mpi()) return sweep_command_mpi(arguments, stop_requested);
#endif

  SweepJob job(arguments, true);
  if (const int code = job.load(); code != exit_ok) return code;
  if (arguments.dry_run) return dry_run(job, arguments.quiet);
  if (const int code = job.prepare(); code != exit_ok) return code;

  return run_on_threads(job, arguments.jobs, stop_requested);
}

int run_on_threads(SweepJob& job, int jobs, const std::atomic<bool>& stop_requested) {
  const auto& pending = job.pending();
  const std::size_t threads =
      std::min<std::size_t>(pending.size(), static_cast<std::size_t>(jobs <= 0 ? available_cpus() : jobs));
  job.announce(fmt::format("on {} thread{}", threads, threads == 1 ? "" : "s"));

  std::atomic<std::size_t> next{0};
  // The CPUs are shared among the members running at once (a single member's run would take them all).
  const int member_threads = threads > 1 ? std::max(1, available_cpus() / static_cast<int>(threads)) : 0;
  const auto worker = [&] {
    solver::set_thread_budget(member_threads);
    while (!stop_requested.load()) {
      const std::size_t slot = next.fetch_add(1);
      if (slot >= pending.size()) break;
      const std::size_t index = pending[slot];
      io::MemberOutcome outcome;
      try {
        outcome = io::run_sweep_member(job.plan(), index, job.directory(), &stop_requested);
      } catch (const std::exception& e) {
        outcome.status = io::MemberStatus::failed;
        outcome.reason = std::string("internal error: ") + e.what();
      }
      job.record(index, outcome);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
  return job.finish(stop_requested.load());
}

}  // namespace dctwin::cli
