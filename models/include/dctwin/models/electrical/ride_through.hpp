// Disturbances of the utility supply (voltage sags and outages) and how the facility rides through
// them: the scenario's `electrical.utility_events` list and the closed forms of the stores that
// bridge them. The feed (feed.hpp) applies the events at its fine step.
//
// An event holds the utility's voltage at v = 1 - depth of nominal from `time` for `duration`
// (an outage: v = 0, the facility's MV bus is disconnected). Each lineup then draws on, in the order
// the chain reaches them from the utility towards the servers:
//
//   1. the UPS battery, when the UPS input falls below ups.input_voltage_min (after the eco-mode
//      transfer time; none in double conversion, IEC 62040-3 class VFI): P_batt = P_UPS,out / eta_b;
//   2. the rack BBUs, when their busbar has lost its feed for bbu.transfer_time:
//      P_cells = P_busbar / eta_BBU (P_busbar = the PSUs' input, at most the units' rating);
//   3. the PSUs' bulk capacitors (hold-up) whenever the busbar carries nothing, including the
//      transfer times above: dE/dt = -P_out;
//   4. nothing: when the bulk voltage reaches psu.bulk_voltage_min the servers drop and the
//      lineup's IT load is lost until the utility returns.
//
// Closed forms at a constant PSU output P_out (n = servers x active supplies per lineup):
//
//   hold-up time   t_h = n 1/2 C (V_0^2 - V_min^2) / P_out
//   BBU runtime    t_B = E_BBU eta_BBU / P_in,       P_in = P_out / eta_PSU (steady PSU input)
//   UPS runtime    t_U = E_UPS eta_b / P_UPS,out,    E_UPS = P_rated autonomy / eta_b
//
// Sources: Open Rack V3 PSU / power shelf requirements (PSU runs 20 ms at full load, BBU triggered
// within 4 ms and runs up to 240 s, [ocp-orv3-hpr-psu]); Intel ATX12VO design guide (AC loss to
// PWR_OK hold-up > 11 ms required, > 16 ms recommended at 80 % load, [intel-atx12vo]); IEC 62040-3
// UPS classification ([iec-62040-3]).
#pragma once

#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::electrical {

/// One entry of `electrical.utility_events`.
struct UtilityEvent {
  std::string kind = "outage";  ///< "sag" or "outage"
  double time = 0.0;            ///< [s] start
  double duration = 0.0;        ///< [s]
  double depth = 1.0;           ///< [1] share of the nominal voltage lost during a sag (outage: 1)

  static core::ParameterTable table();
  /// Reads one entry and checks it; errors name "<entry path>.<key>".
  static UtilityEvent from(const core::ParameterTree& entry);
  [[nodiscard]] double end() const { return time + duration; }
  /// The utility voltage during the event, per nominal: 1 - depth (0 for an outage).
  [[nodiscard]] double residual_voltage() const { return kind == "outage" ? 0.0 : 1.0 - depth; }
  [[nodiscard]] bool outage() const { return kind == "outage"; }
};

/// Checks a list of events: each one's values, and that they do not overlap (in time order).
/// `list_path` is "electrical.utility_events"; errors name "<list_path>[i].<key>".
void check_utility_events(const std::vector<UtilityEvent>& events, const std::string& list_path);

/// Hold-up time [s] of bulk capacitance C [F] from V_0 to V_min [V] at output power P [W]:
/// 1/2 C (V_0^2 - V_min^2) / P.
[[nodiscard]] double holdup_time(double capacitance, double voltage_start, double voltage_min, double power);

}  // namespace dctwin::models::electrical
