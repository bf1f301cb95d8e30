// Facility energy storage at the MV bus: a supercapacitor bank that serves the fast part of the load
// swings, and a battery that limits how fast the power drawn from the utility may change.
//
// Both are advanced with the electrical feed's fixed step h by `step(h, bus_demand)`, where
// `bus_demand` [W] is the step average of what the loads draw at the storage's bus before the
// storage helps. A step returns a StorageFlow and applies it; the stored energy changes by exactly
// stored_power * h (one multiplication and one addition), so a run's bookkeeping closes to round-off:
//
//   E_end - E_start = sum over steps of stored_power * h,   stored_power = -(bus_power + loss)
//
// Sign convention: bus_power > 0 discharges the storage into the bus (the grid then supplies
// bus_demand - bus_power); bus_power < 0 charges it from the bus.
//
// Capacitor bank (the concept of a capacitor bank on the power rail behind a bidirectional converter
// that discharges while the load is above a target and charges while it is below: Microsoft patent
// application US 20250132568 [microsoft-us20250132568]):
//
//   E = 1/2 C V^2,  usable window E_min = 1/2 C V_min^2 .. E_max = 1/2 C V_max^2
//   converter:  discharging  P_cell = P_bus / eta       (loss (1 - eta) P_cell)
//               charging     P_cell = P_bus eta         (loss (1 - eta) |P_bus|)
//   ESR:        I = P_cell / V,  loss I^2 R_s  (V at the start of the step)
//   dE/dt = -(P_cell + I^2 R_s)
//   controller: L' = (D - L) / tau_f  (first-order low-pass of the demand D; exact for D constant
//               over the step: L(t+h) = D + (L - D) e^{-h/tau_f}, step average
//               L_avg = D + (L - D) (tau_f / h) (1 - e^{-h/tau_f}))
//               P_bus = clamp( clamp(D - L_avg, +-P_conv) + (E - E_mid) / tau_r, +-P_conv )
//   E_mid = (E_min + E_max) / 2. At the window edges the flow is cut so that E lands exactly on the
//   edge at the end of the step (the quadratic ESR relation is inverted for the cell power).
//
// Battery with ramp-rate control (grid codes state ramp limits in MW/s or %/min, [grid-code-ramp-limits]):
//
//   g: the grid-side power the battery aims for; each step it moves toward D + P_rec by at most
//      r_max h, where P_rec = (SoC_0 - SoC) E_cap / tau_r pulls the charge back to SoC_0 (it only
//      shifts the target, so it never breaks the ramp limit).
//   P_bus = clamp(D - g, +-P_max), further cut so that SoC stays in [SoC_min, SoC_max] (landing exactly
//   on the edge); then g = D - P_bus (what the grid really supplies: when the battery has no room the
//   ramp limit cannot be kept).
//   discharging: dE/dt = -P_bus / eta_d (loss P_bus (1/eta_d - 1));
//   charging:    dE/dt = -P_bus eta_c   (loss |P_bus| (1 - eta_c)).
#pragma once

#include "dctwin/core/parameters.hpp"

#include <string>

namespace dctwin::models::electrical {

/// The `electrical.capacitor_storage:` section. Sizes are estimates (see the table's sources).
struct CapacitorStorageParameters {
  bool enabled = false;
  double capacitance = 54.0;              ///< C [F] of the bank (> 0)
  double voltage_max = 1000.0;            ///< V_max [V]: top of the usable window
  double voltage_min = 500.0;             ///< V_min [V]: bottom of the usable window (0 < V_min < V_max)
  double initial_voltage = 0.0;           ///< [V]; 0 = the voltage at the middle of the energy window
  double series_resistance = 0.004;       ///< R_s [ohm] equivalent series resistance of the bank
  double converter_power_max = 5.0e6;     ///< P_conv [W] bidirectional converter limit, both directions
  double converter_efficiency = 0.98;     ///< eta [1], one way
  double filter_time_constant = 2.0;      ///< tau_f [s]: the bank serves demand - lowpass(demand)
  double recovery_time_constant = 30.0;   ///< tau_r [s]: pulls the energy back to the middle of the window

  static core::ParameterTable table();
  /// Reads the section and checks it; errors name `<section path>.<key>`.
  static CapacitorStorageParameters from(const core::ParameterTree& section);
  /// Range and consistency checks; throws core::InputError naming `<section>.<key>`.
  void check(const std::string& section) const;

