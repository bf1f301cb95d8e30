// The diurnal throughput swing of an air-cooled hall and its mechanism: at a fixed board power
// limit, leakage that rises with the junction temperature leaves less power for switching, and the
// power-cap governor lowers the clock. First on one GPU against the closed form, then a small
// free-cooled hall at the night and afternoon weather of the design day of
// scenarios/llama3-24k-air-diurnal.yaml.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/io/scenario.hpp"
#include "dctwin/models/facility/facility_site.hpp"
#include "dctwin/models/workload/dvfs_governor.hpp"
#include "dctwin/models/workload/gpu_power.hpp"
#include "dctwin/solver/simulator.hpp"

using namespace dctwin::models::workload;
namespace reason = dctwin::models::workload::throttle_reason;

namespace {

constexpr double kelvin = 273.15;
constexpr double mhz = 1e6;

// Package leakage of the facility scenarios: L(T_j) = L_ref exp(k (T_j - T_ref)).
constexpr double leakage_at_reference = 50.0;  // [W] at T_ref
constexpr double leakage_reference = 60.0;     // [degC]
constexpr double leakage_coefficient = 0.02;   // k [1/K]

/// The diurnal hall's compute activity: ~700 W at f_max, so the compute phase runs at the cap.
constexpr double compute_activity = 0.98;

double leakage(double junction_celsius) {
  return leakage_at_reference * std::exp(leakage_coefficient * (junction_celsius - leakage_reference));
}

GovernorInputs working_at(double junction_celsius, double activity) {
  GovernorInputs in;
  in.junction_temperature = kelvin + junction_celsius;
  in.hbm_temperature = kelvin + 60.0;
  in.activity = activity;
  in.leakage_power = leakage(junction_celsius);
  in.working = true;
  return in;
}

/// The default H100 governor with a continuous clock (no 15 MHz ladder), so that clocks compare
/// with the closed form exactly.
DvfsGovernor continuous_governor() {
  DvfsGovernorParameters p;
  p.clock_step = 0.0;
  return DvfsGovernor(p, GpuPowerModel(GpuPowerParameters{}), GpuThermalLimits{});
}

/// The clock the governor settles on for work at `activity` with the junction at T_j.
double settled_clock(const DvfsGovernor& governor, double junction_celsius, double activity) {
  GovernorState s = governor.initial_state();
  for (int i = 0; i < 3; ++i) s = governor.update(s, working_at(junction_celsius, activity));
  return s.clock;
}

}  // namespace

TEST_CASE("At the power cap the clock falls with the junction temperature as the closed form says",
          "[workload][dvfs][diurnal]") {
  const DvfsGovernor governor = continuous_governor();
  const GpuPowerModel& power = governor.power();
  const GpuPowerParameters& p = power.parameters();

  // Above the knee, with u(f) = V(f) / V_max = u_f + s (f - f_knee), s = (1 - u_f) / (f_max - f_knee):
  //   P_static + L(T_j) + a P_dyn,max (f / f_max) u(f)^2 = P_limit         (the cap binds)
  //   df/dT_j = -dL/dT_j / (dP_dyn/df) = -k L(T_j) / (a P_dyn,max / f_max (u^2 + 2 f u s))
  //   (1/f) df/dT_j = -k L / (n P_dyn),  n = d ln P_dyn / d ln f = 1 + 2 f s / u
  const double u_floor = p.voltage_floor / p.voltage_at_max_clock;
  const double s = (1.0 - u_floor) / (p.max_clock - p.voltage_knee_clock);
  const double a = compute_activity;

  for (const double t : {70.0, 75.0, 80.0, 85.0}) {
    INFO("T_j = " << t << " degC");
    GovernorState state = governor.initial_state();
    for (int i = 0; i < 3; ++i) state = governor.update(state, working_at(t, a));
    // Only the power cap acts: below 87 degC there is no thermal reason.
    CHECK(state.reasons == reason::sw_power_cap);
    const double f = state.clock;
    REQUIRE(f > p.voltage_knee_clock);
    REQUIRE(f < p.max_clock);
    // The power balance holds exactly (the solve stops within 1 kHz: ~0.3 mW).
    CHECK(power.board_power(a, f, leakage(t)) == Approx(p.power_limit).margin(1e-3));

    // The sensitivity from governor clocks 0.01 K apart against the closed form, to 1e-4.
    const double h = 0.01;
    const double slope = (settled_clock(governor, t + h, a) - settled_clock(governor, t - h, a)) / (2.0 * h);
    const double u = u_floor + s * (f - p.voltage_knee_clock);
    const double dynamic_slope = a * p.dynamic_power_at_max / p.max_clock * (u * u + 2.0 * f * u * s);
    const double closed_form = -leakage_coefficient * leakage(t) / dynamic_slope;
    CHECK(slope == Approx(closed_form).epsilon(1e-4));

    // The relative form with n = 1 + 2 f s / u (~2.52 near the top clock).
    const double n = 1.0 + 2.0 * f * s / u;
    CHECK(n == Approx(2.52).margin(0.01));
    const double dynamic = p.power_limit - p.static_power - leakage(t);
    CHECK(closed_form / f == Approx(-leakage_coefficient * leakage(t) / (n * dynamic)).epsilon(1e-9));
  }

  // Figures: at 75 degC the clock falls 1.82 MHz (0.093 %) per kelvin; from a 74 degC night to a
  // 77 degC afternoon it falls 5.53 MHz, 0.281 % of 1967.7 MHz.
  const double f74 = settled_clock(governor, 74.0, a);
  const double f77 = settled_clock(governor, 77.0, a);
  CHECK(f74 / mhz == Approx(1967.716).margin(0.01));
  CHECK((f74 - f77) / mhz == Approx(5.530).margin(0.01));
  CHECK((f74 - f77) / f74 == Approx(0.00281).margin(0.00001));
}

