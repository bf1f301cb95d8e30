// Dry-air properties against published tables; psychrometrics against the ASHRAE Handbook-
// Fundamentals (2017) ch. 1 tables and worked example; round trips; error messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/thermal/air.hpp"

using namespace dctwin::models::thermal;
namespace psy = dctwin::models::thermal::psychrometrics;
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

}  // namespace

TEST_CASE("Dry air follows Incropera Table A.4 (air at 1 atm) at 250, 300 and 350 K", "[models][air]") {
  const Air air;
  struct Row {
    double t, cp, mu, k, pr;
  };
  // T [K], c_p [J/(kg K)], mu [Pa s], k [W/(m K)], Pr.
  const Row rows[] = {{250.0, 1006.0, 159.6e-7, 22.3e-3, 0.720},
                      {300.0, 1007.0, 184.6e-7, 26.3e-3, 0.707},
                      {350.0, 1009.0, 208.2e-7, 30.0e-3, 0.700}};
  for (const Row& r : rows) {
    INFO("T = " << r.t << " K");
    const Air::Properties p = air.properties(r.t);
    CHECK(p.specific_heat == Approx(r.cp).epsilon(1e-12));  // the fit passes through these points
    CHECK(p.viscosity == Approx(r.mu).epsilon(0.005));       // Sutherland within 0.5 %
    CHECK(p.conductivity == Approx(r.k).epsilon(0.01));      // Sutherland within 1 %
    CHECK(air.prandtl(r.t) == Approx(r.pr).epsilon(0.015));
  }
}

TEST_CASE("Dry-air density is the ideal gas at the configured pressure", "[models][air]") {
  const Air sea_level;
  // ASHRAE 2017 ch. 1 Table 2: dry air at 25 degC, 101.325 kPa, v_da = 0.8443 m3/kg.
  CHECK(sea_level.density(k0 + 25.0) == Approx(1.0 / 0.8443).epsilon(1e-3));
  // rho = p / (R T): 101325 / (287.042 x 293.15) = 1.20416 kg/m3 at 20 degC.
  CHECK(sea_level.density(k0 + 20.0) == Approx(1.20416).epsilon(1e-5));
  // At the Albuquerque station pressure the density scales with p.
  const Air high(AirParameters{83328.0});
  CHECK(high.density(k0 + 25.0) / sea_level.density(k0 + 25.0) == Approx(83328.0 / 101325.0).epsilon(1e-14));
  CHECK(high.volumetric_heat_capacity(300.0) == Approx(high.density(300.0) * 1007.0).epsilon(1e-12));
  // Density falls with temperature as 1/T.
  CHECK(sea_level.density(350.0) * 350.0 == Approx(sea_level.density(250.0) * 250.0).epsilon(1e-14));
}

TEST_CASE("Air properties outside -40..80 degC and bad pressures are reported", "[models][air]") {
  const Air air;
  CHECK(error_message([&] { (void)air.density(k0 + 90.0); }) ==
        "air: temperature 90 degC is outside the property range (-40 to 80 degC)");
  CHECK(error_message([&] { (void)air.viscosity(k0 - 41.0); }) ==
        "air: temperature -41 degC is outside the property range (-40 to 80 degC)");
  CHECK(error_message([&] { (void)air.conductivity(std::nan("")); }) == "air: temperature nan K is not a finite number");
  CHECK(error_message([] { Air bad(AirParameters{0.0}); }) == "air: pressure 0 Pa must be > 0");
  CHECK_NOTHROW(air.properties(air_min_temperature));
  CHECK_NOTHROW(air.properties(air_max_temperature));
}

