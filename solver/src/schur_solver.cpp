// Small groups eliminated in parallel, KLU on the Schur complement (schur_solver.hpp).
#include "schur_solver.hpp"

#include <klu.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "dctwin/solver/parallel.hpp"
#include "vector_operations.hpp"

namespace dctwin::solver {

namespace {

constexpr std::size_t largest_group = 4;  // the dense blocks are stored 4 x 4

/// Union-find over state indices (path halving).
std::size_t root_of(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

StatePartition find_small_groups(const SparsePattern& pattern, std::size_t max_group, std::size_t max_degree) {
  if (max_group > largest_group) throw std::invalid_argument("find_small_groups: groups hold at most 4 states");
  const auto n = static_cast<std::size_t>(pattern.rows);
  // Neighbours in the pattern made symmetric (an entry (r, c) links r and c both ways).
  std::vector<std::vector<Index>> neighbours(n);
  for (std::size_t r = 0; r < n; ++r) {
    for (Index k = pattern.row_start[r]; k < pattern.row_start[r + 1]; ++k) {
      const Index c = pattern.columns[static_cast<std::size_t>(k)];
      if (c == static_cast<Index>(r)) continue;
      neighbours[r].push_back(c);
      neighbours[static_cast<std::size_t>(c)].push_back(static_cast<Index>(r));
    }
  }
  std::vector<bool> low(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& list = neighbours[i];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    low[i] = list.size() <= max_degree;
  }
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    if (!low[i]) continue;
    for (const Index j : neighbours[i]) {
      if (!low[static_cast<std::size_t>(j)]) continue;
      const std::size_t a = root_of(parent, i), b = root_of(parent, static_cast<std::size_t>(j));
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<std::size_t> size(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (low[i]) ++size[root_of(parent, i)];
  // Groups in the order of their first state; states in increasing order within a group.
  StatePartition partition;
  std::vector<std::vector<Index>> members(n);
  std::vector<std::size_t> group_roots;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t root = low[i] ? root_of(parent, i) : i;
    if (!low[i] || size[root] > max_group) {
      partition.shared.push_back(static_cast<Index>(i));
      continue;
    }
    if (members[root].empty()) group_roots.push_back(root);
    members[root].push_back(static_cast<Index>(i));
  }
  for (const std::size_t root : group_roots) {
    partition.group_states.insert(partition.group_states.end(), members[root].begin(), members[root].end());
    partition.group_start.push_back(static_cast<Index>(partition.group_states.size()));
  }
  return partition;
}

bool schur_solver_pays(const StatePartition& partition, Index states) {
  const auto grouped = static_cast<Index>(partition.group_states.size());
  return states >= 1000 && 2 * grouped >= states;
}

namespace {

/// The solver's content: the partition's index maps, the groups' inverses and S's KLU factors.
class SchurSolver {
 public:
  SchurSolver(const SparsePattern& pattern, StatePartition partition);
  ~SchurSolver();
  SchurSolver(const SchurSolver&) = delete;
  SchurSolver& operator=(const SchurSolver&) = delete;

  int setup(SUNMatrix matrix);
  int solve(SUNMatrix matrix, N_Vector x, N_Vector b);
  int last_flag = SUNLS_SUCCESS;

 private:
  struct Entry {  // an entry of M: its position in M's values and where it goes
    Index position;
    Index target;
  };
  struct GroupEntry {  // an entry of a group's row towards a shared column: B
    Index position;
    std::int32_t row;     // local row in the group
    std::int32_t column;  // index into the group's distinct shared columns
  };
  struct CouplingEntry {  // an entry of a shared row towards a group's column: C
    Index position;
    Index group;
    std::int32_t local;    // the column's local index in its group
    Index first_update;    // S positions, one per shared column of the group
  };

  struct GroupCoupling {  // the same C entry, listed by group for the solve
    Index position;
    std::int32_t shared_row;
    std::int32_t local;
  };

  void factor_groups(const double* m, std::size_t first, std::size_t last, bool& singular);

  StatePartition part_;
  std::size_t groups_ = 0;
  std::vector<Index> a_start_;        // per group: its entries in a_entries_
  std::vector<Entry> a_entries_;      // target = local row * 4 + local column
  std::vector<Index> b_start_;        // per group: its entries in b_entries_
  std::vector<GroupEntry> b_entries_;
  std::vector<Index> column_start_;   // per group: its distinct shared columns (S indices)
  std::vector<Index> group_columns_;
  std::vector<Index> w_start_;        // per group: A_g^-1 B_g, k x (its shared columns), row major
  std::vector<double> w_;
  std::vector<std::int32_t> states_;  // per group: its states, 4 slots (the solve's index list)
  std::vector<double> inverse_;       // per group: A_g^-1, 4 x 4 row major, zero-padded
  std::vector<Index> coupling_start_; // per group: its C entries in couplings_
  std::vector<GroupCoupling> couplings_;
  std::vector<double> partial_;       // per block of groups: its part of C z, one per shared row
  std::vector<std::uint16_t> touched_by_; // per shared row: the blocks whose groups reach it (bits)
  // S = D - C A^-1 B in CSR over the shared states (given to KLU as the CSC of S^T).
  std::vector<int> s_row_start_, s_columns_;
  std::vector<double> s_values_;
  std::vector<Entry> d_entries_;      // target = position in s_values_
  std::vector<CouplingEntry> c_entries_;
  std::vector<Index> updates_;        // S positions of C A^-1 B's terms
  std::vector<double> rhs_;
  klu_common common_{};
  klu_symbolic* symbolic_ = nullptr;
  klu_numeric* numeric_ = nullptr;
};

SchurSolver::SchurSolver(const SparsePattern& pattern, StatePartition partition)
    : part_(std::move(partition)), groups_(part_.group_count()) {
  const auto n = static_cast<std::size_t>(pattern.rows);
  const std::size_t shared = part_.shared.size();
  if (shared > static_cast<std::size_t>(std::numeric_limits<int>::max() / 2))
    throw std::invalid_argument("make_schur_solver: too many shared states for KLU's int indices");
  // Where each state went: group and local index, or shared index.
  constexpr Index none = -1;
  std::vector<Index> group_of(n, none), local_of(n, none), shared_of(n, none);
  for (std::size_t g = 0; g < groups_; ++g) {
    const Index first = part_.group_start[g], last = part_.group_start[g + 1];
    if (last - first < 1 || last - first > static_cast<Index>(largest_group))
      throw std::invalid_argument("make_schur_solver: a group must hold 1 to 4 states");
    for (Index k = first; k < last; ++k) {
      const auto state = static_cast<std::size_t>(part_.group_states[static_cast<std::size_t>(k)]);
      if (state >= n || group_of[state] != none)
        throw std::invalid_argument("make_schur_solver: every state must be in exactly one group or shared");
      group_of[state] = static_cast<Index>(g);
      local_of[state] = k - first;
    }
  }
  for (std::size_t s = 0; s < shared; ++s) {
    const auto state = static_cast<std::size_t>(part_.shared[s]);
    if (state >= n || shared_of[state] != none)
      throw std::invalid_argument("make_schur_solver: every state must be in exactly one group or shared");
    shared_of[state] = static_cast<Index>(s);
  }
  for (std::size_t i = 0; i < n; ++i)
    if ((group_of[i] == none) == (shared_of[i] == none))
      throw std::invalid_argument("make_schur_solver: every state must be in exactly one group or shared");

  // Group rows: A (same group) and B (shared columns); a column in another group breaks the
  // partition.
  a_start_.assign(groups_ + 1, 0);
  b_start_.assign(groups_ + 1, 0);
  column_start_.assign(groups_ + 1, 0);
  w_start_.assign(groups_ + 1, 0);
  std::vector<Index> columns;
  for (std::size_t g = 0; g < groups_; ++g) {
    const Index first = part_.group_start[g], last = part_.group_start[g + 1];
    columns.clear();
    const std::size_t b_first = b_entries_.size();
    for (Index k = first; k < last; ++k) {
      const auto row = static_cast<std::size_t>(part_.group_states[static_cast<std::size_t>(k)]);
      for (Index p = pattern.row_start[row]; p < pattern.row_start[row + 1]; ++p) {
        const auto col = static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(p)]);
        if (group_of[col] == static_cast<Index>(g)) {
          a_entries_.push_back({p, local_of[row] * 4 + local_of[col]});
        } else if (shared_of[col] != none) {
          columns.push_back(shared_of[col]);
          b_entries_.push_back({p, static_cast<std::int32_t>(local_of[row]), -1});
        } else {
          throw std::invalid_argument("make_schur_solver: two groups are coupled directly");
        }
      }
    }
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    for (std::size_t e = b_first; e < b_entries_.size(); ++e) {
      const Index s = shared_of[static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(b_entries_[e].position)])];
      b_entries_[e].column = static_cast<std::int32_t>(std::lower_bound(columns.begin(), columns.end(), s) - columns.begin());
    }
    group_columns_.insert(group_columns_.end(), columns.begin(), columns.end());
    a_start_[g + 1] = static_cast<Index>(a_entries_.size());
    b_start_[g + 1] = static_cast<Index>(b_entries_.size());
    column_start_[g + 1] = static_cast<Index>(group_columns_.size());
    w_start_[g + 1] = w_start_[g] + (last - first) * static_cast<Index>(columns.size());
  }
  w_.assign(static_cast<std::size_t>(w_start_[groups_]), 0.0);
  inverse_.assign(groups_ * 16, 0.0);
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument("make_schur_solver: too many states for 32-bit group indices");
  states_.assign(groups_ * 4, 0);
  for (std::size_t g = 0; g < groups_; ++g)
    for (Index k = part_.group_start[g]; k < part_.group_start[g + 1]; ++k)
      states_[g * 4 + static_cast<std::size_t>(k - part_.group_start[g])] =
          static_cast<std::int32_t>(part_.group_states[static_cast<std::size_t>(k)]);

