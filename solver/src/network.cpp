// Algebraic flow networks: Newton's method with a line search; Schur-complement LDL^T (fast) or
// full sparse LU (reference). See network.hpp for the equations and the messages.
#include "dctwin/solver/network.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <utility>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/number_text.hpp"

namespace dctwin::solver {

using core::format_general;
using core::InputError;

namespace {

std::size_t as_size(Index i) { return static_cast<std::size_t>(i); }

}  // namespace

// ---- regularised power law ----------------------------------------------------------------------

void signed_power(double q, double exponent, double transition, double& value, double& slope) {
  const double magnitude = std::abs(q);
  // |v|^(n-1); the common exponents without pow().
  auto power = [exponent](double v) {
    if (exponent == 2.0) return v;
    if (exponent == 1.0) return 1.0;
    return std::pow(v, exponent - 1.0);
  };
  if (magnitude >= transition) {
    const double pn1 = power(magnitude);
    value = q * pn1;
    slope = exponent * pn1;
    return;
  }
  // q (a + b q^2): value and slope of |q|^n sign q at q_t.
  const double tn1 = power(transition);
  const double a = 0.5 * tn1 * (3.0 - exponent);
  const double b = 0.5 * tn1 * (exponent - 1.0) / (transition * transition);
  value = q * (a + b * q * q);
  slope = a + 3.0 * b * q * q;
}

double signed_power(double q, double exponent, double transition) {
  double value = 0.0, slope = 0.0;
  signed_power(q, exponent, transition, value, slope);
  return value;
}

double signed_power_derivative(double q, double exponent, double transition) {
  double value = 0.0, slope = 0.0;
  signed_power(q, exponent, transition, value, slope);
  return slope;
}

// ---- laws ---------------------------------------------------------------------------------------

void BranchLaw::evaluate(double flow, double& drop, double& slope) const {
  drop = pressure_drop(flow);
  slope = derivative(flow);
}

PowerLaw::PowerLaw(double coefficient, double exponent, double flow_scale, double transition_flow)
    : k_(coefficient), n_(exponent), scale_(flow_scale),
      transition_(transition_flow > 0.0 ? transition_flow : 1e-3 * flow_scale) {}

double PowerLaw::pressure_drop(double flow) const { return k_ * signed_power(flow, n_, transition_); }

double PowerLaw::derivative(double flow) const { return k_ * signed_power_derivative(flow, n_, transition_); }

void PowerLaw::evaluate(double flow, double& drop, double& slope) const {
  signed_power(flow, n_, transition_, drop, slope);
  drop *= k_;
  slope *= k_;
}

std::string PowerLaw::defect() const {
  if (!(k_ > 0.0) || !std::isfinite(k_))
    return "non-positive resistance coefficient k = " + format_general(k_);
  if (!(n_ >= 1.0 && n_ < 3.0)) return "flow exponent " + format_general(n_) + " is outside [1, 3)";
  if (!(scale_ > 0.0) || !std::isfinite(scale_)) return "non-positive flow scale " + format_general(scale_);
  return {};
}

FunctionLaw::FunctionLaw(std::function<double(double)> drop, std::function<double(double)> slope,
                         double flow_scale, bool drives_flow)
    : drop_(std::move(drop)), slope_(std::move(slope)), scale_(flow_scale), drives_(drives_flow) {}

// ---- network ------------------------------------------------------------------------------------

Network::Network(std::string name) : name_(std::move(name)) {}

std::string Network::prefix() const { return "network '" + name_ + "': "; }

Index Network::add_node(std::string label) {
  const auto index = static_cast<Index>(nodes_.size());
  if (!node_index_.emplace(label, index).second)
    throw InputError(prefix() + "duplicate node label '" + label + "'");
  nodes_.push_back(Node{std::move(label), false, 0.0, 0.0});
  return index;
}

Index Network::add_fixed_node(std::string label, double pressure) {
  const Index index = add_node(std::move(label));
  nodes_.back().fixed = true;
  nodes_.back().pressure = pressure;
  return index;
}

Index Network::add_branch(std::string label, Index from, Index to, std::shared_ptr<const BranchLaw> law) {
  DCTWIN_DEMAND(from >= 0 && from < node_count() && to >= 0 && to < node_count(),
                "branch end is not a node of this network");
  DCTWIN_DEMAND(law != nullptr, "a branch needs a law");
  const auto index = static_cast<Index>(branches_.size());
  if (!branch_index_.emplace(label, index).second)
    throw InputError(prefix() + "duplicate branch label '" + label + "'");
  branches_.push_back(Branch{std::move(label), from, to, std::move(law)});
  return index;
}

void Network::set_law(Index branch, std::shared_ptr<const BranchLaw> law) {
  DCTWIN_DEMAND(branch >= 0 && branch < branch_count(), "no such branch");
  DCTWIN_DEMAND(law != nullptr, "a branch needs a law");
  branches_[as_size(branch)].law = std::move(law);
}

void Network::set_fixed_pressure(Index node, double pressure) {
  DCTWIN_DEMAND(node >= 0 && node < node_count() && nodes_[as_size(node)].fixed, "not a fixed node");
  nodes_[as_size(node)].pressure = pressure;
}

void Network::set_inflow(Index node, double inflow) {
  DCTWIN_DEMAND(node >= 0 && node < node_count(), "no such node");
  nodes_[as_size(node)].inflow = inflow;
}

const std::string& Network::node_label(Index node) const { return nodes_.at(as_size(node)).label; }
const std::string& Network::branch_label(Index branch) const { return branches_.at(as_size(branch)).label; }
bool Network::is_fixed(Index node) const { return nodes_.at(as_size(node)).fixed; }
double Network::fixed_pressure(Index node) const { return nodes_.at(as_size(node)).pressure; }
double Network::inflow(Index node) const { return nodes_.at(as_size(node)).inflow; }
Index Network::from(Index branch) const { return branches_.at(as_size(branch)).from; }
Index Network::to(Index branch) const { return branches_.at(as_size(branch)).to; }
const BranchLaw& Network::law(Index branch) const { return *branches_.at(as_size(branch)).law; }

Index Network::find_node(const std::string& label) const {
  const auto it = node_index_.find(label);
  return it == node_index_.end() ? -1 : it->second;
}

Index Network::find_branch(const std::string& label) const {
  const auto it = branch_index_.find(label);
  return it == branch_index_.end() ? -1 : it->second;
}

void Network::check_laws() const {
  for (const Branch& b : branches_) {
    std::string problem = b.law->defect();
    if (!problem.empty()) throw InputError(prefix() + "branch '" + b.label + "': " + problem);
  }
}

void Network::check() const {
  if (nodes_.empty()) throw InputError("network '" + name_ + "' has no nodes");
  for (const Node& n : nodes_) {
    if (n.fixed && !std::isfinite(n.pressure))
      throw InputError(prefix() + "node '" + n.label + "': fixed pressure " + format_general(n.pressure) +
                       " is not a finite number");
    if (!std::isfinite(n.inflow))
      throw InputError(prefix() + "node '" + n.label + "': inflow " + format_general(n.inflow) +
                       " is not a finite number");
  }
  for (const Branch& b : branches_) {
    if (b.from == b.to)
      throw InputError(prefix() + "branch '" + b.label + "' joins node '" + nodes_[as_size(b.from)].label +
                       "' to itself");
  }
  if (std::none_of(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.fixed; }))
    throw InputError(prefix() + "no node has a fixed pressure (add a reference node, such as the expansion tank)");
  check_laws();

