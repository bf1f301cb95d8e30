#pragma once
// Loops over many independent elements (every GPU of a hall) on the machine's cores.
//
// The range [0, n) is cut into a fixed number of blocks whatever the number of threads, and a
// sum is formed per block and then over the blocks in block order: a result is the same to the
// last digit on one thread or on several (docs/solver.md, "Both cores").

#include <array>
#include <cstddef>
#include <functional>

#include "dctwin/solver/types.hpp"

namespace dctwin::solver {

/// Blocks a loop is cut into.
inline constexpr std::size_t parallel_blocks = 16;
/// Loops shorter than this run on the calling thread alone (handing a loop to the helper threads
/// costs ~1-3 us).
inline constexpr std::size_t parallel_minimum = 1024;

/// Elements [first, last) of block `block` of a loop.
struct BlockRange {
  std::size_t first = 0, last = 0, block = 0;
};

/// Block `block` of a loop over [0, n): the same cut for every thread count.
[[nodiscard]] inline BlockRange block_range(std::size_t n, std::size_t block) {
  return BlockRange{n * block / parallel_blocks, n * (block + 1) / parallel_blocks, block};
}

/// One value per block, summed in block order.
using BlockSums = std::array<double, parallel_blocks>;
[[nodiscard]] double ordered_sum(const BlockSums& sums);

/// Calls body once for each block of [0, n) (empty blocks included), concurrently on up to
/// threads_in_use() threads when n >= minimum. Bodies of different blocks must touch disjoint
/// data. An exception thrown by a body is rethrown here (the first one, by block) after every
/// block has finished.
void for_each_block(std::size_t n, const std::function<void(const BlockRange&)>& body,
                    std::size_t minimum = parallel_minimum);

/// Calls body for every state of `ranges` (sorted, disjoint: merge_state_ranges) in the blocks of
/// one loop over their total count, so that several ranges share one thread team; each call gets
/// a run [first, last) of consecutive states inside one range, and the loop's block it is in.
void for_each_block_in(const StateRanges& ranges, const std::function<void(const BlockRange&)>& body,
                       std::size_t minimum = parallel_minimum);

/// Marks a function whose loops are compute-bound once their inputs are read: with GCC on x86-64
/// it is compiled for AVX-512 and AVX2 as well as the baseline, and the variant the processor has
/// is chosen at load time (4 or 8 doubles per instruction instead of 2). A file that uses it must
/// be compiled without contraction into fused multiply-adds (-ffp-contract=off), so that every
/// variant gives the same bits.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define DCTWIN_VECTOR_VARIANTS __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DCTWIN_VECTOR_VARIANTS
#endif

/// Threads the calling thread's loops may use (at most one per available CPU, as OMP_NUM_THREADS);
/// 0, the default, leaves it to OpenMP: OMP_NUM_THREADS when set, else one per available CPU.
/// It is the calling thread's own setting: a sweep that runs members on several threads gives
/// each of them its share.
void set_thread_budget(int threads);
[[nodiscard]] int thread_budget();
/// The threads a loop of the calling thread would use now (1 without OpenMP).
[[nodiscard]] int threads_in_use();

}  // namespace dctwin::solver
