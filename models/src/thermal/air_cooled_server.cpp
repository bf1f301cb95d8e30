#include "dctwin/models/thermal/air_cooled_server.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/thermal/heatsink.hpp"
#include "dctwin/solver/integrator.hpp"
#include "message_text.hpp"

namespace dctwin::models::thermal {

core::ParameterTable AirCooledSlot::table() {
  using namespace core;
  // The slot's place in the server's air path is the facility model's (position_fraction).
  ParameterTable t = GpuAirSlot::table();
  auto p = real_parameter("inlet_offset", "K",
                     "Local air at this GPU above the server inlet besides the position share (recirculation, "
                     "obstructed inlets, the inlet sensor's placement)",
                     0.0, "0 unless measured; fitted by dctwin calibrate");
  at_least(p, -30.0);
  t.push_back(at_most(p, 60.0));
  p = real_parameter("heatsink_resistance_scale", "1", "h_i: this GPU's heatsink resistance over the nominal one", 1.0,
                     "1 unless measured (mounting pressure, TIM, fin fouling); fitted by dctwin calibrate");
  at_least(p, 0.05);
  t.push_back(at_most(p, 20.0));
  p = real_parameter("heatsink_capacitance_scale", "1",
                     "c_b,i: this GPU's base and heatsink capacitance over server.gpu.base_capacitance", 1.0,
                     "1 unless measured; fitted by dctwin calibrate");
  at_least(p, 0.05);
  t.push_back(at_most(p, 20.0));
  p = real_parameter("junction_capacitance_scale", "1",
                     "c_j,i: this GPU's junction capacitance over server.gpu.junction_capacitance", 1.0,
                     "1 unless measured; fitted by dctwin calibrate");
  at_least(p, 0.05);
  t.push_back(at_most(p, 20.0));
  return t;
}

AirCooledSlot AirCooledSlot::from(const core::ParameterTree& s) {
  AirCooledSlot slot;
  slot.position_fraction = s.number("position_fraction");
  slot.inlet_offset = s.number("inlet_offset");
  slot.heatsink_resistance_scale = s.number("heatsink_resistance_scale");
  slot.heatsink_capacitance_scale = s.number("heatsink_capacitance_scale");
  slot.junction_capacitance_scale = s.number("junction_capacitance_scale");
  return slot;
}

core::ParameterTable AirCooledServerParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("inlet_temperature", "K", "Air temperature at the server's front inlet", 298.15,
                          "ASHRAE A1 recommended envelope 18-27 degC (ASHRAE TC 9.9 Thermal Guidelines, 2021)");
  p.display_unit = "degC";
  at_least(p, 263.15);
  t.push_back(at_most(p, 333.15));
  p = real_parameter("fan_speed", "1", "Server fan speed, held during the replay (fraction of rated)", 0.8,
                     "Estimate [U]: GPU servers under training load run their fans at 60-100 %");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("other_heat", "W", "Heat of the server's other parts in the air stream (CPUs, memory, NICs, "
                     "NVSwitches, drives)", 1500.0,
                     "Grand Teton CPU tray: 2 x 350 W Xeon; plus ~4 NVSwitches, 8 NICs, memory [E]");
  t.push_back(at_least(p, 0.0));
  return t;
}

core::SectionSchema AirCooledServerParameters::schema() {
  core::SectionSchema s;
  s.doc = "Air-cooled server (server.cooling: air): inlet, fans, heatsinks and GPU slots";
  s.parameters = table();
  s.sections["heatsink"] = core::SectionSchema{"GPU heatsink", HeatsinkParameters::table(), {}, {}, false};
  s.sections["air_path"] = core::SectionSchema{"Air path through the server", ServerAirPathParameters::table(), {}, {},
                                                 false};
  s.sections["fans"] = core::SectionSchema{"Server fan wall and chassis", ServerFanParameters::table(), {}, {}, false};
  s.lists["slots"] = core::SectionSchema{"GPU slots in the air stream, one entry per GPU in order (optional)",
                                           AirCooledSlot::table(), {}, {}, false};
  return s;
}

AirCooledServerParameters AirCooledServerParameters::from(const core::ParameterTree& s) {
  AirCooledServerParameters p;
  p.inlet_temperature = s.number("inlet_temperature");
  p.fan_speed = s.number("fan_speed");
  p.other_heat = s.number("other_heat");
  return p;
}