TEST_CASE("Below the power cap the clock does not depend on the junction temperature", "[workload][dvfs][diurnal]") {
  // The limit of the mechanism: at the 1-s compute-phase level (activity 0.72, ~540 W) nothing
  // binds below 87 degC, so a warmer afternoon changes no clock.
  const DvfsGovernor governor = continuous_governor();
  for (const double t : {60.0, 70.0, 80.0, 86.0}) {
    INFO("T_j = " << t << " degC");
    GovernorState state = governor.initial_state();
    for (int i = 0; i < 3; ++i) state = governor.update(state, working_at(t, 0.72));
    CHECK(state.reasons == 0);
    CHECK(state.clock == governor.power().parameters().max_clock);
  }
}

namespace {

/// One pod of 24 racks (384 GPUs, 3 data-parallel replicas of the Llama 3 405B job) cooled as
/// scenarios/llama3-24k-air-diurnal.yaml cools the hall (free cooling only, plant scaled to
/// 1/64 of it), in constant weather.
std::string small_hall(const std::string& dry_bulb, const std::string& wet_bulb) {
  return "name: diurnal-small-hall\nsite: facility\n"
         "simulation: {duration: 5 min, output_interval: 1 s, initial_state: steady_state}\n"
         "workload:\n"
         "  job: {model_parameters: 405e9, compute_activity: 0.98}\n"
         "  governor: {update_period: 1 s}\n"
         "  failures: {enabled: false}\n"
         "facility:\n"
         "  cooling: air\n"
         "  layout: {pods: 1, racks_per_pod: 24}\n"
         "  crah: {count: 2, supply_temperature_setpoint: 18 degC}\n"
         "  fan_controller:\n"
         "    mode: curve\n"
         "    curve: [{temperature: 65 degC, speed: 0.4}, {temperature: 87 degC, speed: 1.0}]\n"
         "  gpu: {leakage_power_at_reference: 50 W, leakage_reference_temperature: 60 degC}\n"
         "  plant:\n"
         "    supply_setpoint: 18 degC\n"
         "    design_flow: 20.3 kg/s\n"
         "    pump_power: 4.7 kW\n"
         "    water_volume: 3.1 m3\n"
         "    cooling_tower: {design_water_flow: 23.4 kg/s, design_fan_power: 5.5 kW}\n"
         "    economizer: {condenser_water_flow: 23.4 kg/s}\n"
         "    chiller: {reference_capacity: 10 kW}\n"
         "  weather: {source: constant, dry_bulb: " +
         dry_bulb + ", wet_bulb: " + wet_bulb + "}\n";
}

struct HallFigures {
  double throughput = 0.0;       ///< mean tokens/s of the steps completed after the first 2 min
  double cold_aisle = 0.0;       ///< mean cold-aisle temperature after 2 min [degC]
  double junction_max = 0.0;     ///< hottest junction sampled after 2 min [degC]
  double fan_speed_max = 0.0;    ///< fastest server fan sampled after 2 min [1]
  unsigned thermal_reasons = 0;  ///< samples x GPUs with a thermal throttle reason set after 2 min
  unsigned capped = 0;           ///< samples x GPUs with SwPowerCap set after 2 min
};

HallFigures run_hall(const std::string& dry_bulb, const std::string& wet_bulb) {
  const auto doc = dctwin::io::parse_scenario(small_hall(dry_bulb, wet_bulb), "diurnal-small-hall.yaml",
                                              dctwin::models::facility::scenario_schema());
  dctwin::models::facility::FacilitySite site(doc.tree, std::nullopt);
  struct Observer final : dctwin::solver::SimulationObserver {
    dctwin::models::facility::FacilitySite* site = nullptr;
    const dctwin::solver::OutputSlot* steps = nullptr;
    const dctwin::solver::OutputSlot* step_time = nullptr;
    const dctwin::solver::OutputSlot* aisle = nullptr;
    const dctwin::solver::OutputSlot* junction = nullptr;
    const dctwin::solver::OutputSlot* fans = nullptr;
    const dctwin::solver::OutputSlot* reasons = nullptr;
    double last_steps = -1.0, step_sum = 0.0, aisle_sum = 0.0;
    unsigned step_count = 0, aisle_count = 0;
    HallFigures f;
    void on_sample(double t, const std::vector<double>& x, const std::vector<double>& out) override {
      site->observe(t, x, out);
      // Each completed step once, by its duration; steps completed in the first 2 min (the fans
      // settling on their table) are left out.
      const double n = out[steps->first_value];
      if (n != last_steps && t >= 120.0 && last_steps >= 0.0) {
        step_sum += out[step_time->first_value];
        ++step_count;
      }
      last_steps = n;
      if (t < 120.0) return;
      aisle_sum += out[aisle->first_value] - kelvin;
      ++aisle_count;
      for (dctwin::solver::Index g = 0; g < junction->spec.count; ++g) {
        f.junction_max = std::max(f.junction_max, out[junction->first_value + g] - kelvin);
        const auto bits = static_cast<unsigned>(out[reasons->first_value + g]);
        if ((bits & (reason::sw_thermal_slowdown | reason::hw_thermal_slowdown)) != 0) ++f.thermal_reasons;
        if ((bits & reason::sw_power_cap) != 0) ++f.capped;
      }
      for (dctwin::solver::Index s = 0; s < fans->spec.count; ++s)
        f.fan_speed_max = std::max(f.fan_speed_max, out[fans->first_value + s]);
    }
  } observer;
  observer.site = &site;
  for (const auto& slot : site.system().outputs()) {
    const auto& spec = slot.spec;
    if (spec.group == "job" && spec.name == "steps_completed") observer.steps = &slot;
    if (spec.group == "job" && spec.name == "step_time") observer.step_time = &slot;
    if (spec.group == "pod" && spec.name == "cold_aisle_temperature") observer.aisle = &slot;
    if (spec.group == "gpu" && spec.name == "junction_temperature") observer.junction = &slot;
    if (spec.group == "server" && spec.name == "fan_speed") observer.fans = &slot;
    if (spec.group == "gpu" && spec.name == "throttle_reasons") observer.reasons = &slot;
  }
  REQUIRE(observer.steps != nullptr);
  REQUIRE(observer.step_time != nullptr);
  REQUIRE(observer.aisle != nullptr);
  REQUIRE(observer.junction != nullptr);
  REQUIRE(observer.fans != nullptr);
  REQUIRE(observer.reasons != nullptr);
  dctwin::solver::Simulator simulator(site.system(), site.settings());
  REQUIRE(simulator.run(site.initial_state(), observer).finished());
  REQUIRE(observer.step_count >= 20);
  HallFigures f = observer.f;
  // 16 sequences of 8,192 tokens per replica, 3 replicas.
  f.throughput = 16.0 * 8192.0 * 3.0 / (observer.step_sum / observer.step_count);
  f.cold_aisle = observer.aisle_sum / observer.aisle_count;
  return f;
}

}  // namespace