  [[nodiscard]] double energy_min() const { return 0.5 * capacitance * voltage_min * voltage_min; }
  [[nodiscard]] double energy_max() const { return 0.5 * capacitance * voltage_max * voltage_max; }
};

/// The `electrical.battery_storage:` section. Sizes are estimates (see the table's sources).
struct BatteryStorageParameters {
  bool enabled = false;
  double energy_capacity = 1.8e10;       ///< E_cap [J] (5 MWh)
  double power_max = 10.0e6;             ///< P_max [W], charge and discharge
  double soc_min = 0.1;                  ///< [1]
  double soc_max = 0.9;                  ///< [1]
  double initial_soc = 0.5;              ///< SoC_0 [1], also the recovery target
  double charge_efficiency = 0.95;       ///< eta_c [1]: stored / drawn from the bus
  double discharge_efficiency = 0.95;    ///< eta_d [1]: delivered to the bus / taken from storage
  double ramp_rate_max = 1.0e6;          ///< r_max [W/s]: the grid-side power may move at most this fast
  double recovery_time_constant = 600.0; ///< tau_r [s]: pulls SoC back to initial_soc when the ramp allows

  static core::ParameterTable table();
  static BatteryStorageParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
};

/// What a storage unit does over one step.
struct StorageFlow {
  double bus_power = 0.0;     ///< W delivered to the bus (+ discharging, - charging)
  double loss = 0.0;          ///< W dissipated (converter, ESR, battery), >= 0
  double stored_power = 0.0;  ///< W = d(stored energy)/dt = -(bus_power + loss)
};

class CapacitorStorage {
 public:
  /// Starts with the low-pass filter settled at `initial_bus_demand` [W] (no flow in steady state)
  /// and the bank at initial_voltage. Checks the parameters (section "electrical.capacitor_storage").
  CapacitorStorage(const CapacitorStorageParameters& p, double initial_bus_demand);

  /// The flow over the next step of length h [s] when the bus demand averages `bus_demand` [W];
  /// applies it (energy += stored_power * h) and returns it. Never leaves the voltage window or the
  /// converter limit.
  StorageFlow step(double h, double bus_demand);

  [[nodiscard]] double energy() const { return energy_; }  ///< J stored
  [[nodiscard]] double voltage() const;                    ///< V = sqrt(2 E / C)
  [[nodiscard]] double energy_min() const { return energy_min_; }
  [[nodiscard]] double energy_max() const { return energy_max_; }
  [[nodiscard]] double throughput() const { return throughput_; }  ///< J through the converter (bus side), both directions
  [[nodiscard]] double losses() const { return losses_; }          ///< J dissipated since construction
  /// Lowest and highest stored energy reached since construction [J] (their difference is the
  /// usable energy the run needed).
  [[nodiscard]] double energy_low() const { return energy_low_; }
  [[nodiscard]] double energy_high() const { return energy_high_; }
  /// The low-pass filter state L [W] (the part of the demand left to the grid).
  [[nodiscard]] double filtered_demand() const { return filtered_; }
  [[nodiscard]] const CapacitorStorageParameters& parameters() const { return p_; }

 private:
  CapacitorStorageParameters p_;
  double energy_min_ = 0.0, energy_max_ = 0.0;
  double energy_ = 0.0;
  double filtered_ = 0.0;
  double throughput_ = 0.0, losses_ = 0.0;
  double energy_low_ = 0.0, energy_high_ = 0.0;
};

class BatteryStorage {
 public:
  /// Starts at initial_soc with the grid-side target g at `initial_bus_demand` [W] (no flow).
  /// Checks the parameters (section "electrical.battery_storage").
  BatteryStorage(const BatteryStorageParameters& p, double initial_bus_demand);

  /// The flow over the next step of length h [s]; applies it and returns it. Never leaves the SoC
  /// window or the power limit.
  StorageFlow step(double h, double bus_demand);

  [[nodiscard]] double energy() const { return energy_; }  ///< J stored
  [[nodiscard]] double state_of_charge() const { return energy_ / p_.energy_capacity; }
  [[nodiscard]] double throughput() const { return throughput_; }  ///< J at the bus, both directions
  [[nodiscard]] double losses() const { return losses_; }
  [[nodiscard]] double energy_low() const { return energy_low_; }
  [[nodiscard]] double energy_high() const { return energy_high_; }
  /// The grid-side power after the last step, D - P_bus [W].
  [[nodiscard]] double grid_target() const { return grid_target_; }
  [[nodiscard]] const BatteryStorageParameters& parameters() const { return p_; }

 private:
  BatteryStorageParameters p_;
  double energy_ = 0.0;
  double grid_target_ = 0.0;
  double throughput_ = 0.0, losses_ = 0.0;
  double energy_low_ = 0.0, energy_high_ = 0.0;
};

}  // namespace dctwin::models::electrical
