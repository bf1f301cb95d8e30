#include "dctwin/models/electrical/grid_metrics.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <mutex>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_declarations.hpp"

namespace dctwin::models::electrical {

namespace {

constexpr const char* limits_section = "electrical.limits";

/// FFTW's planner is not thread-safe (only fftw_execute is); ensemble members run on threads.
std::mutex& fftw_planner_mutex() {
  static std::mutex mutex;
  return mutex;
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};

/// Samples per window: round(window / dt), at least 1.
std::size_t samples_in(double window, double dt) {
  const double n = std::round(window / dt);
  return n < 1.0 ? std::size_t{1} : static_cast<std::size_t>(n);
}

}  // namespace

// ---- free functions ----------------------------------------------------------------------------

Spectrum power_spectrum(const std::vector<double>& samples, double dt) {
  DCTWIN_DEMAND(std::isfinite(dt) && dt > 0.0, "power spectrum: sample spacing must be finite and > 0");
  Spectrum s;
  const std::size_t n = samples.size();
  if (n == 0) return s;
  const std::size_t bins = n / 2 + 1;
  s.frequency.resize(bins);
  s.energy.assign(bins, 0.0);
  const double record = static_cast<double>(n) * dt;
  for (std::size_t k = 0; k < bins; ++k) s.frequency[k] = static_cast<double>(k) / record;
  if (n == 1) return s;

  long double sum = 0.0L;
  for (double x : samples) sum += x;
  const double mean = static_cast<double>(sum / static_cast<long double>(n));

  std::unique_ptr<double, FftwFree> in(fftw_alloc_real(n));
  std::unique_ptr<fftw_complex, FftwFree> out(fftw_alloc_complex(bins));
  DCTWIN_DEMAND(in && out, "power spectrum: FFTW could not allocate its buffers");
  fftw_plan plan = nullptr;
  {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    plan = fftw_plan_dft_r2c_1d(static_cast<int>(n), in.get(), out.get(), FFTW_ESTIMATE);
  }
  DCTWIN_DEMAND(plan != nullptr, "power spectrum: FFTW could not plan the transform");
  for (std::size_t m = 0; m < n; ++m) in.get()[m] = samples[m] - mean;
  fftw_execute(plan);
  {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftw_destroy_plan(plan);
  }

  // Parseval: variance = (1/N^2) sum over all N bins of |X_k|^2; bins k and N-k are conjugate.
  const double scale = 1.0 / (static_cast<double>(n) * static_cast<double>(n));
  for (std::size_t k = 0; k < bins; ++k) {
    const double re = out.get()[k][0];
    const double im = out.get()[k][1];
    const bool paired = k != 0 && 2 * k != n;  // has a mirror bin N-k
    s.energy[k] = (paired ? 2.0 : 1.0) * (re * re + im * im) * scale;
  }
  return s;
}

double band_energy_fraction(const Spectrum& s, double f_low, double f_high) {
  DCTWIN_DEMAND(s.frequency.size() == s.energy.size(), "band energy: spectrum vectors differ in length");
  double total = 0.0;
  double band = 0.0;
  for (std::size_t k = 0; k < s.energy.size(); ++k) {
    total += s.energy[k];
    if (s.frequency[k] >= f_low && s.frequency[k] < f_high) band += s.energy[k];
  }
  return total > 0.0 ? band / total : 0.0;
}

double peak_to_peak(const std::vector<double>& samples) {
  if (samples.empty()) return 0.0;
  const auto [low, high] = std::minmax_element(samples.begin(), samples.end());
  return *high - *low;
}

double max_ramp_rate(const std::vector<double>& samples, double dt, double window) {
  DCTWIN_DEMAND(std::isfinite(dt) && dt > 0.0, "ramp rate: sample spacing must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(window) && window > 0.0, "ramp rate: window must be finite and > 0");
  const std::size_t count = samples.size();
  if (count < 2) return 0.0;
  const std::size_t n = std::min(samples_in(window, dt), count / 2);
  // Prefix sums in extended precision: window sums of hours of MW samples keep their digits.
  std::vector<long double> prefix(count + 1, 0.0L);
  for (std::size_t m = 0; m < count; ++m) prefix[m + 1] = prefix[m] + samples[m];
  const long double width = static_cast<long double>(n);
  long double largest = 0.0L;
  for (std::size_t m = n; m + n <= count; ++m) {
    const long double older = prefix[m] - prefix[m - n];
    const long double newer = prefix[m + n] - prefix[m];
    largest = std::max(largest, std::fabs(newer - older) / width);
  }
  return static_cast<double>(largest) / (static_cast<double>(n) * dt);
}

// ---- limits ------------------------------------------------------------------------------------

namespace {

const ParameterDeclarations<GridLimits>& declarations() {
  static const ParameterDeclarations<GridLimits> declared = [] {
    ParameterDeclarations<GridLimits> d;
    using P = GridLimits;
    d.real("power_peak_to_peak_max", &P::power_peak_to_peak_max, "W",
           "Largest allowed max - min of the grid power; 0 = not checked",
           "0 = not checked: a dynamic power range is agreed per site ([choukse-arxiv-2025])")
        .at_least(0.0)
        .shown_in("MW");
    d.real("ramp_rate_max", &P::ramp_rate_max, "W/s",
           "Largest allowed change of the grid power between the means of two adjacent ramp windows, per second; 0 = "
           "not checked",
           "Example grid-code ramp limit: Hawaii +-1 MW/s ([grid-code-ramp-limits]; others: Denmark +-100 kW/s, many "
           "+-10 %/min)")
        .at_least(0.0)
        .shown_in("MW/s");
    d.real("ramp_window", &P::ramp_window, "s", "Averaging window of the ramp rate",
           "Grid codes state ramp limits per second or per minute ([grid-code-ramp-limits]); 1 s matches a MW/s limit")
        .above(0.0);
    d.real("band_energy_fraction_max", &P::band_energy_fraction_max, "1",
           "Largest allowed share of the grid power's variance in 0.1-20 Hz; 0 = not checked",
           "Utilities' example cap of ~20 % of the spectral energy in 0.1-20 Hz ([choukse-arxiv-2025], arXiv "
           "2508.14318)")
        .at_least(0.0)
        .at_most(1.0);
    d.real("frequency_deviation_max", &P::frequency_deviation_max, "Hz",
           "Largest allowed |f - f_initial| at the grid connection; 0 = not checked",
           "Standard frequency range +-50 mHz of Continental Europe (EU Regulation 2017/1485, Annex III)")
        .at_least(0.0);
    d.real("rocof_max", &P::rocof_max, "Hz/s",
           "Largest allowed rate of change of frequency over 0.5 s; 0 = not checked",
           "0 = not checked: grid codes state what generators must withstand (ENTSO-E: 2 Hz/s over 500 ms), not what "
           "a load may cause")
        .at_least(0.0);
    d.real("voltage_change_max", &P::voltage_change_max, "1",
           "Largest allowed |V - V_initial| at the MV bus, relative to nominal; 0 = not checked",
           "Estimate (uncertain): IEC/TR 61000-3-7 indicative planning level of 3 % for rapid voltage changes at MV "
           "a few times per hour; more frequent changes are held to the flicker limits")
        .at_least(0.0)
        .at_most(1.0);
    d.real("transformer_hot_spot_max", &P::transformer_hot_spot_max, "K",
           "Largest allowed winding hot-spot temperature of the MV transformers; 0 = not checked",
           "IEEE C57.91: 110 degC is the rated hot spot at which ageing runs at the normal rate ([ieee-c57-91], F_AA "
           "= 1 at 383 K)")
        .at_least(0.0)
        .shown_in("degC");
    return d;
  }();
  return declared;
}

}  // namespace

core::ParameterTable GridLimits::table() { return declarations().table(); }

GridLimits GridLimits::from(const core::ParameterTree& s) {
  GridLimits l = declarations().read(s);
  l.check(section_path(s, limits_section));
  return l;
}

void GridLimits::check(const std::string& section) const { declarations().check(*this, section); }

std::vector<LimitCheck> check_limits(const GridLimits& limits, const GridMetrics& metrics) {
  std::vector<LimitCheck> checks;
  auto add = [&](const char* name, double value, double limit, const char* unit) {
    if (!(limit > 0.0)) return;
    checks.push_back(LimitCheck{name, value, limit, unit, value <= limit});
  };
  add("power_peak_to_peak", metrics.power_peak_to_peak, limits.power_peak_to_peak_max, "W");
  add("ramp_rate", metrics.ramp_rate_max, limits.ramp_rate_max, "W/s");
  add("band_energy_fraction", metrics.band_fraction_0p1_20hz, limits.band_energy_fraction_max, "1");
  add("frequency_deviation", metrics.frequency_deviation_max, limits.frequency_deviation_max, "Hz");
  add("rocof", metrics.rocof_max, limits.rocof_max, "Hz/s");
  add("voltage_change", metrics.voltage_change_max, limits.voltage_change_max, "1");
  add("transformer_hot_spot", metrics.transformer_hot_spot_max, limits.transformer_hot_spot_max, "K");
  return checks;
}

// ---- recorder ----------------------------------------------------------------------------------

std::string ramp_window_label(double window_s) {
  DCTWIN_DEMAND(std::isfinite(window_s) && window_s > 0.0, "ramp window label: window must be finite and > 0");
  char buffer[64];
  if (window_s < 1.0)
    std::snprintf(buffer, sizeof buffer, "%gms", window_s * 1e3);
  else if (window_s < 60.0 || std::fmod(window_s, 60.0) != 0.0)
    std::snprintf(buffer, sizeof buffer, "%gs", window_s);
  else
    std::snprintf(buffer, sizeof buffer, "%gmin", window_s / 60.0);
  std::string text = buffer;
  std::replace(text.begin(), text.end(), '.', 'p');
  return text;
}

RampTracker::RampTracker(double window, double dt) : window_(window), dt_(dt), n_(samples_in(window, dt)) {
  ring_.assign(2 * n_, 0.0);
}

void RampTracker::add(std::size_t c, double x) {
  // The ring holds samples c-2n+1 .. c once full; older half c-2n+1 .. c-n, newer c-n+1 .. c.
  const std::size_t n = n_;
  const std::size_t ring = 2 * n;
  if (c < ring) {
    (c < n ? older_sum_ : newer_sum_) += x;
  } else {
    const double leaving = ring_[c % ring];        // sample c-2n leaves the older half
    const double crossing = ring_[(c - n) % ring];  // sample c-n moves from newer to older
    older_sum_ += static_cast<long double>(crossing) - leaving;
    newer_sum_ += static_cast<long double>(x) - crossing;
  }
  ring_[c % ring] = x;
  if (c + 1 >= ring) {
    // Re-add both halves from the ring every 2n samples so that the running sums cannot drift.
    if (++since_resum_ >= ring) {
      since_resum_ = 0;
      older_sum_ = newer_sum_ = 0.0L;
      for (std::size_t j = 0; j < ring; ++j) {
        const double y = ring_[(c + 1 + j) % ring];  // sample c+1-2n+j
        (j < n ? older_sum_ : newer_sum_) += y;
      }
    }
    const long double change = std::fabs(newer_sum_ - older_sum_) / static_cast<long double>(n);
    max_ = std::max(max_, static_cast<double>(change) / (static_cast<double>(n) * dt_));
  }
}

RampRate RampTracker::result(std::size_t count) const {
  RampRate r;
  r.window = window_;
  r.complete = count >= 2 * n_;
  r.max = max_;
  if (!r.complete && count >= 2) {
    // Shorter than two windows: the same rule as max_ramp_rate, from what the ring holds (all samples).
    const std::vector<double> all(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(count));
    r.max = max_ramp_rate(all, dt_, static_cast<double>(n_) * dt_);
  }
  return r;
}

GridRecorder::GridRecorder(double dt, double spectrum_interval, double ramp_window, double rocof_window)
    : dt_(dt) {
  DCTWIN_DEMAND(std::isfinite(dt) && dt > 0.0, "grid recorder: dt must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(spectrum_interval) && spectrum_interval > 0.0,
                "grid recorder: spectrum interval must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(ramp_window) && ramp_window > 0.0, "grid recorder: ramp window must be finite and > 0");
  DCTWIN_DEMAND(std::isfinite(rocof_window) && rocof_window > 0.0,
                "grid recorder: RoCoF window must be finite and > 0");
  block_length_ = samples_in(spectrum_interval, dt);
  rocof_length_ = samples_in(rocof_window, dt);
  // A window shorter than the sample spacing cannot be resolved: it is left out rather than reported
  // under a name that promises it.
  limit_ramp_ = standard_ramp_windows.size();
  for (const double w : standard_ramp_windows) {
    if (w < dt) continue;
    if (std::fabs(w - ramp_window) <= 1e-9 * w) limit_ramp_ = ramps_.size();
    ramps_.emplace_back(w, dt);
  }
  if (limit_ramp_ == standard_ramp_windows.size()) {
    limit_ramp_ = ramps_.size();
    ramps_.emplace_back(ramp_window, dt);
  }
  rocof_ring_.assign(rocof_length_ + 1, 0.0);
}

void GridRecorder::add(double grid_power_w, double frequency_hz, double voltage_relative) {
  const std::size_t c = count_;  // index of this sample
  if (c == 0) {
    power_min_ = power_max_ = grid_power_w;
    frequency_initial_ = frequency_min_ = frequency_max_ = frequency_hz;
    voltage_initial_ = voltage_relative;
  }
  power_min_ = std::min(power_min_, grid_power_w);
  power_max_ = std::max(power_max_, grid_power_w);
  power_sum_ += grid_power_w;

  block_sum_ += grid_power_w;
  if (++block_fill_ == block_length_) {
    blocks_.push_back(static_cast<double>(block_sum_ / static_cast<long double>(block_length_)));
    block_sum_ = 0.0L;
    block_fill_ = 0;
  }

  for (RampTracker& ramp : ramps_) ramp.add(c, grid_power_w);

  // Frequency and RoCoF over rocof_length_ samples.
  frequency_min_ = std::min(frequency_min_, frequency_hz);
  frequency_max_ = std::max(frequency_max_, frequency_hz);
  const std::size_t r = rocof_length_;
  rocof_ring_[c % (r + 1)] = frequency_hz;
  if (c >= r) {
    const double earlier = rocof_ring_[(c - r) % (r + 1)];
    rocof_max_ = std::max(rocof_max_, std::fabs(frequency_hz - earlier) / (static_cast<double>(r) * dt_));
  }

  voltage_change_max_ = std::max(voltage_change_max_, std::fabs(voltage_relative - voltage_initial_));
  ++count_;
}

void GridRecorder::note_hot_spot(double kelvin) { hot_spot_max_ = std::max(hot_spot_max_, kelvin); }

GridMetrics GridRecorder::metrics() const {
  GridMetrics m;
  m.samples = count_;
  m.transformer_hot_spot_max = hot_spot_max_;
  if (count_ == 0) return m;
  m.power_peak_to_peak = power_max_ - power_min_;
  m.power_mean = static_cast<double>(power_sum_ / static_cast<long double>(count_));
  for (const RampTracker& ramp : ramps_) m.ramp_rates.push_back(ramp.result(count_));
  m.ramp_rate_max = m.ramp_rates[limit_ramp_].max;
  const Spectrum s = power_spectrum(blocks_, spectrum_interval());
  double variance = 0.0;
  for (double e : s.energy) variance += e;
  m.power_standard_deviation = std::sqrt(variance);
  m.band_fraction_0p1_20hz = band_energy_fraction(s, 0.1, 20.0);
  m.band_rms_0p1_20hz = std::sqrt(m.band_fraction_0p1_20hz * variance);
  m.band_fraction_below_1hz = band_energy_fraction(s, 0.0, 1.0);
  m.band_fraction_1_2p5hz = band_energy_fraction(s, 1.0, 2.5);
  m.band_fraction_7_40hz = band_energy_fraction(s, 7.0, 40.0);
  m.frequency_initial = frequency_initial_;
  m.frequency_nadir = frequency_min_;
  m.frequency_zenith = frequency_max_;
  m.frequency_deviation_max = std::max(frequency_max_ - frequency_initial_, frequency_initial_ - frequency_min_);
  m.rocof_max = rocof_max_;
  m.voltage_change_max = voltage_change_max_;
  return m;
}

std::size_t GridRecorder::memory_bytes() const {
  std::size_t bytes = sizeof(*this) + blocks_.capacity() * sizeof(double) + rocof_ring_.capacity() * sizeof(double) +
                      ramps_.capacity() * sizeof(RampTracker);
  for (const RampTracker& ramp : ramps_) bytes += ramp.bytes();
  return bytes;
}

}  // namespace dctwin::models::electrical
