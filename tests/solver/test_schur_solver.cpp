// The structured linear solver (solver/src/schur_solver.hpp): which states it groups, that its
// solutions satisfy M x = b and agree with KLU on the whole matrix, and its failures.
#include <catch2/catch.hpp>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "../../solver/src/schur_solver.hpp"
#include "dctwin/solver/parallel.hpp"

using namespace dctwin::solver;

namespace {

/// A hall in miniature, laid out like the real one (each quantity in its own contiguous group):
/// per GPU a junction j, HBM h, base b and plate coolant c (j-b, h-b, b-c coupled both ways); the
/// plate coolant fed from its pod's supply (c row, supply column) and drained into its rack's
/// manifold (manifold row, c column); the manifold feeding the supply (a loop); an accumulator row
/// reading every junction. Plus a chain of six low-degree states hanging off the supply, too long
/// to be a group.
struct MiniHall {
  Index gpus, racks, pods;
  Index j(Index g) const { return g; }
  Index h(Index g) const { return gpus + g; }
  Index b(Index g) const { return 2 * gpus + g; }
  Index c(Index g) const { return 3 * gpus + g; }
  Index supply(Index p) const { return 4 * gpus + p; }
  Index manifold(Index r) const { return 4 * gpus + pods + r; }
  Index accumulator() const { return 4 * gpus + pods + racks; }
  Index chain(Index k) const { return 4 * gpus + pods + racks + 1 + k; }
  Index size() const { return 4 * gpus + pods + racks + 1 + 6; }
  Index rack_of(Index g) const { return g * racks / gpus; }
  Index pod_of_rack(Index r) const { return r * pods / racks; }

