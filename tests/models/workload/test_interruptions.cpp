// Job interruptions (workload/interruptions.hpp): the Llama 3 root-cause table, the class rates and
// their scaling, the statistics of the drawn Poisson process over a long run (total count, class
// mix, exponential gaps, uniform GPUs), determinism, the restart cost model and the parameter table.
//
// Critical values of the chi-square distribution at p = 0.001 (upper tail), from the NIST/SEMATECH
// e-Handbook of Statistical Methods, sec. 1.4.2.7.6 "Critical values of the chi-square distribution":
//   9 degrees of freedom: 27.877    15: 37.697    17: 40.790    18: 42.312
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/models/random.hpp"
#include "dctwin/models/workload/interruptions.hpp"

using namespace dctwin::models::workload;
using dctwin::core::ParameterKind;

using model_test::defaults_tree;

namespace {

constexpr double day = 86400.0;
constexpr double chi2_critical_df9 = 27.877;
constexpr double chi2_critical_df15 = 37.697;
constexpr double chi2_critical_df18 = 42.312;

double total_count(const std::vector<InterruptionClass>& classes) {
  double n = 0.0;
  for (const auto& c : classes) n += c.count;
  return n;
}

double sum(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  return s;
}

/// Pearson's chi-square of observed counts against expected counts, over the cells whose
/// expected count is at least 5; `cells` receives how many cells were used.
double chi_square(const std::vector<double>& observed, const std::vector<double>& expected, std::size_t& cells) {
  double statistic = 0.0;
  cells = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] < 5.0) continue;
    const double d = observed[i] - expected[i];
    statistic += d * d / expected[i];
    ++cells;
  }
  return statistic;
}