namespace {

std::vector<GpuAirSlot> positions(const std::vector<AirCooledSlot>& slots) {
  std::vector<GpuAirSlot> out;
  for (const auto& s : slots) out.push_back({s.position_fraction});
  return out;
}

}  // namespace

AirCooledServer::AirCooledServer(AirCooledServerParameters parameters, HeatsinkParameters heatsink,
                                 ServerAirPathParameters air_path, ServerFanParameters fans,
                                 GpuPackageParameters package, std::vector<GpuSpread> spread,
                                 std::vector<AirCooledSlot> slots)
    : p_(parameters),
      package_(package),
      spread_(std::move(spread)),
      slots_([&] {
        slots.resize(spread_.size());
        return std::move(slots);
      }()),
      path_(air_path, heatsink, positions(slots_)) {
  const ServerFans fan_wall(fans);
  const FanOperatingPoint op = fan_wall.operating_point(p_.fan_speed);
  if (!(op.flow > 0.0))
    throw core::InputError("air-cooled server: the fans move no air at speed " + std::to_string(p_.fan_speed));
  server_flow_ = op.flow;
  fan_power_ = op.power;
  heatsink_resistance_ = path_.case_to_air_resistance(server_flow_);
  air_rise_per_watt_ = path_.temperature_rise(1.0, server_flow_, p_.inlet_temperature);
}

AirCooledServer AirCooledServer::from(const core::ParameterTree& server) {
  const auto count = static_cast<std::size_t>(server.integer("gpu_count"));
  std::vector<GpuSpread> spread(count);
  const auto& entries = server.list("gpus");
  for (std::size_t i = 0; i < entries.size() && i < count; ++i) spread[i] = GpuSpread::from(entries[i]);
  const auto& air = server.section("air");
  std::vector<AirCooledSlot> slots;
  for (const auto& entry : air.list("slots")) slots.push_back(AirCooledSlot::from(entry));
  if (slots.size() > count)
    throw core::InputError(server.key_path("air") + ".slots: " + std::to_string(slots.size()) +
                                 " slots for " + std::to_string(count) + " GPUs (server.gpu_count)",
                             server.key_path("air"));
  return AirCooledServer(AirCooledServerParameters::from(air), HeatsinkParameters::from(air.section("heatsink")),
                         ServerAirPathParameters::from(air.section("air_path")),
                         ServerFanParameters::from(air.section("fans")),
                         GpuPackageParameters::from(server.section("gpu")), std::move(spread), std::move(slots));
}

double AirCooledServer::heatsink_resistance(std::size_t gpu) const {
  return slots_[gpu].heatsink_resistance_scale * heatsink_resistance_;
}

double AirCooledServer::local_air_temperature(std::size_t gpu, double gpu_heat) const {
  const double server_heat = gpu_heat + p_.other_heat + fan_power_;
  return p_.inlet_temperature + slots_[gpu].inlet_offset +
         slots_[gpu].position_fraction * server_heat * air_rise_per_watt_;
}

double AirCooledServer::leakage(std::size_t gpu, double junction_temperature) const {
  if (package_.leakage_power_at_reference == 0.0) return 0.0;
  // Exponent held within +-700 as the package does (no overflow on a runaway).
  const double exponent = std::clamp(
      package_.leakage_temperature_coefficient * (junction_temperature - package_.leakage_reference_temperature),
      -700.0, 700.0);
  return spread_[gpu].leakage_scale * package_.leakage_power_at_reference * std::exp(exponent);
}

AirCooledGpuState AirCooledServer::steady_state(std::size_t gpu, double power, double local_air) const {
  const double r_jb = spread_[gpu].resistance_scale * package_.junction_to_base_resistance;
  const double r_hs = heatsink_resistance(gpu);
  const double f_h = package_.hbm_power_fraction;
  const double k = package_.leakage_power_at_reference == 0.0 ? 0.0 : package_.leakage_temperature_coefficient;
  // g(T_j) = T_a + (P + L) R_hs + ((1 - f_h) P + L) R_jb - T_j = 0, g' = L k (R_hs + R_jb) - 1.
  double tj = local_air + power * r_hs + (1.0 - f_h) * power * r_jb;
  bool converged = false;
  for (int iteration = 0; iteration < 100; ++iteration) {
    const double leak = leakage(gpu, tj);
    const double g = local_air + (power + leak) * r_hs + ((1.0 - f_h) * power + leak) * r_jb - tj;
    const double slope = leak * k * (r_hs + r_jb) - 1.0;
    if (!(slope < 0.0)) break;  // past the fold: no stable fixed point above
    const double step = -g / slope;
    tj += step;
    if (!std::isfinite(tj)) break;
    if (std::abs(step) < 1e-10 * std::max(1.0, std::abs(tj))) {
      converged = true;
      break;
    }
  }
  if (!converged)
    throw solver::SolverError("air-cooled steady state", "GPU " + std::to_string(gpu) +
                                                            ": leakage runaway, no fixed point at " +
                                                            detail::format_decimals(power) + " W in " +
                                                            detail::format_decimals(local_air) + " K air");
  const double leak = leakage(gpu, tj);
  const double tb = local_air + (power + leak) * r_hs;
  return {tj, tb + f_h * power * package_.hbm_to_base_resistance, tb};
}

