// UA at off-design flows from the nominal UA split into two convective resistances.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/hx/ua_scaling.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;

TEST_CASE("UA scaling at the nominal flows equals the nominal UA", "[hx][ua]") {
  for (double ratio : {0.1, 2.0 / 3.0, 1.0, 7.0})
    for (double ua0 : {1.0, 1365.0, 6.7e5}) {
      const UaScaling s({ua0, ratio, 1.292, 0.5, 0.8, 0.85});
      INFO("UA0 " << ua0 << " r " << ratio);
      CHECK(s.ua(1.292, 0.5) == Approx(ua0).epsilon(1e-14));
      CHECK(s.first_nominal_conductance() / s.second_nominal_conductance() == Approx(ratio).epsilon(1e-14));
    }
}

TEST_CASE("UA scaling follows the two power laws in series", "[hx][ua]") {
  const UaScaling s({1000.0, 2.0 / 3.0, 2.0, 1.0, 0.8, 0.85});
  const double h_air = 1000.0 * (1.0 + 2.0 / 3.0);  // hA_a,0 = UA_0 (1 + r)
  const double h_water = h_air / (2.0 / 3.0);       // hA_w,0 = hA_a,0 / r
  const double m_air = 3.1;
  const double m_water = 0.4;
  const double expected =
      1.0 / (1.0 / (h_air * std::pow(m_air / 2.0, 0.8)) + 1.0 / (h_water * std::pow(m_water / 1.0, 0.85)));
  CHECK(s.ua(m_air, m_water) == Approx(expected).epsilon(1e-14));
  CHECK(s.ua_ratio(m_air, m_water) == Approx(expected / 1000.0).epsilon(1e-14));
  // More flow on either side raises UA, never beyond the other side's conductance.
  CHECK(s.ua(4.0, 1.0) > s.ua(2.0, 1.0));
  CHECK(s.ua(2.0, 2.0) > s.ua(2.0, 1.0));
  CHECK(s.ua(1e6, 1.0) < h_water);
  // No flow on one side: no heat transfer.
  CHECK(s.ua(0.0, 1.0) == 0.0);
  CHECK(s.ua(2.0, 0.0) == 0.0);
}

TEST_CASE("UA scaling refuses bad parameters", "[hx][ua]") {
  CHECK(input_error([] { UaScaling s({-100.0, 2.0 / 3.0, 1.0, 1.0, 0.8, 0.85}); }) ==
        "ua_scaling.nominal_ua = -100 W/K (must be > 0)");
  CHECK(input_error([] { UaScaling s({100.0, 0.0, 1.0, 1.0, 0.8, 0.85}, "rear_door"); }) ==
        "rear_door.conductance_ratio = 0 (must be > 0)");
  CHECK(input_error([] { UaScaling s({100.0, 1.0, 1.0, 1.0, 2.5, 0.85}); }) ==
        "ua_scaling.first_flow_exponent = 2.5 (must be in [0, 2])");
  try {
    UaScaling s({100.0, 1.0, 0.0, 1.0, 0.8, 0.85});
    FAIL("no error");
  } catch (const dctwin::core::InputError& error) {
    CHECK(error.key_path() == "ua_scaling.first_nominal_flow");
  }
}
