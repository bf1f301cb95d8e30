#include "dctwin/gui/series_tools.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dctwin/models/electrical/grid_metrics.hpp"

namespace dctwin::gui {

XySeries decimate_min_max(std::span<const double> x, std::span<const double> y, double x_lo, double x_hi,
                          std::size_t buckets, bool log_x) {
  XySeries out;
  const std::size_t n = std::min(x.size(), y.size());
  if (n == 0 || !(x_hi >= x_lo)) return out;
  if (log_x && !(x_lo > 0.0)) throw std::invalid_argument("decimate_min_max: log x range must be positive");
  buckets = std::max<std::size_t>(buckets, 1);
  const auto begin = x.begin(), end = x.begin() + static_cast<std::ptrdiff_t>(n);
  std::size_t first = static_cast<std::size_t>(std::lower_bound(begin, end, x_lo) - begin);
  std::size_t last = static_cast<std::size_t>(std::upper_bound(begin, end, x_hi) - begin);  // one past
  // One sample either side, so that lines reach the edges of the range.
  if (first > 0) --first;
  if (last < n) ++last;
  auto usable = [&](std::size_t i) { return std::isfinite(y[i]) && std::isfinite(x[i]) && (!log_x || x[i] > 0.0); };
  auto push = [&](std::size_t i) {
    out.x.push_back(x[i]);
    out.y.push_back(y[i]);
  };
  if (last - first <= 2 * buckets + 2) {
    for (std::size_t i = first; i < last; ++i) {
      if (usable(i)) push(i);
    }
    return out;
  }
  const double u_lo = log_x ? std::log10(x_lo) : x_lo;
  const double u_hi = log_x ? std::log10(x_hi) : x_hi;
  const double width = u_hi > u_lo ? (u_hi - u_lo) / static_cast<double>(buckets) : 1.0;
  out.x.reserve(2 * buckets + 4);
  out.y.reserve(2 * buckets + 4);
  // Buckets -1 and `buckets` hold the neighbours outside the range.
  long current = -2;
  std::size_t lo_index = 0, hi_index = 0;
  bool filled = false;
  auto flush = [&] {
    if (!filled) return;
    if (lo_index == hi_index) {
      push(lo_index);
    } else {
      push(std::min(lo_index, hi_index));
      push(std::max(lo_index, hi_index));
    }
    filled = false;
  };
  for (std::size_t i = first; i < last; ++i) {
    if (!usable(i)) continue;
    const double u = log_x ? std::log10(x[i]) : x[i];
    long bucket = u < u_lo ? -1 : u > u_hi ? static_cast<long>(buckets) : static_cast<long>(std::floor((u - u_lo) / width));
    if (u <= u_hi) bucket = std::min(bucket, static_cast<long>(buckets) - 1);
    if (bucket != current) {
      flush();
      current = bucket;
      lo_index = hi_index = i;
      filled = true;
      continue;
    }
    if (y[i] < y[lo_index]) lo_index = i;
    if (y[i] > y[hi_index]) hi_index = i;
  }
  flush();
  return out;
}

std::vector<double> ramp_rate_series(std::span<const double> samples, double dt, double window) {
  const std::size_t count = samples.size();
  std::vector<double> rate(count, std::nan(""));
  if (count < 2 || !(dt > 0.0)) return rate;
  const auto n = static_cast<std::size_t>(std::max(1.0, std::round(window / dt)));
  if (2 * n > count) return rate;
  // Prefix sums in long double: a 600,000-sample series of ~1e8 W sums to ~1e14.
  std::vector<long double> prefix(count + 1, 0.0L);
  for (std::size_t i = 0; i < count; ++i) prefix[i + 1] = prefix[i] + static_cast<long double>(samples[i]);
  const long double span = static_cast<long double>(n) * static_cast<long double>(dt);
  const long double length = static_cast<long double>(n);
  for (std::size_t m = n; m + n <= count; ++m) {
    const long double newer = (prefix[m + n] - prefix[m]) / length;
    const long double older = (prefix[m] - prefix[m - n]) / length;
    rate[m] = static_cast<double>((newer - older) / span);
  }
  return rate;
}

double uniform_spacing(std::span<const double> time) {
  if (time.size() < 2) return 0.0;
  std::vector<double> steps(time.size() - 1);
  for (std::size_t i = 0; i + 1 < time.size(); ++i) steps[i] = time[i + 1] - time[i];
  std::vector<double> sorted = steps;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (!(median > 0.0)) return 0.0;
  for (const double step : steps) {
    if (!(std::fabs(step - median) <= 1e-6 * median)) return 0.0;
  }
  return median;
}

double SeriesSpectrum::peak_frequency() const {
  double best = 0.0, peak = 0.0;
  for (std::size_t k = 0; k < energy.size(); ++k) {
    if (energy[k] > best) {
      best = energy[k];
      peak = frequency[k];
    }
  }
  return peak;
}

SeriesSpectrum series_spectrum(std::span<const double> time, std::span<const double> values, const std::string& what,
                               double band_low, double band_high) {
  if (time.size() != values.size()) {
    throw std::invalid_argument(what + ": " + std::to_string(values.size()) + " values but " +
                                std::to_string(time.size()) + " times");
  }
  if (values.size() < 4) throw std::invalid_argument(what + ": too few samples for a spectrum (" + std::to_string(values.size()) + ")");
  const double dt = uniform_spacing(time);
  if (dt <= 0.0) throw std::invalid_argument(what + ": the time axis is not uniformly sampled, no spectrum");
  std::vector<double> filled(values.begin(), values.end());
  double held = std::nan("");
  for (const double v : filled) {
    if (std::isfinite(v)) {
      held = v;
      break;
    }
  }
  if (!std::isfinite(held)) throw std::invalid_argument(what + ": no finite value");
  for (double& v : filled) {
    if (std::isfinite(v)) held = v;
    else v = held;
  }
  const auto spectrum = models::electrical::power_spectrum(filled, dt);
  SeriesSpectrum out;
  out.frequency = spectrum.frequency;
  out.energy = spectrum.energy;
  out.dt = dt;
  out.band_low = band_low;
  out.band_high = band_high;
  out.band_fraction = models::electrical::band_energy_fraction(spectrum, band_low, band_high);
  return out;
}

}  // namespace dctwin::gui