  // Shared rows: S's pattern is D's plus, for every C entry towards group g, g's shared columns.
  s_row_start_.assign(shared + 1, 0);
  std::vector<Index> c_row_start(shared + 1, 0);  // per shared row: its entries in c_entries_
  std::vector<std::vector<Index>> s_rows(shared);
  for (std::size_t s = 0; s < shared; ++s) {
    const auto row = static_cast<std::size_t>(part_.shared[s]);
    for (Index p = pattern.row_start[row]; p < pattern.row_start[row + 1]; ++p) {
      const auto col = static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(p)]);
      if (shared_of[col] != none) {
        s_rows[s].push_back(shared_of[col]);
      } else {
        const auto g = static_cast<std::size_t>(group_of[col]);
        s_rows[s].insert(s_rows[s].end(), group_columns_.begin() + column_start_[g],
                         group_columns_.begin() + column_start_[g + 1]);
      }
    }
    std::sort(s_rows[s].begin(), s_rows[s].end());
    s_rows[s].erase(std::unique(s_rows[s].begin(), s_rows[s].end()), s_rows[s].end());
    if (s_columns_.size() + s_rows[s].size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw std::invalid_argument("make_schur_solver: S has too many entries for KLU's int indices");
    s_row_start_[s + 1] = s_row_start_[s] + static_cast<int>(s_rows[s].size());
    for (const Index c : s_rows[s]) s_columns_.push_back(static_cast<int>(c));
  }
  s_values_.assign(s_columns_.size(), 0.0);
  auto s_position = [&](std::size_t s, Index column) {
    const auto begin = s_columns_.begin() + s_row_start_[s], end = s_columns_.begin() + s_row_start_[s + 1];
    return static_cast<Index>(std::lower_bound(begin, end, static_cast<int>(column)) - s_columns_.begin());
  };
  for (std::size_t s = 0; s < shared; ++s) {
    const auto row = static_cast<std::size_t>(part_.shared[s]);
    for (Index p = pattern.row_start[row]; p < pattern.row_start[row + 1]; ++p) {
      const auto col = static_cast<std::size_t>(pattern.columns[static_cast<std::size_t>(p)]);
      if (shared_of[col] != none) {
        d_entries_.push_back({p, s_position(s, shared_of[col])});
        continue;
      }
      const Index g = group_of[col];
      c_entries_.push_back({p, g, static_cast<std::int32_t>(local_of[col]), static_cast<Index>(updates_.size())});
      for (Index j = column_start_[static_cast<std::size_t>(g)]; j < column_start_[static_cast<std::size_t>(g) + 1]; ++j)
        updates_.push_back(s_position(s, group_columns_[static_cast<std::size_t>(j)]));
    }
    c_row_start[s + 1] = static_cast<Index>(c_entries_.size());
  }
  rhs_.assign(shared, 0.0);
  partial_.assign(parallel_blocks * shared, 0.0);
  // The C entries again, by group (a counting sort), for the first pass of the solve.
  coupling_start_.assign(groups_ + 1, 0);
  for (const CouplingEntry& e : c_entries_) ++coupling_start_[static_cast<std::size_t>(e.group) + 1];
  for (std::size_t g = 0; g < groups_; ++g) coupling_start_[g + 1] += coupling_start_[g];
  couplings_.resize(c_entries_.size());
  std::vector<Index> next(coupling_start_.begin(), coupling_start_.end() - 1);
  for (std::size_t s = 0; s < shared; ++s)
    for (Index e = c_row_start[s]; e < c_row_start[s + 1]; ++e) {
      const CouplingEntry& entry = c_entries_[static_cast<std::size_t>(e)];
      couplings_[static_cast<std::size_t>(next[static_cast<std::size_t>(entry.group)]++)] =
          {entry.position, static_cast<std::int32_t>(s), entry.local};
    }
  static_assert(parallel_blocks <= 16, "touched_by_ holds one bit per block");
  touched_by_.assign(shared, 0);
  for (std::size_t block = 0; block < parallel_blocks; ++block) {
    const BlockRange range = block_range(groups_, block);
    for (Index e = coupling_start_[range.first]; e < coupling_start_[range.last]; ++e)
      touched_by_[static_cast<std::size_t>(couplings_[static_cast<std::size_t>(e)].shared_row)] |=
          static_cast<std::uint16_t>(1U << block);
  }

