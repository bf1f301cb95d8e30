// CDU: sizing from the nominal approach, the approach at the rating point, energy balance, valve,
// the valve actuator's travel, closed-loop control of the IT supply temperature, bad parameters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "dctwin/models/hx/cdu.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;
using hx_test::relative_equal;

TEST_CASE("CDU approach at the rating point equals the nominal approach", "[hx][cdu]") {
  for (double approach : {3.0, 1.5, 5.0}) {
    CduParameters p;
    p.nominal_approach = approach;
    const Cdu cdu(p);
    // Rating point: 2 MW, IT return 45 degC, facility supply = IT supply - approach.
    const double it_drop = p.nominal_heat_flow / (p.nominal_it_flow * p.it_specific_heat);
    const double it_return = kelvin + 45.0;
    const double facility_supply = it_return - it_drop - approach;
    const auto op = cdu.evaluate(it_return, p.nominal_it_flow, facility_supply, p.nominal_facility_flow,
                                 p.it_specific_heat, p.facility_specific_heat);
    INFO("nominal approach " << approach);
    CHECK(op.approach == Approx(approach).epsilon(1e-10));
    CHECK(op.heat_flow == Approx(p.nominal_heat_flow).epsilon(1e-10));
    CHECK(op.ua == Approx(cdu.nominal_ua()).epsilon(1e-13));
  }
}

TEST_CASE("CDU UA is sized by the closed-form counter-flow inverse", "[hx][cdu]") {
  const CduParameters p;  // Deschutes: 2 MW, 3 K, 31.48 kg/s PG25; 30 kg/s water
  const double c_it = 31.48 * 3991.0;
  const double c_fac = 30.0 * 4180.0;
  const double c_min = std::min(c_it, c_fac);
  const double cr = c_min / std::max(c_it, c_fac);
  const double eps = 2e6 / (c_min * (2e6 / c_it + 3.0));
  const double ntu = std::log((1.0 - eps * cr) / (1.0 - eps)) / (1.0 - cr);
  CHECK(Cdu(p).nominal_ua() == Approx(ntu * c_min).epsilon(1e-10));
  CHECK(Cdu(p).nominal_ua() == Approx(670.0e3).epsilon(1e-3));  // value quoted in the docs
}

TEST_CASE("CDU conserves energy and its approach widens as the valve closes", "[hx][cdu]") {
  const Cdu cdu({});
  double previous_approach = 0.0;
  for (double opening : {1.0, 0.8, 0.6, 0.4, 0.2, 0.05}) {
    const double facility_flow = cdu.facility_flow(opening);
    CHECK(facility_flow == Approx(30.0 * opening));
    const auto op = cdu.evaluate(kelvin + 45.0, 31.48, kelvin + 26.0, facility_flow, 3991.0, 4180.0);
    const double q_it = 31.48 * 3991.0 * (kelvin + 45.0 - op.it_supply_temperature);
    const double q_fac = facility_flow * 4180.0 * (op.facility_return_temperature - (kelvin + 26.0));
    CHECK(relative_equal(q_it, op.heat_flow, 1e-12));
    CHECK(relative_equal(q_fac, op.heat_flow, 1e-12));
    CHECK(op.approach > previous_approach);
    previous_approach = op.approach;
  }
}

