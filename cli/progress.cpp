#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <string>

namespace dctwin::cli {

namespace {
std::string format_time(double seconds) {
  char text[32];
  if (seconds < 120.0) std::snprintf(text, sizeof text, "%.1f s", seconds);
  else if (seconds < 7200.0) std::snprintf(text, sizeof text, "%.1f min", seconds / 60.0);
  else std::snprintf(text, sizeof text, "%.2f h", seconds / 3600.0);
  return text;
}
}  // namespace

ProgressReporter::ProgressReporter(double start_time, double end_time, bool enabled)
    : start_(start_time),
      end_(end_time),
      enabled_(enabled),
      terminal_(isatty(STDERR_FILENO) != 0),
      wall_start_(std::chrono::steady_clock::now()),
      last_draw_(wall_start_) {}

void ProgressReporter::update(double t) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_draw_).count();
  const double fraction = (t - start_) / (end_ - start_);
  if (terminal_ ? since < 0.1 : (since < 5.0 && fraction - last_fraction_ < 0.1)) return;
  last_draw_ = now;
  last_fraction_ = fraction;
  draw(t, false);
}

void ProgressReporter::finish(double t) {
  if (!enabled_) return;
  draw(t, true);
}

void ProgressReporter::draw(double t, bool final_line) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  const double fraction = std::clamp((t - start_) / (end_ - start_), 0.0, 1.0);
  const double speed = wall > 0.0 ? (t - start_) / wall : 0.0;
  const double eta = speed > 0.0 ? (end_ - t) / speed : 0.0;
  if (terminal_) {
    constexpr int width = 30;
    const int filled = static_cast<int>(fraction * width);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(width - filled), '.');
    std::fprintf(stderr, "\r[%s] %5.1f%%  t = %s of %s  %.3gx real time  ETA %s   ", bar.c_str(),
                 100.0 * fraction, format_time(t - start_).c_str(), format_time(end_ - start_).c_str(), speed,
                 format_time(eta).c_str());
    if (final_line) std::fputc('\n', stderr);
  } else {
    std::fprintf(stderr, "progress: %.1f%% t=%.6g s of %.6g s, wall %.3g s, speed %.3gx\n", 100.0 * fraction,
                 t - start_, end_ - start_, wall, speed);
  }
  std::fflush(stderr);
}

}  // namespace dctwin::cli