bool is_snake_case(const std::string& name) {
  if (name.empty() || name.front() == '_' || name.back() == '_') return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

TEST_CASE("the Llama 3 table holds 419 unexpected interruptions in 18 classes", "[workload][interruptions]") {
  const auto classes = llama3_unexpected_interruptions();
  REQUIRE(classes.size() == 18);
  CHECK(total_count(classes) == 419.0);

  std::map<std::string, double> by_name;
  std::map<std::string, double> by_category;
  const std::set<std::string> categories{"gpu", "hardware", "software", "network", "host", "unknown"};
  for (const auto& c : classes) {
    INFO(c.name);
    CHECK(is_snake_case(c.name));
    CHECK(by_name.emplace(c.name, c.count).second);
    CHECK(categories.count(c.category) == 1);
    CHECK(c.count > 0.0);
    by_category[c.category] += c.count;
  }
  // Spot checks against Table 5.
  CHECK(by_name.at("faulty_gpu") == 148.0);
  CHECK(by_name.at("gpu_hbm3_memory") == 72.0);
  CHECK(by_name.at("software_bug") == 54.0);
  CHECK(by_name.at("network_switch_cable") == 35.0);
  CHECK(by_name.at("host_maintenance") == 32.0);
  CHECK(by_name.at("silent_data_corruption") == 6.0);
  CHECK(by_name.at("system_memory") == 2.0);
  // GPU classes: faulty GPU, HBM3, SRAM, system processor, SDC, thermal interface + sensor.
  CHECK(by_category.at("gpu") == 148.0 + 72.0 + 19.0 + 17.0 + 6.0 + 6.0);
  // "About 78 %" of the unexpected interruptions were hardware (GPU, network and host components).
  const double hardware = (by_category.at("gpu") + by_category.at("network") + by_category.at("hardware")) / 419.0;
  CHECK(hardware > 0.76);
  CHECK(hardware < 0.80);

  InterruptionParameters p;
  CHECK(interruption_classes(p).size() == 18);
  p.include_planned = true;
  const auto all = interruption_classes(p);
  REQUIRE(all.size() == 19);
  CHECK(total_count(all) == 466.0);
  CHECK(all.back().name == "planned_maintenance");
  CHECK(all.back().category == "planned");
  CHECK(all.back().count == 47.0);
}

TEST_CASE("class rates follow the snapshot and scale with the GPUs and the rate scale", "[workload][interruptions]") {
  InterruptionParameters p;
  const auto classes = interruption_classes(p);
  const auto reference = interruption_rates(p, classes, 16384);
  REQUIRE(reference.size() == classes.size());
  CHECK(sum(reference) == Approx(419.0 / (54.0 * day)).epsilon(1e-12));
  // About one unexpected interruption every 3 hours.
  CHECK(1.0 / sum(reference) / 3600.0 == Approx(3.09).margin(0.01));
  for (std::size_t k = 0; k < classes.size(); ++k)
    CHECK(reference[k] == Approx(classes[k].count / (54.0 * day)).epsilon(1e-12));

  const auto cluster = interruption_rates(p, classes, 24576);
  for (std::size_t k = 0; k < classes.size(); ++k) CHECK(cluster[k] == Approx(1.5 * reference[k]).epsilon(1e-12));
  CHECK(sum(cluster) * day == Approx(419.0 / 54.0 * 1.5).epsilon(1e-12));  // 11.6 per day

  InterruptionParameters doubled = p;
  doubled.rate_scale = 2.0;
  const auto twice = interruption_rates(doubled, classes, 16384);
  for (std::size_t k = 0; k < classes.size(); ++k) CHECK(twice[k] == Approx(2.0 * reference[k]).epsilon(1e-12));

  doubled.rate_scale = 0.0;
  CHECK(sum(interruption_rates(doubled, classes, 16384)) == 0.0);
  CHECK(sum(interruption_rates(p, classes, 0)) == 0.0);
  InterruptionParameters off = p;
  off.enabled = false;
  const auto none = interruption_rates(off, classes, 16384);
  CHECK(none.size() == classes.size());
  CHECK(sum(none) == 0.0);

  InterruptionParameters planned = p;
  planned.include_planned = true;
  const auto with_planned = interruption_rates(planned, interruption_classes(planned), 16384);
  CHECK(sum(with_planned) == Approx(466.0 / (54.0 * day)).epsilon(1e-12));
}

TEST_CASE("a long run matches the configured rates within statistical bounds", "[workload][interruptions][statistics]") {
  // 2,000 reference periods (108,000 days) at 24,576 GPUs with the planned class: about 1.4 million
  // interruptions, so every class expects thousands.
  InterruptionParameters p;
  p.include_planned = true;
  const auto classes = interruption_classes(p);
  const std::size_t gpus = 24576;
  const auto rates = interruption_rates(p, classes, gpus);
  const double total_rate = sum(rates);
  const double horizon = 2000.0 * p.reference_period;
  const auto drawn = draw_interruptions(rates, gpus, horizon, 20240723);

  // Total count: Poisson with mean lambda H; within 4 standard deviations.
  const double mean = total_rate * horizon;
  const auto n = static_cast<double>(drawn.size());
  CHECK(mean == Approx(466.0 * 1.5 * 2000.0).epsilon(1e-12));
  CHECK(std::fabs(n - mean) <= 4.0 * std::sqrt(mean));

  // Class mix: multinomial given the total; chi-square over the 19 classes, 18 degrees of freedom.
  std::vector<double> observed(classes.size(), 0.0), expected(classes.size(), 0.0);
  for (const auto& i : drawn) observed.at(i.cause) += 1.0;
  for (std::size_t k = 0; k < classes.size(); ++k) expected[k] = n * rates[k] / total_rate;
  std::size_t cells = 0;
  const double class_chi2 = chi_square(observed, expected, cells);
  REQUIRE(cells == 19);
  CHECK(class_chi2 < chi2_critical_df18);

  // The same counts against a wrong table (faulty GPU and HBM3 counts swapped) must be rejected:
  // the test has the power to see a misassigned class.
  std::vector<double> wrong = expected;
  std::swap(wrong[0], wrong[1]);
  CHECK(chi_square(observed, wrong, cells) > 100.0 * chi2_critical_df18);

  // Gaps: exponential with rate lambda. Mean 1/lambda and coefficient of variation 1, each within
  // 4 standard errors (both have a relative standard error of 1/sqrt(n) for an exponential sample).
  std::vector<double> gaps;
  gaps.reserve(drawn.size());
  double previous = 0.0;
  for (const auto& i : drawn) {
    gaps.push_back(i.time - previous);
    previous = i.time;
  }
  const auto m = static_cast<double>(gaps.size());
  const double gap_mean = sum(gaps) / m;
  double squares = 0.0;
  for (double g : gaps) squares += (g - gap_mean) * (g - gap_mean);
  const double cv = std::sqrt(squares / (m - 1.0)) / gap_mean;
  CHECK(std::fabs(gap_mean * total_rate - 1.0) <= 4.0 / std::sqrt(m));
  CHECK(std::fabs(cv - 1.0) <= 4.0 / std::sqrt(m));

  // Gap distribution: 10 bins of equal probability under exp(lambda), 9 degrees of freedom.
  std::vector<double> gap_bins(10, 0.0);
  for (double g : gaps) {
    const auto bin = static_cast<std::size_t>(10.0 * -std::expm1(-total_rate * g));
    gap_bins.at(std::min<std::size_t>(bin, 9)) += 1.0;
  }
  const double gap_chi2 = chi_square(gap_bins, std::vector<double>(10, m / 10.0), cells);
  CHECK(gap_chi2 < chi2_critical_df9);

  // GPUs: uniform over 16 bins of 1,536 GPUs, 15 degrees of freedom.
  std::vector<double> gpu_bins(16, 0.0);
  std::size_t outside = 0;
  for (const auto& i : drawn) {
    if (i.gpu < gpus) gpu_bins[i.gpu / 1536] += 1.0;
    else ++outside;
  }
  REQUIRE(outside == 0);
  const double gpu_chi2 = chi_square(gpu_bins, std::vector<double>(16, n / 16.0), cells);
  CHECK(gpu_chi2 < chi2_critical_df15);
}

TEST_CASE("draws are deterministic, ordered and inside the horizon", "[workload][interruptions]") {
  InterruptionParameters p;
  const auto classes = interruption_classes(p);
  const auto rates = interruption_rates(p, classes, 24576);
  const double horizon = 365.0 * day;
  const auto a = draw_interruptions(rates, 24576, horizon, 7);
  const auto b = draw_interruptions(rates, 24576, horizon, 7);
  const auto c = draw_interruptions(rates, 24576, horizon, 8);
  REQUIRE(a.size() > 3000);  // ~4,250 expected
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].time == b[i].time);
    CHECK(a[i].cause == b[i].cause);
    CHECK(a[i].gpu == b[i].gpu);
  }
  std::size_t same = 0;
  for (std::size_t i = 0; i < std::min(a.size(), c.size()); ++i) same += a[i].time == c[i].time ? 1 : 0;
  CHECK(same == 0);

  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].time > 0.0);
    CHECK(a[i].time < horizon);
    if (i > 0) CHECK(a[i].time > a[i - 1].time);
    CHECK(a[i].cause < classes.size());
    CHECK(a[i].gpu < 24576);
  }

  // A shorter horizon gives the prefix of the same sequence.
  const auto prefix = draw_interruptions(rates, 24576, 30.0 * day, 7);
  REQUIRE(prefix.size() <= a.size());
  for (std::size_t i = 0; i < prefix.size(); ++i) CHECK(prefix[i].time == a[i].time);
  CHECK((prefix.size() == a.size() || a[prefix.size()].time >= 30.0 * day));
}