  klu_defaults(&common_);
  common_.ordering = 0;  // AMD, as for the whole matrix (cvode_integrator.cpp)
  if (shared > 0) {
    symbolic_ = klu_analyze(static_cast<int>(shared), s_row_start_.data(), s_columns_.data(), &common_);
    if (symbolic_ == nullptr) throw std::runtime_error("make_schur_solver: KLU's analysis of S failed");
  }
}

SchurSolver::~SchurSolver() {
  if (numeric_ != nullptr) klu_free_numeric(&numeric_, &common_);
  if (symbolic_ != nullptr) klu_free_symbolic(&symbolic_, &common_);
}

/// A_g^-1 (by LU with partial pivoting) and W_g = A_g^-1 B_g for the groups [first, last).
void SchurSolver::factor_groups(const double* m, std::size_t first, std::size_t last, bool& singular) {
  for (std::size_t g = first; g < last; ++g) {
    const auto k = static_cast<std::size_t>(part_.group_start[g + 1] - part_.group_start[g]);
    std::array<double, 16> a{};
    std::array<std::size_t, 4> pivot{};
    for (Index e = a_start_[g]; e < a_start_[g + 1]; ++e) {
      const Entry& entry = a_entries_[static_cast<std::size_t>(e)];
      a[static_cast<std::size_t>(entry.target)] = m[entry.position];
    }
    bool ok = true;
    for (std::size_t c = 0; c < k && ok; ++c) {
      std::size_t p = c;
      for (std::size_t r = c + 1; r < k; ++r)
        if (std::abs(a[r * 4 + c]) > std::abs(a[p * 4 + c])) p = r;
      pivot[c] = p;
      if (p != c)
        for (std::size_t j = 0; j < 4; ++j) std::swap(a[c * 4 + j], a[p * 4 + j]);
      const double d = a[c * 4 + c];
      ok = d != 0.0 && std::isfinite(d);
      for (std::size_t r = c + 1; r < k && ok; ++r) {
        const double l = a[r * 4 + c] / d;
        a[r * 4 + c] = l;
        for (std::size_t j = c + 1; j < k; ++j) a[r * 4 + j] -= l * a[c * 4 + j];
      }
    }
    if (!ok) {
      singular = true;
      continue;
    }
    // Column j of A^-1 solves A y = e_j: P A = L U.
    double* inverse = &inverse_[g * 16];
    for (std::size_t j = 0; j < k; ++j) {
      std::array<double, 4> y{};
      y[j] = 1.0;
      for (std::size_t c = 0; c < k; ++c)
        if (pivot[c] != c) std::swap(y[c], y[pivot[c]]);
      for (std::size_t r = 1; r < k; ++r)
        for (std::size_t c = 0; c < r; ++c) y[r] -= a[r * 4 + c] * y[c];
      for (std::size_t r = k; r-- > 0;) {
        for (std::size_t c = r + 1; c < k; ++c) y[r] -= a[r * 4 + c] * y[c];
        y[r] /= a[r * 4 + r];
      }
      for (std::size_t r = 0; r < k; ++r) inverse[r * 4 + j] = y[r];
    }
    const auto columns = static_cast<std::size_t>(column_start_[g + 1] - column_start_[g]);
    if (columns == 0) continue;
    double* w = &w_[static_cast<std::size_t>(w_start_[g])];
    std::fill(w, w + k * columns, 0.0);
    for (Index e = b_start_[g]; e < b_start_[g + 1]; ++e) {  // W = A^-1 B, B's entries one by one
      const GroupEntry& entry = b_entries_[static_cast<std::size_t>(e)];
      const double value = m[entry.position];
      const auto r = static_cast<std::size_t>(entry.row), j = static_cast<std::size_t>(entry.column);
      for (std::size_t i = 0; i < k; ++i) w[i * columns + j] += inverse[i * 4 + r] * value;
    }
  }
}

