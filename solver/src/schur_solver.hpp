#pragma once
// A direct linear solver for CVODE's Newton matrix M = I - gamma J that uses the structure of a
// facility's Jacobian (internal to the solver library; docs/solver.md, "Linear solver").
//
// Most states sit in small groups that touch only each other and a few shared states: a GPU's
// junction, HBM, base and plate coolant form a group of four that reaches the rest of the network
// only through its pod's supply header, its rack's return manifold and the accumulators. Ordering
// the groups' states first,
//
//   M = [ A  B ]     A block diagonal (one dense k x k block per group, k <= 4),
//       [ C  D ]     D the shared states,
//
// the solution of M x = b is (block Gaussian elimination; Golub & Van Loan, Matrix Computations,
// 4th ed., sec. 3.2.10, the Schur complement)
//
//   S = D - C A^-1 B,   z = A^-1 b_A,   S x_D = b_D - C z,   x_A = z - (A^-1 B) x_D.
//
// The groups' inverses and A^-1 B are computed group by group on every core; KLU factors only S,
// about 1,600 rows for the 24,576-GPU hall instead of 101,407. The result equals that of a factorization of
// the whole of M up to rounding (the order of the eliminations differs).

#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>

#include <cstddef>
#include <vector>

#include "dctwin/solver/system.hpp"

namespace dctwin::solver {

/// Which states of a sparsity pattern form small groups and which are shared.
struct StatePartition {
  /// The groups: group g's states are group_states[group_start[g] .. group_start[g + 1]).
  std::vector<Index> group_start{0};
  std::vector<Index> group_states;
  /// The states left to the Schur complement, in increasing order.
  std::vector<Index> shared;
  [[nodiscard]] std::size_t group_count() const { return group_start.size() - 1; }
};

/// Groups of at most `max_group` states, each state with at most `max_degree` neighbours (in the
/// pattern made symmetric), connected only to each other and to shared states: the connected
/// components of the graph of the low-degree states that are small enough. Every other state is
/// shared. The pattern must hold every diagonal entry (checked by the caller).
[[nodiscard]] StatePartition find_small_groups(const SparsePattern& pattern, std::size_t max_group = 4,
                                               std::size_t max_degree = 8);

/// Whether the Schur solver pays for this partition: at least half of the states in groups and a
/// system large enough that the serial factorization matters.
[[nodiscard]] bool schur_solver_pays(const StatePartition& partition, Index states);

/// A SUNLinearSolver of type SUNLINEARSOLVER_DIRECT for CSR matrices with exactly `pattern` (the
/// Newton matrix keeps the Jacobian's pattern when every diagonal entry is in it). Setup fails
/// recoverably (SUNLS_LUFACT_FAIL) when a group's block or S is singular; CVODE then retries with a
/// smaller step. Free it with SUNLinSolFree.
[[nodiscard]] SUNLinearSolver make_schur_solver(const SparsePattern& pattern, StatePartition partition,
                                                SUNContext context);

}  // namespace dctwin::solver
