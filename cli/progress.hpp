// Progress of a run on stderr: a redrawn bar on a terminal, plain parseable lines otherwise.
#pragma once

#include <chrono>
#include <cstdio>

namespace dctwin::cli {

class ProgressReporter {
 public:
  ProgressReporter(double start_time, double end_time, bool enabled);
  /// Called often; draws at most every 0.1 s on a terminal, every 5 s (or 10 %) otherwise.
  void update(double t);
  /// Final line (erases the bar on a terminal).
  void finish(double t);

 private:
  void draw(double t, bool final_line);
  double start_, end_;
  bool enabled_, terminal_;
  std::chrono::steady_clock::time_point wall_start_, last_draw_;
  double last_fraction_ = -1.0;
};

}  // namespace dctwin::cli
