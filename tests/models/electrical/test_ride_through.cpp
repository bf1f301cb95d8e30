// Ride-through of utility sags and outages by the electrical feed: the PSUs' hold-up time, the
// BBUs' and the UPS batteries' runtimes against their closed forms, the energy balance with the
// stores and the lost load, what the grid sees, and bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "dctwin/models/electrical/feed.hpp"
#include "dctwin/models/electrical/ride_through.hpp"
#include "feed_fixture.hpp"

using namespace feed_test;

namespace {

constexpr double it_power = 2.5e6;     // W at the PSU outputs of lineup 0 (lineup 1: 80 %)
constexpr double mechanical = 1.0e6;   // W of cooling

FeedLoad steady_load() {
  FeedLoad f;
  f.it = {it_power, 0.8 * it_power};
  f.mechanical = mechanical;
  return f;
}

/// Defaults without the UPS battery and the BBUs, and one outage.
ElectricalParameters bare(double start, double duration) {
  ElectricalParameters p;
  p.ups.battery_autonomy = 0.0;
  p.bbu.unit_energy = 0.0;
  UtilityEvent e;
  e.kind = "outage";
  e.time = start;
  e.duration = duration;
  p.utility_events.push_back(e);
  return p;
}

std::map<std::string, double> figures(const ElectricalFeed& feed) {
  std::map<std::string, double> out;
  for (const auto& f : feed.summary()) out[f.name] = f.value;
  return out;
}

/// Bulk energy the PSUs of one lineup hold between V_nom and V_min [J].
double usable_bulk(const PsuParameters& psu) {
  const double n = static_cast<double>(servers) * psu.active_supplies;
  return n * 0.5 * psu.bulk_capacitance *
         (psu.bulk_voltage_nominal * psu.bulk_voltage_nominal - psu.bulk_voltage_min * psu.bulk_voltage_min);
}

/// Hold-up time of a lineup at output P from the nominal bulk voltage [s].
double holdup_at(const PsuParameters& psu, double power) {
  const double n = static_cast<double>(servers) * psu.active_supplies;
  return holdup_time(n * psu.bulk_capacitance, psu.bulk_voltage_nominal, psu.bulk_voltage_min, power);
}

/// Steady PSU input of a lineup at output P [W].
double psu_input(const PsuParameters& psu, double power) {
  return PsuBank(psu, servers).steady_state(power).input_power;
}

double imbalance(const FeedEnergy& e) { return std::fabs(e.grid - (e.load + e.losses + e.storage_change)) / e.grid; }

}  // namespace

TEST_CASE("Hold-up time of the PSUs is one half C (V0^2 - Vmin^2) over P", "[electrical][ride_through]") {
  const double start = 1.0004, duration = 0.5;
  const ElectricalParameters p = bare(start, duration);
  ElectricalFeed feed = reference_feed(p, steady_load());
  feed.advance(2.0, steady_load(), steady_load());
  const auto f = figures(feed);
  const double t0 = holdup_at(p.psu, it_power), t1 = holdup_at(p.psu, 0.8 * it_power);
  // The default bulk capacitors: 1152 supplies x 1 mF between 400 V and 300 V at 2.5 MW: 16.1 ms.
  CHECK(t0 == Approx(usable_bulk(p.psu) / it_power).epsilon(1e-14));
  CHECK(t0 == Approx(0.016128).epsilon(1e-12));
  CHECK(f.at("it_load_lost_first") == Approx(start + t0).epsilon(1e-12));
  CHECK(f.at("lineup_drops") == 2.0);
  // Each lineup's load is lost from its drop to the utility's return.
  const double lost = it_power * (duration - t0) + 0.8 * it_power * (duration - t1);
  const FeedEnergy e = feed.energy();
  CHECK(e.it_load_lost == Approx(lost).epsilon(1e-10));
  CHECK(e.psu_holdup == Approx(2.0 * usable_bulk(p.psu)).epsilon(1e-10));
  CHECK(e.mechanical_load_lost == Approx(mechanical * duration).epsilon(1e-10));
  CHECK(e.bbu_discharge == 0.0);
  CHECK(e.ups_discharge == 0.0);
  CHECK(f.at("it_load_lost_time") == Approx(duration - t0).epsilon(1e-9));
  CHECK(f.at("utility_disturbance_first") == Approx(start).epsilon(1e-14));
  CHECK(f.at("utility_disturbance_time") == Approx(duration).epsilon(1e-12));
  CHECK(feed.psu_bulk_voltage_min() == Approx(p.psu.bulk_voltage_min).epsilon(1e-9));
  CHECK(imbalance(e) <= 1e-11);
  // Delivered and lost make up what was asked for.
  const double asked = (1.8 * it_power + mechanical) * 2.0;
  CHECK(e.load + e.it_load_lost + e.mechanical_load_lost == Approx(asked).epsilon(1e-12));
  // The event and the lost load are limit violations.
  CHECK(f.at("grid_limit_utility_supply") == 0.0);
  CHECK(f.at("grid_limit_it_load_supplied") == 0.0);
  CHECK(f.at("grid_limit_violations") >= 2.0);
}

