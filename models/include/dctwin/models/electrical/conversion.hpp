// Power conversion between the servers and the MV transformers of one lineup: server power
// supplies (PSUs) with their bulk capacitors, the rack busbar's battery backup units (BBUs), the
// power distribution units (PDUs), the UPS and the LV switchboard.
//
// Efficiency curves (PSU, UPS) are piecewise linear in the load fraction x = P_out / P_rated through
// the given points, and held at the first / last point's efficiency outside them:
//
//   eta(x) = eta_i + (eta_{i+1} - eta_i) (x - x_i) / (x_{i+1} - x_i)    for x_i <= x <= x_{i+1}
//
// so P_in = P_out / eta(x) and the loss is P_in - P_out (zero at zero load: the curves carry no
// no-load loss below their first point).
//
// Server PSU with hold-up (one lineup, all servers sharing its load equally, `active_supplies` of each
// server's supplies carrying it):
//
//   x = P_out / (n_servers n_active P_rated,supply)            load fraction of one active supply
//   dE/dt = eta P_in - P_out                                   bulk capacitors, E = n 1/2 C V^2
//   tau d(eta P_in)/dt = P_out - eta P_in - (E - E_nom) / T_r  PFC voltage loop
//
// where n = n_servers n_active and E_nom = n 1/2 C V_nom^2. The input power follows P_out / eta
// through a first-order lag tau; the bulk capacitors supply the difference; the loop's energy term
// (T_r = 4 tau, critical damping) brings the bulk voltage back to V_nom afterwards, as the PFC stage's
// voltage regulator does. With e = E - E_nom the loop is tau e'' + e' + e / T_r = -tau dP_out/dt, so
// a load step dP from steady state gives e(t) = -dP t e^{-t / (2 tau)}: the deepest sag, 2 tau dP / e
// (Euler's number), at t = 2 tau.
//
// Over one step of length h the output P_out is linear in time and eta is frozen (at the step's mean
// load fraction, or at a value the caller gives); the linear system in (e, eta P_in, integral of eta P_in, P_out, dP_out/dt) is
// integrated exactly (matrix exponential, cached per step length). With W_in = integral of P_in and
// W_out = integral of P_out over the step:
//
//   E_end = E_start + eta W_in - W_out,   loss = W_in - W_out - (E_end - E_start) = (1 - eta) W_in
//
// so W_in = W_out + loss + dE holds by construction: energy is conserved exactly (to round-off). The
// input power P_in is continuous across steps (eta P_in jumps with eta between steps). The bulk
// voltage V = sqrt(2 E / (n C)); the least voltage reached (checked at step ends) is the hold-up
// margin. A voltage below the window's minimum means the supply would have dropped out; it is
// reported, not acted on (the model does not shut servers down).
//
// BBUs float on the rack busbar: while the busbar is fed they draw a constant standby loss (charger
// and management electronics), plus their recharge after a discharge. When the busbar loses its feed
// (a utility sag or outage that the UPS does not carry) they take over after their transfer time and
// carry the PSUs' input from their usable energy (ride_through.hpp; docs/models/electrical-ride-through.md).
//
// PDU and switchboard: resistive, loss = P_0 + k P^2 with k = f_rated / P_rated so that the loss at
// rated power is P_0 + f_rated P_rated (P in W of the stage's output).
//
// UPS: double conversion or eco mode (eco passes the load through the static bypass with the inverter
// on standby, hence the higher efficiency); one efficiency curve per mode, in the lineup's rated power.
//
// Sources: 80 PLUS Titanium (230 V internal redundant) efficiency points: >= 90 % at 10 % load, 94 %
// at 20 %, 96 % at 50 %, 91 % at 100 % (80 PLUS programme, [80plus-titanium]). DGX H100: six 3.3 kW supplies,
// N+N redundant (NVIDIA DGX H100 user guide). Other defaults are estimates stated in the tables.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::electrical {

/// One point of an efficiency curve: efficiency at a load fraction.
struct EfficiencyPoint {
  double load_fraction = 0.0;  ///< x = P_out / P_rated [1]
  double efficiency = 1.0;     ///< eta = P_out / P_in [1]

  static core::ParameterTable table();
  static EfficiencyPoint from(const core::ParameterTree& section);
};

/// Checks a curve: at least 2 points, load fractions > 0 and strictly increasing, efficiencies in
/// (0, 1]. `list_path` is the curve's key path, for example "electrical.ups.double_conversion_efficiency";
/// errors name "<list_path>[i].<key>".
void check_efficiency_curve(const std::vector<EfficiencyPoint>& points, const std::string& list_path);

