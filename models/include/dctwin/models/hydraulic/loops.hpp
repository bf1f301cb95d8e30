// Loop builders: the rack manifold, the pod loop and the facility loop as flow networks, and
// their labelled results (per-rack and per-plate flows, pump operating points and power).
//
// Rack manifold (one rack, S servers x P plates; labels under "rackNNN/"):
//
//   supply tap --supply_hose--> valve_inlet --valve--> supply/0 --segment--> supply/1 ...
//                                                         |                     |
//                                              server0/supply_hose    server1/supply_hose
//                                                         v                     v
//                                                  server0/inlet         server1/inlet
//                                             P plates in parallel, or P/2 series pairs
//                                             (plate 2j: inlet -> pairj, 2j+1: pairj -> outlet)
//                                                  server0/outlet        server1/outlet
//                                                         |                     |
//                                              server0/return_hose    server1/return_hose
//                                                         v                     v
//   return tap <--return_hose-- return/0 <--segment-- return/1     (direct return; reverse return
//                                                                   leaves from the last server)
//
// Pod loop (one CDU secondary, R racks; labels at the top level):
//
//   tank (fixed pressure) = pump suction --pumps/pumpK (N in parallel)--> cdu/inlet
//   cdu/inlet --cdu/secondary--> cdu/outlet --supply_main--> supply/000 --supply/segment000--> ...
//   rack i between supply/i and return/i (the rack manifold above, full network)
//   direct return:  return/R-1 --> ... --> return/000 --return_main--> tank
//   reverse return: return/000 --> ... --> return/R-1 --return_main--> tank
//
// In direct return the first rack has the shortest path both ways, so flow falls monotonically
// along the header; in reverse return every rack's path has about the same length.
//
// Facility loop (P pods' CDU primaries in parallel on the facility pumps):
//
//   tank = suction --pumps--> plant/inlet --plant--> plant/outlet --supply_main--> supply/0 ...
//   pod j: supply/j --podj/pipe--> podj/valve_inlet --podj/valve--> podj/hx_inlet
//          --podj/cdu_primary--> return/j;   return header and return_main as in the pod loop.
//
// Coolant properties are taken at one temperature per loop (the supply temperature by default);
// cold plates and lumped resistances are rated laws that do not depend on them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/fluid/coolant.hpp"
#include "dctwin/models/hydraulic/pipe.hpp"
#include "dctwin/models/hydraulic/pump_group.hpp"
#include "dctwin/models/hydraulic/resistance.hpp"
#include "dctwin/models/hydraulic/valve.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

enum class HeaderArrangement { direct_return, reverse_return };
enum class PlateArrangement { parallel, series_pairs };
const char* to_string(HeaderArrangement a) noexcept;  ///< "direct_return" / "reverse_return"
const char* to_string(PlateArrangement a) noexcept;   ///< "parallel" / "series_pairs"

/// The solver's account of a loop solve.
struct SolveReport {
  bool converged = false;
  int iterations = 0;
  double mass_residual = 0.0;  ///< largest node imbalance / largest flow
  double law_residual = 0.0;   ///< largest branch-law residual / pressure scale
  std::string message;
};

/// (max - min) / mean of a set of flows (0 for an empty set or zero mean).
[[nodiscard]] double flow_spread(const std::vector<double>& flows);

// ---- building blocks ----------------------------------------------------------------------------

/// Supply and return headers with `taps` taps each (labels PREFIX"supply/i", PREFIX"return/i",
/// segments PREFIX"supply/segmenti" between tap i and i+1, likewise for return).
struct HeaderPair {
  solver::Index supply_inlet = -1;   ///< supply tap 0: where the supply enters
  solver::Index return_outlet = -1;  ///< return tap 0 (direct) or taps-1 (reverse): where it leaves
  std::vector<solver::Index> supply_taps, return_taps;
  std::vector<solver::Index> supply_segments, return_segments;  ///< taps-1 each, in order of tap
};
HeaderPair add_header_pair(solver::Network& network, const std::string& prefix, int taps,
                           const std::shared_ptr<const solver::BranchLaw>& supply_segment,
                           const std::shared_ptr<const solver::BranchLaw>& return_segment,
                           HeaderArrangement arrangement);

