// Error metrics of a simulated series against a measured one (see validation.hpp for the formulas
// and ASHRAE Guideline 14's definitions of CV(RMSE) and NMBE).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dctwin/io/validation.hpp"

namespace dctwin::io {

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

void check_sizes(std::span<const double> simulated, std::span<const double> measured) {
  if (simulated.size() != measured.size())
    throw MetricError("simulated and measured series differ in length (" + std::to_string(simulated.size()) +
                      " and " + std::to_string(measured.size()) + " values)");
}

bool valid(double s, double m) { return !std::isnan(s) && !std::isnan(m); }

/// Sums over the valid pairs.
struct Sums {
  std::size_t n = 0;
  double error = 0.0;     ///< sum (s - m)
  double absolute = 0.0;  ///< sum |s - m|
  double square = 0.0;    ///< sum (s - m)^2
  double measured = 0.0;  ///< sum m
  double largest = 0.0;   ///< max |s - m|

  void add(std::span<const double> simulated, std::span<const double> measured_values) {
    check_sizes(simulated, measured_values);
    for (std::size_t i = 0; i < simulated.size(); ++i) {
      const double s = simulated[i], m = measured_values[i];
      if (!valid(s, m)) continue;
      const double e = s - m;
      ++n;
      error += e;
      absolute += std::abs(e);
      square += e * e;
      measured += m;
      largest = std::max(largest, std::abs(e));
    }
  }
};

Sums sums(std::span<const double> simulated, std::span<const double> measured) {
  Sums s;
  s.add(simulated, measured);
  return s;
}

void need_pairs(const Sums& s, const char* metric) {
  if (s.n == 0) throw MetricError(std::string(metric) + " needs at least one valid pair, got none");
}

void need_degrees(const Sums& s, int parameters, const char* metric) {
  if (parameters < 0) throw MetricError(std::string(metric) + ": the number of parameters must be >= 0");
  if (s.n <= static_cast<std::size_t>(parameters))
    throw MetricError(std::string(metric) + " needs more valid pairs (" + std::to_string(s.n) +
                      ") than model parameters (" + std::to_string(parameters) + ")");
  if (s.measured == 0.0) throw MetricError(std::string(metric) + " is undefined: the measured mean is zero");
}

/// Cross-covariance sums of one pair of series at lags -K..K: sum (m_i - mean m)(s_{i+k} - mean s)
/// and the number of pairs, accumulated into `products` and `counts` (index k + K).
void accumulate_correlation(std::span<const double> simulated, std::span<const double> measured, long max_k,
                            std::vector<double>& products, std::vector<double>& counts) {
  check_sizes(simulated, measured);
  double sum_s = 0.0, sum_m = 0.0;
  std::size_t n_s = 0, n_m = 0;
  for (std::size_t i = 0; i < simulated.size(); ++i) {
    if (!std::isnan(simulated[i])) sum_s += simulated[i], ++n_s;
    if (!std::isnan(measured[i])) sum_m += measured[i], ++n_m;
  }
  if (n_s == 0 || n_m == 0) return;
  const double mean_s = sum_s / static_cast<double>(n_s), mean_m = sum_m / static_cast<double>(n_m);
  // A series constant to rounding (spread below 1e-9 of its level) correlates with nothing.
  auto constant = [](std::span<const double> v, double mean) {
    double spread = 0.0;
    for (const double x : v)
      if (!std::isnan(x)) spread = std::max(spread, std::abs(x - mean));
    return spread <= 1e-9 * std::max(std::abs(mean), 1e-300);
  };
  if (constant(simulated, mean_s) || constant(measured, mean_m)) return;
  const auto n = static_cast<long>(simulated.size());
  for (long k = -max_k; k <= max_k; ++k) {
    double product = 0.0, count = 0.0;
    for (long i = std::max(0L, -k); i < n && i + k < n; ++i) {
      const double m = measured[static_cast<std::size_t>(i)], s = simulated[static_cast<std::size_t>(i + k)];
      if (!valid(s, m)) continue;
      product += (m - mean_m) * (s - mean_s);
      count += 1.0;
    }
    products[static_cast<std::size_t>(k + max_k)] += product;
    counts[static_cast<std::size_t>(k + max_k)] += count;
  }
}

/// The lag of the largest mean product; ties go to the smallest |k|, then to k < 0. 0 when every
/// product is zero (a constant series).
double peak_lag(const std::vector<double>& products, const std::vector<double>& counts, long max_k, double interval) {
  long best = 0;
  double best_value = -std::numeric_limits<double>::infinity();
  bool any = false;
  for (long magnitude = 0; magnitude <= max_k; ++magnitude) {
    for (const long k : {-magnitude, magnitude}) {
      const auto j = static_cast<std::size_t>(k + max_k);
      if (counts[j] == 0.0) continue;
      const double value = products[j] / counts[j];
      if (value != 0.0) any = true;
      if (value > best_value) best_value = value, best = k;
      if (magnitude == 0) break;
    }
  }
  return any ? static_cast<double>(best) * interval : 0.0;
}

long lag_steps(double interval, double max_lag, std::size_t n) {
  if (!(interval > 0.0) || !std::isfinite(interval)) throw MetricError("the sampling interval must be > 0");
  if (!(max_lag >= 0.0)) throw MetricError("the largest lag must be >= 0");
  const long k = static_cast<long>(std::floor(max_lag / interval + 1e-9));
  return std::min(k, n > 0 ? static_cast<long>(n) - 1 : 0L);
}

ErrorMetrics from_sums(const Sums& s, double lag, int parameters) {
  ErrorMetrics m;
  m.count = s.n;
  m.lag = lag;
  if (s.n == 0) {
    m.mae = m.rmse = m.bias = m.max_error = m.cv_rmse = m.nmbe = m.measured_mean = not_a_number;
    return m;
  }
  const auto n = static_cast<double>(s.n);
  m.mae = s.absolute / n;
  m.rmse = std::sqrt(s.square / n);
  m.bias = s.error / n;
  m.max_error = s.largest;
  m.measured_mean = s.measured / n;
  const bool defined = parameters >= 0 && s.n > static_cast<std::size_t>(parameters) && s.measured != 0.0;
  const double dof = n - parameters;
  m.cv_rmse = defined ? std::sqrt(s.square / dof) / m.measured_mean : not_a_number;
  m.nmbe = defined ? -s.error / (dof * m.measured_mean) : not_a_number;
  return m;
}

}  // namespace

