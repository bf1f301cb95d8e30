// The facility's electrical feed, from the servers' power supplies to the utility, advanced on a fixed
// step (1 ms by default) between the knots of the thermal / workload simulation.
//
// Chain, per lineup (one per pod; identical parameters, different loads):
//
//   IT load (W at the PSU outputs) -> PSUs (efficiency, PFC lag, bulk capacitors) -> rack busbar
//   (+ BBU standby loss) -> PDUs (P_0 + k P^2) -> UPS (efficiency vs load, mode) -> LV switchboard
//   (k P^2) -> MV transformers (P_0 + P_LL K^2, C57.91 thermal and ageing)
//
// MV bus demand D = sum of the lineups' transformer inputs + the mechanical load (cooling) through its
// own transformer bank (same per-unit parameters as the lineups' units; unit count from
// `mechanical_transformer_units`, or the fewest units that carry the initial mechanical load at 80 %).
// Storage at the MV bus acts as sampled controllers at the feed's step: at each grid point the
// capacitor bank (fast part) and then the battery (ramp control, on what the bank leaves) set their
// bus power for the whole next grid step from the mean demand of the step just completed (one step of
// delay). The net active power P = D - P_cap - P_bat and the reactive power (lineups and mechanical
// load at their power factors, plus the transformers' reactive losses) load the feeder; the utility
// supplies P_grid = P + feeder loss, and its frequency responds to P_grid - P_grid,0.
//
// Multirate coupling: the thermal side calls advance(t1, load_at_start, load_at_end); inside
// [time(), t1] the loads are linear in time. Steps lie on the grid t0 + k dt; a call that ends between
// grid points takes a partial step to t1 and the next call finishes that grid step, so load edges
// (which are always at call boundaries) are resolved exactly. The PSUs' efficiency and the storage
// set-points are decided at grid points; within a step (or partial step) each static stage is
// evaluated at the piece's mean power; the PSU dynamics, the transformer lags, the feeder and the
// utility are integrated exactly over it. So where the calls end does not change the result beyond
// the static stages' curvature (5e-11 relative in the grid energy over the tests' 10 s square wave).
// The grid recorder receives one sample per completed grid step: the mean grid power over that step,
// and the frequency and bus voltage at its end.
//
// Utility disturbances (`utility_events`, ride_through.hpp): during a sag or an outage each lineup
// is carried by its UPS battery, its racks' BBUs or its PSUs' bulk capacitors, or its IT load is lost.
// A piece is then cut at every event edge and at every instant a store takes over or runs out (exact
// for the hold-up's quadratic, iterated to round-off for the batteries), so that each lineup keeps one
// source over each cut piece. During an outage the MV bus is disconnected: the cooling load is lost,
// the transformers and the feeder carry nothing, and the utility sees the facility's power drop to 0
// (the feeder is settled again at the demand when the utility returns). During a sag the MV bus runs
// at 1 - depth (the recorded bus voltage is scaled by it) and the loads draw their power as before.
//
// Energy accounts [J] use the same step powers, so that
//   grid = load + losses + storage_change
// holds to round-off, where storage_change is the change of the energy in the PSUs' bulk capacitors,
// the UPS batteries, the BBUs, the capacitor bank and the battery, and load is what was delivered
// (the demanded load = load + it_load_lost + mechanical_load_lost). (When a call ends inside a grid
// step the storage units' own state already holds that whole step's flow; the accounts hold the
// part up to time().)
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/electrical/conversion.hpp"
#include "dctwin/models/electrical/feeder.hpp"
#include "dctwin/models/electrical/grid_metrics.hpp"
#include "dctwin/models/electrical/ride_through.hpp"
#include "dctwin/models/electrical/storage.hpp"
#include "dctwin/models/electrical/transformer.hpp"
#include "dctwin/models/electrical/utility.hpp"