TEST_CASE("draws follow the documented construction", "[workload][interruptions]") {
  // Gap, then class by inverse CDF on the cumulative rates, then GPU, from one SplitMix64 stream
  // seeded with seed ^ 0x696e746572727570 ("interrup").
  const std::vector<double> rates{1e-3, 0.0, 3e-3, 2e-3};
  const std::uint64_t seed = 12345;
  const auto drawn = draw_interruptions(rates, 100, 1e5, seed);
  REQUIRE(drawn.size() > 10);
  dctwin::models::SplitMix64 rng(seed ^ 0x696e746572727570ull);
  double t = 0.0;
  for (std::size_t i = 0; i < 10; ++i) {
    t += rng.exponential(6e-3);
    const double u = rng.uniform() * 6e-3;
    const std::size_t cause = u < 1e-3 ? 0 : u < 4e-3 ? 2 : 3;
    const auto gpu = static_cast<std::size_t>(rng.below(100));
    CHECK(drawn[i].time == Approx(t).epsilon(1e-14));
    CHECK(drawn[i].cause == cause);
    CHECK(drawn[i].gpu == gpu);
  }
  for (const auto& i : drawn) CHECK(i.cause != 1);  // a zero-rate class is never drawn
}

TEST_CASE("nothing is drawn without rates, horizon or GPUs", "[workload][interruptions]") {
  const std::vector<double> rates{1e-3, 2e-3};
  CHECK(draw_interruptions(rates, 16, 0.0, 1).empty());
  CHECK(draw_interruptions({0.0, 0.0}, 16, 1e6, 1).empty());
  CHECK(draw_interruptions({}, 16, 1e6, 1).empty());
  CHECK(draw_interruptions(rates, 0, 1e6, 1).empty());
  InterruptionParameters off;
  off.enabled = false;
  CHECK(draw_interruptions(interruption_rates(off, interruption_classes(off), 24576), 24576, 1e9, 1).empty());
  CHECK_FALSE(draw_interruptions(rates, 16, 1e6, 1).empty());
}

