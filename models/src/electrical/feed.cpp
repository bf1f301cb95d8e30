#include "dctwin/models/electrical/feed.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/parameter_declarations.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::electrical {

namespace {

/// One /grid series: its spec and the member of GridSample it stores.
struct GridSeries {
  core::OutputSpec spec;
  double GridSample::*member;
};

const std::vector<GridSeries>& grid_series() {
  static const std::vector<GridSeries> series = {
      {{"grid", "power", "W", "power the facility draws from the utility at the point of connection", "", 1},
       &GridSample::grid_power},
      {{"grid", "frequency", "Hz", "grid frequency (aggregated swing equation of the balancing area)", "", 1},
       &GridSample::frequency},
      {{"grid", "voltage", "1", "MV bus voltage relative to nominal", "", 1}, &GridSample::voltage},
      {{"grid", "capacitor_energy", "J", "energy stored in the capacitor bank (0 without one)", "", 1},
       &GridSample::capacitor_energy},
      {{"grid", "battery_soc", "1", "battery state of charge (0 without one)", "", 1}, &GridSample::battery_soc},
      {{"grid", "transformer_hot_spot", "K", "hottest transformer winding hot spot", "", 1}, &GridSample::hot_spot},
      {{"grid", "ups_energy", "J", "energy in the UPS batteries of all lineups", "", 1}, &GridSample::ups_energy},
      {{"grid", "bbu_energy", "J", "energy in the rack battery backup units of all lineups", "", 1},
       &GridSample::bbu_energy},
      {{"grid", "it_power_lost", "W", "IT load not supplied (servers dropped in a utility disturbance)", "", 1},
       &GridSample::it_power_lost},
  };
  return series;
}

}  // namespace

const std::vector<core::OutputSpec>& grid_sample_outputs() {
  static const std::vector<core::OutputSpec> specs = [] {
    std::vector<core::OutputSpec> out;
    for (const auto& s : grid_series()) out.push_back(s.spec);
    return out;
  }();
  return specs;
}

const char* grid_sample_time_long_name() {
  return "time of the grid-connection samples (the electrical feed's output interval)";
}

void grid_sample_values(const GridSample& sample, std::span<double> values) {
  const auto& series = grid_series();
  DCTWIN_DEMAND(values.size() == series.size(), "grid sample values: one value per /grid series");
  for (std::size_t k = 0; k < series.size(); ++k) values[k] = sample.*(series[k].member);
}

namespace {

using core::ParameterTable;
using core::SectionSchema;

SectionSchema plain_section(std::string doc, ParameterTable table) {
  SectionSchema s;
  s.doc = std::move(doc);
  s.parameters = std::move(table);
  return s;
}

/// Reads sub-section `name` with `read`, or returns the defaults checked under "<path>.<name>".
template <class P, class Read>
P read_section(const core::ParameterTree& s, const std::string& path, const char* name, Read read) {
  if (s.has_section(name)) return read(s.section(name));
  P p;
  p.check(path + "." + name);
  return p;
}

/// Index of each loss stage in the accounts.
enum Stage : std::size_t {
  psu_stage,
  bbu_stage,
  pdu_stage,
  ups_stage,
  switchboard_stage,
  transformer_stage,
  mechanical_transformer_stage,
  capacitor_stage,
  battery_stage,
  feeder_stage,
  stage_count
};

constexpr std::array<const char*, stage_count> stage_names = {
    "psu",         "bbu",         "pdu", "ups", "switchboard", "transformer", "mechanical_transformer",
    "capacitor_storage", "battery_storage", "feeder"};

/// What each stage is, for the summary's long names.
const char* stage_long_name(std::string_view stage) {
  if (stage == "psu") return "server power supplies (conversion)";
  if (stage == "bbu") return "rack battery backup units (standby)";
  if (stage == "pdu") return "power distribution units";
  if (stage == "ups") return "UPS (conversion)";
  if (stage == "switchboard") return "LV switchboards";
  if (stage == "transformer") return "MV transformers of the IT lineups";
  if (stage == "mechanical_transformer") return "MV transformers of the cooling load";
  if (stage == "capacitor_storage") return "capacitor bank and its converter";
  if (stage == "battery_storage") return "battery storage and its converter";
  if (stage == "feeder") return "MV feeder";
  return "stage";
}

/// Each lineup's values in a piece of length h, side by side (one entry per lineup).
struct LineupPiece {
  std::vector<double> input_energy, output_energy, psu_loss, bulk_energy_change;  // PSUs [J]
  std::vector<double> pdu_output, pdu_loss, ups_output, ups_input, switchboard_loss;  // [W]
  std::vector<double> low_voltage, load_factor, transformer_loss, reactive;  // [W], [1], [W], [var]
  void resize(std::size_t n) {
    for (auto* v : {&input_energy, &output_energy, &psu_loss, &bulk_energy_change, &pdu_output, &pdu_loss,
                    &ups_output, &ups_input, &switchboard_loss, &low_voltage, &load_factor, &transformer_loss,
                    &reactive})
      v->assign(n, 0.0);
  }
};

/// From the PSUs' input energy over h to the UPS output, lineup by lineup side by side:
/// P_busbar = W_in / h, P_PDU,out = P_busbar + P_BBU, P_UPS,out = P_PDU,out + P_PDU,loss.
DCTWIN_VECTOR_VARIANTS void busbar_to_ups(std::size_t n, double h, double bbu_loss, const PduParameters& pdu,
                                          const double* __restrict input_energy, double* __restrict pdu_output,
                                          double* __restrict pdu_loss, double* __restrict ups_output) {
  for (std::size_t l = 0; l < n; ++l) {
    const double psu_input = input_energy[l] / h;
    pdu_output[l] = psu_input + bbu_loss;
    pdu_loss[l] = pdu.loss(pdu_output[l]);
    ups_output[l] = pdu_output[l] + pdu_loss[l];
  }
}

/// From the UPS input to the MV side, lineup by lineup side by side: P_LV = P_UPS,in +
/// P_switchboard, K = P_LV / (units S_rated pf), the bank's loss units P_loss(K) and its reactive
/// demand P_LV q + units Q_loss(K). `rating` = units S_rated pf.
DCTWIN_VECTOR_VARIANTS void ups_to_transformers(std::size_t n, const SwitchboardParameters& switchboard,
                                                const Transformer& transformer, double units, double rating,
                                                double reactive_ratio, const double* __restrict ups_input,
                                                double* __restrict switchboard_loss, double* __restrict low_voltage,
                                                double* __restrict load_factor, double* __restrict transformer_loss,
                                                double* __restrict reactive) {
  for (std::size_t l = 0; l < n; ++l) {
    switchboard_loss[l] = switchboard.loss(ups_input[l]);
    low_voltage[l] = ups_input[l] + switchboard_loss[l];
    load_factor[l] = low_voltage[l] / rating;
    transformer_loss[l] = units * transformer.loss(load_factor[l]);
    reactive[l] = low_voltage[l] * reactive_ratio + units * transformer.reactive_loss(load_factor[l]);
  }
}

/// The smallest fixed step [s]. The feed is a phasor (RMS) model of the electromechanical time
/// scale; 0.1 ms already gives 250 steps per period of its fastest mode (40 Hz), and a smaller step
/// would only multiply the work between two knots (at 1e-14 s a run would never end).
constexpr double minimum_time_step = 1e-4;

/// The declarations of the `electrical:` section's own values (below, with the parameters).
const ParameterDeclarations<ElectricalParameters>& declarations();

/// The values of the `electrical:` section itself and their combinations.
void check_top_level(const ElectricalParameters& p, const std::string& section) {
  const ParameterCheck check(section);
  declarations().check(p, section);
  const double ratio = p.output_interval / p.time_step;
  if (std::round(ratio) < 1.0 || std::fabs(ratio - std::round(ratio)) > 1e-9 * ratio)
    check.fail("output_interval " + format_number(p.output_interval) + " s is not a whole multiple of time_step " +
               format_number(p.time_step) + " s");
  if (p.spectrum_interval < p.time_step)
    check.fail("spectrum_interval " + format_number(p.spectrum_interval) + " s is shorter than time_step " +
               format_number(p.time_step) + " s");
}

/// The utility events: each one's values, their order, and what the feed cannot model with them.
void check_ride_through(const ElectricalParameters& p, const std::string& section) {
  check_utility_events(p.utility_events, section + ".utility_events");
  for (std::size_t i = 0; i < p.utility_events.size(); ++i)
    if (p.utility_events[i].outage() && (p.capacitor_storage.enabled || p.battery_storage.enabled))
      throw core::InputError(section + ".utility_events[" + std::to_string(i) +
                                   "]: an outage with storage at the MV bus (capacitor_storage or battery_storage "
                                   "enabled) is not modelled: the storage would have to form the islanded bus",
                               section + ".utility_events[" + std::to_string(i) + "].kind");
}

/// The parameters after their checks (sections under "electrical").
const ElectricalParameters& checked(const ElectricalParameters& p) {
  p.check("electrical");
  return p;
}

/// tan(acos(pf)): reactive per active power.
double reactive_ratio(double power_factor) {
  return std::sqrt(std::max(0.0, 1.0 - power_factor * power_factor)) / power_factor;
}

}  // namespace

