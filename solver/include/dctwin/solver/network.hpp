// Algebraic flow networks: node potentials and branch flows from mass balance and branch laws.
//
// A network has nodes and branches. Each branch joins a `from` node to a `to` node and carries a
// flow Q (positive from -> to). Its law gives the drop of potential in the direction of the flow,
//
//     p_from - p_to = dp_b(Q_b)                                    (branch law)
//
// continuous and strictly increasing in Q (a driving branch, such as a pump, has dp_b(0) < 0: a
// rise). Some nodes have a fixed potential (the reference); every other node is *free* and
// balances its flows,
//
//     sum_{b leaves i} Q_b - sum_{b enters i} Q_b = s_i              (mass balance at free node i)
//
// with s_i an optional external inflow (zero in a closed loop). The solver knows no physics: in
// the hydraulic models the potential is a pressure [Pa] and the flow a volumetric flow [m3/s].
//
// Method: Newton's method on the full system (pressures of free nodes and flows of open
// branches). Each Newton system
//
//     [ 0    A ] [dp]   [ -r ]        A   incidence of free nodes (+1 from, -1 to)
//     [ A^T -D ] [dQ] = [ -e ]        D   diag(dp_b'(Q_b)) > 0,  r node and e branch residuals
//
// is solved either by eliminating the flows (the Schur complement A D^-1 A^T is symmetric
// positive definite; sparse Cholesky, LDL^T, its pattern analysed once), or, in the reference
// mode, as the whole saddle-point system with a sparse LU. Both give the same Newton step.
//
// Globalisation: with increasing laws the equations are the optimality conditions of a convex
// problem, minimising the co-content F(Q) = sum_b int_0^Q_b dp_b - sum_b Q_b dP_b (dP_b from the
// fixed pressures) subject to the node balances. Once the balances hold (after the first full
// step), every Newton step keeps them and descends F; along the step F is convex with slope
// g(a) = sum_b dQ_b (dp_b(Q_b + a dQ_b) - dP_b). The full step is taken when g(1) <= |g(0)| / 2,
// otherwise a is found by regula falsi on g (an exact line search using the laws only).
//
// Laws with a zero slope at Q = 0 (k |Q|^n sign Q, n > 1) must be regularised so that D stays
// positive: `signed_power` below replaces such a law by an odd cubic below a small transition
// flow, matching value and slope there (C1, strictly increasing).
//
// Closed branches (a shut valve with no leakage, a stopped pump behind its check valve) carry no
// flow and are left out of the equations. A part of the network that is connected to the
// reference only through closed branches is still solved (flows inside it are independent of its
// absolute level); its potentials are referred to the node across the closed branch. A part in
// which nothing can drive flow (no open driving branch, no inflow, its fixed nodes at one
// pressure) has exactly zero flow and one pressure; it is not put into the Newton system at all.
// A law with dp(0) != 0 must therefore say `drives_flow()`.
//
// Checks before solving (core::InputError, messages exactly as below, NET is the network's
// name):
//   "network 'NET' has no nodes"
//   "network 'NET': no node has a fixed pressure (add a reference node, such as the expansion tank)"
//   "network 'NET': branch 'B' joins node 'N' to itself"
//   "network 'NET': node 'N' is not connected to any fixed-pressure node (first node of a
//    disconnected part of K nodes)"           -- connectivity over all branches, closed or open
//   "network 'NET': the loop through node 'N' has no driving branch (no pump, no pressure
//    difference between fixed nodes, no inflow): all flows would be zero"
//                                             -- per connected part; a stopped pump still counts
//   "network 'NET': branch 'B': DEFECT"       -- the law's own `defect()`, for example
//                                                "zero flow area (diameter 0 m)"
//   "network 'NET': node 'N': fixed pressure nan is not a finite number" (also inflows)
//   "network 'NET': duplicate node label 'N'" / "duplicate branch label 'B'"
//   "network 'NET': an inflow of 1e-05 enters the part around node 'N', which closed branches cut
//    off from every fixed-pressure node"
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "dctwin/solver/types.hpp"

