// Heatsink laws, the air path of an 8-GPU server, server fans (affinity laws, operating point,
// power) and the fan controller (step response, limits, slew, anti-windup, fan table).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/thermal/heatsink.hpp"
#include "dctwin/models/thermal/server_fans.hpp"

using namespace dctwin::models::thermal;
using dctwin::core::InputError;

namespace {

constexpr double k0 = 273.15;

template <typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// An air-cooled 8-GPU server at fan speed s: every GPU at `gpu_power`, 2 x 350 W CPUs, 1 kW of
/// switches, NICs, memory and PSU loss, plus the fans' own power. Returns the junction of GPU i.
struct AirCooledServer {
  ServerFans fans{ServerFanParameters{}};
  ServerAirPath path{ServerAirPathParameters{}, HeatsinkParameters{}, eight_gpu_baseboard_slots()};
  double junction_to_case = GpuPackageParameters{}.junction_to_base_resistance;

  double heat(double gpu_power, double speed) const { return 8.0 * gpu_power + 700.0 + 1000.0 + fans.power(speed); }
  double junction(std::size_t gpu, double gpu_power, double inlet, double speed) const {
    const double flow = fans.operating_point(speed).flow;
    return path.case_temperature(gpu, gpu_power, inlet, heat(gpu_power, speed), flow) + gpu_power * junction_to_case;
  }
};

}  // namespace

TEST_CASE("Heatsink resistance at reference airflows follows R_spread + R_conv,0 (V/V_0)^-n", "[models][air][heatsink]") {
  const HeatsinkParameters p;
  const Heatsink hs(p);
  CHECK(hs.resistance(p.reference_flow) == Approx(0.015 + 0.035).epsilon(1e-14));
  CHECK(hs.resistance(2.0 * p.reference_flow) == Approx(0.015 + 0.035 * std::pow(2.0, -0.7)).epsilon(1e-14));
  CHECK(hs.resistance(0.5 * p.reference_flow) == Approx(0.015 + 0.035 * std::pow(0.5, -0.7)).epsilon(1e-14));
  // At very high flow only the spreading part is left.
  CHECK(hs.resistance(1e6 * p.reference_flow) == Approx(0.015).epsilon(1e-3));
  // Analytic derivative against a central difference.
  const double v = 0.06, h = 1e-7;
  CHECK(hs.resistance_flow_derivative(v) ==
        Approx((hs.resistance(v + h) - hs.resistance(v - h)) / (2.0 * h)).epsilon(1e-6));
  // Pressure drop: dp_0 at V_0, (V/V_0)^1.8 elsewhere, zero at zero flow.
  CHECK(hs.pressure_drop(p.reference_flow) == Approx(250.0));
  CHECK(hs.pressure_drop(0.5 * p.reference_flow) == Approx(250.0 * std::pow(0.5, 1.8)));
  CHECK(hs.pressure_drop(0.0) == 0.0);
}

TEST_CASE("Air path: rear-row GPUs breathe air preheated by the front row", "[models][air][heatsink]") {
  const ServerAirPath path(ServerAirPathParameters{}, HeatsinkParameters{}, eight_gpu_baseboard_slots());
  const double inlet = k0 + 25.0, heat = 8000.0, flow = 0.5;
  const double rise = path.temperature_rise(heat, flow, inlet);
  const Air air;
  CHECK(rise == Approx(heat / (air.density(inlet) * air.specific_heat(inlet) * flow)).epsilon(1e-14));
  CHECK(rise == Approx(13.42).margin(0.01));  // 8 kW in 0.5 m3/s of 25 degC air
  for (std::size_t i = 0; i < 4; ++i) CHECK(path.local_air_temperature(i, inlet, heat, flow) == inlet);
  for (std::size_t i = 4; i < 8; ++i)
    CHECK(path.local_air_temperature(i, inlet, heat, flow) == Approx(inlet + 0.45 * rise).epsilon(1e-14));
  CHECK(path.heatsink_flow(flow) == Approx(0.0875));
  CHECK(path.case_to_air_resistance(flow) == Approx(0.05).epsilon(1e-12));
  CHECK(path.case_temperature(5, 700.0, inlet, heat, flow) == Approx(inlet + 0.45 * rise + 700.0 * 0.05).epsilon(1e-14));
  CHECK(error_message([] {
          ServerAirPath bad(ServerAirPathParameters{}, HeatsinkParameters{}, {GpuAirSlot{0.0}, GpuAirSlot{1.5}});
        }) == "server air path: gpus[1].position_fraction = 1.5 is outside [0, 1]");
}