/// The trunk a pod loop and the facility loop share, built in this order (node and branch indices
/// follow it):
///
///   tank (fixed pressure) = pump suction --pumps/pumpK--> E/inlet --(element branch)--> E/outlet
///   E/outlet --supply_main--> supply/0 ... (header pair, `taps` taps) ... --return_main--> tank
///
/// E is "cdu" (branch "cdu/secondary") in a pod loop and "plant" (branch "plant") in the facility
/// loop. What hangs between the header taps is added by the owner through network(); finish()
/// then orders the solver, and solve() starts each solve from the last converged solution.
struct PumpLoopTrunk {
  std::string name;            ///< network name (messages)
  std::string coolant;         ///< "water", "PG25", ...
  double coolant_temperature;  ///< properties taken here [K]
  double tank_pressure;        ///< expansion tank at the pump suction [Pa]
  PumpGroupParameters pumps;
  std::string element;         ///< prefix of the element's inlet and outlet nodes
  std::string element_branch;  ///< label of the element's branch
  FixedResistanceParameters element_law;
  int taps;                    ///< header taps (racks or pods)
  HeaderArrangement headers;
  PipeParameters header_segment, supply_main, return_main;
};

class PumpLoopNetwork {
 public:
  explicit PumpLoopNetwork(const PumpLoopTrunk& trunk);
  [[nodiscard]] solver::Network& network() { return *network_; }
  [[nodiscard]] const solver::Network& network() const { return *network_; }
  [[nodiscard]] const fluid::Coolant::Properties& properties() const { return properties_; }
  [[nodiscard]] const HeaderPair& headers() const { return headers_; }
  [[nodiscard]] solver::Index element() const { return element_; }
  [[nodiscard]] solver::Index supply_main() const { return supply_main_; }
  /// Replaces the law of a valve branch by `valve` opened to `opening`.
  void set_valve(solver::Index branch, ValveParameters valve, double opening);
  void set_pumps(const PumpGroupParameters& pumps);
  /// Orders the solver; call once every node and branch is in place.
  void finish();
  /// Solves the network, warm-started from the last solution when that one converged.
  const solver::NetworkSolution& solve(const solver::NetworkSettings& settings);
  [[nodiscard]] PumpGroupResult pumps_result() const;

 private:
  fluid::Coolant::Properties properties_{};
  std::unique_ptr<solver::Network> network_;
  std::unique_ptr<PumpGroup> pumps_;
  HeaderPair headers_;
  solver::Index element_ = -1, supply_main_ = -1, return_main_ = -1;
  std::unique_ptr<solver::NetworkSolver> solver_;
  solver::NetworkSolution last_;
  bool solved_ = false;
};

// ---- rack manifold ------------------------------------------------------------------------------

struct RackManifoldParameters {
  int servers = 2;                 ///< servers per rack (Llama 3 cluster: 2 x 8 GPUs per rack)
  int plates_per_server = 8;       ///< cold plates per server (one per GPU)
  PlateArrangement plates = PlateArrangement::parallel;
  HeaderArrangement manifold = HeaderArrangement::direct_return;
  /// One cold plate's pressure drop, dp_nom (Q / Q_nom)^m. The cold plate's parameters (thermal and
  /// hydraulic alike) are read by the facility (pod_loop.rack.cold_plate), which sets this from
  /// them; the default is the default plate of thermal/cold_plate.hpp (1.5 L/min, 50 kPa, m = 1.85).
  FixedResistanceParameters plate{2.5e-5, 50e3, 1.85};
  PipeParameters supply_hose{3.0, 0.025, 1.5e-6, 4.0};       ///< header tap to rack valve (2 QDs, bends)
  PipeParameters return_hose{3.0, 0.025, 1.5e-6, 4.0};       ///< rack manifold to header tap
  ValveParameters valve{6.3 / 3600.0, ValveCharacteristic::equal_percentage, 50.0, 1e-4, 1.0};  ///< balancing / isolation
  PipeParameters manifold_segment{0.2, 0.032, 1.5e-6, 0.2};  ///< manifold between server taps
  PipeParameters server_hose{1.0, 0.016, 1.5e-6, 2.0};       ///< each server's supply and return hose (QD)

