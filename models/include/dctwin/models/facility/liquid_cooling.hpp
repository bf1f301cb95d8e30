// Components of a liquid-cooled site at facility scale: the coolant in every GPU's cold plate,
// each rack's return manifold (and, liquid-to-air, its rear door), each pod's coolant loop (a
// supply header, or a CDU), the hall's air per pod, and the facility water plant.
//
// Coolant path (liquid-to-air, the retrofit of the Llama 3 hall):
//   pod supply header T_ps --> plates T_c,g (16 per rack, in parallel) --> rack return manifold
//   T_rm,r --> rear-door coil (water volume T_dw,r; heat to the rack's exhaust air) --> header
// Coolant path (liquid-to-liquid):
//   pod supply T_ps --> plates --> rack return manifold --> pod return header T_pr --> CDU
//   (heat to facility water, PI-controlled valve) --> T_ps
// Air path: cold aisle T_C,p --> servers (+ CPU/other heat) --> [door] --> hot aisle T_H,p --> CRAH
// coil (facility water) --> cold aisle. Plant: facility water return T_fr --> plant --> supply T_fs.
//
// Every volume is well mixed and upwind; every stream's heat is m c_p (T_in - T_out); so the
// sum of all stored energies plus the heat rejected by the plant minus every heat source is a
// linear invariant of the ODE (energy is conserved by construction, see docs/models/facility.md).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/models/facility/flow_plan.hpp"
#include "dctwin/models/hx/cdu.hpp"
#include "dctwin/models/hx/economizer.hpp"
#include "dctwin/models/hx/rear_door.hpp"
#include "dctwin/models/facility/layout.hpp"
#include "dctwin/models/facility/weather.hpp"
#include "dctwin/models/thermal/cold_plate.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/thermal/room_air.hpp"
#include "dctwin/solver/component.hpp"

namespace dctwin::models::facility {

/// Constant coolant properties used by the thermal part (evaluated once at a reference temperature).
struct CoolantConstants {
  double density = 1010.0;        ///< [kg/m3]
  double specific_heat = 3990.0;  ///< [J/(kg K)]
  [[nodiscard]] double capacity_rate(double volumetric_flow) const { return density * specific_heat * volumetric_flow; }
};

class PodCoolantLoop;
class PodHeaderTransport;

/// The coolant inside each GPU's cold plate; plates of a rack in parallel, fed from the end of the
/// rack's supply hose (T_in,r, PodHeaderTransport: the pod supply delayed by the pipes upstream).
///   C_c dT_c,g/dt = C_g (T_in,r - T_c,g) + (T_b,g - T_c,g) / R_cp(q_g),   C_g = rho c_p q_g
class RackPlateCoolant final : public solver::Component, public thermal::GpuEnvironment {
 public:
  RackPlateCoolant(const FacilityLayout& layout, thermal::ColdPlate plate, CoolantConstants coolant,
                   const FlowPlan& flows, const thermal::GpuPackageArray& gpus, double initial_temperature);
  void connect(const PodHeaderTransport& headers) { headers_ = &headers; }

  [[nodiscard]] solver::Index temperature_index(std::size_t g) const { return index(temperature_, static_cast<solver::Index>(g)); }
  [[nodiscard]] double plate_flow(std::size_t g, double segment_start) const;
  [[nodiscard]] double stored_energy(const double* x) const;

  std::array<std::pair<solver::Index, double>, 2> environment_terms(std::size_t g) const override {
    return {{{temperature_index(g), 1.0}, {temperature_index(g), 0.0}}};
  }
  double environment_resistance(std::size_t g, const solver::EvalContext& ctx) const override;
  void environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                Coefficients* out) const override;
  // Each plate's coolant is heated by its GPU alone and fed from the pod supply header.
  solver::Index own_node_state(std::size_t g) const override { return temperature_index(g); }
  OwnNode own_node(std::size_t g, const solver::EvalContext& ctx) const override;

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override { return flows_.next_change(t); }

