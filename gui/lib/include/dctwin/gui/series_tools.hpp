// Series arithmetic for the charts, without widgets or VTK: decimation of long series for display,
// the ramp-rate series of a power signal, and the power spectrum of a uniformly sampled series.
//
// Decimation (decimate_min_max): the x range [x_lo, x_hi] is cut into `buckets` equal intervals
// (equal in log10 x when `log_x`); each bucket that holds samples contributes its smallest and its
// largest sample, in the order they occur, so a line through the kept points has the envelope of the
// full series: every peak and dip stays visible at any zoom, and a chart draws at most 2 points per
// bucket (with buckets ~ pixels, a 600,000-sample series becomes ~4,000 points). The last sample
// before x_lo and the first after x_hi are kept too, so lines reach the edges of the range.
//
// Ramp rate (ramp_rate_series), the series whose largest magnitude is
// models::electrical::max_ramp_rate: with n = round(window / dt) samples per window (at least 1),
//   r_m = ( mean(x_m .. x_{m+n-1}) - mean(x_{m-n} .. x_{m-1}) ) / (n dt)      n <= m <= N - n
// the change between the means of the two adjacent windows meeting at sample m, per second, shown at
// t_m; NaN where one of the windows would leave the record. A linear ramp of slope s gives s; a step
// of height dP gives a triangle peaking at dP / window.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace dctwin::gui {

struct XySeries {
  std::vector<double> x;
  std::vector<double> y;
};

/// The min/max envelope of (x, y) over [x_lo, x_hi] in `buckets` buckets (see the header). `x` must
/// not decrease; NaN values of y are skipped (a bucket of NaNs contributes nothing). With
/// `log_x`, samples with x <= 0 are dropped and x_lo must be > 0. Series with at most 2 * buckets
/// samples in the range are returned as they are (restricted to the range).
[[nodiscard]] XySeries decimate_min_max(std::span<const double> x, std::span<const double> y, double x_lo,
                                        double x_hi, std::size_t buckets, bool log_x = false);

/// The ramp-rate series r_m (see the header) of `samples` at spacing `dt` [s] over windows of
/// `window` [s], in the samples' unit per second; same length as `samples`, NaN where undefined.
[[nodiscard]] std::vector<double> ramp_rate_series(std::span<const double> samples, double dt, double window);

/// The sampling interval of a time axis when it is uniform: the median spacing, provided every
/// spacing is within 1e-6 relative of it (and of at least 2 samples); 0 otherwise.
[[nodiscard]] double uniform_spacing(std::span<const double> time);

/// The one-sided power spectrum of a series (mean removed), as
/// models::electrical::power_spectrum computes it: energy per bin, summing to the variance.
struct SeriesSpectrum {
  std::vector<double> frequency;  ///< Hz
  std::vector<double> energy;     ///< (unit of the series)^2 per bin
  double dt = 0.0;                ///< sampling interval used [s]
  double band_fraction = 0.0;     ///< share of the variance in [band_low, band_high)
  double band_low = 0.1;          ///< Hz
  double band_high = 20.0;        ///< Hz
  /// Frequency of the bin with the most energy (0 for a constant series).
  [[nodiscard]] double peak_frequency() const;
};
/// Spectrum of `values` sampled at `time` [s]. Throws std::invalid_argument with a message naming
/// `what` when the time axis is not uniform or has fewer than 4 samples. NaN values are replaced
/// by the previous finite value (the first finite value at the start).
[[nodiscard]] SeriesSpectrum series_spectrum(std::span<const double> time, std::span<const double> values,
                                             const std::string& what, double band_low = 0.1,
                                             double band_high = 20.0);

}  // namespace dctwin::gui