AirCooledGpuState AirCooledServer::advance(std::size_t gpu, AirCooledGpuState x, double power, double local_air,
                                           double duration, double max_step) const {
  if (!(duration > 0.0)) return x;
  const double g_jb = 1.0 / (spread_[gpu].resistance_scale * package_.junction_to_base_resistance);
  const double g_hb = 1.0 / package_.hbm_to_base_resistance;
  const double g_hs = 1.0 / heatsink_resistance(gpu);
  const double c_j = slots_[gpu].junction_capacitance_scale * package_.junction_capacitance;
  const double c_h = package_.hbm_capacitance;
  const double c_b = slots_[gpu].heatsink_capacitance_scale * package_.base_capacitance;
  const double f_h = package_.hbm_power_fraction;
  const double k = package_.leakage_temperature_coefficient;
  // dx/dt = f(x): rates of change of (T_j, T_h, T_b).
  auto rates = [&](const AirCooledGpuState& s, double leak) -> AirCooledGpuState {
    return {((1.0 - f_h) * power + leak - (s[0] - s[2]) * g_jb) / c_j, (f_h * power - (s[1] - s[2]) * g_hb) / c_h,
            ((s[0] - s[2]) * g_jb + (s[1] - s[2]) * g_hb - (s[2] - local_air) * g_hs) / c_b};
  };
  const auto steps = static_cast<long>(std::ceil(duration / max_step - 1e-12));
  const double h = duration / static_cast<double>(std::max(1L, steps));
  for (long n = 0; n < std::max(1L, steps); ++n) {
    const AirCooledGpuState f0 = rates(x, leakage(gpu, x[0]));
    AirCooledGpuState y = x;
    // Trapezoidal rule: y = x + h/2 (f(x) + f(y)), Newton on F(y) = y - x - h/2 (f(x) + f(y)).
    for (int iteration = 0; iteration < 8; ++iteration) {
      const double leak = leakage(gpu, y[0]);
      const AirCooledGpuState f1 = rates(y, leak);
      std::array<double, 3> r{};
      for (std::size_t i = 0; i < 3; ++i) r[i] = y[i] - x[i] - 0.5 * h * (f0[i] + f1[i]);
      // Jacobian of F: I - h/2 J, J of f (leakage derivative k L on the junction).
      const double a = 0.5 * h;
      const double j00 = 1.0 - a * (k * leak - g_jb) / c_j, j02 = -a * g_jb / c_j;
      const double j11 = 1.0 + a * g_hb / c_h, j12 = -a * g_hb / c_h;
      const double j20 = -a * g_jb / c_b, j21 = -a * g_hb / c_b, j22 = 1.0 + a * (g_jb + g_hb + g_hs) / c_b;
      // Solve by eliminating T_j and T_h into the base row.
      const double d2 = j22 - j20 * j02 / j00 - j21 * j12 / j11;
      const double r2 = r[2] - j20 * r[0] / j00 - j21 * r[1] / j11;
      const double dy2 = r2 / d2;
      const double dy0 = (r[0] - j02 * dy2) / j00;
      const double dy1 = (r[1] - j12 * dy2) / j11;
      y[0] -= dy0;
      y[1] -= dy1;
      y[2] -= dy2;
      if (!(std::isfinite(y[0]) && std::isfinite(y[1]) && std::isfinite(y[2]))) return y;
      if (std::abs(dy0) + std::abs(dy1) + std::abs(dy2) < 1e-11 * std::abs(y[0])) break;
    }
    x = y;
  }
  return x;
}

}  // namespace dctwin::models::thermal