int SchurSolver::setup(SUNMatrix matrix) {
  const double* m = SUNSparseMatrix_Data(matrix);
  std::array<bool, parallel_blocks> singular{};
  for_each_block(groups_, [&](const BlockRange& block) { factor_groups(m, block.first, block.last, singular[block.block]); });
  if (std::any_of(singular.begin(), singular.end(), [](bool s) { return s; })) return last_flag = SUNLS_LUFACT_FAIL;
  if (symbolic_ == nullptr) return last_flag = SUNLS_SUCCESS;

  std::fill(s_values_.begin(), s_values_.end(), 0.0);
  for (const Entry& e : d_entries_) s_values_[static_cast<std::size_t>(e.target)] = m[e.position];
  for (const CouplingEntry& e : c_entries_) {
    const auto g = static_cast<std::size_t>(e.group);
    const auto columns = static_cast<std::size_t>(column_start_[g + 1] - column_start_[g]);
    const double c = m[e.position];
    const double* w = &w_[static_cast<std::size_t>(w_start_[g]) + static_cast<std::size_t>(e.local) * columns];
    for (std::size_t j = 0; j < columns; ++j)
      s_values_[static_cast<std::size_t>(updates_[static_cast<std::size_t>(e.first_update) + j])] -= c * w[j];
  }
  // A numeric refactorization with the first factorization's pivot order, unless there is none yet
  // or its pivots have become poor (the test SUNDIALS' KLU solver makes: rcond < eps^(2/3)).
  bool fresh = numeric_ == nullptr;
  if (!fresh) {
    if (klu_refactor(s_row_start_.data(), s_columns_.data(), s_values_.data(), symbolic_, numeric_, &common_) == 0) {
      fresh = true;
    } else if (klu_rcond(symbolic_, numeric_, &common_) == 0 ||
               common_.rcond < std::pow(std::numeric_limits<double>::epsilon(), 2.0 / 3.0)) {
      fresh = true;
    }
    if (fresh) klu_free_numeric(&numeric_, &common_);
  }
  if (fresh) {
    numeric_ = klu_factor(s_row_start_.data(), s_columns_.data(), s_values_.data(), symbolic_, &common_);
    if (numeric_ == nullptr) return last_flag = SUNLS_LUFACT_FAIL;
  }
  return last_flag = SUNLS_SUCCESS;
}

