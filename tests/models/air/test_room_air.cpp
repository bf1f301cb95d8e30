// Data-hall air: mass balance of the mixing relations, energy conservation of the zone equations,
// the steady state against a hand solution, and the Jacobian against finite differences.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/thermal/room_air.hpp"

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

/// A hall near the default design point: 384 servers at 0.3 m3/s each (~138 kg/s), 3.2 MW.
RoomAirInputs design_inputs(const RoomAir& room) {
  RoomAirInputs in;
  in.it_mass_flow = 384 * 0.3 * room.reference_density();
  in.it_heat = 3.2e6;
  in.crah_speed = 0.6;
  in.water_supply_temperature = k0 + 16.0;
  return in;
}

}  // namespace

TEST_CASE("Room air: every zone balances its mass, starved or over-supplied", "[models][air][room]") {
  const RoomAir room(RoomAirParameters{}, CrahParameters{});
  for (const double supply : {0.0, 50.0, 120.0, 138.0, 200.0, 400.0}) {
    for (const double it : {0.0, 60.0, 138.0, 250.0}) {
      INFO("supply " << supply << " kg/s, IT " << it << " kg/s");
      const RoomAirFlows f = room.flows(supply, it);
      CHECK(f.recirculation >= 0.0);
      CHECK(f.bypass >= 0.0);
      CHECK(f.return_flow == supply);
      // Cold aisle: in = out. Hot aisle: in = out.
      CHECK(f.supply + f.recirculation - f.it - f.bypass == Approx(0.0).margin(1e-12 * (1.0 + supply + it)));
      CHECK(f.it + f.bypass - f.return_flow - f.recirculation == Approx(0.0).margin(1e-12 * (1.0 + supply + it)));
    }
  }
  // Balanced flows: the leaks are exactly r m_it and b m_s.
  const RoomAirFlows balanced = room.flows(100.0, 100.0);
  CHECK(balanced.recirculation == Approx(5.0));
  CHECK(balanced.bypass == Approx(5.0));
  // Starved servers pull the deficit from the hot aisle.
  const RoomAirFlows starved = room.flows(80.0, 100.0);
  CHECK(starved.bypass == Approx(4.0));
  CHECK(starved.recirculation == Approx(100.0 - 0.95 * 80.0));
}

TEST_CASE("Room air: stored energy changes by IT heat plus fan heat minus coil heat", "[models][air][room]") {
  const RoomAir room(RoomAirParameters{}, CrahParameters{});
  RoomAirInputs in = design_inputs(room);
  struct Case {
    double tc, th, speed;
    const char* regime;
  };
  // Set-point holds; coil at its limit (hot return, little air); coil off (cool return).
  const Case cases[] = {{k0 + 25.0, k0 + 45.0, 0.55, "set-point"},
                        {k0 + 30.0, k0 + 60.0, 0.2, "limit"},
                        {k0 + 22.0, k0 + 24.0, 0.55, "off"}};
  for (const Case& c : cases) {
    INFO(c.regime);
    in.crah_speed = c.speed;
    const RoomAirState s{c.tc, c.th};
    const RoomAirRates r = room.derivatives(s, in);
    const CrahOperation op = room.crah(s.hot_aisle_temperature, in);
    const double stored_rate = room.cold_aisle_heat_capacity() * r.cold_aisle + room.hot_aisle_heat_capacity() * r.hot_aisle;
    CHECK(stored_rate == Approx(in.it_heat + op.fan_power - op.coil_heat).epsilon(1e-10));
    if (std::string(c.regime) == "set-point") CHECK(op.supply_temperature == Approx(k0 + 25.0));
    if (std::string(c.regime) == "limit") CHECK(op.supply_temperature > k0 + 25.0);
    if (std::string(c.regime) == "off") CHECK(op.coil_heat == 0.0);
  }
}

