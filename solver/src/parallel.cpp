#include "dctwin/solver/parallel.hpp"

#include <algorithm>
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
  std::array<std::exception_ptr, parallel_blocks> errors{};
  const auto blocks = static_cast<long>(parallel_blocks);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (long b = 0; b < blocks; ++b) {
    const auto block = static_cast<std::size_t>(b);
    try {
      body(range(block));
    } catch (...) {
      errors[block] = std::current_exception();
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