TEST_CASE("A free-cooled air hall trains slower in the afternoon than at night, by the power cap alone",
          "[workload][diurnal][facility]") {
  // The design day of the site (Albuquerque 0.4 %): 22.3 / 11.1 degC dry / wet bulb at 6 h and
  // 35.1 / 15.6 degC at 15 h, each held constant; 5 minutes from the steady state, seed 1.
  const HallFigures night = run_hall("22.3 degC", "11.1 degC");
  const HallFigures day = run_hall("35.1 degC", "15.6 degC");
  const double swing = (night.throughput - day.throughput) / (0.5 * (night.throughput + day.throughput));
  INFO("night: " << night.throughput << " tokens/s, cold aisle " << night.cold_aisle << " degC, hottest junction "
                 << night.junction_max << " degC, fans up to " << night.fan_speed_max);
  INFO("afternoon: " << day.throughput << " tokens/s, cold aisle " << day.cold_aisle << " degC, hottest junction "
                     << day.junction_max << " degC, fans up to " << day.fan_speed_max);
  INFO("swing " << 100.0 * swing << " %");
  // Inside ASHRAE A1 all day (15-32 degC allowable), fans inside their range, no junction at the
  // 87 degC slowdown target: no thermal reason anywhere, the power cap on many GPUs.
  for (const HallFigures* f : {&night, &day}) {
    CHECK(f->cold_aisle > 15.0);
    CHECK(f->cold_aisle < 32.0);
    CHECK(f->fan_speed_max < 1.0);
    CHECK(f->junction_max < 87.0);
    CHECK(f->thermal_reasons == 0u);
    CHECK(f->capped > 0u);
  }
  // Regression figures of this build (the full hall's swing on 5 seeds is in
  // docs/models/workload.md): cold aisles 24.24 and 27.74 degC, swing 0.336 %; tolerances 0.1 K and
  // 0.05 percentage points (seeds 1-5 of this hall spread over 0.33-0.39 %).
  CHECK(night.cold_aisle == Approx(24.24).margin(0.1));
  CHECK(day.cold_aisle == Approx(27.74).margin(0.1));
  CHECK(swing == Approx(0.00336).margin(0.0005));
}
