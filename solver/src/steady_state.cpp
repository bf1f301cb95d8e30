// Steady state of f(x) = 0 by pseudo-transient continuation with the system's analytic sparse
// Jacobian. The linear systems go to the structured solver of the integrator (schur_solver.hpp:
// small groups such as a GPU's four states eliminated first, KLU on the rest) when the system has
// such groups, else to Eigen's sparse LU. Accumulator states (integrals kept for bookkeeping) have
// no steady state: they are held fixed and their rows and columns are left out.
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/number_text.hpp"
#include "dctwin/solver/integrator.hpp"
#include "dctwin/solver/simulator.hpp"
#include "schur_solver.hpp"

namespace dctwin::solver {

namespace {

/// (I - dtau J_r) dx = dtau f_r on the unknowns that are not accumulators (J_r: the Jacobian's
/// rows and columns of those), by the Schur solver of the integrator's Newton systems, which takes
/// exactly this form (gamma = dtau). On the 24,576-GPU hall Eigen's sparse LU of the same matrix
/// (COLAMD ordering) was ~90 % of the start's steady-state solve (~2 s).
class StructuredStep {
 public:
  /// Null when the reduced system has no groups that pay (then the caller uses the sparse LU).
  static std::unique_ptr<StructuredStep> make(const SparsePattern& pattern, const std::vector<Index>& reduced,
                                              Index unknowns) {
    // The reduced pattern, with every diagonal entry, and where each Jacobian entry lands in it.
    SparsePattern p;
    p.rows = unknowns;
    p.row_start.assign(1, 0);
    std::vector<Index> entry_of(static_cast<std::size_t>(pattern.nonzeros()), -1), diagonal;
    std::vector<std::pair<Index, Index>> row;  // reduced column, Jacobian entry (-1: the added diagonal)
    for (Index full_row = 0; full_row < pattern.rows; ++full_row) {
      const Index r = reduced[static_cast<std::size_t>(full_row)];
      if (r < 0) continue;
      row.clear();
      bool has_diagonal = false;
      for (Index k = pattern.row_start[static_cast<std::size_t>(full_row)];
           k < pattern.row_start[static_cast<std::size_t>(full_row) + 1]; ++k) {
        const Index c = reduced[static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(k)])];
        if (c < 0) continue;
        row.emplace_back(c, k);
        has_diagonal = has_diagonal || c == r;
      }
      if (!has_diagonal) row.emplace_back(r, -1);
      std::sort(row.begin(), row.end());
      for (const auto& [c, k] : row) {
        const auto position = static_cast<Index>(p.columns.size());
        if (k >= 0) entry_of[static_cast<std::size_t>(k)] = position;
        if (c == r) diagonal.push_back(position);
        p.columns.push_back(c);
      }
      p.row_start.push_back(static_cast<Index>(p.columns.size()));
    }
    StatePartition partition = find_small_groups(p);
    if (!schur_solver_pays(partition, unknowns)) return nullptr;
    return std::unique_ptr<StructuredStep>(
        new StructuredStep(std::move(p), std::move(partition), std::move(entry_of), std::move(diagonal)));
  }

  StructuredStep(const StructuredStep&) = delete;
  StructuredStep& operator=(const StructuredStep&) = delete;
  ~StructuredStep() {
    if (solver_ != nullptr) SUNLinSolFree(solver_);
    if (matrix_ != nullptr) SUNMatDestroy(matrix_);
    if (b_ != nullptr) N_VDestroy(b_);
    if (dx_ != nullptr) N_VDestroy(dx_);
    if (context_ != nullptr) SUNContext_Free(&context_);
  }

  /// dx for the Jacobian's values `jacobian` (the full pattern's) and the reduced residual f_r;
  /// false when the solver fails (a singular block or S), for the caller to fall back.
  bool solve(const std::vector<double>& jacobian, double dtau, const Eigen::VectorXd& residual, Eigen::VectorXd& dx) {
    double* m = SUNSparseMatrix_Data(matrix_);
    std::fill(m, m + pattern_.nonzeros(), 0.0);
    for (std::size_t k = 0; k < entry_of_.size(); ++k)
      if (entry_of_[k] >= 0) m[entry_of_[k]] = -dtau * jacobian[k];
    for (const Index position : diagonal_) m[position] += 1.0;
    double* b = N_VGetArrayPointer(b_);
    for (Eigen::Index r = 0; r < residual.size(); ++r) b[r] = dtau * residual[r];
    if (SUNLinSolSetup(solver_, matrix_) != 0) return false;
    if (SUNLinSolSolve(solver_, matrix_, dx_, b_, 0.0) != 0) return false;
    const double* x = N_VGetArrayPointer(dx_);
    dx = Eigen::Map<const Eigen::VectorXd>(x, residual.size());
    return dx.allFinite();
  }

