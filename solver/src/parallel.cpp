#include "dctwin/solver/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

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
  return budget > 0 ? std::min(budget, available_processors()) : default_threads();
#else
  return 1;
#endif
}

void for_each_block(std::size_t n, const std::function<void(const BlockRange&)>& body, std::size_t minimum) {
  auto range = [n](std::size_t b) { return block_range(n, b); };
  const int threads = n >= minimum ? threads_in_use() : 1;
  if (threads <= 1) {
    for (std::size_t b = 0; b < parallel_blocks; ++b) body(range(b));
    return;
  }
#ifdef _OPENMP
  // Each thread first runs its own contiguous share of the blocks (OpenMP's static cut: the same
  // part of every array each time, which its core's cache keeps), in ascending order; then it
  // takes, from the far end, the blocks of the others that nobody has started. A thread that
  // starts late (woken from sleep after a serial stretch) thus no longer holds the others at the
  // loop's end. Which thread runs a block does not change what the block computes.
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
#pragma omp parallel num_threads(threads)
  {
    const auto team = static_cast<std::size_t>(omp_get_num_threads());
    const auto me = static_cast<std::size_t>(omp_get_thread_num());
    auto share_begin = [team](std::size_t t) { return parallel_blocks * t / team; };
    for (std::size_t b = share_begin(me); b < share_begin(me + 1); ++b) run(b);
    for (std::size_t k = 1; k < team; ++k) {
      const std::size_t other = (me + k) % team;
      for (std::size_t b = share_begin(other + 1); b-- > share_begin(other);) run(b);
    }
  }
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
#endif
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
