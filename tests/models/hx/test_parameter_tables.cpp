// Parameter tables of the hx models: complete specs, defaults inside their ranges, and from()
// of a section holding the defaults gives the default parameters.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "dctwin/models/hx/cdu.hpp"
#include "dctwin/models/hx/chiller.hpp"
#include "dctwin/models/hx/cooling_tower.hpp"
#include "dctwin/models/hx/dry_cooler.hpp"
#include "dctwin/models/hx/economizer.hpp"
#include "dctwin/models/hx/pi_controller.hpp"
#include "dctwin/models/hx/rear_door.hpp"
#include "dctwin/models/parameter_check.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using dctwin::models::format_celsius;
using dctwin::models::format_number;
using dctwin::core::ParameterKind;
using dctwin::core::ParameterTable;
using hx_test::defaults_tree;

namespace {

void check_table(const ParameterTable& table, const std::string& name) {
  INFO("table " << name);
  std::set<std::string> names;
  for (const auto& spec : table) {
    INFO("parameter " << spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK_FALSE(spec.doc.empty());
    CHECK_FALSE(spec.unit.empty());
    CHECK_FALSE(spec.required());  // every hx parameter has a default
    if (spec.kind == ParameterKind::real) {
      const double v = *spec.default_value;
      CHECK((spec.min_inclusive ? v >= spec.min : v > spec.min));
      CHECK((spec.max_inclusive ? v <= spec.max : v < spec.max));
    }
    if (spec.kind == ParameterKind::choice) {
      bool listed = false;
      for (const auto& choice : spec.choices) listed = listed || choice == *spec.default_text;
      CHECK(listed);
    }
  }
}

}  // namespace

TEST_CASE("hx parameter tables are complete and their defaults are in range", "[hx][parameters]") {
  check_table(RearDoorParameters::table(), "rear_door");
  check_table(CduParameters::table(), "cdu");
  check_table(PiParameters::table(CduParameters::default_controller()), "cdu.controller");
  check_table(PiParameters::table(), "controller");
  check_table(DryCoolerParameters::table(), "dry_cooler");
  check_table(CoolingTowerParameters::table(), "cooling_tower");
  check_table(ChillerParameters::table(), "chiller");
  check_table(EconomizerParameters::table(), "economizer");
  // Sources: every real parameter of the physical models names where its default comes from.
  for (const auto& table : {RearDoorParameters::table(), CduParameters::table(), DryCoolerParameters::table(),
                            CoolingTowerParameters::table(), ChillerParameters::table(), EconomizerParameters::table()})
    for (const auto& spec : table) {
      INFO(spec.name);
      CHECK_FALSE(spec.source.empty());
    }
}

TEST_CASE("from() of the table defaults gives the default parameters", "[hx][parameters]") {
  const RearDoorParameters door = RearDoorParameters::from(defaults_tree(RearDoorParameters::table(), "rear_door"));
  CHECK(door.nominal_ua == RearDoorParameters{}.nominal_ua);
  CHECK(door.arrangement == StreamArrangement::cross_flow_unmixed);
  CHECK_FALSE(door.active);
  CHECK(door.fan_air_flow_at_full_speed == RearDoorParameters{}.fan_air_flow_at_full_speed);

  dctwin::core::ParameterTree cdu_tree = defaults_tree(CduParameters::table(), "cdu");
  cdu_tree.sections["controller"] =
      defaults_tree(PiParameters::table(CduParameters::default_controller()), "cdu.controller");
  const CduParameters cdu = CduParameters::from(cdu_tree);
  CHECK(cdu.nominal_it_flow == 31.48);
  CHECK(cdu.controller.action == ControllerAction::direct);
  CHECK(cdu.controller.output_min == 0.05);
  CHECK(cdu.controller.integral_time == 20.0);
  CHECK(CduParameters::schema().sections.count("controller") == 1);
  CHECK(Cdu(cdu).nominal_ua() == Cdu({}).nominal_ua());

  const DryCoolerParameters cooler = DryCoolerParameters::from(defaults_tree(DryCoolerParameters::table(), "dry_cooler"));
  CHECK(DryCooler(cooler).nominal_ua() == DryCooler({}).nominal_ua());

  const CoolingTowerParameters tower =
      CoolingTowerParameters::from(defaults_tree(CoolingTowerParameters::table(), "cooling_tower"));
  CHECK(tower.correlation == TowerCorrelation::yorkcalc);
  CHECK(CoolingTower(tower).design_water_flow_ratio() == CoolingTower({}).design_water_flow_ratio());

  const ChillerParameters chiller = ChillerParameters::from(defaults_tree(ChillerParameters::table(), "chiller"));
  CHECK(chiller.reference_cop == 5.5);
  CHECK(chiller.minimum_unloading_ratio == 0.2);

  const EconomizerParameters economizer =
      EconomizerParameters::from(defaults_tree(EconomizerParameters::table(), "economizer"));
  CHECK(economizer.heat_exchanger_approach == 1.5);
}

TEST_CASE("hx messages print numbers with six significant digits", "[hx][parameters]") {
  CHECK(format_number(-100.0) == "-100");
  CHECK(format_number(2e6) == "2000000");
  CHECK(format_number(3.888888888) == "3.88889");
  CHECK(format_number(0.000123456789) == "0.000123457");
  CHECK(format_number(-0.0) == "0");
  CHECK(format_number(1e-9) == "1e-09");
  CHECK(format_celsius(298.15) == "25 degC");
  CHECK(format_celsius(273.15 - 34.4) == "-34.4 degC");
}