  // Connected parts over all branches (closed ones too): adjacency in CSR form.
  const std::size_t n = nodes_.size();
  std::vector<std::size_t> start(n + 1, 0), adjacent(2 * branches_.size());
  for (const Branch& b : branches_) {
    ++start[as_size(b.from) + 1];
    ++start[as_size(b.to) + 1];
  }
  std::partial_sum(start.begin(), start.end(), start.begin());
  {
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < branches_.size(); ++k) {
      adjacent[fill[as_size(branches_[k].from)]++] = k;
      adjacent[fill[as_size(branches_[k].to)]++] = k;
    }
  }
  std::vector<long> part(n, -1);
  std::vector<std::size_t> queue;
  auto flood = [&](std::size_t seed, long id) {
    queue.assign(1, seed);
    part[seed] = id;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::size_t i = queue[head];
      for (std::size_t k = start[i]; k < start[i + 1]; ++k) {
        const Branch& b = branches_[adjacent[k]];
        const std::size_t other = as_size(b.from) == i ? as_size(b.to) : as_size(b.from);
        if (part[other] < 0) {
          part[other] = id;
          queue.push_back(other);
        }
      }
    }
    return queue.size();
  };
  // Parts that hold a fixed node first, then the first node left over is disconnected.
  long parts = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (nodes_[i].fixed && part[i] < 0) (void)flood(i, parts++);
  for (std::size_t i = 0; i < n; ++i) {
    if (part[i] < 0) {
      const std::size_t size = flood(i, parts++);
      throw InputError(prefix() + "node '" + nodes_[i].label +
                       "' is not connected to any fixed-pressure node (first node of a disconnected part of " +
                       std::to_string(size) + (size == 1 ? " node)" : " nodes)"));
    }
  }

  // Each part with branches needs something to drive its flow.
  struct PartFacts {
    bool has_branch = false;
    bool drives = false;
    bool inflow = false;
    double min_pressure = std::numeric_limits<double>::infinity();
    double max_pressure = -std::numeric_limits<double>::infinity();
    std::size_t first_node = std::numeric_limits<std::size_t>::max();
  };
  std::vector<PartFacts> facts(as_size(parts));
  for (std::size_t i = 0; i < n; ++i) {
    PartFacts& f = facts[as_size(part[i])];
    f.first_node = std::min(f.first_node, i);
    if (nodes_[i].fixed) {
      f.min_pressure = std::min(f.min_pressure, nodes_[i].pressure);
      f.max_pressure = std::max(f.max_pressure, nodes_[i].pressure);
    } else if (nodes_[i].inflow != 0.0) {
      f.inflow = true;
    }
  }
  for (const Branch& b : branches_) {
    PartFacts& f = facts[as_size(part[as_size(b.from)])];
    f.has_branch = true;
    f.drives = f.drives || b.law->drives_flow();
  }
  for (const PartFacts& f : facts) {
    if (f.has_branch && !f.drives && !f.inflow && !(f.max_pressure > f.min_pressure))
      throw InputError(prefix() + "the loop through node '" + nodes_[f.first_node].label +
                       "' has no driving branch (no pump, no pressure difference between fixed nodes, "
                       "no inflow): all flows would be zero");
  }
}

