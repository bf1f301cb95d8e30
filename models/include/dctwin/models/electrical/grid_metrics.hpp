// What the utility sees at the grid connection: power swings, ramps, spectral content, frequency and
// voltage excursions, and the limits a grid operator may set on them.
//
// Spectrum (power_spectrum): for N samples x_m at spacing dt, mean removed, X_k = sum_m x_m
// e^{-2 pi i k m / N} (FFTW r2c). Parseval: (1/N) sum_m (x_m - mean)^2 = (1/N^2) sum_k |X_k|^2, so the
// one-sided bin energies
//   e_0 = 0,  e_k = 2 |X_k|^2 / N^2  (0 < k < N/2),  e_{N/2} = |X_{N/2}|^2 / N^2  (N even)
// at f_k = k / (N dt) sum exactly to the (population) variance of the samples [W^2].
// band_energy_fraction(s, a, b) = sum_{a <= f_k < b} e_k / sum_k e_k.
//
// Ramp rate (max_ramp_rate): the window w is rounded to n = round(w / dt) samples (at least 1);
//   ramp = max over m of | mean(x_m .. x_{m+n-1}) - mean(x_{m-n} .. x_{m-1}) | / (n dt)
// the largest change between the means of two adjacent windows, per second. A linear ramp of slope s
// gives s; a step of height dP gives dP / w. Window means are used (not single samples) because
// utilities state ramp limits as the change of metered (averaged) power per second or per minute
// ([grid-code-ramp-limits]: grid codes give +-100 kW/s, +-1 MW/s, +-10 %/min), so a 1 ms spike should not count as a
// ramp of MW/ms.
//
// The ramp rate depends on its window: a 10 MW step (a synchronous stall's edge, a few ms long) is
// 1,000 MW/s over 10 ms windows, 100 MW/s over 100 ms, 10 MW/s over 1 s and 0.17 MW/s over 1 min
// (dP / w). So every run reports it
// over stated windows (standard_ramp_windows), each figure named with its window. The utility's limit
// (GridLimits::ramp_rate_max) is checked over its own window, GridLimits::ramp_window: a limit stated
// in MW/s is read over 1 s (the default), one stated per minute (+-10 %/min) over 60 s.
//
// RoCoF: |f(t) - f(t - w_r)| / w_r over a sliding window w_r = 0.5 s by default, the window the
// ENTSO-E RoCoF withstand-capability guidance (2018) measures over.
// Voltage change: max |V - V_0| with V relative to nominal and V_0 the first sample.
#pragma once

#include "dctwin/core/parameters.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace dctwin::models::electrical {

/// The `electrical.limits:` section; a limit of 0 means "not checked".
struct GridLimits {
  double power_peak_to_peak_max = 0.0;     ///< W
  double ramp_rate_max = 1.0e6;            ///< W/s (example: Hawaii's +-1 MW/s, [grid-code-ramp-limits])
  double ramp_window = 1.0;                ///< s, the averaging window of the ramp rate
  double band_energy_fraction_max = 0.2;   ///< share of the swing energy in 0.1-20 Hz ([choukse-arxiv-2025])
  double frequency_deviation_max = 0.05;   ///< Hz from the initial (nominal) frequency
  double rocof_max = 0.0;                  ///< Hz/s
  double voltage_change_max = 0.03;        ///< 1, relative to nominal
  double transformer_hot_spot_max = 383.15;  ///< K (110 degC)

  static core::ParameterTable table();
  static GridLimits from(const core::ParameterTree& section);
  void check(const std::string& section) const;
};

/// The windows every run reports the ramp rate over [s]: 10 ms resolves the edges of a synchronous
/// stall in a 1-ms record, 100 ms is what fast storage and a converter's control see, 1 s reads a
/// grid-code limit in MW/s, 1 min one stated per minute (%/min).
inline constexpr std::array<double, 4> standard_ramp_windows = {0.01, 0.1, 1.0, 60.0};

/// Largest ramp rate over one window length.
struct RampRate {
  double window = 0.0;    ///< s, the window asked for
  double max = 0.0;       ///< W/s, as max_ramp_rate
  bool complete = false;  ///< the record holds at least two windows (else max uses half the record)
};

/// The figure's name suffix for a window: 10ms, 100ms, 1s, 1min, 2p5s (a '.' becomes 'p').
std::string ramp_window_label(double window_s);

struct GridMetrics {
  double power_peak_to_peak = 0.0;         ///< W, max - min of the grid power samples
  double ramp_rate_max = 0.0;              ///< W/s over the limit's window GridLimits::ramp_window
  std::vector<RampRate> ramp_rates;        ///< the standard windows >= dt, then the limit's if not among them
  double band_fraction_0p1_20hz = 0.0;     ///< 1, share of the variance in [0.1, 20) Hz
  double band_fraction_below_1hz = 0.0;    ///< 1, (0, 1) Hz
  double band_fraction_1_2p5hz = 0.0;      ///< 1, [1, 2.5) Hz
  double band_fraction_7_40hz = 0.0;       ///< 1, [7, 40) Hz
  double frequency_nadir = 0.0;            ///< Hz, lowest frequency sample
  double frequency_zenith = 0.0;           ///< Hz, highest frequency sample
  double rocof_max = 0.0;                  ///< Hz/s
  double voltage_change_max = 0.0;         ///< 1
  double transformer_hot_spot_max = 0.0;   ///< K, highest noted; 0 when none was noted
  double frequency_initial = 0.0;          ///< Hz, first frequency sample
  double frequency_deviation_max = 0.0;    ///< Hz, max |f - frequency_initial|
  double power_mean = 0.0;                 ///< W, mean grid power
  double power_standard_deviation = 0.0;   ///< W, of the block-averaged series the spectrum uses
  double band_rms_0p1_20hz = 0.0;          ///< W, sqrt of the variance in [0.1, 20) Hz (the swing the share is of)
  std::size_t samples = 0;                 ///< samples added
};

