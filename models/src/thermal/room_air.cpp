#include "dctwin/models/thermal/room_air.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "message_text.hpp"

namespace dctwin::models::thermal {

using detail::format_decimals;

core::ParameterTable RoomAirParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("cold_aisle_volume", "m3", "Air volume of the (contained) cold aisles", 400.0,
                          "Estimate [U]: one 192-rack pod, 6 contained cold aisles of ~10 m x 1.8 m x 3 m plus margin");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("hot_aisle_volume", "m3", "Air volume of the hot aisles and the return plenum", 1500.0,
                     "Estimate [U]: hot aisles plus ceiling return plenum of one pod");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("cold_aisle_extra_heat_capacity", "J/K", "Solid heat capacity lumped with the cold-aisle air",
                     0.0, "None by default: air only");
  p.display_unit = "kJ/K";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("hot_aisle_extra_heat_capacity", "J/K", "Solid heat capacity lumped with the hot-aisle air",
                     0.0, "None by default: air only");
  p.display_unit = "kJ/K";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("recirculation_fraction", "1",
                     "Share of the server flow that leaks from the hot aisle back into the cold aisle at balanced flows",
                     0.05, "Estimate [U]: a few percent with aisle containment");
  at_least(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("bypass_fraction", "1",
                     "Share of the supply that leaks to the hot side without passing a server at balanced flows", 0.05,
                     "Estimate [U]: a few percent with aisle containment and blanking panels");
  at_least(p, 0.0);
  t.push_back(less_than(p, 1.0));
  p = real_parameter("reference_temperature", "K", "Temperature at which rho and c_p of the zone air are taken",
                     298.15, "");
  p.display_unit = "degC";
  at_least(p, air_min_temperature);
  t.push_back(at_most(p, air_max_temperature));
  p = real_parameter("pressure", "Pa", "Air pressure in the hall", standard_atmospheric_pressure,
                     "Standard atmosphere at sea level");
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  return t;
}

RoomAirParameters RoomAirParameters::from(const core::ParameterTree& s) {
  RoomAirParameters p;
  p.cold_aisle_volume = s.number("cold_aisle_volume");
  p.hot_aisle_volume = s.number("hot_aisle_volume");
  p.cold_aisle_extra_heat_capacity = s.number("cold_aisle_extra_heat_capacity");
  p.hot_aisle_extra_heat_capacity = s.number("hot_aisle_extra_heat_capacity");
  p.recirculation_fraction = s.number("recirculation_fraction");
  p.bypass_fraction = s.number("bypass_fraction");
  p.reference_temperature = s.number("reference_temperature");
  p.pressure = s.number("pressure");
  return p;
}

core::ParameterTable CrahParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = integer_parameter("count", "Number of identical CRAH units, operated together", 16,
                             "Estimate [U]: ~240 m3/s for a pod of 384 servers at up to 0.5 m3/s each");
  t.push_back(at_least(p, 1.0));
  p = real_parameter("rated_air_flow", "m3/s", "Air flow of one unit at full fan speed", 15.0,
                     "Large CRAH / fan-wall unit, ~32,000 CFM [U]");
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("rated_fan_power", "W", "Fan power of one unit at full speed", 11000.0,
                     "Estimate [U]: ~0.35 W/CFM for EC-fan CRAH units");
  p.display_unit = "kW";
  t.push_back(at_least(p, 0.0));
  p = real_parameter("supply_temperature_setpoint", "K", "Supply-air temperature the units hold", 298.15,
                     "Within the ASHRAE recommended inlet envelope 18-27 degC [U]");
  p.display_unit = "degC";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("coil_effectiveness", "1", "Largest coil effectiveness (full water flow)", 0.75,
                     "Estimate [U]: cross-counterflow cooling coil at design flows");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  t.push_back(boolean_parameter("fan_heat_to_air", "The fan motor heat warms the supply air", true));
  return t;
}

CrahParameters CrahParameters::from(const core::ParameterTree& s) {
  CrahParameters p;
  p.count = static_cast<int>(s.integer("count"));
  p.rated_air_flow = s.number("rated_air_flow");
  p.rated_fan_power = s.number("rated_fan_power");
  p.supply_temperature_setpoint = s.number("supply_temperature_setpoint");
  p.coil_effectiveness = s.number("coil_effectiveness");
  p.fan_heat_to_air = s.boolean("fan_heat_to_air");
  return p;
}

RoomAir::RoomAir(RoomAirParameters room, CrahParameters crah) : room_(room), crah_(crah) {
  const auto fraction_ok = [](double f) { return f >= 0.0 && f < 1.0; };
  if (!fraction_ok(room_.recirculation_fraction))
    throw core::InputError("room air: recirculation_fraction " + format_decimals(room_.recirculation_fraction) +
                             " is outside [0, 1)");
  if (!fraction_ok(room_.bypass_fraction))
    throw core::InputError("room air: bypass_fraction " + format_decimals(room_.bypass_fraction) +
                             " is outside [0, 1)");
  if (!(room_.cold_aisle_volume > 0.0) || !(room_.hot_aisle_volume > 0.0))
    throw core::InputError("room air: aisle volumes must be > 0");
  if (crah_.count < 1 || !(crah_.rated_air_flow > 0.0))
    throw core::InputError("room air: the CRAH units need count >= 1 and a rated air flow > 0");
  if (!(crah_.coil_effectiveness > 0.0 && crah_.coil_effectiveness <= 1.0))
    throw core::InputError("room air: coil_effectiveness " + format_decimals(crah_.coil_effectiveness) +
                             " is outside (0, 1]");
  const Air air(AirParameters{room_.pressure});
  const Air::Properties q = air.properties(room_.reference_temperature);
  cp_ = q.specific_heat;
  rho_ = q.density;
  capacity_cold_ = rho_ * cp_ * room_.cold_aisle_volume + room_.cold_aisle_extra_heat_capacity;
  capacity_hot_ = rho_ * cp_ * room_.hot_aisle_volume + room_.hot_aisle_extra_heat_capacity;
}