TEST_CASE("restart cost and expected effective training time", "[workload][interruptions]") {
  InterruptionParameters p;
  // 405B parameters at 14 B each: 5.67 TB, read back at 7 TB/s.
  const double checkpoint = 405e9 * 14.0;
  CHECK(reload_time(p, checkpoint) == Approx(0.81).epsilon(1e-12));
  CHECK(interruption_downtime(p, checkpoint) == Approx(120.0 + 300.0 + 0.81).epsilon(1e-12));

  // Limits: no faults -> 1; no lost work (tiny checkpoint period) -> 1 / (1 + lambda D).
  CHECK(expected_effective_training_fraction(0.0, 400.0, 600.0) == 1.0);
  CHECK(expected_effective_training_fraction(1e-4, 400.0, 1e-6) == Approx(1.0 / 1.04).epsilon(1e-9));
  // First order: 1 - lambda (D + tau / 2).
  CHECK(expected_effective_training_fraction(1e-6, 400.0, 600.0) == Approx(1.0 - 1e-6 * 700.0).epsilon(1e-6));

  // Against a simulation on the drawn faults (running-time clock): each fault loses the work since
  // the last checkpoint and costs D of wall-clock time; the job restarts at the start of a segment.
  const double lambda = 1.0 / 1000.0, tau = 500.0, downtime = 300.0;
  const double horizon = 1e9;  // ~1,000,000 faults
  const auto faults = draw_interruptions({lambda}, 1, horizon, 99);
  double kept = 0.0, start = 0.0;
  for (const auto& f : faults) {
    kept += std::floor((f.time - start) / tau) * tau;
    start = f.time;
  }
  kept += std::floor((horizon - start) / tau) * tau;
  const double simulated = kept / (horizon + static_cast<double>(faults.size()) * downtime);
  const double expected = expected_effective_training_fraction(lambda, downtime, tau);
  CHECK(expected == Approx(0.5 / (1.3 * std::expm1(0.5))).epsilon(1e-12));
  CHECK(simulated == Approx(expected).epsilon(0.01));

  // Llama 3 conditions (16,384 GPUs, a checkpoint every 10 minutes, the default restart estimates)
  // give more than the 90 % effective training time reported for the run.
  const auto rates = interruption_rates(p, interruption_classes(p), 16384);
  const double e = expected_effective_training_fraction(sum(rates), interruption_downtime(p, checkpoint), 600.0);
  CHECK(e > 0.90);
  CHECK(e < 0.97);
}