 private:
  const FacilityLayout& layout_;
  thermal::ColdPlate plate_;
  CoolantConstants coolant_;
  const FlowPlan& flows_;
  const thermal::GpuPackageArray& gpus_;
  const PodHeaderTransport* headers_ = nullptr;
  double initial_temperature_;
  double capacitance_;
  int temperature_ = 0;
  struct PhaseConstants {
    std::vector<double> resistance;     ///< R_cp(q_g) [K/W]
    std::vector<double> conductance;    ///< 1 / R_cp [W/K]
    std::vector<double> capacity_rate;  ///< C_g = rho c_p q_g [W/K]
  };
  std::vector<PhaseConstants> phase_constants_;  ///< per flow phase, per GPU
};

class HallAir;

/// What the racks of a pod do to the hall's air: the air flow they draw from the cold aisle and
/// the heat they put into it on the way to the hot aisle (thermal/room_air.hpp's m_it and Q_it).
class HallAirSource {
 public:
  virtual ~HallAirSource() = default;
  /// m_it of `pod` [kg/s] on the segment (may depend on discrete fan speeds).
  [[nodiscard]] virtual double pod_air_flow(std::size_t pod, const solver::EvalContext& ctx) const = 0;
  /// Q_it of `pod` [W].
  [[nodiscard]] virtual double pod_air_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const = 0;
  /// The states Q_it of `pod` depends on (for the Jacobian pattern).
  virtual void pod_air_heat_pattern(std::size_t pod, std::vector<solver::Index>& states) const = 0;
  /// dQ_it/dx for those states, as (state, derivative) pairs.
  virtual void pod_air_heat_jacobian(std::size_t pod, const solver::EvalContext& ctx, const double* x,
                                     std::vector<std::pair<solver::Index, double>>& terms) const = 0;
  /// Heat generated in the air by the source so far (server parts, fans) [J], from its accumulators.
  [[nodiscard]] virtual double heat_generated(const double* x) const = 0;
};

/// Each rack's return manifold and, liquid-to-air, its rear-door coil.
///   C_rm dT_rm,r/dt = sum_{g in r} C_g (T_c,g - T_rm,r)
///   C_dw dT_dw,r/dt = C_r (T_rm,r - T_dw,r) - k_r (T_rm,r - T_ai,r)       (door only)
///   T_ai,r = T_C,pod + Q_srv,r / C_air,r       air reaching the door: cold aisle plus server heat
/// k_r = eps C_min of the door at the rack's water and air flows (cross flow, hx/rear_door.hpp);
/// k_r (T_rm - T_ai) is the heat the door hands to the air. The rack's coolant leaves at T_dw
/// (door) or T_rm (no door, to the pod's CDU).
class RackCoolantLoop final : public solver::Component, public HallAirSource {
 public:
  struct Air {
    double server_air_flow = 0.0;    ///< [kg/s] per rack, from the servers' fans
    double server_air_heat = 0.0;    ///< [W] per rack: CPUs, memory, NICs, fans and PSU losses
    double specific_heat = 1006.0;   ///< [J/(kg K)]
  };
  RackCoolantLoop(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows,
                  const RackPlateCoolant& plates, double manifold_volume, std::unique_ptr<hx::RearDoor> door,
                  double door_water_volume, double door_fan_speed, Air air, double initial_temperature);
  void connect(const HallAir& hall) { hall_ = &hall; }
  /// Adds heat to each rack's server air [W per rack] (the servers' PSU losses, set before the run
  /// starts).
  void add_server_air_heat(double per_rack) { air_.server_air_heat += per_rack; }
  /// Q_srv,r [W]: heat of each rack's servers into the air, besides the GPUs' (door fans excluded).
  [[nodiscard]] double server_air_heat() const { return air_.server_air_heat; }

