#include "dctwin/models/workload/phase_schedule.hpp"

#include <cmath>

namespace dctwin::models::workload {

using solver::ParameterTable;

ParameterTable TwoPhaseScheduleParameters::table() {
  ParameterTable t;
  auto p = solver::real_parameter("compute_power", "W", "GPU board power during the compute phase",
                                  540.0, "Measured 8xH100 training, 1-s averages: median 533-547 W (FACTS.md)");
  t.push_back(solver::at_least(p, 0.0));
  p = solver::real_parameter("communication_power", "W",
                             "GPU board power during exposed communication", 250.0,
                             "Between compute (~540 W) and checkpoint stalls (~150 W); uncertain (FACTS.md)");
  t.push_back(solver::at_least(p, 0.0));
  p = solver::real_parameter("compute_duration", "s", "Length of the compute phase of a step", 5.0,
                             "Llama 3 405B: 6 x 405e9 x 16M tokens / (16,384 x 400 TFLOP/s) = 5.9 s per step");
  t.push_back(solver::greater_than(p, 0.0));
  p = solver::real_parameter("communication_duration", "s",
                             "Length of the exposed communication phase of a step", 1.0,
                             "Assumed ~15 % of the step exposed");
  t.push_back(solver::greater_than(p, 0.0));
  return t;
}

TwoPhaseScheduleParameters TwoPhaseScheduleParameters::from(const solver::ParameterTree& s) {
  TwoPhaseScheduleParameters p;
  p.compute_power = s.number("compute_power");
  p.communication_power = s.number("communication_power");
  p.compute_duration = s.number("compute_duration");
  p.communication_duration = s.number("communication_duration");
  return p;
}

TwoPhaseSchedule::TwoPhaseSchedule(TwoPhaseScheduleParameters p) : p_(p) {}

namespace {
// Position within the step, robust to rounding just below an edge: an edge time computed as
// k * T_step + T_compute must map to the phase that starts there.
double phase_time(double t, double step) {
  const double k = std::floor(t / step);
  double tau = t - k * step;
  if (tau >= step * (1.0 - 1e-12)) tau = 0.0;
  return tau;
}
}  // namespace

bool TwoPhaseSchedule::computing(double segment_start) const {
  const double tau = phase_time(segment_start, step_duration());
  return tau < p_.compute_duration * (1.0 - 1e-12);
}

double TwoPhaseSchedule::power(double segment_start) const {
  return computing(segment_start) ? p_.compute_power : p_.communication_power;
}

double TwoPhaseSchedule::next_edge(double t) const {
  const double step = step_duration();
  const double k = std::floor(t / step);
  const double candidates[3] = {k * step + p_.compute_duration, (k + 1.0) * step,
                                (k + 1.0) * step + p_.compute_duration};
  for (double c : candidates)
    if (c > t * (1.0 + 1e-15) + 1e-12) return c;
  return (k + 2.0) * step;
}

double TwoPhaseSchedule::energy(double t) const {
  const double step = step_duration();
  const double steps = std::floor(t / step);
  const double tau = t - steps * step;
  const double per_step = p_.compute_power * p_.compute_duration +
                          p_.communication_power * p_.communication_duration;
  const double partial = tau <= p_.compute_duration
                             ? p_.compute_power * tau
                             : p_.compute_power * p_.compute_duration +
                                   p_.communication_power * (tau - p_.compute_duration);
  return steps * per_step + partial;
}

}  // namespace dctwin::models::workload