double mean_absolute_error(std::span<const double> simulated, std::span<const double> measured) {
  const Sums s = sums(simulated, measured);
  need_pairs(s, "MAE");
  return s.absolute / static_cast<double>(s.n);
}

double root_mean_square_error(std::span<const double> simulated, std::span<const double> measured) {
  const Sums s = sums(simulated, measured);
  need_pairs(s, "RMSE");
  return std::sqrt(s.square / static_cast<double>(s.n));
}

double mean_bias_error(std::span<const double> simulated, std::span<const double> measured) {
  const Sums s = sums(simulated, measured);
  need_pairs(s, "bias");
  return s.error / static_cast<double>(s.n);
}

double max_absolute_error(std::span<const double> simulated, std::span<const double> measured) {
  const Sums s = sums(simulated, measured);
  need_pairs(s, "max error");
  return s.largest;
}

double cv_rmse(std::span<const double> simulated, std::span<const double> measured, int parameters) {
  const Sums s = sums(simulated, measured);
  need_degrees(s, parameters, "CV(RMSE)");
  const double mean = s.measured / static_cast<double>(s.n);
  return std::sqrt(s.square / (static_cast<double>(s.n) - parameters)) / mean;
}

double nmbe(std::span<const double> simulated, std::span<const double> measured, int parameters) {
  const Sums s = sums(simulated, measured);
  need_degrees(s, parameters, "NMBE");
  const double mean = s.measured / static_cast<double>(s.n);
  return -s.error / ((static_cast<double>(s.n) - parameters) * mean);
}

double cross_correlation_lag(std::span<const double> simulated, std::span<const double> measured, double interval,
                             double max_lag) {
  check_sizes(simulated, measured);
  const long k = lag_steps(interval, max_lag, simulated.size());
  std::vector<double> products(static_cast<std::size_t>(2 * k + 1), 0.0), counts(products.size(), 0.0);
  accumulate_correlation(simulated, measured, k, products, counts);
  return peak_lag(products, counts, k, interval);
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"mae", "rmse", "bias", "cv_rmse", "nmbe", "max_error", "lag"};
  return names;
}

double metric_value(const ErrorMetrics& m, const std::string& name) {
  if (name == "mae") return m.mae;
  if (name == "rmse") return m.rmse;
  if (name == "bias") return m.bias;
  if (name == "cv_rmse") return m.cv_rmse;
  if (name == "nmbe") return m.nmbe;
  if (name == "max_error") return m.max_error;
  if (name == "lag") return m.lag;
  throw MetricError("unknown metric '" + name + "'");
}

std::string metric_unit(const std::string& name, const std::string& unit) {
  if (name == "cv_rmse" || name == "nmbe") return "1";
  if (name == "lag") return "s";
  return unit;
}

ErrorMetrics compute_metrics(std::span<const double> simulated, std::span<const double> measured, double interval,
                             double max_lag, int parameters) {
  const Sums s = sums(simulated, measured);
  return from_sums(s, cross_correlation_lag(simulated, measured, interval, max_lag), parameters);
}

ErrorMetrics compute_pooled_metrics(const std::vector<std::vector<double>>& simulated,
                                    const std::vector<std::vector<double>>& measured, double interval, double max_lag,
                                    int parameters) {
  if (simulated.size() != measured.size())
    throw MetricError("simulated and measured sets differ in size (" + std::to_string(simulated.size()) + " and " +
                      std::to_string(measured.size()) + " series)");
  Sums s;
  std::size_t longest = 0;
  for (std::size_t g = 0; g < simulated.size(); ++g) {
    s.add(simulated[g], measured[g]);
    longest = std::max(longest, simulated[g].size());
  }
  const long k = lag_steps(interval, max_lag, longest);
  std::vector<double> products(static_cast<std::size_t>(2 * k + 1), 0.0), counts(products.size(), 0.0);
  for (std::size_t g = 0; g < simulated.size(); ++g) accumulate_correlation(simulated[g], measured[g], k, products, counts);
  return from_sums(s, peak_lag(products, counts, k, interval), parameters);
}

}  // namespace dctwin::io