  [[nodiscard]] bool has_door() const { return door_ != nullptr; }
  [[nodiscard]] solver::Index return_index(std::size_t r) const { return index(return_, static_cast<solver::Index>(r)); }
  /// State the rack's coolant leaves at: the door's water volume, or the return manifold.
  [[nodiscard]] solver::Index outlet_index(std::size_t r) const {
    return has_door() ? index(door_water_, static_cast<solver::Index>(r)) : return_index(r);
  }
  [[nodiscard]] double rack_capacity_rate(std::size_t r, double segment_start) const;
  /// k_r = eps C_min of rack r's door on the segment [W/K] (0 without a door).
  [[nodiscard]] double door_conductance(std::size_t r, double segment_start) const;
  /// Air temperature reaching rack r's door, T_ai [K].
  [[nodiscard]] double door_air_inlet_temperature(std::size_t r, const double* x) const;
  /// Heat the door hands to the air [W] (negative if the air is warmer than the coolant).
  [[nodiscard]] double door_heat_to_air(std::size_t r, const solver::EvalContext& ctx, const double* x) const;
  [[nodiscard]] double door_fan_power() const;
  [[nodiscard]] const Air& air() const { return air_; }
  [[nodiscard]] double stored_energy(const double* x) const;
  [[nodiscard]] solver::Index server_heat_index() const { return index(server_heat_); }

  // HallAirSource: the servers' fixed air flow and heat (plus door fans), and the doors' heat.
  [[nodiscard]] double pod_air_flow(std::size_t pod, const solver::EvalContext& ctx) const override;
  [[nodiscard]] double pod_air_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const override;
  void pod_air_heat_pattern(std::size_t pod, std::vector<solver::Index>& states) const override;
  void pod_air_heat_jacobian(std::size_t pod, const solver::EvalContext& ctx, const double* x,
                             std::vector<std::pair<solver::Index, double>>& terms) const override;
  [[nodiscard]] double heat_generated(const double* x) const override { return x[server_heat_index()]; }

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override { return flows_.next_change(t); }
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  /// k_r (T_rm,r - T_ai,r): door_heat_to_air with the door conductance k_r given.
  [[nodiscard]] double door_heat(std::size_t r, double conductance, const double* x) const;
  const FacilityLayout& layout_;
  CoolantConstants coolant_;
  const FlowPlan& flows_;
  const RackPlateCoolant& plates_;
  const HallAir* hall_ = nullptr;
  std::unique_ptr<hx::RearDoor> door_;
  double manifold_capacitance_, door_capacitance_, door_fan_speed_;
  Air air_;
  double initial_temperature_;
  std::vector<std::vector<double>> door_conductance_;  // [phase][rack]
  int return_ = 0, door_water_ = -1, server_heat_ = 0;
  int out_return_ = 0, out_flow_ = 0, out_pressure_ = 0, out_door_air_ = -1, out_door_heat_ = -1;
};