 private:
  StructuredStep(SparsePattern pattern, StatePartition partition, std::vector<Index> entry_of,
                 std::vector<Index> diagonal)
      : pattern_(std::move(pattern)), entry_of_(std::move(entry_of)), diagonal_(std::move(diagonal)) {
    if (SUNContext_Create(nullptr, &context_) != 0) throw SolverError("SUNContext_Create", "failed");
    const auto n = static_cast<sunindextype>(pattern_.rows);
    b_ = N_VNew_Serial(n, context_);
    dx_ = N_VNew_Serial(n, context_);
    matrix_ = SUNSparseMatrix(n, n, static_cast<sunindextype>(pattern_.nonzeros()), CSR_MAT, context_);
    if (b_ == nullptr || dx_ == nullptr || matrix_ == nullptr) throw SolverError("SUNSparseMatrix", "out of memory");
    std::copy(pattern_.row_start.begin(), pattern_.row_start.end(), SUNSparseMatrix_IndexPointers(matrix_));
    std::copy(pattern_.columns.begin(), pattern_.columns.end(), SUNSparseMatrix_IndexValues(matrix_));
    solver_ = make_schur_solver(pattern_, std::move(partition), context_);
  }

  SparsePattern pattern_;
  std::vector<Index> entry_of_;  // position of each Jacobian entry in the reduced matrix, or -1
  std::vector<Index> diagonal_;  // position of each reduced row's diagonal entry
  SUNContext context_ = nullptr;
  N_Vector b_ = nullptr, dx_ = nullptr;
  SUNMatrix matrix_ = nullptr;
  SUNLinearSolver solver_ = nullptr;
};

}  // namespace

std::vector<double> solve_steady_state(const System& system, double t,
                                       const SteadyStateSettings& settings) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system first");
  return solve_steady_state(system, t, system.initial_discrete(), settings);
}