double RoomAir::crah_mass_flow(double speed) const {
  DCTWIN_DEMAND(speed >= 0.0, "CRAH fan speed must be >= 0");
  return static_cast<double>(crah_.count) * rho_ * crah_.rated_air_flow * speed;
}

RoomAirFlows RoomAir::flows(double supply_mass_flow, double it_mass_flow) const {
  DCTWIN_DEMAND(supply_mass_flow >= 0.0 && it_mass_flow >= 0.0, "hall air flows must be >= 0");
  const double r = room_.recirculation_fraction, b = room_.bypass_fraction;
  const double surplus = (1.0 - b) * supply_mass_flow + r * it_mass_flow - it_mass_flow;
  RoomAirFlows f;
  f.supply = supply_mass_flow;
  f.it = it_mass_flow;
  f.return_flow = supply_mass_flow;
  if (surplus >= 0.0) {
    f.bypass = b * supply_mass_flow + surplus;
    f.recirculation = r * it_mass_flow;
  } else {
    f.bypass = b * supply_mass_flow;
    f.recirculation = r * it_mass_flow - surplus;
  }
  return f;
}

CrahOperation RoomAir::crah(double hot_aisle_temperature, const RoomAirInputs& inputs) const {
  CrahOperation op;
  const double m = crah_mass_flow(inputs.crah_speed);
  op.fan_power = static_cast<double>(crah_.count) * crah_.rated_fan_power * inputs.crah_speed * inputs.crah_speed *
                 inputs.crah_speed;
  const double fan_rise = crah_.fan_heat_to_air && m > 0.0 ? op.fan_power / (m * cp_) : 0.0;
  const double th = hot_aisle_temperature;
  const double coil_limit = th - crah_.coil_effectiveness * std::max(0.0, th - inputs.water_supply_temperature);
  const double wanted = crah_.supply_temperature_setpoint - fan_rise;
  if (wanted >= th) {  // no cooling needed (or water warmer than the air): coil off
    op.coil_outlet_temperature = th;
    op.supply_temperature_slope = 1.0;
  } else if (wanted <= coil_limit) {  // coil at its limit
    op.coil_outlet_temperature = coil_limit;
    op.supply_temperature_slope = th > inputs.water_supply_temperature ? 1.0 - crah_.coil_effectiveness : 1.0;
  } else {  // set-point holds
    op.coil_outlet_temperature = wanted;
    op.supply_temperature_slope = 0.0;
  }
  op.supply_temperature = op.coil_outlet_temperature + fan_rise;
  op.coil_heat = m * cp_ * (th - op.coil_outlet_temperature);
  return op;
}

RoomAirRates RoomAir::derivatives(const RoomAirState& state, const RoomAirInputs& inputs) const {
  const RoomAirFlows f = flows(crah_mass_flow(inputs.crah_speed), inputs.it_mass_flow);
  const CrahOperation op = crah(state.hot_aisle_temperature, inputs);
  const double tc = state.cold_aisle_temperature, th = state.hot_aisle_temperature;
  RoomAirRates rates;
  rates.cold_aisle = cp_ * (f.supply * (op.supply_temperature - tc) + f.recirculation * (th - tc)) / capacity_cold_;
  rates.hot_aisle = (cp_ * (f.it + f.bypass) * (tc - th) + inputs.it_heat) / capacity_hot_;
  return rates;
}

RoomAirJacobian RoomAir::jacobian(const RoomAirState& state, const RoomAirInputs& inputs) const {
  const RoomAirFlows f = flows(crah_mass_flow(inputs.crah_speed), inputs.it_mass_flow);
  const CrahOperation op = crah(state.hot_aisle_temperature, inputs);
  RoomAirJacobian j;
  j.cold_cold = -cp_ * (f.supply + f.recirculation) / capacity_cold_;
  j.cold_hot = cp_ * (f.supply * op.supply_temperature_slope + f.recirculation) / capacity_cold_;
  j.hot_cold = cp_ * (f.it + f.bypass) / capacity_hot_;
  j.hot_hot = -cp_ * (f.it + f.bypass) / capacity_hot_;
  return j;
}

double RoomAir::server_outlet_temperature(const RoomAirState& state, const RoomAirInputs& inputs) const {
  if (inputs.it_mass_flow <= 0.0) return state.cold_aisle_temperature;
  return state.cold_aisle_temperature + inputs.it_heat / (inputs.it_mass_flow * cp_);
}

double RoomAir::stored_energy(const RoomAirState& state) const {
  return capacity_cold_ * state.cold_aisle_temperature + capacity_hot_ * state.hot_aisle_temperature;
}

}  // namespace dctwin::models::thermal