  SparsePattern pattern() const {
    std::vector<std::set<Index>> rows(static_cast<std::size_t>(size()));
    auto add = [&](Index r, Index col) { rows[static_cast<std::size_t>(r)].insert(col); };
    for (Index i = 0; i < size(); ++i) add(i, i);
    for (Index g = 0; g < gpus; ++g) {
      add(j(g), b(g)), add(b(g), j(g)), add(h(g), b(g)), add(b(g), h(g)), add(b(g), c(g)), add(c(g), b(g));
      add(c(g), supply(pod_of_rack(rack_of(g))));
      add(manifold(rack_of(g)), c(g));
      add(accumulator(), j(g));
    }
    for (Index r = 0; r < racks; ++r) add(supply(pod_of_rack(r)), manifold(r));
    add(chain(0), supply(0));
    for (Index k = 1; k < 6; ++k) add(chain(k), chain(k - 1)), add(chain(k - 1), chain(k));
    SparsePattern p;
    p.rows = size();
    p.row_start.push_back(0);
    for (const auto& row : rows) {
      p.columns.insert(p.columns.end(), row.begin(), row.end());
      p.row_start.push_back(static_cast<Index>(p.columns.size()));
    }
    return p;
  }
};

struct Context {
  SUNContext context = nullptr;
  Context() { REQUIRE(SUNContext_Create(nullptr, &context) == 0); }
  ~Context() { SUNContext_Free(&context); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

/// A CSR matrix with the pattern and values like a Newton matrix I - gamma J: off-diagonal
/// entries of both signs, each row's diagonal larger than the sum of its off-diagonal magnitudes
/// times 0.8 (so not every row dominates: the groups' pivoting is exercised).
SUNMatrix newton_like(const SparsePattern& p, SUNContext context, unsigned seed) {
  SUNMatrix m = SUNSparseMatrix(p.rows, p.rows, p.nonzeros(), CSR_MAT, context);
  std::copy(p.row_start.begin(), p.row_start.end(), SUNSparseMatrix_IndexPointers(m));
  std::copy(p.columns.begin(), p.columns.end(), SUNSparseMatrix_IndexValues(m));
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  double* data = SUNSparseMatrix_Data(m);
  for (Index r = 0; r < p.rows; ++r) {
    double off = 0.0;
    Index diagonal = -1;
    for (Index k = p.row_start[static_cast<std::size_t>(r)]; k < p.row_start[static_cast<std::size_t>(r) + 1]; ++k) {
      if (p.columns[static_cast<std::size_t>(k)] == r) {
        diagonal = k;
        continue;
      }
      data[k] = value(random);
      off += std::abs(data[k]);
    }
    data[diagonal] = (value(random) < 0.0 ? -1.0 : 1.0) * (0.8 * off + 0.05);
  }
  return m;
}

double largest_residual(const SparsePattern& p, SUNMatrix m, const std::vector<double>& x, const std::vector<double>& b) {
  const double* data = SUNSparseMatrix_Data(m);
  double worst = 0.0;
  for (Index r = 0; r < p.rows; ++r) {
    double sum = 0.0;
    for (Index k = p.row_start[static_cast<std::size_t>(r)]; k < p.row_start[static_cast<std::size_t>(r) + 1]; ++k)
      sum += data[k] * x[static_cast<std::size_t>(p.columns[static_cast<std::size_t>(k)])];
    worst = std::max(worst, std::abs(sum - b[static_cast<std::size_t>(r)]));
  }
  return worst;
}

struct BudgetGuard {
  int saved = thread_budget();
  ~BudgetGuard() { set_thread_budget(saved); }
};

}  // namespace

TEST_CASE("Each GPU's four states form a group, hubs and long chains stay shared", "[solver][schur]") {
  // 12 GPUs per rack: the manifolds (13 neighbours) and the supply (40) are hubs.
  const MiniHall hall{36, 3, 1};
  const SparsePattern p = hall.pattern();
  const StatePartition partition = find_small_groups(p);
  REQUIRE(partition.group_count() == 36);
  for (Index g = 0; g < 36; ++g) {
    const std::vector<Index> states(partition.group_states.begin() + partition.group_start[static_cast<std::size_t>(g)],
                                    partition.group_states.begin() + partition.group_start[static_cast<std::size_t>(g) + 1]);
    CHECK(states == std::vector<Index>{hall.j(g), hall.h(g), hall.b(g), hall.c(g)});
  }
  std::vector<Index> shared{hall.supply(0), hall.manifold(0), hall.manifold(1), hall.manifold(2), hall.accumulator()};
  for (Index k = 0; k < 6; ++k) shared.push_back(hall.chain(k));
  CHECK(partition.shared == shared);
  CHECK_FALSE(schur_solver_pays(partition, p.rows));  // 155 states: below the size where it pays

  // A small pod whose supply has few neighbours is not a hub: its GPUs join one component through
  // it, too large to be a group, and stay shared (correct, only not faster).
  CHECK(find_small_groups(MiniHall{6, 3, 2}.pattern()).group_count() == 0);
  // With groups of at most 3 the GPUs' components are too large: nothing is grouped.
  CHECK(find_small_groups(p, 3).group_count() == 0);
  // With neighbours limited to 2 the bases and plate coolants (3 each) are shared, the junctions
  // (base, accumulator) and HBMs (base) are groups of one, and the chain (all low-degree) is one
  // component of six: shared.
  const StatePartition narrow = find_small_groups(p, 4, 2);
  CHECK(narrow.group_count() == 72);
  CHECK(narrow.shared.size() == 72 + shared.size());
  CHECK_THROWS_WITH(find_small_groups(p, 5), "find_small_groups: groups hold at most 4 states");
}

TEST_CASE("The Schur solver's solutions satisfy M x = b and agree with KLU, on one and two threads",
          "[solver][schur][parallel]") {
  BudgetGuard guard;
  Context ctx;
  const MiniHall hall{3000, 96, 4};  // 3,000 groups: above parallel_minimum
  const SparsePattern p = hall.pattern();
  StatePartition partition = find_small_groups(p);
  REQUIRE(partition.group_count() == 3000);
  REQUIRE(schur_solver_pays(partition, p.rows));
  SUNMatrix m = newton_like(p, ctx.context, 7);
  N_Vector b = N_VNew_Serial(p.rows, ctx.context), x = N_VNew_Serial(p.rows, ctx.context);
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-10.0, 10.0);
  for (Index i = 0; i < p.rows; ++i) NV_Ith_S(b, i) = value(random);
  const std::vector<double> rhs(NV_DATA_S(b), NV_DATA_S(b) + p.rows);

  // KLU on the whole matrix, for comparison.
  SUNLinearSolver klu = SUNLinSol_KLU(x, m, ctx.context);
  REQUIRE(SUNLinSolInitialize(klu) == 0);
  REQUIRE(SUNLinSolSetup(klu, m) == 0);
  REQUIRE(SUNLinSolSolve(klu, m, x, b, 0.0) == 0);
  const std::vector<double> from_klu(NV_DATA_S(x), NV_DATA_S(x) + p.rows);
  SUNLinSolFree(klu);

