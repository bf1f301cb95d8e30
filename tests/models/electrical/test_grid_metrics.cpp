// Grid metrics: the spectrum against the Fourier series of a square wave and Parseval, band shares
// of tones on bins, the ramp rate of a linear ramp and a step, the streaming recorder against the
// batch functions on a known step, the limit checks, and bad limits.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <cmath>
#include <numbers>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/electrical/grid_metrics.hpp"
#include "dctwin/models/random.hpp"

using namespace dctwin::models::electrical;
using dctwin::models::SplitMix64;
using model_test::defaults_tree;
using model_test::input_error;

namespace {
constexpr double pi = std::numbers::pi;
constexpr double megawatt = 1e6;

double variance(const std::vector<double>& x) {
  long double mean = 0.0L;
  for (double v : x) mean += v;
  mean /= static_cast<long double>(x.size());
  long double sum = 0.0L;
  for (double v : x) sum += (v - mean) * (v - mean);
  return static_cast<double>(sum / static_cast<long double>(x.size()));
}
}  // namespace

TEST_CASE("spectrum of a square wave matches its Fourier series, total = variance", "[electrical][metrics]") {
  // x(t) = +A for the first half of each period 1/f0, -A for the second half. Its Fourier series is
  //   x(t) = (4 A / pi) sum_{n odd} sin(2 pi n f0 t) / n,
  // a sine of amplitude a_n = 4 A / (pi n) holds the variance a_n^2 / 2 = 8 A^2 / (pi^2 n^2), and the
  // odd harmonics together hold A^2 (sum_{n odd} 1/n^2 = pi^2 / 8).
  // Sampled with P samples per period (P even), the DFT coefficient of harmonic n (odd) is
  //   c_n = (2 A / P) sum_{m < P/2} e^{-2 pi i n m / P} = (2 A / P) * 2 / (1 - e^{-2 pi i n / P}),
  //   |c_n| = 2 A / (P sin(pi n / P)),
  // so the one-sided bin energy 2 |c_n|^2 = 8 A^2 / (P^2 sin^2(pi n / P)) -> 8 A^2 / (pi^2 n^2) as
  // P -> infinity (relative difference ~ (pi n / P)^2 / 3), and the sampled wave's variance is A^2 exactly.
  const double amplitude = 3.0 * megawatt;
  const double f0 = 0.5;
  const double dt = 5e-3;
  const std::size_t period = 400;   // samples per period: f0 dt = 1/400
  const std::size_t periods = 50;
  std::vector<double> x(period * periods);
  for (std::size_t m = 0; m < x.size(); ++m) x[m] = 20.0 * megawatt + ((m % period) < period / 2 ? amplitude : -amplitude);
  const Spectrum s = power_spectrum(x, dt);
  REQUIRE(s.energy.size() == x.size() / 2 + 1);
  CHECK(s.frequency[periods] == Approx(f0).epsilon(1e-15));

  double total = 0.0;
  for (double e : s.energy) total += e;
  CHECK(total == Approx(amplitude * amplitude).epsilon(1e-12));

  for (std::size_t n = 1; n <= 15; ++n) {
    const double e = s.energy[n * periods];
    if (n % 2 == 0) {
      CHECK(e < 1e-20 * amplitude * amplitude);
      continue;
    }
    const double angle = pi * static_cast<double>(n) / static_cast<double>(period);
    const double discrete = 8.0 * amplitude * amplitude /
                            (static_cast<double>(period * period) * std::sin(angle) * std::sin(angle));
    const double fourier = 8.0 * amplitude * amplitude / (pi * pi * static_cast<double>(n * n));
    CHECK(e == Approx(discrete).epsilon(1e-10));
    CHECK(std::fabs(e / fourier - 1.0) <= angle * angle / 2.0);
  }
  // Nothing between the harmonics (the record holds whole periods).
  CHECK(s.energy[periods + 1] < 1e-20 * amplitude * amplitude);
  // The fundamental alone carries 8 / pi^2 = 81 % of the variance in the continuous limit.
  CHECK(band_energy_fraction(s, 0.4, 0.6) == Approx(8.0 / (pi * pi)).epsilon(1e-4));
}

