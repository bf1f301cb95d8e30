// `dctwin sweep` under mpirun: rank 0 hands out members one at a time (dynamic load balancing),
// every other rank runs the members it is given and reports how each went. Only MPI's C API is
// used, from the main thread of each process (MPI_THREAD_FUNNELED is enough).
//
// Messages (all on MPI_COMM_WORLD):
//   worker -> 0, tag_result: text "<index>\t<status>\t<interrupted>\t<wall time>\t<reason>", or
//                            "ready" before the first member
//   0 -> worker, tag_assign: one long long, the member index, or -1: no more members
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "exit_codes.hpp"
#include "sweep_command.hpp"

namespace dctwin::cli {

namespace {

constexpr int tag_result = 1;
constexpr int tag_assign = 2;
constexpr long long no_more_members = -1;

std::string encode(long long index, const io::MemberOutcome& outcome) {
  return std::to_string(index) + "\t" + std::to_string(static_cast<int>(outcome.status)) + "\t" +
         (outcome.interrupted ? "1" : "0") + "\t" + std::to_string(outcome.wall_time_seconds) + "\t" + outcome.reason;
}

bool decode(const std::string& text, long long& index, io::MemberOutcome& outcome) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (int k = 0; k < 4; ++k) {
    const auto tab = text.find('\t', start);
    if (tab == std::string::npos) return false;
    fields.push_back(text.substr(start, tab - start));
    start = tab + 1;
  }
  try {
    index = std::stoll(fields[0]);
    outcome.status = static_cast<io::MemberStatus>(std::stoi(fields[1]));
    outcome.interrupted = fields[2] == "1";
    outcome.wall_time_seconds = std::stod(fields[3]);
  } catch (const std::exception&) {
    return false;
  }
  outcome.reason = text.substr(start);
  return true;
}

void send_text(const std::string& text, int destination) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, destination, tag_result, MPI_COMM_WORLD);
}

/// Rank 0: answers every request with the next member until none are left (or a stop was asked
/// for), then tells each worker to finish. Returns whether the sweep was interrupted.
bool coordinate(SweepJob& job, int workers, const std::atomic<bool>& stop_requested) {
  const auto& pending = job.pending();
  std::size_t next = 0;
  int active = workers;
  while (active > 0) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, tag_result, MPI_COMM_WORLD, &arrived, &status);
    if (arrived == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string text(static_cast<std::size_t>(length), '\0');
    MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, tag_result, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long long index = 0;
    io::MemberOutcome outcome;
    if (text != "ready") {
      if (decode(text, index, outcome)) {
        job.record(static_cast<std::size_t>(index), outcome);
      } else {
        std::fprintf(stderr, "dctwin sweep: rank %d sent a malformed result\n", status.MPI_SOURCE);
      }
    }
    long long assignment = no_more_members;
    if (!stop_requested.load() && next < pending.size()) assignment = static_cast<long long>(pending[next++]);
    MPI_Send(&assignment, 1, MPI_LONG_LONG, status.MPI_SOURCE, tag_assign, MPI_COMM_WORLD);
    if (assignment == no_more_members) --active;
  }
  return stop_requested.load() || next < pending.size();
}

/// Ranks > 0: run members until rank 0 says there are no more.
void work(const SweepJob* job, const std::atomic<bool>& stop_requested) {
  send_text("ready", 0);
  while (true) {
    long long index = no_more_members;
    MPI_Recv(&index, 1, MPI_LONG_LONG, 0, tag_assign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index == no_more_members) return;
    io::MemberOutcome outcome;
    if (job == nullptr) {
      outcome.status = io::MemberStatus::failed;
      outcome.reason = "this rank could not load the sweep";
    } else {
      try {
        outcome = io::run_sweep_member(job->plan(), static_cast<std::size_t>(index), job->directory(), &stop_requested);
      } catch (const std::exception& e) {
        outcome.status = io::MemberStatus::failed;
        outcome.reason = std::string("internal error: ") + e.what();
      }
    }
    send_text(encode(index, outcome), 0);
  }
}

}  // namespace

bool launched_by_mpi() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

int sweep_command_mpi(const SweepArguments& arguments, const std::atomic<bool>& stop_requested) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int code = exit_ok;
  try {
    SweepJob job(arguments, rank == 0);
    // Every rank reads the sweep itself (the plan is deterministic); rank 0 speaks for all.
    const int loaded = job.load();
    if (rank == 0 && loaded == exit_ok) code = job.prepare();
    else code = loaded;
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code == exit_ok) {
      if (size == 1) {
        code = run_on_threads(job, arguments.jobs, stop_requested);
      } else if (rank == 0) {
        job.announce("on " + std::to_string(size - 1) + " MPI worker rank" + (size == 2 ? "" : "s"));
        const bool interrupted = coordinate(job, size - 1, stop_requested);
        code = job.finish(interrupted);
      } else {
        work(loaded == exit_ok ? &job : nullptr, stop_requested);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dctwin sweep: rank %d: internal error: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, exit_internal);
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return code;
}

}  // namespace dctwin::cli
