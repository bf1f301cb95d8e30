// The block loops of solver/parallel.hpp: every element once, fixed blocks, sums that do not
// depend on the thread count, errors carried out of the threads, a per-thread budget, loops over
// ranges of states.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dctwin/solver/parallel.hpp"

using namespace dctwin::solver;

namespace {
/// Restores the calling thread's budget when a test ends.
struct BudgetGuard {
  int saved = thread_budget();
  ~BudgetGuard() { set_thread_budget(saved); }
};

/// sum_i 1 / (i + 1)^2 over [0, n) by blocks, on `threads` threads.
double harmonic_squares(std::size_t n, int threads) {
  set_thread_budget(threads);
  BlockSums sums{};
  for_each_block(n, [&](const BlockRange& block) {
    for (std::size_t i = block.first; i < block.last; ++i) {
      const double k = static_cast<double>(i + 1);
      sums[block.block] += 1.0 / (k * k);
    }
  });
  return ordered_sum(sums);
}
}  // namespace

TEST_CASE("for_each_block visits every element once, in fixed blocks", "[solver][parallel]") {
  BudgetGuard guard;
  for (const std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{1000}, std::size_t{24576}, std::size_t{100003}}) {
    for (const int threads : {1, 2}) {
      set_thread_budget(threads);
      std::vector<int> visits(n, 0);
      std::vector<BlockRange> blocks(parallel_blocks);
      for_each_block(n, [&](const BlockRange& block) {
        blocks[block.block] = block;
        for (std::size_t i = block.first; i < block.last; ++i) ++visits[i];
      });
      INFO("n = " << n << ", threads = " << threads);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(visits[i] == 1);
      // Contiguous blocks covering [0, n), the same whatever the thread count.
      CHECK(blocks.front().first == 0);
      CHECK(blocks.back().last == n);
      for (std::size_t b = 0; b < parallel_blocks; ++b) {
        CHECK(blocks[b].block == b);
        CHECK(blocks[b].first == n * b / parallel_blocks);
        if (b > 0) CHECK(blocks[b].first == blocks[b - 1].last);
      }
    }
  }
}

TEST_CASE("Block sums are the same to the last digit on one thread or several", "[solver][parallel]") {
  BudgetGuard guard;
  const std::size_t n = 200000;
  const double one = harmonic_squares(n, 1);
  const double two = harmonic_squares(n, 2);
  CHECK(one == two);
  // And the value itself: pi^2/6 less the tail, which is about 1/n.
  const double pi = std::acos(-1.0);
  CHECK(one == Approx(pi * pi / 6.0 - 1.0 / static_cast<double>(n)).epsilon(1e-10));
}