std::vector<double> solve_steady_state(const System& system, double t, const std::vector<double>& discrete,
                                       const SteadyStateSettings& settings) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system first");
  DCTWIN_DEMAND(static_cast<Index>(discrete.size()) == system.discrete_size(), "discrete state of the wrong size");
  DCTWIN_DEMAND(settings.plateau_growth >= 1.0, "the plateau growth of the pseudo-time step must be >= 1");
  const Index n = system.size();
  std::vector<double> x = system.initial_state();

  // Map full state indices to the reduced (non-accumulator) unknowns.
  std::vector<Index> reduced(static_cast<std::size_t>(n), -1);
  std::vector<Index> full;
  for (Index i = 0; i < n; ++i) {
    if (!system.is_accumulator(i)) {
      reduced[static_cast<std::size_t>(i)] = static_cast<Index>(full.size());
      full.push_back(i);
    }
  }
  const auto m = static_cast<Eigen::Index>(full.size());
  const SparsePattern& pattern = system.jacobian_pattern();
  std::vector<double> f(static_cast<std::size_t>(n)), values(static_cast<std::size_t>(pattern.nonzeros()));
  const EvalContext ctx{t, t, discrete.data()};

  // Pseudo-transient continuation (Kelley and Keyes, SIAM J. Numer. Anal. 35, 1998): each step
  // solves (I / dtau - J) dx = f, a backward-Euler step of pseudo-time dtau, and dtau grows as
  // the residual falls (switched evolution relaxation), so the iteration follows the physical
  // transient where Newton alone would stall (a cooling coil that is off at the starting point
  // leaves the heat without a sink and the Jacobian singular) and becomes Newton near the solution.
  auto residual_norm = [&]() {
    double norm = 0.0;
    for (Index i : full) norm = std::max(norm, std::abs(f[static_cast<std::size_t>(i)]));
    return norm;
  };
  // A failure names the state with the largest residual at the last accepted iterate, with its
  // value and rate: where a run-away or a missing sink is.
  auto failure = [&](const std::string& what) {
    system.derivatives(ctx, x.data(), f.data());
    Index worst = full.empty() ? -1 : full.front();
    for (Index i : full)
      if (std::abs(f[static_cast<std::size_t>(i)]) > std::abs(f[static_cast<std::size_t>(worst)])) worst = i;
    std::string detail = what;
    if (worst >= 0) {
      const auto w = static_cast<std::size_t>(worst);
      const std::string& unit = system.state_unit(worst);
      detail += "; largest residual at " + system.state_name(worst) + " = " + core::format_general(x[w]) + " " +
                unit + ", d/dt = " + core::format_general(f[w]) + " " + unit + "/s";
    }
    SolverError error("solve_steady_state", detail + " (is there a steady state? e.g. thermal runaway)");
    error.set_state(worst);
    return error;
  };
  double dtau = settings.initial_pseudo_time_step;
  system.derivatives(ctx, x.data(), f.data());
  double norm = residual_norm();
  if (!std::isfinite(norm)) throw SolverError("solve_steady_state", "the initial state gives non-finite derivatives");
  std::vector<double> trial(x.size());
  // The matrix has the same sparsity pattern at every iteration (every entry of the Jacobian's
  // pattern plus the diagonal, zeros included), so the sparse LU's ordering (COLAMD) is computed
  // once; each iteration only factorizes (with partial pivoting). The structured solver likewise
  // finds its groups and analyses S once.
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  bool pattern_analysed = false;
  // (I / dtau - J_r) dx = f_r by Eigen's sparse LU.
  auto solve_by_lu = [&](const std::vector<double>& jacobian, double step, const Eigen::VectorXd& rhs,
                         Eigen::VectorXd& dx) {
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(jacobian.size() + static_cast<std::size_t>(m));
    for (Index row = 0; row < n; ++row) {
      const Index r = reduced[static_cast<std::size_t>(row)];
      if (r < 0) continue;
      triplets.emplace_back(r, r, 1.0 / step);
      for (Index k = pattern.row_start[static_cast<std::size_t>(row)];
           k < pattern.row_start[static_cast<std::size_t>(row) + 1]; ++k) {
        const Index c = reduced[static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(k)])];
        if (c >= 0) triplets.emplace_back(r, c, -jacobian[static_cast<std::size_t>(k)]);
      }
    }
    Eigen::SparseMatrix<double> matrix(m, m);
    matrix.setFromTriplets(triplets.begin(), triplets.end());
    if (!pattern_analysed) {
      lu.analyzePattern(matrix);
      pattern_analysed = true;
    }
    lu.factorize(matrix);
    if (lu.info() != Eigen::Success)
      throw SolverError("Eigen::SparseLU::factorize", "the steady-state matrix is singular");
    dx = lu.solve(rhs);
    if (lu.info() != Eigen::Success || !dx.allFinite())
      throw SolverError("Eigen::SparseLU::solve", "the steady-state matrix is singular");
  };
  std::unique_ptr<StructuredStep> structured =
      settings.structured_linear_solver ? StructuredStep::make(pattern, reduced, static_cast<Index>(m)) : nullptr;
  Eigen::VectorXd update(m), residual(m);
  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    system.derivatives(ctx, x.data(), f.data());
    system.jacobian(ctx, x.data(), values.data());
    for (Eigen::Index r = 0; r < m; ++r) residual[r] = f[static_cast<std::size_t>(full[static_cast<std::size_t>(r)])];
    // A structured solve that fails (a singular group or S) hands this and every later step to
    // the sparse LU, which reports a singular matrix as before.
    if (structured != nullptr && !structured->solve(values, dtau, residual, update)) structured.reset();
    if (structured == nullptr) solve_by_lu(values, dtau, residual, update);

    trial = x;
    double largest_update = 0.0;
    for (Eigen::Index r = 0; r < m; ++r) {
      double& xi = trial[static_cast<std::size_t>(full[static_cast<std::size_t>(r)])];
      xi += update[r];
      largest_update = std::max(largest_update, std::abs(update[r]) / (1.0 + std::abs(xi)));
    }
    system.derivatives(ctx, trial.data(), f.data());
    const double trial_norm = residual_norm();
    // A step that makes the residual much worse overshot a kink or a steep nonlinearity (leakage,
    // a plant's mode change): reject it and take a shorter pseudo-time step from the same point.
    if (!std::isfinite(trial_norm) || (trial_norm > 4.0 * norm && norm > 1e-12)) {
      dtau *= 0.25;
      if (dtau < 1e-9)
        throw failure("the iteration stalled");
      continue;
    }
    x.swap(trial);
    // Switched evolution relaxation grows dtau as the residual falls. Where the residual stays
    // flat over a long stretch of the transient it would not grow at all, and the iteration would
    // crawl along the physical transient: a plant whose chillers are at capacity removes a fixed
    // heat whatever the water temperature, so a facility loop that starts far above its
    // set-point cools at a constant rate, with a constant residual, for hours of pseudo-time. A
    // step that did not raise the residual therefore grows dtau by at least plateau_growth;
    // steps that overshoot are rejected above.
    if (trial_norm > 0.0) {
      double growth = std::clamp(norm / trial_norm, 0.5, 10.0);
      if (trial_norm <= norm) growth = std::max(growth, settings.plateau_growth);
      dtau = std::min(dtau * growth, 1e15);
    }
    norm = trial_norm;
    if (largest_update <= settings.tolerance && dtau >= 1e6) return x;
  }
  throw failure("no convergence in " + std::to_string(settings.max_iterations) + " iterations");
}

}  // namespace dctwin::solver