  /// Throws InputError naming keys under `path` (series pairs need an even plate count).
  void validate(const std::string& path) const;
  static core::SectionSchema schema(const RackManifoldParameters& defaults);
  static core::SectionSchema schema();
  static RackManifoldParameters from(const core::ParameterTree& section);
};

/// Laws of one rack, shared by every rack built from the same parameters.
struct RackLaws {
  std::shared_ptr<const solver::BranchLaw> supply_hose, return_hose, valve, manifold_segment, server_hose, plate;
  static RackLaws make(const RackManifoldParameters& p, const fluid::Coolant::Properties& coolant);
};

/// Branches and nodes of one rack inside a network.
struct RackBranches {
  solver::Index supply_tap = -1, return_tap = -1;  ///< the nodes it hangs between
  solver::Index supply_hose = -1, valve = -1, return_hose = -1;
  std::vector<solver::Index> plates;  ///< server-major: server s, plate j at s * P + j
  std::vector<solver::Index> server_supply_hoses;
};

/// Adds one rack (labels under `prefix`) between two existing nodes.
RackBranches add_rack_manifold(solver::Network& network, const std::string& prefix, solver::Index supply_tap,
                               solver::Index return_tap, const RackManifoldParameters& p, const RackLaws& laws);

struct RackManifoldResult {
  double flow = 0.0;           ///< [m3/s]
  double pressure_drop = 0.0;  ///< supply tap to return tap [Pa]
  std::vector<std::string> plate_labels;
  std::vector<double> plate_flow;   ///< [m3/s], server-major
  std::vector<double> server_flow;  ///< [m3/s]
  SolveReport solve;
};

/// One rack between a supply and a return node held `pressure_difference` apart [Pa].
RackManifoldResult solve_rack_manifold(const RackManifoldParameters& p, const fluid::Coolant& coolant,
                                       double temperature, double pressure_difference,
                                       const solver::NetworkSettings& settings = {});
/// One rack fed a given flow [m3/s].
RackManifoldResult solve_rack_manifold_at_flow(const RackManifoldParameters& p, const fluid::Coolant& coolant,
                                               double temperature, double flow,
                                               const solver::NetworkSettings& settings = {});

// ---- pod loop -----------------------------------------------------------------------------------

struct PodLoopParameters {
  std::string name = "pod";        ///< network name (messages)
  int rack_count = 192;            ///< racks per pod (Llama 3 cluster)
  HeaderArrangement headers = HeaderArrangement::direct_return;
  std::string coolant = "PG25";
  double coolant_temperature = 305.15;  ///< properties taken here [K] (W32 supply)
  double tank_pressure = 2.0e5;         ///< expansion tank at the pump suction [Pa]
  PumpGroupParameters pumps = default_pumps();
  FixedResistanceParameters cdu_secondary{0.0768, 50e3, 2.0};  ///< CDU heat exchanger, secondary pass
  PipeParameters supply_main{15.0, 0.25, 4.5e-5, 3.0};
  PipeParameters return_main{15.0, 0.25, 4.5e-5, 3.0};
  PipeParameters header_segment{0.6, 0.25, 4.5e-5, 0.05};  ///< between two rack taps (rack pitch)
  RackManifoldParameters rack;
  std::vector<double> rack_valve_openings;  ///< per rack; empty = all at rack.valve.opening

  static PumpGroupParameters default_pumps();
  void validate(const std::string& path) const;
  static core::SectionSchema schema();
  static PodLoopParameters from(const core::ParameterTree& section);
};

