#include "dctwin/solver/status.hpp"

#include <cstdio>

namespace dctwin::solver {

const char* to_string(StopReason reason) noexcept {
  switch (reason) {
    case StopReason::finished: return "finished";
    case StopReason::event: return "event";
    case StopReason::solver_failure: return "solver failure";
    case StopReason::interrupted: return "interrupted";
  }
  return "unknown";
}

std::string SimulationStatus::describe() const {
  char time_text[64];
  std::snprintf(time_text, sizeof time_text, "%.6g s", time);
  if (reason == StopReason::finished) return std::string("finished at t = ") + time_text;
  std::string text = std::string("ended early at t = ") + time_text + ": " + to_string(reason);
  if (!component.empty()) text += " in " + component;
  if (!message.empty()) text += ": " + message;
  return text;
}

}  // namespace dctwin::solver