TEST_CASE("BBUs carry the busbar for E eta over P_in, then the hold-up", "[electrical][ride_through]") {
  const double start = 0.5003, duration = 1.0;
  ElectricalParameters p = bare(start, duration);
  p.bbu.unit_energy = 2000.0;  // small modules, so that they run out within the test
  p.bbu.transfer_time = 0.0;   // the BBUs take over at once: the PSU input stays at its steady value
  ElectricalFeed feed = reference_feed(p, steady_load());
  feed.advance(2.0, steady_load(), steady_load());
  const auto f = figures(feed);
  const double energy = static_cast<double>(racks) * p.bbu.units_per_rack * p.bbu.unit_energy;
  const double runtime = energy * p.bbu.discharge_efficiency / psu_input(p.psu, it_power);
  // 768 kJ x 0.97 / 2.648 MW (the PSUs at x = 0.658 of their rating: eta 0.944 on the Titanium curve)
  CHECK(runtime == Approx(0.28137).epsilon(1e-4));
  CHECK(f.at("bbu_exhausted_first") == Approx(start + runtime).epsilon(1e-12));
  CHECK(f.at("it_load_lost_first") == Approx(start + runtime + holdup_at(p.psu, it_power)).epsilon(1e-12));
  const FeedEnergy e = feed.energy();
  CHECK(e.bbu_discharge == Approx(2.0 * energy).epsilon(1e-9));
  CHECK(e.psu_holdup == Approx(2.0 * usable_bulk(p.psu)).epsilon(1e-9));
  CHECK(imbalance(e) <= 1e-11);
  // After the outage the BBUs recharge from the busbar at their recharge power.
  const double recharge_time = 2.0 - (start + duration);
  const double stored = 2.0 * static_cast<double>(racks) * p.bbu.units_per_rack * p.bbu.recharge_power *
                        p.bbu.discharge_efficiency * recharge_time;
  CHECK(f.at("bbu_energy_end") == Approx(std::min(stored, 2.0 * energy)).epsilon(1e-9));
}

TEST_CASE("BBU transfer time is bridged by the hold-up and nothing is lost", "[electrical][ride_through]") {
  ElectricalParameters p = bare(0.3002, 0.4);
  p.bbu.unit_energy = 3.6e6;  // Open Rack v3: 15 kW for 240 s
  ElectricalFeed feed = reference_feed(p, steady_load());
  feed.advance(1.0, steady_load(), steady_load());
  const auto f = figures(feed);
  const FeedEnergy e = feed.energy();
  CHECK(e.it_load_lost == 0.0);
  CHECK(f.at("it_load_lost_first") == -1.0);
  CHECK(f.at("lineup_drops") == 0.0);
  // The 4 ms gap: the bulk capacitors give P x 4 ms before the BBUs take over; the PFC stage then
  // resumes at its held input and recharges them, so the least bulk voltage is the one after the gap.
  CHECK(e.psu_holdup == Approx(1.8 * it_power * p.bbu.transfer_time).epsilon(1e-9));
  const double n = static_cast<double>(servers) * p.psu.active_supplies;
  const double after_gap = std::sqrt(p.psu.bulk_voltage_nominal * p.psu.bulk_voltage_nominal -
                                     2.0 * it_power * p.bbu.transfer_time / (n * p.psu.bulk_capacitance));
  CHECK(feed.psu_bulk_voltage_min() == Approx(after_gap).epsilon(1e-9));
  CHECK(after_gap == Approx(377.68).epsilon(1e-4));
  CHECK(e.bbu_discharge > 0.4 * 1.8 * it_power);
  CHECK(imbalance(e) <= 1e-11);
  CHECK(f.at("grid_limit_utility_supply") == 0.0);
  CHECK(f.at("grid_limit_it_load_supplied") == 1.0);
}