TEST_CASE("Room air: the transient settles on the hand-computed steady state", "[models][air][room]") {
  const RoomAir room(RoomAirParameters{}, CrahParameters{});
  const RoomAirInputs in = design_inputs(room);
  // Hand solution with the set-point holding (T_s = 25 degC):
  //   hot aisle:  c_p (m_it + m_byp)(T_C - T_H) + Q_it = 0
  //   cold aisle: m_s (T_s - T_C) + m_rec (T_H - T_C) = 0
  const RoomAirFlows f = room.flows(room.crah_mass_flow(in.crah_speed), in.it_mass_flow);
  const double cp = room.specific_heat(), ts = k0 + 25.0;
  const double rise = in.it_heat / (cp * (f.it + f.bypass));
  const double tc = ts + f.recirculation * rise / f.supply;  // from both equations
  const double th = tc + rise;
  // Integrate (classical RK4, 0.2 s steps, 30 min: time constants are a few seconds).
  RoomAirState s{k0 + 20.0, k0 + 30.0};
  const double dt = 0.2;
  for (int k = 0; k < 9000; ++k) {
    const auto f1 = room.derivatives(s, in);
    const auto f2 = room.derivatives({s.cold_aisle_temperature + 0.5 * dt * f1.cold_aisle, s.hot_aisle_temperature + 0.5 * dt * f1.hot_aisle}, in);
    const auto f3 = room.derivatives({s.cold_aisle_temperature + 0.5 * dt * f2.cold_aisle, s.hot_aisle_temperature + 0.5 * dt * f2.hot_aisle}, in);
    const auto f4 = room.derivatives({s.cold_aisle_temperature + dt * f3.cold_aisle, s.hot_aisle_temperature + dt * f3.hot_aisle}, in);
    s.cold_aisle_temperature += dt / 6.0 * (f1.cold_aisle + 2.0 * f2.cold_aisle + 2.0 * f3.cold_aisle + f4.cold_aisle);
    s.hot_aisle_temperature += dt / 6.0 * (f1.hot_aisle + 2.0 * f2.hot_aisle + 2.0 * f3.hot_aisle + f4.hot_aisle);
  }
  CHECK(s.cold_aisle_temperature == Approx(tc).margin(1e-6));
  CHECK(s.hot_aisle_temperature == Approx(th).margin(1e-6));
  // Recirculation warms the server inlet above the supply.
  CHECK(s.cold_aisle_temperature > ts);
  // At steady state the coil takes the IT heat and the CRAH fan heat.
  const CrahOperation op = room.crah(s.hot_aisle_temperature, in);
  CHECK(op.coil_heat == Approx(in.it_heat + op.fan_power).epsilon(1e-6));
}

TEST_CASE("Room air: Jacobian matches finite differences in every coil regime", "[models][air][room]") {
  const RoomAir room(RoomAirParameters{}, CrahParameters{});
  RoomAirInputs in = design_inputs(room);
  const RoomAirState states[] = {{k0 + 25.0, k0 + 45.0}, {k0 + 30.0, k0 + 60.0}, {k0 + 22.0, k0 + 24.0}};
  const double speeds[] = {0.55, 0.2, 0.55};
  for (int c = 0; c < 3; ++c) {
    in.crah_speed = speeds[c];
    const RoomAirState s = states[c];
    const RoomAirJacobian j = room.jacobian(s, in);
    const double h = 1e-5;
    const auto rate = [&](double tc, double th) { return room.derivatives({tc, th}, in); };
    const auto dc = [&](double tc, double th) { return rate(tc, th); };
    const RoomAirRates cp = dc(s.cold_aisle_temperature + h, s.hot_aisle_temperature);
    const RoomAirRates cm = dc(s.cold_aisle_temperature - h, s.hot_aisle_temperature);
    const RoomAirRates hp = dc(s.cold_aisle_temperature, s.hot_aisle_temperature + h);
    const RoomAirRates hm = dc(s.cold_aisle_temperature, s.hot_aisle_temperature - h);
    CHECK(j.cold_cold == Approx((cp.cold_aisle - cm.cold_aisle) / (2 * h)).epsilon(1e-6));
    CHECK(j.hot_cold == Approx((cp.hot_aisle - cm.hot_aisle) / (2 * h)).epsilon(1e-6));
    CHECK(j.cold_hot == Approx((hp.cold_aisle - hm.cold_aisle) / (2 * h)).epsilon(1e-6).margin(1e-12));
    CHECK(j.hot_hot == Approx((hp.hot_aisle - hm.hot_aisle) / (2 * h)).epsilon(1e-6));
  }
}

TEST_CASE("Room air: CRAH fan and coil", "[models][air][room]") {
  const CrahParameters crah;
  const RoomAir room(RoomAirParameters{}, crah);
  RoomAirInputs in;
  in.crah_speed = 0.5;
  in.water_supply_temperature = k0 + 18.0;
  const CrahOperation op = room.crah(k0 + 40.0, in);
  CHECK(op.fan_power == Approx(16 * 11000.0 * 0.125));
  // The coil leaves room for the fan heat so that the supply sits on the set-point.
  const double fan_rise = op.fan_power / (room.crah_mass_flow(0.5) * room.specific_heat());
  CHECK(op.coil_outlet_temperature == Approx(k0 + 25.0 - fan_rise));
  CHECK(op.supply_temperature == Approx(k0 + 25.0));
  // Water warmer than the return air: the coil cannot cool, it stays off.
  in.water_supply_temperature = k0 + 45.0;
  CHECK(room.crah(k0 + 40.0, in).coil_heat == 0.0);
  CHECK(error_message([] {
          RoomAirParameters p;
          p.recirculation_fraction = 1.0;
          RoomAir bad(p, CrahParameters{});
        }) == "room air: recirculation_fraction 1 is outside [0, 1)");
}
