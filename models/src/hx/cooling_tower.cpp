// Cooling tower: YorkCalc and CoolTools approach correlations, calibration, free convection,
// fan power and make-up water.
#include "dctwin/models/hx/cooling_tower.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dctwin/core/check.hpp"
#include "dctwin/models/hx/fan_speed.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

constexpr double kelvin_offset = 273.15;

// EnergyPlus Engineering Reference, Table 63 ("Approach Temperature Correlation Coefficients"),
// YorkCalc column; term order T_wb^i T_r^j LG^k with i fastest, then j, then k.
constexpr std::array<double, 27> yorkcalc_coefficients{
    -0.359741205,        -0.055053608,   0.0023850432,       0.173926877,        -0.0248473764,
    0.00048430224,       -0.005589849456, 0.0005770079712,   -0.00001342427256,  2.84765801111111,
    -0.121765149,        0.0014599242,   1.680428651,        -0.0166920786,      -0.0007190532,
    -0.025485194448,     0.0000487491696, 0.00002719234152,  -0.0653766255555556, -0.002278167,
    0.0002500254,        -0.0910565458,  0.00318176316,      0.000038621772,     -0.0034285382352,
    0.00000856589904,    -0.000001516821552};

// Same table, CoolTools column (Benton et al. 2002); terms in the order of the EnergyPlus
// equation: 1, a, a2, a3, w, a w, a2 w, w2, a w2, w3, t, a t, a2 t, w t, a w t, w2 t, t2, a t2,
// w t2, t3, r, a r, a2 r, w r, a w r, w2 r, t r, a t r, w t r, t2 r, r2, a r2, w r2, t r2, r3
// (a = FR_air, w = FR_water, t = T_wb, r = T_r).
constexpr std::array<double, 35> cooltools_coefficients{
    0.52049709836241,     -10.617046395344,   10.7292974722538,   -2.74988377158227,  4.73629943913743,
    -8.25759700874711,    1.57640938114136,   6.51119643791324,   1.50433525206692,   -3.2888529287801,
    0.02577861453538,     0.18246428931525,   -0.08189472914009,  -0.21501000399629,  0.01867413096353,
    0.053682417759,       -0.00270968955115,  0.00112277498589,   -0.00127758497498,  7.60420796601607E-05,
    1.43600088336017,     -0.5198695909109,   0.11733957691051,   1.50492810819924,   -0.13589890592697,
    -0.15257758186651,    -0.05338438281146,  0.00493294869566,   -0.00796260394174,  0.00022261982862,
    -0.05439520015681,    0.00474266879162,   -0.01858546718156,  0.00115667701294,   0.00080737066446};

// EnergyPlus Engineering Reference, Table 64.
constexpr TowerCorrelationData yorkcalc_data{-34.4, 26.7, 1.1, 22.2, 1.1, 40.0, 0.75, 1.25, 8.0};
constexpr TowerCorrelationData cooltools_data{-1.0, 26.7, 1.1, 11.1, 1.1, 11.1, 0.75, 1.25,
                                              std::numeric_limits<double>::infinity()};

double yorkcalc(double t, double r, double lg) {
  const double tp[3] = {1.0, t, t * t};
  const double rp[3] = {1.0, r, r * r};
  const double lp[3] = {1.0, lg, lg * lg};
  double sum = 0.0;
  std::size_t index = 0;
  for (double l : lp)
    for (double rr : rp)
      for (double tt : tp) sum += yorkcalc_coefficients[index++] * tt * rr * l;
  return sum;
}

double cooltools(double a, double w, double t, double r) {
  const std::array<double, 35> terms{1.0,       a,         a * a,     a * a * a, w,         a * w,     a * a * w,
                                     w * w,     a * w * w, w * w * w, t,         a * t,     a * a * t, w * t,
                                     a * w * t, w * w * t, t * t,     a * t * t, w * t * t, t * t * t, r,
                                     a * r,     a * a * r, w * r,     a * w * r, w * w * r, t * r,     a * t * r,
                                     w * t * r, t * t * r, r * r,     a * r * r, w * r * r, t * r * r, r * r * r};
  double sum = 0.0;
  for (std::size_t i = 0; i < terms.size(); ++i) sum += cooltools_coefficients[i] * terms[i];
  return sum;
}

}  // namespace