TEST_CASE("UPS battery runs for E eta_b over its output, then BBUs and hold-up", "[electrical][ride_through]") {
  const double start = 0.2001, duration = 1.0;
  ElectricalParameters p = bare(start, duration);
  p.ups.battery_autonomy = 0.2;  // at the 5 MW rating: 0.38 s at 2.6 MW
  ElectricalFeed feed = reference_feed(p, steady_load());
  feed.advance(1.5, steady_load(), steady_load());
  const auto f = figures(feed);
  // The UPS output while on battery: PSU input, BBU standby, PDU loss (double conversion: no gap).
  const double busbar = psu_input(p.psu, it_power) + p.bbu.loss(racks);
  const double ups_output = busbar + p.pdu.loss(busbar);
  const double runtime = p.ups.battery_energy() * p.ups.battery_efficiency / ups_output;
  CHECK(p.ups.battery_energy() * p.ups.battery_efficiency == Approx(p.ups.rated_power * 0.2).epsilon(1e-15));
  CHECK(f.at("ups_battery_exhausted_first") == Approx(start + runtime).epsilon(1e-12));
  // No BBUs (unit_energy 0): the hold-up, then the drop.
  CHECK(f.at("it_load_lost_first") == Approx(start + runtime + holdup_at(p.psu, it_power)).epsilon(1e-12));
  const FeedEnergy e = feed.energy();
  CHECK(e.ups_discharge > 1.9 * p.ups.battery_energy());  // the second lineup's ran out too
  CHECK(imbalance(e) <= 1e-11);
}

TEST_CASE("The grid sees the facility drop off in an outage and come back", "[electrical][ride_through]") {
  ElectricalParameters p;  // defaults: the UPS batteries carry the IT load through a short outage
  UtilityEvent e;
  e.time = 0.5;
  e.duration = 0.3;
  p.utility_events.push_back(e);
  ElectricalFeed feed = reference_feed(p, steady_load());
  feed.advance(1.5, steady_load(), steady_load());
  const auto f = figures(feed);
  const FeedEnergy energy = feed.energy();
  CHECK(energy.it_load_lost == 0.0);
  CHECK(energy.ups_discharge > 0.0);
  CHECK(energy.bbu_discharge == 0.0);
  CHECK(energy.psu_holdup == 0.0);
  double before = 0.0, during_max = 0.0, after = 0.0;
  for (const auto& s : feed.samples()) {
    if (s.time > 0.4 && s.time <= 0.5) before = s.grid_power;
    if (s.time > 0.501 && s.time <= 0.8) during_max = std::max(during_max, std::fabs(s.grid_power));
    if (s.time > 0.801 && s.time < 0.81) after = std::max(after, s.grid_power);
    if (s.time > 0.501 && s.time <= 0.8) CHECK(s.voltage == 0.0);
  }
  CHECK(during_max == 0.0);
  // Back on the utility the load returns with the UPS chargers on top.
  CHECK(after > before);
  CHECK(f.at("grid_frequency_zenith") > 60.0);  // the load rejection lifts the frequency
  CHECK(f.at("ups_battery_energy_end") < 2.0 * p.ups.battery_energy());
  CHECK(imbalance(energy) <= 1e-11);
}