/// Transport of temperature fronts through each pod's pipes: the supply main, the supply header's
/// segments between rack taps, each rack's supply hose, and the return header's segments and main,
/// every pipe a chain of n well-mixed cells in series (tanks in series), upwind in the direction of
/// its flow. Cell j of a pipe with capacity rate C_p = rho c_p Q_p and volume V_p:
///   (rho c_p V_p / n) dT_j/dt = C_p (T_j-1 - T_j)                    T_0: what enters the pipe
/// Supply (a dividing header; the same in direct and reverse return): the main carries the pod's
/// flow from the pod supply T_ps,p to tap 0; segment k carries what racks k+1 ... R-1 draw; rack k
/// draws at tap k into its hose and its plates read the hose's last cell, T_in,r.
/// Return (a merging header): direct return collects from the far end, rack R-1, toward tap 0
/// and the return main; reverse return from rack 0 toward tap R-1. The first cell of each return
/// pipe takes the rack's outlet and the upstream pipe: C_p T_0 = C_r T_out,r + C_p-1 T_last,p-1.
/// A front entering a pipe at constant flow arrives at its end with the mean delay V_p / Q_p
/// (exactly: the cells' residence times add up to it) and a spread (standard deviation)
/// sqrt(sum_j tau_j^2) = (V_p / Q_p) / sqrt(n); in cumulative volume the chain is time-invariant,
/// so with a changing flow the front arrives where the integral of Q dt equals V_p. Each pipe gets
/// n = ceil(tau / tau_cell) cells at the first flow phase (tau = V_p / Q_p), so no cell holds its
/// coolant longer than `max_cell_time` and a front along a path of delay tau spreads by at most
/// sqrt(tau tau_cell). See docs/models/hydraulic.md, "Transport delay".
class PodHeaderTransport final : public solver::Component {
 public:
  struct Geometry {
    double supply_main_volume = 0.0;  ///< [m3] CDU (or collector) outlet to tap 0
    double return_main_volume = 0.0;  ///< [m3] last return tap to the CDU (or collector) inlet
    double segment_volume = 0.0;      ///< [m3] header between two rack taps (each header)
    double rack_hose_volume = 0.0;    ///< [m3] supply tap to the rack's plates
    bool reverse_return = false;      ///< return header collects from rack 0 toward tap R-1
    double max_cell_time = 1.0;       ///< tau_cell [s]: longest residence time of one cell
  };
  PodHeaderTransport(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows, Geometry geometry,
                     double initial_temperature);
  /// State index of a pod's or a rack's temperature (read after the system has been assembled).
  using StateOf = std::function<solver::Index(std::size_t)>;
  /// Where the pipes start and what they collect: each pod's supply (the supply main's inlet, the
  /// pod loop's T_ps) and each rack's outlet (door or return manifold, into the return header).
  void connect(StateOf pod_supply, StateOf rack_outlet) {
    pod_supply_ = std::move(pod_supply);
    rack_outlet_ = std::move(rack_outlet);
  }

  /// T_in,r: the last cell of rack r's supply hose, what its plates receive.
  [[nodiscard]] solver::Index rack_inlet_index(std::size_t rack) const {
    return index(hose_, static_cast<solver::Index>((rack + 1) * hose_cells_ - 1));
  }
  /// The last cell of pod p's return main, what reaches the CDU (or collector).
  [[nodiscard]] solver::Index return_outlet_index(std::size_t pod) const {
    return index(cell_, static_cast<solver::Index>((pod + 1) * cells_per_pod_ - 1));
  }
  /// rho c_p Q of pod p's supply main and of its return main on the segment [W/K] (the sums of the
  /// racks' capacity rates, in the order the headers add them).
  [[nodiscard]] double supply_main_capacity_rate(std::size_t pod, double segment_start) const;
  [[nodiscard]] double return_main_capacity_rate(std::size_t pod, double segment_start) const;
  /// Plug-flow time from the pod supply to rack r's plates at the flows of the segment [s]: the
  /// sum of V_p / Q_p over the supply main, the header segments up to its tap and its hose
  /// (+infinity without flow).
  [[nodiscard]] double supply_delay(std::size_t rack, double segment_start) const;
  /// Plug-flow time from rack r's outlet to the end of the return main [s].
  [[nodiscard]] double return_delay(std::size_t rack, double segment_start) const;
  [[nodiscard]] std::size_t cells_per_pod() const { return cells_per_pod_; }
  [[nodiscard]] std::size_t cells_per_hose() const { return hose_cells_; }
  [[nodiscard]] double stored_energy(const double* x) const;

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override { return flows_.next_change(t); }
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  /// One pipe of a pod: its cells [first, first + count) in the pod's block, its volume.
  struct PipeCells {
    std::size_t first = 0, count = 1;
    double cell_capacitance = 0.0;  ///< rho c_p V_p / n [J/K]
  };
  /// Capacity rates of one flow phase [W/K]: supply pipe m of pod p at [p R + m] (the main is
  /// m = 0, segment k is m = k + 1), return pipe m at [p R + m] in flow order (the main last),
  /// each rack's at [r].
  struct PhaseRates {
    std::vector<double> supply, ret, rack;
  };
  /// Rack (pod-local) whose outlet enters return pipe m.
  [[nodiscard]] std::size_t return_rack(std::size_t m) const {
    return geometry_.reverse_return ? m : layout_.racks_per_pod() - 1 - m;
  }
  [[nodiscard]] solver::Index cell_index(std::size_t pod, std::size_t cell) const {
    return index(cell_, static_cast<solver::Index>(pod * cells_per_pod_ + cell));
  }
  [[nodiscard]] solver::Index hose_index(std::size_t rack, std::size_t cell) const {
    return index(hose_, static_cast<solver::Index>(rack * hose_cells_ + cell));
  }
  /// Calls term(row, column, a) for every entry of the (linear) cell equations dT_row/dt =
  /// sum a T_column at the rates `k`, the diagonal included; derivatives, Jacobian and pattern
  /// all come from it.
  template <typename Term>
  void for_each_term(const PhaseRates& k, Term&& term) const;
  const FacilityLayout& layout_;
  CoolantConstants coolant_;
  const FlowPlan& flows_;
  Geometry geometry_;
  StateOf pod_supply_, rack_outlet_;
  double initial_temperature_;
  std::vector<PipeCells> supply_pipes_, return_pipes_;  ///< per pod-local pipe, in flow order
  PipeCells hose_pipe_;                                  ///< every rack's supply hose (first: 0)
  std::size_t cells_per_pod_ = 0, hose_cells_ = 1;
  std::vector<PhaseRates> phase_rates_;
  int cell_ = 0, hose_ = 0;
  int out_rack_supply_ = 0, out_pod_return_ = 0;
};

