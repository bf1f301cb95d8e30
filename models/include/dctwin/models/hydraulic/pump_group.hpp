// A group of N identical pumps in parallel between one suction and one discharge node, with
// N+1-style redundancy: `duty_count` pumps are commanded to run, the others stand by, and
// `failed_count` pumps (the first ones) have failed. With `standby_takeover`, healthy standby
// pumps start in place of failed duty pumps. Every stopped pump (standby or failed) sits behind
// a check valve when `check_valves` is set: its branch is closed. Without check valves a stopped
// pump is the resistance of its impeller, r Q|Q|, and the running pumps push flow back through it.
//
// Identical pumps share the flow equally. With k pumps running against a loop dp_loop(Q):
//   dp_0 s^2 - r (Q / k)^2 = dp_loop(Q),
// so losing one of three running pumps on a quadratic loop k_s Q^2 changes the flow from
// sqrt(dp_0 s^2 / (k_s + r / 9)) to sqrt(dp_0 s^2 / (k_s + r / 4)).
#pragma once

#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/hydraulic/pump.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

enum class PumpState { running, standby, failed };
const char* to_string(PumpState state) noexcept;

struct PumpGroupParameters {
  PumpParameters pump;           ///< one pump (all are identical); `pump.speed` is the group's speed
  int pump_count = 3;            ///< N installed
  int duty_count = 2;            ///< pumps commanded to run (N - 1 for N+1 redundancy)
  int failed_count = 0;          ///< pumps 0 .. failed_count-1 have failed
  bool standby_takeover = true;  ///< standby pumps start when duty pumps fail
  bool check_valves = true;      ///< a check valve behind every pump

  /// State of each pump.
  [[nodiscard]] std::vector<PumpState> states() const;
  /// Throws InputError for inconsistent counts, naming the keys under `path`
  /// (e.g. "pod.pumps.duty_count = 4 exceeds pod.pumps.pump_count = 3").
  void validate(const std::string& path) const;

  static core::SectionSchema schema(const PumpGroupParameters& defaults, const std::string& sizing_source);
  /// Reads and validates the section (key paths from the tree).
  static PumpGroupParameters from(const core::ParameterTree& section);
};

/// One pump at the solved state.
struct PumpOperatingPoint {
  PumpState state = PumpState::standby;
  double speed = 0.0;             ///< running speed [1]
  double flow = 0.0;              ///< [m3/s], suction to discharge
  double pressure_rise = 0.0;     ///< p_discharge - p_suction [Pa]
  double hydraulic_power = 0.0;   ///< [W]
  double shaft_power = 0.0;       ///< [W]
  double electrical_power = 0.0;  ///< [W]
  double efficiency = 0.0;        ///< pump efficiency [1]
};

struct PumpGroupResult {
  std::vector<std::string> labels;  ///< branch labels, "PREFIX/pump0", ...
  std::vector<PumpOperatingPoint> pumps;
  int running = 0;
  double flow = 0.0;              ///< total through the group [m3/s]
  double pressure_rise = 0.0;     ///< [Pa]
  double hydraulic_power = 0.0;   ///< [W]
  double shaft_power = 0.0;       ///< [W]
  double electrical_power = 0.0;  ///< [W]
};

/// The pump branches of one group inside a network.
class PumpGroup {
 public:
  /// Adds one branch per pump from `suction` to `discharge`, labelled "PREFIX/pumpK".
  PumpGroup(solver::Network& network, const std::string& prefix, solver::Index suction, solver::Index discharge,
            const PumpGroupParameters& parameters);
  /// New states or speed (same pump count): replaces the branch laws.
  void update(solver::Network& network, const PumpGroupParameters& parameters);
  [[nodiscard]] PumpGroupResult result(const solver::Network& network, const solver::NetworkSolution& solution) const;
  [[nodiscard]] const std::vector<solver::Index>& branches() const { return branches_; }
  [[nodiscard]] const PumpGroupParameters& parameters() const { return p_; }

 private:
  PumpGroupParameters p_;
  solver::Index suction_, discharge_;
  std::vector<solver::Index> branches_;
  std::vector<PumpState> states_;
};

}  // namespace dctwin::models::hydraulic