TEST_CASE("Saturation pressure matches ASHRAE 2017 ch. 1 Table 3 within 300 ppm", "[models][air][psychrometrics]") {
  // Table 3 (thermodynamic properties of water at saturation), Pa.
  CHECK(psy::saturation_pressure(k0 - 20.0) == Approx(103.24).epsilon(3e-4));
  CHECK(psy::saturation_pressure(k0 - 5.0) == Approx(401.74).epsilon(3e-4));
  CHECK(psy::saturation_pressure(k0 + 5.0) == Approx(872.6).epsilon(3e-4));
  CHECK(psy::saturation_pressure(k0 + 25.0) == Approx(3169.7).epsilon(3e-4));
  CHECK(psy::saturation_pressure(k0 + 50.0) == Approx(12351.3).epsilon(3e-4));
  CHECK(psy::saturation_pressure(k0 + 100.0) == Approx(101418.0).epsilon(3e-4));
  // The ice and liquid branches meet at the triple point within 0.02 %.
  CHECK(psy::saturation_pressure(k0 - 1e-9) == Approx(psy::saturation_pressure(k0)).epsilon(2e-4));
  // Table 2: saturated humidity ratio at 25 degC, 101.325 kPa.
  CHECK(psy::saturation_humidity_ratio(k0 + 25.0, 101325.0) == Approx(0.020173).epsilon(5e-3));
}

TEST_CASE("ASHRAE 2017 ch. 1 Example 1: 40 degC dry bulb, 20 degC wet bulb, 101.325 kPa", "[models][air][psychrometrics]") {
  const double p = 101325.0, t = k0 + 40.0, twb = k0 + 20.0;
  // Handbook answers: W = 0.0065, phi = 14 %, h = 56.7 kJ/kg, v = 0.896 m3/kg, t_d ~ 7.7 degC. The
  // Handbook takes W_s* = 0.014758 from Table 2, which includes the enhancement factor (~0.4 %
  // higher than eq. 21); with eq. 21, W_s* = 0.014695 and eq. 33 gives
  // W = ((2501 - 46.52) 0.014695 - 1.006 x 20) / (2501 + 74.4 - 83.72) = 0.006401.
  const double w = psy::humidity_ratio_from_wet_bulb(t, twb, p);
  CHECK(w == Approx(0.006401).margin(2e-6));
  CHECK(w == Approx(0.0065).margin(1.5e-4));
  CHECK(psy::relative_humidity_from_wet_bulb(t, twb, p) == Approx(0.14).margin(0.01));
  CHECK(psy::moist_air_enthalpy(t, w) == Approx(56700.0).margin(100.0));
  CHECK(psy::moist_air_specific_volume(t, w, p) == Approx(0.896).epsilon(0.01));
  // The dew point is where the vapour pressure saturates.
  const double td = psy::dew_point_from_humidity_ratio(w, p);
  CHECK(psy::saturation_pressure(td) == Approx(psy::vapor_pressure_from_humidity_ratio(w, p)).epsilon(1e-10));
  CHECK(td - k0 == Approx(7.43).margin(0.02));  // p_w = 1032 Pa
  // Back again: wet bulb from W, and from the relative humidity.
  CHECK(psy::wet_bulb_from_humidity_ratio(t, w, p) == Approx(twb).margin(1e-7));
  CHECK(psy::wet_bulb_from_relative_humidity(t, psy::relative_humidity_from_wet_bulb(t, twb, p), p) ==
        Approx(twb).margin(1e-7));
}

TEST_CASE("Wet bulb at 35 degC dry bulb and 40 % relative humidity", "[models][air][psychrometrics]") {
  // By hand: p_ws(35 degC) = 5629 Pa (Table 3), p_w = 2251.6 Pa, W = 0.621945 p_w / (p - p_w) = 0.014135
  // (the Hyland-Wexler formula is within its 300 ppm of the table). Eq. 33 at t* = 23.94 degC:
  // W_s* = 0.018800, W = ((2501 - 55.68) 0.018800 - 1.006 x 11.06) / (2501 + 65.1 - 100.2) = 0.014135.
  // A psychrometric chart reads ~23.9 degC.
  const double p = 101325.0, t = k0 + 35.0;
  const double w = psy::humidity_ratio_from_relative_humidity(t, 0.40, p);
  CHECK(w == Approx(0.014135).epsilon(3e-4));
  const double twb = psy::wet_bulb_from_relative_humidity(t, 0.40, p);
  CHECK(twb - k0 == Approx(23.94).margin(0.03));
  // The reverse: relative humidity from the dry and wet bulb.
  CHECK(psy::relative_humidity_from_wet_bulb(t, twb, p) == Approx(0.40).epsilon(1e-9));
  // Saturated air: the wet bulb is the dry bulb; the wet bulb falls with the humidity.
  CHECK(psy::wet_bulb_from_relative_humidity(t, 1.0, p) == Approx(t).margin(1e-7));
  CHECK(psy::wet_bulb_from_relative_humidity(t, 0.2, p) < twb);
  // At altitude (Albuquerque, 83328 Pa) the same air has a lower wet bulb.
  CHECK(psy::wet_bulb_from_relative_humidity(t, 0.40, 83328.0) < twb);
}