  SUNLinearSolver schur = make_schur_solver(p, std::move(partition), ctx.context);
  CHECK(SUNLinSolGetType(schur) == SUNLINEARSOLVER_DIRECT);
  REQUIRE(SUNLinSolInitialize(schur) == 0);
  std::vector<std::vector<double>> solutions;
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    REQUIRE(SUNLinSolSetup(schur, m) == 0);
    N_VConst(0.0, x);
    REQUIRE(SUNLinSolSolve(schur, m, x, b, 0.0) == 0);
    solutions.emplace_back(NV_DATA_S(x), NV_DATA_S(x) + p.rows);
    // In place (CVODE may pass the same vector as x and b).
    N_Vector xb = N_VClone(b);
    N_VScale(1.0, b, xb);
    REQUIRE(SUNLinSolSolve(schur, m, xb, xb, 0.0) == 0);
    CHECK(std::memcmp(NV_DATA_S(xb), solutions.back().data(), sizeof(double) * rhs.size()) == 0);
    N_VDestroy(xb);
  }
  const std::vector<double>& x1 = solutions[0];
  double scale = 0.0, difference = 0.0;
  for (std::size_t i = 0; i < x1.size(); ++i) {
    scale = std::max(scale, std::abs(from_klu[i]));
    difference = std::max(difference, std::abs(x1[i] - from_klu[i]));
  }
  INFO("largest |x| " << scale << ", largest difference from KLU " << difference);
  CHECK(largest_residual(p, m, x1, rhs) <= 1e-10 * scale);
  CHECK(difference <= 1e-12 * scale);
  // The result does not depend on the thread count.
  CHECK(solutions[0] == solutions[1]);

  // A second setup after the values change refactors S with the first pivot order.
  double* data = SUNSparseMatrix_Data(m);
  for (Index k = 0; k < p.nonzeros(); ++k) data[k] *= 1.0 + 1e-3 * std::sin(static_cast<double>(k));
  REQUIRE(SUNLinSolSetup(schur, m) == 0);
  REQUIRE(SUNLinSolSolve(schur, m, x, b, 0.0) == 0);
  const std::vector<double> again(NV_DATA_S(x), NV_DATA_S(x) + p.rows);
  CHECK(largest_residual(p, m, again, rhs) <= 1e-10 * scale);

  SUNLinSolFree(schur);
  N_VDestroy(b);
  N_VDestroy(x);
  SUNMatDestroy(m);
}

TEST_CASE("The Schur solver reports a singular group as a recoverable failure and rejects bad partitions",
          "[solver][schur]") {
  Context ctx;
  const MiniHall hall{1200, 48, 2};
  const SparsePattern p = hall.pattern();
  SUNMatrix m = newton_like(p, ctx.context, 3);
  // GPU 5's junction row and column zero: its group's block is singular.
  double* data = SUNSparseMatrix_Data(m);
  for (Index r = 0; r < p.rows; ++r)
    for (Index k = p.row_start[static_cast<std::size_t>(r)]; k < p.row_start[static_cast<std::size_t>(r) + 1]; ++k)
      if (r == hall.j(5) || p.columns[static_cast<std::size_t>(k)] == hall.j(5)) data[k] = 0.0;
  SUNLinearSolver schur = make_schur_solver(p, find_small_groups(p), ctx.context);
  CHECK(SUNLinSolSetup(schur, m) == SUNLS_LUFACT_FAIL);
  CHECK(SUNLinSolLastFlag(schur) == SUNLS_LUFACT_FAIL);
  SUNLinSolFree(schur);
  SUNMatDestroy(m);

  // Two GPUs in one group each but joined by an entry: the partition does not fit the pattern.
  SparsePattern joined = p;
  StatePartition partition = find_small_groups(p);
  // Replace GPU 0's junction-to-base entry by junction-to-(GPU 1's base).
  const Index position = joined.find(hall.j(0), hall.b(0));
  REQUIRE(position >= 0);
  joined.columns[static_cast<std::size_t>(position)] = hall.b(1);
  CHECK_THROWS_WITH(make_schur_solver(joined, partition, ctx.context),
                    "make_schur_solver: two groups are coupled directly");
  // A state left out of the partition.
  StatePartition missing = partition;
  missing.shared.pop_back();
  CHECK_THROWS_WITH(make_schur_solver(p, missing, ctx.context),
                    "make_schur_solver: every state must be in exactly one group or shared");
  // A state twice.
  StatePartition twice = partition;
  twice.shared.push_back(twice.shared.front());
  CHECK_THROWS_WITH(make_schur_solver(p, twice, ctx.context),
                    "make_schur_solver: every state must be in exactly one group or shared");
}