namespace dctwin::models::electrical {

/// The scenario's `electrical:` section.
struct ElectricalParameters {
  bool enabled = true;
  double time_step = 1e-3;                ///< dt [s]
  double output_interval = 1e-3;          ///< [s] between samples, a whole multiple of dt
  double spectrum_interval = 5e-3;        ///< [s] block length of the power series the spectrum sees
  double mechanical_power_factor = 0.95;  ///< [1] of the cooling load (drives)
  int mechanical_transformer_units = 0;   ///< units feeding the mechanical load; 0 = sized from the initial load
  PsuParameters psu;
  BbuParameters bbu;
  PduParameters pdu;
  UpsParameters ups;
  SwitchboardParameters switchboard;
  TransformerParameters transformer;
  FeederParameters feeder;
  UtilityParameters utility;
  CapacitorStorageParameters capacitor_storage;
  BatteryStorageParameters battery_storage;
  GridLimits limits;
  std::vector<UtilityEvent> utility_events;  ///< sags and outages, in time order

  static core::ParameterTable table();
  /// Sub-sections psu, bbu, pdu, ups, switchboard, transformer, feeder, utility, capacitor_storage,
  /// battery_storage, limits; the list utility_events.
  static core::SectionSchema schema();
  /// Reads and checks every sub-section; errors name "<path>.<section>.<key>".
  static ElectricalParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
};

struct FeedLoad {
  std::vector<double> it;   ///< W per lineup: what the lineup's servers draw at their PSU outputs
  double mechanical = 0.0;  ///< W cooling (plant, pumps, fans), fed at the MV bus through its own transformer
};

struct GridSample {
  double time = 0.0;              ///< s
  double grid_power = 0.0;        ///< W, mean over the step ending at `time`
  double frequency = 0.0;         ///< Hz
  double voltage = 0.0;           ///< 1, MV bus relative to nominal
  double capacitor_energy = 0.0;  ///< J (0 without a bank)
  double battery_soc = 0.0;       ///< 1 (0 without a battery)
  double hot_spot = 0.0;          ///< K, hottest transformer
  double ups_energy = 0.0;        ///< J in the UPS batteries of all lineups
  double bbu_energy = 0.0;        ///< J in the BBUs of all lineups
  double it_power_lost = 0.0;     ///< W of IT load not supplied, mean over the step ending at `time`
};

/// The feed's report series (group "grid", one value each, on the feed's own time axis), declared
/// once here with the quantities: their specs, and a sample's values in the same order.
[[nodiscard]] const std::vector<core::OutputSpec>& grid_sample_outputs();
/// long_name of the grid series' time axis.
[[nodiscard]] const char* grid_sample_time_long_name();
/// Writes the values of `sample` into `values` (size grid_sample_outputs().size()), in that order.
void grid_sample_values(const GridSample& sample, std::span<double> values);

/// Energy accounts since the feed's start. Two balances hold to round-off:
///   grid = load + losses + storage_change                                     (whole chain)
///   grid = server_input + mechanical + upstream_losses + (storage_change - server_storage_change)
/// the second one at the servers' inlets, the IT power boundary of the PUE (The Green Grid, White
/// Paper #49, 2012): what the servers draw there includes their PSUs' loss and bulk capacitors.
struct FeedEnergy {
  double grid = 0.0;            ///< J drawn from the utility
  double load = 0.0;            ///< J delivered to the IT (PSU outputs) and mechanical loads
  double losses = 0.0;          ///< J, sum of loss_by_stage
  double storage_change = 0.0;  ///< J, change of the energy stored (PSU bulk, capacitor bank, battery)
  double server_input = 0.0;    ///< J drawn by the servers at their inlets (PSU inputs): the IT energy
  double server_output = 0.0;   ///< J delivered by the PSUs to the server parts (GPUs, CPUs, fans, ...)
  double mechanical = 0.0;      ///< J delivered to the cooling load (plant, pumps, fans)
  double upstream_losses = 0.0; ///< J, losses between the utility and the server inlets (all but psu)
  double server_storage_change = 0.0;  ///< J, change of the energy in the PSUs' bulk capacitors
  double it_load_lost = 0.0;          ///< J of IT load (PSU outputs) not supplied: lineups whose servers dropped
  double mechanical_load_lost = 0.0;  ///< J of cooling load not supplied (outages)
  double psu_holdup = 0.0;            ///< J delivered from the PSUs' bulk capacitors while their input was lost
  double bbu_discharge = 0.0;         ///< J taken from the BBUs' cells
  double ups_discharge = 0.0;         ///< J taken from the UPS batteries
  /// psu, bbu, pdu, ups, switchboard, transformer, mechanical_transformer, capacitor_storage,
  /// battery_storage, feeder [J].
  std::vector<std::pair<std::string, double>> loss_by_stage;
};

class ElectricalFeed {
 public:
  /// Starts in steady state at `initial` (transformer temperatures at the steady state of that load
  /// unless transformer.start_at_steady_state is false; storage at its initial charge; frequency
  /// nominal) at time t0. `ambient_temperature` [K] is the transformers' ambient.
  ElectricalFeed(const ElectricalParameters& p, std::size_t lineups, std::size_t servers_per_lineup,
                 std::size_t racks_per_lineup, double ambient_temperature, double t0, const FeedLoad& initial);
  ~ElectricalFeed();
  ElectricalFeed(ElectricalFeed&&) noexcept;
  ElectricalFeed& operator=(ElectricalFeed&&) noexcept;

