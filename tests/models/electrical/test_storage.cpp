// Facility storage: the capacitor bank and the battery stay inside their windows and limits under a
// long random load that pushes them out, their energy bookkeeping closes, the controllers follow
// their closed forms (filter, ramp), and bad parameters give exact located messages.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <cmath>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/electrical/storage.hpp"
#include "dctwin/models/random.hpp"

using namespace dctwin::models::electrical;
using dctwin::models::SplitMix64;
using model_test::defaults_tree;
using model_test::input_error;

namespace {

constexpr double megawatt = 1e6;
constexpr double dt = 1e-3;

/// A training-like random load: plateaus between 15 and 45 MW lasting 0.05-20 s, joined by jumps;
/// some plateaus last long enough to empty or fill any store that follows them.
class RandomLoad {
 public:
  explicit RandomLoad(std::uint64_t seed) : random_(seed) { next_plateau(); }
  double next() {
    if (--remaining_ <= 0) next_plateau();
    return level_;
  }

 private:
  void next_plateau() {
    level_ = (15.0 + 30.0 * random_.uniform()) * megawatt;
    const double seconds = random_.uniform() < 0.8 ? 0.05 + 2.0 * random_.uniform() : 5.0 + 15.0 * random_.uniform();
    remaining_ = static_cast<long>(seconds / dt);
  }
  SplitMix64 random_;
  double level_ = 0.0;
  long remaining_ = 0;
};

}  // namespace

TEST_CASE("capacitor bank stays in its voltage window and converter limit under a long random load",
          "[electrical][storage]") {
  CapacitorStorageParameters p;  // defaults: 54 F, 500-1000 V, 5 MW, 4 mOhm, 98 %
  p.enabled = true;
  RandomLoad load(20260101);
  CapacitorStorage bank(p, 30.0 * megawatt);
  const double start = bank.energy();
  CHECK(start == Approx(0.5 * (bank.energy_min() + bank.energy_max())).epsilon(1e-15));
  CHECK(bank.energy_max() - bank.energy_min() == Approx(20.25e6).epsilon(1e-12));  // 1/2 54 (1000^2 - 500^2)

  double stored_sum = 0.0, loss_sum = 0.0;
  long at_limit = 0, at_bottom = 0, at_top = 0;
  const long steps = 600'000;  // 10 minutes at 1 ms
  for (long k = 0; k < steps; ++k) {
    const StorageFlow f = bank.step(dt, load.next());
    stored_sum += f.stored_power * dt;
    loss_sum += f.loss * dt;
    REQUIRE(f.loss >= 0.0);
    REQUIRE(std::fabs(f.bus_power) <= p.converter_power_max);
    REQUIRE(f.stored_power == -(f.bus_power + f.loss));
    REQUIRE(bank.energy() >= bank.energy_min());
    REQUIRE(bank.energy() <= bank.energy_max());
    REQUIRE(bank.voltage() >= p.voltage_min * (1 - 1e-15));
    REQUIRE(bank.voltage() <= p.voltage_max * (1 + 1e-15));
    if (std::fabs(f.bus_power) == p.converter_power_max) ++at_limit;
    if (bank.energy() == bank.energy_min()) ++at_bottom;
    if (bank.energy() == bank.energy_max()) ++at_top;
  }
  // The load really pushed the bank to both edges and to its converter limit.
  CHECK(at_limit > 1000);
  CHECK(at_bottom > 100);
  CHECK(at_top > 100);
  CHECK(bank.energy_low() == bank.energy_min());
  CHECK(bank.energy_high() == bank.energy_max());
  // Bookkeeping: the energy changes by exactly the sum of stored_power * h (to the round-off of 6e5 additions).
  CHECK(bank.energy() - start == Approx(stored_sum).margin(1e-9 * bank.energy_max()));
  CHECK(bank.losses() == Approx(loss_sum).epsilon(1e-12));
  CHECK(bank.losses() > 0.0);
  CHECK(bank.throughput() > 0.0);
}