const char* correlation_name(TowerCorrelation c) {
  return c == TowerCorrelation::yorkcalc ? "YorkCalc" : "CoolTools cross-flow";
}

const TowerCorrelationData& correlation_data(TowerCorrelation correlation) {
  return correlation == TowerCorrelation::yorkcalc ? yorkcalc_data : cooltools_data;
}

double correlation_approach(TowerCorrelation correlation, double wet_bulb, double range, double water_flow_ratio,
                            double air_flow_ratio) {
  DCTWIN_DEMAND(air_flow_ratio > 0.0, "tower correlation needs a positive air flow ratio");
  const double t = wet_bulb - kelvin_offset;
  if (correlation == TowerCorrelation::yorkcalc) return yorkcalc(t, range, water_flow_ratio / air_flow_ratio);
  return cooltools(air_flow_ratio, water_flow_ratio, t, range);
}

core::ParameterTable CoolingTowerParameters::table() {
  using namespace core;
  const CoolingTowerParameters d;
  ParameterTable t;
  auto p = choice_parameter("correlation", {"yorkcalc", "cooltools_cross_flow"},
                            "Approach correlation: YorkCalc (counter flow) or CoolTools (cross flow)",
                            std::string("yorkcalc"));
  p.source = "EnergyPlus Engineering Reference, CoolingTower:VariableSpeed, Tables 63-64";
  t.push_back(p);
  p = real_parameter("design_wet_bulb_temperature", "K", "Entering air wet bulb at the design point",
                     d.design_wet_bulb_temperature, "78 F, the correlations' reference condition (EnergyPlus)");
  p.display_unit = "degC";
  at_least(p, kelvin_offset - 34.4);
  t.push_back(at_most(p, kelvin_offset + 26.7));
  p = real_parameter("design_approach", "K", "Leaving water minus wet bulb at the design point", d.design_approach,
                     "7 F (EnergyPlus / Modelica Buildings default)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("design_range", "K", "Entering minus leaving water at the design point", d.design_range,
                     "10 F (EnergyPlus / Modelica Buildings default)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("design_water_flow", "kg/s", "Water flow at the design point", d.design_water_flow,
                     "2.32 MW at the design range: one 2 MW CDU plus chiller compressor heat [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("design_fan_power", "W", "Fan power at full speed", d.design_fan_power,
                     "0.0105 W/W of design heat rejection (EnergyPlus CoolingTower:VariableSpeed:Merkel default)");
  p.display_unit = "kW";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("minimum_air_flow_ratio", "1", "Lowest fan speed (air flow ratio); below it the fan is off",
                     d.minimum_air_flow_ratio, "EnergyPlus CoolingTower:VariableSpeed default 0.2");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("free_convection_capacity_fraction", "1", "Fraction of the full-fan range reached with the fan off",
                     d.free_convection_capacity_fraction, "EnergyPlus CoolingTower:VariableSpeed default 0.125");
  at_least(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("water_specific_heat", "J/(kg K)", "Specific heat of the tower water", d.water_specific_heat,
                     "Water at 25-35 degC, IAPWS-IF97");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("latent_heat_of_vaporization", "J/kg", "h_fg of water at the tower's temperature",
                     d.latent_heat_of_vaporization, "Water at 30 degC, 2430 kJ/kg (IAPWS steam tables)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("evaporated_heat_fraction", "1", "Share of the heat rejected by evaporation",
                     d.evaporated_heat_fraction, "Upper bound 1 [E]; EnergyPlus loss factor default equals 1.16");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.5));
  p = real_parameter("drift_loss_fraction", "1", "Drift as a fraction of the circulating water flow",
                     d.drift_loss_fraction, "EnergyPlus default 0.008 %");
  at_least(p, 0.0);
  t.push_back(less_than(p, 0.01));
  p = real_parameter("concentration_ratio", "1", "Cycles of concentration (make-up over blowdown solids ratio)",
                     d.concentration_ratio, "EnergyPlus default 3");
  t.push_back(greater_than(p, 1.0));
  return t;
}