std::vector<double> Network::node_imbalance(const std::vector<double>& flows) const {
  DCTWIN_DEMAND(flows.size() == branches_.size(), "one flow per branch");
  std::vector<double> imbalance(nodes_.size(), 0.0);
  for (std::size_t i = 0; i < nodes_.size(); ++i) imbalance[i] = -nodes_[i].inflow;
  for (std::size_t k = 0; k < branches_.size(); ++k) {
    imbalance[as_size(branches_[k].from)] += flows[k];
    imbalance[as_size(branches_[k].to)] -= flows[k];
  }
  return imbalance;
}

// ---- solver -------------------------------------------------------------------------------------

NetworkSettings NetworkSettings::reference() {
  NetworkSettings s;
  s.flow_tolerance = 1e-13;
  s.pressure_tolerance = 1e-13;
  s.max_iterations = 200;
  s.linear_solver = NetworkLinearSolver::full_lu;
  return s;
}

struct NetworkSolver::Impl {
  using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

  const Network* net = nullptr;

  // Structure of the current solve (rebuilt every solve; cheap).
  std::vector<Index> open_branches;       // active branches: open and in a part that can flow
  std::vector<int> branch_row_from, branch_row_to;  // per active branch: reduced index of ends or -1
  std::vector<Index> reduced;             // per node: reduced index or -1 (anchor)
  std::vector<Index> free_nodes;          // reduced index -> node
  std::vector<char> anchor;               // per node: pressure not solved for in the Newton system
  std::vector<char> held;                 // per node: free node of an anchored still part
  std::vector<double> held_pressure;      // per node: its pressure (the part's fixed pressure)
  struct Pin {
    Index node;       // the pinned node (in the floating part)
    Index reference;  // the node across the closed branch
    std::vector<Index> members;  // nodes of the floating part
    bool still;       // nothing can drive flow inside: every member takes the reference's pressure
  };
  std::vector<Pin> pins;  // in an order where every reference is already final

  // Sparse patterns and their analysis, kept while the active set stays the same.
  std::vector<Index> analysed_branches, analysed_nodes;
  SparseMatrix schur;
  std::vector<int> schur_position;  // 4 per active branch: (f,f), (t,t), (f,t), (t,f) or -1
  Eigen::SimplicialLDLT<SparseMatrix> cholesky;
  bool cholesky_analysed = false;
  SparseMatrix full;
  std::vector<int> full_diagonal;  // per active branch: position of -d_b
  Eigen::SparseLU<SparseMatrix, Eigen::COLAMDOrdering<int>> lu;
  bool lu_analysed = false;

  // Work arrays.
  std::vector<double> drop, slope, trial_drop, trial_slope;

  void build_structure();
  void build_schur_pattern();
  void build_full_pattern();
  /// Newton direction at (p, Q) given each active branch's drop and slope; false on a failed
  /// factorisation (message set).
  bool direction(NetworkLinearSolver solver, const std::vector<double>& p, const std::vector<double>& q,
                 const std::vector<double>& branch_drop, const std::vector<double>& branch_slope,
                 std::vector<double>& dp, std::vector<double>& dq, std::string& message);
  void residuals(const std::vector<double>& p, const std::vector<double>& q,
                 const std::vector<double>& branch_drop, std::vector<double>& node_residual,
                 std::vector<double>& branch_residual) const;
  void evaluate(const std::vector<double>& q, std::vector<double>& branch_drop,
                std::vector<double>& branch_slope) const;
};

