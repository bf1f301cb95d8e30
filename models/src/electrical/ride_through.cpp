#include "dctwin/models/electrical/ride_through.hpp"

#include <cmath>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/parameter_declarations.hpp"

namespace dctwin::models::electrical {

namespace {

const ParameterDeclarations<UtilityEvent>& declarations() {
  static const ParameterDeclarations<UtilityEvent> declared = [] {
    ParameterDeclarations<UtilityEvent> d;
    using P = UtilityEvent;
    d.choice("kind", &P::kind, {"sag", "outage"},
             "sag: the utility voltage drops to 1 - depth of nominal; outage: the utility is lost (the MV bus is "
             "disconnected)",
             "Both directions of a grid disturbance: the facility's ride-through and the load the grid loses");
    d.real("time", &P::time, "s", "When the disturbance begins", "Given with each event").at_least(0.0).required();
    d.real("duration", &P::duration, "s", "How long it lasts", "Given with each event").above(0.0).required();
    d.real("depth", &P::depth, "1", "Sag only: share of the nominal voltage lost (a sag to 70 % has depth 0.3)",
           "Given with each sag")
        .above(0.0)
        .at_most(1.0);
    return d;
  }();
  return declared;
}

}  // namespace

core::ParameterTable UtilityEvent::table() { return declarations().table(); }

UtilityEvent UtilityEvent::from(const core::ParameterTree& s) {
  UtilityEvent e = declarations().read(s);
  const auto depth = s.values.find("depth");
  if (e.kind == "outage" && depth != s.values.end() && !depth->second.from_default && e.depth != 1.0)
    throw core::InputError(s.key_path("depth") + " = " + format_number(e.depth) +
                                 " (an outage loses the whole voltage: depth applies to sags)",
                             s.key_path("depth"));
  if (e.kind == "outage") e.depth = 1.0;
  return e;
}

void check_utility_events(const std::vector<UtilityEvent>& events, const std::string& list_path) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    const UtilityEvent& e = events[i];
    const ParameterCheck check(list_path + "[" + std::to_string(i) + "]");
    declarations().check(e, check.section());
    if (i > 0 && e.time < events[i - 1].end())
      check.fail("begins at " + format_number(e.time) + " s, before the previous event ends (" +
                 format_number(events[i - 1].end()) + " s): events must be in time order and must not overlap");
  }
}

double holdup_time(double capacitance, double voltage_start, double voltage_min, double power) {
  return 0.5 * capacitance * (voltage_start * voltage_start - voltage_min * voltage_min) / power;
}

}  // namespace dctwin::models::electrical
