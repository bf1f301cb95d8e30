// Parameter tables of the air-side and weather models: the defaults in each table are the defaults
// of its struct, `from` reads every parameter, and every default is inside its own range.
#include <catch2/catch.hpp>

#include <string>

#include "dctwin/models/facility/weather.hpp"
#include "dctwin/models/thermal/air.hpp"
#include "dctwin/models/thermal/heatsink.hpp"
#include "dctwin/models/thermal/room_air.hpp"
#include "dctwin/models/thermal/server_fans.hpp"

using namespace dctwin;
using namespace dctwin::models::thermal;

namespace {

/// A resolved section holding every table default (what the scenario checker fills in).
core::ParameterTree defaults_of(const core::ParameterTable& table) {
  core::ParameterTree tree;
  tree.path = "section";
  for (const auto& spec : table) {
    core::ParameterValue value;
    value.from_default = true;
    if (spec.default_value) value.number = *spec.default_value;
    if (spec.default_text) value.text = *spec.default_text;
    tree.values[spec.name] = value;
  }
  return tree;
}

void check_ranges(const core::ParameterTable& table) {
  for (const auto& spec : table) {
    INFO(spec.name);
    CHECK(!spec.doc.empty());
    if (!spec.default_value) continue;
    const double v = *spec.default_value;
    CHECK((spec.min_inclusive ? v >= spec.min : v > spec.min));
    CHECK((spec.max_inclusive ? v <= spec.max : v < spec.max));
  }
}

}  // namespace

TEST_CASE("Air-side parameter tables agree with the struct defaults", "[models][air]") {
  const AirParameters air = AirParameters::from(defaults_of(AirParameters::table()));
  CHECK(air.pressure == AirParameters{}.pressure);

  const HeatsinkParameters hs = HeatsinkParameters::from(defaults_of(HeatsinkParameters::table()));
  const HeatsinkParameters hs0;
  CHECK(hs.spreading_resistance == hs0.spreading_resistance);
  CHECK(hs.convective_resistance_at_reference_flow == hs0.convective_resistance_at_reference_flow);
  CHECK(hs.reference_flow == hs0.reference_flow);
  CHECK(hs.flow_exponent == hs0.flow_exponent);
  CHECK(hs.pressure_drop_at_reference_flow == hs0.pressure_drop_at_reference_flow);
  CHECK(hs.pressure_drop_flow_exponent == hs0.pressure_drop_flow_exponent);

  const ServerAirPathParameters path = ServerAirPathParameters::from(defaults_of(ServerAirPathParameters::table()));
  CHECK(path.heatsink_flow_fraction == ServerAirPathParameters{}.heatsink_flow_fraction);
  CHECK(path.pressure == ServerAirPathParameters{}.pressure);
  CHECK(GpuAirSlot::from(defaults_of(GpuAirSlot::table())).position_fraction == 0.0);

  const ServerFanParameters fans = ServerFanParameters::from(defaults_of(ServerFanParameters::table()));
  const ServerFanParameters fans0;
  CHECK(fans.shutoff_pressure == fans0.shutoff_pressure);
  CHECK(fans.free_delivery_flow == fans0.free_delivery_flow);
  CHECK(fans.rated_power == fans0.rated_power);
  CHECK(fans.system_pressure_drop_at_reference_flow == fans0.system_pressure_drop_at_reference_flow);
  CHECK(fans.system_reference_flow == fans0.system_reference_flow);
  CHECK(fans.system_flow_exponent == fans0.system_flow_exponent);

  const FanControllerParameters ctrl = FanControllerParameters::from(defaults_of(FanControllerParameters::table()));
  const FanControllerParameters ctrl0;
  CHECK(ctrl.mode == ctrl0.mode);
  CHECK(ctrl.sample_period == ctrl0.sample_period);
  CHECK(ctrl.target_temperature == ctrl0.target_temperature);
  CHECK(ctrl.proportional_gain == ctrl0.proportional_gain);
  CHECK(ctrl.integral_time == ctrl0.integral_time);
  CHECK(ctrl.min_speed == ctrl0.min_speed);
  CHECK(ctrl.max_speed == ctrl0.max_speed);
  CHECK(ctrl.max_slew_rate == ctrl0.max_slew_rate);
  CHECK(ctrl.hysteresis == ctrl0.hysteresis);
  CHECK(ctrl.curve.size() == 3);  // no list given: the default fan table

  // A fan table given as a list replaces the default one.
  core::ParameterTree with_curve = defaults_of(FanControllerParameters::table());
  for (const auto& [t, s] : {std::pair{320.0, 0.4}, std::pair{350.0, 1.0}}) {
    core::ParameterTree point;
    point.values["temperature"].number = t;
    point.values["speed"].number = s;
    with_curve.lists["curve"].push_back(point);
  }
  const FanControllerParameters custom = FanControllerParameters::from(with_curve);
  REQUIRE(custom.curve.size() == 2);
  CHECK(custom.curve[1].speed == 1.0);
  CHECK(FanControllerParameters::schema().lists.count("curve") == 1);

  const RoomAirParameters room = RoomAirParameters::from(defaults_of(RoomAirParameters::table()));
  const RoomAirParameters room0;
  CHECK(room.cold_aisle_volume == room0.cold_aisle_volume);
  CHECK(room.hot_aisle_volume == room0.hot_aisle_volume);
  CHECK(room.cold_aisle_extra_heat_capacity == room0.cold_aisle_extra_heat_capacity);
  CHECK(room.hot_aisle_extra_heat_capacity == room0.hot_aisle_extra_heat_capacity);
  CHECK(room.recirculation_fraction == room0.recirculation_fraction);
  CHECK(room.bypass_fraction == room0.bypass_fraction);
  CHECK(room.reference_temperature == room0.reference_temperature);
  CHECK(room.pressure == room0.pressure);

  const CrahParameters crah = CrahParameters::from(defaults_of(CrahParameters::table()));
  const CrahParameters crah0;
  CHECK(crah.count == crah0.count);
  CHECK(crah.rated_air_flow == crah0.rated_air_flow);
  CHECK(crah.rated_fan_power == crah0.rated_fan_power);
  CHECK(crah.supply_temperature_setpoint == crah0.supply_temperature_setpoint);
  CHECK(crah.coil_effectiveness == crah0.coil_effectiveness);
  CHECK(crah.fan_heat_to_air == crah0.fan_heat_to_air);

  using models::facility::DesignDayParameters;
  const DesignDayParameters day = DesignDayParameters::from(defaults_of(DesignDayParameters::table()));
  const DesignDayParameters day0;
  CHECK(day.design_dry_bulb == day0.design_dry_bulb);
  CHECK(day.daily_range == day0.daily_range);
  CHECK(day.coincident_wet_bulb == day0.coincident_wet_bulb);
  CHECK(day.wet_bulb_range == day0.wet_bulb_range);
  CHECK(day.wet_bulb_method == day0.wet_bulb_method);
  CHECK(day.pressure == day0.pressure);
  CHECK(day.start_time_of_day == day0.start_time_of_day);
  CHECK(day.days == day0.days);

  for (const auto& table : {AirParameters::table(), HeatsinkParameters::table(), GpuAirSlot::table(),
                            ServerAirPathParameters::table(), ServerFanParameters::table(),
                            FanControllerParameters::table(), RoomAirParameters::table(), CrahParameters::table(),
                            DesignDayParameters::table()})
    check_ranges(table);
}