int SchurSolver::solve(SUNMatrix matrix, N_Vector x_vector, N_Vector b_vector) {
  const double* m = SUNSparseMatrix_Data(matrix);
  double* x = N_VGetArrayPointer(x_vector);
  const double* b = N_VGetArrayPointer(b_vector);  // may be x itself
  const std::size_t shared = part_.shared.size();
  // z = A^-1 b_A group by group, and each block's part of C z.
  for_each_block(groups_, [&](const BlockRange& block) {
    // Only the rows this block's groups reach are summed below; only they are reset.
    double* partial = shared > 0 ? &partial_[block.block * shared] : nullptr;
    for (Index e = coupling_start_[block.first]; e < coupling_start_[block.last]; ++e)
      partial[couplings_[static_cast<std::size_t>(e)].shared_row] = 0.0;
    for (std::size_t g = block.first; g < block.last; ++g) {
      const std::int32_t* state = &states_[g * 4];
      const double* inverse = &inverse_[g * 16];
      const auto k = static_cast<std::size_t>(part_.group_start[g + 1] - part_.group_start[g]);
      std::array<double, 4> z{};
      if (k == 4) {
        const double b0 = b[state[0]], b1 = b[state[1]], b2 = b[state[2]], b3 = b[state[3]];
        for (std::size_t r = 0; r < 4; ++r)
          z[r] = inverse[r * 4] * b0 + inverse[r * 4 + 1] * b1 + inverse[r * 4 + 2] * b2 + inverse[r * 4 + 3] * b3;
      } else {
        std::array<double, 4> v{};
        for (std::size_t c = 0; c < k; ++c) v[c] = b[state[c]];
        for (std::size_t r = 0; r < k; ++r)
          for (std::size_t c = 0; c < k; ++c) z[r] += inverse[r * 4 + c] * v[c];
      }
      for (std::size_t r = 0; r < k; ++r) x[state[r]] = z[r];
      for (Index e = coupling_start_[g]; e < coupling_start_[g + 1]; ++e) {
        const GroupCoupling& c = couplings_[static_cast<std::size_t>(e)];
        partial[c.shared_row] += m[c.position] * z[static_cast<std::size_t>(c.local)];
      }
    }
  });
  if (symbolic_ == nullptr) return last_flag = SUNLS_SUCCESS;
  // S x_D = b_D - C z, the blocks' parts of C z summed in block order.
  for (std::size_t s = 0; s < shared; ++s) {
    double cz = 0.0;
    for (std::size_t block = 0; block < parallel_blocks; ++block)
      if ((touched_by_[s] >> block) & 1U) cz += partial_[block * shared + s];
    rhs_[s] = b[part_.shared[s]] - cz;
  }
  if (klu_tsolve(symbolic_, numeric_, static_cast<int>(shared), 1, rhs_.data(), &common_) == 0)
    return last_flag = SUNLS_PACKAGE_FAIL_REC;
  for (std::size_t s = 0; s < shared; ++s) x[part_.shared[s]] = rhs_[s];
  // x_A = z - W x_D.
  for_each_block(groups_, [&](const BlockRange& block) {
    for (std::size_t g = block.first; g < block.last; ++g) {
      const auto columns = static_cast<std::size_t>(column_start_[g + 1] - column_start_[g]);
      if (columns == 0) continue;
      const std::int32_t* state = &states_[g * 4];
      const auto k = static_cast<std::size_t>(part_.group_start[g + 1] - part_.group_start[g]);
      const Index* column = &group_columns_[static_cast<std::size_t>(column_start_[g])];
      const double* w = &w_[static_cast<std::size_t>(w_start_[g])];
      for (std::size_t r = 0; r < k; ++r) {
        double v = x[state[r]];
        for (std::size_t j = 0; j < columns; ++j) v -= w[r * columns + j] * rhs_[static_cast<std::size_t>(column[j])];
        x[state[r]] = v;
      }
    }
  });
  return last_flag = SUNLS_SUCCESS;
}

