#include "dctwin/models/facility/envelope.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/core/report_datasets.hpp"

namespace dctwin::models::facility {

std::size_t EnvelopeMonitor::add(EnvelopeCheck check) {
  DCTWIN_DEMAND(!(check.low > check.high), "envelope check: low edge above high edge");
  checks_.push_back(State{std::move(check)});
  return checks_.size() - 1;
}

void EnvelopeMonitor::observe(std::size_t k, double t, double value) {
  DCTWIN_DEMAND(k < checks_.size(), "envelope check: no such check");
  State& s = checks_[k];
  // How far outside the band (negative inside; the larger of the two edges' distances).
  const double excess = std::max(s.check.low - value, value - s.check.high);
  const bool outside = excess > 0.0 || std::isnan(value);
  if (outside) {
    if (s.first_outside < 0.0) s.first_outside = t;
    if (s.seen) s.time_outside += t - s.last_t;
  }
  if (excess > s.worst_excess || (std::isnan(value) && !std::isnan(s.worst))) {
    s.worst_excess = excess;
    s.worst = value;
  }
  s.seen = true;
  s.last_t = t;
}

void EnvelopeMonitor::not_applicable(std::size_t k, double t) {
  DCTWIN_DEMAND(k < checks_.size(), "envelope check: no such check");
  State& s = checks_[k];
  s.seen = true;
  s.last_t = t;
}

std::size_t EnvelopeMonitor::violated() const {
  return static_cast<std::size_t>(std::count_if(checks_.begin(), checks_.end(), [](const State& s) {
    return s.check.limit && s.first_outside >= 0.0;
  }));
}

std::size_t EnvelopeMonitor::model_ranges_left() const {
  return static_cast<std::size_t>(std::count_if(checks_.begin(), checks_.end(), [](const State& s) {
    return !s.check.limit && s.first_outside >= 0.0;
  }));
}

std::vector<core::SummaryFigure> EnvelopeMonitor::summary() const {
  std::vector<core::SummaryFigure> out;
  for (const State& s : checks_) {
    const std::string prefix = (s.check.limit ? "envelope_" : "model_range_") + s.check.name;
    out.push_back({prefix + "_time", s.time_outside, "s",
                   "time (sampled) with the " + s.check.what + " outside " + s.check.band});
    out.push_back({prefix + "_first", s.first_outside, "s",
                   "first sample with the " + s.check.what + " outside " + s.check.band + " (-1: never)"});
    out.push_back({prefix + "_worst", s.worst, s.check.unit,
                   "sampled " + s.check.what + " furthest outside (or nearest to) " + s.check.band});
  }
  return out;
}

}  // namespace dctwin::models::facility