TEST_CASE("A 700 W H100 at 25 degC inlet stays below 87 degC only at high fan speed", "[models][air][heatsink]") {
  const AirCooledServer server;
  const double inlet = k0 + 25.0, slowdown = k0 + 87.0;
  // Full speed: every GPU, front and rear, below the slowdown target.
  for (std::size_t i = 0; i < 8; ++i) CHECK(server.junction(i, 700.0, inlet, 1.0) < slowdown);
  CHECK(server.junction(0, 700.0, inlet, 1.0) - k0 == Approx(77.6).margin(0.5));
  CHECK(server.junction(7, 700.0, inlet, 1.0) - k0 == Approx(84.5).margin(0.7));
  // At 80 % the rear row is over; at 60 % the front row too.
  CHECK(server.junction(7, 700.0, inlet, 0.8) > slowdown);
  CHECK(server.junction(0, 700.0, inlet, 0.8) < slowdown);
  CHECK(server.junction(0, 700.0, inlet, 0.6) > slowdown);
  // The speed at which the rear row reaches 87 degC, by bisection: above 85 %.
  double low = 0.3, high = 1.0;
  for (int k = 0; k < 60; ++k) {
    const double mid = 0.5 * (low + high);
    (server.junction(7, 700.0, inlet, mid) > slowdown ? low : high) = mid;
  }
  CHECK(low > 0.85);
  CHECK(low < 1.0);
  // At a typical training power (~540 W) there is room to slow the fans.
  CHECK(server.junction(7, 540.0, inlet, 0.7) < slowdown);
}

TEST_CASE("Server fans: affinity laws, closed-form operating point, power ~ speed^3", "[models][air][fans]") {
  const ServerFanParameters p;
  const ServerFans fans(p);
  // Affinity: at speed s the curve is the full-speed curve scaled by s in flow and s^2 in pressure.
  for (const double s : {0.3, 0.5, 0.8}) {
    for (const double v : {0.0, 0.2, 0.5}) CHECK(fans.pressure_rise(s * v, s) == Approx(s * s * fans.pressure_rise(v, 1.0)));
  }
  CHECK(fans.pressure_rise(0.0, 1.0) == Approx(1200.0));
  CHECK(fans.pressure_rise(0.8, 1.0) == Approx(0.0).margin(1e-9));
  // Quadratic chassis: V = s sqrt(dp_0 / (dp_ref / V_ref^2 + dp_0 / V_free^2)) = 0.4961 s m3/s.
  const double k = 750.0 / (0.5 * 0.5), exact_full = std::sqrt(1200.0 / (k + 1200.0 / (0.8 * 0.8)));
  for (const double s : {0.2, 0.6, 1.0}) {
    const FanOperatingPoint op = fans.operating_point(s);
    CHECK(op.flow == Approx(s * exact_full).epsilon(1e-10));
    CHECK(op.pressure_rise == Approx(k * op.flow * op.flow).epsilon(1e-9));
    CHECK(op.power == Approx(1500.0 * s * s * s));
  }
  CHECK(exact_full == Approx(0.4961).margin(1e-4));
  // Power ~ speed^3, and so ~ flow^3 on a fixed chassis.
  CHECK(fans.power(0.5) == Approx(fans.power(1.0) / 8.0));
  CHECK(fans.power(0.5) / fans.power(1.0) ==
        Approx(std::pow(fans.operating_point(0.5).flow / fans.operating_point(1.0).flow, 3.0)).epsilon(1e-9));
  CHECK(fans.operating_point(0.0).flow == 0.0);
  // A chassis with exponent 1.6: the bisection lands on the crossing.
  ServerFanParameters q = p;
  q.system_flow_exponent = 1.6;
  const ServerFans other(q);
  const FanOperatingPoint op = other.operating_point(0.7);
  CHECK(other.pressure_rise(op.flow, 0.7) == Approx(other.system_pressure_drop(op.flow)).epsilon(1e-9));
}

TEST_CASE("Fan controller (PI): step response reaches the target within limits and slew", "[models][air][fans]") {
  // Plant: the rear-row GPU of the server above, first order towards its steady junction with a
  // 40 s time constant, sampled exactly every second. At 700 W and 25 degC inlet the rear row
  // reaches only ~84.5 degC at full speed, so the target here is 86 degC (reachable).
  const AirCooledServer server;
  FanControllerParameters cp;
  cp.target_temperature = k0 + 86.0;
  cp.speed_resolution = 0.0;  // the continuous law (the rounded one is tested below)
  const FanController controller(cp);
  const double inlet = k0 + 25.0, tau = 40.0, decay = std::exp(-cp.sample_period / tau);
  FanControllerState state = controller.initial_state(0.3);
  double power = 150.0, temperature = server.junction(7, power, inlet, state.speed);
  double speed = state.speed;
  std::vector<double> history;
  power = 700.0;  // step: the job starts
  for (int k = 0; k < 900; ++k) {
    const double previous = state.speed;
    speed = controller.step(state, {temperature});
    CHECK(speed >= cp.min_speed);
    CHECK(speed <= cp.max_speed);
    CHECK(std::abs(speed - previous) <= cp.max_slew_rate * cp.sample_period + 1e-12);
    const double target = server.junction(7, power, inlet, speed);
    temperature = target + (temperature - target) * decay;
    history.push_back(temperature);
  }
  CHECK(temperature == Approx(cp.target_temperature).margin(0.05));
  CHECK(speed > 0.9);  // the rear row needs high speed at 700 W (see the test above)
  CHECK(speed < 1.0);
  // Never above the slowdown target on the way.
  CHECK(*std::max_element(history.begin(), history.end()) < k0 + 87.0 + 1.0);
}