TEST_CASE("interruption parameter table is complete and its defaults are in range", "[workload][interruptions][parameters]") {
  const auto table = InterruptionParameters::table();
  const InterruptionParameters d;
  std::set<std::string> names;
  for (const auto& spec : table) {
    INFO("parameter " << spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK_FALSE(spec.doc.empty());
    CHECK_FALSE(spec.unit.empty());
    CHECK(dctwin::io::is_known_unit(spec.unit));
    if (!spec.display_unit.empty()) CHECK(dctwin::io::are_convertible(spec.unit, spec.display_unit));
    CHECK_FALSE(spec.required());
    const double v = *spec.default_value;
    CHECK((spec.min_inclusive ? v >= spec.min : v > spec.min));
    CHECK((spec.max_inclusive ? v <= spec.max : v < spec.max));
    if (spec.kind == ParameterKind::real || spec.kind == ParameterKind::integer) CHECK_FALSE(spec.source.empty());
  }
  CHECK(names == std::set<std::string>{"enabled", "rate_scale", "include_planned", "reference_gpus", "reference_period",
                                       "detection_time", "restart_time", "read_bandwidth", "crash_time"});

  std::map<std::string, dctwin::core::ParameterSpec> by_name;
  for (const auto& spec : table) by_name.emplace(spec.name, spec);
  CHECK(by_name.at("enabled").kind == ParameterKind::boolean);
  CHECK(by_name.at("include_planned").kind == ParameterKind::boolean);
  CHECK(by_name.at("reference_gpus").kind == ParameterKind::integer);
  CHECK(by_name.at("reference_gpus").min == 1.0);
  CHECK(by_name.at("rate_scale").min == 0.0);
  CHECK(by_name.at("rate_scale").min_inclusive);
  CHECK(by_name.at("detection_time").unit == "s");
  CHECK(by_name.at("restart_time").unit == "s");
  CHECK(by_name.at("detection_time").source.find("Estimate (uncertain)") == 0);
  CHECK(by_name.at("restart_time").source.find("Estimate (uncertain)") == 0);
  CHECK(by_name.at("reference_period").min == 0.0);
  CHECK_FALSE(by_name.at("reference_period").min_inclusive);
  CHECK_FALSE(by_name.at("read_bandwidth").min_inclusive);
  // The bandwidth may be written with a byte unit and lands in bytes per second.
  CHECK(dctwin::io::parse_to_si("7 terabyte/s", by_name.at("read_bandwidth").unit) == Approx(7e12));
  CHECK(dctwin::io::parse_to_si("2 TByte/s", by_name.at("read_bandwidth").unit) == Approx(2e12));
  CHECK(dctwin::io::parse_to_si("54 d", by_name.at("reference_period").unit) == Approx(d.reference_period));

  const InterruptionParameters p = InterruptionParameters::from(defaults_tree(table, "interruptions"));
  CHECK(p.enabled == d.enabled);
  CHECK(p.rate_scale == d.rate_scale);
  CHECK(p.include_planned == d.include_planned);
  CHECK(p.reference_gpus == d.reference_gpus);
  CHECK(p.reference_period == d.reference_period);
  CHECK(p.detection_time == d.detection_time);
  CHECK(p.restart_time == d.restart_time);
  CHECK(p.read_bandwidth == d.read_bandwidth);

  // from() reads every field, not just the defaults.
  auto tree = defaults_tree(table, "interruptions");
  tree.values["enabled"].number = 0.0;
  tree.values["include_planned"].number = 1.0;
  tree.values["rate_scale"].number = 2.5;
  tree.values["reference_gpus"].number = 8192.0;
  tree.values["reference_period"].number = 10.0 * day;
  tree.values["detection_time"].number = 60.0;
  tree.values["restart_time"].number = 900.0;
  tree.values["read_bandwidth"].number = 2e12;
  const InterruptionParameters q = InterruptionParameters::from(tree);
  CHECK_FALSE(q.enabled);
  CHECK(q.include_planned);
  CHECK(q.rate_scale == 2.5);
  CHECK(q.reference_gpus == 8192.0);
  CHECK(q.reference_period == 10.0 * day);
  CHECK(q.detection_time == 60.0);
  CHECK(q.restart_time == 900.0);
  CHECK(q.read_bandwidth == 2e12);
}
