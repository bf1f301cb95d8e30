#include "dctwin/models/electrical/ride_through.hpp"

#include <cmath>

#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::electrical {

solver::ParameterTable UtilityEvent::table() {
  using namespace solver;
  ParameterTable t;
  auto c = choice_parameter("kind", {"sag", "outage"},
                            "sag: the utility voltage drops to 1 - depth of nominal; outage: the utility is lost "
                            "(the MV bus is disconnected)",
                            std::string("outage"));
  c.source = "Both directions of a grid disturbance: the facility's ride-through and the load the grid loses";
  t.push_back(c);
  auto p = real_parameter("time", "s", "When the disturbance begins", std::nullopt, "Given with each event");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("duration", "s", "How long it lasts", std::nullopt, "Given with each event");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("depth", "1", "Sag only: share of the nominal voltage lost (a sag to 70 % has depth 0.3)", 1.0,
                     "Given with each sag");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

UtilityEvent UtilityEvent::from(const solver::ParameterTree& s) {
  UtilityEvent e;
  e.kind = s.text("kind");
  e.time = s.number("time");
  e.duration = s.number("duration");
  e.depth = s.number("depth");
  const auto depth = s.values.find("depth");
  if (e.kind == "outage" && depth != s.values.end() && !depth->second.from_default && e.depth != 1.0)
    throw solver::InputError(s.key_path("depth") + " = " + format_number(e.depth) +
                                 " (an outage loses the whole voltage: depth applies to sags)",
                             s.key_path("depth"));
  if (e.kind == "outage") e.depth = 1.0;
  return e;
}

void check_utility_events(const std::vector<UtilityEvent>& events, const std::string& list_path) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    const UtilityEvent& e = events[i];
    const ParameterCheck check(list_path + "[" + std::to_string(i) + "]");
    if (e.kind != "sag" && e.kind != "outage")
      throw solver::InputError(check.path("kind") + " = " + e.kind + " (must be sag or outage)", check.path("kind"));
    check.at_least("time", e.time, 0.0, "s");
    check.greater_than("duration", e.duration, 0.0, "s");
    if (!std::isfinite(e.time) || !std::isfinite(e.duration))
      check.fail("time and duration must be finite numbers");
    check.in_half_open_range("depth", e.depth, 0.0, 1.0, "");
    if (i > 0 && e.time < events[i - 1].end())
      check.fail("begins at " + format_number(e.time) + " s, before the previous event ends (" +
                 format_number(events[i - 1].end()) + " s): events must be in time order and must not overlap");
  }
}

double holdup_time(double capacitance, double voltage_start, double voltage_min, double power) {
  return 0.5 * capacitance * (voltage_start * voltage_start - voltage_min * voltage_min) / power;
}

}  // namespace dctwin::models::electrical
