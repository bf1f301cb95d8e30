#include "dctwin/solver/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <thread>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace dctwin::solver {

namespace {
thread_local int budget = 0;

#ifdef _OPENMP
/// OpenMP's own default: OMP_NUM_THREADS when set, else one per available CPU.
int default_threads() { return std::max(1, omp_get_max_threads()); }
/// Processors this process may run on (a budget beyond them only oversubscribes).
int available_processors() { return std::max(1, omp_get_num_procs()); }
#endif
}  // namespace

double ordered_sum(const BlockSums& sums) {
  double total = 0.0;
  for (const double s : sums) total += s;
  return total;
}

void set_thread_budget(int threads) { budget = std::max(0, threads); }

int thread_budget() { return budget; }

int threads_in_use() {
#ifdef _OPENMP
  // OMP_NUM_THREADS is capped like a budget: a huge value would otherwise start that many helper
  // threads (each with its stack) for every loop's team.
  return std::min(budget > 0 ? budget : default_threads(), available_processors());
#else
  return 1;
#endif
}

namespace {
/// Whether this thread runs a block of a loop now (a helper always does): a loop inside it runs
/// on this thread alone, as OpenMP runs a nested region.
thread_local bool inside_loop = false;

/// The helper threads of one calling thread's loops: they wait for a loop, run their part of it,
/// and wait again. A loop costs a few atomic operations when the helpers are awake; OpenMP's
/// `parallel` region cost ~3 us here (two futex system calls per region on this VM, one of them
/// on the calling thread's path: libgomp's barriers wake unconditionally). A helper spins for
/// `spin_time` after its last loop before it sleeps; the caller wakes a sleeping helper with one
/// system call.
class Team {
 public:
  explicit Team(int threads) : size_(static_cast<std::size_t>(threads)) {
    helpers_.reserve(size_ - 1);
    for (std::size_t index = 1; index < size_; ++index) helpers_.emplace_back([this, index] { serve(index); });
  }
  ~Team() {
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    for (auto& helper : helpers_) helper.join();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  /// job(i) on the calling thread (i = 0) and on each helper (i = 1 .. size - 1) that joins the
  /// loop before the caller has finished its own part; returns when those have returned. A helper
  /// that was descheduled and wakes after that skips the loop instead of making the caller wait a
  /// time slice for it, so the job must not depend on every i running: it must be able to finish
  /// all the work from job(0) alone (for_each_block's stealing does). The job must not throw.
  void run(const std::function<void(std::size_t)>& job) {
    struct Inside {
      Inside() { inside_loop = true; }
      ~Inside() { inside_loop = false; }
    } inside;
    job_ = &job;
    const std::uint32_t loop = generation_.load(std::memory_order_relaxed) + 1;
    open_.store(loop, std::memory_order_seq_cst);
    generation_.store(loop, std::memory_order_release);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) generation_.notify_all();
    job(0);
    // Close the loop, then wait for the helpers inside it. A helper counts itself in before it
    // checks that the loop is still open (both sequentially consistent), so either the caller sees
    // it counted and waits, or the helper sees the loop closed and leaves without touching it.
    open_.store(0, std::memory_order_seq_cst);
    for (std::uint32_t spins = 0; inside_.load(std::memory_order_seq_cst) != 0; ++spins) {
      if (spins < 4096) pause();
      else std::this_thread::yield();  // a helper inside was descheduled: let it run
    }
  }

 private:
  static constexpr auto spin_time = std::chrono::milliseconds(2);

