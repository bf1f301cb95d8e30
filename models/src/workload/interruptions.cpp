#include "dctwin/models/workload/interruptions.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/random.hpp"

namespace dctwin::models::workload {

namespace {

// Salt for the interruption draws ("interrup" in ASCII), so that the same scenario seed gives
// interruption draws unrelated to the per-GPU spread draws of the facility layout.
constexpr std::uint64_t interruption_salt = 0x696e746572727570ull;

// Llama 3 (arXiv 2407.21783, sec. 3.3.4): 47 planned interruptions in the same 54-day snapshot.
constexpr double planned_interruptions = 47.0;

}  // namespace

std::vector<InterruptionClass> llama3_unexpected_interruptions() {
  // Llama 3 (arXiv 2407.21783), Table 5: root causes of the unexpected interruptions of 405B
  // pre-training in a 54-day snapshot. The counts add up to 419. The paper's own categories are
  // GPU, Dependency, Network, Unplanned Maintenance, Host and Unknown; here the GPU ones stay
  // "gpu", the Host components become "hardware", the Dependency ones "software".
  return {
      {"faulty_gpu", "gpu", 148.0},
      {"gpu_hbm3_memory", "gpu", 72.0},
      {"software_bug", "software", 54.0},
      {"network_switch_cable", "network", 35.0},
      {"host_maintenance", "host", 32.0},
      {"gpu_sram_memory", "gpu", 19.0},
      {"gpu_system_processor", "gpu", 17.0},
      {"nic", "hardware", 7.0},
      {"nccl_watchdog_timeout", "unknown", 7.0},
      {"silent_data_corruption", "gpu", 6.0},
      {"gpu_thermal_interface_sensor", "gpu", 6.0},
      {"ssd", "hardware", 3.0},
      {"power_supply", "hardware", 3.0},
      {"server_chassis", "hardware", 2.0},
      {"io_expansion_board", "hardware", 2.0},
      {"dependency", "software", 2.0},
      {"cpu", "hardware", 2.0},
      {"system_memory", "hardware", 2.0},
  };
}

core::ParameterTable InterruptionParameters::table() {
  using namespace core;
  const InterruptionParameters d;
  const std::string llama3 = "Llama 3 (arXiv 2407.21783, sec. 3.3.4 and Table 5)";
  ParameterTable t;
  auto p = boolean_parameter("enabled", "Draw job interruptions (off: the job never fails)", d.enabled);
  t.push_back(p);
  p = real_parameter("rate_scale", "1", "s: multiplies every class rate (1 = the rates of the reference snapshot)",
                     d.rate_scale, llama3 + ": 419 unexpected interruptions in 54 days on 16,384 GPUs");
  t.push_back(at_least(p, 0.0));
  p = boolean_parameter("include_planned", "Also draw the planned interruptions of the snapshot as one class",
                        d.include_planned);
  p.source = llama3 + ": 47 planned interruptions in the same snapshot";
  t.push_back(p);
  p = integer_parameter("reference_gpus", "GPUs in the job of the reference snapshot (rates scale with G / this)",
                        d.reference_gpus, llama3 + ": 405B pre-training on 16,384 H100 GPUs");
  t.push_back(at_least(p, 1.0));
  p = real_parameter("reference_period", "s", "Length of the reference snapshot the counts were taken over",
                     d.reference_period, llama3 + ": 54-day snapshot");
  p.display_unit = "d";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("detection_time", "s", "From a fault to the job noticing it and stopping (GPUs idle)",
                     d.detection_time,
                     "Estimate (uncertain): collective-communication watchdog and health-check timeouts of minutes");
  t.push_back(at_least(p, 0.0));
  p = real_parameter("restart_time", "s", "From the stop to the relaunched job starting to reload (GPUs idle)",
                     d.restart_time, "Estimate (uncertain): swap or exclude the faulty node and relaunch the job");
  t.push_back(at_least(p, 0.0));
  // udunits2 knows the byte only by name (byte = 8 bit, dimensionless), not as the symbol B.
  p = real_parameter("read_bandwidth", "byte/s", "Aggregate read bandwidth for reloading a checkpoint after a restart",
                     d.read_bandwidth,
                     "Llama 3 (arXiv 2407.21783, sec. 3.3.1): Tectonic, 7 TB/s peak throughput (2 TB/s sustained)");
  p.display_unit = "terabyte/s";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("crash_time", "s",
                     "A job crash injected at this time, drawn interruptions or not (category software); 0 = none",
                     d.crash_time, "What-if input: no injected crash by default");
  t.push_back(at_least(p, 0.0));
  return t;
}

InterruptionParameters InterruptionParameters::from(const core::ParameterTree& s) {
  InterruptionParameters p;
  p.enabled = s.boolean("enabled");
  p.rate_scale = s.number("rate_scale");
  p.include_planned = s.boolean("include_planned");
  p.reference_gpus = static_cast<double>(s.integer("reference_gpus"));
  p.reference_period = s.number("reference_period");
  p.detection_time = s.number("detection_time");
  p.restart_time = s.number("restart_time");
  p.read_bandwidth = s.number("read_bandwidth");
  p.crash_time = s.number("crash_time");
  return p;
}

std::vector<InterruptionClass> interruption_classes(const InterruptionParameters& p) {
  std::vector<InterruptionClass> classes = llama3_unexpected_interruptions();
  if (p.include_planned) classes.push_back({"planned_maintenance", "planned", planned_interruptions});
  return classes;
}

std::vector<double> interruption_rates(const InterruptionParameters& p, const std::vector<InterruptionClass>& classes,
                                       std::size_t gpus) {
  std::vector<double> rates(classes.size(), 0.0);
  if (!p.enabled) return rates;
  DCTWIN_DEMAND(p.reference_gpus >= 1.0 && p.reference_period > 0.0 && p.rate_scale >= 0.0,
                "interruption parameters out of range");
  const double per_count = p.rate_scale / p.reference_period * (static_cast<double>(gpus) / p.reference_gpus);
  for (std::size_t k = 0; k < classes.size(); ++k) rates[k] = classes[k].count * per_count;
  return rates;
}

std::vector<Interruption> draw_interruptions(const std::vector<double>& rates, std::size_t gpus, double horizon,
                                             std::uint64_t seed) {
  DCTWIN_DEMAND(std::isfinite(horizon) && horizon >= 0.0, "interruption horizon must be finite and >= 0");
  // Cumulative rates: class k covers [cumulative[k-1], cumulative[k]) of [0, total).
  std::vector<double> cumulative(rates.size());
  double total = 0.0;
  for (std::size_t k = 0; k < rates.size(); ++k) {
    DCTWIN_DEMAND(std::isfinite(rates[k]) && rates[k] >= 0.0, "interruption rates must be finite and >= 0");
    total += rates[k];
    cumulative[k] = total;
  }
  std::vector<Interruption> drawn;
  if (!(total > 0.0) || horizon <= 0.0 || gpus == 0) return drawn;

  // Last class with a positive rate: the answer when rounding puts the draw at the very top.
  std::size_t last = rates.size() - 1;
  while (rates[last] <= 0.0) --last;

  SplitMix64 rng(seed ^ interruption_salt);
  double t = 0.0;
  for (;;) {
    const double next = t + rng.exponential(total);
    if (!(next < horizon)) break;
    // A gap too small to move t (a large t and a tiny draw) still gives a later time.
    t = next > t ? next : std::nextafter(t, horizon);
    const double u = rng.uniform() * total;
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
    const std::size_t cause = it == cumulative.end() ? last : static_cast<std::size_t>(it - cumulative.begin());
    const auto gpu = static_cast<std::size_t>(rng.below(gpus));
    drawn.push_back({t, cause, gpu});
  }
  return drawn;
}

double reload_time(const InterruptionParameters& p, double checkpoint_bytes) {
  DCTWIN_DEMAND(p.read_bandwidth > 0.0 && checkpoint_bytes >= 0.0, "reload needs a positive bandwidth");
  return checkpoint_bytes / p.read_bandwidth;
}

double interruption_downtime(const InterruptionParameters& p, double checkpoint_bytes) {
  return p.detection_time + p.restart_time + reload_time(p, checkpoint_bytes);
}

double expected_effective_training_fraction(double total_rate, double downtime, double checkpoint_period) {
  DCTWIN_DEMAND(total_rate >= 0.0 && downtime >= 0.0 && checkpoint_period > 0.0,
                "effective training time needs rate >= 0, downtime >= 0, checkpoint period > 0");
  const double x = total_rate * checkpoint_period;
  if (x == 0.0) return 1.0 / (1.0 + total_rate * downtime);
  // Renewal argument: a segment of tau useful seconds takes (1/lambda + D)(e^{lambda tau} - 1)
  // seconds of wall-clock time on average when every fault restarts it from its beginning.
  return x / ((1.0 + total_rate * downtime) * std::expm1(x));
}

}  // namespace dctwin::models::workload