struct PodLoopResult {
  std::vector<std::string> rack_labels;     ///< "rack000" ...
  std::vector<double> rack_flow;            ///< [m3/s]
  std::vector<double> rack_pressure_drop;   ///< supply tap to return tap [Pa]
  std::vector<double> rack_supply_delay;    ///< CDU outlet to rack valve, plug flow [s]
  std::vector<std::string> plate_labels;    ///< "rack000/server0/plate0" ..., rack-major
  std::vector<double> plate_flow;           ///< [m3/s]
  PumpGroupResult pumps;
  double flow = 0.0;                        ///< through the CDU [m3/s]
  double cdu_pressure_drop = 0.0;           ///< [Pa]
  double supply_header_pressure_drop = 0.0; ///< first to last supply tap [Pa]
  double return_header_pressure_drop = 0.0; ///< along the return header to its outlet [Pa]
  SolveReport solve;
};

/// A pod loop kept for repeated solves (pump states, speeds and rack valves change; the solver's
/// ordering is reused and each solve starts from the last solution).
class PodLoop {
 public:
  explicit PodLoop(PodLoopParameters p);
  [[nodiscard]] const solver::Network& network() const { return loop_.network(); }
  [[nodiscard]] const PodLoopParameters& parameters() const { return p_; }
  void set_pumps(const PumpGroupParameters& pumps);
  void set_rack_valve_opening(std::size_t rack, double opening);
  PodLoopResult solve(const solver::NetworkSettings& settings = {});

 private:
  PodLoopParameters p_;
  PumpLoopNetwork loop_;
  std::vector<RackBranches> racks_;
};

PodLoopResult solve_pod_loop(const PodLoopParameters& p, const solver::NetworkSettings& settings = {});

// ---- facility loop ------------------------------------------------------------------------------

struct FacilityLoopParameters {
  std::string name = "facility";
  int pod_count = 8;
  HeaderArrangement headers = HeaderArrangement::reverse_return;
  std::string coolant = "water";
  double coolant_temperature = 300.15;  ///< [K]
  double tank_pressure = 3.0e5;         ///< [Pa]
  PumpGroupParameters pumps = default_pumps();
  FixedResistanceParameters plant{0.48, 80e3, 2.0};        ///< heat-rejection plant (chillers, coolers)
  PipeParameters supply_main{50.0, 0.5, 4.5e-5, 4.0};
  PipeParameters return_main{50.0, 0.5, 4.5e-5, 4.0};
  PipeParameters header_segment{30.0, 0.45, 4.5e-5, 0.3};  ///< between two pod taps
  PipeParameters cdu_pipe{10.0, 0.2, 4.5e-5, 4.0};         ///< header tap to CDU and back
  ValveParameters cdu_valve{400.0 / 3600.0, ValveCharacteristic::equal_percentage, 50.0, 1e-4, 1.0};
  FixedResistanceParameters cdu_primary{0.06, 50e3, 2.0};  ///< CDU heat exchanger, primary pass
  std::vector<double> cdu_valve_openings;  ///< per pod; empty = all at cdu_valve.opening

  static PumpGroupParameters default_pumps();
  void validate(const std::string& path) const;
  static core::SectionSchema schema();
  static FacilityLoopParameters from(const core::ParameterTree& section);
};

struct FacilityLoopResult {
  std::vector<std::string> pod_labels;    ///< "pod0" ...
  std::vector<double> pod_flow;           ///< CDU primary flow [m3/s]
  std::vector<double> pod_pressure_drop;  ///< supply tap to return tap [Pa]
  PumpGroupResult pumps;
  double flow = 0.0;                      ///< through the plant [m3/s]
  double plant_pressure_drop = 0.0;       ///< [Pa]
  SolveReport solve;
};

class FacilityLoop {
 public:
  explicit FacilityLoop(FacilityLoopParameters p);
  [[nodiscard]] const solver::Network& network() const { return loop_.network(); }
  [[nodiscard]] const FacilityLoopParameters& parameters() const { return p_; }
  void set_pumps(const PumpGroupParameters& pumps);
  void set_cdu_valve_opening(std::size_t pod, double opening);
  FacilityLoopResult solve(const solver::NetworkSettings& settings = {});

 private:
  FacilityLoopParameters p_;
  PumpLoopNetwork loop_;
  std::vector<solver::Index> pod_valves_, pod_supply_;
};

FacilityLoopResult solve_facility_loop(const FacilityLoopParameters& p, const solver::NetworkSettings& settings = {});

}  // namespace dctwin::models::hydraulic