  [[nodiscard]] double time() const;
  /// Advances to t1 >= time() with the loads linear from `at_start` (at time()) to `at_end` (at t1).
  void advance(double t1, const FeedLoad& at_start, const FeedLoad& at_end);
  /// Sets the transformers' ambient [K] from now on.
  void set_ambient_temperature(double kelvin);

  [[nodiscard]] const std::vector<GridSample>& samples() const;  ///< at t0 + k output_interval, since the last clear
  void clear_samples();
  [[nodiscard]] FeedEnergy energy() const;  ///< since t0
  [[nodiscard]] GridMetrics metrics() const;
  [[nodiscard]] std::vector<LimitCheck> limit_checks() const;
  /// Summary figures (SI units): grid_power_peak_to_peak (W), grid_ramp_rate_max_<window> (W/s) for
  /// each standard window (10ms, 100ms, 1s, 1min) of at least dt that the record holds twice,
  /// grid_band_energy_fraction_0p1_20hz, _below_1hz, _1_2p5hz, _7_40hz (1), grid_frequency_nadir (Hz),
  /// grid_frequency_zenith (Hz), grid_rocof_max (Hz/s), grid_voltage_change_max (1),
  /// transformer_hot_spot_max (K), transformer_loss_of_life (h, the most aged unit), grid_energy (J),
  /// electrical_losses (J), storage_throughput (J), storage_losses (J), capacitor_energy_swing (J),
  /// battery_energy_swing (J), psu_bulk_voltage_min (V), torsional_amplitude_max (1),
  /// grid_limit_violations (count), and grid_limit_<name> (1 passed, 0 failed) per checked limit;
  /// electrical_loss_<stage> (J) for each stage of FeedEnergy::loss_by_stage and
  /// electrical_upstream_losses (J, all stages but the PSUs). With utility events also the
  /// ride-through figures: utility_disturbance_time (s), utility_disturbance_first (s, -1 never),
  /// it_load_lost (J), it_load_lost_first (s, -1 never), it_load_lost_time (s, any lineup down),
  /// lineup_drops (1), mechanical_load_lost (J), psu_holdup_discharge, bbu_discharge,
  /// ups_battery_discharge (J), ups_battery_exhausted_first, bbu_exhausted_first (s, -1 never),
  /// ups_battery_energy_end, bbu_energy_end (J); and the limit checks utility_supply and
  /// it_load_supplied among grid_limit_*.
  [[nodiscard]] std::vector<core::SummaryFigure> summary() const;

  /// Least PSU bulk voltage reached in any lineup [V] (hold-up margin against psu.bulk_voltage_min).
  [[nodiscard]] double psu_bulk_voltage_min() const;
  /// Hottest transformer hot spot now [K].
  [[nodiscard]] double hot_spot() const;
  /// Largest equivalent ageing of any unit since t0 [h].
  [[nodiscard]] double loss_of_life() const;
  [[nodiscard]] const UtilityGrid& utility() const;
  [[nodiscard]] const Feeder& feeder() const;
  [[nodiscard]] std::size_t grid_steps() const;  ///< completed grid steps since t0

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dctwin::models::electrical
