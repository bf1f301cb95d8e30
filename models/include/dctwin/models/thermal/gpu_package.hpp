// GPU package: a three-node RC network per GPU with temperature-dependent leakage.
//
//   C_j dT_j/dt = (1 - f_h) P_i(t) + L_i(T_j) - (T_j - T_b) / R_jb,i        junction (die)
//   C_h dT_h/dt = f_h P_i(t)                  - (T_h - T_b) / R_hb          HBM stacks
//   C_b dT_b/dt = (T_j - T_b) / R_jb,i + (T_h - T_b) / R_hb - (T_b - T_e,i) / R_e,i     base / lid
//   L_i(T_j)   = l_i P_leak,ref exp(k_leak (T_j - T_leak,ref))                leakage power
//   dE_gen/dt  = sum_i (P_i + L_i)                                            heat generated
//
// P_i(t) is the GPU's power without leakage, from a GpuPowerSource (the training job with its
// clocks and phases, or a fixed schedule), f_h the share of it dissipated in the HBM stacks, and
// l_i, r_i (R_jb,i = r_i R_jb) the GPU's manufacturing spread (the power spread s_i is applied by
// the power source). A GPU that is off has P_i = L_i = 0. The
// base rejects heat to its environment (a cold plate's coolant, or the air over a heatsink): T_e,i
// and R_e,i come from a GpuEnvironment, whose component adds the same heat flow to its own rows.
// At steady state, with P_tot = P + L:
//   T_b = T_e + P_tot R_e,   T_j = T_b + ((1 - f_h) P + L) R_jb,   T_h = T_b + f_h P R_hb.
//
// Event `junction_shutdown` (g = max_i T_j,i - T_shutdown) records the moment the hottest GPU
// reaches its shutdown temperature. By default that ends the run (a protection trip); with
// `stop_on_shutdown(false)` the run goes on and the power source turns the GPU off.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/solver/component.hpp"

namespace dctwin::models::thermal {

/// Where a GPU package's base rejects its heat.
class GpuEnvironment {
 public:
  virtual ~GpuEnvironment() = default;
  /// T_e,i as a weighted sum of at most two states: {(index, weight), (index, weight)}; weights
  /// add up to 1; an unused term has weight 0.
  [[nodiscard]] virtual std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t gpu) const = 0;
  /// R_e,i [K/W] on the segment described by ctx.
  [[nodiscard]] virtual double environment_resistance(std::size_t gpu, const solver::EvalContext& ctx) const = 0;
  /// environment_terms() and environment_resistance() of one GPU.
  struct Coefficients {
    std::array<std::pair<solver::Index, double>, 2> terms;
    double resistance = 0.0;  ///< R_e,i [K/W]
  };
  /// Both of GPUs [first, last) at once, into out[i - first]. The default asks GPU by GPU; an
  /// environment of thousands of GPUs answers without two virtual calls each (every right-hand
  /// side asks for every GPU's).
  virtual void environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                        Coefficients* out) const;

  /// When T_e,i is a state of its own that only GPU i heats, and that otherwise exchanges heat
  /// only with a stream entering at another state's temperature,
  ///   C_e dT_e/dt = (T_b - T_e) / R_e + G_in (T_in - T_e),
  /// the package's forced response can carry that node too (GpuPackageArray::make_forced_response).
  struct OwnNode {
    double capacitance = 0.0;        ///< C_e [J/K]
    double inlet_conductance = 0.0;  ///< G_in = mdot c_p [W/K]
  };
  /// That state's index, or -1 when T_e,i is not such a node (the default).
  [[nodiscard]] virtual solver::Index own_node_state(std::size_t /*gpu*/) const { return -1; }
  /// C_e and G_in of that node on the segment described by ctx (only called when it exists).
  [[nodiscard]] virtual OwnNode own_node(std::size_t /*gpu*/, const solver::EvalContext& /*ctx*/) const { return {}; }
};

/// What each GPU dissipates, besides leakage.
class GpuPowerSource {
 public:
  virtual ~GpuPowerSource() = default;
  /// P_i [W] at ctx.t on the segment described by ctx (continuous within a segment: constant, or a
  /// power-smoothing ramp).
  [[nodiscard]] virtual double power(std::size_t gpu, const solver::EvalContext& ctx) const = 0;
  /// False while GPU i is off (no power, no leakage).
  [[nodiscard]] virtual bool powered(std::size_t /*gpu*/, const solver::EvalContext& /*ctx*/) const { return true; }
  /// First time strictly after t at which the power jumps by a known schedule, or +infinity.
  [[nodiscard]] virtual double next_change(double /*t*/) const;
  /// powered() and power() of GPUs [first, last) at once, into on[i - first] and power[i - first]
  /// (0 W while off). The default asks GPU by GPU; a source of thousands of GPUs answers without
  /// two virtual calls each (every right-hand side asks for every GPU's power).
  virtual void powers(std::size_t first, std::size_t last, const solver::EvalContext& ctx, double* power,
                      bool* on) const;
};

struct GpuPackageParameters {
  double junction_capacitance = 30.0;          ///< C_j [J/K]
  double hbm_capacitance = 20.0;               ///< C_h [J/K]
  double base_capacitance = 150.0;             ///< C_b [J/K]
  double junction_to_base_resistance = 0.025;  ///< R_jb [K/W]
  double hbm_to_base_resistance = 0.15;        ///< R_hb [K/W]
  double hbm_power_fraction = 0.12;            ///< f_h [1]
  double leakage_power_at_reference = 0.0;     ///< P_leak,ref [W]
  double leakage_reference_temperature = 333.15;  ///< T_leak,ref [K]
  double leakage_temperature_coefficient = 0.02;  ///< k_leak [1/K]
  double max_operating_temperature = 360.15;   ///< [K] (87 degC) software thermal slowdown target
  double hbm_max_operating_temperature = 368.15;  ///< [K] (95 degC)
  double hw_slowdown_temperature = 362.15;     ///< [K] (89 degC) hardware thermal slowdown
  double shutdown_temperature = 365.15;        ///< [K] (92 degC)