class FacilityWaterPlant;

/// Each pod's coolant loop: the well-mixed coolant at its pumps (and CDU) between the end of the
/// return main T_rt,p and the start of the supply main (the pipes are PodHeaderTransport's).
/// Liquid-to-air: one collector that takes the racks' door outlets and the pumps' heat:
///   C_ps dT_ps,p/dt = C_rt,p T_rt,p - C_p T_ps,p + P_pump,p
/// Liquid-to-liquid: the CDU's inlet volume and its outlet,
///   C_pr dT_pr,p/dt = C_rt,p T_rt,p - C_p T_pr,p + P_pump,p
///   C_ps dT_ps,p/dt = C_p (T_pr,p - T_ps,p) - Q_cdu,p,     Q_cdu = k_cdu(u_p) (T_pr,p - T_fs)
/// (C_rt,p and C_p both rho c_p Q_p, the racks' capacity rates summed along each header)
/// with k_cdu = eps C_min of a counter-flow plate exchanger whose facility-side flow is u_p times
/// its design flow; u_p is the valve's position, which travels at the actuator's speed towards the
/// opening a PI controller commands (hx/cdu.hpp, travel()) to hold T_ps at its set-point, sampled
/// every `controller_period` like a CDU's PLC. u_p is continuous at a command: the integrator goes
/// on across it.
class PodCoolantLoop final : public solver::Component {
 public:
  /// Liquid-to-air when `cdu` is null; otherwise every pod has one such CDU holding its supply at
  /// `supply_setpoint` [K].
  PodCoolantLoop(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows,
                 const PodHeaderTransport& headers, double header_volume, std::unique_ptr<hx::Cdu> cdu,
                 double supply_setpoint, double initial_temperature);
  void connect(const FacilityWaterPlant& plant) { plant_ = &plant; }

  [[nodiscard]] bool has_cdu() const { return cdu_ != nullptr; }
  [[nodiscard]] solver::Index supply_index(std::size_t pod) const { return index(supply_, static_cast<solver::Index>(pod)); }
  [[nodiscard]] solver::Index pump_heat_index() const { return index(pump_heat_); }
  /// CDU heat to the facility water [W] and its derivatives (0 without a CDU).
  [[nodiscard]] double cdu_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const;
  [[nodiscard]] double cdu_conductance(std::size_t pod, const solver::EvalContext& ctx) const;
  /// The CDU valve's position u_p at ctx.t.
  [[nodiscard]] double valve_position(std::size_t pod, const solver::EvalContext& ctx) const;
  [[nodiscard]] solver::Index cdu_return_index(std::size_t pod) const { return index(return_, static_cast<solver::Index>(pod)); }
  [[nodiscard]] double stored_energy(const double* x) const;