/// eta(x), piecewise linear through the points, held constant outside them.
[[nodiscard]] double interpolate_efficiency(const std::vector<EfficiencyPoint>& points, double load_fraction);
/// The same at n load fractions side by side: efficiency[i] = interpolate_efficiency(points,
/// load_fraction[i]), to the bit (the electrical feed converts its lineups' power at every step).
void interpolate_efficiencies(const std::vector<EfficiencyPoint>& points, std::size_t n, const double* load_fraction,
                              double* efficiency);

// ---- server PSUs -------------------------------------------------------------------------------

struct PsuParameters {
  int supplies = 6;                       ///< supplies per server
  double supply_rated_power = 3300.0;     ///< P_rated,supply [W] output of one supply
  int active_supplies = 3;                ///< supplies that carry the load (N of N+N)
  std::vector<EfficiencyPoint> efficiency = default_efficiency();  ///< eta(x), x per active supply
  double bulk_capacitance = 1.0e-3;       ///< C [F] per supply
  double bulk_voltage_nominal = 400.0;    ///< V_nom [V] PFC output (bulk) voltage in steady state
  double bulk_voltage_min = 300.0;        ///< V_min [V] below which the DC-DC stage drops out
  double pfc_time_constant = 0.01;        ///< tau [s] of the PFC voltage loop (input-power lag); T_r = 4 tau

  static std::vector<EfficiencyPoint> default_efficiency();
  static core::ParameterTable table();
  /// The parameters plus the list `efficiency` (empty: the default curve).
  static core::SectionSchema schema();
  /// Reads and checks; errors name "<section path>.<key>".
  static PsuParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
};

/// State of the PSUs of one lineup.
struct PsuState {
  double input_power = 0.0;  ///< P_in [W], lagged
  double bulk_energy = 0.0;  ///< E [J] in all active supplies' bulk capacitors
};

/// What the PSUs of one lineup did over one step.
struct PsuStep {
  double input_energy = 0.0;   ///< W_in [J]
  double output_energy = 0.0;  ///< W_out [J]
  double loss = 0.0;           ///< [J] = W_in - W_out - (E_end - E_start)
  double bulk_energy_change = 0.0;  ///< E_end - E_start [J]
};

/// The PSUs of one lineup of `servers` identical servers.
class PsuBank {
 public:
  /// Checks the parameters (section "electrical.psu").
  PsuBank(const PsuParameters& p, std::size_t servers);
  /// Steady state at output power P_out: P_in = P_out / eta, bulk at V_nom.
  [[nodiscard]] PsuState steady_state(double output_power) const;
  /// Load fraction of one active supply at lineup output P_out.
  [[nodiscard]] double load_fraction(double output_power) const;
  [[nodiscard]] double efficiency(double output_power) const;
  /// efficiency(output_power[l]) into eta[l] for n lineups side by side, to the bit.
  void efficiencies(std::size_t n, const double* output_power, double* eta) const;
  /// Advances `state` over h [s] with the output linear from p0 to p1 [W], eta at the step's mean output.
  PsuStep step(PsuState& state, double h, double output_start, double output_end) const;
  /// The same with eta given (the feed freezes it per grid step, so that splitting a step into
  /// pieces does not change the result).
  PsuStep step(PsuState& state, double h, double output_start, double output_end, double eta) const;
  /// step() with eta given for n lineups side by side: lineup l's state is (input_power[l],
  /// bulk_energy[l]), its output linear from output_start[l] to output_end[l] at efficiency eta[l],
  /// and its PsuStep goes into input_energy[l], output_energy[l], loss[l], bulk_energy_change[l].
  /// The same bits as step() on each lineup in turn.
  void step_each(std::size_t n, double h, const double* output_start, const double* output_end, const double* eta,
                 double* input_power, double* bulk_energy, double* input_energy, double* output_energy, double* loss,
                 double* bulk_energy_change) const;
  /// Bulk voltage of one supply at bulk energy E [V].
  [[nodiscard]] double bulk_voltage(double bulk_energy) const;
  [[nodiscard]] double bulk_energy_at(double voltage) const;
  [[nodiscard]] double nominal_bulk_energy() const { return bulk_energy_at(p_.bulk_voltage_nominal); }
  [[nodiscard]] const PsuParameters& parameters() const { return p_; }

 private:
  PsuParameters p_;
  double carrying_ = 0.0;  // n_servers n_active
  // Cached exact propagator over h of z = (e, eta P_in, integral eta P_in, P_out, dP_out/dt).
  mutable double cached_step_ = -1.0;
  mutable std::array<double, 25> propagator_{};
};

// ---- battery backup units -----------------------------------------------------------------------

