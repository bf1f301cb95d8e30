// Steady state of f(x) = 0 by pseudo-transient continuation with the system's analytic sparse
// Jacobian, solved by Eigen's sparse LU. Accumulator states (integrals kept for bookkeeping) have no steady state:
// they are held fixed and their rows and columns are left out.
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <cmath>
#include <algorithm>
#include <limits>
#include <string>

#include "dctwin/solver/check.hpp"
#include "dctwin/solver/integrator.hpp"
#include "dctwin/solver/simulator.hpp"

namespace dctwin::solver {

std::vector<double> solve_steady_state(const System& system, double t,
                                       const SteadyStateSettings& settings) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system first");
  return solve_steady_state(system, t, system.initial_discrete(), settings);
}

std::vector<double> solve_steady_state(const System& system, double t, const std::vector<double>& discrete,
                                       const SteadyStateSettings& settings) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system first");
  DCTWIN_DEMAND(static_cast<Index>(discrete.size()) == system.discrete_size(), "discrete state of the wrong size");
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
  double dtau = settings.initial_pseudo_time_step;
  system.derivatives(ctx, x.data(), f.data());
  double norm = residual_norm();
  if (!std::isfinite(norm)) throw SolverError("solve_steady_state", "the initial state gives non-finite derivatives");
  std::vector<double> trial(x.size());
  // The matrix has the same sparsity pattern at every iteration (every entry of the Jacobian's
  // pattern plus the diagonal, zeros included), so its ordering (COLAMD) is computed once; each
  // iteration only factorizes (with partial pivoting). On a 24,576-GPU hall the ordering was most
  // of the steady-state start.
  Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
  bool pattern_analysed = false;
  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    system.derivatives(ctx, x.data(), f.data());
    system.jacobian(ctx, x.data(), values.data());
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(values.size() + static_cast<std::size_t>(m));
    for (Index row = 0; row < n; ++row) {
      const Index r = reduced[static_cast<std::size_t>(row)];
      if (r < 0) continue;
      triplets.emplace_back(r, r, 1.0 / dtau);
      for (Index k = pattern.row_start[static_cast<std::size_t>(row)];
           k < pattern.row_start[static_cast<std::size_t>(row) + 1]; ++k) {
        const Index c = reduced[static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(k)])];
        if (c >= 0) triplets.emplace_back(r, c, -values[static_cast<std::size_t>(k)]);
      }
    }
    Eigen::SparseMatrix<double> matrix(m, m);
    matrix.setFromTriplets(triplets.begin(), triplets.end());
    Eigen::VectorXd residual(m);
    for (Eigen::Index r = 0; r < m; ++r) residual[r] = f[static_cast<std::size_t>(full[static_cast<std::size_t>(r)])];

    if (!pattern_analysed) {
      lu.analyzePattern(matrix);
      pattern_analysed = true;
    }
    lu.factorize(matrix);
    if (lu.info() != Eigen::Success)
      throw SolverError("Eigen::SparseLU::factorize", "the steady-state matrix is singular");
    const Eigen::VectorXd update = lu.solve(residual);
    if (lu.info() != Eigen::Success || !update.allFinite())
      throw SolverError("Eigen::SparseLU::solve", "the steady-state matrix is singular");

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
        throw SolverError("solve_steady_state", "the iteration stalled (is there a steady state? e.g. thermal runaway)");
      continue;
    }
    x.swap(trial);
    if (trial_norm > 0.0) dtau = std::min(dtau * std::clamp(norm / trial_norm, 0.5, 10.0), 1e15);
    norm = trial_norm;
    if (largest_update <= settings.tolerance && dtau >= 1e6) return x;
  }
  throw SolverError("solve_steady_state", "no convergence in " + std::to_string(settings.max_iterations) +
                                              " iterations (is there a steady state? e.g. thermal runaway)");
}

}  // namespace dctwin::solver