TEST_CASE("Fan controller (PI): saturation does not wind up the integral", "[models][air][fans]") {
  const FanController controller(FanControllerParameters{});
  FanControllerState state = controller.initial_state(0.5);
  // 10 minutes 15 K over target: speed pinned at the maximum.
  for (int k = 0; k < 600; ++k) controller.step(state, {k0 + 98.0});
  CHECK(state.speed == 1.0);
  CHECK(state.integral == Approx(1.0 - 0.05 * 15.0));  // tracked, not wound up
  // Back below target: the speed starts to fall at the very next sample.
  const double before = state.speed;
  controller.step(state, {k0 + 80.0});
  CHECK(state.speed < before);
  // And never below the minimum however cold it gets.
  for (int k = 0; k < 600; ++k) controller.step(state, {k0 + 20.0});
  CHECK(state.speed == Approx(0.3));
}

TEST_CASE("Fan controller (curve): BMC fan table with hysteresis", "[models][air][fans]") {
  FanControllerParameters p;
  p.mode = "curve";
  p.max_slew_rate = 1.0;  // no slew limit in the way of this test
  const FanController controller(p);
  CHECK(controller.curve_speed(k0 + 50.0) == 0.3);
  CHECK(controller.curve_speed(k0 + 67.5) == Approx(0.45));
  CHECK(controller.curve_speed(k0 + 80.0) == Approx(0.8));
  CHECK(controller.curve_speed(k0 + 95.0) == 1.0);
  FanControllerState state = controller.initial_state(0.3);
  CHECK(controller.step(state, {k0 + 80.0}) == Approx(0.8));
  // 1 K cooler: within the 2 K hysteresis, the speed holds.
  CHECK(controller.step(state, {k0 + 79.0}) == Approx(0.8));
  // 4 K cooler: it drops, to the curve 2 K above the reading.
  CHECK(controller.step(state, {k0 + 76.0}) == Approx(controller.curve_speed(k0 + 78.0)));
  // Hotter: straight to the curve.
  CHECK(controller.step(state, {k0 + 84.0}) == Approx(controller.curve_speed(k0 + 84.0)));
  // With the default slew limit a jump from 30 % to 100 % takes 14 samples.
  const FanController slow([] {
    FanControllerParameters q;
    q.mode = "curve";
    return q;
  }());
  FanControllerState s = slow.initial_state(0.3);
  int samples = 0;
  while (s.speed < 1.0 - 1e-12 && samples < 100) {
    slow.step(s, {k0 + 90.0});
    ++samples;
  }
  CHECK(samples == 14);
}