TEST_CASE("Humidity ratio and wet bulb above and below freezing (PsychroLib reference values)",
          "[models][air][psychrometrics]") {
  // D. Meyer & D. Thevenard, PsychroLib (JOSS 2019), SI test values computed independently in Excel,
  // standard-atmosphere pressure at 500 m (95461 Pa).
  const double p = 95461.0;
  const double w_warm = psy::humidity_ratio_from_wet_bulb(k0 + 30.0, k0 + 25.0, p);
  CHECK(w_warm == Approx(0.0192281274241096).epsilon(3e-4));
  CHECK(psy::wet_bulb_from_humidity_ratio(k0 + 30.0, w_warm, p) - k0 == Approx(25.0).margin(1e-6));
  const double w_cold = psy::humidity_ratio_from_wet_bulb(k0 - 1.0, k0 - 5.0, p);
  CHECK(w_cold == Approx(0.00120399819933844).epsilon(3e-4));
  CHECK(psy::wet_bulb_from_humidity_ratio(k0 - 1.0, w_cold, p) - k0 == Approx(-5.0).margin(1e-6));
  CHECK(psy::humidity_ratio_from_vapor_pressure(3169.7, p) == Approx(0.0213603998047487).epsilon(1e-6));
  // Dew point from the relative humidity is a property of the vapour pressure alone.
  const double td = psy::dew_point_from_relative_humidity(k0 + 25.0, 0.5);
  CHECK(psy::saturation_pressure(td) == Approx(0.5 * psy::saturation_pressure(k0 + 25.0)).epsilon(1e-10));
  CHECK(psy::dew_point_from_humidity_ratio(psy::humidity_ratio_from_relative_humidity(k0 + 25.0, 0.5, p), p) ==
        Approx(td).margin(1e-8));
  // Moist-air density and specific heat.
  CHECK(psy::moist_air_density(k0 + 30.0, 0.02, p) == Approx(1.08411986348219).epsilon(3e-4));
  CHECK(psy::moist_air_specific_heat(0.01) == Approx(1024.6));
}

TEST_CASE("Psychrometric inputs out of range give exact messages", "[models][air][psychrometrics]") {
  const double p = 101325.0;
  CHECK(error_message([&] { (void)psy::humidity_ratio_from_wet_bulb(k0 + 30.0, k0 + 31.0, p); }) ==
        "psychrometrics: wet bulb 31 degC is above the dry bulb 30 degC");
  CHECK(error_message([&] { (void)psy::wet_bulb_from_relative_humidity(k0 + 30.0, 1.2, p); }) ==
        "psychrometrics: relative humidity 1.2 is outside 0 to 1");
  CHECK(error_message([&] { (void)psy::wet_bulb_from_humidity_ratio(k0 + 30.0, 0.05, p); }) ==
        "psychrometrics: humidity ratio 0.05 exceeds saturation (0.0272) at 30 degC");
  CHECK(error_message([&] { (void)psy::wet_bulb_from_humidity_ratio(k0 + 30.0, -0.001, p); }) ==
        "psychrometrics: humidity ratio -0.001 is negative");
  CHECK(error_message([] { (void)psy::saturation_pressure(k0 + 250.0); }) ==
        "psychrometrics: temperature 250 degC is outside the range of the saturation-pressure formula "
        "(-100 to 200 degC)");
}
