// The assembled system: components, their state layout and the sparse Jacobian structure.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/solver/component.hpp"

namespace dctwin::solver {

/// Compressed sparse row structure of the Jacobian (column indices sorted within each row).
struct SparsePattern {
  Index rows = 0;
  std::vector<Index> row_start;  ///< size rows + 1
  std::vector<Index> columns;    ///< size nnz
  [[nodiscard]] Index nonzeros() const { return static_cast<Index>(columns.size()); }
  /// Position of (row, col) in `columns`, or -1 when the entry is not in the pattern.
  [[nodiscard]] Index find(Index row, Index col) const;
};

/// Where an output of the system lives: which component writes it and where its values start in
/// the flat output buffer.
struct OutputSlot {
  core::OutputSpec spec;
  const Component* component = nullptr;
  std::size_t first_value = 0;  ///< offset in the flat buffer of all output values
};

/// Components plus their layout. Add every component, then call `assemble()` once; after that the
/// layout is fixed and the system is only read (it may be shared by several simulations).
class System {
 public:
  System() = default;
  System(const System&) = delete;
  System& operator=(const System&) = delete;
  System(System&&) = default;
  System& operator=(System&&) = default;

  /// Takes ownership; returns a reference for wiring. Names must be unique.
  template <class C>
  C& add(std::unique_ptr<C> component) {
    C& ref = *component;
    add_component(std::move(component));
    return ref;
  }

  /// Assigns state offsets, builds the Jacobian pattern, the output and event tables.
  void assemble();
  [[nodiscard]] bool assembled() const noexcept { return assembled_; }

  [[nodiscard]] Index size() const noexcept { return size_; }
  [[nodiscard]] const std::vector<std::unique_ptr<Component>>& components() const noexcept {
    return components_;
  }
  [[nodiscard]] const SparsePattern& jacobian_pattern() const noexcept { return pattern_; }
  [[nodiscard]] const std::vector<OutputSlot>& outputs() const noexcept { return outputs_; }
  [[nodiscard]] std::size_t output_value_count() const noexcept { return output_values_; }
  [[nodiscard]] std::vector<core::EntityTable> entity_tables() const;
  /// Size of the discrete state vector (sampled controllers' memory).
  [[nodiscard]] Index discrete_size() const noexcept { return discrete_size_; }
  [[nodiscard]] std::vector<double> initial_discrete() const;
  [[nodiscard]] int event_count() const noexcept { return static_cast<int>(event_owner_.size()); }
  /// Name of state i, e.g. "gpus.junction_temperature[3]", for messages.
  [[nodiscard]] std::string state_name(Index i) const;
  /// Name of the component that owns state i.
  [[nodiscard]] const std::string& state_component(Index i) const;
  /// Unit of state i.
  [[nodiscard]] const std::string& state_unit(Index i) const;
  /// True for states declared as accumulators (no steady state).
  [[nodiscard]] bool is_accumulator(Index i) const;

  // ---- evaluation on global vectors -------------------------------------------------------------
  [[nodiscard]] std::vector<double> initial_state() const;
  void derivatives(const EvalContext& ctx, const double* x, double* xdot) const;
  /// Jacobian values in the order of `jacobian_pattern().columns`.
  void jacobian(const EvalContext& ctx, const double* x, double* values) const;
  /// Earliest forcing discontinuity strictly after t over all components (+inf if none).
  [[nodiscard]] double next_discontinuity(double t) const;
  /// Fills the flat output buffer (size `output_value_count()`).
  void compute_outputs(const EvalContext& ctx, const double* x, double* values) const;
  void event_functions(const EvalContext& ctx, const double* x, double* g) const;
  /// The states the event functions read (Component::states_read_by_events of every component
  /// with events), or nullopt when one of them does not declare its own.
  [[nodiscard]] std::optional<StateRanges> states_read_by_events() const;
  /// Component and local index of global event k.
  [[nodiscard]] std::pair<const Component*, int> event_owner(int k) const;

 private:
  void add_component(std::unique_ptr<Component> component);

  std::vector<std::unique_ptr<Component>> components_;
  bool assembled_ = false;
  Index size_ = 0;
  Index discrete_size_ = 0;
  SparsePattern pattern_;
  std::vector<OutputSlot> outputs_;
  std::size_t output_values_ = 0;
  std::vector<std::pair<const Component*, int>> event_owner_;
  std::vector<int> event_first_;  // per component: first global event index
  struct GroupRef {
    Index offset;
    const Component* component;
    int group;
  };
  std::vector<GroupRef> group_refs_;  // sorted by offset
};

}  // namespace dctwin::solver