TEST_CASE("CDU valve controller holds the IT supply temperature through a load step", "[hx][cdu][controller]") {
  // IT loop as one mixed volume (10 m3 of PG25): C dT_ret/dt = P_IT - Q_cdu, T_sup from the CDU.
  const Cdu cdu({});
  const double cp = 3991.0;
  const double flow = 31.48;
  const double capacity = 10.0 * 1015.0 * cp;
  const double facility_supply = kelvin + 26.0;
  const double setpoint = kelvin + 30.0;
  double it_return = kelvin + 40.0;
  auto supply = [&](double opening) {
    return cdu.evaluate(it_return, flow, facility_supply, cdu.facility_flow(opening), cp, 4180.0);
  };
  PiState state = cdu.controller().initial_state(0.5, setpoint, supply(0.5).it_supply_temperature);
  double opening = 0.5;
  double worst_after_step = 0.0;
  for (int second = 0; second < 7200; ++second) {
    const double load = second < 3600 ? 1.5e6 : 2.0e6;
    const auto op = supply(opening);
    opening = cdu.control(state, setpoint, op.it_supply_temperature);
    it_return += (load - op.heat_flow) / capacity;
    if (second >= 3600) worst_after_step = std::max(worst_after_step, std::fabs(op.it_supply_temperature - setpoint));
    if (second == 3599) {
      CHECK(op.it_supply_temperature == Approx(setpoint).margin(0.02));
      CHECK(op.heat_flow == Approx(1.5e6).epsilon(1e-3));
    }
  }
  const auto final_state = supply(opening);
  CHECK(final_state.it_supply_temperature == Approx(setpoint).margin(0.02));
  CHECK(final_state.heat_flow == Approx(2.0e6).epsilon(1e-3));
  CHECK(opening > 0.05);
  CHECK(opening < 1.0);
  CHECK(worst_after_step < 0.3);  // a 0.5 MW step moves the supply by ~0.13 K
  CHECK(state.output == opening);
}

TEST_CASE("CDU valve travels at its actuator's speed, from exactly where it was to exactly the command",
          "[hx][cdu]") {
  CduParameters p;
  p.valve_stroke_time = 60.0;  // 1/60 of the stroke per second
  const Cdu cdu(p);
  CHECK(cdu.travel(0.5, 0.6, 0.0) == 0.5);
  CHECK(cdu.travel(0.5, 0.6, 3.0) == Approx(0.55).epsilon(1e-15));
  CHECK(cdu.travel(0.5, 0.6, 6.0 - 1e-9) < 0.6);
  CHECK(cdu.travel(0.5, 0.6, 6.0) == 0.6);
  CHECK(cdu.travel(0.5, 0.6, 100.0) == 0.6);
  CHECK(cdu.travel(0.6, 0.3, 9.0) == Approx(0.45).epsilon(1e-15));
  CHECK(cdu.travel(0.6, 0.3, 18.0) == 0.3);
  CHECK(cdu.travel(0.3, 0.3, 0.0) == 0.3);
  CHECK(cdu.travel(0.5, 0.6, -1.0) == 0.5);  // not before the command
  // Never beyond the command, wherever the arrival and the distance moved round.
  for (double t = 0.0; t <= 1.0; t += 1.0 / 64.0) {
    CHECK(cdu.travel(0.01, 0.0, t) >= 0.0);
    CHECK(cdu.travel(0.99, 1.0, t) <= 1.0);
  }
  p.valve_stroke_time = 0.0;  // at once
  const Cdu instant(p);
  CHECK(instant.travel(0.5, 0.6, 0.0) == 0.6);
}

TEST_CASE("CDU refuses bad parameters with exact messages", "[hx][cdu]") {
  CduParameters p;
  p.nominal_approach = 0.0;
  CHECK(input_error([&] { Cdu cdu(p); }) == "cdu.nominal_approach = 0 K (must be > 0)");
  p.nominal_approach = -1.0;
  CHECK(input_error([&] { Cdu cdu(p); }) == "cdu.nominal_approach = -1 K (must be > 0)");
  p = {};
  p.nominal_facility_flow = 10.0;  // facility water would warm by 47.8 K > 18.9 K
  CHECK(input_error([&] { Cdu cdu(p); }) ==
        "cdu: nominal approach 3 K cannot be reached: the facility water would warm by 47.8469 K, more than the "
        "18.9189 K between IT return and facility supply (raise nominal_facility_flow or nominal_approach)");
  p = {};
  p.controller.output_max = 1.5;
  CHECK(input_error([&] { Cdu cdu(p); }) == "cdu.controller.output_max = 1.5 (must be <= 1)");
  p = {};
  p.valve_stroke_time = -1.0;
  CHECK(input_error([&] { Cdu cdu(p); }) == "cdu.valve_stroke_time = -1 s (must be >= 0)");
  p = {};
  p.controller.sample_period = 0.0;
  CHECK(input_error([&] { Cdu cdu(p, "pods[2].cdu"); }) == "pods[2].cdu.controller.sample_period = 0 s (must be > 0)");
}