CoolingTowerParameters CoolingTowerParameters::from(const core::ParameterTree& s) {
  CoolingTowerParameters p;
  p.correlation =
      s.text("correlation") == "cooltools_cross_flow" ? TowerCorrelation::cooltools_cross_flow : TowerCorrelation::yorkcalc;
  p.design_wet_bulb_temperature = s.number("design_wet_bulb_temperature");
  p.design_approach = s.number("design_approach");
  p.design_range = s.number("design_range");
  p.design_water_flow = s.number("design_water_flow");
  p.design_fan_power = s.number("design_fan_power");
  p.minimum_air_flow_ratio = s.number("minimum_air_flow_ratio");
  p.free_convection_capacity_fraction = s.number("free_convection_capacity_fraction");
  p.water_specific_heat = s.number("water_specific_heat");
  p.latent_heat_of_vaporization = s.number("latent_heat_of_vaporization");
  p.evaporated_heat_fraction = s.number("evaporated_heat_fraction");
  p.drift_loss_fraction = s.number("drift_loss_fraction");
  p.concentration_ratio = s.number("concentration_ratio");
  return p;
}

CoolingTower::CoolingTower(CoolingTowerParameters p, std::string section) : p_(p) {
  const ParameterCheck check(std::move(section));
  const TowerCorrelationData& data = correlation_data(p_.correlation);
  check.temperature_in_range("design_wet_bulb_temperature", p_.design_wet_bulb_temperature,
                             kelvin_offset + data.min_wet_bulb, kelvin_offset + data.max_wet_bulb);
  check.positive("design_approach", p_.design_approach, "K");
  check.positive("design_range", p_.design_range, "K");
  check.positive("design_water_flow", p_.design_water_flow, "kg/s");
  check.at_least("design_fan_power", p_.design_fan_power, 0.0, "W");
  check.in_half_open_range("minimum_air_flow_ratio", p_.minimum_air_flow_ratio, 0.0, 1.0, "");
  check.at_least("free_convection_capacity_fraction", p_.free_convection_capacity_fraction, 0.0, "");
  check.less_than("free_convection_capacity_fraction", p_.free_convection_capacity_fraction, 1.0, "");
  check.positive("water_specific_heat", p_.water_specific_heat, "J/(kg K)");
  check.positive("latent_heat_of_vaporization", p_.latent_heat_of_vaporization, "J/kg");
  check.positive("evaporated_heat_fraction", p_.evaporated_heat_fraction, "");
  check.at_least("drift_loss_fraction", p_.drift_loss_fraction, 0.0, "");
  check.greater_than("concentration_ratio", p_.concentration_ratio, 1.0, "");

  // Calibration: FR_0 with approach(T_wb,d, T_r,d, FR_0, 1) = approach_d. Scan for the first
  // sign change on a log grid over [1/4, 4], then bisect.
  auto residual = [&](double ratio) {
    return correlation_approach(p_.correlation, p_.design_wet_bulb_temperature, p_.design_range, ratio, 1.0) -
           p_.design_approach;
  };
  constexpr int grid = 64;
  double low = 0.25;
  double high = 0.0;
  double low_value = residual(low);
  for (int i = 1; i <= grid && high == 0.0; ++i) {
    const double ratio = 0.25 * std::pow(16.0, static_cast<double>(i) / grid);
    const double value = residual(ratio);
    if ((low_value <= 0.0) != (value <= 0.0)) {
      high = ratio;
    } else {
      low = ratio;
      low_value = value;
    }
  }
  if (high == 0.0)
    check.fail(std::string("the ") + correlation_name(p_.correlation) + " correlation cannot reach the design approach " +
               format_number(p_.design_approach) + " K at wet bulb " + format_celsius(p_.design_wet_bulb_temperature) +
               " and range " + format_number(p_.design_range) + " K with water flow ratios 0.25 to 4");
  for (int i = 0; i < 200 && high - low > 1e-14 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if ((residual(middle) <= 0.0) == (low_value <= 0.0)) {
      low = middle;
    } else {
      high = middle;
    }
  }
  design_water_flow_ratio_ = 0.5 * (low + high);
}