TEST_CASE("A thread that is held up leaves its unstarted blocks to the others", "[solver][parallel]") {
  BudgetGuard guard;
  set_thread_budget(2);
  if (threads_in_use() < 2) return;  // one CPU: nothing runs concurrently
  const std::thread::id caller = std::this_thread::get_id();
  std::array<std::thread::id, parallel_blocks> runner{};
  std::array<int, parallel_blocks> visits{};
  std::atomic<bool> held{false};
  std::atomic<std::size_t> run_by_caller{0};
  for_each_block(1 << 20, [&](const BlockRange& block) {
    runner[block.block] = std::this_thread::get_id();
    ++visits[block.block];
    // The other thread stops in its first block, as one woken late would start late, until the
    // caller has run every other block (up to 2 s: without taking blocks, the caller never does);
    // the caller waits in its first block until the other has started (up to 1 s).
    if (runner[block.block] != caller) {
      if (!held.exchange(true)) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (run_by_caller.load() < parallel_blocks - 1 && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } else if (block.block == 0) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      while (!held.load() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    }
    if (runner[block.block] == caller) ++run_by_caller;
  });
  for (std::size_t b = 0; b < parallel_blocks; ++b) CHECK(visits[b] == 1);
  if (!held.load()) {
    WARN("the second thread did not start within 1 s: nothing to check");
    return;
  }
  // The caller ran its own half (0-7), then the other half's blocks but the one the other thread
  // was held in.
  const auto by_caller = std::count(runner.begin(), runner.end(), caller);
  CHECK(by_caller == static_cast<long>(parallel_blocks) - 1);
  for (std::size_t b = 0; b < parallel_blocks / 2; ++b) CHECK(runner[b] == caller);
}

TEST_CASE("An exception in a block reaches the caller after every block ran", "[solver][parallel]") {
  BudgetGuard guard;
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    std::vector<int> ran(parallel_blocks, 0);
    auto body = [&](const BlockRange& block) {
      ran[block.block] = 1;
      if (block.block == 3 || block.block == 9) throw std::runtime_error("block " + std::to_string(block.block) + " failed");
    };
    INFO("threads = " << threads);
    // On one thread the loop stops at the first failure; on several, the first failure by block is
    // rethrown once all blocks are done.
    CHECK_THROWS_WITH(for_each_block(4096, body), "block 3 failed");
    if (threads_in_use() > 1) CHECK(std::count(ran.begin(), ran.end(), 1) == static_cast<long>(parallel_blocks));
  }
}

TEST_CASE("The thread budget belongs to the thread that sets it", "[solver][parallel]") {
  BudgetGuard guard;
  set_thread_budget(1);
  CHECK(thread_budget() == 1);
  CHECK(threads_in_use() == 1);
  int other_budget = -1;
  std::thread([&] { other_budget = thread_budget(); }).join();
  CHECK(other_budget == 0);  // a new thread starts with the default
  set_thread_budget(-3);     // negative: the default
  CHECK(thread_budget() == 0);
  CHECK(threads_in_use() >= 1);
  set_thread_budget(1000);  // never more threads than processors
  CHECK(threads_in_use() <= static_cast<int>(std::max(1U, std::thread::hardware_concurrency())));
}

TEST_CASE("State ranges merge, and for_each_block_in visits each of their states once", "[solver][parallel]") {
  // Sorted by start; overlapping and adjacent ranges joined; empty ones dropped.
  const StateRanges merged = merge_state_ranges({{50, 10}, {0, 5}, {5, 3}, {20, 0}, {55, 10}, {70, 2}});
  CHECK(merged == StateRanges{{0, 8}, {50, 15}, {70, 2}});
  CHECK(merge_state_ranges({}).empty());
  CHECK(merge_state_ranges({{3, 4}, {4, 1}}) == StateRanges{{3, 4}});

  BudgetGuard guard;
  // Two large ranges (as a hall's junction and HBM groups) and a small one, one thread or two.
  const StateRanges ranges = merge_state_ranges({{1000, 24576}, {60000, 24576}, {90000, 7}});
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    std::vector<int> visits(100000, 0);
    std::vector<std::vector<BlockRange>> runs(parallel_blocks);
    for_each_block_in(ranges, [&](const BlockRange& run) {
      runs[run.block].push_back(run);
      for (std::size_t i = run.first; i < run.last; ++i) ++visits[i];
    });
    INFO("threads = " << threads);
    for (std::size_t i = 0; i < visits.size(); ++i) {
      const bool inside = (i >= 1000 && i < 25576) || (i >= 60000 && i < 84576) || (i >= 90000 && i < 90007);
      REQUIRE(visits[i] == (inside ? 1 : 0));
    }
    // Block b holds the positions [n b / 16, n (b + 1) / 16) of the ranges laid end to end.
    const std::size_t n = 24576 + 24576 + 7;
    for (std::size_t b = 0; b < parallel_blocks; ++b) {
      std::size_t count = 0;
      for (const auto& run : runs[b]) count += run.last - run.first;
      CHECK(count == block_range(n, b).last - block_range(n, b).first);
    }
  }
}
