// A simulated server written as nvidia-smi CSV, the way the driver would have reported it (see
// validation.hpp): power as the mean of the window before each row, temperature and clock at the
// row's time.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "dctwin/core/input_error.hpp"
#include "dctwin/io/output_file.hpp"
#include "dctwin/io/report.hpp"
#include "dctwin/io/validation.hpp"
#include "dctwin/models/facility/single_node.hpp"
#include "dctwin/solver/simulator.hpp"

namespace dctwin::io {

namespace {

/// `2025/07/26 23:32:09.703` (UTC), as nvidia-smi prints its timestamp.
std::string nvidia_smi_time(double seconds) {
  double whole = std::floor(seconds);
  auto millis = static_cast<long>(std::llround((seconds - whole) * 1000.0));
  if (millis == 1000) whole += 1.0, millis = 0;
  const auto t = static_cast<std::time_t>(whole);
  std::tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

/// Per-GPU power, junction temperature and clock at every sample of the run.
class Collector final : public solver::SimulationObserver {
 public:
  Collector(const models::facility::SingleNodeSite& site) : gpus_(site.gpus()) {
    for (const auto& slot : site.system().outputs()) {
      if (slot.spec.group == "gpu" && slot.spec.name == "power") power_ = slot.first_value;
      if (slot.spec.group == "gpu" && slot.spec.name == "sm_clock") clock_ = slot.first_value;
    }
    power.resize(gpus_.count());
    junction.resize(gpus_.count());
    clock.resize(gpus_.count());
  }
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>& outputs) override {
    time.push_back(t);
    for (std::size_t i = 0; i < gpus_.count(); ++i) {
      power[i].push_back(outputs[power_ + i]);
      clock[i].push_back(outputs[clock_ + i]);
      junction[i].push_back(x[static_cast<std::size_t>(gpus_.junction_index(i))]);
    }
  }
  std::vector<double> time;
  std::vector<std::vector<double>> power, junction, clock;

 private:
  const models::thermal::GpuPackageArray& gpus_;
  std::size_t power_ = 0, clock_ = 0;
};

}  // namespace

void export_nvidia_smi_csv(const ScenarioDocument& scenario, const std::filesystem::path& file,
                           const NvidiaSmiExportOptions& options) {
  if (scenario.tree.text("site") != "single-node")
    throw core::InputError("the exporter simulates a single-node site (site: single-node), not '" +
                             scenario.tree.text("site") + "'");
  if (!(options.interval > 0.0) || !(options.averaging_window > 0.0) || !(options.step > 0.0))
    throw core::InputError("the export interval, averaging window and step must be > 0");
  // The output is checked and created before the simulation, not after it.
  OutputFile out(file, "", {{scenario.file, "scenario"}});
  models::facility::SingleNodeSite site(scenario.tree);
  auto settings = site.settings();
  settings.output_interval = options.step;
  Collector collected(site);
  solver::Simulator simulator(site.system(), settings);
  const auto status = simulator.run(site.initial_state(), collected);
  if (status.reason != solver::StopReason::finished)
    throw solver::SolverError("export_nvidia_smi_csv", "the run stopped early: " + status.describe());

  // Running integral of each GPU's power by the left-endpoint rule: the power sampled at the
  // start of each step holds over it (outputs are right-continuous at forcing edges, so this is
  // exact for piecewise-constant power whose edges fall on the sampling grid).
  const auto& t = collected.time;
  const std::size_t n = t.size(), gpus = collected.power.size();
  std::vector<std::vector<double>> integral(gpus, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < gpus; ++i)
    for (std::size_t j = 1; j < n; ++j)
      integral[i][j] = integral[i][j - 1] + collected.power[i][j - 1] * (t[j] - t[j - 1]);
  auto integral_at = [&](std::size_t i, double at) {
    if (at <= t.front()) return 0.0;
    if (at >= t.back()) return integral[i].back();
    const auto j = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), at) - t.begin()) - 1;
    return integral[i][j] + collected.power[i][j] * (at - t[j]);
  };
  auto interpolate = [&](const std::vector<double>& v, double at) {
    if (at <= t.front()) return v.front();
    if (at >= t.back()) return v.back();
    const auto j = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), at) - t.begin());
    const double w = (at - t[j - 1]) / (t[j] - t[j - 1]);
    return v[j - 1] + w * (v[j] - v[j - 1]);
  };
  // The value in effect just before `at` (a clock set at `at` is not yet reported).
  auto before = [&](const std::vector<double>& v, double at) {
    const auto j = static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), at) - t.begin());
    return v[j == 0 ? 0 : j - 1];
  };

  std::string text = "timestamp, index, power.draw [W], temperature.gpu, clocks.sm [MHz]\n";
  const double first = settings.start_time + options.averaging_window;
  for (long k = 0;; ++k) {
    const double at = first + static_cast<double>(k) * options.interval;
    if (at > settings.end_time + 1e-9 * options.interval) break;
    const std::string stamp = nvidia_smi_time(options.epoch + at);
    for (std::size_t i = 0; i < gpus; ++i) {
      const double mean = (integral_at(i, at) - integral_at(i, at - options.averaging_window)) / options.averaging_window;
      const double celsius = interpolate(collected.junction[i], at) - 273.15;
      const double megahertz = before(collected.clock[i], at) / 1e6;
      text += fmt::format("{}, {}, {:.2f} W, {:.{}f}, {:.0f} MHz\n", stamp, i, mean, celsius,
                          options.temperature_decimals, megahertz);
    }
    if (text.size() > (1U << 20)) {
      out.write(text);
      text.clear();
    }
  }
  out.write(text);
  out.commit();
}

}  // namespace dctwin::io