double CoolingTower::unfloored_approach(double wet_bulb, double range, double water_flow, double air_flow_ratio) const {
  DCTWIN_DEMAND(water_flow >= 0.0 && air_flow_ratio > 0.0, "tower approach needs flows >= 0 and a running fan");
  const TowerCorrelationData& data = correlation_data(p_.correlation);
  const double clamped_wet_bulb = std::clamp(wet_bulb, kelvin_offset + data.min_wet_bulb, kelvin_offset + data.max_wet_bulb);
  const double water_ratio = design_water_flow_ratio_ * water_flow / p_.design_water_flow;
  const double air_ratio = std::max(air_flow_ratio, water_ratio / data.max_liquid_to_gas_ratio);
  return correlation_approach(p_.correlation, clamped_wet_bulb, range, water_ratio, air_ratio);
}

double CoolingTower::approach(double wet_bulb, double range, double water_flow, double air_flow_ratio) const {
  return std::max(0.0, unfloored_approach(wet_bulb, range, water_flow, air_flow_ratio));
}

CoolingTowerOperatingPoint CoolingTower::forced(double wet_bulb, double range, double water_flow, double speed) const {
  const TowerCorrelationData& data = correlation_data(p_.correlation);
  CoolingTowerOperatingPoint r;
  r.fan_speed = speed;
  r.fan_power = fan_power(speed);
  r.water_flow_ratio = design_water_flow_ratio_ * water_flow / p_.design_water_flow;
  r.air_flow_ratio = std::max(speed, r.water_flow_ratio / data.max_liquid_to_gas_ratio);
  r.range = range;
  r.correlation_range = range;
  r.correlation_liquid_to_gas = r.water_flow_ratio / speed;
  r.correlation_approach = unfloored_approach(wet_bulb, range, water_flow, speed);
  r.approach = std::max(0.0, r.correlation_approach);
  r.water_outlet_temperature = wet_bulb + r.approach;
  r.water_inlet_temperature = r.water_outlet_temperature + range;
  r.heat_flow = water_flow * p_.water_specific_heat * range;
  const double t = wet_bulb - kelvin_offset;
  r.outside_correlation_bounds = t < data.min_wet_bulb || t > data.max_wet_bulb || range < data.min_range ||
                                 range > data.max_range || r.approach < data.min_approach ||
                                 r.approach > data.max_approach || r.water_flow_ratio < data.min_water_flow_ratio ||
                                 r.water_flow_ratio > data.max_water_flow_ratio || r.air_flow_ratio > speed;
  return r;
}