  void initial_state(double* x) const override;
  void initial_discrete(double* d) const override;
  [[nodiscard]] double update_period() const override {
    return cdu_ ? cdu_->controller().parameters().sample_period : 0.0;
  }
  bool update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const override;
  /// A command moves the valves on from where they are (unless the stroke takes no time).
  [[nodiscard]] bool updates_are_continuous() const override {
    return cdu_ != nullptr && cdu_->parameters().valve_stroke_time > 0.0;
  }
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  [[nodiscard]] double next_discontinuity(double t) const override { return flows_.next_change(t); }
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  const FacilityLayout& layout_;
  CoolantConstants coolant_;
  const FlowPlan& flows_;
  const PodHeaderTransport& headers_;
  const FacilityWaterPlant* plant_ = nullptr;
  std::unique_ptr<hx::Cdu> cdu_;
  double supply_setpoint_;
  double header_capacitance_;
  double initial_temperature_;
  int supply_ = 0, return_ = -1, pump_heat_ = 0;
  // Discrete: the commanded opening, the PI integral, the position at the last command, its time.
  int opening_ = -1, integral_ = -1, position_at_command_ = -1, command_time_ = -1;
  int out_supply_ = 0, out_pump_power_ = 0, out_cdu_heat_ = -1, out_opening_ = -1, out_command_ = -1;
};

/// The hall's air, one cold aisle and one hot aisle per pod (thermal/room_air.hpp); the racks'
/// air flow m_it and heat Q_it come from a HallAirSource (liquid-cooled racks with or without
/// rear doors, or air-cooled servers).
class HallAir final : public solver::Component {
 public:
  HallAir(const FacilityLayout& layout, thermal::RoomAir room, const HallAirSource& source, double initial_cold,
          double initial_hot);
  void connect(const FacilityWaterPlant& plant) { plant_ = &plant; }

  [[nodiscard]] solver::Index cold_index(std::size_t pod) const { return index(cold_, static_cast<solver::Index>(pod)); }
  [[nodiscard]] solver::Index hot_index(std::size_t pod) const { return index(hot_, static_cast<solver::Index>(pod)); }
  [[nodiscard]] solver::Index fan_heat_index() const { return index(fan_heat_); }
  /// CRAH coil heat to the facility water [W] and its partial derivatives.
  struct CoilHeat {
    double heat = 0.0, d_hot = 0.0, d_water = 0.0;
  };
  [[nodiscard]] CoilHeat coil_heat(std::size_t pod, const double* x) const;
  [[nodiscard]] const thermal::RoomAir& room() const { return room_; }
  [[nodiscard]] double stored_energy(const double* x) const;

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  [[nodiscard]] thermal::RoomAirInputs inputs(std::size_t pod, const solver::EvalContext& ctx, const double* x) const;
  const FacilityLayout& layout_;
  thermal::RoomAir room_;
  const HallAirSource& source_;
  const FacilityWaterPlant* plant_ = nullptr;
  double initial_cold_, initial_hot_;
  int cold_ = 0, hot_ = 0, fan_heat_ = 0;
  int out_cold_ = 0, out_hot_ = 0, out_supply_ = 0, out_coil_ = 0;
};

/// The facility water plant's own settings; the heat rejection (cooling towers or dry coolers),
/// the chillers and the economizer logic are hx/ models (hx/economizer.hpp).
struct PlantParameters {
  std::string heat_rejection = "cooling_tower";  ///< cooling_tower | dry_cooler
  double supply_setpoint = 291.15;     ///< T_set [K] facility water supply
  double design_flow = 1200.0;         ///< [kg/s] facility water flow
  double pump_power = 300e3;           ///< [W] facility water pumps
  double water_volume = 200.0;         ///< [m3] in the facility loop (supply + return headers)

