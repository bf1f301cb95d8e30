#include "dctwin/models/hydraulic/loops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/core/number_text.hpp"

namespace dctwin::models::hydraulic {

using core::format_general;
using solver::Index;
using core::InputError;

namespace {

std::size_t at(Index i) { return static_cast<std::size_t>(i); }

std::string key(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

/// i as a decimal number padded with zeros to the width of `count - 1`.
std::string padded(int i, int count) {
  const std::string last = std::to_string(std::max(count - 1, 0));
  std::string s = std::to_string(i);
  if (s.size() < last.size()) s.insert(0, last.size() - s.size(), '0');
  return s;
}

HeaderArrangement header_from(const std::string& text) {
  return text == "reverse_return" ? HeaderArrangement::reverse_return : HeaderArrangement::direct_return;
}

core::ParameterSpec header_spec(HeaderArrangement d, const std::string& doc) {
  return core::choice_parameter("headers", {"direct_return", "reverse_return"}, doc, std::string(to_string(d)));
}

fluid::Coolant::Properties coolant_properties(const std::string& name, double temperature) {
  return fluid::Coolant::parse(name).properties(temperature);
}

SolveReport report(const solver::NetworkSolution& s) {
  return {s.converged, s.iterations, s.mass_residual, s.law_residual, s.message};
}

void check_openings(const std::vector<double>& openings, int count, const std::string& path,
                    const std::string& what, const std::string& count_key) {
  if (openings.empty()) return;
  if (openings.size() != static_cast<std::size_t>(count))
    throw InputError(key(path, what) + " has " + std::to_string(openings.size()) + " entries but " +
                         key(path, count_key) + " = " + std::to_string(count) + " (one per " +
                         (count_key == "rack_count" ? "rack" : "pod") + ")",
                     key(path, what));
  for (std::size_t i = 0; i < openings.size(); ++i) {
    if (!(openings[i] >= 0.0 && openings[i] <= 1.0))
      throw InputError(key(path, what) + "[" + std::to_string(i) + "] = " + format_general(openings[i]) +
                           " (must be in [0, 1])",
                       key(path, what));
  }
}

}  // namespace

const char* to_string(HeaderArrangement a) noexcept {
  return a == HeaderArrangement::direct_return ? "direct_return" : "reverse_return";
}

const char* to_string(PlateArrangement a) noexcept {
  return a == PlateArrangement::parallel ? "parallel" : "series_pairs";
}

double flow_spread(const std::vector<double>& flows) {
  if (flows.empty()) return 0.0;
  const auto [low, high] = std::minmax_element(flows.begin(), flows.end());
  double mean = 0.0;
  for (double q : flows) mean += q;
  mean /= static_cast<double>(flows.size());
  return mean == 0.0 ? 0.0 : (*high - *low) / mean;
}

// ---- header pair --------------------------------------------------------------------------------

HeaderPair add_header_pair(solver::Network& network, const std::string& prefix, int taps,
                           const std::shared_ptr<const solver::BranchLaw>& supply_segment,
                           const std::shared_ptr<const solver::BranchLaw>& return_segment,
                           HeaderArrangement arrangement) {
  DCTWIN_DEMAND(taps >= 1, "a header needs at least one tap");
  HeaderPair h;
  for (int i = 0; i < taps; ++i) h.supply_taps.push_back(network.add_node(prefix + "supply/" + padded(i, taps)));
  for (int i = 0; i < taps; ++i) h.return_taps.push_back(network.add_node(prefix + "return/" + padded(i, taps)));
  for (int i = 0; i + 1 < taps; ++i) {
    const auto k = static_cast<std::size_t>(i);
    h.supply_segments.push_back(network.add_branch(prefix + "supply/segment" + padded(i, taps), h.supply_taps[k],
                                                   h.supply_taps[k + 1], supply_segment));
    const bool reverse = arrangement == HeaderArrangement::reverse_return;
    h.return_segments.push_back(network.add_branch(prefix + "return/segment" + padded(i, taps),
                                                   reverse ? h.return_taps[k] : h.return_taps[k + 1],
                                                   reverse ? h.return_taps[k + 1] : h.return_taps[k], return_segment));
  }
  h.supply_inlet = h.supply_taps.front();
  h.return_outlet = arrangement == HeaderArrangement::reverse_return ? h.return_taps.back() : h.return_taps.front();
  return h;
}

// ---- pump loop trunk ----------------------------------------------------------------------------

PumpLoopNetwork::PumpLoopNetwork(const PumpLoopTrunk& t) {
  properties_ = coolant_properties(t.coolant, t.coolant_temperature);
  const double rho = properties_.density, mu = properties_.viscosity;
  network_ = std::make_unique<solver::Network>(t.name);
  solver::Network& net = *network_;
  const Index tank = net.add_fixed_node("tank", t.tank_pressure);
  const Index element_inlet = net.add_node(t.element + "/inlet");
  const Index element_outlet = net.add_node(t.element + "/outlet");
  pumps_ = std::make_unique<PumpGroup>(net, "pumps", tank, element_inlet, t.pumps);
  element_ = net.add_branch(t.element_branch, element_inlet, element_outlet,
                            std::make_shared<FixedResistance>(t.element_law));
  auto segment = std::make_shared<Pipe>(t.header_segment, rho, mu);
  headers_ = add_header_pair(net, "", t.taps, segment, segment, t.headers);
  supply_main_ = net.add_branch("supply_main", element_outlet, headers_.supply_inlet,
                                std::make_shared<Pipe>(t.supply_main, rho, mu));
  return_main_ = net.add_branch("return_main", headers_.return_outlet, tank,
                                std::make_shared<Pipe>(t.return_main, rho, mu));
}

void PumpLoopNetwork::set_valve(Index branch, ValveParameters valve, double opening) {
  valve.opening = opening;
  network_->set_law(branch, std::make_shared<Valve>(valve, properties_.density));
}

void PumpLoopNetwork::set_pumps(const PumpGroupParameters& pumps) { pumps_->update(*network_, pumps); }

void PumpLoopNetwork::finish() { solver_ = std::make_unique<solver::NetworkSolver>(*network_); }

const solver::NetworkSolution& PumpLoopNetwork::solve(const solver::NetworkSettings& settings) {
  DCTWIN_DEMAND(solver_ != nullptr, "the loop is not finished");
  const bool warm = solved_ && last_.converged && last_.largest_flow > 0.0;
  last_ = solver_->solve(settings, warm ? &last_ : nullptr);
  solved_ = true;
  return last_;
}

PumpGroupResult PumpLoopNetwork::pumps_result() const { return pumps_->result(*network_, last_); }

namespace {

/// Records a valve opening in a per-tap list, filling the list with the common opening first.
void record_opening(std::vector<double>& openings, std::size_t taps, double common, std::size_t i, double opening) {
  if (openings.empty()) openings.assign(taps, common);
  openings[i] = opening;
}

/// Reads what every pump loop has: headers, coolant, tank, pumps, mains and header segment.
template <class Loop>
void read_trunk(Loop& p, const core::ParameterTree& s) {
  p.headers = header_from(s.text("headers"));
  p.coolant = s.text("coolant");
  try {
    (void)fluid::Coolant::parse(p.coolant);
  } catch (const InputError& e) {
    throw InputError(s.key_path("coolant") + ": " + e.what(), s.key_path("coolant"));
  }
  p.coolant_temperature = s.number("coolant_temperature");
  p.tank_pressure = s.number("tank_pressure");
  p.pumps = PumpGroupParameters::from(s.section("pumps"));
  p.supply_main = PipeParameters::from(s.section("supply_main"));
  p.return_main = PipeParameters::from(s.section("return_main"));
  p.header_segment = PipeParameters::from(s.section("header_segment"));
}

/// Declares the coolant, its property temperature and the tank pressure of a pump loop.
template <class Loop>
void declare_coolant_and_tank(core::SectionSchema& s, const Loop& d, const std::string& coolant_source,
                              const std::string& temperature_source, const std::string& tank_source) {
  using namespace core;
  s.parameters.push_back(text_parameter("coolant", "Coolant: water, PG<percent> or EG<percent>", d.coolant));
  s.parameters.back().source = coolant_source;
  auto p = real_parameter("coolant_temperature", "K", "Temperature at which the coolant properties are taken",
                          d.coolant_temperature, temperature_source);
  p.display_unit = "degC";
  at_least(p, 253.15);
  s.parameters.push_back(at_most(p, 353.15));
  p = real_parameter("tank_pressure", "Pa", "Pressure held by the expansion tank at the pump suction",
                     d.tank_pressure, tank_source);
  p.display_unit = "kPa";
  s.parameters.push_back(greater_than(p, 0.0));
}

/// Declares the supply and return mains and the header segment of a pump loop.
template <class Loop>
void declare_mains(core::SectionSchema& s, const Loop& d, const std::string& supply_doc, const std::string& return_doc,
                   const std::string& main_source, const std::string& segment_doc, const std::string& segment_source) {
  using core::SectionSchema;
  s.sections["supply_main"] = SectionSchema{supply_doc, PipeParameters::table(d.supply_main, main_source), {}, {}, false};
  s.sections["return_main"] = SectionSchema{return_doc, PipeParameters::table(d.return_main, main_source), {}, {}, false};
  s.sections["header_segment"] =
      SectionSchema{segment_doc, PipeParameters::table(d.header_segment, segment_source), {}, {}, false};
}

}  // namespace

// ---- rack manifold ------------------------------------------------------------------------------

void RackManifoldParameters::validate(const std::string& path) const {
  if (servers < 1)
    throw InputError(key(path, "servers") + " = " + std::to_string(servers) + " (must be >= 1)", key(path, "servers"));
  if (plates_per_server < 1)
    throw InputError(key(path, "plates_per_server") + " = " + std::to_string(plates_per_server) + " (must be >= 1)",
                     key(path, "plates_per_server"));
  if (plates == PlateArrangement::series_pairs && plates_per_server % 2 != 0)
    throw InputError(key(path, "plates_per_server") + " = " + std::to_string(plates_per_server) +
                         " is odd (inconsistent topology: " + key(path, "plates") + " = series_pairs needs pairs)",
                     key(path, "plates_per_server"));
}

core::SectionSchema RackManifoldParameters::schema(const RackManifoldParameters& d) {
  using namespace core;
  SectionSchema s;
  s.doc = "Rack manifold: hoses, balancing valve, supply and return manifolds, servers with cold plates";
  auto p = integer_parameter("servers", "Servers per rack (in a facility: layout.servers_per_rack when left out)", d.servers,
                             "Llama 3: each rack hosts 16 GPUs split between two servers ([meta-llama3-2024])");
  s.parameters.push_back(at_least(p, 1.0));
  p = integer_parameter("plates_per_server", "Cold plates per server, one per GPU (in a facility: layout.gpus_per_server when left out)", d.plates_per_server,
                        "Grand Teton: 8 GPUs per server ([meta-llama3-2024])");
  s.parameters.push_back(at_least(p, 1.0));
  s.parameters.push_back(choice_parameter("plates", {"parallel", "series_pairs"},
                                          "Plates of a server all in parallel, or in series pairs",
                                          std::string(to_string(d.plates))));
  s.parameters.push_back(choice_parameter("manifold", {"direct_return", "reverse_return"},
                                          "Return manifold leaves from the first (direct) or last (reverse) server",
                                          std::string(to_string(d.manifold))));
  const std::string hose = "Estimate: 1-inch hose, 3 m, two quick disconnects (K ~1.5 each) and bends";
  s.sections["supply_hose"] = SectionSchema{"Hose from the pod supply header to the rack valve",
                                            PipeParameters::table(d.supply_hose, hose), {}, {}, false};
  s.sections["return_hose"] = SectionSchema{"Hose from the rack return manifold to the pod return header",
                                            PipeParameters::table(d.return_hose, hose), {}, {}, false};
  s.sections["valve"] = SectionSchema{"Rack balancing / isolation valve",
                                      ValveParameters::table(d.valve, "Estimate: DN20 valve, ~5 kPa at 24 L/min"), {}, {},
                                      false};
  s.sections["manifold_segment"] = SectionSchema{
      "Rack manifold between two server taps (supply and return alike)",
      PipeParameters::table(d.manifold_segment, "Estimate: 1.25-inch manifold, server pitch, tee run K ~0.2"), {}, {},
      false};
  s.sections["server_hose"] = SectionSchema{
      "Hose between the rack manifold and a server (supply and return alike)",
      PipeParameters::table(d.server_hose, "Estimate: 16 mm hose, 1 m, blind-mate quick disconnect"), {}, {}, false};
  return s;
}

core::SectionSchema RackManifoldParameters::schema() { return schema(RackManifoldParameters{}); }

RackManifoldParameters RackManifoldParameters::from(const core::ParameterTree& s) {
  RackManifoldParameters p;
  p.servers = static_cast<int>(s.integer("servers"));
  p.plates_per_server = static_cast<int>(s.integer("plates_per_server"));
  p.plates = s.text("plates") == "series_pairs" ? PlateArrangement::series_pairs : PlateArrangement::parallel;
  p.manifold = s.text("manifold") == "reverse_return" ? HeaderArrangement::reverse_return
                                                       : HeaderArrangement::direct_return;
  p.supply_hose = PipeParameters::from(s.section("supply_hose"));
  p.return_hose = PipeParameters::from(s.section("return_hose"));
  p.valve = ValveParameters::from(s.section("valve"));
  p.manifold_segment = PipeParameters::from(s.section("manifold_segment"));
  p.server_hose = PipeParameters::from(s.section("server_hose"));
  p.validate(s.path);
  return p;
}

RackLaws RackLaws::make(const RackManifoldParameters& p, const fluid::Coolant::Properties& c) {
  RackLaws laws;
  laws.supply_hose = std::make_shared<Pipe>(p.supply_hose, c.density, c.viscosity);
  laws.return_hose = std::make_shared<Pipe>(p.return_hose, c.density, c.viscosity);
  laws.valve = std::make_shared<Valve>(p.valve, c.density);
  laws.manifold_segment = std::make_shared<Pipe>(p.manifold_segment, c.density, c.viscosity);
  laws.server_hose = std::make_shared<Pipe>(p.server_hose, c.density, c.viscosity);
  laws.plate = std::make_shared<FixedResistance>(p.plate);
  return laws;
}

RackBranches add_rack_manifold(solver::Network& network, const std::string& prefix, Index supply_tap,
                               Index return_tap, const RackManifoldParameters& p, const RackLaws& laws) {
  p.validate("");
  RackBranches r;
  r.supply_tap = supply_tap;
  r.return_tap = return_tap;
  const Index valve_inlet = network.add_node(prefix + "/valve_inlet");
  r.supply_hose = network.add_branch(prefix + "/supply_hose", supply_tap, valve_inlet, laws.supply_hose);
  const HeaderPair manifold =
      add_header_pair(network, prefix + "/", p.servers, laws.manifold_segment, laws.manifold_segment, p.manifold);
  r.valve = network.add_branch(prefix + "/valve", valve_inlet, manifold.supply_inlet, laws.valve);
  for (int s = 0; s < p.servers; ++s) {
    const std::string server = prefix + "/server" + std::to_string(s);
    const Index inlet = network.add_node(server + "/inlet");
    const Index outlet = network.add_node(server + "/outlet");
    r.server_supply_hoses.push_back(
        network.add_branch(server + "/supply_hose", manifold.supply_taps[at(s)], inlet, laws.server_hose));
    if (p.plates == PlateArrangement::parallel) {
      for (int j = 0; j < p.plates_per_server; ++j)
        r.plates.push_back(network.add_branch(server + "/plate" + std::to_string(j), inlet, outlet, laws.plate));
    } else {
      for (int j = 0; j < p.plates_per_server / 2; ++j) {
        const Index middle = network.add_node(server + "/pair" + std::to_string(j));
        r.plates.push_back(network.add_branch(server + "/plate" + std::to_string(2 * j), inlet, middle, laws.plate));
        r.plates.push_back(
            network.add_branch(server + "/plate" + std::to_string(2 * j + 1), middle, outlet, laws.plate));
      }
    }
    network.add_branch(server + "/return_hose", outlet, manifold.return_taps[at(s)], laws.server_hose);
  }
  r.return_hose = network.add_branch(prefix + "/return_hose", manifold.return_outlet, return_tap, laws.return_hose);
  return r;
}

namespace {

RackManifoldResult rack_result(const solver::Network& network, const RackBranches& r,
                               const solver::NetworkSolution& s) {
  RackManifoldResult out;
  out.flow = s.flow[at(r.supply_hose)];
  out.pressure_drop = s.pressure[at(r.supply_tap)] - s.pressure[at(r.return_tap)];
  for (Index b : r.plates) {
    out.plate_labels.push_back(network.branch_label(b));
    out.plate_flow.push_back(s.flow[at(b)]);
  }
  for (Index b : r.server_supply_hoses) out.server_flow.push_back(s.flow[at(b)]);
  out.solve = report(s);
  return out;
}

RackManifoldResult solve_single_rack(const RackManifoldParameters& p, const fluid::Coolant& coolant,
                                     double temperature, bool given_flow, double value,
                                     const solver::NetworkSettings& settings) {
  p.validate("");
  solver::Network network("rack");
  const Index supply = given_flow ? network.add_node("supply") : network.add_fixed_node("supply", value);
  const Index ret = network.add_fixed_node("return", 0.0);
  if (given_flow) network.set_inflow(supply, value);
  const RackBranches r =
      add_rack_manifold(network, "rack", supply, ret, p, RackLaws::make(p, coolant.properties(temperature)));
  return rack_result(network, r, solver::solve_network(network, settings));
}

}  // namespace

RackManifoldResult solve_rack_manifold(const RackManifoldParameters& p, const fluid::Coolant& coolant,
                                       double temperature, double pressure_difference,
                                       const solver::NetworkSettings& settings) {
  return solve_single_rack(p, coolant, temperature, false, pressure_difference, settings);
}

RackManifoldResult solve_rack_manifold_at_flow(const RackManifoldParameters& p, const fluid::Coolant& coolant,
                                               double temperature, double flow,
                                               const solver::NetworkSettings& settings) {
  return solve_single_rack(p, coolant, temperature, true, flow, settings);
}

// ---- pod loop -----------------------------------------------------------------------------------

PumpGroupParameters PodLoopParameters::default_pumps() {
  PumpGroupParameters g;
  g.pump = PumpParameters{220e3, 0.064, 1.0, 0.6, 0.78, 0.92, false};
  g.pump_count = 3;
  g.duty_count = 2;
  return g;
}

void PodLoopParameters::validate(const std::string& path) const {
  if (rack_count < 1)
    throw InputError(key(path, "rack_count") + " = " + std::to_string(rack_count) + " (must be >= 1)",
                     key(path, "rack_count"));
  check_openings(rack_valve_openings, rack_count, path, "rack_valve_openings", "rack_count");
  pumps.validate(key(path, "pumps"));
  rack.validate(key(path, "rack"));
}

core::SectionSchema PodLoopParameters::schema() {
  using namespace core;
  const PodLoopParameters d;
  SectionSchema s;
  s.doc = "Pod loop: a CDU pump group feeding the racks through supply and return headers";
  auto p = integer_parameter("rack_count", "Racks on the pod loop (in a facility: layout.racks_per_pod when left out)", d.rack_count,
                             "Llama 3 cluster: 192 racks per pod ([meta-llama3-2024])");
  s.parameters.push_back(at_least(p, 1.0));
  s.parameters.push_back(header_spec(d.headers, "Direct return (first rack nearest both ways) or reverse return"));
  declare_coolant_and_tank(s, d, "Secondary loops run PG25-30 ([liquid-loop-practice])",
                           "ASHRAE W32 supply ([ashrae-tc99-2021])",
                           "Secondary loop pressure 2-6 bar ([liquid-loop-practice])");
  const std::string sizing =
      "Sized here: 2 duty pumps deliver 192 x 16 x 1.5 L/min against ~140 kPa at their best point "
      "(docs/models/hydraulic.md)";
  s.sections["pumps"] = PumpGroupParameters::schema(d.pumps, sizing);
  s.sections["cdu_secondary"] = SectionSchema{
      "CDU heat exchanger, secondary (rack-side) pass",
      FixedResistanceParameters::table(d.cdu_secondary, "CDU secondary pass",
                                       "Estimate: plate heat exchanger, 0.5 bar at the pod's nominal flow"),
      {}, {}, false};
  declare_mains(s, d, "Pipe from the CDU to the first supply tap", "Pipe from the return header's outlet to the CDU",
                "Estimate: DN250 steel, 15 m with elbows and isolation valves",
                "Header pipe between two rack taps (supply and return alike)",
                "Estimate: DN250 steel, 0.6 m rack pitch; a 1-inch tap on the run costs K ~0.05");
  s.sections["rack"] = RackManifoldParameters::schema(d.rack);
  return s;
}

PodLoopParameters PodLoopParameters::from(const core::ParameterTree& s) {
  PodLoopParameters p;
  p.rack_count = static_cast<int>(s.integer("rack_count"));
  read_trunk(p, s);
  p.cdu_secondary = FixedResistanceParameters::from(s.section("cdu_secondary"));
  p.rack = RackManifoldParameters::from(s.section("rack"));
  p.validate(s.path);
  return p;
}

namespace {

PumpLoopTrunk trunk_of(const PodLoopParameters& p) {
  p.validate("");
  return {p.name,       p.coolant,          p.coolant_temperature, p.tank_pressure, p.pumps,
          "cdu",        "cdu/secondary",    p.cdu_secondary,       p.rack_count,    p.headers,
          p.header_segment, p.supply_main, p.return_main};
}

}  // namespace

PodLoop::PodLoop(PodLoopParameters p) : p_(std::move(p)), loop_(trunk_of(p_)) {
  const RackLaws laws = RackLaws::make(p_.rack, loop_.properties());
  const HeaderPair& headers = loop_.headers();
  for (int i = 0; i < p_.rack_count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    racks_.push_back(add_rack_manifold(loop_.network(), "rack" + padded(i, std::max(p_.rack_count, 1000)),
                                       headers.supply_taps[k], headers.return_taps[k], p_.rack, laws));
  }
  for (std::size_t i = 0; i < p_.rack_valve_openings.size(); ++i) set_rack_valve_opening(i, p_.rack_valve_openings[i]);
  loop_.finish();
}

void PodLoop::set_pumps(const PumpGroupParameters& pumps) {
  loop_.set_pumps(pumps);
  p_.pumps = pumps;
}

void PodLoop::set_rack_valve_opening(std::size_t rack, double opening) {
  DCTWIN_DEMAND(rack < racks_.size(), "no such rack");
  loop_.set_valve(racks_[rack].valve, p_.rack.valve, opening);
  record_opening(p_.rack_valve_openings, racks_.size(), p_.rack.valve.opening, rack, opening);
}

PodLoopResult PodLoop::solve(const solver::NetworkSettings& settings) {
  const solver::NetworkSolution& s = loop_.solve(settings);
  const solver::Network& net = loop_.network();
  const HeaderPair& headers = loop_.headers();

  PodLoopResult r;
  const double rho = loop_.properties().density, mu = loop_.properties().viscosity;
  const double main_volume = Pipe(p_.supply_main, rho, mu).volume();
  const double segment_volume = Pipe(p_.header_segment, rho, mu).volume();
  const double hose_volume = Pipe(p_.rack.supply_hose, rho, mu).volume();
  auto delay = [](double volume, double flow) {
    return flow == 0.0 ? std::numeric_limits<double>::infinity() : volume / std::abs(flow);
  };
  double along = delay(main_volume, s.flow[at(loop_.supply_main())]);
  const std::size_t plates = static_cast<std::size_t>(p_.rack.servers * p_.rack.plates_per_server);
  r.plate_labels.reserve(racks_.size() * plates);
  r.plate_flow.reserve(racks_.size() * plates);
  for (std::size_t i = 0; i < racks_.size(); ++i) {
    const RackBranches& rack = racks_[i];
    r.rack_labels.push_back(net.branch_label(rack.valve).substr(0, net.branch_label(rack.valve).find('/')));
    r.rack_flow.push_back(s.flow[at(rack.supply_hose)]);
    r.rack_pressure_drop.push_back(s.pressure[at(rack.supply_tap)] - s.pressure[at(rack.return_tap)]);
    r.rack_supply_delay.push_back(along + delay(hose_volume, s.flow[at(rack.supply_hose)]));
    if (i < headers.supply_segments.size()) along += delay(segment_volume, s.flow[at(headers.supply_segments[i])]);
    for (Index b : rack.plates) {
      r.plate_labels.push_back(net.branch_label(b));
      r.plate_flow.push_back(s.flow[at(b)]);
    }
  }
  r.pumps = loop_.pumps_result();
  const Index cdu = loop_.element();
  r.flow = s.flow[at(cdu)];
  r.cdu_pressure_drop = s.pressure[at(net.from(cdu))] - s.pressure[at(net.to(cdu))];
  r.supply_header_pressure_drop =
      s.pressure[at(headers.supply_taps.front())] - s.pressure[at(headers.supply_taps.back())];
  const Index far = p_.headers == HeaderArrangement::reverse_return ? headers.return_taps.front()
                                                                     : headers.return_taps.back();
  r.return_header_pressure_drop = s.pressure[at(far)] - s.pressure[at(headers.return_outlet)];
  r.solve = report(s);
  return r;
}

PodLoopResult solve_pod_loop(const PodLoopParameters& p, const solver::NetworkSettings& settings) {
  PodLoop loop(p);
  return loop.solve(settings);
}

// ---- facility loop ------------------------------------------------------------------------------

PumpGroupParameters FacilityLoopParameters::default_pumps() {
  PumpGroupParameters g;
  g.pump = PumpParameters{320e3, 0.283, 1.0, 0.6, 0.82, 0.94, false};
  g.pump_count = 4;
  g.duty_count = 3;
  return g;
}

void FacilityLoopParameters::validate(const std::string& path) const {
  if (pod_count < 1)
    throw InputError(key(path, "pod_count") + " = " + std::to_string(pod_count) + " (must be >= 1)",
                     key(path, "pod_count"));
  check_openings(cdu_valve_openings, pod_count, path, "cdu_valve_openings", "pod_count");
  pumps.validate(key(path, "pumps"));
}

core::SectionSchema FacilityLoopParameters::schema() {
  using namespace core;
  const FacilityLoopParameters d;
  SectionSchema s;
  s.doc = "Facility loop: the CDU primaries of the pods in parallel on the facility pumps and the plant";
  auto p = integer_parameter("pod_count", "Pods (CDU primaries) on the loop", d.pod_count,
                             "Llama 3 cluster: 8 pods of 192 racks ([meta-llama3-2024])");
  s.parameters.push_back(at_least(p, 1.0));
  s.parameters.push_back(header_spec(d.headers, "Direct return or reverse return between the pods"));
  declare_coolant_and_tank(
      s, d, "Estimate: chilled/condenser water; use a glycol mix with dry coolers",
      "Estimate: W32 secondary minus a 3-5 K CDU approach ([ashrae-tc99-2021], [liquid-loop-practice])", "Estimate");
  s.sections["pumps"] = PumpGroupParameters::schema(
      d.pumps, "Sized here: 3 duty pumps deliver 8 x 0.06 m3/s against ~220 kPa at their best point "
               "(docs/models/hydraulic.md)");
  s.sections["plant"] = SectionSchema{
      "Heat-rejection plant (chillers, dry coolers, cooling towers) as one resistance",
      FixedResistanceParameters::table(d.plant, "plant", "Estimate: 0.8 bar at the facility's nominal flow"), {}, {},
      false};
  declare_mains(s, d, "Pipe from the plant to the first pod tap", "Pipe from the return header's outlet to the pumps",
                "Estimate: DN500 steel, 50 m with elbows and isolation valves",
                "Header pipe between two pod taps (supply and return alike)", "Estimate: DN450 steel, 30 m between pods");
  s.sections["cdu_pipe"] = SectionSchema{
      "Pipe from a header tap to a CDU and back",
      PipeParameters::table(d.cdu_pipe, "Estimate: DN200 steel, 10 m, elbows and isolation valves"), {}, {}, false};
  s.sections["cdu_valve"] = SectionSchema{
      "CDU primary control valve",
      ValveParameters::table(d.cdu_valve, "Estimate: ~0.3 bar at 0.06 m3/s fully open"), {}, {}, false};
  s.sections["cdu_primary"] = SectionSchema{
      "CDU heat exchanger, primary (facility-side) pass",
      FixedResistanceParameters::table(d.cdu_primary, "CDU primary pass",
                                       "Estimate: plate heat exchanger, 0.5 bar at ~2.5 MW and 10 K"),
      {}, {}, false};
  return s;
}

FacilityLoopParameters FacilityLoopParameters::from(const core::ParameterTree& s) {
  FacilityLoopParameters p;
  p.pod_count = static_cast<int>(s.integer("pod_count"));
  read_trunk(p, s);
  p.plant = FixedResistanceParameters::from(s.section("plant"));
  p.cdu_pipe = PipeParameters::from(s.section("cdu_pipe"));
  p.cdu_valve = ValveParameters::from(s.section("cdu_valve"));
  p.cdu_primary = FixedResistanceParameters::from(s.section("cdu_primary"));
  p.validate(s.path);
  return p;
}

namespace {

PumpLoopTrunk trunk_of(const FacilityLoopParameters& p) {
  p.validate("");
  return {p.name,  p.coolant, p.coolant_temperature, p.tank_pressure, p.pumps,         "plant",
          "plant", p.plant,   p.pod_count,           p.headers,       p.header_segment, p.supply_main,
          p.return_main};
}

}  // namespace

FacilityLoop::FacilityLoop(FacilityLoopParameters p) : p_(std::move(p)), loop_(trunk_of(p_)) {
  const double rho = loop_.properties().density, mu = loop_.properties().viscosity;
  solver::Network& net = loop_.network();
  const HeaderPair& headers = loop_.headers();
  auto pipe = std::make_shared<Pipe>(p_.cdu_pipe, rho, mu);
  auto valve = std::make_shared<Valve>(p_.cdu_valve, rho);
  auto hx = std::make_shared<FixedResistance>(p_.cdu_primary);
  for (int j = 0; j < p_.pod_count; ++j) {
    const auto k = static_cast<std::size_t>(j);
    const std::string pod = "pod" + padded(j, p_.pod_count);
    const Index valve_inlet = net.add_node(pod + "/valve_inlet");
    const Index hx_inlet = net.add_node(pod + "/hx_inlet");
    pod_supply_.push_back(net.add_branch(pod + "/pipe", headers.supply_taps[k], valve_inlet, pipe));
    pod_valves_.push_back(net.add_branch(pod + "/valve", valve_inlet, hx_inlet, valve));
    net.add_branch(pod + "/cdu_primary", hx_inlet, headers.return_taps[k], hx);
  }
  for (std::size_t j = 0; j < p_.cdu_valve_openings.size(); ++j) set_cdu_valve_opening(j, p_.cdu_valve_openings[j]);
  loop_.finish();
}

void FacilityLoop::set_pumps(const PumpGroupParameters& pumps) {
  loop_.set_pumps(pumps);
  p_.pumps = pumps;
}

void FacilityLoop::set_cdu_valve_opening(std::size_t pod, double opening) {
  DCTWIN_DEMAND(pod < pod_valves_.size(), "no such pod");
  loop_.set_valve(pod_valves_[pod], p_.cdu_valve, opening);
  record_opening(p_.cdu_valve_openings, pod_valves_.size(), p_.cdu_valve.opening, pod, opening);
}

FacilityLoopResult FacilityLoop::solve(const solver::NetworkSettings& settings) {
  const solver::NetworkSolution& s = loop_.solve(settings);
  const solver::Network& net = loop_.network();
  const HeaderPair& headers = loop_.headers();
  FacilityLoopResult r;
  for (std::size_t j = 0; j < pod_valves_.size(); ++j) {
    const std::string& label = net.branch_label(pod_valves_[j]);
    r.pod_labels.push_back(label.substr(0, label.find('/')));
    r.pod_flow.push_back(s.flow[at(pod_valves_[j])]);
    r.pod_pressure_drop.push_back(s.pressure[at(headers.supply_taps[j])] - s.pressure[at(headers.return_taps[j])]);
  }
  r.pumps = loop_.pumps_result();
  const Index plant = loop_.element();
  r.flow = s.flow[at(plant)];
  r.plant_pressure_drop = s.pressure[at(net.from(plant))] - s.pressure[at(net.to(plant))];
  r.solve = report(s);
  return r;
}

FacilityLoopResult solve_facility_loop(const FacilityLoopParameters& p, const solver::NetworkSettings& settings) {
  FacilityLoop loop(p);
  return loop.solve(settings);
}

}  // namespace dctwin::models::hydraulic
