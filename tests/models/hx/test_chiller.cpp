// Chiller (DOE-2 / EnergyPlus Chiller:Electric:EIR): rating COP, published curve values, part
// load, cycling and false loading, first law at the condenser, capacity limit, bad parameters.
#include <catch2/catch.hpp>

#include <cmath>

#include "dctwin/models/hx/chiller.hpp"
#include "helpers.hpp"

using namespace dctwin::models::hx;
using hx_test::input_error;
using hx_test::kelvin;

namespace {
const double chilled_reference = kelvin + 6.67;
const double condenser_reference = kelvin + 29.4;
}  // namespace

TEST_CASE("Chiller COP and capacity at the rating conditions equal the reference", "[hx][chiller]") {
  for (double cop : {5.5, 6.5}) {
    ChillerParameters p;
    p.reference_cop = cop;
    const Chiller chiller(p);
    const auto op = chiller.evaluate(p.reference_capacity, chilled_reference, condenser_reference);
    CHECK(op.cop == Approx(cop).epsilon(1e-14));
    CHECK(op.available_capacity == Approx(p.reference_capacity).epsilon(1e-14));
    CHECK(op.part_load_ratio == Approx(1.0).epsilon(1e-14));
    CHECK(op.electric_power == Approx(p.reference_capacity / cop).epsilon(1e-14));
    CHECK_FALSE(op.curves_clamped);
  }
}

TEST_CASE("DOE-2 centrifugal curves as published", "[hx][chiller]") {
  // Transcription check: the published curves at the reference point (x = 6.67, y = 29.4) are
  // CAPFT = 1.0033419 and EIRFT = 0.9990879 (hand evaluation), EIRFPLR(1) = 1.
  const ChillerCurves c = ChillerCurves::doe2_centrifugal();
  const double x = 6.67;
  const double y = 29.4;
  auto biquadratic = [&](const std::array<double, 6>& a) {
    return a[0] + a[1] * x + a[2] * x * x + a[3] * y + a[4] * y * y + a[5] * x * y;
  };
  CHECK(biquadratic(c.capacity_temperature) == Approx(1.0033419).epsilon(1e-7));
  CHECK(biquadratic(c.eir_temperature) == Approx(0.9990879).epsilon(1e-7));
  CHECK(c.eir_part_load[0] + c.eir_part_load[1] + c.eir_part_load[2] == Approx(1.0).epsilon(1e-12));
  // Colder condenser water: more capacity, better COP (inside the curves' range).
  const Chiller chiller({});
  const auto warm = chiller.evaluate(1.5e6, chilled_reference, kelvin + 32.0);
  const auto cold = chiller.evaluate(1.5e6, chilled_reference, kelvin + 25.0);
  CHECK(cold.cop > warm.cop);
  CHECK(cold.available_capacity > warm.available_capacity);
}

TEST_CASE("Chiller part load: EIR curve, false loading and cycling", "[hx][chiller]") {
  const ChillerParameters p;
  const Chiller chiller(p);
  const double capacity = p.reference_capacity;
  auto power = [&](double plr) {
    return chiller.evaluate(plr * capacity, chilled_reference, condenser_reference).electric_power;
  };
  auto eirfplr = [](double plr) { return 0.222903 + 0.313387 * plr + 0.463710 * plr * plr; };
  // Above the minimum unloading ratio: P = Q_ref / COP * EIRFPLR(PLR).
  CHECK(power(0.5) == Approx(capacity / 5.5 * eirfplr(0.5)).epsilon(1e-13));
  CHECK(power(0.8) == Approx(capacity / 5.5 * eirfplr(0.8)).epsilon(1e-13));
  // Between PLR_min = 0.1 and PLR_unl = 0.2 the chiller false-loads at 0.2: constant power.
  CHECK(power(0.15) == Approx(power(0.2)).epsilon(1e-13));
  CHECK(power(0.1) == Approx(power(0.2)).epsilon(1e-13));
  // Below PLR_min it cycles: power in proportion to the load.
  CHECK(power(0.05) == Approx(0.5 * power(0.2)).epsilon(1e-13));
  CHECK(power(0.0) == 0.0);
}

TEST_CASE("Chiller condenser heat is evaporator heat plus compressor power", "[hx][chiller]") {
  const Chiller chiller({});
  for (double load : {0.1e6, 0.9e6, 1.8e6}) {
    const auto op = chiller.evaluate(load, kelvin + 8.0, kelvin + 27.0);
    CHECK(op.condenser_heat_flow == Approx(op.cooling + op.electric_power).epsilon(1e-14));
    CHECK(op.cooling == load);
    CHECK(op.unmet_load == 0.0);
  }
  ChillerParameters open_motor;
  open_motor.condenser_heat_fraction = 0.9;
  const auto op = Chiller(open_motor).evaluate(1e6, chilled_reference, condenser_reference);
  CHECK(op.condenser_heat_flow == Approx(1e6 + 0.9 * op.electric_power).epsilon(1e-14));
}

TEST_CASE("Chiller limits the load to its capacity and clamps curve inputs", "[hx][chiller]") {
  const Chiller chiller({});
  const auto over = chiller.evaluate(3e6, chilled_reference, condenser_reference);
  CHECK(over.cooling == Approx(2e6).epsilon(1e-14));
  CHECK(over.unmet_load == Approx(1e6).epsilon(1e-14));
  // Warm-water plant: 20 degC leaving chilled water is above the curves' 10 degC limit.
  const auto warm = chiller.evaluate(1e6, kelvin + 20.0, condenser_reference);
  const auto limit = chiller.evaluate(1e6, kelvin + 10.0, condenser_reference);
  CHECK(warm.curves_clamped);
  CHECK_FALSE(limit.curves_clamped);
  CHECK(warm.electric_power == limit.electric_power);
}

TEST_CASE("Chiller refuses bad parameters with exact messages", "[hx][chiller]") {
  ChillerParameters p;
  p.reference_cop = 0.0;
  CHECK(input_error([&] { Chiller c(p); }) == "chiller.reference_cop = 0 (must be > 0)");
  p = {};
  p.reference_capacity = -2e6;
  CHECK(input_error([&] { Chiller c(p, "plant.chiller"); }) == "plant.chiller.reference_capacity = -2000000 W (must be > 0)");
  p = {};
  p.minimum_unloading_ratio = 1.2;
  CHECK(input_error([&] { Chiller c(p); }) == "chiller.minimum_unloading_ratio = 1.2 (must be in [0, 1])");
}