TEST_CASE("band shares of two tones on bins are exact, Parseval holds for any length", "[electrical][metrics]") {
  const double dt = 5e-3;
  const std::size_t n = 20000;  // 100 s: bins every 0.01 Hz
  const double a1 = 2.0 * megawatt, f1 = 0.5;
  const double a2 = 0.5 * megawatt, f2 = 10.0;
  std::vector<double> x(n);
  for (std::size_t m = 0; m < n; ++m) {
    const double t = static_cast<double>(m) * dt;
    x[m] = 30.0 * megawatt + a1 * std::sin(2.0 * pi * f1 * t) + a2 * std::cos(2.0 * pi * f2 * t);
  }
  const Spectrum s = power_spectrum(x, dt);
  const double total = (a1 * a1 + a2 * a2) / 2.0;
  CHECK(band_energy_fraction(s, 0.1, 1.0) == Approx(a1 * a1 / 2.0 / total).epsilon(1e-12));
  CHECK(band_energy_fraction(s, 7.0, 40.0) == Approx(a2 * a2 / 2.0 / total).epsilon(1e-12));
  CHECK(band_energy_fraction(s, 0.1, 20.0) == Approx(1.0).epsilon(1e-12));
  CHECK(band_energy_fraction(s, 1.0, 2.5) < 1e-20);
  // Half-open: a tone exactly at the upper edge is outside, at the lower edge inside.
  CHECK(band_energy_fraction(s, 0.5, 10.0) == Approx(a1 * a1 / 2.0 / total).epsilon(1e-12));
  CHECK(s.energy[50] == Approx(a1 * a1 / 2.0).epsilon(1e-12));
  CHECK(s.energy[1000] == Approx(a2 * a2 / 2.0).epsilon(1e-12));

  // Parseval on noise, even and odd lengths (odd: no Nyquist bin).
  SplitMix64 random(5);
  for (std::size_t length : {std::size_t{1000}, std::size_t{1001}, std::size_t{2}, std::size_t{3}}) {
    std::vector<double> noise(length);
    for (double& v : noise) v = 1e6 * random.normal();
    const Spectrum r = power_spectrum(noise, 1e-3);
    double sum = 0.0;
    for (double e : r.energy) sum += e;
    CHECK(sum == Approx(variance(noise)).epsilon(1e-12));
  }
  // Constant and empty records.
  CHECK(band_energy_fraction(power_spectrum(std::vector<double>(64, 5.0), 1e-3), 0.1, 20.0) == 0.0);
  CHECK(power_spectrum({}, 1e-3).energy.empty());
}

TEST_CASE("ramp rate: a linear ramp gives its slope, a step its height per window, peak to peak",
          "[electrical][metrics]") {
  const double dt = 1e-3;
  const double slope = 2.5 * megawatt;  // W/s
  std::vector<double> ramp(20000);
  for (std::size_t m = 0; m < ramp.size(); ++m) ramp[m] = 10.0 * megawatt + slope * static_cast<double>(m) * dt;
  CHECK(max_ramp_rate(ramp, dt, 1.0) == Approx(slope).epsilon(1e-9));
  CHECK(max_ramp_rate(ramp, dt, 0.01) == Approx(slope).epsilon(1e-9));
  CHECK(max_ramp_rate(ramp, dt, dt) == Approx(slope).epsilon(1e-9));

  std::vector<double> step(10000, 20.0 * megawatt);
  for (std::size_t m = 5000; m < step.size(); ++m) step[m] = 30.0 * megawatt;
  CHECK(max_ramp_rate(step, dt, 1.0) == Approx(10.0 * megawatt).epsilon(1e-12));
  CHECK(max_ramp_rate(step, dt, 0.1) == Approx(100.0 * megawatt).epsilon(1e-12));
  // A record shorter than two windows: the window is cut to half the record (here 0.5 s).
  std::vector<double> short_step(step.begin() + 4500, step.begin() + 5500);
  CHECK(max_ramp_rate(short_step, dt, 1.0) == Approx(10.0 * megawatt / 0.5).epsilon(1e-12));
  CHECK(max_ramp_rate({1.0}, dt, 1.0) == 0.0);

  CHECK(peak_to_peak(step) == 10.0 * megawatt);
  CHECK(peak_to_peak({-1.0, 4.0, 2.0}) == 5.0);
  CHECK(peak_to_peak({}) == 0.0);
}

