// Steady state by Newton's method on f(x) = 0 with the system's analytic sparse Jacobian, solved
// by Eigen's sparse LU. Accumulator states (integrals kept for bookkeeping) have no steady state:
// they are held fixed and their rows and columns are left out.
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <cmath>
#include <string>

#include "dctwin/solver/check.hpp"
#include "dctwin/solver/integrator.hpp"
#include "dctwin/solver/simulator.hpp"

namespace dctwin::solver {

std::vector<double> solve_steady_state(const System& system, double t,
                                       const SteadyStateSettings& settings) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system first");
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
  const std::vector<double> discrete = system.initial_discrete();
  const EvalContext ctx{t, t, discrete.data()};

  for (int iteration = 0; iteration < settings.max_iterations; ++iteration) {
    system.derivatives(ctx, x.data(), f.data());
    system.jacobian(ctx, x.data(), values.data());
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(values.size());
    for (Index row = 0; row < n; ++row) {
      const Index r = reduced[static_cast<std::size_t>(row)];
      if (r < 0) continue;
      for (Index k = pattern.row_start[static_cast<std::size_t>(row)];
           k < pattern.row_start[static_cast<std::size_t>(row) + 1]; ++k) {
        const Index c = reduced[static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(k)])];
        if (c >= 0) triplets.emplace_back(r, c, values[static_cast<std::size_t>(k)]);
      }
    }
    Eigen::SparseMatrix<double> jacobian(m, m);
    jacobian.setFromTriplets(triplets.begin(), triplets.end());
    Eigen::VectorXd residual(m);
    for (Eigen::Index r = 0; r < m; ++r) residual[r] = f[static_cast<std::size_t>(full[static_cast<std::size_t>(r)])];

    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu;
    lu.compute(jacobian);
    if (lu.info() != Eigen::Success)
      throw SolverError("Eigen::SparseLU::compute", "the steady-state Jacobian is singular");
    const Eigen::VectorXd update = lu.solve(residual);
    if (lu.info() != Eigen::Success)
      throw SolverError("Eigen::SparseLU::solve", "the steady-state solve failed");

    double largest_update = 0.0;
    for (Eigen::Index r = 0; r < m; ++r) {
      double& xi = x[static_cast<std::size_t>(full[static_cast<std::size_t>(r)])];
      xi -= update[r];
      largest_update = std::max(largest_update, std::abs(update[r]) / (1.0 + std::abs(xi)));
    }
    if (!std::isfinite(largest_update))
      throw SolverError("solve_steady_state", "the Newton iteration diverged (is there a steady state? e.g. thermal runaway)");
    if (largest_update <= settings.tolerance) return x;
  }
  throw SolverError("solve_steady_state", "no convergence in " + std::to_string(settings.max_iterations) +
                                              " Newton iterations (is there a steady state? e.g. thermal runaway)");
}

}  // namespace dctwin::solver