// Parts of the network over its open branches. A part with a fixed node is anchored by it; a
// floating part (cut off by closed branches) is pinned to the node across one of them, reached
// from the anchored parts outward. A part in which nothing can drive flow (no open driving branch,
// no inflow, fixed nodes all at one pressure) is *still*: its flows are exactly zero and all its
// nodes take its pressure, so it is left out of the Newton system.
void NetworkSolver::Impl::build_structure() {
  const Network& nw = *net;
  const auto n = as_size(nw.node_count());
  const auto m = as_size(nw.branch_count());
  std::vector<char> open(m);
  for (std::size_t k = 0; k < m; ++k) open[k] = nw.law(static_cast<Index>(k)).closed() ? 0 : 1;

  // Union-find with path halving over the open branches.
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto root = [&](std::size_t i) {
    while (parent[i] != i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  for (std::size_t k = 0; k < m; ++k) {
    if (!open[k]) continue;
    const std::size_t a = root(as_size(nw.from(static_cast<Index>(k))));
    const std::size_t b = root(as_size(nw.to(static_cast<Index>(k))));
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::vector<std::size_t> part(n);
  for (std::size_t i = 0; i < n; ++i) part[i] = root(i);

  // Facts per part (indexed by its root).
  struct Facts {
    bool fixed = false, drives = false, inflow = false;
    double low = std::numeric_limits<double>::infinity(), high = -std::numeric_limits<double>::infinity();
  };
  std::vector<Facts> facts(n);
  for (std::size_t i = 0; i < n; ++i) {
    Facts& f = facts[part[i]];
    if (nw.is_fixed(static_cast<Index>(i))) {
      f.fixed = true;
      f.low = std::min(f.low, nw.fixed_pressure(static_cast<Index>(i)));
      f.high = std::max(f.high, nw.fixed_pressure(static_cast<Index>(i)));
    } else if (nw.inflow(static_cast<Index>(i)) != 0.0) {
      f.inflow = true;
    }
  }
  for (std::size_t k = 0; k < m; ++k)
    if (open[k] && nw.law(static_cast<Index>(k)).drives_flow()) facts[part[as_size(nw.from(static_cast<Index>(k)))]].drives = true;
  auto still = [&](std::size_t r) {
    const Facts& f = facts[r];
    return !f.drives && !f.inflow && (!f.fixed || f.low == f.high);
  };

  anchor.assign(n, 0);
  held.assign(n, 0);
  held_pressure.assign(n, 0.0);
  std::vector<char> anchored(n, 0);  // by part root
  for (std::size_t i = 0; i < n; ++i) {
    if (nw.is_fixed(static_cast<Index>(i))) {
      anchor[i] = 1;
      anchored[part[i]] = 1;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!nw.is_fixed(static_cast<Index>(i)) && anchored[part[i]] && still(part[i])) {
      anchor[i] = 1;
      held[i] = 1;
      held_pressure[i] = facts[part[i]].low;
    }
  }

  // Floating parts: reach them across closed branches from the anchored ones.
  pins.clear();
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t k = 0; k < m; ++k) {
      if (open[k]) continue;
      const auto a = as_size(nw.from(static_cast<Index>(k)));
      const auto b = as_size(nw.to(static_cast<Index>(k)));
      if (anchored[part[a]] == anchored[part[b]]) continue;
      const std::size_t inside = anchored[part[a]] ? b : a;
      const std::size_t across = anchored[part[a]] ? a : b;
      const std::size_t r = part[inside];
      Pin pin{static_cast<Index>(inside), static_cast<Index>(across), {}, still(r)};
      double inflow = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        if (part[i] == r) {
          pin.members.push_back(static_cast<Index>(i));
          inflow += nw.inflow(static_cast<Index>(i));
        }
      }
      if (inflow != 0.0)
        throw InputError("network '" + nw.name() + "': an inflow of " + format_general(inflow) +
                         " enters the part around node '" + nw.node_label(static_cast<Index>(inside)) +
                         "', which closed branches cut off from every fixed-pressure node");
      anchored[r] = 1;
      anchor[inside] = 1;
      if (pin.still)
        for (Index i : pin.members) anchor[as_size(i)] = 1;
      pins.push_back(std::move(pin));
      progress = true;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    DCTWIN_DEMAND(anchored[part[i]], "network part without a reference after the connectivity check");

  reduced.assign(n, -1);
  free_nodes.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (!anchor[i]) {
      reduced[i] = static_cast<Index>(free_nodes.size());
      free_nodes.push_back(static_cast<Index>(i));
    }
  }
  open_branches.clear();
  branch_row_from.clear();
  branch_row_to.clear();
  for (std::size_t k = 0; k < m; ++k) {
    if (!open[k] || still(part[as_size(nw.from(static_cast<Index>(k)))])) continue;
    open_branches.push_back(static_cast<Index>(k));
    branch_row_from.push_back(static_cast<int>(reduced[as_size(nw.from(static_cast<Index>(k)))]));
    branch_row_to.push_back(static_cast<int>(reduced[as_size(nw.to(static_cast<Index>(k)))]));
  }
  const std::size_t mo = open_branches.size();
  drop.assign(mo, 0.0);
  slope.assign(mo, 0.0);
  trial_drop.assign(mo, 0.0);
  trial_slope.assign(mo, 0.0);
  if (open_branches != analysed_branches || free_nodes != analysed_nodes) {
    analysed_branches = open_branches;
    analysed_nodes = free_nodes;
    schur_position.clear();
    full_diagonal.clear();
    cholesky_analysed = false;
    lu_analysed = false;
  }
}

namespace {

/// Position of (row, col) in a compressed column-major matrix.
int position(const Eigen::SparseMatrix<double, Eigen::ColMajor, int>& a, int row, int col) {
  const int* outer = a.outerIndexPtr();
  const int* inner = a.innerIndexPtr();
  const int* begin = inner + outer[col];
  const int* end = inner + outer[col + 1];
  const int* it = std::lower_bound(begin, end, row);
  DCTWIN_DEMAND(it != end && *it == row, "sparse entry missing from the network pattern");
  return static_cast<int>(it - inner);
}

}  // namespace

void NetworkSolver::Impl::build_schur_pattern() {
  const auto nf = static_cast<int>(free_nodes.size());
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(4 * open_branches.size() + free_nodes.size());
  for (int i = 0; i < nf; ++i) triplets.emplace_back(i, i, 0.0);
  for (std::size_t k = 0; k < open_branches.size(); ++k) {
    const int f = branch_row_from[k], t = branch_row_to[k];
    if (f >= 0 && t >= 0) {
      triplets.emplace_back(f, t, 0.0);
      triplets.emplace_back(t, f, 0.0);
    }
  }
  schur.resize(nf, nf);
  schur.setFromTriplets(triplets.begin(), triplets.end());
  schur.makeCompressed();
  schur_position.assign(4 * open_branches.size(), -1);
  for (std::size_t k = 0; k < open_branches.size(); ++k) {
    const int f = branch_row_from[k], t = branch_row_to[k];
    if (f >= 0) schur_position[4 * k] = position(schur, f, f);
    if (t >= 0) schur_position[4 * k + 1] = position(schur, t, t);
    if (f >= 0 && t >= 0) {
      schur_position[4 * k + 2] = position(schur, f, t);
      schur_position[4 * k + 3] = position(schur, t, f);
    }
  }
}

void NetworkSolver::Impl::build_full_pattern() {
  const auto nf = static_cast<int>(free_nodes.size());
  const auto mo = static_cast<int>(open_branches.size());
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(5 * open_branches.size());
  for (int k = 0; k < mo; ++k) {
    const int row = nf + k;
    const int f = branch_row_from[as_size(k)], t = branch_row_to[as_size(k)];
    if (f >= 0) {
      triplets.emplace_back(f, row, 1.0);   // d r_f / d Q_k
      triplets.emplace_back(row, f, 1.0);   // d e_k / d p_f
    }
    if (t >= 0) {
      triplets.emplace_back(t, row, -1.0);
      triplets.emplace_back(row, t, -1.0);
    }
    triplets.emplace_back(row, row, -1.0);  // -d_k, set each iteration
  }
  full.resize(nf + mo, nf + mo);
  full.setFromTriplets(triplets.begin(), triplets.end());
  full.makeCompressed();
  full_diagonal.assign(open_branches.size(), -1);
  for (int k = 0; k < mo; ++k) full_diagonal[as_size(k)] = position(full, nf + k, nf + k);
}

void NetworkSolver::Impl::evaluate(const std::vector<double>& q, std::vector<double>& branch_drop,
                                   std::vector<double>& branch_slope) const {
  for (std::size_t k = 0; k < open_branches.size(); ++k)
    net->law(open_branches[k]).evaluate(q[as_size(open_branches[k])], branch_drop[k], branch_slope[k]);
}

void NetworkSolver::Impl::residuals(const std::vector<double>& p, const std::vector<double>& q,
                                    const std::vector<double>& branch_drop,
                                    std::vector<double>& node_residual,
                                    std::vector<double>& branch_residual) const {
  node_residual.assign(free_nodes.size(), 0.0);
  for (std::size_t r = 0; r < free_nodes.size(); ++r) node_residual[r] = -net->inflow(free_nodes[r]);
  branch_residual.resize(open_branches.size());
  for (std::size_t k = 0; k < open_branches.size(); ++k) {
    const Index b = open_branches[k];
    const double flow = q[as_size(b)];
    if (branch_row_from[k] >= 0) node_residual[as_size(branch_row_from[k])] += flow;
    if (branch_row_to[k] >= 0) node_residual[as_size(branch_row_to[k])] -= flow;
    branch_residual[k] = p[as_size(net->from(b))] - p[as_size(net->to(b))] - branch_drop[k];
  }
}

bool NetworkSolver::Impl::direction(NetworkLinearSolver solver, const std::vector<double>& p,
                                    const std::vector<double>& q, const std::vector<double>& branch_drop,
                                    const std::vector<double>& branch_slope, std::vector<double>& dp,
                                    std::vector<double>& dq, std::string& message) {
  std::vector<double> r, e;
  residuals(p, q, branch_drop, r, e);
  const auto nf = static_cast<Eigen::Index>(free_nodes.size());
  const std::size_t mo = open_branches.size();
  dp.assign(free_nodes.size(), 0.0);
  dq.assign(mo, 0.0);

  if (solver == NetworkLinearSolver::schur_cholesky) {
    // A D^-1 A^T dp = -r - A D^-1 e;   dq = D^-1 (A^T dp + e).
    if (schur_position.empty() && !open_branches.empty()) build_schur_pattern();
    if (nf > 0) {
      double* values = schur.valuePtr();
      std::fill(values, values + schur.nonZeros(), 0.0);
      Eigen::VectorXd rhs(nf);
      for (Eigen::Index i = 0; i < nf; ++i) rhs[i] = -r[as_size(i)];
      for (std::size_t k = 0; k < mo; ++k) {
        const double g = 1.0 / branch_slope[k];
        const int f = branch_row_from[k], t = branch_row_to[k];
        if (f >= 0) {
          values[schur_position[4 * k]] += g;
          rhs[f] -= g * e[k];
        }
        if (t >= 0) {
          values[schur_position[4 * k + 1]] += g;
          rhs[t] += g * e[k];
        }
        if (f >= 0 && t >= 0) {
          values[schur_position[4 * k + 2]] -= g;
          values[schur_position[4 * k + 3]] -= g;
        }
      }
      if (!cholesky_analysed) {
        cholesky.analyzePattern(schur);
        cholesky_analysed = true;
      }
      cholesky.factorize(schur);
      if (cholesky.info() != Eigen::Success) {
        message = "the reduced network matrix could not be factorised (Eigen::SimplicialLDLT)";
        return false;
      }
      const Eigen::VectorXd x = cholesky.solve(rhs);
      for (Eigen::Index i = 0; i < nf; ++i) dp[as_size(i)] = x[i];
    }
    for (std::size_t k = 0; k < mo; ++k) {
      const int f = branch_row_from[k], t = branch_row_to[k];
      const double dpf = f >= 0 ? dp[as_size(f)] : 0.0;
      const double dpt = t >= 0 ? dp[as_size(t)] : 0.0;
      dq[k] = (dpf - dpt + e[k]) / branch_slope[k];
    }
    return true;
  }

  // Full saddle-point system with sparse LU.
  if (full_diagonal.empty() && !open_branches.empty()) build_full_pattern();
  if (nf + static_cast<Eigen::Index>(mo) == 0) return true;
  double* values = full.valuePtr();
  for (std::size_t k = 0; k < mo; ++k) values[full_diagonal[k]] = -branch_slope[k];
  Eigen::VectorXd rhs(nf + static_cast<Eigen::Index>(mo));
  for (Eigen::Index i = 0; i < nf; ++i) rhs[i] = -r[as_size(i)];
  for (std::size_t k = 0; k < mo; ++k) rhs[nf + static_cast<Eigen::Index>(k)] = -e[k];
  if (!lu_analysed) {
    lu.analyzePattern(full);
    lu_analysed = true;
  }
  lu.factorize(full);
  if (lu.info() != Eigen::Success) {
    message = "the network Jacobian could not be factorised (Eigen::SparseLU: " + lu.lastErrorMessage() + ")";
    return false;
  }
  const Eigen::VectorXd x = lu.solve(rhs);
  for (Eigen::Index i = 0; i < nf; ++i) dp[as_size(i)] = x[i];
  for (std::size_t k = 0; k < mo; ++k) dq[k] = x[nf + static_cast<Eigen::Index>(k)];
  return true;
}

NetworkSolver::NetworkSolver(const Network& network) : impl_(std::make_unique<Impl>()) {
  network.check();
  impl_->net = &network;
}

NetworkSolver::~NetworkSolver() = default;
NetworkSolver::NetworkSolver(NetworkSolver&&) noexcept = default;
NetworkSolver& NetworkSolver::operator=(NetworkSolver&&) noexcept = default;

NetworkSolution NetworkSolver::solve(const NetworkSettings& settings, const NetworkSolution* start) {
  Impl& s = *impl_;
  const Network& nw = *s.net;
  nw.check_laws();
  const auto n = as_size(nw.node_count());
  const auto m = as_size(nw.branch_count());

  s.build_structure();
  const std::size_t mo = s.open_branches.size();

  NetworkSolution sol;
  sol.pressure.assign(n, 0.0);
  sol.flow.assign(m, 0.0);
  const bool warm = start != nullptr && start->pressure.size() == n && start->flow.size() == m;
  // A cold start puts every free node at the mean fixed pressure (a network with no drive then
  // solves to exactly zero flow).
  double mean_fixed = 0.0;
  int fixed_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!nw.is_fixed(static_cast<Index>(i))) continue;
    mean_fixed += nw.fixed_pressure(static_cast<Index>(i));
    ++fixed_count;
  }
  mean_fixed /= static_cast<double>(std::max(fixed_count, 1));
  for (std::size_t i = 0; i < n; ++i) {
    if (nw.is_fixed(static_cast<Index>(i))) sol.pressure[i] = nw.fixed_pressure(static_cast<Index>(i));
    else if (s.held[i]) sol.pressure[i] = s.held_pressure[i];
    else sol.pressure[i] = warm ? start->pressure[i] : mean_fixed;
  }
  if (warm)
    for (Index b : s.open_branches) sol.flow[as_size(b)] = start->flow[as_size(b)];
  std::vector<double>& p = sol.pressure;
  std::vector<double>& q = sol.flow;

  // Scales.
  double q_scale = 0.0, p_scale = 0.0;
  {
    double fixed_min = std::numeric_limits<double>::infinity(), fixed_max = -fixed_min;
    for (std::size_t i = 0; i < n; ++i) {
      if (!nw.is_fixed(static_cast<Index>(i))) continue;
      fixed_min = std::min(fixed_min, nw.fixed_pressure(static_cast<Index>(i)));
      fixed_max = std::max(fixed_max, nw.fixed_pressure(static_cast<Index>(i)));
    }
    p_scale = fixed_max - fixed_min;
    for (std::size_t i = 0; i < n; ++i) q_scale = std::max(q_scale, std::abs(nw.inflow(static_cast<Index>(i))));
    // dp(0) and the secant slope over [-Q_s, Q_s] of every law: the scales, and the initial guess.
    for (std::size_t k = 0; k < mo; ++k) {
      const BranchLaw& law = nw.law(s.open_branches[k]);
      const double qs = law.flow_scale();
      const double at_zero = law.pressure_drop(0.0), forward = law.pressure_drop(qs), back = law.pressure_drop(-qs);
      q_scale = std::max(q_scale, qs);
      p_scale = std::max({p_scale, std::abs(at_zero), std::abs(forward), std::abs(back)});
      s.drop[k] = at_zero;
      s.slope[k] = (forward - back) / (2.0 * qs);
      if (!(s.slope[k] > 0.0)) s.slope[k] = law.derivative(0.0);
    }
    if (!(q_scale > 0.0)) q_scale = 1.0;
    if (!(p_scale > 0.0)) p_scale = 1.0;
  }
  sol.pressure_scale = p_scale;

  std::vector<double> dp, dq;
  std::string failure;
  auto apply = [&](double step) {
    for (std::size_t r = 0; r < s.free_nodes.size(); ++r) p[as_size(s.free_nodes[r])] += step * dp[r];
    for (std::size_t k = 0; k < mo; ++k) q[as_size(s.open_branches[k])] += step * dq[k];
  };

  if (!warm) {
    // Initial guess: one step from Q = 0 with every law replaced by dp(0) + its secant slope.
    if (!s.direction(settings.linear_solver, p, q, s.drop, s.slope, dp, dq, failure)) {
      sol.message = failure;
      return sol;
    }
    apply(1.0);
  }

  // Globalisation. With every law increasing, the branch laws and the node balances are the
  // optimality conditions of a convex problem: minimise the co-content
  //   F(Q) = sum_b integral_0^Q_b dp_b(q) dq - sum_b Q_b dP_b      (dP_b: fixed-node pressures)
  // subject to the node balances, the pressures of the free nodes being the multipliers. From a
  // point that satisfies the balances, the Newton step keeps them (A dQ = 0) and is a descent
  // direction of F: F'(0) = -dQ^T D dQ < 0. Along it F is convex with the slope
  //   g(alpha) = sum_b dQ_b (dp_b(Q_b + alpha dQ_b) - dP_b),
  // so the full step is taken when g(1) <= |g(0)| / 2 (with g nearly linear, F has decreased;
  // near the solution g(1) = O(|dQ|^3) and Newton keeps its quadratic convergence) and otherwise
  // alpha is found by regula falsi (Illinois) on g until |g(alpha)| <= |g(0)| / 10: an exact line
  // search that needs only the laws themselves. A
  // start that does not satisfy the balances (a previous solution after a branch closed) takes
  // one full step first, which satisfies them.
  std::vector<double> fixed_drop(mo, 0.0);  // dP_b: pressures of anchored ends (they do not move)
  for (std::size_t k = 0; k < mo; ++k) {
    const Index b = s.open_branches[k];
    if (s.branch_row_from[k] < 0) fixed_drop[k] += p[as_size(nw.from(b))];
    if (s.branch_row_to[k] < 0) fixed_drop[k] -= p[as_size(nw.to(b))];
  }
  auto slope_along = [&](double alpha, double& noise) {
    // Laws at Q + alpha dQ into trial_drop / trial_slope; returns g(alpha).
    double g = 0.0;
    noise = 0.0;
    for (std::size_t k = 0; k < mo; ++k) {
      const double flow = q[as_size(s.open_branches[k])] + alpha * dq[k];
      nw.law(s.open_branches[k]).evaluate(flow, s.trial_drop[k], s.trial_slope[k]);
      g += dq[k] * (s.trial_drop[k] - fixed_drop[k]);
      noise += std::abs(dq[k]) * (std::abs(s.trial_drop[k]) + std::abs(fixed_drop[k]));
    }
    noise *= 1e-13;
    return g;
  };

  bool balanced = !warm;  // the initial step satisfied the balances; a previous solution may not
  s.evaluate(q, s.drop, s.slope);
  for (int iteration = 1; iteration <= settings.max_iterations; ++iteration) {
    sol.iterations = iteration;
    bool finite = true;
    for (std::size_t k = 0; k < mo; ++k) finite = finite && std::isfinite(s.drop[k]);
    if (!finite) {
      sol.message = "a branch law returned a value that is not finite";
      break;
    }
    for (std::size_t k = 0; k < mo; ++k) {
      if (!(s.slope[k] > 0.0) || !std::isfinite(s.slope[k])) {
        sol.message = "branch '" + nw.branch_label(s.open_branches[k]) + "' has a non-positive slope " +
                      format_general(s.slope[k]) + " at flow " + format_general(q[as_size(s.open_branches[k])]);
        break;
      }
    }
    if (!sol.message.empty()) break;
    if (!s.direction(settings.linear_solver, p, q, s.drop, s.slope, dp, dq, failure)) {
      sol.message = failure;
      break;
    }
    double flow_largest = 0.0;
    for (Index b : s.open_branches) flow_largest = std::max(flow_largest, std::abs(q[as_size(b)]));
    const double q_ref = std::max(q_scale, flow_largest);
    double dq_max = 0.0, dp_max = 0.0;
    for (double v : dq) dq_max = std::max(dq_max, std::abs(v));
    for (double v : dp) dp_max = std::max(dp_max, std::abs(v));
    const bool small = dq_max <= settings.flow_tolerance * q_ref && dp_max <= settings.pressure_tolerance * p_scale;

    double step = 1.0, noise = 0.0;
    const double g1 = slope_along(1.0, noise);
    double g0 = 0.0;
    for (std::size_t k = 0; k < mo; ++k) g0 += dq[k] * (s.drop[k] - fixed_drop[k]);
    if (balanced && !small && g0 < 0.0 && g1 > 0.5 * std::abs(g0) + noise) {
      // The full step overshoots the minimum along the line: regula falsi on g over [0, 1].
      {
        double a = 0.0, ga = g0, b = 1.0, gb = g1;
        int side = 0;
        for (int trial = 0; trial < 40; ++trial) {
          step = std::max((a * gb - b * ga) / (gb - ga), settings.min_step);
          const double g = slope_along(step, noise);
          ++sol.line_search_reductions;
          if (std::abs(g) <= 0.1 * std::abs(g0) || b - a <= settings.min_step) break;
          if (g < 0.0) {
            a = step;
            ga = g;
            if (side == -1) gb *= 0.5;
            side = -1;
          } else {
            b = step;
            gb = g;
            if (side == 1) ga *= 0.5;
            side = 1;
          }
        }
      }
    }
    // trial_drop / trial_slope hold the laws at the accepted step.
    apply(step);
    std::swap(s.drop, s.trial_drop);
    std::swap(s.slope, s.trial_slope);
    balanced = balanced || step == 1.0;
    if (small) {
      sol.converged = true;
      break;
    }
  }
  if (!sol.converged && sol.message.empty())
    sol.message = "no convergence in " + std::to_string(settings.max_iterations) + " Newton iterations";

  // Parts cut off by closed branches: their level follows the node across the closed branch.
  for (const Impl::Pin& pin : s.pins) {
    const double level = p[as_size(pin.reference)];
    if (pin.still) {
      for (Index i : pin.members) p[as_size(i)] = level;
    } else {
      const double shift = level - p[as_size(pin.node)];
      for (Index i : pin.members) p[as_size(i)] += shift;
    }
  }

  // Final account.
  for (double v : q) sol.largest_flow = std::max(sol.largest_flow, std::abs(v));
  const std::vector<double> imbalance = nw.node_imbalance(q);
  double mass = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (!nw.is_fixed(static_cast<Index>(i))) mass = std::max(mass, std::abs(imbalance[i]));
  sol.mass_residual = mass == 0.0 ? 0.0 : mass / std::max(sol.largest_flow, std::numeric_limits<double>::min());
  s.evaluate(q, s.drop, s.slope);
  double law = 0.0;
  for (std::size_t k = 0; k < mo; ++k) {
    const Index b = s.open_branches[k];
    law = std::max(law, std::abs(p[as_size(nw.from(b))] - p[as_size(nw.to(b))] - s.drop[k]));
  }
  sol.law_residual = law / p_scale;
  return sol;
}

NetworkSolution solve_network(const Network& network, const NetworkSettings& settings) {
  NetworkSolver solver(network);
  return solver.solve(settings);
}

}  // namespace dctwin::solver