  static core::ParameterTable table();
  static GpuPackageParameters from(const core::ParameterTree& section);
};

/// Per-GPU spread: power, junction-to-base resistance and leakage scales.
struct GpuSpread {
  double power_scale = 1.0;
  double resistance_scale = 1.0;
  double leakage_scale = 1.0;
  static core::ParameterTable table();
  static GpuSpread from(const core::ParameterTree& section);
};

class GpuPackageArray final : public solver::Component {
 public:
  GpuPackageArray(std::string name, GpuPackageParameters parameters, std::vector<GpuSpread> spread,
                  std::vector<std::string> labels, double initial_temperature);

  /// Wires where each GPU's base rejects heat (before assembly).
  void connect(const GpuEnvironment& environment) { environment_ = &environment; }
  /// Whether a GPU reaching its shutdown temperature ends the run (default) or only the GPU.
  void stop_on_shutdown(bool stop) { stop_on_shutdown_ = stop; }
  /// Wires what each GPU dissipates (before assembly).
  void connect(const GpuPowerSource& source) { source_ = &source; }
  /// The power source connected (nullptr before connect()).
  [[nodiscard]] const GpuPowerSource* power_source() const { return source_; }

  [[nodiscard]] std::size_t count() const { return spread_.size(); }
  [[nodiscard]] solver::Index junction_index(std::size_t i) const { return index(junction_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index hbm_index(std::size_t i) const { return index(hbm_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index base_index(std::size_t i) const { return index(base_, static_cast<solver::Index>(i)); }
  [[nodiscard]] solver::Index heat_generated_index() const { return index(heat_generated_); }
  /// Every GPU's junction state, one contiguous group (empty without GPUs); the same for HBM.
  [[nodiscard]] solver::StateRange junction_states() const;
  [[nodiscard]] solver::StateRange hbm_states() const;
  /// P_i + L_i [W] at state x on the segment described by ctx.
  [[nodiscard]] double board_power(std::size_t i, const solver::EvalContext& ctx, const double* x) const;
  /// Leakage power of GPU i at junction temperature T_j when powered [W].
  [[nodiscard]] double leakage_power(std::size_t i, double junction_temperature) const;
  /// leakage_power of every GPU at its junction temperature in x, into `leakage` (resized) [W].
  void leakage_powers(const double* x, std::vector<double>& leakage) const;
  /// leakage_power of GPUs [first, last) at their junction temperatures in x, into
  /// leakage[0, last - first) [W], in one vectorised pass (the same bits as leakage_power).
  void leakage_powers(std::size_t first, std::size_t last, const double* x, double* leakage) const;
  /// GPUs whose power for_each_power asks of the source at once.
  static constexpr std::size_t power_chunk = 64;
  /// Calls f(i, on, P_i) for each GPU i in [first, last): whether it is powered, and its power
  /// without leakage (0 W while off), asked of the power source a chunk of GPUs at a time.
  template <class F>
  void for_each_power(std::size_t first, std::size_t last, const solver::EvalContext& ctx, F&& f) const {
    constexpr std::size_t chunk = power_chunk;
    std::array<double, chunk> power;
    std::array<bool, chunk> on;
    for (std::size_t c = first; c < last; c += chunk) {
      const std::size_t n = std::min(chunk, last - c);
      source_->powers(c, c + n, ctx, power.data(), on.data());
      for (std::size_t k = 0; k < n; ++k) f(c + k, on[k], power[k]);
    }
  }
  /// Sum over GPUs of C T [J] (thermal energy above 0 K, for balances).
  [[nodiscard]] double stored_energy(const double* x) const;
  [[nodiscard]] const GpuPackageParameters& parameters() const { return p_; }
  [[nodiscard]] const GpuSpread& spread(std::size_t i) const { return spread_[i]; }
  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;
  void event_functions(const solver::EvalContext& ctx, const double* x, double* g) const override;
  /// The junction states alone (the hottest junction against the shutdown temperature).
  [[nodiscard]] std::optional<solver::StateRanges> states_read_by_events() const override {
    return solver::StateRanges{junction_states()};
  }
  solver::EventOutcome on_event(int k, bool rising, const solver::EvalContext& ctx, const double* x) const override;
  /// Each GPU's exact response to its own power, base held at 0 K through R_be (docs/solver.md).
  [[nodiscard]] std::unique_ptr<solver::ForcedResponse> make_forced_response() const override;

 private:
  friend class GpuPackageResponse;
  GpuPackageParameters p_;
  std::vector<GpuSpread> spread_;
  std::vector<double> leakage_coefficient_;  ///< s_i L_ref per GPU [W], contiguous for the vectorised pass
  std::vector<std::string> labels_;
  double initial_temperature_;
  const GpuEnvironment* environment_ = nullptr;
  const GpuPowerSource* source_ = nullptr;
  bool stop_on_shutdown_ = true;
  int junction_ = 0, hbm_ = 0, base_ = 0, heat_generated_ = 0;
  int out_junction_ = 0, out_hbm_ = 0, out_base_ = 0, out_power_ = 0, out_total_power_ = 0;
};

}  // namespace dctwin::models::thermal
