#include "dctwin/models/electrical/conversion.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Core>
#include <unsupported/Eigen/MatrixFunctions>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::electrical {

namespace {

using core::ParameterTable;

/// Reads a list of efficiency points, or `fallback` when the list is empty or absent.
std::vector<EfficiencyPoint> read_curve(const core::ParameterTree& s, const std::string& name,
                                        std::vector<EfficiencyPoint> fallback) {
  const auto found = s.lists.find(name);
  if (found == s.lists.end() || found->second.empty()) return fallback;
  std::vector<EfficiencyPoint> points;
  for (const auto& entry : found->second) points.push_back(EfficiencyPoint::from(entry));
  return points;
}

core::SectionSchema point_schema(const std::string& doc) {
  core::SectionSchema point;
  point.doc = doc;
  point.parameters = EfficiencyPoint::table();
  return point;
}

std::string list_text(const std::vector<EfficiencyPoint>& points) {
  std::string text;
  for (const auto& point : points) {
    if (!text.empty()) text += ", ";
    text += format_number(point.load_fraction) + " -> " + format_number(point.efficiency);
  }
  return text;
}

}  // namespace

// ---- efficiency curves --------------------------------------------------------------------------

namespace {

const ParameterDeclarations<EfficiencyPoint>& point_declarations() {
  static const ParameterDeclarations<EfficiencyPoint> declared = [] {
    ParameterDeclarations<EfficiencyPoint> d;
    using P = EfficiencyPoint;
    d.real("load_fraction", &P::load_fraction, "1", "x: output power per rated output power", "Given with each point")
        .above(0.0)
        .required();
    d.real("efficiency", &P::efficiency, "1", "eta: output power per input power at that load", "Given with each point")
        .above(0.0)
        .at_most(1.0)
        .required();
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable EfficiencyPoint::table() { return point_declarations().table(); }

EfficiencyPoint EfficiencyPoint::from(const core::ParameterTree& s) { return point_declarations().read(s); }

void check_efficiency_curve(const std::vector<EfficiencyPoint>& points, const std::string& list_path) {
  if (points.size() < 2)
    ParameterCheck(list_path).fail("an efficiency curve needs at least 2 points (" +
                                       std::to_string(points.size()) + " given)");
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string point_path = list_path + "[" + std::to_string(i) + "]";
    point_declarations().check(points[i], point_path);
    if (i > 0)
      ParameterCheck(point_path)
          .greater_than("load_fraction", points[i].load_fraction, points[i - 1].load_fraction, "");
  }
}

namespace {
/// Lanes a conversion kernel forms side by side (buffers on the stack).
constexpr std::size_t kLanes = 16;

/// eta at the m <= kLanes load fractions x, as interpolate_efficiency's definition reads: the
/// segment (i - 1, i) with i the first point at or beyond x, found by a pass over the points that
/// keeps, lane by lane, the last segment whose start lies below x (the points increase), so
/// that the lanes take the same operations; the ends held. The same bits as a search per value.
DCTWIN_VECTOR_VARIANTS void interpolate_lanes(const EfficiencyPoint* c, std::size_t points, std::size_t m,
                                              const double* __restrict x, double* __restrict eta) {
  if (points == 1) {
    for (std::size_t l = 0; l < m; ++l) eta[l] = c[0].efficiency;
    return;
  }
  double x0[kLanes], x1[kLanes], e0[kLanes], e1[kLanes];
  for (std::size_t l = 0; l < m; ++l) {
    x0[l] = c[0].load_fraction;
    x1[l] = c[1].load_fraction;
    e0[l] = c[0].efficiency;
    e1[l] = c[1].efficiency;
  }
  for (std::size_t s = 1; s + 1 < points; ++s) {
    const double xs = c[s].load_fraction, xn = c[s + 1].load_fraction, es = c[s].efficiency, en = c[s + 1].efficiency;
    for (std::size_t l = 0; l < m; ++l) {
      const bool beyond = xs < x[l];
      x0[l] = beyond ? xs : x0[l];
      x1[l] = beyond ? xn : x1[l];
      e0[l] = beyond ? es : e0[l];
      e1[l] = beyond ? en : e1[l];
    }
  }
  const double first_x = c[0].load_fraction, first_eta = c[0].efficiency;
  const double last_x = c[points - 1].load_fraction, last_eta = c[points - 1].efficiency;
  for (std::size_t l = 0; l < m; ++l) {
    const double w = (x[l] - x0[l]) / (x1[l] - x0[l]);
    const double inner = e0[l] + w * (e1[l] - e0[l]);
    eta[l] = !(x[l] > first_x) ? first_eta : x[l] >= last_x ? last_eta : inner;
  }
}
}  // namespace

double interpolate_efficiency(const std::vector<EfficiencyPoint>& c, double x) {
  double eta = 0.0;
  interpolate_efficiencies(c, 1, &x, &eta);
  return eta;
}

void interpolate_efficiencies(const std::vector<EfficiencyPoint>& c, std::size_t n, const double* x, double* eta) {
  DCTWIN_DEMAND(!c.empty(), "efficiency curve without points");
  for (std::size_t first = 0; first < n; first += kLanes)
    interpolate_lanes(c.data(), c.size(), std::min(kLanes, n - first), x + first, eta + first);
}

// ---- PSUs ---------------------------------------------------------------------------------------

std::vector<EfficiencyPoint> PsuParameters::default_efficiency() {
  return {{0.1, 0.90}, {0.2, 0.94}, {0.5, 0.96}, {1.0, 0.91}};
}

namespace {

const ParameterDeclarations<PsuParameters>& psu_declarations() {
  static const ParameterDeclarations<PsuParameters> declared = [] {
    ParameterDeclarations<PsuParameters> d;
    using P = PsuParameters;
    d.integer("supplies", &P::supplies, "Power supplies per server",
              "NVIDIA DGX H100: six 3.3 kW supplies per system (DGX H100 user guide)")
        .at_least(1.0);
    d.real("supply_rated_power", &P::supply_rated_power, "W", "Rated output power of one supply",
           "NVIDIA DGX H100: 3.3 kW per supply (DGX H100 user guide)")
        .above(0.0)
        .shown_in("kW");
    d.integer("active_supplies", &P::active_supplies,
              "Supplies that carry the server's load (N of an N+N arrangement)",
              "DGX H100 N+N redundancy: 3 of 6 supplies carry a 10.2 kW system (DGX H100 user guide)")
        .at_least(1.0);
    d.real("bulk_capacitance", &P::bulk_capacitance, "F", "Bulk (PFC output) capacitance of one supply",
           "Estimate (uncertain): 10 ms hold-up at 3.3 kW between 400 V and 300 V needs ~0.94 mF (33 J = 1/2 C "
           "(400^2 - 300^2)); rounded up")
        .above(0.0)
        .shown_in("mF");
    d.real("bulk_voltage_nominal", &P::bulk_voltage_nominal, "V",
           "Bulk capacitor voltage held by the PFC stage in steady state",
           "Estimate (uncertain): boost PFC stages of 230 V supplies regulate ~380-400 V DC")
        .above(0.0);
    d.real("bulk_voltage_min", &P::bulk_voltage_min, "V",
           "Bulk voltage below which the supply's DC-DC stage drops out",
           "Estimate (uncertain): ~75 % of the nominal bulk voltage")
        .above(0.0);
    d.real("pfc_time_constant", &P::pfc_time_constant, "s",
           "Lag of the input power behind the output power (PFC voltage loop)",
           "Estimate (uncertain): PFC voltage loops cross over at ~10-20 Hz to reject the 100/120 Hz ripple; 1 / (2 "
           "pi 16 Hz) ~ 10 ms")
        .above(0.0)
        .shown_in("ms");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable PsuParameters::table() { return psu_declarations().table(); }

core::SectionSchema PsuParameters::schema() {
  core::SectionSchema s;
  s.doc = "Server power supplies: efficiency curve, bulk capacitors (hold-up), PFC input lag";
  s.parameters = table();
  s.lists["efficiency"] = point_schema(
      "Efficiency curve point, load fraction of one active supply (default: 80 PLUS Titanium 230 V internal, " +
      list_text(default_efficiency()) + ", [80plus-titanium])");
  return s;
}

PsuParameters PsuParameters::from(const core::ParameterTree& s) {
  PsuParameters p = psu_declarations().read(s);
  p.efficiency = read_curve(s, "efficiency", default_efficiency());
  p.check(section_path(s, "electrical.psu"));
  return p;
}

void PsuParameters::check(const std::string& section) const {
  const ParameterCheck check(section);
  psu_declarations().check(*this, section);
  if (active_supplies > supplies)
    check.fail("active_supplies " + std::to_string(active_supplies) + " is more than supplies " +
               std::to_string(supplies));
  if (bulk_voltage_min >= bulk_voltage_nominal)
    check.fail("bulk_voltage_min " + format_number(bulk_voltage_min) + " V must be below bulk_voltage_nominal " +
               format_number(bulk_voltage_nominal) + " V");
  check_efficiency_curve(efficiency, section + ".efficiency");
}

PsuBank::PsuBank(const PsuParameters& p, std::size_t servers) : p_(p) {
  p_.check("electrical.psu");
  DCTWIN_DEMAND(servers > 0, "a PSU bank needs at least one server");
  carrying_ = static_cast<double>(servers) * static_cast<double>(p_.active_supplies);
}

double PsuBank::load_fraction(double output_power) const {
  return output_power / (carrying_ * p_.supply_rated_power);
}

double PsuBank::efficiency(double output_power) const {
  return interpolate_efficiency(p_.efficiency, load_fraction(output_power));
}

void PsuBank::efficiencies(std::size_t n, const double* output_power, double* eta) const {
  double fraction[kLanes];
  for (std::size_t first = 0; first < n; first += kLanes) {
    const std::size_t m = std::min(kLanes, n - first);
    for (std::size_t l = 0; l < m; ++l) fraction[l] = load_fraction(output_power[first + l]);
    interpolate_efficiencies(p_.efficiency, m, fraction, eta + first);
  }
}

double PsuBank::bulk_energy_at(double voltage) const {
  return carrying_ * 0.5 * p_.bulk_capacitance * voltage * voltage;
}

double PsuBank::bulk_voltage(double bulk_energy) const {
  return std::sqrt(std::max(0.0, 2.0 * bulk_energy / (carrying_ * p_.bulk_capacitance)));
}

PsuState PsuBank::steady_state(double output_power) const {
  return {output_power / efficiency(output_power), bulk_energy_at(p_.bulk_voltage_nominal)};
}

PsuStep PsuBank::step(PsuState& state, double h, double output_start, double output_end) const {
  return step(state, h, output_start, output_end, efficiency(0.5 * (output_start + output_end)));
}

namespace {
/// PsuBank::step for m lineups side by side, with the propagator P over h formed:
///   z0 = (E - E_nom, eta P_in, 0, P_out(0), dP_out/dt),  z1 = P z0,
///   W_in = z1_2 / eta, W_out = mean P_out h, dE = z1_2 - W_out, loss = W_in - W_out - dE,
///   P_in <- z1_1 / eta, E <- E + dE
/// (z1_0, z1_3 and z1_4 are not needed). Lane by lane the operations of one lineup's step.
DCTWIN_VECTOR_VARIANTS void psu_lanes(const double* __restrict propagator, double nominal_bulk_energy, double h,
                                      std::size_t m, const double* __restrict output_start,
                                      const double* __restrict output_end, const double* __restrict eta,
                                      double* __restrict input_power, double* __restrict bulk_energy,
                                      double* __restrict input_energy, double* __restrict output_energy,
                                      double* __restrict loss, double* __restrict bulk_energy_change) {
  for (std::size_t l = 0; l < m; ++l) {
    const double mean_output = 0.5 * (output_start[l] + output_end[l]);
    const double z0[5] = {bulk_energy[l] - nominal_bulk_energy, eta[l] * input_power[l], 0.0, output_start[l],
                          (output_end[l] - output_start[l]) / h};
    double z1_1 = 0.0, z1_2 = 0.0;
    for (std::size_t j = 0; j < 5; ++j) z1_1 += propagator[5 + j] * z0[j];
    for (std::size_t j = 0; j < 5; ++j) z1_2 += propagator[10 + j] * z0[j];
    input_energy[l] = z1_2 / eta[l];
    output_energy[l] = mean_output * h;
    bulk_energy_change[l] = z1_2 - output_energy[l];
    loss[l] = input_energy[l] - output_energy[l] - bulk_energy_change[l];
    input_power[l] = z1_1 / eta[l];
    bulk_energy[l] += bulk_energy_change[l];
  }
}
}  // namespace

PsuStep PsuBank::step(PsuState& state, double h, double output_start, double output_end, double eta) const {
  PsuStep out;
  step_each(1, h, &output_start, &output_end, &eta, &state.input_power, &state.bulk_energy, &out.input_energy,
            &out.output_energy, &out.loss, &out.bulk_energy_change);
  return out;
}

void PsuBank::step_each(std::size_t n, double h, const double* output_start, const double* output_end,
                        const double* eta, double* input_power, double* bulk_energy, double* input_energy,
                        double* output_energy, double* loss, double* bulk_energy_change) const {
  DCTWIN_DEMAND(h >= 0.0, "PSU step length must be >= 0");
  bool eta_valid = true;
  for (std::size_t l = 0; l < n; ++l) eta_valid &= eta[l] > 0.0 && eta[l] <= 1.0;
  DCTWIN_DEMAND(eta_valid, "PSU efficiency must be in (0, 1]");
  if (h == 0.0) {
    for (std::size_t l = 0; l < n; ++l) input_energy[l] = output_energy[l] = loss[l] = bulk_energy_change[l] = 0.0;
    return;
  }
  if (h != cached_step_) {
    // z = (e, y, q, P, s) with y = eta P_in, q = integral of y, P = P_out, s = dP_out/dt:
    //   e' = y - P,  y' = (P - y - e / T_r) / tau,  q' = y,  P' = s,  s' = 0.
    const double tau = p_.pfc_time_constant;
    const double regulation = 4.0 * tau;  // T_r, critical damping
    Eigen::Matrix<double, 5, 5> a = Eigen::Matrix<double, 5, 5>::Zero();
    a(0, 1) = 1.0;
    a(0, 3) = -1.0;
    a(1, 0) = -1.0 / (regulation * tau);
    a(1, 1) = -1.0 / tau;
    a(1, 3) = 1.0 / tau;
    a(2, 1) = 1.0;
    a(3, 4) = 1.0;
    const Eigen::Matrix<double, 5, 5> e = (a * h).exp();
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) propagator_[static_cast<std::size_t>(5 * i + j)] = e(i, j);
    cached_step_ = h;
  }
  psu_lanes(propagator_.data(), nominal_bulk_energy(), h, n, output_start, output_end, eta, input_power, bulk_energy,
            input_energy, output_energy, loss, bulk_energy_change);
}

// ---- BBUs ---------------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<BbuParameters>& bbu_declarations() {
  static const ParameterDeclarations<BbuParameters> declared = [] {
    ParameterDeclarations<BbuParameters> d;
    using P = BbuParameters;
    d.integer("units_per_rack", &P::units_per_rack, "Battery backup units on each rack's busbar",
              "Estimate (uncertain): Open Rack v3 BBU shelves of 15 kW ([ocp-open-rack-v3]); two cover a rack of two "
              "~10 kW servers")
        .at_least(0.0);
    d.real("unit_rated_power", &P::unit_rated_power, "W",
           "Discharge rating of one unit at the busbar; a busbar load above the rack's units' rating trips them",
           "Open Rack v3 BBU 15 kW, up to 4 min hold-up ([ocp-open-rack-v3])")
        .above(0.0)
        .shown_in("kW");
    d.real("standby_loss", &P::standby_loss, "W", "Float charging and management loss of one unit",
           "Estimate (uncertain): charger and battery management of a ~15 kW Li-ion module draw a few tens of W at "
           "float")
        .at_least(0.0);
    d.real("unit_energy", &P::unit_energy, "J", "Usable energy of one unit (0: no discharge)",
           "Open Rack v3 BBU: 15 kW for up to 240 s, 15 kW x 240 s = 3.6 MJ ([ocp-orv3-hpr-psu], [ocp-open-rack-v3])")
        .at_least(0.0)
        .shown_in("MJ");
    d.real("discharge_efficiency", &P::discharge_efficiency, "1",
           "Energy delivered to the busbar per energy taken from the cells (also stored per energy drawn while "
           "recharging)",
           "Estimate (uncertain): the BBU's boost converter to the 48 V busbar, ~97 %")
        .above(0.0)
        .at_most(1.0);
    d.real("transfer_time", &P::transfer_time, "s", "From the busbar's loss of feed to the BBUs carrying it",
           "Open Rack v3 power shelf: the BBU is triggered after the bus has been low for 2 ms and starts within 2 "
           "ms, 4 ms in all; the PSU's hold-up bridges it ([ocp-orv3-hpr-psu])")
        .at_least(0.0)
        .shown_in("ms");
    d.real("recharge_power", &P::recharge_power, "W", "Power one unit draws from the busbar while it recharges",
           "Estimate (uncertain): a 1 kWh module recharged in about 45 min")
        .at_least(0.0)
        .shown_in("kW");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable BbuParameters::table() { return bbu_declarations().table(); }

BbuParameters BbuParameters::from(const core::ParameterTree& s) {
  BbuParameters p = bbu_declarations().read(s);
  p.check(section_path(s, "electrical.bbu"));
  return p;
}

void BbuParameters::check(const std::string& section) const { bbu_declarations().check(*this, section); }

double BbuParameters::loss(std::size_t racks) const {
  return static_cast<double>(racks) * static_cast<double>(units_per_rack) * standby_loss;
}

double BbuParameters::energy(std::size_t racks) const {
  return static_cast<double>(racks) * static_cast<double>(units_per_rack) * unit_energy;
}

// ---- PDUs ---------------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<PduParameters>& pdu_declarations() {
  static const ParameterDeclarations<PduParameters> declared = [] {
    ParameterDeclarations<PduParameters> d;
    using P = PduParameters;
    d.real("rated_power", &P::rated_power, "W", "Rated power of all PDUs of one lineup together",
           "Estimate (uncertain): one pod of 384 servers at up to ~10 kW, ~4 MW, with margin")
        .above(0.0)
        .shown_in("MW");
    d.real("loss_fraction_at_rated", &P::loss_fraction_at_rated, "1", "Resistive loss at rated power per rated power",
           "Estimate (uncertain): busway, cables and panel boards without transformers lose ~0.5-1.5 % at full load")
        .at_least(0.0)
        .below(1.0);
    d.real("no_load_loss", &P::no_load_loss, "W", "Loss independent of load (transformer-type PDUs), per lineup",
           "0: PDUs without transformers (remote power panels, busway)")
        .at_least(0.0);
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable PduParameters::table() { return pdu_declarations().table(); }

PduParameters PduParameters::from(const core::ParameterTree& s) {
  PduParameters p = pdu_declarations().read(s);
  p.check(section_path(s, "electrical.pdu"));
  return p;
}

void PduParameters::check(const std::string& section) const { pdu_declarations().check(*this, section); }

// ---- UPS ----------------------------------------------------------------------------------------

std::vector<EfficiencyPoint> UpsParameters::default_double_conversion() {
  return {{0.1, 0.90}, {0.25, 0.955}, {0.5, 0.965}, {0.75, 0.966}, {1.0, 0.963}};
}

std::vector<EfficiencyPoint> UpsParameters::default_eco() {
  return {{0.1, 0.97}, {0.25, 0.985}, {0.5, 0.99}, {1.0, 0.99}};
}

namespace {

const ParameterDeclarations<UpsParameters>& ups_declarations() {
  static const ParameterDeclarations<UpsParameters> declared = [] {
    ParameterDeclarations<UpsParameters> d;
    using P = UpsParameters;
    d.choice("mode", &P::mode, {"double_conversion", "eco"},
             "Operating mode: double conversion (rectifier + inverter) or eco (static bypass, inverter on standby)",
             "Double conversion is the usual mode of data-centre UPS");
    d.real("rated_power", &P::rated_power, "W", "Rated output power of one lineup's UPS",
           "Estimate (uncertain): one pod (~4 MW IT) per lineup, e.g. four 1.25 MW modules")
        .above(0.0)
        .shown_in("MW");
    d.real("input_power_factor", &P::input_power_factor, "1",
           "Power factor at the UPS input (lineup's reactive demand)",
           "Estimate (uncertain): active-front-end UPS rectifiers state input power factor >= 0.99")
        .above(0.0)
        .at_most(1.0);
    d.real("battery_autonomy", &P::battery_autonomy, "s",
           "Time the battery carries the rated output (usable energy = rated_power x this / battery_efficiency); 0: "
           "no battery, an input loss passes to the output",
           "Estimate (uncertain): data-centre UPS batteries are commonly sized for ~5 min at full load, long enough "
           "for generators to start and take the load")
        .at_least(0.0)
        .shown_in("min");
    d.real("battery_efficiency", &P::battery_efficiency, "1",
           "Battery mode: output power per power taken from the battery (also stored per power drawn while "
           "recharging)",
           "Estimate (uncertain): the inverter stage of a double-conversion UPS alone, ~96-97 %")
        .above(0.0)
        .at_most(1.0);
    d.real("input_voltage_min", &P::input_voltage_min, "1",
           "Least input voltage, per nominal, the UPS runs from; a deeper sag moves it to its battery",
           "Estimate (uncertain): three-phase UPS state an input tolerance of about -15 % at full load before they "
           "draw on the battery")
        .above(0.0)
        .at_most(1.0);
    d.real("transfer_time", &P::transfer_time, "s",
           "Eco mode: from the input's loss to the inverter carrying the output (double conversion transfers "
           "nothing: the inverter already carries the load, IEC 62040-3 class VFI)",
           "Estimate (uncertain): eco-mode transfers of large UPS within a quarter cycle, 4 ms at 60 Hz "
           "([iec-62040-3] for the VFI / VI / VFD classes)")
        .at_least(0.0)
        .shown_in("ms");
    d.real("recharge_power", &P::recharge_power, "W",
           "Power drawn at the input to recharge the battery after a discharge",
           "Estimate (uncertain): chargers of ~5 % of the UPS rating")
        .at_least(0.0)
        .shown_in("MW");
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable UpsParameters::table() { return ups_declarations().table(); }

core::SectionSchema UpsParameters::schema() {
  core::SectionSchema s;
  s.doc = "UPS of a lineup: mode, rating, efficiency curves";
  s.parameters = table();
  s.lists["double_conversion_efficiency"] = point_schema(
      "Efficiency curve point in double-conversion mode (default: " + list_text(default_double_conversion()) +
      "; Estimate (uncertain): typical of published curves of large transformerless three-phase UPS, 95-97 % "
      "above 25 % load)");
  s.lists["eco_efficiency"] = point_schema(
      "Efficiency curve point in eco mode (default: " + list_text(default_eco()) +
      "; Estimate (uncertain): vendors state ~99 % in eco / bypass modes)");
  return s;
}

UpsParameters UpsParameters::from(const core::ParameterTree& s) {
  UpsParameters p = ups_declarations().read(s);
  p.double_conversion_efficiency =
      read_curve(s, "double_conversion_efficiency", default_double_conversion());
  p.eco_efficiency = read_curve(s, "eco_efficiency", default_eco());
  p.check(section_path(s, "electrical.ups"));
  return p;
}

void UpsParameters::check(const std::string& section) const {
  ups_declarations().check(*this, section);
  check_efficiency_curve(double_conversion_efficiency, section + ".double_conversion_efficiency");
  check_efficiency_curve(eco_efficiency, section + ".eco_efficiency");
}

const std::vector<EfficiencyPoint>& UpsParameters::curve() const {
  return mode == "eco" ? eco_efficiency : double_conversion_efficiency;
}

double UpsParameters::input_power(double output_power) const { return input_power(output_power, curve()); }

double UpsParameters::input_power(double output_power, const std::vector<EfficiencyPoint>& curve) const {
  double input = 0.0;
  input_powers(1, &output_power, curve, &input);
  return input;
}

void UpsParameters::input_powers(std::size_t n, const double* output_power, const std::vector<EfficiencyPoint>& curve,
                                 double* input_power) const {
  double fraction[kLanes], eta[kLanes];
  for (std::size_t first = 0; first < n; first += kLanes) {
    const std::size_t m = std::min(kLanes, n - first);
    for (std::size_t l = 0; l < m; ++l) fraction[l] = output_power[first + l] / rated_power;
    interpolate_efficiencies(curve, m, fraction, eta);
    for (std::size_t l = 0; l < m; ++l) input_power[first + l] = output_power[first + l] / eta[l];
  }
}

// ---- switchboard --------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<SwitchboardParameters>& switchboard_declarations() {
  static const ParameterDeclarations<SwitchboardParameters> declared = [] {
    ParameterDeclarations<SwitchboardParameters> d;
    using P = SwitchboardParameters;
    d.real("rated_power", &P::rated_power, "W", "Rated power of one lineup's LV switchboard",
           "Estimate (uncertain): matches the lineup's UPS rating")
        .above(0.0)
        .shown_in("MW");
    d.real("loss_fraction_at_rated", &P::loss_fraction_at_rated, "1",
           "Resistive loss (bus bars, breakers, LV cables) at rated power per rated power",
           "Estimate (uncertain): ~0.2-0.3 % for a switchboard and its short LV runs at full load")
        .at_least(0.0)
        .below(1.0);
    return d;
  }();
  return declared;
}

}  // namespace

ParameterTable SwitchboardParameters::table() { return switchboard_declarations().table(); }

SwitchboardParameters SwitchboardParameters::from(const core::ParameterTree& s) {
  SwitchboardParameters p = switchboard_declarations().read(s);
  p.check(section_path(s, "electrical.switchboard"));
  return p;
}

void SwitchboardParameters::check(const std::string& section) const {
  switchboard_declarations().check(*this, section);
}

}  // namespace dctwin::models::electrical