double CoolingTower::forced_range(double wet_bulb, double inlet, double water_flow, double speed) const {
  // g(T_r) = T_r + approach(T_r) - (T_in - T_wb): bisection for the root on [0, T_in - T_wb].
  const double available = inlet - wet_bulb;
  if (available <= 0.0) return 0.0;
  auto g = [&](double r) { return r + approach(wet_bulb, r, water_flow, speed) - available; };
  double low = 0.0;
  double high = available;
  if (g(low) >= 0.0) return 0.0;
  for (int i = 0; i < 200 && high - low > 1e-13 * available; ++i) {
    const double middle = 0.5 * (low + high);
    if (g(middle) < 0.0) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return 0.5 * (low + high);
}

CoolingTowerOperatingPoint CoolingTower::evaluate(double wet_bulb, double inlet, double water_flow,
                                                  double fan_speed) const {
  DCTWIN_DEMAND(water_flow >= 0.0, "tower water flow must be non-negative");
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "tower fan speed must be in [0, 1]");
  if (water_flow == 0.0) {
    CoolingTowerOperatingPoint r;
    r.water_inlet_temperature = r.water_outlet_temperature = inlet;
    r.fan_speed = fan_speed;
    r.fan_power = fan_power(fan_speed);
    r.free_convection = !fan_on(fan_speed);
    return r;
  }
  if (fan_on(fan_speed)) {
    CoolingTowerOperatingPoint r = forced(wet_bulb, forced_range(wet_bulb, inlet, water_flow, fan_speed), water_flow, fan_speed);
    r.water_inlet_temperature = inlet;  // the same to rounding; keep the caller's value exact
    r.water_outlet_temperature = inlet - r.range;
    return r;
  }
  // Fan off: a fraction of the full-fan range.
  const double full_range = forced_range(wet_bulb, inlet, water_flow, 1.0);
  CoolingTowerOperatingPoint r = forced(wet_bulb, p_.free_convection_capacity_fraction * full_range, water_flow, 1.0);
  r.water_inlet_temperature = inlet;
  r.water_outlet_temperature = inlet - r.range;
  r.approach = r.water_outlet_temperature - wet_bulb;
  r.fan_speed = fan_speed;
  r.fan_power = 0.0;
  r.air_flow_ratio = 0.0;
  r.free_convection = true;
  return r;
}

CoolingTowerOperatingPoint CoolingTower::evaluate_for_load(double wet_bulb, double heat_flow, double water_flow,
                                                           double fan_speed) const {
  DCTWIN_DEMAND(heat_flow >= 0.0, "tower load must be non-negative");
  DCTWIN_DEMAND(water_flow > 0.0, "tower needs water flow to reject heat");
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "tower fan speed must be in [0, 1]");
  const double range = heat_flow / (water_flow * p_.water_specific_heat);
  if (fan_on(fan_speed)) return forced(wet_bulb, range, water_flow, fan_speed);
  // Fan off: the range is f_fc times the full-fan range of the same inlet temperature, so the
  // full-fan state has range T_r / f_fc and the same inlet.
  DCTWIN_DEMAND(p_.free_convection_capacity_fraction > 0.0 || heat_flow == 0.0,
                "tower without free-convection capacity cannot reject heat with the fan off");
  const double full_range = heat_flow == 0.0 ? 0.0 : range / p_.free_convection_capacity_fraction;
  CoolingTowerOperatingPoint r = forced(wet_bulb, full_range, water_flow, 1.0);
  r.range = range;
  r.water_outlet_temperature = r.water_inlet_temperature - range;
  r.approach = r.water_outlet_temperature - wet_bulb;
  r.heat_flow = heat_flow;
  r.fan_speed = fan_speed;
  r.fan_power = 0.0;
  r.air_flow_ratio = 0.0;
  r.free_convection = true;
  return r;
}

double CoolingTower::fan_speed_for_outlet(double wet_bulb, double heat_flow, double water_flow, double target) const {
  return lowest_fan_speed_meeting(p_.minimum_air_flow_ratio, target, [&](double s) {
    return evaluate_for_load(wet_bulb, heat_flow, water_flow, s).water_outlet_temperature;
  });
}

double CoolingTower::fan_power(double fan_speed) const {
  DCTWIN_DEMAND(fan_speed >= 0.0 && fan_speed <= 1.0, "tower fan speed must be in [0, 1]");
  if (!fan_on(fan_speed)) return 0.0;
  return p_.design_fan_power * fan_speed * fan_speed * fan_speed;
}

MakeupWater CoolingTower::makeup_water(double heat_flow, double water_flow) const {
  DCTWIN_DEMAND(heat_flow >= 0.0 && water_flow >= 0.0, "make-up water needs non-negative heat and flow");
  MakeupWater m;
  m.evaporation = p_.evaporated_heat_fraction * heat_flow / p_.latent_heat_of_vaporization;
  m.drift = p_.drift_loss_fraction * water_flow;
  m.blowdown = std::max(0.0, m.evaporation / (p_.concentration_ratio - 1.0) - m.drift);
  m.total = m.evaporation + m.drift + m.blowdown;
  return m;
}

}  // namespace dctwin::models::hx