/// Streams the largest ramp rate over one window: a ring of the last 2n samples with the sums of both
/// halves, re-added every 2n samples so that they cannot drift.
class RampTracker {
 public:
  RampTracker(double window, double dt);
  /// Sample number c (0, 1, ...) of the record.
  void add(std::size_t c, double x);
  /// The largest ramp rate so far; for a record shorter than two windows, max_ramp_rate's rule.
  [[nodiscard]] RampRate result(std::size_t count) const;
  [[nodiscard]] double window() const { return window_; }
  [[nodiscard]] std::size_t bytes() const { return ring_.capacity() * sizeof(double); }

 private:
  double window_;
  double dt_;
  std::size_t n_;  // samples per window
  std::vector<double> ring_;
  long double older_sum_ = 0.0L, newer_sum_ = 0.0L;
  std::size_t since_resum_ = 0;
  double max_ = 0.0;
};

/// Streams the grid-connection signals at the fixed step dt and keeps what the metrics need.
/// Memory: the block-averaged power (8 bytes per spectrum_interval: 5.76 MB per simulated hour at
/// 5 ms) plus fixed ring buffers of 2 w / dt samples per ramp window w (0.96 MB for 1 min at 1 ms)
/// and rocof_window / dt samples. The spectrum
/// sees the block means, i.e. the power through a moving-average filter of length spectrum_interval
/// (|sinc| response: 0.99 in amplitude at 10 Hz, 0.94 at 40 Hz for 5 ms); a trailing partial block
/// is left out of the spectrum. Everything else uses the dt samples.
class GridRecorder {
 public:
  GridRecorder(double dt, double spectrum_interval, double ramp_window, double rocof_window = 0.5);
  /// One sample per dt: grid power [W], frequency [Hz], voltage [1, relative to nominal].
  void add(double grid_power_w, double frequency_hz, double voltage_relative);
  void note_hot_spot(double kelvin);
  /// Computes the spectrum on demand.
  [[nodiscard]] GridMetrics metrics() const;
  /// The block-averaged power series the spectrum uses [W] at spacing spectrum_interval().
  [[nodiscard]] const std::vector<double>& block_power() const { return blocks_; }
  [[nodiscard]] double spectrum_interval() const { return static_cast<double>(block_length_) * dt_; }
  /// Bytes held now (grows by 8 per spectrum interval).
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  double dt_;
  std::size_t block_length_;   // samples per block
  std::size_t rocof_length_;   // samples per RoCoF window
  std::size_t count_ = 0;
  // power
  double power_min_ = 0.0, power_max_ = 0.0;
  long double power_sum_ = 0.0L;
  long double block_sum_ = 0.0L;
  std::size_t block_fill_ = 0;
  std::vector<double> blocks_;
  // ramp rates: the standard windows >= dt, then the limit's window if it is not one of them
  std::vector<RampTracker> ramps_;
  std::size_t limit_ramp_;  // index of the limit's window in ramps_
  // frequency
  std::vector<double> rocof_ring_;
  double frequency_initial_ = 0.0, frequency_min_ = 0.0, frequency_max_ = 0.0, rocof_max_ = 0.0;
  // voltage
  double voltage_initial_ = 0.0, voltage_change_max_ = 0.0;
  double hot_spot_max_ = 0.0;
};

struct LimitCheck {
  std::string name;  ///< power_peak_to_peak, ramp_rate, band_energy_fraction, frequency_deviation, rocof, voltage_change, transformer_hot_spot
  double value = 0.0;
  double limit = 0.0;
  std::string unit;
  bool passed = true;  ///< value <= limit
};

/// One entry per checked limit (limit > 0), in the order of GridLimits' members.
std::vector<LimitCheck> check_limits(const GridLimits& limits, const GridMetrics& metrics);

/// One-sided spectrum (mean removed); see the header comment.
struct Spectrum {
  std::vector<double> frequency;  ///< Hz, k / (N dt)
  std::vector<double> energy;     ///< W^2 per bin: sum over bins = variance
};
Spectrum power_spectrum(const std::vector<double>& samples, double dt);
/// Share of the variance in [f_low, f_high); 0 for a constant signal.
double band_energy_fraction(const Spectrum& s, double f_low, double f_high);
/// max - min; 0 for no samples.
double peak_to_peak(const std::vector<double>& samples);
/// Largest |difference of the means over two adjacent windows| / (n dt) [W/s] with n = round(window / dt)
/// samples per window (at least 1; half the record if the record is shorter than two windows); 0 for
/// fewer than 2 samples.
double max_ramp_rate(const std::vector<double>& samples, double dt, double window);

}  // namespace dctwin::models::electrical
