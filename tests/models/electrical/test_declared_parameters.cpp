// The electrical parameters are declared once (models/parameter_declarations.hpp): their table,
// their reading and their range checks come from the same declarations. Here: every default lies
// in its declared range, every value outside a declared range is refused by the model with the key
// named, the wording of those refusals, and the table (what `dctwin schema` prints into
// docs/scenario-reference.md) holds what was declared.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/electrical/conversion.hpp"
#include "dctwin/models/electrical/feed.hpp"
#include "dctwin/models/electrical/feeder.hpp"
#include "dctwin/models/electrical/grid_metrics.hpp"
#include "dctwin/models/electrical/ride_through.hpp"
#include "dctwin/models/electrical/storage.hpp"
#include "dctwin/models/electrical/transformer.hpp"
#include "dctwin/models/electrical/utility.hpp"

using namespace dctwin::models::electrical;
using dctwin::core::ParameterKind;
using dctwin::core::ParameterSpec;
using dctwin::core::ParameterTable;
using dctwin::core::ParameterTree;
using model_test::defaults_tree;
using model_test::input_error;

namespace {

bool in_declared_range(const ParameterSpec& spec, double value) {
  const bool above = value > spec.min || (spec.min_inclusive && value == spec.min);
  const bool below = value < spec.max || (spec.max_inclusive && value == spec.max);
  return above && below;
}

/// One section of `electrical:` read by its own `from` (sections checked when read).
struct Section {
  const char* name;
  ParameterTable table;
  void (*read)(const ParameterTree&);
};

template <class P>
Section section(const char* name) {
  return {name, P::table(), [](const ParameterTree& tree) { (void)P::from(tree); }};
}

std::vector<Section> sections() {
  return {section<PsuParameters>("psu"),
          section<BbuParameters>("bbu"),
          section<PduParameters>("pdu"),
          section<UpsParameters>("ups"),
          section<SwitchboardParameters>("switchboard"),
          section<TransformerParameters>("transformer"),
          section<FeederParameters>("feeder"),
          section<UtilityParameters>("utility"),
          section<CapacitorStorageParameters>("capacitor_storage"),
          section<BatteryStorageParameters>("battery_storage"),
          section<GridLimits>("limits")};
}

/// A value just outside the declared range of `spec` (its bound itself when the bound is
/// excluded), or NaN when the spec has no bound.
double outside(const ParameterSpec& spec) {
  if (std::isfinite(spec.min)) return spec.min_inclusive ? spec.min - 1.0 : spec.min;
  if (std::isfinite(spec.max)) return spec.max_inclusive ? spec.max + 1.0 : spec.max;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

TEST_CASE("Every declared electrical default lies in its range", "[electrical][parameters]") {
  std::vector<std::pair<std::string, ParameterTable>> tables = {{"electrical", ElectricalParameters::table()},
                                                                {"utility_events", UtilityEvent::table()},
                                                                {"efficiency", EfficiencyPoint::table()}};
  for (const auto& s : sections()) tables.emplace_back(s.name, s.table);
  int defaults = 0;
  for (const auto& [name, table] : tables)
    for (const auto& spec : table) {
      INFO(name << "." << spec.name);
      if (spec.kind == ParameterKind::choice) {
        REQUIRE(spec.default_text);
        CHECK(std::find(spec.choices.begin(), spec.choices.end(), *spec.default_text) != spec.choices.end());
        ++defaults;
      } else if (spec.default_value) {
        CHECK(std::isfinite(*spec.default_value));
        CHECK(in_declared_range(spec, *spec.default_value));
        ++defaults;
      }
    }
  CHECK(defaults >= 98);
  // The defaults together (and the default curves) pass every check, the combinations too.
  CHECK(input_error([] { ElectricalParameters{}.check("electrical"); }).empty());
  CHECK(input_error([] { check_utility_events({UtilityEvent{"sag", 1.0, 0.5, 0.3}}, "electrical.utility_events"); })
            .empty());
}

TEST_CASE("Every value outside a declared electrical range is refused with its key", "[electrical][parameters]") {
  int refused = 0;
  for (const auto& s : sections()) {
    const std::string path = std::string("electrical.") + s.name;
    const ParameterTree tree = defaults_tree(s.table, path);
    CHECK(input_error([&] { s.read(tree); }).empty());
    for (const auto& spec : s.table) {
      if (spec.kind != ParameterKind::real && spec.kind != ParameterKind::integer) continue;
      const double value = outside(spec);
      if (std::isnan(value)) continue;
      INFO(path << "." << spec.name << " = " << value);
      ParameterTree bad = tree;
      bad.values[spec.name].number = value;
      try {
        s.read(bad);
        FAIL("accepted");
      } catch (const dctwin::core::InputError& error) {
        CHECK(error.key_path() == path + "." + spec.name);
        CHECK(std::string(error.what()).rfind(path + "." + spec.name + " = ", 0) == 0);
        ++refused;
      }
      // Not finite: refused as well, where the range alone would let it pass.
      if (!std::isfinite(spec.max) && spec.kind == ParameterKind::real) {
        bad.values[spec.name].number = std::numeric_limits<double>::infinity();
        CHECK(input_error([&] { s.read(bad); }) == path + ": " + spec.name + " must be a finite number");
      }
    }
  }
  CHECK(refused >= 84);
}

TEST_CASE("The wording of a declared range refusal", "[electrical][parameters]") {
  // One bound: as io/ words it, in SI, a zero bound without its unit.
  TransformerParameters transformer;
  transformer.no_load_loss = 0.0;
  CHECK(input_error([&] { transformer.check("electrical.transformer"); }) ==
        "electrical.transformer.no_load_loss = 0 W (must be > 0)");
  transformer = {};
  transformer.units_per_lineup = 0;
  CHECK(input_error([&] { transformer.check("electrical.transformer"); }) ==
        "electrical.transformer.units_per_lineup = 0 (must be >= 1)");
  // Two bounds: the interval, brackets by inclusion, the unit after it.
  transformer = {};
  transformer.impedance = 1.5;
  CHECK(input_error([&] { transformer.check("electrical.transformer"); }) ==
        "electrical.transformer.impedance = 1.5 (must be in (0, 1))");
  ElectricalParameters feed;
  feed.time_step = 0.02;
  CHECK(input_error([&] { feed.check("electrical"); }) ==
        "electrical.time_step = 0.02 s (must be in [0.0001, 0.01] s)");
  // A temperature shown in degC is printed in degC.
  GridLimits limits;
  limits.transformer_hot_spot_max = -1.0;
  CHECK(input_error([&] { limits.check("electrical.limits"); }) ==
        "electrical.limits.transformer_hot_spot_max = -274.15 degC (must be >= -273.15 degC)");
  // A choice names its choices.
  UpsParameters ups;
  ups.mode = "bypass";
  CHECK(input_error([&] { ups.check("electrical.ups"); }) ==
        "electrical.ups.mode = bypass (must be double_conversion or eco)");
  // A value within its range that is not finite.
  FeederParameters feeder;
  feeder.resistance = std::numeric_limits<double>::infinity();
  CHECK(input_error([&] { feeder.check("electrical.feeder"); }) ==
        "electrical.feeder: resistance must be a finite number");
  // A list entry names its index.
  CHECK(input_error([] { check_utility_events({UtilityEvent{"sag", -1.0, 0.5, 0.3}}, "electrical.utility_events"); }) ==
        "electrical.utility_events[0].time = -1 s (must be >= 0)");
}

TEST_CASE("The electrical tables hold what was declared", "[electrical][parameters]") {
  // What `dctwin schema` prints into docs/scenario-reference.md, straight from the declarations:
  // name, kind, SI and shown unit, default read from the struct's initialiser, range, source.
  const ParameterTable table = TransformerParameters::table();
  REQUIRE(table.size() == 14);
  const TransformerParameters defaults;
  const ParameterSpec& rated = table[1];
  CHECK(rated.name == "rated_power");
  CHECK(rated.kind == ParameterKind::real);
  CHECK(rated.unit == "VA");
  CHECK(rated.display_unit == "kVA");
  CHECK(rated.default_value == defaults.rated_power);
  CHECK(rated.min == 0.0);
  CHECK_FALSE(rated.min_inclusive);
  CHECK(std::isinf(rated.max));
  CHECK(rated.source.rfind("Estimate (uncertain): 2500 kVA", 0) == 0);
  CHECK(table[0].kind == ParameterKind::integer);
  CHECK(table[0].default_value == 2.0);
  CHECK(table[13].name == "start_at_steady_state");
  CHECK(table[13].kind == ParameterKind::boolean);
  CHECK(table[13].default_value == 1.0);
  // A required parameter has no default.
  const ParameterTable events = UtilityEvent::table();
  REQUIRE(events.size() == 4);
  CHECK(events[0].default_text == std::string("outage"));
  CHECK_FALSE(events[1].default_value.has_value());
  CHECK(events[1].required());
  CHECK(events[3].default_value == 1.0);
}

TEST_CASE("The reading takes every declared value from its section", "[electrical][parameters]") {
  auto tree = defaults_tree(UtilityParameters::table(), "electrical.utility");
  tree.values["inertia"].number = 6.5;
  tree.values["governor_enabled"].number = 0.0;
  tree.values["damping"].number = 1.5;
  const UtilityParameters read = UtilityParameters::from(tree);
  CHECK(read.inertia == 6.5);
  CHECK_FALSE(read.governor_enabled);
  CHECK(read.damping == 1.5);
  CHECK(read.frequency == UtilityParameters{}.frequency);
  auto ups = defaults_tree(UpsParameters::table(), "electrical.ups");
  ups.values["mode"].text = "eco";
  ups.values["rated_power"].number = 2.0e6;
  const UpsParameters u = UpsParameters::from(ups);
  CHECK(u.mode == "eco");
  CHECK(u.rated_power == 2.0e6);
  CHECK(u.eco_efficiency.size() == UpsParameters::default_eco().size());
}
