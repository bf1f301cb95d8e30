// Operating envelopes watched over a run: each condition that lies outside what a standard, a
// datasheet or a model's own correlation covers is counted with its time, instead of being
// clamped or ignored in silence.
//
// A check holds a band [low, high] for one sampled quantity. At every sample t_k the value v_k is
// compared with the band; the time outside is summed over the sample intervals that end at a
// sample outside (backward rectangles: sum of (t_k - t_{k-1}) over samples k outside), so it is a
// sampled estimate with the report's resolution. The first sample outside and the value furthest
// outside are kept.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/report_datasets.hpp"

namespace dctwin::models::facility {

struct EnvelopeCheck {
  std::string name;       ///< e.g. cold_aisle_ashrae_a1; summary figures envelope_<name>_*
  std::string what;       ///< what is compared, e.g. "hottest cold-aisle (server inlet) air temperature"
  std::string band;       ///< the band and its source, e.g. "ASHRAE A1 allowable 15-32 degC"
  std::string unit;       ///< SI unit of the value
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  /// true: a limit (a standard, a datasheet, a correlation used as it is outside its data); a
  /// check left counts in limit_violations, its figures are envelope_<name>_*. false: the range
  /// of a model's data, outside which the model is evaluated at the edge in a way that understates
  /// it (a conservative clamp); its figures are model_range_<name>_* and it counts in
  /// model_range_clamps only.
  bool limit = true;
};

class EnvelopeMonitor {
 public:
  /// Adds a check; returns its number for observe().
  std::size_t add(EnvelopeCheck check);
  /// The value of check `k` at sample time t (samples in time order, the same t for every check).
  void observe(std::size_t k, double t, double value);
  /// A sample at t where check `k` does not apply (a chiller that is off): the interval ending at
  /// t counts as inside.
  void not_applicable(std::size_t k, double t);
  /// Limit checks (EnvelopeCheck::limit) that were outside their band at one sample or more.
  [[nodiscard]] std::size_t violated() const;
  /// Model-range checks (not limits) that were outside their band at one sample or more.
  [[nodiscard]] std::size_t model_ranges_left() const;
  /// Per check: <prefix>_<name>_time [s], <prefix>_<name>_first [s] (-1: never), and
  /// <prefix>_<name>_worst [unit] (the sampled value furthest outside; the value nearest to the
  /// band's violated edge when never outside: the lowest for a ceiling, the highest for a floor;
  /// NaN when the check never applied), the prefix envelope for limits, model_range for the others.
  [[nodiscard]] std::vector<core::SummaryFigure> summary() const;
  [[nodiscard]] std::size_t size() const { return checks_.size(); }
  [[nodiscard]] const EnvelopeCheck& check(std::size_t k) const { return checks_.at(k).check; }

 private:
  struct State {
    EnvelopeCheck check;
    bool seen = false;
    double last_t = 0.0;
    double time_outside = 0.0;
    double first_outside = -1.0;
    double worst = std::numeric_limits<double>::quiet_NaN();  // furthest outside (or the nearest inside)
    double worst_excess = -std::numeric_limits<double>::infinity();  // how far outside [unit]
  };
  std::vector<State> checks_;
};

}  // namespace dctwin::models::facility