TEST_CASE("grid recorder on a known step: ramp, spectrum, frequency, RoCoF, voltage, hot spot, limits",
          "[electrical][metrics]") {
  const double dt = 1e-3;
  GridRecorder recorder(dt, 5e-3, 1.0);
  std::vector<double> power;
  for (std::size_t m = 0; m < 20000; ++m) {
    const double t = static_cast<double>(m) * dt;
    const double p = t < 10.0 ? 20.0 * megawatt : 30.0 * megawatt;
    // Frequency falls linearly by 0.1 Hz over 1 s after the step, then stays.
    const double f = t < 10.0 ? 50.0 : 50.0 - 0.1 * std::min(t - 10.0, 1.0);
    const double v = t < 10.0 ? 1.0 : 0.98;
    recorder.add(p, f, v);
    power.push_back(p);
  }
  recorder.note_hot_spot(360.0);
  recorder.note_hot_spot(370.0);
  recorder.note_hot_spot(365.0);
  const GridMetrics m = recorder.metrics();
  CHECK(m.samples == 20000);
  CHECK(m.power_peak_to_peak == 10.0 * megawatt);
  CHECK(m.power_mean == Approx(25.0 * megawatt).epsilon(1e-15));
  CHECK(m.ramp_rate_max == Approx(10.0 * megawatt).epsilon(1e-12));
  CHECK(m.ramp_rate_max == Approx(max_ramp_rate(power, dt, 1.0)).epsilon(1e-12));
  CHECK(m.frequency_initial == 50.0);
  CHECK(m.frequency_nadir == Approx(49.9).epsilon(1e-15));
  CHECK(m.frequency_zenith == 50.0);
  CHECK(m.frequency_deviation_max == Approx(0.1).epsilon(1e-12));
  CHECK(m.rocof_max == Approx(0.1).epsilon(1e-9));  // 0.1 Hz/s over any 0.5 s window inside the ramp
  CHECK(m.voltage_change_max == Approx(0.02).epsilon(1e-12));
  CHECK(m.transformer_hot_spot_max == 370.0);

  // The spectrum uses the 5 ms block means: 4000 of them, a step is a half period of a square wave of
  // 0.05 Hz, variance (5 MW)^2.
  REQUIRE(recorder.block_power().size() == 4000);
  CHECK(recorder.spectrum_interval() == Approx(5e-3).epsilon(1e-15));
  CHECK(m.power_standard_deviation == Approx(5.0 * megawatt).epsilon(1e-12));
  const Spectrum s = power_spectrum(recorder.block_power(), 5e-3);
  CHECK(m.band_fraction_0p1_20hz == Approx(band_energy_fraction(s, 0.1, 20.0)).epsilon(1e-12));
  CHECK(m.band_fraction_below_1hz == Approx(band_energy_fraction(s, 0.0, 1.0)).epsilon(1e-12));
  // A single step: the 0.05 Hz fundamental (outside 0.1-20 Hz) holds 8 / pi^2 of the variance.
  CHECK(m.band_fraction_0p1_20hz < 1.0 - 0.8);

  const std::vector<LimitCheck> checks = check_limits(GridLimits{}, m);
  // Defaults check ramp, band share, frequency deviation, voltage change and hot spot (the rest are 0).
  REQUIRE(checks.size() == 5);
  CHECK(checks[0].name == "ramp_rate");
  CHECK_FALSE(checks[0].passed);  // 10 MW/s > 1 MW/s
  CHECK(checks[0].unit == "W/s");
  CHECK(checks[1].name == "band_energy_fraction");
  CHECK(checks[1].passed);
  CHECK(checks[2].name == "frequency_deviation");
  CHECK_FALSE(checks[2].passed);  // 0.1 Hz > 0.05 Hz
  CHECK(checks[3].name == "voltage_change");
  CHECK(checks[3].passed);        // 2 % < 3 %
  CHECK(checks[4].name == "transformer_hot_spot");
  CHECK(checks[4].passed);
  CHECK(checks[4].value == 370.0);
  CHECK(checks[4].limit == 383.15);
}

