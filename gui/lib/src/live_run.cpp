#include "dctwin/gui/live_run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dctwin::gui {

io::RunCallbacks LiveRun::callbacks() {
  io::RunCallbacks callbacks;
  callbacks.layout = [this](const io::ReportLayout& layout) { set_layout(layout); };
  callbacks.sample = [this](double t, std::span<const double> outputs) { add_sample(t, outputs); };
  callbacks.fine_sample = [this](std::size_t group, double t, std::span<const double> values) {
    add_fine_sample(group, t, values);
  };
  return callbacks;
}

void LiveRun::set_layout(const io::ReportLayout& layout) {
  const std::lock_guard lock(mutex_);
  columns_.clear();
  time_.clear();
  fine_time_.assign(layout.fine_series.size(), {});
  for (const auto& output : layout.outputs) {
    const auto& spec = output.spec;
    const std::string path = "/" + spec.group + "/" + spec.name;
    const std::string long_name = spec.long_name.empty() ? spec.name : spec.long_name;
    if (spec.entity.empty() && spec.count == 1) {
      Column column;
      column.info = {path, spec.unit, long_name, false};
      column.first = output.first_value;
      columns_.push_back(std::move(column));
    } else if (spec.entity == "gpu" && spec.count > 0) {
      for (const auto kind : {Column::Kind::max, Column::Kind::mean}) {
        Column column;
        const bool max = kind == Column::Kind::max;
        column.info = {(max ? "max:" : "mean:") + path, spec.unit, long_name + (max ? " (max)" : " (mean)"), false};
        column.first = output.first_value;
        column.count = static_cast<std::size_t>(spec.count);
        column.kind = kind;
        columns_.push_back(std::move(column));
      }
    }
  }
  for (std::size_t g = 0; g < layout.fine_series.size(); ++g) {
    const auto& group = layout.fine_series[g];
    for (std::size_t k = 0; k < group.series.size(); ++k) {
      const auto& spec = group.series[k];
      Column column;
      column.info = {"/" + group.group + "/" + spec.name, spec.unit,
                     spec.long_name.empty() ? spec.name : spec.long_name, true};
      column.kind = Column::Kind::fine;
      column.group = g;
      column.index = k;
      columns_.push_back(std::move(column));
    }
  }
  ++version_;
}

void LiveRun::add_sample(double t, std::span<const double> outputs) {
  const std::lock_guard lock(mutex_);
  time_.push_back(t);
  for (auto& column : columns_) {
    if (column.kind == Column::Kind::fine) continue;
    if (column.first + column.count > outputs.size()) {
      column.values.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    if (column.kind == Column::Kind::scalar) {
      column.values.push_back(outputs[column.first]);
      continue;
    }
    double max = -std::numeric_limits<double>::infinity(), sum = 0.0;
    std::size_t finite = 0;
    for (std::size_t i = column.first; i < column.first + column.count; ++i) {
      if (!std::isfinite(outputs[i])) continue;
      max = std::max(max, outputs[i]);
      sum += outputs[i];
      ++finite;
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    column.values.push_back(finite == 0 ? nan : column.kind == Column::Kind::max ? max : sum / static_cast<double>(finite));
  }
  ++version_;
}

void LiveRun::add_fine_sample(std::size_t group, double t, std::span<const double> values) {
  const std::lock_guard lock(mutex_);
  if (group >= fine_time_.size()) return;
  fine_time_[group].push_back(t);
  for (auto& column : columns_) {
    if (column.kind != Column::Kind::fine || column.group != group) continue;
    column.values.push_back(column.index < values.size() ? values[column.index] : std::numeric_limits<double>::quiet_NaN());
  }
  ++version_;
}

std::vector<LiveRun::Series> LiveRun::series() const {
  const std::lock_guard lock(mutex_);
  std::vector<Series> result;
  for (const auto& column : columns_) result.push_back(column.info);
  return result;
}

LiveRun::Snapshot LiveRun::snapshot(const std::string& id) const {
  const std::lock_guard lock(mutex_);
  Snapshot result;
  for (const auto& column : columns_) {
    if (column.info.id != id) continue;
    result.time = column.kind == Column::Kind::fine ? fine_time_[column.group] : time_;
    result.values = column.values;
    result.values.resize(result.time.size(), std::numeric_limits<double>::quiet_NaN());
    break;
  }
  return result;
}

std::size_t LiveRun::samples() const {
  const std::lock_guard lock(mutex_);
  return time_.size();
}

double LiveRun::last_time() const {
  const std::lock_guard lock(mutex_);
  return time_.empty() ? 0.0 : time_.back();
}

std::uint64_t LiveRun::version() const {
  const std::lock_guard lock(mutex_);
  return version_;
}

}  // namespace dctwin::gui