namespace dctwin::solver {

// ---- regularised power law ----------------------------------------------------------------------

/// sign(q) |q|^n for |q| >= q_t; below, the odd cubic q (a + b q^2) with the same value and slope
/// at |q| = q_t:  a = q_t^(n-1) (3 - n) / 2,  b = q_t^(n-3) (n - 1) / 2.  For 1 <= n < 3 it is
/// C1 and strictly increasing, with slope a > 0 at q = 0 (n = 1 gives q itself). `transition` is
/// q_t > 0.
[[nodiscard]] double signed_power(double q, double exponent, double transition);
/// d signed_power / dq.
[[nodiscard]] double signed_power_derivative(double q, double exponent, double transition);
/// Value and derivative together (one pow()).
void signed_power(double q, double exponent, double transition, double& value, double& slope);

// ---- branch laws --------------------------------------------------------------------------------

/// The characteristic of a branch. Implementations are immutable: to change a valve or a pump,
/// give the branch a new law (`Network::set_law`).
class BranchLaw {
 public:
  virtual ~BranchLaw() = default;
  /// dp(Q) = p_from - p_to at flow Q (Q > 0 flows from -> to). Continuous, strictly increasing.
  [[nodiscard]] virtual double pressure_drop(double flow) const = 0;
  /// d dp / dQ at Q; must be > 0 (regularise laws whose slope vanishes at Q = 0).
  [[nodiscard]] virtual double derivative(double flow) const = 0;
  /// Both at once; override when they share work (the default calls the two functions).
  virtual void evaluate(double flow, double& drop, double& slope) const;
  /// A typical magnitude of the flow (> 0), for the initial guess and for scaling.
  [[nodiscard]] virtual double flow_scale() const = 0;
  /// True for a branch that can drive flow around a loop (a pump), even while it is stopped, and
  /// for any law with dp(0) != 0.
  [[nodiscard]] virtual bool drives_flow() const { return false; }
  /// True when the branch passes no flow at all; it is then left out of the equations.
  [[nodiscard]] virtual bool closed() const { return false; }
  /// Empty when the law can be evaluated, otherwise what is wrong with it, in a few words
  /// ("zero flow area (diameter 0 m)"); the checker prefixes the network and branch labels.
  [[nodiscard]] virtual std::string defect() const { return {}; }
};

/// dp = k signed_power(Q, n, Q_t): a passive resistance with exponent 1 <= n < 3 (n = 2 for
/// turbulent losses, 1 for laminar ones). `transition_flow` Q_t defaults to 1e-3 `flow_scale`.
class PowerLaw final : public BranchLaw {
 public:
  PowerLaw(double coefficient, double exponent, double flow_scale, double transition_flow = 0.0);
  [[nodiscard]] double pressure_drop(double flow) const override;
  [[nodiscard]] double derivative(double flow) const override;
  void evaluate(double flow, double& drop, double& slope) const override;
  [[nodiscard]] double flow_scale() const override { return scale_; }
  [[nodiscard]] std::string defect() const override;
  [[nodiscard]] double coefficient() const noexcept { return k_; }
  [[nodiscard]] double exponent() const noexcept { return n_; }

 private:
  double k_, n_, scale_, transition_;
};

/// A law given by two functions (tests, quick studies). The caller guarantees the contract of
/// `BranchLaw` (continuous, strictly increasing, derivative > 0).
class FunctionLaw final : public BranchLaw {
 public:
  FunctionLaw(std::function<double(double)> drop, std::function<double(double)> slope, double flow_scale,
              bool drives_flow = false);
  [[nodiscard]] double pressure_drop(double flow) const override { return drop_(flow); }
  [[nodiscard]] double derivative(double flow) const override { return slope_(flow); }
  [[nodiscard]] double flow_scale() const override { return scale_; }
  [[nodiscard]] bool drives_flow() const override { return drives_; }

 private:
  std::function<double(double)> drop_, slope_;
  double scale_;
  bool drives_;
};

/// A branch that passes nothing (a blanked connection). It is closed; it never drives flow.
class ClosedLaw final : public BranchLaw {
 public:
  [[nodiscard]] double pressure_drop(double) const override { return 0.0; }
  [[nodiscard]] double derivative(double) const override { return 1.0; }
  [[nodiscard]] double flow_scale() const override { return 1.0; }
  [[nodiscard]] bool closed() const override { return true; }
};

// ---- the network --------------------------------------------------------------------------------

/// Topology and laws. Nodes and branches are numbered in the order they are added; labels are
/// unique and name them in messages ("rack017/server1/plate3").
class Network {
 public:
  explicit Network(std::string name);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  /// A free node (its pressure is solved for).
  Index add_node(std::string label);
  /// A node whose pressure is fixed (an expansion tank, a reference).
  Index add_fixed_node(std::string label, double pressure);
  /// A branch from `from` to `to` with `law` (shared: many branches may use one law object).
  Index add_branch(std::string label, Index from, Index to, std::shared_ptr<const BranchLaw> law);

  void set_law(Index branch, std::shared_ptr<const BranchLaw> law);
  void set_fixed_pressure(Index node, double pressure);
  /// External inflow into a free node (> 0 enters the network there); zero by default.
  void set_inflow(Index node, double inflow);