  static core::SectionSchema schema();
  static PlantParameters from(const core::ParameterTree& section);
};

/// Facility water: a return header T_fr collecting the CRAH coils and CDUs, a supply header T_fs.
///   C_fr dT_fr/dt = C_fw (T_fs - T_fr) + sum_p (Q_coil,p + Q_cdu,p)
///   C_fs dT_fs/dt = C_fw (T_lv - T_fs)
///   dE_rej/dt     = C_fw (T_fr - T_lv)                    heat rejected outdoors (bookkeeping)
/// The plant's leaving water T_lv comes from a water-side economizer (hx/economizer.hpp): the
/// towers (or dry coolers) pre-cool the return as far as the weather allows, the chillers trim to
/// the set-point up to their capacity; T_lv > T_set when the load is unmet. dT_lv/dT_fr is taken
/// by a central difference of that plant model.
class FacilityWaterPlant final : public solver::Component {
 public:
  /// `pods` is null for an air-cooled site (no CDUs).
  FacilityWaterPlant(PlantParameters p, std::unique_ptr<hx::WaterSideEconomizer> economizer, const WeatherSeries& weather,
                     const HallAir& hall, const PodCoolantLoop* pods, std::size_t pod_count, double initial_temperature);

  [[nodiscard]] solver::Index supply_index() const { return index(supply_); }
  [[nodiscard]] solver::Index return_index() const { return index(return_); }
  [[nodiscard]] solver::Index heat_rejected_index() const { return index(rejected_); }
  struct Operation {
    double leaving_temperature = 0.0;  ///< T_lv [K]
    double d_return = 0.0;             ///< dT_lv / dT_fr
    double heat_removed = 0.0;         ///< [W] taken out of the facility water, C_fw (T_fr - T_lv)
    double power = 0.0;                ///< [W] chillers, fans and pumps
    int mode = 0;                      ///< hx::PlantMode as a number (0 free, 1 partial, 2 mechanical)
  };
  [[nodiscard]] Operation operate(double t, const double* x) const;
  /// The whole plant's operating point at time t with state x (condenser water, shares, chiller).
  [[nodiscard]] hx::PlantOperatingPoint operating_point(double t, const double* x) const {
    return plant_at(t, x[return_index()]);
  }
  [[nodiscard]] double stored_energy(const double* x) const;
  [[nodiscard]] const PlantParameters& parameters() const { return p_; }
  [[nodiscard]] const hx::WaterSideEconomizer& economizer() const { return *economizer_; }

  /// The plant at a steady heat load [W] on the facility water with the weather of time t, asked
  /// for a supply temperature T_s: the return sits at T_s + load / (m_fw c_p), the water the load
  /// leaves at the design flow.
  [[nodiscard]] hx::PlantOperatingPoint steady_operation(double t, double load, double supply_temperature) const;
  /// steady_operation at the set-point in the weather of every sample of the weather series in
  /// [t0, t1] and at both ends, in time order.
  struct DesignPoint {
    double time = 0.0;  ///< [s] of the weather
    hx::PlantOperatingPoint operating;
  };
  [[nodiscard]] std::vector<DesignPoint> design_points(double load, double t0, double t1) const;

  void initial_state(double* x) const override;
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override;
  void jacobian_pattern(solver::PatternSink& pattern) const override;
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override;
  void compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const override;

 private:
  [[nodiscard]] hx::PlantOperatingPoint plant_at(double t, double return_temperature) const;
  PlantParameters p_;
  std::unique_ptr<hx::WaterSideEconomizer> economizer_;
  const WeatherSeries& weather_;
  const HallAir& hall_;
  const PodCoolantLoop* pods_;
  std::size_t pod_count_;
  double capacity_rate_, capacitance_, initial_temperature_;
  int supply_ = 0, return_ = 0, rejected_ = 0;
  int out_supply_ = 0, out_return_ = 0, out_power_ = 0, out_rejected_ = 0, out_dry_ = 0, out_wet_ = 0, out_mode_ = 0;
};

}  // namespace dctwin::models::facility
