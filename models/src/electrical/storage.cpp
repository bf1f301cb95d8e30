#include "dctwin/models/electrical/storage.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"

namespace dctwin::models::electrical {

namespace {

using core::ParameterTable;

constexpr const char* capacitor_section = "electrical.capacitor_storage";
constexpr const char* battery_section = "electrical.battery_storage";

/// Cell power P (> 0 out of the cells) whose stored power -(P + R P^2 / V^2) equals `stored`.
/// Discharging (stored < 0): the positive root. Charging (stored > 0): the root of smaller magnitude
/// (the other one lies beyond the matched-load point V^2 / (2 R), which a converter never reaches).
double cell_power_for(double stored, double resistance, double voltage) {
  const double a = resistance / (voltage * voltage);  // 1/W
  if (a == 0.0) return -stored;
  // a P^2 + P + stored = 0.
  const double discriminant = std::max(0.0, 1.0 - 4.0 * a * stored);
  // Numerically stable form of (-1 + sqrt(disc)) / (2 a): -2 stored / (1 + sqrt(disc)).
  return -2.0 * stored / (1.0 + std::sqrt(discriminant));
}

}  // namespace

// ---- capacitor bank ----------------------------------------------------------------------------

namespace {

const ParameterDeclarations<CapacitorStorageParameters>& capacitor_declarations() {
  static const ParameterDeclarations<CapacitorStorageParameters> declared = [] {
    ParameterDeclarations<CapacitorStorageParameters> d;
    using P = CapacitorStorageParameters;
    d.boolean("enabled", &P::enabled, "Whether a supercapacitor bank sits at the MV bus",
              "Off by default: the reference facility has no bank; the concept is a capacitor bank behind a "
              "bidirectional converter (Microsoft patent application US 20250132568 [microsoft-us20250132568])");
    d.real("capacitance", &P::capacitance, "F", "C: capacitance of the bank, energy 1/2 C V^2",
           "Estimate (uncertain): sized so that the window 500-1000 V holds ~20 MJ usable, 4 s at 5 MW, enough to "
           "carry a training iteration's fast swing; no published bank size")
        .above(0.0);
    d.real("voltage_max", &P::voltage_max, "V", "V_max: top of the usable voltage window",
           "Estimate (uncertain): a ~1 kV DC string of ~370 cells of 2.7 V")
        .above(0.0);
    d.real("voltage_min", &P::voltage_min, "V",
           "V_min: bottom of the usable voltage window (below it the converter's current would grow too large)",
           "Estimate (uncertain): half of V_max, the usual lower limit of a supercapacitor converter; it leaves 75 % "
           "of the energy at V_max usable")
        .above(0.0);
    d.real("initial_voltage", &P::initial_voltage, "V",
           "Bank voltage at the start; 0 = the voltage at the middle of the energy window",
           "0 = middle of the window, room in both directions")
        .at_least(0.0);
    d.real("series_resistance", &P::series_resistance, "ohm",
           "R_s: equivalent series resistance of the bank, loss I^2 R_s with I = P_cell / V",
           "Estimate (uncertain): large 2.7 V cells have ~0.3 mOhm; ~370 in series and ~25 strings in parallel give "
           "~4 mOhm (~10 % loss at 5 MW and V_min)")
        .at_least(0.0);
    d.real("converter_power_max", &P::converter_power_max, "W",
           "P_conv: limit of the bidirectional converter, both directions",
           "Estimate (uncertain): a few MW, the order of one pod's swing (24,576 x 400 W ~ 9.8 MW GPU-only swing for "
           "the whole facility, [E] from [meta-llama3-2024] and [h100-training-trace])")
        .above(0.0)
        .shown_in("MW");
    d.real("converter_efficiency", &P::converter_efficiency, "1", "eta: one-way efficiency of the converter",
           "Estimate (uncertain): 97-99 % for MW-class bidirectional power converters")
        .above(0.0)
        .at_most(1.0);
    d.real("filter_time_constant", &P::filter_time_constant, "s",
           "tau_f: the bank serves demand - lowpass(demand); the grid sees the first-order low-pass of the demand",
           "Estimate: corner 1/(2 pi tau_f) = 0.08 Hz, below the 0.1-20 Hz band utilities watch "
           "([choukse-arxiv-2025])")
        .above(0.0);
    d.real("recovery_time_constant", &P::recovery_time_constant, "s",
           "tau_r: pulls the stored energy back to the middle of the window",
           "Estimate: much slower than tau_f so that recovery shows at the grid as a slow drift only")
        .above(0.0);
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable CapacitorStorageParameters::table() { return capacitor_declarations().table(); }

CapacitorStorageParameters CapacitorStorageParameters::from(const core::ParameterTree& s) {
  CapacitorStorageParameters p = capacitor_declarations().read(s);
  p.check(section_path(s, capacitor_section));
  return p;
}

void CapacitorStorageParameters::check(const std::string& section) const {
  const ParameterCheck check(section);
  capacitor_declarations().check(*this, section);
  if (voltage_min >= voltage_max)
    check.fail("voltage_min " + format_number(voltage_min) + " V must be below voltage_max " +
               format_number(voltage_max) + " V");
  if (initial_voltage != 0.0 && (initial_voltage < voltage_min || initial_voltage > voltage_max))
    check.fail("initial_voltage " + format_number(initial_voltage) + " V is not in [voltage_min, voltage_max] = [" +
               format_number(voltage_min) + ", " + format_number(voltage_max) + "] V");
}

CapacitorStorage::CapacitorStorage(const CapacitorStorageParameters& p, double initial_bus_demand) : p_(p) {
  p_.check(capacitor_section);
  DCTWIN_DEMAND(std::isfinite(initial_bus_demand), "capacitor storage: initial bus demand must be finite");
  energy_min_ = p_.energy_min();
  energy_max_ = p_.energy_max();
  energy_ = p_.initial_voltage == 0.0 ? 0.5 * (energy_min_ + energy_max_)
                                      : 0.5 * p_.capacitance * p_.initial_voltage * p_.initial_voltage;
  energy_ = std::clamp(energy_, energy_min_, energy_max_);
  filtered_ = initial_bus_demand;
  energy_low_ = energy_high_ = energy_;
}

double CapacitorStorage::voltage() const { return std::sqrt(2.0 * energy_ / p_.capacitance); }

StorageFlow CapacitorStorage::step(double h, double bus_demand) {
  DCTWIN_DEMAND(std::isfinite(h) && h > 0.0, "capacitor storage: step must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(bus_demand), "capacitor storage: bus demand must be finite");
  const double eta = p_.converter_efficiency;
  const double limit = p_.converter_power_max;

  // Low-pass filter, exact for a demand constant over the step: end value and step average.
  const double x = h / p_.filter_time_constant;
  const double decay = std::exp(-x);
  const double gap = filtered_ - bus_demand;
  // (1 - e^{-x}) / x, by its series for small x where the difference loses digits.
  const double average_factor = x < 1e-5 ? 1.0 - 0.5 * x + x * x / 6.0 : -std::expm1(-x) / x;
  const double filtered_average = bus_demand + gap * average_factor;
  filtered_ = bus_demand + gap * decay;

  const double middle = 0.5 * (energy_min_ + energy_max_);
  const double fast = std::clamp(bus_demand - filtered_average, -limit, limit);
  const double recovery = (energy_ - middle) / p_.recovery_time_constant;
  double bus = std::clamp(fast + recovery, -limit, limit);

  const double v = voltage();
  const double resistance_per_v2 = p_.series_resistance / (v * v);
  auto cell_power_of = [&](double bus_power) { return bus_power >= 0.0 ? bus_power / eta : bus_power * eta; };
  double cell = cell_power_of(bus);
  double stored = -(cell + resistance_per_v2 * cell * cell);

  // Window edges: cut the flow so that the energy lands on the edge at the end of the step.
  const double room_up = (energy_max_ - energy_) / h;    // >= 0: largest stored power allowed
  const double room_down = (energy_min_ - energy_) / h;  // <= 0: lowest stored power allowed
  if (stored > room_up || stored < room_down) {
    const double target = stored > room_up ? room_up : room_down;
    cell = cell_power_for(target, p_.series_resistance, v);
    bus = cell >= 0.0 ? cell * eta : cell / eta;
    stored = -(cell + resistance_per_v2 * cell * cell);
  }

  StorageFlow flow;
  flow.bus_power = bus;
  // (1 - eta) times the converter's input: cell - bus in both directions.
  const double converter_loss = cell - bus;
  flow.loss = std::max(0.0, converter_loss) + resistance_per_v2 * cell * cell;
  flow.stored_power = -(flow.bus_power + flow.loss);
  stored = flow.stored_power;

  energy_ += stored * h;
  // The cut lands on the edge up to round-off; never report a value outside the window.
  energy_ = std::clamp(energy_, energy_min_, energy_max_);
  throughput_ += std::fabs(bus) * h;
  losses_ += flow.loss * h;
  energy_low_ = std::min(energy_low_, energy_);
  energy_high_ = std::max(energy_high_, energy_);
  return flow;
}

// ---- battery -----------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<BatteryStorageParameters>& battery_declarations() {
  static const ParameterDeclarations<BatteryStorageParameters> declared = [] {
    ParameterDeclarations<BatteryStorageParameters> d;
    using P = BatteryStorageParameters;
    d.boolean("enabled", &P::enabled, "Whether a battery with ramp-rate control sits at the MV bus",
              "Off by default: the reference facility has no site battery");
    d.real("energy_capacity", &P::energy_capacity, "J", "E_cap: energy the battery holds between SoC 0 and 1",
           "Estimate (uncertain): 5 MWh, a half-hour battery at P_max; ramp control of a 10 MW step at 1 MW/s needs "
           "dD^2 / (2 r) = 50 MJ, the rest is margin for slow drifts")
        .above(0.0)
        .shown_in("MJ");
    d.real("power_max", &P::power_max, "W", "P_max: charge and discharge power limit at the bus",
           "Estimate (uncertain): of the order of the facility's GPU swing, ~9.8 MW ([E] from [meta-llama3-2024] and "
           "[h100-training-trace])")
        .above(0.0)
        .shown_in("MW");
    d.real("soc_min", &P::soc_min, "1", "Lowest state of charge the controller uses",
           "Estimate: a 10-90 % window is the usual reserve of Li-ion stationary storage")
        .at_least(0.0)
        .at_most(1.0);
    d.real("soc_max", &P::soc_max, "1", "Highest state of charge the controller uses",
           "Estimate: a 10-90 % window is the usual reserve of Li-ion stationary storage")
        .at_least(0.0)
        .at_most(1.0);
    d.real("initial_soc", &P::initial_soc, "1", "State of charge at the start, and the target of the recovery",
           "Middle of the window: room for both ramp directions")
        .at_least(0.0)
        .at_most(1.0);
    d.real("charge_efficiency", &P::charge_efficiency, "1", "eta_c: energy stored per energy drawn from the bus",
           "Estimate (uncertain): ~90 % round trip at the bus for Li-ion with its converter")
        .above(0.0)
        .at_most(1.0);
    d.real("discharge_efficiency", &P::discharge_efficiency, "1",
           "eta_d: energy delivered to the bus per energy taken from storage",
           "Estimate (uncertain): ~90 % round trip at the bus for Li-ion with its converter")
        .above(0.0)
        .at_most(1.0);
    d.real("ramp_rate_max", &P::ramp_rate_max, "W/s",
           "r_max: the grid-side power may move at most this fast while the battery has room",
           "Example grid-code ramp limit: Hawaii +-1 MW/s ([grid-code-ramp-limits]; others: Denmark +-100 kW/s, many "
           "+-10 %/min)")
        .above(0.0)
        .shown_in("MW/s");
    d.real("recovery_time_constant", &P::recovery_time_constant, "s",
           "tau_r: pulls the state of charge back to initial_soc (it shifts the grid target, which still moves at "
           "most r_max)",
           "Estimate: ten minutes, slow against the seconds of a training iteration")
        .above(0.0);
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable BatteryStorageParameters::table() { return battery_declarations().table(); }

BatteryStorageParameters BatteryStorageParameters::from(const core::ParameterTree& s) {
  BatteryStorageParameters p = battery_declarations().read(s);
  p.check(section_path(s, battery_section));
  return p;
}

void BatteryStorageParameters::check(const std::string& section) const {
  const ParameterCheck check(section);
  battery_declarations().check(*this, section);
  if (soc_min >= soc_max)
    check.fail("soc_min " + format_number(soc_min) + " must be below soc_max " + format_number(soc_max));
  if (initial_soc < soc_min || initial_soc > soc_max)
    check.fail("initial_soc " + format_number(initial_soc) + " is not in [soc_min, soc_max] = [" +
               format_number(soc_min) + ", " + format_number(soc_max) + "]");
}

BatteryStorage::BatteryStorage(const BatteryStorageParameters& p, double initial_bus_demand) : p_(p) {
  p_.check(battery_section);
  DCTWIN_DEMAND(std::isfinite(initial_bus_demand), "battery storage: initial bus demand must be finite");
  energy_ = p_.initial_soc * p_.energy_capacity;
  grid_target_ = initial_bus_demand;
  energy_low_ = energy_high_ = energy_;
}

StorageFlow BatteryStorage::step(double h, double bus_demand) {
  DCTWIN_DEMAND(std::isfinite(h) && h > 0.0, "battery storage: step must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(bus_demand), "battery storage: bus demand must be finite");
  const double energy_min = p_.soc_min * p_.energy_capacity;
  const double energy_max = p_.soc_max * p_.energy_capacity;
  const double initial_energy = p_.initial_soc * p_.energy_capacity;

  // Grid-side target: toward the demand plus the recovery power, at most r_max h per step.
  const double recovery = (initial_energy - energy_) / p_.recovery_time_constant;  // > 0: wants charge
  const double wanted = bus_demand + recovery;
  const double max_move = p_.ramp_rate_max * h;
  const double target = grid_target_ + std::clamp(wanted - grid_target_, -max_move, max_move);

  double bus = std::clamp(bus_demand - target, -p_.power_max, p_.power_max);
  // SoC window: stored power -bus / eta_d (discharge) or -bus eta_c (charge) must keep E inside.
  const double eta_c = p_.charge_efficiency;
  const double eta_d = p_.discharge_efficiency;
  auto stored_of = [&](double b) { return b >= 0.0 ? -b / eta_d : -b * eta_c; };
  double stored = stored_of(bus);
  const double room_up = (energy_max - energy_) / h;
  const double room_down = (energy_min - energy_) / h;
  if (stored > room_up) {
    stored = std::max(0.0, room_up);
    bus = -stored / eta_c;
  } else if (stored < room_down) {
    stored = std::min(0.0, room_down);
    bus = -stored * eta_d;
  }

  StorageFlow flow;
  flow.bus_power = bus;
  flow.loss = bus >= 0.0 ? bus / eta_d - bus : -bus * (1.0 - eta_c);
  flow.loss = std::max(0.0, flow.loss);
  flow.stored_power = -(flow.bus_power + flow.loss);

  energy_ += flow.stored_power * h;
  // The cut lands on the edge up to round-off; never report a value outside the window.
  energy_ = std::clamp(energy_, energy_min, energy_max);
  grid_target_ = bus_demand - bus;
  throughput_ += std::fabs(bus) * h;
  losses_ += flow.loss * h;
  energy_low_ = std::min(energy_low_, energy_);
  energy_high_ = std::max(energy_high_, energy_);
  return flow;
}

}  // namespace dctwin::models::electrical