TEST_CASE("capacitor bank: steady demand, the filter's closed form and the loss formula",
          "[electrical][storage]") {
  CapacitorStorageParameters p;
  SECTION("a constant demand draws nothing from a bank at the middle of its window") {
    CapacitorStorage bank(p, 25.0 * megawatt);
    const double e0 = bank.energy();
    for (int k = 0; k < 1000; ++k) {
      const StorageFlow f = bank.step(dt, 25.0 * megawatt);
      CHECK(f.bus_power == 0.0);
      CHECK(f.loss == 0.0);
    }
    CHECK(bank.energy() == e0);
  }
  SECTION("first step after a jump: bus power = jump x (tau/h)(1 - e^{-h/tau}), loss = converter + ESR") {
    CapacitorStorage bank(p, 20.0 * megawatt);
    const double v = bank.voltage();
    const double h = 0.01;
    const double jump = 3.0 * megawatt;
    const StorageFlow f = bank.step(h, 20.0 * megawatt + jump);
    const double x = h / p.filter_time_constant;
    const double expected_bus = jump * (-std::expm1(-x)) / x;  // D - L_avg; recovery is 0 at the middle
    CHECK(f.bus_power == Approx(expected_bus).epsilon(1e-14));
    const double cell = expected_bus / p.converter_efficiency;
    const double esr = p.series_resistance * (cell / v) * (cell / v);
    CHECK(f.loss == Approx(cell - expected_bus + esr).epsilon(1e-13));
    CHECK(f.stored_power == -(f.bus_power + f.loss));
  }
  SECTION("a lossless bank without recovery delivers jump x tau after a step of the demand") {
    // sum_k h (dD)(tau/h)(1 - e^{-h/tau}) e^{-k h/tau} = dD tau: the filter's exact discretization
    // makes the delivered energy the same as in continuous time.
    CapacitorStorageParameters ideal = p;
    ideal.series_resistance = 0.0;
    ideal.converter_efficiency = 1.0;
    ideal.recovery_time_constant = 1e15;
    ideal.converter_power_max = 50.0 * megawatt;
    CapacitorStorage bank(ideal, 20.0 * megawatt);
    const double e0 = bank.energy();
    const double jump = 2.0 * megawatt;  // dD tau = 4 MJ < 10 MJ of room below the middle
    for (int k = 0; k < 100'000; ++k) bank.step(dt, 20.0 * megawatt + jump);  // 100 s = 50 tau
    CHECK(e0 - bank.energy() == Approx(jump * ideal.filter_time_constant).epsilon(1e-6));
    CHECK(bank.throughput() == Approx(jump * ideal.filter_time_constant).epsilon(1e-6));
  }
  SECTION("at the bottom of the window the flow is cut so the energy lands exactly on the edge") {
    CapacitorStorageParameters low = p;
    low.initial_voltage = 500.5;  // 1/2 54 (500.5^2 - 500^2) = 13.5 kJ above the bottom
    CapacitorStorage bank(low, 20.0 * megawatt);
    const double middle = 0.5 * (bank.energy_min() + bank.energy_max());
    const double recovery = (bank.energy() - middle) / low.recovery_time_constant;  // < 0: wants charge
    // The fast part is clamped at P_conv, the recovery term is added and fits: ~5.5 kJ in 1 ms.
    const StorageFlow f = bank.step(dt, 45.0 * megawatt);
    CHECK(f.bus_power == Approx(low.converter_power_max + recovery).epsilon(1e-12));
    int steps = 1;
    while (bank.energy() > bank.energy_min()) {
      bank.step(dt, 45.0 * megawatt);
      ++steps;
      REQUIRE(steps < 100);
    }
    CHECK(bank.energy() == bank.energy_min());
    CHECK(bank.voltage() == Approx(500.0).epsilon(1e-15));
    // Empty: a further discharge request gives no flow at all.
    const StorageFlow empty = bank.step(dt, 45.0 * megawatt);
    CHECK(empty.bus_power == 0.0);
    CHECK(empty.loss == 0.0);
    CHECK(bank.energy() == bank.energy_min());
  }
}

TEST_CASE("battery stays in its SoC window and power limit, and keeps the ramp while it has room",
          "[electrical][storage]") {
  BatteryStorageParameters p;
  p.enabled = true;
  p.energy_capacity = 4.0e7;  // 11 kWh, 32 MJ usable: small on purpose, so that the load reaches both edges
  p.power_max = 8.0 * megawatt;
  RandomLoad load(77);
  BatteryStorage battery(p, 30.0 * megawatt);
  const double start = battery.energy();
  const double e_min = p.soc_min * p.energy_capacity;
  const double e_max = p.soc_max * p.energy_capacity;

  double stored_sum = 0.0;
  double previous_grid = 30.0 * megawatt;
  long with_room = 0, ramp_kept = 0, at_power_limit = 0, at_bottom = 0, at_top = 0;
  const long steps = 600'000;
  for (long k = 0; k < steps; ++k) {
    const double demand = load.next();
    const StorageFlow f = battery.step(dt, demand);
    stored_sum += f.stored_power * dt;
    REQUIRE(f.loss >= 0.0);
    REQUIRE(std::fabs(f.bus_power) <= p.power_max);
    REQUIRE(battery.state_of_charge() >= p.soc_min);
    REQUIRE(battery.state_of_charge() <= p.soc_max);
    const double grid = demand - f.bus_power;
    REQUIRE(battery.grid_target() == grid);
    // Room: not at the power limit and not at an SoC edge after the step.
    const bool power_room = std::fabs(f.bus_power) < p.power_max;
    const bool soc_room = battery.energy() > e_min * (1 + 1e-14) && battery.energy() < e_max * (1 - 1e-14);
    if (std::fabs(f.bus_power) == p.power_max) ++at_power_limit;
    // The cut lands on the edge to round-off (E + ((E_edge - E) / h) h).
    if (battery.energy() <= e_min * (1 + 1e-14)) ++at_bottom;
    if (battery.energy() >= e_max * (1 - 1e-14)) ++at_top;
    if (power_room && soc_room) {
      ++with_room;
      if (std::fabs(grid - previous_grid) <= p.ramp_rate_max * dt * (1 + 1e-9) + 1e-6) ++ramp_kept;
    }
    previous_grid = grid;
  }
  CHECK(with_room > steps / 2);
  CHECK(ramp_kept == with_room);
  // The load reached the power limit and both SoC edges many times. Each is a one-step event: after
  // a cut the grid target is reset to what the grid really supplied, and the ramp continues from there.
  CHECK(at_power_limit > 50);
  CHECK(at_bottom > 10);
  CHECK(at_top > 10);
  CHECK(battery.energy() - start == Approx(stored_sum).margin(1e-9 * p.energy_capacity));
  CHECK(battery.losses() > 0.0);
}

TEST_CASE("battery: a demand step is ramped linearly and costs dD^2 / (2 r) - dD h / 2", "[electrical][storage]") {
  BatteryStorageParameters p;
  p.charge_efficiency = 1.0;
  p.discharge_efficiency = 1.0;
  p.recovery_time_constant = 1e15;  // no recovery: the closed form of the pure ramp
  BatteryStorage battery(p, 20.0 * megawatt);
  const double e0 = battery.energy();
  const double jump = 8.0 * megawatt;  // K = jump / (r h) = 8000 steps
  const double h = dt;
  double previous = 20.0 * megawatt;
  for (int k = 1; k <= 10'000; ++k) {
    const StorageFlow f = battery.step(h, 20.0 * megawatt + jump);
    const double grid = 20.0 * megawatt + jump - f.bus_power;
    const double expected = std::min(20.0 * megawatt + k * p.ramp_rate_max * h, 20.0 * megawatt + jump);
    REQUIRE(grid == Approx(expected).epsilon(1e-12));
    REQUIRE(f.loss == 0.0);
    previous = grid;
  }
  CHECK(previous == Approx(28.0 * megawatt).epsilon(1e-12));
  // sum_{k=1}^{K} h (dD - k r h) with K = dD / (r h): dD^2 / (2 r) - dD h / 2.
  const double expected_energy = jump * jump / (2.0 * p.ramp_rate_max) - jump * h / 2.0;
  CHECK(e0 - battery.energy() == Approx(expected_energy).epsilon(1e-9));
  // Efficiencies: discharging at P for one step takes P / eta_d from storage.
  BatteryStorageParameters lossy;
  BatteryStorage b2(lossy, 20.0 * megawatt);
  const StorageFlow f = b2.step(h, 25.0 * megawatt);
  CHECK(f.bus_power == Approx(5.0 * megawatt - lossy.ramp_rate_max * h).epsilon(1e-15));
  CHECK(f.loss == Approx(f.bus_power * (1.0 / lossy.discharge_efficiency - 1.0)).epsilon(1e-12));
  const StorageFlow g = b2.step(h, 10.0 * megawatt);  // now charging
  CHECK(g.bus_power < 0.0);
  CHECK(g.loss == Approx(-g.bus_power * (1.0 - lossy.charge_efficiency)).epsilon(1e-12));
}

TEST_CASE("storage parameters: tables read back, bad values give exact located messages", "[electrical][storage]") {
  SECTION("defaults read back and are valid") {
    const auto c = CapacitorStorageParameters::from(
        defaults_tree(CapacitorStorageParameters::table(), "electrical.capacitor_storage"));
    CHECK(c.capacitance == CapacitorStorageParameters{}.capacitance);
    CHECK_FALSE(c.enabled);
    const auto b = BatteryStorageParameters::from(
        defaults_tree(BatteryStorageParameters::table(), "electrical.battery_storage"));
    CHECK(b.ramp_rate_max == BatteryStorageParameters{}.ramp_rate_max);
    for (const auto& spec : CapacitorStorageParameters::table()) CHECK_FALSE(spec.source.empty());
    for (const auto& spec : BatteryStorageParameters::table()) CHECK_FALSE(spec.source.empty());
  }
  SECTION("capacitor") {
    auto message = [](const char* key, double value) {
      auto tree = defaults_tree(CapacitorStorageParameters::table(), "electrical.capacitor_storage");
      tree.values[key].number = value;
      return input_error([&] { (void)CapacitorStorageParameters::from(tree); });
    };
    CHECK(message("capacitance", -5.0) == "electrical.capacitor_storage.capacitance = -5 F (must be > 0)");
    CHECK(message("voltage_min", 1200.0) ==
          "electrical.capacitor_storage: voltage_min 1200 V must be below voltage_max 1000 V");
    CHECK(message("initial_voltage", 300.0) ==
          "electrical.capacitor_storage: initial_voltage 300 V is not in [voltage_min, voltage_max] = [500, 1000] V");
    CHECK(message("converter_efficiency", 0.0) ==
          "electrical.capacitor_storage.converter_efficiency = 0 (must be in (0, 1])");
    CHECK(message("series_resistance", -0.1) ==
          "electrical.capacitor_storage.series_resistance = -0.1 ohm (must be >= 0)");
    // Built directly in C++: the constructor checks too, under the scenario's section name.
    CapacitorStorageParameters p;
    p.capacitance = 0.0;
    CHECK(input_error([&] { (void)CapacitorStorage(p, 0.0); }) ==
          "electrical.capacitor_storage.capacitance = 0 F (must be > 0)");
  }
  SECTION("battery") {
    auto message = [](auto change) {
      auto tree = defaults_tree(BatteryStorageParameters::table(), "electrical.battery_storage");
      change(tree);
      return input_error([&] { (void)BatteryStorageParameters::from(tree); });
    };
    CHECK(message([](auto& t) {
            t.values["soc_min"].number = 0.9;
            t.values["soc_max"].number = 0.1;
          }) == "electrical.battery_storage: soc_min 0.9 must be below soc_max 0.1");
    CHECK(message([](auto& t) { t.values["initial_soc"].number = 0.95; }) ==
          "electrical.battery_storage: initial_soc 0.95 is not in [soc_min, soc_max] = [0.1, 0.9]");
    CHECK(message([](auto& t) { t.values["soc_max"].number = 1.5; }) ==
          "electrical.battery_storage.soc_max = 1.5 (must be in [0, 1])");
    CHECK(message([](auto& t) { t.values["charge_efficiency"].number = 1.2; }) ==
          "electrical.battery_storage.charge_efficiency = 1.2 (must be in (0, 1])");
    CHECK(message([](auto& t) { t.values["energy_capacity"].number = 0.0; }) ==
          "electrical.battery_storage.energy_capacity = 0 J (must be > 0)");
  }
}