TEST_CASE("A sag within the UPS input tolerance passes, a deeper one moves the UPS to battery", "[electrical][ride_through]") {
  for (const double depth : {0.1, 0.3}) {
    ElectricalParameters p;
    UtilityEvent e;
    e.kind = "sag";
    e.time = 0.2;
    e.duration = 0.25;
    e.depth = depth;
    p.utility_events.push_back(e);
    ElectricalFeed feed = reference_feed(p, steady_load());
    feed.advance(1.0, steady_load(), steady_load());
    const auto f = figures(feed);
    const FeedEnergy energy = feed.energy();
    INFO("depth " << depth);
    CHECK(f.at("grid_voltage_change_max") == Approx(depth).epsilon(0.01));
    CHECK(f.at("utility_disturbance_time") == Approx(0.25).epsilon(1e-12));
    CHECK(energy.mechanical_load_lost == 0.0);
    CHECK(energy.it_load_lost == 0.0);
    if (depth < 1.0 - p.ups.input_voltage_min) CHECK(energy.ups_discharge == 0.0);
    else CHECK(energy.ups_discharge > 0.25 * 1.8 * it_power);
    CHECK(imbalance(energy) <= 1e-11);
  }
}

TEST_CASE("Knots at odd times do not change the ride-through", "[electrical][ride_through]") {
  ElectricalParameters p = bare(0.3002, 0.2);
  p.bbu.unit_energy = 500.0;
  ElectricalFeed whole = reference_feed(p, steady_load());
  whole.advance(1.0, steady_load(), steady_load());
  ElectricalFeed pieces = reference_feed(p, steady_load());
  for (double t = 0.00037; t < 1.0; t += 0.0173) pieces.advance(t, steady_load(), steady_load());
  pieces.advance(1.0, steady_load(), steady_load());
  const auto a = figures(whole), b = figures(pieces);
  CHECK(b.at("it_load_lost_first") == Approx(a.at("it_load_lost_first")).epsilon(1e-12));
  CHECK(b.at("bbu_exhausted_first") == Approx(a.at("bbu_exhausted_first")).epsilon(1e-12));
  CHECK(pieces.energy().it_load_lost == Approx(whole.energy().it_load_lost).epsilon(1e-9));
  CHECK(pieces.energy().grid == Approx(whole.energy().grid).epsilon(1e-9));
}

TEST_CASE("Bad utility events name the key", "[electrical][ride_through]") {
  SectionSchema schema = ElectricalParameters::schema();
  ParameterTree tree = defaults_tree(schema.parameters, "electrical");
  for (const auto& [name, section] : schema.sections) {
    tree.sections[name] = defaults_tree(section.parameters, "electrical." + name);
  }
  auto event = [&](const std::string& kind, double time, double duration, std::optional<double> depth, std::size_t i) {
    ParameterTree e = defaults_tree(UtilityEvent::table(), "electrical.utility_events[" + std::to_string(i) + "]");
    e.values["kind"].text = kind;
    e.values["time"].number = time;
    e.values["duration"].number = duration;
    if (depth) {
      e.values["depth"].number = *depth;
      e.values["depth"].from_default = false;
    }
    return e;
  };
  auto bad = tree;
  bad.lists["utility_events"] = {event("outage", 1.0, 0.5, std::nullopt, 0), event("sag", 1.2, 0.1, 0.3, 1)};
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.utility_events[1]: begins at 1.2 s, before the previous event ends (1.5 s): events must be "
        "in time order and must not overlap");
  bad.lists["utility_events"] = {event("outage", 1.0, 0.5, 0.4, 0)};
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.utility_events[0].depth = 0.4 (an outage loses the whole voltage: depth applies to sags)");
  bad.lists["utility_events"] = {event("sag", 1.0, 0.5, 0.4, 0)};
  CHECK(input_error([&] { ElectricalParameters::from(bad); }).empty());
  bad.lists["utility_events"] = {event("outage", 1.0, 0.5, std::nullopt, 0)};
  bad.sections["battery_storage"].values["enabled"].number = 1.0;
  CHECK(input_error([&] { ElectricalParameters::from(bad); }) ==
        "electrical.utility_events[0]: an outage with storage at the MV bus (capacitor_storage or battery_storage "
        "enabled) is not modelled: the storage would have to form the islanded bus");
  auto ups = tree;
  ups.sections["ups"].values["input_voltage_min"].number = 1.2;
  CHECK(input_error([&] { ElectricalParameters::from(ups); }) ==
        "electrical.ups.input_voltage_min = 1.2 (must be in (0, 1])");
}