SchurSolver& content(SUNLinearSolver solver) { return *static_cast<SchurSolver*>(solver->content); }

}  // namespace

SUNLinearSolver make_schur_solver(const SparsePattern& pattern, StatePartition partition, SUNContext context) {
  auto solver_content = std::make_unique<SchurSolver>(pattern, std::move(partition));
  SUNLinearSolver solver = SUNLinSolNewEmpty(context);
  if (solver == nullptr) throw std::runtime_error("make_schur_solver: out of memory");
  solver->ops->gettype = [](SUNLinearSolver) { return SUNLINEARSOLVER_DIRECT; };
  solver->ops->getid = [](SUNLinearSolver) { return SUNLINEARSOLVER_CUSTOM; };
  // CVODE initializes its linear solver after every restart; the pattern, the partition and KLU's
  // analysis of S hold for the whole run.
  solver->ops->initialize = [](SUNLinearSolver) { return static_cast<int>(SUNLS_SUCCESS); };
  solver->ops->setup = [](SUNLinearSolver s, SUNMatrix a) {
    try {
      const ImmediateVectorOperations immediate;  // CVODE's queued vector operations formed first
      return content(s).setup(a);
    } catch (...) {
      return content(s).last_flag = SUNLS_PACKAGE_FAIL_UNREC;
    }
  };
  solver->ops->solve = [](SUNLinearSolver s, SUNMatrix a, N_Vector x, N_Vector b, sunrealtype) {
    try {
      const ImmediateVectorOperations immediate;
      return content(s).solve(a, x, b);
    } catch (...) {
      return content(s).last_flag = SUNLS_PACKAGE_FAIL_UNREC;
    }
  };
  solver->ops->lastflag = [](SUNLinearSolver s) { return static_cast<sunindextype>(content(s).last_flag); };
  solver->ops->free = [](SUNLinearSolver s) {
    if (s == nullptr) return static_cast<int>(SUNLS_SUCCESS);
    delete static_cast<SchurSolver*>(s->content);
    s->content = nullptr;
    SUNLinSolFreeEmpty(s);
    return static_cast<int>(SUNLS_SUCCESS);
  };
  solver->content = solver_content.release();
  return solver;
}

}  // namespace dctwin::solver
