#include "dctwin/models/hx/economizer.hpp"

#include "dctwin/solver/integrator.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

}  // namespace

const char* plant_mode_name(PlantMode mode) {
  switch (mode) {
    case PlantMode::free_cooling: return "free_cooling";
    case PlantMode::partial_free_cooling: return "partial_free_cooling";
    case PlantMode::mechanical: return "mechanical";
  }
  return "unknown";
}

void check_weather(const Weather& w) {
  if (!std::isfinite(w.dry_bulb_temperature) || !std::isfinite(w.wet_bulb_temperature))
    throw core::InputError("weather: dry-bulb " + format_celsius(w.dry_bulb_temperature) + " and wet-bulb " +
                             format_celsius(w.wet_bulb_temperature) + " temperatures must be finite numbers");
  if (w.wet_bulb_temperature > w.dry_bulb_temperature)
    throw core::InputError("weather: wet-bulb temperature " + format_celsius(w.wet_bulb_temperature) +
                             " is above the dry-bulb temperature " + format_celsius(w.dry_bulb_temperature));
}

core::ParameterTable EconomizerParameters::table() {
  using namespace core;
  const EconomizerParameters d;
  ParameterTable t;
  auto p = real_parameter("heat_exchanger_approach", "K",
                          "Approach of the economizer plate heat exchanger (facility water out minus condenser water in)",
                          d.heat_exchanger_approach, "Design value for a plate heat exchanger, 1-2 K typical [E]");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("changeover_margin", "K", "Free cooling starts when it reaches the set-point minus this margin",
                     d.changeover_margin, "Hysteresis against mode hunting [E]");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("condenser_water_flow", "kg/s", "Condenser water flow through the heat rejection",
                     d.condenser_water_flow, "Design water flow of the default cooling tower");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("condenser_water_specific_heat", "J/(kg K)", "Specific heat of the condenser water",
                     d.condenser_water_specific_heat, "Water at 25-35 degC, IAPWS-IF97; use the glycol's for a dry cooler");
  t.push_back(greater_than(p, 0.0));
  return t;
}

EconomizerParameters EconomizerParameters::from(const core::ParameterTree& s) {
  EconomizerParameters p;
  p.heat_exchanger_approach = s.number("heat_exchanger_approach");
  p.changeover_margin = s.number("changeover_margin");
  p.condenser_water_flow = s.number("condenser_water_flow");
  p.condenser_water_specific_heat = s.number("condenser_water_specific_heat");
  return p;
}

WaterSideEconomizer::WaterSideEconomizer(EconomizerParameters p, HeatRejection heat_rejection, Chiller chiller,
                                         std::string section)
    : p_(p), heat_rejection_(std::move(heat_rejection)), chiller_(std::move(chiller)) {
  const ParameterCheck check(std::move(section));
  check.positive("heat_exchanger_approach", p_.heat_exchanger_approach, "K");
  check.at_least("changeover_margin", p_.changeover_margin, 0.0, "K");
  check.positive("condenser_water_flow", p_.condenser_water_flow, "kg/s");
  check.positive("condenser_water_specific_heat", p_.condenser_water_specific_heat, "J/(kg K)");
}

double WaterSideEconomizer::condenser_water_temperature(const Weather& weather, double heat_rejected,
                                                        double fan_speed) const {
  return std::visit(
      overloaded{[&](const CoolingTower& tower) {
                   return tower.evaluate_for_load(weather.wet_bulb_temperature, heat_rejected, p_.condenser_water_flow,
                                                  fan_speed)
                       .water_outlet_temperature;
                 },
                 [&](const DryCooler& cooler) {
                   return cooler
                       .evaluate_for_load(weather.dry_bulb_temperature, heat_rejected, p_.condenser_water_flow,
                                          fan_speed, p_.condenser_water_specific_heat)
                       .fluid_outlet_temperature;
                 }},
      heat_rejection_);
}

double WaterSideEconomizer::fan_speed_for(const Weather& weather, double heat_rejected, double target) const {
  return std::visit(overloaded{[&](const CoolingTower& tower) {
                                 return tower.fan_speed_for_outlet(weather.wet_bulb_temperature, heat_rejected,
                                                                   p_.condenser_water_flow, target);
                               },
                               [&](const DryCooler& cooler) {
                                 return cooler.fan_speed_for_outlet(weather.dry_bulb_temperature, heat_rejected,
                                                                    p_.condenser_water_flow, target,
                                                                    p_.condenser_water_specific_heat);
                               }},
                    heat_rejection_);
}

double WaterSideEconomizer::fan_power(double fan_speed) const {
  return std::visit([&](const auto& unit) { return unit.fan_power(fan_speed); }, heat_rejection_);
}

