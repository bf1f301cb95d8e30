#include "dctwin/models/thermal/heatsink.hpp"

#include <cmath>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "message_text.hpp"

namespace dctwin::models::thermal {

using detail::format_decimals;

core::ParameterTable HeatsinkParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("spreading_resistance", "K/W",
                          "Flow-independent part of the case-to-air resistance: TIM, base and vapour chamber",
                          0.015,
                          "Estimate [U]: ~0.005 K/W TIM over the ~8 cm2 H100 lid plus ~0.01 K/W vapour-chamber "
                          "spreading; docs/models/air.md");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("convective_resistance_at_reference_flow", "K/W",
                     "Fin-to-air resistance at the reference flow", 0.035,
                     "Estimate [U], chosen so that a 700 W H100 in the rear row holds 87 degC at 25 degC inlet "
                     "only above ~88 % fan speed; docs/models/air.md");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("reference_flow", "m3/s", "Air flow through one heatsink at which R_conv,0 and dp_0 hold",
                     0.0875, "Full-speed server flow 0.5 m3/s x heatsink share 0.175 [U] (~185 CFM)");
  p.display_unit = "m3/h";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("flow_exponent", "1", "n in R_conv = R_conv,0 (V/V_0)^-n", 0.7,
                     "Between laminar developing flow (0.5) and turbulent flow (0.8) in fin channels [U]");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.5));
  p = real_parameter("pressure_drop_at_reference_flow", "Pa", "Air-side pressure drop across one heatsink at V_0",
                     250.0, "Estimate [U]: a deep fin stack at ~6 m/s face velocity");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("pressure_drop_flow_exponent", "1", "m in dp = dp_0 (V/V_0)^m", 1.8,
                     "Developing channel flow, between 1 (laminar) and 2 (turbulent) [U]");
  at_least(p, 1.0);
  t.push_back(at_most(p, 2.0));
  return t;
}

HeatsinkParameters HeatsinkParameters::from(const core::ParameterTree& s) {
  HeatsinkParameters p;
  p.spreading_resistance = s.number("spreading_resistance");
  p.convective_resistance_at_reference_flow = s.number("convective_resistance_at_reference_flow");
  p.reference_flow = s.number("reference_flow");
  p.flow_exponent = s.number("flow_exponent");
  p.pressure_drop_at_reference_flow = s.number("pressure_drop_at_reference_flow");
  p.pressure_drop_flow_exponent = s.number("pressure_drop_flow_exponent");
  return p;
}

double Heatsink::resistance(double flow) const {
  DCTWIN_DEMAND(flow > 0.0, "heatsink resistance needs a positive air flow");
  return p_.spreading_resistance +
         p_.convective_resistance_at_reference_flow * std::pow(flow / p_.reference_flow, -p_.flow_exponent);
}

double Heatsink::resistance_flow_derivative(double flow) const {
  DCTWIN_DEMAND(flow > 0.0, "heatsink resistance needs a positive air flow");
  return -p_.flow_exponent * p_.convective_resistance_at_reference_flow *
         std::pow(flow / p_.reference_flow, -p_.flow_exponent) / flow;
}

double Heatsink::pressure_drop(double flow) const {
  DCTWIN_DEMAND(flow >= 0.0, "heatsink pressure drop needs a non-negative air flow");
  return p_.pressure_drop_at_reference_flow * std::pow(flow / p_.reference_flow, p_.pressure_drop_flow_exponent);
}

core::ParameterTable GpuAirSlot::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("position_fraction", "1",
                          "Share of the server's inlet-to-outlet air temperature rise taken up upstream of this GPU",
                          0.0, "0 on fresh inlet air; ~0.45 behind another GPU on an 8-GPU baseboard (docs/models/air.md)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

GpuAirSlot GpuAirSlot::from(const core::ParameterTree& s) { return {s.number("position_fraction")}; }

std::vector<GpuAirSlot> eight_gpu_baseboard_slots() {
  std::vector<GpuAirSlot> slots(8);
  for (std::size_t i = 4; i < 8; ++i) slots[i].position_fraction = 0.45;
  return slots;
}

core::ParameterTable ServerAirPathParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("heatsink_flow_fraction", "1", "Share of the server air flow that passes one GPU heatsink",
                          0.175,
                          "Estimate [U]: ~70 % of the chassis flow through the GPU tray, split over 4 columns of GPUs");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("pressure", "Pa", "Air pressure, for the air density", standard_atmospheric_pressure,
                     "Standard atmosphere at sea level");
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  return t;
}

ServerAirPathParameters ServerAirPathParameters::from(const core::ParameterTree& s) {
  ServerAirPathParameters p;
  p.heatsink_flow_fraction = s.number("heatsink_flow_fraction");
  p.pressure = s.number("pressure");
  return p;
}

ServerAirPath::ServerAirPath(ServerAirPathParameters air_path, HeatsinkParameters heatsink,
                             std::vector<GpuAirSlot> slots)
    : p_(air_path), heatsink_(heatsink), slots_(std::move(slots)), air_(AirParameters{air_path.pressure}) {
  if (slots_.empty()) throw core::InputError("server air path: no GPU slot given");
  if (!(p_.heatsink_flow_fraction > 0.0 && p_.heatsink_flow_fraction <= 1.0))
    throw core::InputError("server air path: heatsink flow fraction " + format_decimals(p_.heatsink_flow_fraction) +
                             " is outside (0, 1]");
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    const double phi = slots_[i].position_fraction;
    if (!(phi >= 0.0 && phi <= 1.0))
      throw core::InputError("server air path: gpus[" + std::to_string(i) + "].position_fraction = " +
                               format_decimals(phi) + " is outside [0, 1]");
  }
}

double ServerAirPath::heatsink_flow(double server_flow) const { return p_.heatsink_flow_fraction * server_flow; }

double ServerAirPath::temperature_rise(double server_heat, double server_flow, double inlet_temperature) const {
  DCTWIN_DEMAND(server_flow > 0.0, "the server air temperature rise needs a positive air flow");
  return server_heat / (air_.volumetric_heat_capacity(inlet_temperature) * server_flow);
}

double ServerAirPath::local_air_temperature(std::size_t gpu, double inlet_temperature, double server_heat,
                                            double server_flow) const {
  DCTWIN_DEMAND(gpu < slots_.size(), "GPU index out of range");
  return inlet_temperature +
         slots_[gpu].position_fraction * temperature_rise(server_heat, server_flow, inlet_temperature);
}

double ServerAirPath::case_to_air_resistance(double server_flow) const {
  return heatsink_.resistance(heatsink_flow(server_flow));
}

double ServerAirPath::case_temperature(std::size_t gpu, double gpu_power, double inlet_temperature,
                                       double server_heat, double server_flow) const {
  return local_air_temperature(gpu, inlet_temperature, server_heat, server_flow) +
         gpu_power * case_to_air_resistance(server_flow);
}

}  // namespace dctwin::models::thermal
