#include "dctwin/solver/component.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "dctwin/core/check.hpp"
#include "dctwin/core/report_datasets.hpp"

namespace dctwin::solver {

StateRanges merge_state_ranges(StateRanges ranges) {
  std::erase_if(ranges, [](const StateRange& r) { return r.count <= 0; });
  std::sort(ranges.begin(), ranges.end(), [](const StateRange& a, const StateRange& b) { return a.first < b.first; });
  StateRanges merged;
  for (const StateRange& r : ranges) {
    DCTWIN_DEMAND(r.first >= 0, "a state range cannot start before state 0");
    if (!merged.empty() && r.first <= merged.back().first + merged.back().count) {
      StateRange& last = merged.back();
      last.count = std::max(last.count, r.first + r.count - last.first);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

Component::Component(std::string name) : name_(std::move(name)) {
  DCTWIN_DEMAND(!name_.empty(), "a component needs a name");
}

Index Component::state_count() const noexcept {
  Index n = 0;
  for (const auto& g : groups_) n += g.count;
  return n;
}

Index Component::discrete_count() const noexcept {
  Index n = 0;
  for (const auto& g : discrete_groups_) n += g.count;
  return n;
}

int Component::declare_discrete_group(DiscreteGroupSpec spec) {
  DCTWIN_DEMAND(!assembled(), "discrete states must be declared before assembly");
  DCTWIN_DEMAND(spec.count >= 0, "a discrete group cannot have a negative size");
  discrete_groups_.push_back(std::move(spec));
  return static_cast<int>(discrete_groups_.size()) - 1;
}

void Component::initial_discrete(double*) const {}

bool Component::update_discrete(const EvalContext&, const double*, double*) const { return false; }

double Component::next_scheduled_update(double, const double*) const { return std::numeric_limits<double>::infinity(); }

bool Component::scheduled_update(const EvalContext&, const double*, double*) const { return false; }

int Component::declare_state_group(StateGroupSpec spec) {
  DCTWIN_DEMAND(!assembled(), "states must be declared before assembly");
  DCTWIN_DEMAND(spec.count >= 0, "a state group cannot have a negative size");
  groups_.push_back(std::move(spec));
  return static_cast<int>(groups_.size()) - 1;
}

int Component::declare_output(core::OutputSpec spec) {
  DCTWIN_DEMAND(spec.count >= 1, "an output needs at least one value");
  DCTWIN_DEMAND(!spec.entity.empty() || spec.count == 1, "a scalar output has exactly one value");
  outputs_.push_back(std::move(spec));
  return static_cast<int>(outputs_.size()) - 1;
}

void Component::declare_entity_table(core::EntityTable table) { entities_.push_back(std::move(table)); }

int Component::declare_event(std::string name) {
  events_.push_back(std::move(name));
  return static_cast<int>(events_.size()) - 1;
}

void Component::jacobian(const EvalContext& ctx, const double* x, JacobianSink& jac) const {
  // Forward differences over the declared pattern, one column at a time:
  //   J(r, c) ~ (f_r(x + h e_c) - f_r(x)) / h,  h = sqrt(eps) * max(|x_c|, 1).
  struct Collect final : PatternSink {
    std::unordered_map<Index, std::vector<Index>> rows_of_column;
    void add(Index row, Index col) override { rows_of_column[col].push_back(row); }
  } pattern;
  jacobian_pattern(pattern);
  if (pattern.rows_of_column.empty()) return;

  const auto n = static_cast<std::size_t>(global_size_);
  std::vector<double> x_work(x, x + n);
  std::vector<double> f0(n, 0.0), f1(n, 0.0);
  derivatives(ctx, x, f0.data());
  for (const auto& [col, rows] : pattern.rows_of_column) {
    const auto c = static_cast<std::size_t>(col);
    const double h = 1.4901161193847656e-08 * std::max(std::abs(x[c]), 1.0);
    x_work[c] = x[c] + h;
    std::fill(f1.begin(), f1.end(), 0.0);
    derivatives(ctx, x_work.data(), f1.data());
    x_work[c] = x[c];
    std::unordered_set<Index> done;
    for (Index row : rows) {
      if (!done.insert(row).second) continue;
      const auto r = static_cast<std::size_t>(row);
      jac.add(row, col, (f1[r] - f0[r]) / h);
    }
  }
}

double Component::next_discontinuity(double) const { return std::numeric_limits<double>::infinity(); }

void Component::compute_outputs(const EvalContext&, const double*, double* const*) const {}

void Component::event_functions(const EvalContext&, const double*, double*) const {}

EventOutcome Component::on_event(int, bool, const EvalContext&, const double*) const { return {}; }

}  // namespace dctwin::solver