TEST_CASE("grid recorder: the streamed ramp equals the batch one on noise, memory per simulated hour",
          "[electrical][metrics]") {
  const double dt = 1e-3;
  SplitMix64 random(11);
  GridRecorder recorder(dt, 5e-3, 0.2);
  std::vector<double> power(100'000);
  double level = 30.0 * megawatt;
  for (double& p : power) {
    if (random.uniform() < 0.002) level = (20.0 + 20.0 * random.uniform()) * megawatt;
    p = level + 0.2 * megawatt * random.normal();
    recorder.add(p, 50.0, 1.0);
  }
  CHECK(recorder.metrics().ramp_rate_max == Approx(max_ramp_rate(power, dt, 0.2)).epsilon(1e-9));
  CHECK(recorder.metrics().power_peak_to_peak == Approx(peak_to_peak(power)).epsilon(1e-15));
  // Short record (fewer than two windows): the same rule as the batch function.
  GridRecorder short_recorder(dt, 5e-3, 1.0);
  for (std::size_t m = 0; m < 1500; ++m) short_recorder.add(power[m], 50.0, 1.0);
  const std::vector<double> first(power.begin(), power.begin() + 1500);
  CHECK(short_recorder.metrics().ramp_rate_max == Approx(max_ramp_rate(first, dt, 1.0)).epsilon(1e-12));

  // One simulated hour at 1 ms: 720,000 block means of 8 bytes (5.76 MB) plus the vector's spare capacity.
  GridRecorder hour(dt, 5e-3, 1.0);
  for (std::size_t m = 0; m < 3'600'000; ++m) hour.add(30.0 * megawatt, 50.0, 1.0);
  CHECK(hour.block_power().size() == 720'000);
  CHECK(hour.memory_bytes() >= 720'000 * sizeof(double));
  CHECK(hour.memory_bytes() <= 2 * 720'000 * sizeof(double) + 64'000);
}

TEST_CASE("grid recorder: a step's ramp rate over each stated window is dP / w", "[electrical][metrics]") {
  // A 10 MW step at t = 100 s in a 1 ms record of 200 s: over windows of w the means of two adjacent
  // windows differ by at most 10 MW, so the ramp rate is 10 MW / w: 1,000 MW/s over 10 ms, 100 MW/s
  // over 100 ms, 10 MW/s over 1 s and 0.1667 MW/s over 1 min.
  const double dt = 1e-3;
  GridRecorder recorder(dt, 5e-3, 1.0);
  std::vector<double> power;
  for (std::size_t m = 0; m < 200'000; ++m) {
    const double p = m < 100'000 ? 20.0 * megawatt : 30.0 * megawatt;
    recorder.add(p, 50.0, 1.0);
    power.push_back(p);
  }
  const GridMetrics m = recorder.metrics();
  REQUIRE(m.ramp_rates.size() == standard_ramp_windows.size());  // the limit's 1 s is one of them
  for (std::size_t k = 0; k < standard_ramp_windows.size(); ++k) {
    const double w = standard_ramp_windows[k];
    CHECK(m.ramp_rates[k].window == w);
    CHECK(m.ramp_rates[k].complete);
    CHECK(m.ramp_rates[k].max == Approx(10.0 * megawatt / w).epsilon(1e-9));
    CHECK(m.ramp_rates[k].max == Approx(max_ramp_rate(power, dt, w)).epsilon(1e-9));
  }
  CHECK(m.ramp_rate_max == m.ramp_rates[2].max);  // the limit's window, 1 s
  CHECK(ramp_window_label(0.01) == "10ms");
  CHECK(ramp_window_label(0.1) == "100ms");
  CHECK(ramp_window_label(1.0) == "1s");
  CHECK(ramp_window_label(60.0) == "1min");
  CHECK(ramp_window_label(2.5) == "2p5s");
  CHECK(ramp_window_label(90.0) == "90s");

  // A record at 20 ms cannot resolve 10 ms windows: left out. A limit over 2 s adds its window after
  // the standard ones. A record shorter than two windows is marked incomplete.
  GridRecorder coarse(0.02, 0.02, 2.0);
  for (std::size_t k = 0; k < 3000; ++k) coarse.add(k < 1500 ? 0.0 : 1.0 * megawatt, 50.0, 1.0);  // 60 s
  const GridMetrics c = coarse.metrics();
  REQUIRE(c.ramp_rates.size() == 4);
  CHECK(c.ramp_rates[0].window == 0.1);
  CHECK(c.ramp_rates[1].window == 1.0);
  CHECK(c.ramp_rates[2].window == 60.0);
  CHECK_FALSE(c.ramp_rates[2].complete);  // 60 s of record hold one 1-min window, not two
  CHECK(c.ramp_rates[3].window == 2.0);
  CHECK(c.ramp_rates[3].complete);
  CHECK(c.ramp_rate_max == Approx(0.5 * megawatt).epsilon(1e-12));  // 1 MW over 2 s
}

TEST_CASE("grid limits: defaults read back, bad values give exact located messages", "[electrical][metrics]") {
  const GridLimits d = GridLimits::from(defaults_tree(GridLimits::table(), "electrical.limits"));
  CHECK(d.band_energy_fraction_max == 0.2);
  CHECK(d.ramp_window == 1.0);
  for (const auto& spec : GridLimits::table()) CHECK_FALSE(spec.source.empty());
  auto message = [](const char* key, double value) {
    auto tree = defaults_tree(GridLimits::table(), "electrical.limits");
    tree.values[key].number = value;
    return input_error([&] { (void)GridLimits::from(tree); });
  };
  CHECK(message("band_energy_fraction_max", 1.5) == "electrical.limits.band_energy_fraction_max = 1.5 (must be in [0, 1])");
  CHECK(message("ramp_window", 0.0) == "electrical.limits.ramp_window = 0 s (must be > 0)");
  CHECK(message("ramp_rate_max", -1.0) == "electrical.limits.ramp_rate_max = -1 W/s (must be >= 0)");
  // A limit of 0 is not checked.
  GridLimits none;
  none.ramp_rate_max = none.band_energy_fraction_max = none.frequency_deviation_max = 0.0;
  none.voltage_change_max = none.transformer_hot_spot_max = 0.0;
  CHECK(check_limits(none, GridMetrics{}).empty());
}