PlantOperatingPoint WaterSideEconomizer::evaluate(const Weather& weather, const PlantDemand& demand) const {
  check_weather(weather);
  DCTWIN_DEMAND(demand.heat_flow >= 0.0, "plant load must be non-negative");
  DCTWIN_DEMAND(demand.facility_water_flow > 0.0 && demand.facility_water_specific_heat > 0.0,
                "plant needs a positive facility water flow and specific heat");
  DCTWIN_DEMAND(demand.pump_power >= 0.0, "pump power must be non-negative");
  const double c_chw = demand.facility_water_flow * demand.facility_water_specific_heat;
  const double q = demand.heat_flow;
  const double a = p_.heat_exchanger_approach;
  PlantOperatingPoint r;
  r.return_temperature = demand.supply_setpoint + q / c_chw;
  r.pump_power = demand.pump_power;

  const double margin = demand.previous_mode == PlantMode::free_cooling ? 0.0 : p_.changeover_margin;
  const double full_speed_free = condenser_water_temperature(weather, q, 1.0);
  if (full_speed_free + a <= demand.supply_setpoint - margin) {
    r.mode = PlantMode::free_cooling;
    r.fan_speed = fan_speed_for(weather, q, demand.supply_setpoint - a);
    r.condenser_water_temperature = condenser_water_temperature(weather, q, r.fan_speed);
    r.economizer_heat_flow = q;
    r.heat_rejected = q;
    r.precooled_temperature = demand.supply_setpoint;
    r.supply_temperature = demand.supply_setpoint;
    r.fan_power = fan_power(r.fan_speed);
    r.total_power = r.fan_power + r.pump_power;
    return r;
  }

  // Partial or mechanical: fans at full speed; fixed point on the chiller power.
  r.fan_speed = 1.0;
  r.fan_power = fan_power(1.0);
  const double f_cond = chiller_.parameters().condenser_heat_fraction;
  // Q_rej = Q_econ + Q_ch + f_cond P_ch depends on Q_rej through the condenser water temperature.
  // Solve h(Q) = next(Q) - Q = 0: plain substitution first (it converges in a few steps at normal
  // conditions), then bisection on a bracket, which cannot cycle where the economizer's share
  // switches with the condenser temperature.
  ChillerOperatingPoint chiller_point;
  auto next_rejected = [&](double rejected) {
    r.condenser_water_temperature = condenser_water_temperature(weather, rejected, 1.0);
    const double precooled = r.condenser_water_temperature + a;
    if (precooled <= demand.supply_setpoint) {
      r.economizer_heat_flow = q;  // hysteresis band: the economizer could carry it all
    } else if (precooled < r.return_temperature) {
      r.economizer_heat_flow = std::min(q, c_chw * (r.return_temperature - precooled));
    } else {
      r.economizer_heat_flow = 0.0;
    }
    chiller_point = chiller_.evaluate(q - r.economizer_heat_flow, demand.supply_setpoint, r.condenser_water_temperature);
    return r.economizer_heat_flow + chiller_point.cooling + f_cond * chiller_point.electric_power;
  };
  const double tolerance = 1e-10 * std::max(1.0, q);
  double rejected = q;
  bool converged = false;
  for (int iteration = 0; iteration < 30 && !converged; ++iteration) {
    const double next = next_rejected(rejected);
    converged = std::fabs(next - rejected) <= tolerance;
    rejected = next;
  }
  if (!converged) {
    double low = 0.0, high = std::max(q, 1.0);
    while (next_rejected(high) > high) {
      high *= 2.0;
      if (!std::isfinite(high) || high > 1e6 * std::max(q, 1.0))
        throw solver::SolverError("hx::WaterSideEconomizer::evaluate",
                                  "the heat-rejection / chiller-power balance has no solution");
    }
    for (int iteration = 0; iteration < 200 && high - low > tolerance; ++iteration) {
      const double mid = 0.5 * (low + high);
      (next_rejected(mid) > mid ? low : high) = mid;
    }
    rejected = high;
    next_rejected(rejected);  // leaves r and chiller_point at the solution
  }
  r.unmet_heat_flow = chiller_point.unmet_load;
  r.chiller_heat_flow = chiller_point.cooling;
  r.chiller_power = chiller_point.electric_power;
  r.chiller_cop = chiller_point.cop;
  r.mode = r.economizer_heat_flow > 0.0 ? PlantMode::partial_free_cooling : PlantMode::mechanical;
  r.precooled_temperature = r.return_temperature - r.economizer_heat_flow / c_chw;
  r.supply_temperature = demand.supply_setpoint + r.unmet_heat_flow / c_chw;
  r.heat_rejected = r.economizer_heat_flow + r.chiller_heat_flow + f_cond * r.chiller_power;
  r.total_power = r.fan_power + r.chiller_power + r.pump_power;
  return r;
}

}  // namespace dctwin::models::hx