TEST_CASE("Fan controller: the written speed is rounded to the resolution, the integral is not",
          "[models][air][fans]") {
  const FanControllerParameters defaults;
  CHECK(defaults.speed_resolution == 0.01);  // a whole-percent duty
  const FanController controller(defaults);
  const double target = defaults.target_temperature;
  FanControllerState state = controller.initial_state(0.5);
  CHECK(state.speed == 0.5);
  // 0.07 K over target: the demand 0.5 + 0.0035 + k 0.05 (1/30) 0.07 stays below 0.505 for 12
  // samples, so the written speed holds at 0.50 while the integral grows unrounded.
  const double increment = 0.05 * (1.0 / 30.0) * 0.07;
  for (int k = 1; k <= 12; ++k) {
    CHECK(controller.step(state, {target + 0.07}) == 0.5);
    CHECK(state.integral == Approx(0.5 + k * increment).epsilon(1e-14));
  }
  // The 13th crosses 0.505: one step up.
  CHECK(controller.step(state, {target + 0.07}) == Approx(0.51).epsilon(1e-15));
  CHECK(state.speed == Approx(0.51).epsilon(1e-15));
  CHECK(state.integral == Approx(0.5 + 13 * increment).epsilon(1e-14));
  // 10 K over: the slew limit (0.05 a sample) takes it to 0.56, and the integral tracks the
  // unrounded speed: 0.56 - 0.05 x 10.
  CHECK(controller.step(state, {target + 10.0}) == Approx(0.56).epsilon(1e-15));
  CHECK(state.integral == Approx(0.56 - 0.5).epsilon(1e-12));
  // A slew limit between two steps: from 0.50 at most 0.036, so 0.536 is written as 0.53, not
  // the nearest 0.54.
  FanControllerParameters p = defaults;
  p.max_slew_rate = 0.036;
  const FanController slow(p);
  FanControllerState s = slow.initial_state(0.5);
  CHECK(slow.step(s, {target + 10.0}) == Approx(0.53).epsilon(1e-15));
  // Resolution 0: the speed is the demand itself.
  p = defaults;
  p.speed_resolution = 0.0;
  const FanController continuous(p);
  FanControllerState c = continuous.initial_state(0.5);
  CHECK(continuous.step(c, {target + 0.07}) == Approx(0.5 + 0.0035 + increment).epsilon(1e-14));
  // The curve mode writes the table's speed rounded: 67.3 degC reads 0.446 on the default table.
  p = defaults;
  p.mode = "curve";
  p.max_slew_rate = 1.0;
  const FanController table(p);
  FanControllerState t = table.initial_state(0.3);
  CHECK(table.curve_speed(k0 + 67.3) == Approx(0.446));
  CHECK(table.step(t, {k0 + 67.3}) == Approx(0.45).epsilon(1e-15));
}

TEST_CASE("Fan controller parameters are checked with exact messages", "[models][air][fans]") {
  FanControllerParameters p;
  p.min_speed = 0.8;
  p.max_speed = 0.6;
  CHECK(error_message([&] { FanController c(p); }) == "fan controller: min_speed 0.8 is above max_speed 0.6");
  p = {};
  p.curve = {{k0 + 80.0, 0.5}};
  CHECK(error_message([&] { FanController c(p); }) == "fan controller: curve needs at least 2 points (1 given)");
  p.curve = {{k0 + 60.0, 0.3}, {k0 + 80.0, 0.5}, {k0 + 80.0, 0.9}};
  CHECK(error_message([&] { FanController c(p); }) ==
        "fan controller: curve[2].temperature 80 degC is not above curve[1].temperature 80 degC");
  p.curve = {{k0 + 60.0, 0.5}, {k0 + 70.0, 0.4}};
  CHECK(error_message([&] { FanController c(p); }) ==
        "fan controller: curve[1].speed 0.4 is below curve[0].speed 0.5 (the curve must not fall)");
  p = {};
  p.mode = "bang-bang";
  CHECK(error_message([&] { FanController c(p); }) == "fan controller: mode 'bang-bang' is not 'pi' or 'curve'");
  p = {};
  p.speed_resolution = 0.2;
  CHECK(error_message([&] { FanController c(p); }) == "fan controller: speed_resolution 0.2 is not in [0, 0.1]");
  // 0.1-s samples at the default 0.05 1/s allow 0.005 a sample: a 1 % step could never be taken.
  p = {};
  p.sample_period = 0.1;
  CHECK(error_message([&] { FanController c(p); }) ==
        "fan controller: speed_resolution 0.01 is larger than the slew limit per sample (max_slew_rate x "
        "sample_period = 0.005): the speed could never change");
  p.speed_resolution = 0.005;  // one step a sample: allowed
  CHECK_NOTHROW(FanController(p));
}

TEST_CASE("Fan controller with whole-percent steps: full slew both ways, every speed on a step", "[air][fans]") {
  // PI at the defaults (1-s samples, 0.05 1/s, 1 % steps), far below and then far above the
  // target: the speed walks down from 1.0 by exactly 0.05 a sample to s_min, then back up.
  FanControllerParameters p;
  const FanController c(p);
  FanControllerState state = c.initial_state(1.0);
  const double cold = p.target_temperature - 40.0, hot = p.target_temperature + 40.0;
  double expected = 1.0;
  for (int k = 0; k < 20; ++k) {
    const double speed = c.step(state, {cold});
    expected = std::max(p.min_speed, expected - 0.05);
    CHECK(speed == Approx(expected).margin(1e-12));
    CHECK(std::abs(speed / 0.01 - std::round(speed / 0.01)) < 1e-9);
  }
  CHECK(state.speed == Approx(p.min_speed).margin(1e-12));
  for (int k = 0; k < 20; ++k) {
    const double speed = c.step(state, {hot});
    expected = std::min(p.max_speed, expected + 0.05);
    CHECK(speed == Approx(expected).margin(1e-12));
  }
  CHECK(state.speed == Approx(1.0).margin(1e-12));
}