// ---- parameters ---------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<ElectricalParameters>& declarations() {
  static const ParameterDeclarations<ElectricalParameters> declared = [] {
    ParameterDeclarations<ElectricalParameters> d;
    using P = ElectricalParameters;
    d.boolean("enabled", &P::enabled, "Simulate the electrical feed",
              "On: the grid metrics are part of every run");
    d.real("time_step", &P::time_step, "s", "dt: fixed step of the electrical feed",
           "Electromechanical (RMS) time scale: 1 ms resolves the 7-40 Hz torsional band ([choukse-arxiv-2025]; "
           "DESIGN.md); at least 0.1 ms (250 steps per 40 Hz period), below which a phasor model adds only work")
        .at_least(minimum_time_step)
        .at_most(0.01)
        .shown_in("ms");
    d.real("output_interval", &P::output_interval, "s", "Time between stored samples, a whole multiple of time_step",
           "Every step")
        .above(0.0)
        .shown_in("ms");
    d.real("spectrum_interval", &P::spectrum_interval, "s",
           "Block length of the grid power series the spectrum is taken of",
           "5 ms: a moving average that keeps 94 % of the amplitude at 40 Hz (grid_metrics.hpp)")
        .above(0.0)
        .shown_in("ms");
    d.real("mechanical_power_factor", &P::mechanical_power_factor, "1",
           "Power factor of the mechanical (cooling) load",
           "Estimate (uncertain): variable-speed drives with diode front ends, displacement power factor ~0.95")
        .above(0.0)
        .at_most(1.0);
    d.integer("mechanical_transformer_units", &P::mechanical_transformer_units,
              "Transformers (same type as the lineups') feeding the mechanical load; 0 = enough to carry the initial "
              "mechanical load at 80 %",
              "0: sized from the initial load")
        .at_least(0.0);
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable ElectricalParameters::table() { return declarations().table(); }

SectionSchema ElectricalParameters::schema() {
  SectionSchema s;
  s.doc = "Electrical feed from the server power supplies to the utility (RMS time scale, fixed step)";
  s.parameters = table();
  s.sections["psu"] = PsuParameters::schema();
  s.sections["bbu"] = plain_section("Rack battery backup units (standby loss only)", BbuParameters::table());
  s.sections["pdu"] = plain_section("Power distribution units of a lineup", PduParameters::table());
  s.sections["ups"] = UpsParameters::schema();
  s.sections["switchboard"] = plain_section("LV switchboard of a lineup", SwitchboardParameters::table());
  s.sections["transformer"] =
      plain_section("MV/LV transformers: losses, impedance, IEEE C57.91 thermal model", TransformerParameters::table());
  s.sections["feeder"] = plain_section("MV feeder and the bus's capacitor bank", FeederParameters::table());
  s.sections["utility"] =
      plain_section("Utility: Thevenin source, frequency response, torsional mode", UtilityParameters::table());
  s.sections["capacitor_storage"] =
      plain_section("Supercapacitor bank at the MV bus", CapacitorStorageParameters::table());
  s.sections["battery_storage"] = plain_section("Battery at the MV bus with ramp control", BatteryStorageParameters::table());
  s.sections["limits"] = plain_section("Limits at the grid connection (0 = not checked)", GridLimits::table());
  s.lists["utility_events"] = plain_section(
      "A utility disturbance: a voltage sag (depth, duration) or an outage (duration), ridden through by the UPS "
      "batteries, the rack BBUs and the PSUs' hold-up (docs/models/electrical-ride-through.md)",
      UtilityEvent::table());
  return s;
}

ElectricalParameters ElectricalParameters::from(const core::ParameterTree& s) {
  const std::string path = section_path(s, "electrical");
  ElectricalParameters p = declarations().read(s);
  p.psu = read_section<PsuParameters>(s, path, "psu", PsuParameters::from);
  p.bbu = read_section<BbuParameters>(s, path, "bbu", BbuParameters::from);
  p.pdu = read_section<PduParameters>(s, path, "pdu", PduParameters::from);
  p.ups = read_section<UpsParameters>(s, path, "ups", UpsParameters::from);
  p.switchboard = read_section<SwitchboardParameters>(s, path, "switchboard", SwitchboardParameters::from);
  p.transformer = read_section<TransformerParameters>(s, path, "transformer", TransformerParameters::from);
  p.feeder = read_section<FeederParameters>(s, path, "feeder", FeederParameters::from);
  p.utility = read_section<UtilityParameters>(s, path, "utility", UtilityParameters::from);
  p.capacitor_storage =
      read_section<CapacitorStorageParameters>(s, path, "capacitor_storage", CapacitorStorageParameters::from);
  p.battery_storage = read_section<BatteryStorageParameters>(s, path, "battery_storage", BatteryStorageParameters::from);
  p.limits = read_section<GridLimits>(s, path, "limits", GridLimits::from);
  if (const auto events = s.lists.find("utility_events"); events != s.lists.end())
    for (const auto& entry : events->second) p.utility_events.push_back(UtilityEvent::from(entry));
  // The sub-sections were checked as they were read; the top-level values and their combinations here.
  check_top_level(p, path);
  check_ride_through(p, path);
  return p;
}

void ElectricalParameters::check(const std::string& section) const {
  psu.check(section + ".psu");
  bbu.check(section + ".bbu");
  pdu.check(section + ".pdu");
  ups.check(section + ".ups");
  switchboard.check(section + ".switchboard");
  transformer.check(section + ".transformer");
  feeder.check(section + ".feeder");
  utility.check(section + ".utility");
  capacitor_storage.check(section + ".capacitor_storage");
  battery_storage.check(section + ".battery_storage");
  limits.check(section + ".limits");
  check_top_level(*this, section);
  check_ride_through(*this, section);
}

// ---- the feed -----------------------------------------------------------------------------------

struct ElectricalFeed::Impl {
  ElectricalParameters p;
  std::size_t lineups;
  double ambient;
  double t0, dt;
  std::size_t steps_per_output;
  PsuBank psu;
  Transformer transformer;
  TransformerDecay full_step_decay;  // the transformers' decay over a whole grid step (dt)
  double mechanical_units = 1.0;
  double lineup_reactive_ratio, mechanical_reactive_ratio;
  const std::vector<EfficiencyPoint>& ups_curve;  // the UPS mode's curve, looked up once
  double bbu_loss;                                // W per lineup, constant (standby)
  std::vector<double> psu_input_power, psu_bulk_energy;  // each lineup's PsuState, side by side
  LineupPiece lineup;                                    // scratch of piece()
  std::vector<TransformerThermalState> thermal;
  TransformerThermalState mechanical_thermal;
  std::optional<CapacitorStorage> capacitor;
  std::optional<BatteryStorage> battery;
  Feeder feeder;
  UtilityGrid utility;
  GridRecorder recorder;
  double grid_power_initial = 0.0;
  // Decided at each grid point for the whole next grid step (sampled controllers).
  std::vector<double> step_efficiency;  // PSU eta per lineup
  StorageFlow capacitor_flow, battery_flow;
  double previous_step_demand = 0.0;    // W, mean MV bus demand over the last completed grid step
  double step_demand_energy = 0.0;      // J of bus demand so far inside the current grid step

  std::size_t steps = 0;      // completed grid steps
  double into_step = 0.0;     // time already taken inside the current grid step
  double step_grid_energy = 0.0;  // J drawn so far inside the current grid step
  double last_grid_power = 0.0;   // W, mean of the last completed grid step

  double grid = 0.0, load = 0.0, storage_change = 0.0;
  double server_input = 0.0, server_output = 0.0, mechanical_load = 0.0;  // [J], see FeedEnergy
  std::array<double, stage_count> losses{};
  // The least PSU bulk energy of any lineup after a piece; the least bulk voltage is the nominal
  // one or the voltage at that energy, whichever is lower (the voltage rises with the energy).
  double bulk_energy_min = std::numeric_limits<double>::infinity();
  std::vector<GridSample> samples;

  // Scratch loads of the current piece's ends.
  FeedLoad piece_start, piece_end;

  // The transformers' thermal models are stepped after each advance(), all units side by side:
  // nothing else in a piece reads them (their losses depend on the load factor only), so a piece
  // records each unit's load factor and the hot spots due at grid points are filled in
  // afterwards, each unit stepping through the same pieces in the same order as before.
  struct PendingPiece {
    double h, ambient;
  };
  struct PendingGridPoint {
    std::size_t pieces;    // pieces taken before the grid point
    double ambient;        // K, at the grid point
    std::ptrdiff_t sample; // index into `samples` of the sample taken there, or -1
  };
  std::vector<PendingPiece> pending_pieces;
  std::vector<double> pending_load_factors;  // (lineups + 1) per piece: the lineups', then the mechanical
  std::vector<PendingGridPoint> pending_points;
  TransformerThermalStates unit_states;      // the units' states while they step, scratch

  // ---- ride-through of utility events (ride_through.hpp) ----
  /// What carries a lineup's servers over a cut piece.
  enum class Source { grid, ups_battery, bbu, holdup, dropped };
  /// Why a lineup's source changes at the end of its cut.
  enum class Change { none, gap_over, ups_empty, bbu_empty, drop };
  struct Backup {
    double ups_energy = 0.0, bbu_energy = 0.0;  // J stored
    double ups_gap = 0.0, bbu_gap = 0.0;        // s left of the UPS's and the BBUs' transfer times
    bool input_lost = false;    // the UPS input is outside its tolerance (or the utility is lost)
    bool busbar_fed = true;     // the busbar is fed from upstream (utility or UPS battery)
    bool bbu_tripped = false;   // the BBUs were asked for more than their rating
    bool ups_exhausted = false, bbu_exhausted = false;  // ran out during this disturbance
    bool dropped = false;       // the servers dropped out: IT load lost until the utility returns
  };
  bool ride_through = false;  // utility events configured: pieces go through cut_piece()
  std::vector<Backup> backup;
  std::vector<Source> source;       // per lineup over the current cut
  std::vector<double> change_after; // s into the current cut at which each lineup's source changes
  std::vector<Change> change;       // and why
  double ups_capacity = 0.0, bbu_capacity = 0.0;  // J per lineup
  double bbu_rating = 0.0, bbu_recharge_power = 0.0;  // W per lineup at the busbar
  double residual_voltage = 1.0;  // utility voltage over the current cut, per nominal
  bool outage = false;            // the MV bus is disconnected over the current cut
  bool feeder_disconnected = false;
  double it_lost = 0.0, mechanical_lost = 0.0;              // J not supplied
  double holdup_energy = 0.0, bbu_drawn = 0.0, ups_drawn = 0.0;  // J from the stores
  double step_it_lost = 0.0;       // J of IT load lost so far inside the current grid step
  double last_it_lost_power = 0.0; // W, mean of the last completed grid step
  double disturbance_time = 0.0, disturbance_first = -1.0;
  double load_lost_time = 0.0, load_lost_first = -1.0;
  double ups_exhausted_first = -1.0, bbu_exhausted_first = -1.0;
  std::size_t lineup_drops = 0;
  FeedLoad cut_start, cut_end;  // scratch loads at a cut's ends

  Impl(const ElectricalParameters& params, std::size_t lineup_count, std::size_t servers_per_lineup,
       std::size_t racks_per_lineup, double ambient_temperature, double start, const FeedLoad& initial)
      : p(checked(params)),
        lineups(lineup_count),
        ambient(ambient_temperature),
        t0(start),
        dt(params.time_step),
        steps_per_output(static_cast<std::size_t>(std::llround(params.output_interval / params.time_step))),
        psu(params.psu, servers_per_lineup),
        transformer(params.transformer),
        full_step_decay(transformer.decay(params.time_step)),
        lineup_reactive_ratio(reactive_ratio(params.ups.input_power_factor)),
        mechanical_reactive_ratio(reactive_ratio(params.mechanical_power_factor)),
        ups_curve(p.ups.curve()),
        bbu_loss(p.bbu.loss(racks_per_lineup)),
        feeder(params.feeder, params.utility, params.time_step),
        utility(params.utility, params.time_step),
        recorder(params.time_step, params.spectrum_interval, params.limits.ramp_window) {
    DCTWIN_DEMAND(lineups > 0, "electrical feed: at least one lineup");
    DCTWIN_DEMAND(std::isfinite(ambient) && ambient > 0.0, "electrical feed: ambient must be a temperature in K");
    DCTWIN_DEMAND(std::isfinite(t0), "electrical feed: start time must be finite");
    check_load(initial, t0);
    const auto& tp = p.transformer;
    if (p.mechanical_transformer_units > 0) {
      mechanical_units = p.mechanical_transformer_units;
    } else {
      const double per_unit = 0.8 * tp.rated_power * p.mechanical_power_factor;
      mechanical_units = std::max(1.0, std::ceil(initial.mechanical / per_unit));
    }
    // Steady state of the initial load, stage by stage.
    psu_input_power.resize(lineups);
    psu_bulk_energy.resize(lineups);
    lineup.resize(lineups);
    thermal.resize(lineups);
    double demand = 0.0, reactive = 0.0;
    for (std::size_t l = 0; l < lineups; ++l) {
      const PsuState steady = psu.steady_state(initial.it[l]);
      psu_input_power[l] = steady.input_power;
      psu_bulk_energy[l] = steady.bulk_energy;
      const auto [transformer_input, transformer_reactive, load_factor] = lineup_upstream(steady.input_power);
      demand += transformer_input;
      reactive += transformer_reactive;
      thermal[l] = tp.start_at_steady_state ? transformer.steady_state(load_factor) : TransformerThermalState{};
    }
    const auto [mechanical_input, mechanical_reactive, mechanical_factor] = mechanical_upstream(initial.mechanical);
    demand += mechanical_input;
    reactive += mechanical_reactive;
    mechanical_thermal =
        tp.start_at_steady_state ? transformer.steady_state(mechanical_factor) : TransformerThermalState{};
    if (p.capacitor_storage.enabled) capacitor.emplace(p.capacitor_storage, demand);
    if (p.battery_storage.enabled) battery.emplace(p.battery_storage, demand);
    previous_step_demand = demand;
    step_efficiency.resize(lineups);
    feeder.settle({demand, reactive});
    grid_power_initial = demand + feeder.loss();
    last_grid_power = grid_power_initial;
    piece_start.it.resize(lineups);
    piece_end.it.resize(lineups);
    // The stores start full.
    ups_capacity = p.ups.battery_autonomy > 0.0 ? p.ups.battery_energy() : 0.0;
    bbu_capacity = p.bbu.energy(racks_per_lineup);
    const double bbu_units = static_cast<double>(racks_per_lineup) * static_cast<double>(p.bbu.units_per_rack);
    bbu_rating = bbu_units * p.bbu.unit_rated_power;
    bbu_recharge_power = bbu_units * p.bbu.recharge_power;
    Backup full;
    full.ups_energy = ups_capacity;
    full.bbu_energy = bbu_capacity;
    backup.assign(lineups, full);
    ride_through = !p.utility_events.empty();
    source.assign(lineups, Source::grid);
    change_after.assign(lineups, 0.0);
    change.assign(lineups, Change::none);
    cut_start.it.resize(lineups);
    cut_end.it.resize(lineups);
    push_sample(t0);
    // The metrics cover the same record as the report's series: the state at t0, then every step.
    recorder.add(last_grid_power, utility.frequency(), bus_voltage());
  }

  void check_load(const FeedLoad& load_now, double t) const {
    DCTWIN_DEMAND(load_now.it.size() == lineups, "electrical feed: one IT load per lineup");
    for (std::size_t l = 0; l < lineups; ++l)
      if (!std::isfinite(load_now.it[l]) || load_now.it[l] < 0.0)
        throw core::InputError("electrical feed: IT load of lineup " + std::to_string(l) + " at t = " +
                                 format_number(t) + " s is " + format_number(load_now.it[l]) +
                                 " W (must be a finite number >= 0)");
    if (!std::isfinite(load_now.mechanical) || load_now.mechanical < 0.0)
      throw core::InputError("electrical feed: mechanical load at t = " + format_number(t) + " s is " +
                               format_number(load_now.mechanical) + " W (must be a finite number >= 0)");
  }

  struct Upstream {
    double input;     // W at the transformer bank's MV side
    double reactive;  // var
    double load_factor;
  };

  /// Busbar (PSU input) power to the MV side, static stages at that power (no accounting).
  Upstream lineup_upstream(double psu_input) const {
    const double pdu_output = psu_input + bbu_loss;
    const double ups_output = pdu_output + p.pdu.loss(pdu_output);
    const double ups_input = p.ups.input_power(ups_output, ups_curve);
    const double lv = ups_input + p.switchboard.loss(ups_input);
    const double units = p.transformer.units_per_lineup;
    const double k = lv / (units * p.transformer.rated_power * p.ups.input_power_factor);
    return {lv + units * transformer.loss(k), lv * lineup_reactive_ratio + units * transformer.reactive_loss(k), k};
  }

  Upstream mechanical_upstream(double mechanical) const {
    const double k = mechanical / (mechanical_units * p.transformer.rated_power * p.mechanical_power_factor);
    return {mechanical + mechanical_units * transformer.loss(k),
            mechanical * mechanical_reactive_ratio + mechanical_units * transformer.reactive_loss(k), k};
  }

  [[nodiscard]] double time() const { return t0 + static_cast<double>(steps) * dt + into_step; }

  [[nodiscard]] double hot_spot() const {
    double hottest = transformer.hot_spot(mechanical_thermal, ambient);
    for (const auto& s : thermal) hottest = std::max(hottest, transformer.hot_spot(s, ambient));
    return hottest;
  }

  /// Samples at time t; the hot spot is filled in by step_transformers() when pieces are pending.
  void push_sample(double t) {
    GridSample s;
    s.time = t;
    s.grid_power = last_grid_power;
    s.frequency = utility.frequency();
    s.voltage = bus_voltage();
    s.capacitor_energy = capacitor ? capacitor->energy() : 0.0;
    s.battery_soc = battery ? battery->state_of_charge() : 0.0;
    for (const Backup& k : backup) {
      s.ups_energy += k.ups_energy;
      s.bbu_energy += k.bbu_energy;
    }
    s.it_power_lost = last_it_lost_power;
    s.hot_spot = pending_pieces.empty() ? hot_spot() : std::numeric_limits<double>::quiet_NaN();
    samples.push_back(s);
  }

  /// At a grid point, before the first piece of the grid step: the decisions held over the step.
  /// The PSUs' efficiency is taken at the output power at the grid point; the storage converters
  /// act as sampled controllers that set their bus power for the whole step from the mean bus demand
  /// of the step just completed (one step of delay, as a digital controller running at 1/dt has).
  /// Their flow over the step is applied to their state now; the accounts take it piece by piece.
  void begin_step(const FeedLoad& a) {
    psu.efficiencies(lineups, a.it.data(), step_efficiency.data());
    if (capacitor) capacitor_flow = capacitor->step(dt, previous_step_demand);
    if (battery) battery_flow = battery->step(dt, previous_step_demand - capacitor_flow.bus_power);
  }

  /// One step or partial step of length h with the loads linear from `a` to `b`.
  /// The MV bus voltage per nominal: the feeder's, times the utility's residual voltage during a
  /// sag, 0 during an outage.
  [[nodiscard]] double bus_voltage() const {
    if (outage) return 0.0;
    return residual_voltage == 1.0 ? feeder.voltage_relative() : residual_voltage * feeder.voltage_relative();
  }

  void piece(double h, const FeedLoad& a, const FeedLoad& b) {
    if (into_step == 0.0) begin_step(a);
    if (ride_through) {
      cut_piece(h, a, b);
      return;
    }
    // The lineups' conversion chains side by side, then their sums in lineup order.
    const std::size_t n = lineups;
    LineupPiece& q = lineup;
    psu.step_each(n, h, a.it.data(), b.it.data(), step_efficiency.data(), psu_input_power.data(),
                  psu_bulk_energy.data(), q.input_energy.data(), q.output_energy.data(), q.psu_loss.data(),
                  q.bulk_energy_change.data());
    busbar_to_ups(n, h, bbu_loss, p.pdu, q.input_energy.data(), q.pdu_output.data(), q.pdu_loss.data(),
                  q.ups_output.data());
    p.ups.input_powers(n, q.ups_output.data(), ups_curve, q.ups_input.data());
    const double units = p.transformer.units_per_lineup;
    ups_to_transformers(n, p.switchboard, transformer, units,
                        units * p.transformer.rated_power * p.ups.input_power_factor, lineup_reactive_ratio,
                        q.ups_input.data(), q.switchboard_loss.data(), q.low_voltage.data(), q.load_factor.data(),
                        q.transformer_loss.data(), q.reactive.data());
    double demand = 0.0, reactive = 0.0;
    for (std::size_t l = 0; l < n; ++l) {
      bulk_energy_min = std::min(bulk_energy_min, psu_bulk_energy[l]);
      pending_load_factors.push_back(q.load_factor[l]);
      demand += q.low_voltage[l] + q.transformer_loss[l];
      reactive += q.reactive[l];
      load += q.output_energy[l];
      server_input += q.input_energy[l];
      server_output += q.output_energy[l];
      storage_change += q.bulk_energy_change[l];
      losses[psu_stage] += q.psu_loss[l];
      losses[bbu_stage] += bbu_loss * h;
      losses[pdu_stage] += q.pdu_loss[l] * h;
      losses[ups_stage] += (q.ups_input[l] - q.ups_output[l]) * h;
      losses[switchboard_stage] += q.switchboard_loss[l] * h;
      losses[transformer_stage] += q.transformer_loss[l] * h;
    }
    const double mechanical = 0.5 * (a.mechanical + b.mechanical);
    const Upstream m = mechanical_upstream(mechanical);
    pending_load_factors.push_back(m.load_factor);
    pending_pieces.push_back({h, ambient});
    demand += m.input;
    reactive += m.reactive;
    load += mechanical * h;
    mechanical_load += mechanical * h;
    losses[mechanical_transformer_stage] += (m.input - mechanical) * h;

    step_demand_energy += demand * h;
    double net = demand;
    for (const StorageFlow* flow : {&capacitor_flow, &battery_flow}) {
      net -= flow->bus_power;
      storage_change += flow->stored_power * h;
    }
    losses[capacitor_stage] += capacitor_flow.loss * h;
    losses[battery_stage] += battery_flow.loss * h;
    const double feeder_loss = feeder.step_power(h, {net, reactive});
    losses[feeder_stage] += feeder_loss * h;
    const double grid_power = net + feeder_loss;
    grid += grid_power * h;
    step_grid_energy += grid_power * h;
    utility.step(h, grid_power - grid_power_initial);
  }

  // ---- ride-through --------------------------------------------------------------------------

  [[nodiscard]] double tolerance() const { return 1e-9 * dt; }

  /// The event in force over a cut starting at t, if any (events are in time order, apart).
  [[nodiscard]] const UtilityEvent* event_at(double t) const {
    for (const auto& e : p.utility_events)
      if (e.time <= t + tolerance() && t + tolerance() < e.end()) return &e;
    return nullptr;
  }

  /// The first event edge (start or end) after t, or infinity.
  [[nodiscard]] double next_edge(double t) const {
    for (const auto& e : p.utility_events) {
      if (e.time > t + tolerance()) return e.time;
      if (e.end() > t + tolerance()) return e.end();
    }
    return std::numeric_limits<double>::infinity();
  }

  [[nodiscard]] bool ups_available(const Backup& k) const {
    return ups_capacity > 0.0 && !k.ups_exhausted && k.ups_energy > 1e-9 * ups_capacity;
  }
  [[nodiscard]] bool bbu_available(const Backup& k) const {
    return bbu_capacity > 0.0 && !k.bbu_exhausted && !k.bbu_tripped && k.bbu_energy > 1e-9 * bbu_capacity;
  }

  /// Each lineup's source over the cut that starts now (the utility's state already set): the
  /// utility while the UPS input is within its tolerance; else the UPS battery once the UPS has
  /// transferred; else the BBUs once their transfer time has passed; else the PSUs' hold-up; and
  /// nothing once the servers have dropped.
  void choose_sources() {
    const bool lost = outage || residual_voltage < p.ups.input_voltage_min;
    for (std::size_t l = 0; l < lineups; ++l) {
      Backup& k = backup[l];
      if (lost && !k.input_lost) k.ups_gap = p.ups.transfer_delay();
      if (!lost && k.input_lost) {
        // The utility is back: the servers restart and the stores recharge.
        k.dropped = k.bbu_tripped = k.ups_exhausted = k.bbu_exhausted = false;
      }
      k.input_lost = lost;
      Source src = Source::grid;
      if (lost) {
        if (k.dropped) {
          src = Source::dropped;
        } else if (ups_available(k) && k.ups_gap <= 0.0) {
          src = Source::ups_battery;
        } else {
          if (k.busbar_fed) k.bbu_gap = p.bbu.transfer_time;  // the busbar has just lost its feed
          src = Source::holdup;
          if (bbu_available(k) && k.bbu_gap <= 0.0) {
            // The BBUs trip when the busbar asks for more than their rating.
            if (psu_input_power[l] > bbu_rating) k.bbu_tripped = true;
            else src = Source::bbu;
          }
        }
      }
      k.busbar_fed = src == Source::grid || src == Source::ups_battery;
      source[l] = src;
    }
  }

  /// Energy [J] lineup l's battery (UPS or BBU, as its source says) gives over the first s of a
  /// cut of length `length` with the IT load linear from pa to pb, from the present state.
  [[nodiscard]] double store_draw(std::size_t l, double s, double length, double pa, double pb) const {
    PsuState state{psu_input_power[l], psu_bulk_energy[l]};
    const double end = pa + (pb - pa) * (s / length);
    const PsuStep r = psu.step(state, s, pa, end, step_efficiency[l]);
    if (source[l] == Source::bbu) return r.input_energy / p.bbu.discharge_efficiency;
    const double pdu_output = r.input_energy / s + bbu_loss;
    const double ups_output = pdu_output + p.pdu.loss(pdu_output);
    return ups_output * s / p.ups.battery_efficiency;
  }

  /// When within a cut of length `length` the battery that carries lineup l holds `energy` no
  /// more: the s with store_draw(s) = energy (fixed-point iteration on the mean power, exact in one
  /// pass for a constant draw), or infinity.
  [[nodiscard]] double exhaustion(std::size_t l, double energy, double length, double pa, double pb) const {
    const double whole = store_draw(l, length, length, pa, pb);
    if (whole <= energy) return std::numeric_limits<double>::infinity();
    double s = length * energy / whole;
    for (int i = 0; i < 60 && s > 0.0; ++i) {
      const double drawn = store_draw(l, s, length, pa, pb);
      const double next = std::min(length, s * energy / drawn);
      if (std::fabs(next - s) <= 1e-15 * s) break;
      s = next;
    }
    return s;
  }

  /// How long the PSUs' bulk capacitors of lineup l carry an output linear from pa to pb (over a
  /// cut of length `length`) before they reach psu.bulk_voltage_min:
  /// W_out(s) = pa s + (pb - pa) s^2 / (2 length) = E - E_min, or infinity.
  [[nodiscard]] double holdup_left(std::size_t l, double length, double pa, double pb) const {
    const double usable = psu_bulk_energy[l] - psu.bulk_energy_at(p.psu.bulk_voltage_min);
    if (usable <= 0.0) return 0.0;
    if (0.5 * (pa + pb) * length <= usable) return std::numeric_limits<double>::infinity();
    const double k = 0.5 * (pb - pa) / length;
    // k s^2 + pa s - usable = 0; the root in (0, length], in the form without cancellation.
    return 2.0 * usable / (pa + std::sqrt(std::max(0.0, pa * pa + 4.0 * k * usable)));
  }

  /// The cut's length: at most `length`, ending where the first lineup's source changes.
  double plan_cut(double length, const FeedLoad& a, const FeedLoad& b) {
    double shortest = length;
    for (std::size_t l = 0; l < lineups; ++l) {
      const Backup& k = backup[l];
      double at = std::numeric_limits<double>::infinity();
      Change why = Change::none;
      auto consider = [&](double s, Change c) {
        if (s < at) {
          at = s;
          why = c;
        }
      };
      switch (source[l]) {
        case Source::holdup:
          if (ups_available(k) && k.ups_gap > 0.0) consider(k.ups_gap, Change::gap_over);
          if (bbu_available(k) && k.bbu_gap > 0.0) consider(k.bbu_gap, Change::gap_over);
          consider(holdup_left(l, length, a.it[l], b.it[l]), Change::drop);
          break;
        case Source::ups_battery:
          consider(exhaustion(l, k.ups_energy, length, a.it[l], b.it[l]), Change::ups_empty);
          break;
        case Source::bbu:
          consider(exhaustion(l, k.bbu_energy, length, a.it[l], b.it[l]), Change::bbu_empty);
          break;
        default:
          break;
      }
      change_after[l] = at;
      change[l] = why;
      shortest = std::min(shortest, at);
    }
    return shortest;
  }

  /// A piece with utility events: cut at every event edge and at every change of a lineup's source.
  void cut_piece(double h, const FeedLoad& a, const FeedLoad& b) {
    const double start = time();
    double done = 0.0;
    interpolate(cut_start, a, b, 0.0);
    for (int guard = 0; done < h; ++guard) {
      DCTWIN_DEMAND(guard < 10000, "electrical feed: a piece was cut more than 10000 times");
      const double t = start + done;
      const UtilityEvent* event = event_at(t);
      residual_voltage = event != nullptr ? event->residual_voltage() : 1.0;
      outage = event != nullptr && event->outage();
      choose_sources();
      double length = std::min(h - done, std::max(0.0, next_edge(t) - t));
      interpolate(cut_end, a, b, (done + length) / h);
      const double planned = plan_cut(length, cut_start, cut_end);
      if (planned < length) {
        length = planned;
        interpolate(cut_end, a, b, (done + length) / h);
      }
      if (h - done - length <= tolerance()) {  // no sliver left behind
        length = h - done;
        interpolate(cut_end, a, b, 1.0);
      }
      if (length > 0.0) cut(length, cut_start, cut_end);
      after_cut(t, length, event != nullptr);
      done += length;
      std::swap(cut_start, cut_end);
    }
  }

  /// The transfer times run on; the lineups whose cut ended at their change take it.
  void after_cut(double t, double length, bool disturbed) {
    bool any_down = false;
    for (std::size_t l = 0; l < lineups; ++l) {
      Backup& k = backup[l];
      if (k.input_lost) k.ups_gap = std::max(0.0, k.ups_gap - length);
      if (source[l] == Source::holdup) k.bbu_gap = std::max(0.0, k.bbu_gap - length);
      if (source[l] == Source::dropped) any_down = true;
      if (change[l] == Change::none || change_after[l] > length) continue;
      const double when = t + change_after[l];
      if (change[l] == Change::ups_empty) {
        k.ups_exhausted = true;
        if (ups_exhausted_first < 0.0) ups_exhausted_first = when;
      } else if (change[l] == Change::bbu_empty) {
        k.bbu_exhausted = true;
        if (bbu_exhausted_first < 0.0) bbu_exhausted_first = when;
      } else if (change[l] == Change::drop) {
        k.dropped = true;
        ++lineup_drops;
        if (load_lost_first < 0.0) load_lost_first = when;
      }
      change[l] = Change::none;
    }
    if (disturbed) {
      if (disturbance_first < 0.0) disturbance_first = t;
      disturbance_time += length;
    }
    if (any_down) load_lost_time += length;
  }

  /// One cut of length h with each lineup's source fixed and the loads linear from a to b: the
  /// conversion chain lineup by lineup, the stores' flows, then the MV side as in piece().
  void cut(double h, const FeedLoad& a, const FeedLoad& b) {
    const bool energized = !outage;
    const double units = p.transformer.units_per_lineup;
    const double rating = units * p.transformer.rated_power * p.ups.input_power_factor;
    double demand = 0.0, reactive = 0.0;
    for (std::size_t l = 0; l < lineups; ++l) {
      Backup& k = backup[l];
      const Source src = source[l];
      double w_in = 0.0, w_out = 0.0, psu_loss = 0.0, bulk_change = 0.0;
      if (src == Source::grid || src == Source::ups_battery || src == Source::bbu) {
        PsuState state{psu_input_power[l], psu_bulk_energy[l]};
        const PsuStep r = psu.step(state, h, a.it[l], b.it[l], step_efficiency[l]);
        psu_input_power[l] = state.input_power;
        psu_bulk_energy[l] = state.bulk_energy;
        w_in = r.input_energy;
        w_out = r.output_energy;
        psu_loss = r.loss;
        bulk_change = r.bulk_energy_change;
      } else if (src == Source::holdup) {
        // No input: the bulk capacitors carry the output, dE/dt = -P_out. The PFC stage's power
        // command (the lagged input state) is held, so that the input resumes at it when the busbar
        // is fed again.
        w_out = 0.5 * (a.it[l] + b.it[l]) * h;
        bulk_change = -w_out;
        psu_bulk_energy[l] += bulk_change;
        holdup_energy += w_out;
      } else {
        const double lost = 0.5 * (a.it[l] + b.it[l]) * h;
        it_lost += lost;
        step_it_lost += lost;
      }
      // The busbar: BBU discharge, recharge and standby; the PDUs and the UPS while fed.
      if (src == Source::bbu) {
        const double drawn = w_in / p.bbu.discharge_efficiency;
        k.bbu_energy -= drawn;
        bbu_drawn += drawn;
        storage_change -= drawn;
        losses[bbu_stage] += drawn - w_in;
      }
      double ups_input = 0.0;
      if (src == Source::grid || src == Source::ups_battery) {
        double bbu_charge = 0.0;  // W into the BBUs from the busbar
        if (src == Source::grid && k.bbu_energy < bbu_capacity)
          bbu_charge = std::min(bbu_recharge_power, (bbu_capacity - k.bbu_energy) / (p.bbu.discharge_efficiency * h));
        if (bbu_charge > 0.0) {
          const double stored = bbu_charge * p.bbu.discharge_efficiency * h;
          k.bbu_energy += stored;
          storage_change += stored;
          losses[bbu_stage] += bbu_charge * h - stored;
        }
        const double pdu_output = w_in / h + bbu_loss + bbu_charge;
        const double pdu_loss = p.pdu.loss(pdu_output);
        const double ups_output = pdu_output + pdu_loss;
        losses[bbu_stage] += bbu_loss * h;
        losses[pdu_stage] += pdu_loss * h;
        if (src == Source::grid) {
          ups_input = p.ups.input_power(ups_output, ups_curve);
          losses[ups_stage] += (ups_input - ups_output) * h;
          if (k.ups_energy < ups_capacity) {
            const double charge = std::min(p.ups.recharge_power,
                                           (ups_capacity - k.ups_energy) / (p.ups.battery_efficiency * h));
            const double stored = charge * p.ups.battery_efficiency * h;
            k.ups_energy += stored;
            storage_change += stored;
            losses[ups_stage] += charge * h - stored;
            ups_input += charge;
          }
        } else {
          const double drawn = ups_output * h / p.ups.battery_efficiency;
          k.ups_energy -= drawn;
          ups_drawn += drawn;
          storage_change -= drawn;
          losses[ups_stage] += drawn - ups_output * h;
        }
      }
      const double switchboard_loss = p.switchboard.loss(ups_input);
      const double low_voltage = ups_input + switchboard_loss;
      double load_factor = 0.0, transformer_loss = 0.0, lineup_reactive = 0.0;
      if (energized) {  // de-energized during an outage: no loss, no magnetizing current
        load_factor = low_voltage / rating;
        transformer_loss = units * transformer.loss(load_factor);
        lineup_reactive = low_voltage * lineup_reactive_ratio + units * transformer.reactive_loss(load_factor);
      }
      bulk_energy_min = std::min(bulk_energy_min, psu_bulk_energy[l]);
      pending_load_factors.push_back(load_factor);
      demand += low_voltage + transformer_loss;
      reactive += lineup_reactive;
      load += w_out;
      server_input += w_in;
      server_output += w_out;
      storage_change += bulk_change;
      losses[psu_stage] += psu_loss;
      losses[switchboard_stage] += switchboard_loss * h;
      losses[transformer_stage] += transformer_loss * h;
    }
    const double mechanical = 0.5 * (a.mechanical + b.mechanical);
    Upstream m{0.0, 0.0, 0.0};
    if (energized) {
      m = mechanical_upstream(mechanical);
      load += mechanical * h;
      mechanical_load += mechanical * h;
      losses[mechanical_transformer_stage] += (m.input - mechanical) * h;
    } else {
      mechanical_lost += mechanical * h;  // the cooling load is not on the UPS
    }
    pending_load_factors.push_back(m.load_factor);
    pending_pieces.push_back({h, ambient});
    demand += m.input;
    reactive += m.reactive;

    step_demand_energy += demand * h;
    double net = demand;
    for (const StorageFlow* flow : {&capacitor_flow, &battery_flow}) {
      net -= flow->bus_power;
      storage_change += flow->stored_power * h;
    }
    losses[capacitor_stage] += capacitor_flow.loss * h;
    losses[battery_stage] += battery_flow.loss * h;
    double feeder_loss = 0.0;
    if (energized) {
      // Reconnected after an outage: the feeder at the steady state of the demand (the
      // re-energizing transient is not modelled).
      if (feeder_disconnected) feeder.settle({net, reactive});
      feeder_disconnected = false;
      feeder_loss = feeder.step_power(h, {net, reactive});
    } else {
      feeder_disconnected = true;
    }
    losses[feeder_stage] += feeder_loss * h;
    const double grid_power = energized ? net + feeder_loss : 0.0;
    grid += grid_power * h;
    step_grid_energy += grid_power * h;
    utility.step(h, grid_power - grid_power_initial);
  }

  void interpolate(FeedLoad& out, const FeedLoad& a, const FeedLoad& b, double w) const {
    for (std::size_t l = 0; l < lineups; ++l) out.it[l] = a.it[l] + (b.it[l] - a.it[l]) * w;
    out.mechanical = a.mechanical + (b.mechanical - a.mechanical) * w;
  }

  void advance(double t1, const FeedLoad& at_start, const FeedLoad& at_end) {
    try {
      advance_pieces(t1, at_start, at_end);
    } catch (...) {
      step_transformers();  // what was stepped stays consistent
      throw;
    }
    step_transformers();
  }

  void advance_pieces(double t1, const FeedLoad& at_start, const FeedLoad& at_end) {
    const double ta = time();
    check_load(at_start, ta);
    check_load(at_end, t1);
    const double tolerance = 1e-9 * dt;
    if (!(t1 >= ta - tolerance))
      throw core::InputError("electrical feed: advance to t = " + format_number(t1) +
                               " s, before the feed's time " + format_number(ta) + " s");
    const double span = t1 - ta;
    if (span <= tolerance) return;
    auto weight = [&](double t) { return std::clamp((t - ta) / span, 0.0, 1.0); };
    interpolate(piece_start, at_start, at_end, 0.0);
    while (true) {
      const double step_end = t0 + static_cast<double>(steps + 1) * dt;
      const bool completes = t1 >= step_end - tolerance;
      const double h = completes ? dt - into_step : t1 - time();
      if (h > 0.0) {
        interpolate(piece_end, at_start, at_end, completes ? weight(step_end) : 1.0);
        piece(h, piece_start, piece_end);
        std::swap(piece_start, piece_end);
      }
      if (!completes) {
        into_step += h;
        return;
      }
      finish_step();
      if (t1 <= time() + tolerance) return;
    }
  }

  void finish_step() {
    last_grid_power = step_grid_energy / dt;
    step_grid_energy = 0.0;
    previous_step_demand = step_demand_energy / dt;
    step_demand_energy = 0.0;
    last_it_lost_power = step_it_lost / dt;
    step_it_lost = 0.0;
    into_step = 0.0;
    ++steps;
    recorder.add(last_grid_power, utility.frequency(), bus_voltage());
    const bool sampled = steps % steps_per_output == 0;
    if (sampled) push_sample(time());
    pending_points.push_back(
        {pending_pieces.size(), ambient, sampled ? static_cast<std::ptrdiff_t>(samples.size()) - 1 : -1});
  }

  /// Steps the transformers through the pending pieces, all units side by side piece by piece
  /// (Transformer::step_each; one pair of decay factors per piece, the whole grid step's formed
  /// once), then hands the hottest hot spot at each pending grid point to the recorder and to the
  /// sample taken there.
  void step_transformers() {
    if (pending_pieces.empty() && pending_points.empty()) return;
    const std::size_t units = lineups + 1;  // the lineups' banks, then the mechanical bank
    std::vector<const TransformerThermalState*> states;
    for (const auto& s : thermal) states.push_back(&s);
    states.push_back(&mechanical_thermal);
    unit_states.assign(states);
    std::size_t point = 0;
    auto note_points = [&](std::size_t pieces_done) {
      for (; point < pending_points.size() && pending_points[point].pieces == pieces_done; ++point) {
        // The same maximum as hot_spot(): the mechanical unit's, then the lineups' in order.
        const double ambient_at_point = pending_points[point].ambient;
        double hottest = transformer.hot_spot(unit_states[lineups], ambient_at_point);
        for (std::size_t l = 0; l < lineups; ++l)
          hottest = std::max(hottest, transformer.hot_spot(unit_states[l], ambient_at_point));
        recorder.note_hot_spot(hottest);
        if (pending_points[point].sample >= 0)
          samples[static_cast<std::size_t>(pending_points[point].sample)].hot_spot = hottest;
      }
    };
    note_points(0);
    for (std::size_t j = 0; j < pending_pieces.size(); ++j) {
      const PendingPiece& piece = pending_pieces[j];
      const TransformerDecay decay = piece.h == dt ? full_step_decay : transformer.decay(piece.h);
      transformer.step_each(unit_states, decay, &pending_load_factors[j * units], piece.ambient);
      note_points(j + 1);
    }
    for (std::size_t l = 0; l < lineups; ++l) thermal[l] = unit_states[l];
    mechanical_thermal = unit_states[lineups];
    pending_pieces.clear();
    pending_load_factors.clear();
    pending_points.clear();
  }

  [[nodiscard]] FeedEnergy energy() const {
    FeedEnergy e;
    e.grid = grid;
    e.load = load;
    e.storage_change = storage_change;
    e.server_input = server_input;
    e.server_output = server_output;
    e.mechanical = mechanical_load;
    for (std::size_t s = 0; s < stage_count; ++s) {
      e.loss_by_stage.emplace_back(stage_names[s], losses[s]);
      e.losses += losses[s];
    }
    e.upstream_losses = e.losses - losses[psu_stage];
    e.server_storage_change = server_input - server_output - losses[psu_stage];
    e.it_load_lost = it_lost;
    e.mechanical_load_lost = mechanical_lost;
    e.psu_holdup = holdup_energy;
    e.bbu_discharge = bbu_drawn;
    e.ups_discharge = ups_drawn;
    return e;
  }

  [[nodiscard]] double bulk_voltage_min() const {
    return std::min(p.psu.bulk_voltage_nominal, psu.bulk_voltage(bulk_energy_min));
  }

  [[nodiscard]] double loss_of_life() const {
    double most = mechanical_thermal.ageing_hours;
    for (const auto& s : thermal) most = std::max(most, s.ageing_hours);
    return most;
  }
};

ElectricalFeed::ElectricalFeed(const ElectricalParameters& p, std::size_t lineups, std::size_t servers_per_lineup,
                               std::size_t racks_per_lineup, double ambient_temperature, double t0,
                               const FeedLoad& initial)
    : impl_(std::make_unique<Impl>(p, lineups, servers_per_lineup, racks_per_lineup, ambient_temperature, t0,
                                   initial)) {}

ElectricalFeed::~ElectricalFeed() = default;
ElectricalFeed::ElectricalFeed(ElectricalFeed&&) noexcept = default;
ElectricalFeed& ElectricalFeed::operator=(ElectricalFeed&&) noexcept = default;

double ElectricalFeed::time() const { return impl_->time(); }

void ElectricalFeed::advance(double t1, const FeedLoad& at_start, const FeedLoad& at_end) {
  impl_->advance(t1, at_start, at_end);
}

void ElectricalFeed::set_ambient_temperature(double kelvin) {
  DCTWIN_DEMAND(std::isfinite(kelvin) && kelvin > 0.0, "electrical feed: ambient must be a temperature in K");
  impl_->ambient = kelvin;
}

const std::vector<GridSample>& ElectricalFeed::samples() const { return impl_->samples; }

void ElectricalFeed::clear_samples() { impl_->samples.clear(); }

FeedEnergy ElectricalFeed::energy() const { return impl_->energy(); }

GridMetrics ElectricalFeed::metrics() const { return impl_->recorder.metrics(); }

std::vector<LimitCheck> ElectricalFeed::limit_checks() const {
  std::vector<LimitCheck> checks = check_limits(impl_->p.limits, metrics());
  const Impl& f = *impl_;
  if (f.ride_through) {
    // A disturbance of the utility and any IT load lost count as limit violations.
    checks.push_back({"utility_supply", f.disturbance_time, 0.0, "s", f.disturbance_time <= 0.0});
    checks.push_back({"it_load_supplied", f.it_lost, 0.0, "J", f.it_lost <= 0.0});
  }
  return checks;
}

double ElectricalFeed::psu_bulk_voltage_min() const { return impl_->bulk_voltage_min(); }

double ElectricalFeed::hot_spot() const { return impl_->hot_spot(); }

double ElectricalFeed::loss_of_life() const { return impl_->loss_of_life(); }

const UtilityGrid& ElectricalFeed::utility() const { return impl_->utility; }

const Feeder& ElectricalFeed::feeder() const { return impl_->feeder; }

std::size_t ElectricalFeed::grid_steps() const { return impl_->steps; }

std::vector<core::SummaryFigure> ElectricalFeed::summary() const {
  const Impl& f = *impl_;
  const GridMetrics m = metrics();
  const FeedEnergy e = energy();
  std::vector<core::SummaryFigure> out;
  auto add = [&](std::string name, double value, std::string unit, std::string long_name) {
    out.push_back({std::move(name), value, std::move(unit), std::move(long_name)});
  };
  add("grid_power_peak_to_peak", m.power_peak_to_peak, "W", "Peak-to-peak grid power");
  // One figure per window the record holds twice; the name and long_name state the window.
  for (const RampRate& r : m.ramp_rates) {
    if (!r.complete) continue;
    const std::string label = ramp_window_label(r.window);
    add("grid_ramp_rate_max_" + label, r.max, "W/s",
        "Largest grid power ramp rate over " + label +
            " windows: change between the means of two adjacent windows, per second");
  }
  add("grid_band_energy_fraction_0p1_20hz", m.band_fraction_0p1_20hz, "1", "Share of grid power variance in 0.1-20 Hz");
  add("grid_band_energy_fraction_below_1hz", m.band_fraction_below_1hz, "1", "Share of grid power variance below 1 Hz");
  add("grid_band_energy_fraction_1_2p5hz", m.band_fraction_1_2p5hz, "1", "Share of grid power variance in 1-2.5 Hz");
  add("grid_band_energy_fraction_7_40hz", m.band_fraction_7_40hz, "1", "Share of grid power variance in 7-40 Hz");
  add("grid_frequency_nadir", m.frequency_nadir, "Hz", "Lowest grid frequency");
  add("grid_frequency_zenith", m.frequency_zenith, "Hz", "Highest grid frequency");
  add("grid_rocof_max", m.rocof_max, "Hz/s", "Largest rate of change of frequency");
  add("grid_voltage_change_max", m.voltage_change_max, "1", "Largest MV bus voltage change, relative");
  add("transformer_hot_spot_max", m.transformer_hot_spot_max, "K", "Hottest transformer hot spot");
  add("transformer_loss_of_life", f.loss_of_life(), "h", "Equivalent ageing of the most aged transformer (C57.91)");
  add("grid_energy", e.grid, "J", "Energy drawn from the utility");
  add("electrical_losses", e.losses, "J", "Losses of the electrical chain, server PSUs included");
  // Each stage's loss on its own; the PSUs' loss is inside the servers (IT energy), the rest lies
  // between the utility and the server inlets (docs/models/electrical-metrics.md, PUE).
  for (const auto& [stage, loss] : e.loss_by_stage) {
    const bool inside_servers = stage == "psu";
    add("electrical_loss_" + stage, loss, "J",
        "Energy lost in the " + std::string(stage_long_name(stage)) +
            (inside_servers ? " (inside the servers: part of the IT energy)" : " (outside the IT energy)"));
  }
  add("electrical_upstream_losses", e.upstream_losses, "J",
      "Losses between the utility and the server inlets: BBU standby, PDUs, UPS, switchboards, transformers, "
      "storage and feeder");
  const double throughput =
      (f.capacitor ? f.capacitor->throughput() : 0.0) + (f.battery ? f.battery->throughput() : 0.0);
  const double storage_losses = (f.capacitor ? f.capacitor->losses() : 0.0) + (f.battery ? f.battery->losses() : 0.0);
  add("storage_throughput", throughput, "J", "Energy through the storage converters, both directions");
  add("storage_losses", storage_losses, "J", "Losses of the storage");
  add("capacitor_energy_swing", f.capacitor ? f.capacitor->energy_high() - f.capacitor->energy_low() : 0.0, "J",
      "Capacitor bank energy used (max - min)");
  add("battery_energy_swing", f.battery ? f.battery->energy_high() - f.battery->energy_low() : 0.0, "J",
      "Battery energy used (max - min)");
  add("psu_bulk_voltage_min", f.bulk_voltage_min(), "V", "Least PSU bulk capacitor voltage (hold-up margin)");
  add("torsional_amplitude_max", f.utility.torsional_amplitude_max(), "1",
      "Largest torsional twist of the nearby unit, per unit of its rated static twist");
  if (f.ride_through) {
    // The utility events and how the facility rode through them (docs/models/electrical-ride-through.md).
    double ups_end = 0.0, bbu_end = 0.0;
    for (const auto& k : f.backup) {
      ups_end += k.ups_energy;
      bbu_end += k.bbu_energy;
    }
    add("utility_disturbance_time", f.disturbance_time, "s", "Time with the utility sagging or out (utility_events)");
    add("utility_disturbance_first", f.disturbance_first, "s", "Start of the first utility disturbance (-1: none)");
    add("it_load_lost", e.it_load_lost, "J",
        "IT load (at the PSU outputs) not supplied: lineups whose servers dropped when their stores ran out");
    add("it_load_lost_first", f.load_lost_first, "s", "When the first lineup's servers dropped (-1: never)");
    add("it_load_lost_time", f.load_lost_time, "s", "Time with the servers of one lineup or more dropped");
    add("lineup_drops", static_cast<double>(f.lineup_drops), "1",
        "Times a lineup's servers dropped (PSU bulk voltage at its minimum with no source left)");
    add("mechanical_load_lost", e.mechanical_load_lost, "J",
        "Cooling load not supplied during outages (not on the UPS)");
    add("psu_holdup_discharge", e.psu_holdup, "J",
        "Energy the PSUs' bulk capacitors delivered while their input was lost (hold-up)");
    add("bbu_discharge", e.bbu_discharge, "J", "Energy taken from the rack BBUs' cells");
    add("ups_battery_discharge", e.ups_discharge, "J", "Energy taken from the UPS batteries");
    add("ups_battery_exhausted_first", f.ups_exhausted_first, "s", "When a UPS battery first ran out (-1: never)");
    add("bbu_exhausted_first", f.bbu_exhausted_first, "s", "When a lineup's BBUs first ran out (-1: never)");
    add("ups_battery_energy_end", ups_end, "J", "Energy in the UPS batteries of all lineups at the end");
    add("bbu_energy_end", bbu_end, "J", "Energy in the BBUs of all lineups at the end");
  }
  const auto checks = limit_checks();
  double violations = 0.0;
  for (const auto& c : checks)
    if (!c.passed) violations += 1.0;
  add("grid_limit_violations", violations, "1", "Grid limits exceeded");
  for (const auto& c : checks) {
    std::string what = c.name;
    if (c.name == "ramp_rate") what += " (over " + ramp_window_label(f.p.limits.ramp_window) + " windows)";
    add("grid_limit_" + c.name, c.passed ? 1.0 : 0.0, "1", "Grid limit " + what + " kept (1) or exceeded (0)");
  }
  return out;
}

}  // namespace dctwin::models::electrical