struct BbuParameters {
  int units_per_rack = 2;           ///< BBU modules per rack
  double unit_rated_power = 15.0e3; ///< [W] discharge rating of one unit at the busbar
  double standby_loss = 30.0;       ///< [W] per unit, float charging and management electronics
  double unit_energy = 3.6e6;       ///< [J] usable energy of one unit (15 kW for 240 s)
  double discharge_efficiency = 0.97;  ///< [1] energy delivered to the busbar / energy taken from the cells
  double transfer_time = 0.004;     ///< [s] from the busbar's loss of feed to the BBU carrying it
  double recharge_power = 1.5e3;    ///< [W] per unit drawn from the busbar to recharge after a discharge

  static core::ParameterTable table();
  static BbuParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
  /// Standby loss of `racks` racks [W].
  [[nodiscard]] double loss(std::size_t racks) const;
  /// Usable energy of the units of `racks` racks [J].
  [[nodiscard]] double energy(std::size_t racks) const;
};

// ---- PDUs --------------------------------------------------------------------------------------

struct PduParameters {
  double rated_power = 5.0e6;          ///< P_rated [W] of all the PDUs of one lineup together
  double loss_fraction_at_rated = 0.01;///< f_rated [1] resistive loss at rated power, per rated power
  double no_load_loss = 0.0;           ///< P_0 [W] per lineup

  static core::ParameterTable table();
  static PduParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
  /// P_0 + k P^2 [W] at output power P.
  [[nodiscard]] double loss(double output_power) const {
    return no_load_loss + loss_fraction_at_rated * output_power * output_power / rated_power;
  }
};

// ---- UPS ---------------------------------------------------------------------------------------

struct UpsParameters {
  std::string mode = "double_conversion";  ///< "double_conversion" or "eco"
  double rated_power = 5.0e6;              ///< [W] output rating of one lineup's UPS
  double input_power_factor = 0.99;        ///< [1] at the UPS input (rectifier with PFC)
  std::vector<EfficiencyPoint> double_conversion_efficiency = default_double_conversion();
  std::vector<EfficiencyPoint> eco_efficiency = default_eco();
  double battery_autonomy = 300.0;   ///< [s] time the battery carries the rated output; 0 = no battery
  double battery_efficiency = 0.96;  ///< [1] output / energy taken from the battery (inverter, battery mode)
  double input_voltage_min = 0.85;   ///< [1] least input voltage (of nominal) the UPS runs from; below: battery
  double transfer_time = 0.004;      ///< [s] eco mode: input loss to inverter output (double conversion: none)
  double recharge_power = 0.25e6;    ///< [W] drawn at the input to recharge the battery after a discharge

  static std::vector<EfficiencyPoint> default_double_conversion();
  static std::vector<EfficiencyPoint> default_eco();
  static core::ParameterTable table();
  /// The parameters plus the lists `double_conversion_efficiency`, `eco_efficiency`.
  static core::SectionSchema schema();
  static UpsParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
  /// The curve of the selected mode.
  [[nodiscard]] const std::vector<EfficiencyPoint>& curve() const;
  /// Input power [W] for output P_out, P_out / eta(P_out / P_rated).
  [[nodiscard]] double input_power(double output_power) const;
  /// The same on `curve`, which must be curve() (for callers that convert at every step and look
  /// the mode's curve up once).
  [[nodiscard]] double input_power(double output_power, const std::vector<EfficiencyPoint>& curve) const;
  /// input_power(output_power[i], curve) into input_power[i] for n outputs side by side, to the bit.
  void input_powers(std::size_t n, const double* output_power, const std::vector<EfficiencyPoint>& curve,
                    double* input_power) const;
  /// Usable battery energy [J]: rated_power battery_autonomy / battery_efficiency, so that the battery
  /// carries the rated output for battery_autonomy.
  [[nodiscard]] double battery_energy() const { return rated_power * battery_autonomy / battery_efficiency; }
  /// Time between the input's loss and the inverter carrying the output [s]: transfer_time in eco
  /// mode, 0 in double conversion (the inverter already carries the load).
  [[nodiscard]] double transfer_delay() const { return mode == "eco" ? transfer_time : 0.0; }
};

// ---- LV switchboard ---------------------------------------------------------------------------

struct SwitchboardParameters {
  double rated_power = 5.0e6;              ///< [W] of one lineup's switchboard
  double loss_fraction_at_rated = 0.0025;  ///< [1] resistive loss at rated power, per rated power

  static core::ParameterTable table();
  static SwitchboardParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;
  /// k P^2 [W] at output power P.
  [[nodiscard]] double loss(double output_power) const {
    return loss_fraction_at_rated * output_power * output_power / rated_power;
  }
};

}  // namespace dctwin::models::electrical