  static void pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  void serve(std::size_t index) {
    inside_loop = true;
    std::uint32_t seen = 0;
    while (true) {
      std::uint32_t now = generation_.load(std::memory_order_acquire);
      if (now == seen) {
        const auto give_up = std::chrono::steady_clock::now() + spin_time;
        for (std::uint32_t spins = 1; now == seen; ++spins) {
          pause();
          now = generation_.load(std::memory_order_acquire);
          if (now == seen && spins % 1024 == 0 && std::chrono::steady_clock::now() > give_up) {
            sleepers_.fetch_add(1, std::memory_order_seq_cst);
            generation_.wait(seen, std::memory_order_acquire);  // returns at once if it moved
            sleepers_.fetch_sub(1, std::memory_order_relaxed);
            now = generation_.load(std::memory_order_acquire);
          }
        }
      }
      seen = now;
      if (stop_) return;
      inside_.fetch_add(1, std::memory_order_seq_cst);
      if (open_.load(std::memory_order_seq_cst) == now) (*job_)(index);
      inside_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  const std::size_t size_;
  std::vector<std::thread> helpers_;
  const std::function<void(std::size_t)>* job_ = nullptr;  // published by generation_
  bool stop_ = false;                                       // published by generation_
  alignas(64) std::atomic<std::uint32_t> generation_{0};    // bumped once per loop
  alignas(64) std::atomic<std::uint32_t> open_{0};          // the loop helpers may still join (0: none)
  alignas(64) std::atomic<std::size_t> inside_{0};          // helpers inside a loop now
  alignas(64) std::atomic<int> sleepers_{0};
};

/// The calling thread's team of `threads`, made (or remade, when the count changed) on first use.
Team& team_of(int threads) {
  thread_local std::unique_ptr<Team> team;
  if (!team || team->size() != static_cast<std::size_t>(threads)) {
    team.reset();
    team = std::make_unique<Team>(threads);
  }
  return *team;
}
}  // namespace

void for_each_block(std::size_t n, const std::function<void(const BlockRange&)>& body, std::size_t minimum) {
  auto range = [n](std::size_t b) { return block_range(n, b); };
  const int threads = n >= minimum && !inside_loop ? threads_in_use() : 1;
  if (threads <= 1) {
    for (std::size_t b = 0; b < parallel_blocks; ++b) body(range(b));
    return;
  }
  // Each thread first runs its own contiguous share of the blocks (the same part of every array
  // each time, which its core's cache keeps), in ascending order; then it takes, from the far
  // end, the blocks of the others that nobody has started. A thread that starts late (woken
  // from sleep after a serial stretch) thus does not hold the others at the loop's end. Which
  // thread runs a block does not change what the block computes.
  struct alignas(64) Claim {
    std::atomic<bool> taken{false};
  };
  std::array<Claim, parallel_blocks> claims;
  std::array<std::exception_ptr, parallel_blocks> errors{};
  auto run = [&](std::size_t block) {
    if (claims[block].taken.load(std::memory_order_relaxed) ||
        claims[block].taken.exchange(true, std::memory_order_acq_rel))
      return;
    try {
      body(range(block));
    } catch (...) {
      errors[block] = std::current_exception();
    }
  };
  Team& team = team_of(threads);
  const std::size_t size = team.size();
  auto share_begin = [size](std::size_t t) { return parallel_blocks * t / size; };
  team.run([&](std::size_t me) {
    for (std::size_t b = share_begin(me); b < share_begin(me + 1); ++b) run(b);
    for (std::size_t k = 1; k < size; ++k) {
      const std::size_t other = (me + k) % size;
      for (std::size_t b = share_begin(other + 1); b-- > share_begin(other);) run(b);
    }
  });
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

void for_each_block_in(const StateRanges& ranges, const std::function<void(const BlockRange&)>& body,
                       std::size_t minimum) {
  std::size_t total = 0;
  for (const StateRange& r : ranges) total += static_cast<std::size_t>(r.count);
  for_each_block(
      total,
      [&](const BlockRange& block) {
        // Positions [block.first, block.last) of the ranges laid end to end, as runs of states.
        std::size_t start = 0;  // position of the current range's first state
        for (const StateRange& r : ranges) {
          const auto count = static_cast<std::size_t>(r.count);
          const std::size_t from = std::max(block.first, start), to = std::min(block.last, start + count);
          const auto first = static_cast<std::size_t>(r.first);
          if (from < to) body(BlockRange{first + (from - start), first + (to - start), block.block});
          start += count;
          if (start >= block.last) break;
        }
      },
      minimum);
}

}  // namespace dctwin::solver