  [[nodiscard]] Index node_count() const noexcept { return static_cast<Index>(nodes_.size()); }
  [[nodiscard]] Index branch_count() const noexcept { return static_cast<Index>(branches_.size()); }
  [[nodiscard]] const std::string& node_label(Index node) const;
  [[nodiscard]] const std::string& branch_label(Index branch) const;
  [[nodiscard]] bool is_fixed(Index node) const;
  [[nodiscard]] double fixed_pressure(Index node) const;
  [[nodiscard]] double inflow(Index node) const;
  [[nodiscard]] Index from(Index branch) const;
  [[nodiscard]] Index to(Index branch) const;
  [[nodiscard]] const BranchLaw& law(Index branch) const;
  /// Index of the node with this label, or -1.
  [[nodiscard]] Index find_node(const std::string& label) const;
  /// Index of the branch with this label, or -1.
  [[nodiscard]] Index find_branch(const std::string& label) const;

  /// Runs every check listed at the top of this header; throws InputError on the first problem.
  void check() const;
  /// The law checks alone (they may change with `set_law`); part of `check()`.
  void check_laws() const;

  /// Flow out of each node minus the flow into it minus its inflow, for given branch flows
  /// (zero at a free node of a solution; at a fixed node it is what the reference supplies).
  [[nodiscard]] std::vector<double> node_imbalance(const std::vector<double>& flows) const;

 private:
  struct Node {
    std::string label;
    bool fixed = false;
    double pressure = 0.0;
    double inflow = 0.0;
  };
  struct Branch {
    std::string label;
    Index from = 0;
    Index to = 0;
    std::shared_ptr<const BranchLaw> law;
  };
  [[nodiscard]] std::string prefix() const;

  std::string name_;
  std::vector<Node> nodes_;
  std::vector<Branch> branches_;
  std::unordered_map<std::string, Index> node_index_;
  std::unordered_map<std::string, Index> branch_index_;
};

// ---- solving ------------------------------------------------------------------------------------

/// How each Newton system is solved.
enum class NetworkLinearSolver {
  schur_cholesky,  ///< flows eliminated; sparse LDL^T of A D^-1 A^T (fast path)
  full_lu,         ///< the whole saddle-point system, sparse LU (reference mode)
};

/// Settings of the network solver (scenario data like the integrator's).
struct NetworkSettings {
  int max_iterations = 100;
  /// Converged when every Newton flow correction is <= flow_tolerance * Q_ref and every pressure
  /// correction <= pressure_tolerance * P_ref (Q_ref: largest flow or flow scale; P_ref: largest
  /// branch pressure drop at its flow scale, pump shut-off rise or fixed-pressure difference).
  double flow_tolerance = 1e-10;
  double pressure_tolerance = 1e-10;
  /// Smallest step the line search may take.
  double min_step = 1.0 / 1024.0;
  NetworkLinearSolver linear_solver = NetworkLinearSolver::schur_cholesky;

  /// The reference mode: the full system with sparse LU and tighter tolerances.
  static NetworkSettings reference();
};

/// Solution and the solver's account of it.
struct NetworkSolution {
  std::vector<double> pressure;  ///< per node [potential units, Pa]
  std::vector<double> flow;      ///< per branch [flow units, m3/s]; exactly 0 for closed branches
  bool converged = false;
  int iterations = 0;           ///< Newton iterations (the initial linear solve not counted)
  int line_search_reductions = 0;  ///< extra law evaluations of the line search (0: full steps)
  /// Largest |mass imbalance| at a free node over the largest |branch flow| (0 when no flow).
  double mass_residual = 0.0;
  /// Largest |p_from - p_to - dp(Q)| over the open branches, over P_ref.
  double law_residual = 0.0;
  double largest_flow = 0.0;    ///< max |Q_b|
  double pressure_scale = 0.0;  ///< P_ref used for the relative figures
  std::string message;          ///< empty when converged; otherwise why not
};

/// Solves one network repeatedly (after speeds, valves or properties change). Construction runs
/// `Network::check()`; the sparse pattern and its fill-reducing ordering are computed on the first
/// solve and reused while the set of closed branches stays the same. The network must outlive
/// the solver and keep its topology (laws, fixed pressures and inflows may change).
class NetworkSolver {
 public:
  explicit NetworkSolver(const Network& network);
  ~NetworkSolver();
  NetworkSolver(const NetworkSolver&) = delete;
  NetworkSolver& operator=(const NetworkSolver&) = delete;
  NetworkSolver(NetworkSolver&&) noexcept;
  NetworkSolver& operator=(NetworkSolver&&) noexcept;

  /// Solves from `start` (a previous solution of this network) or, when null, from the solution
  /// of the network with every law replaced by its secant over [-flow_scale, flow_scale].
  /// Re-checks the laws first (InputError). Non-convergence is reported in the solution
  /// (`converged == false`, `message`), not thrown.
  NetworkSolution solve(const NetworkSettings& settings = {}, const NetworkSolution* start = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Checks and solves once.
NetworkSolution solve_network(const Network& network, const NetworkSettings& settings = {});

}  // namespace dctwin::solver
