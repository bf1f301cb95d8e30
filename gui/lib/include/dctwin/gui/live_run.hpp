// The samples of a run in progress, kept in memory for a live view: the run's thread hands every
// sample it writes to the report (io::RunCallbacks layout, sample, fine_sample) to a LiveRun, and
// the GUI thread takes copies of the series it charts. What is kept: every scalar output (a 1-D
// [time] series of the report), the max and mean over the GPUs of every GPU field (the charts'
// "max:" and "mean:" series), and every series of the fine groups (/grid at 1 ms). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "dctwin/io/report.hpp"
#include "dctwin/io/run.hpp"

namespace dctwin::gui {

class LiveRun {
 public:
  /// A series offered: `id` as the charts name it ("/coolant/return_temperature",
  /// "max:/gpu/junction_temperature", "/grid/power").
  struct Series {
    std::string id;
    std::string units;      ///< SI
    std::string long_name;
    bool fine = false;      ///< on a fine group's time axis
  };
  struct Snapshot {
    std::vector<double> time;    ///< [s]
    std::vector<double> values;  ///< SI
  };

  /// Callbacks for io::run_scenario that fill this object (it must outlive the run).
  [[nodiscard]] io::RunCallbacks callbacks();

  void set_layout(const io::ReportLayout& layout);
  void add_sample(double t, std::span<const double> outputs);
  void add_fine_sample(std::size_t group, double t, std::span<const double> values);

  [[nodiscard]] std::vector<Series> series() const;
  /// A copy of one series so far (empty when unknown).
  [[nodiscard]] Snapshot snapshot(const std::string& id) const;
  /// Samples on the report's time axis so far.
  [[nodiscard]] std::size_t samples() const;
  [[nodiscard]] double last_time() const;  ///< [s], 0 before the first sample
  /// Changes with every sample (and with the layout): the view refreshes when it moved.
  [[nodiscard]] std::uint64_t version() const;

 private:
  struct Column {
    Series info;
    std::size_t first = 0, count = 1;  // values [first, first + count) of a sample
    enum class Kind { scalar, max, mean, fine } kind = Kind::scalar;
    std::size_t group = 0, index = 0;  // fine: group and position in its samples
    std::vector<double> values;
  };
  mutable std::mutex mutex_;
  std::vector<Column> columns_;
  std::vector<double> time_;
  std::vector<std::vector<double>> fine_time_;
  std::uint64_t version_ = 0;
};

}  // namespace dctwin::gui
