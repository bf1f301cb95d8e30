// Calibration of the single-node server model against a measured trace (see validation.hpp and
// docs/validation.md): nonlinear least squares by Levenberg-Marquardt (Eigen's unsupported
// NonLinearOptimization module, Jacobian by forward differences with NumericalDiff).
//
// Each parameter v is fitted as x = 1 + ln(v / v_0) (v_0 its starting value), so that every
// unknown is of order one whatever its unit and the forward-difference step (sqrt(epsfcn) |x|) is
// a fixed relative change of v; v = clamp(v_0 exp(x - 1), lower, upper) keeps the table's range.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <Eigen/Core>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "dctwin/io/validation.hpp"
#include "dctwin/models/facility/single_node.hpp"
#include "dctwin/models/thermal/air_cooled_server.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/gpu_power.hpp"
#include "dctwin/models/workload/step_plan.hpp"
#include "dctwin/solver/parallel.hpp"
#include "validation_internal.hpp"

namespace dctwin::io {

namespace {

/// Forward-difference step of NumericalDiff: sqrt(epsfcn) relative, i.e. 0.1 % of a parameter,
/// well above the integrator's relative tolerance of 1e-8 in the temperatures it perturbs.
constexpr double difference_epsfcn = 1e-6;

/// Residual of every temperature sample [K] for parameter values whose replay fails.
constexpr double failed_residual = 1e3;

/// Each parameter stays within this factor of its starting value (and within its table range).
constexpr double bound_factor = 5.0;

/// Residuals r(x) of a least-squares problem, in the shape Eigen's LevenbergMarquardt wants.
struct Residuals {
  using Scalar = double;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;

  int input_count = 0;
  int value_count = 0;
  std::function<void(const Eigen::VectorXd&, Eigen::VectorXd&)> evaluate;

  [[nodiscard]] int inputs() const { return input_count; }
  [[nodiscard]] int values() const { return value_count; }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& r) const {
    evaluate(x, r);
    return 0;
  }
};

/// Minimises |r(x)|^2 from x = 1 (every parameter at its starting value).
Eigen::VectorXd least_squares(Residuals residuals) {
  Eigen::VectorXd x = Eigen::VectorXd::Ones(residuals.input_count);
  if (residuals.value_count < residuals.input_count) return x;
  Eigen::NumericalDiff<Residuals> differentiated(residuals, difference_epsfcn);
  Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Residuals>> solver(differentiated);
  solver.parameters.ftol = 1e-12;
  solver.parameters.xtol = 1e-10;
  solver.parameters.maxfev = 400;
  solver.minimize(x);
  return x;
}

struct Unknown {
  CalibratedParameter parameter;
  double reference = 1.0;  ///< v_0 (> 0)

  [[nodiscard]] double value(double x) const {
    return std::clamp(reference * std::exp(x - 1.0), parameter.lower, parameter.upper);
  }
};

const core::ParameterSpec& spec(const core::ParameterTable& table, const std::string& key) {
  for (const auto& s : table)
    if (s.name == key) return s;
  throw std::logic_error("no parameter " + key);
}

/// The sub-section named by one part of a section path: `gpu`, or a list entry `slots[3]`.
template <typename Tree>
Tree& child(Tree& node, const std::string& part) {
  const auto bracket = part.find('[');
  if (bracket == std::string::npos) return node.sections.at(part);
  const auto index = static_cast<std::size_t>(std::stoul(part.substr(bracket + 1)));
  return node.lists.at(part.substr(0, bracket)).at(index);
}

template <typename Tree>
auto& value_at(Tree& tree, const std::string& section, const std::string& key) {
  Tree* node = &tree;
  std::size_t start = 0;
  while (true) {
    const auto dot = section.find('.', start);
    node = &child(*node, section.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node->values.at(key);
}

const core::ParameterValue& value_in(const core::ParameterTree& tree, const std::string& section,
                                      const std::string& key) {
  return value_at(tree, section, key);
}

core::ParameterValue& value_in(core::ParameterTree& tree, const std::string& section, const std::string& key) {
  return value_at(tree, section, key);
}

/// A parameter to fit, starting from its scenario value, within its table range and a factor of
/// 5 either way (the fit corrects an estimate, it does not search from nothing).
Unknown unknown(const core::ParameterTree& tree, const core::ParameterTable& table, const std::string& section,
                const std::string& key) {
  const auto& s = spec(table, key);
  const double start = value_in(tree, section, key).number;
  Unknown u;
  u.reference = start > 0.0 ? start : s.default_value.value_or(1.0);
  const double lower = s.min_inclusive ? s.min : std::nextafter(s.min, s.max);
  const double upper = s.max_inclusive ? s.max : std::nextafter(s.max, s.min);
  u.parameter = {section, key, s.unit, start, start, std::max(lower, u.reference / bound_factor),
                 std::min(upper, u.reference * bound_factor)};
  if (!(u.parameter.lower > 0.0)) u.parameter.lower = u.reference / bound_factor;
  return u;
}

void set_values(core::ParameterTree& tree, const std::vector<Unknown>& unknowns, const std::vector<double>& values) {
  for (std::size_t i = 0; i < unknowns.size(); ++i) {
    auto& v = value_in(tree, unknowns[i].parameter.section, unknowns[i].parameter.key);
    v.number = values[i];
    v.from_default = false;
  }
}

std::vector<double> values_of(const std::vector<Unknown>& unknowns, const Eigen::VectorXd& x) {
  std::vector<double> v(unknowns.size());
  for (std::size_t i = 0; i < unknowns.size(); ++i) v[i] = unknowns[i].value(x[static_cast<long>(i)]);
  return v;
}

std::string yaml_number(double v) { return fmt::format("{}", v); }

void merge(YAML::Node base, const YAML::Node& overlay) {
  for (const auto& entry : overlay) {
    const auto key = entry.first.as<std::string>();
    const YAML::Node value = entry.second;
    YAML::Node existing = base[key];
    if (value.IsMap() && existing && existing.IsMap()) {
      merge(existing, value);
    } else {
      base[key] = YAML::Clone(value);
    }
  }
}

/// Step of an additive unknown per unit of x [K]: v = v_0 + offset_step (x - 1).
constexpr double offset_step = 10.0;

/// Largest change of a fitted inlet offset from its starting value [K].
constexpr double offset_range = 25.0;

/// Gives server.air.slots one entry per model GPU, defaults filled in, so that every slot's
/// values can be set and written.
void complete_slots(core::ParameterTree& tree, std::size_t count) {
  auto& slots = tree.sections.at("server").sections.at("air").lists["slots"];
  const auto table = models::thermal::AirCooledSlot::table();
  while (slots.size() < count) {
    core::ParameterTree entry;
    entry.path = "server.air.slots[" + std::to_string(slots.size()) + "]";
    for (const auto& spec : table) {
      core::ParameterValue v;
      v.number = spec.default_value.value_or(0.0);
      v.from_default = true;
      entry.values[spec.name] = v;
    }
    slots.push_back(std::move(entry));
  }
}

/// Fits, GPU by GPU, the slot of each trace GPU's model GPU in the air-cooled server: heatsink
/// resistance scale h_i, inlet offset dT_i, heatsink and junction capacitance scales, to the
/// measured junction temperature of the training samples. The GPUs' local air comes from the
/// measured powers, so each GPU's temperatures depend on its own slot only: each fit replays one
/// GPU, and the fits run side by side on the threads of solver::for_each_block (each GPU's fit is
/// the same on any number of threads). Sets the values in `tree` and returns them.
std::vector<CalibratedParameter> fit_air_slots(const replay::PreparedTrace& prepared, core::ParameterTree& tree,
                                               const ValidationOptions& vo, double split_time, int& evaluations,
                                               std::vector<std::string>& notes) {
  complete_slots(tree, prepared.model_count);
  const auto table = models::thermal::AirCooledSlot::table();
  const auto model = replay::read_model(tree);
  struct SlotFit {
    std::vector<CalibratedParameter> fitted;  ///< empty: too few samples, kept as given
    std::string note;
    int evaluations = 0;
  };
  const std::size_t gpus = prepared.time.size();
  std::vector<SlotFit> fits(gpus);
  const core::ParameterTree& given = tree;  // only read while the fits run
  auto fit_gpu = [&](std::size_t g) {
    SlotFit& result = fits[g];
    const std::size_t j = prepared.model_gpu[g];
    const std::string section = "server.air.slots[" + std::to_string(j) + "]";
    std::vector<Unknown> scales = {unknown(given, table, section, "heatsink_resistance_scale"),
                                   unknown(given, table, section, "heatsink_capacitance_scale"),
                                   unknown(given, table, section, "junction_capacitance_scale")};
    const auto& offset_spec = spec(table, "inlet_offset");
    const double offset_start = value_in(given, section, "inlet_offset").number;
    CalibratedParameter offset{section,
                               "inlet_offset",
                               "K",
                               offset_start,
                               offset_start,
                               std::max(offset_spec.min, offset_start - offset_range),
                               std::min(offset_spec.max, offset_start + offset_range)};
    auto offset_value = [&](double x) {
      return std::clamp(offset_start + offset_step * (x - 1.0), offset.lower, offset.upper);
    };
    std::vector<std::size_t> samples;
    for (std::size_t k = 0; k < prepared.time[g].size(); ++k)
      if (prepared.time[g][k] < split_time && std::isfinite(prepared.temperature[g][k])) samples.push_back(k);
    if (samples.size() < 8) {
      result.note = fmt::format("trace GPU {}: {} training temperature samples, too few to fit its slot; kept as given",
                                prepared.labels[g], samples.size());
      return;
    }
    auto set_all = [&](core::ParameterTree& t, const Eigen::VectorXd& x) {
      for (std::size_t i = 0; i < scales.size(); ++i) {
        auto& v = value_in(t, section, scales[i].parameter.key);
        v.number = scales[i].value(x[static_cast<long>(i)]);
        v.from_default = false;
      }
      auto& v = value_in(t, section, "inlet_offset");
      v.number = offset_value(x[static_cast<long>(scales.size())]);
      v.from_default = false;
    };
    Residuals r;
    r.input_count = static_cast<int>(scales.size()) + 1;
    r.value_count = static_cast<int>(samples.size());
    r.evaluate = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
      core::ParameterTree t = given;
      set_all(t, x);
      ++result.evaluations;
      replay::ThermalReplay run;
      try {
        run = replay::replay_thermal_air(prepared, t, model, vo, j);
      } catch (const ReplayError&) {
        out.setConstant(failed_residual);
        return;
      }
      for (std::size_t i = 0; i < samples.size(); ++i) {
        const std::size_t k = samples[i];
        out[static_cast<long>(i)] = run.at(run.junction[j], prepared.time[g][k]) - prepared.temperature[g][k];
      }
    };
    const Eigen::VectorXd x = least_squares(r);
    for (std::size_t i = 0; i < scales.size(); ++i) {
      CalibratedParameter p = scales[i].parameter;
      p.value = scales[i].value(x[static_cast<long>(i)]);
      result.fitted.push_back(p);
    }
    offset.value = offset_value(x[static_cast<long>(scales.size())]);
    result.fitted.push_back(offset);
  };
  solver::for_each_block(
      gpus,
      [&](const solver::BlockRange& range) {
        for (std::size_t g = range.first; g < range.last; ++g) fit_gpu(g);
      },
      1);
  std::vector<CalibratedParameter> fitted;
  for (auto& fit : fits) {
    evaluations += fit.evaluations;
    if (!fit.note.empty()) notes.push_back(std::move(fit.note));
    for (const auto& p : fit.fitted) {
      auto& v = value_in(tree, p.section, p.key);
      v.number = p.value;
      v.from_default = false;
      fitted.push_back(p);
    }
  }
  return fitted;
}

/// server: air: slots: every slot of the tree in full (the list replaces the scenario's when merged).
std::string slots_fragment(const core::ParameterTree& tree) {
  const auto table = models::thermal::AirCooledSlot::table();
  YAML::Emitter out;
  out << YAML::BeginMap << YAML::Key << "server" << YAML::Value << YAML::BeginMap << YAML::Key << "air"
      << YAML::Value << YAML::BeginMap << YAML::Key << "slots" << YAML::Value << YAML::BeginSeq;
  for (const auto& slot : tree.section("server").section("air").list("slots")) {
    out << YAML::BeginMap;
    for (const auto& spec : table)
      out << YAML::Key << spec.name << YAML::Value
          << (yaml_number(slot.values.at(spec.name).number) + (spec.unit == "1" ? "" : " " + spec.unit));
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace

namespace replay {

PowerFit fit_power_levels(const PreparedTrace& trace, const core::ParameterTree& original,
                          core::ParameterTree& tree, const ThermalReplay& thermal, const ValidationOptions& options,
                          double split_time) {
  // Training samples of each phase whose reading does not straddle a change: a level is fitted
  // only when its phase has at least this many (else it is not identified and stays as given).
  constexpr std::size_t minimum_samples = 10;
  const auto power_table = models::workload::GpuPowerParameters::table();
  const auto package_table = models::thermal::GpuPackageParameters::table();
  const auto job_table = models::workload::TrainingJobParameters::table();
  auto training = [&](double t) { return t < split_time; };
  // Each unknown starts from its current value in `tree`, within the bounds (and with the initial
  // value) of the scenario it was first read from, `original`: passes and the alternation with
  // the thermal fit do not widen them.
  auto make = [&](const core::ParameterTable& table, const std::string& section, const std::string& key) {
    Unknown u = unknown(original, table, section, key);
    const double current = value_in(tree, section, key).number;
    if (current > 0.0) u.reference = current;
    return u;
  };

  PowerFit fit;
  std::map<std::string, CalibratedParameter> fitted;  // by section.key, in the order first fitted
  std::vector<std::string> order;
  std::vector<std::vector<ReplayPhase>> phases;
  // Readings whose windows do not overlap are dated as mixtures of phases (date_window_mixtures),
  // which needs levels near the readings: a reading off every level by more than the hysteresis
  // is taken for a mixture and left out of the fit. While fewer than this share of the training
  // readings lie at a level (levels far off, as in a scenario 30 % off: 0.6 %), a pass takes one
  // phase per reading (derive_phases, date_phase_changes) to bring the levels near first. Readings
  // of sub-second phases stay above it from a scenario's defaults (9 % on make_thermal_traces.py's
  // trace from hgx-h100-air.yaml), where one phase per reading would take each mix for a level.
  constexpr double minimum_pure_share = 0.05;
  auto pure_share = [&](const PowerReplay& run) {
    double pure = 0.0, all = 0.0;
    for (std::size_t g = 0; g < trace.time.size(); ++g)
      for (std::size_t k = 0; k < trace.time[g].size(); ++k)
        if (training(trace.time[g][k]) && std::isfinite(trace.power[g][k])) {
          all += 1.0;
          if (!run.transition[g][k]) pure += 1.0;
        }
    return all > 0.0 ? pure / all : 1.0;
  };
  for (int pass = 0; pass < 5; ++pass) {
    auto current = replay_power(trace, read_model(tree), thermal, options);
    if (dated_as_mixtures(trace, options) && pure_share(current) < minimum_pure_share)
      current = replay_power(trace, read_model(tree), thermal, options, nullptr, nullptr, false);
    if (pass > 0 && current.phases == phases) break;
    phases = current.phases;
    const auto timeline = current.timeline;
    std::vector<std::pair<std::size_t, std::size_t>> samples;
    std::array<std::size_t, replay_phase_count> count{};
    for (std::size_t g = 0; g < trace.time.size(); ++g)
      for (std::size_t k = 0; k < trace.time[g].size(); ++k)
        if (training(trace.time[g][k]) && std::isfinite(trace.power[g][k]) && !current.transition[g][k]) {
          samples.emplace_back(g, k);
          ++count[static_cast<std::size_t>(phases[g][k])];
        }
    auto has = [&](ReplayPhase q) { return count[static_cast<std::size_t>(q)] >= minimum_samples; };
    // Level of each phase: idle P_static (+ L), compute P_dyn,max at the held compute activity,
    // stall and communication their activities, power-capped the limit; P_static only with idle
    // samples (else it trades off against the activities), k_leak only with measured temperatures.
    std::vector<Unknown> unknowns;
    if (has(ReplayPhase::idle)) unknowns.push_back(make(power_table, "workload.gpu_power", "static_power"));
    if (has(ReplayPhase::compute))
      unknowns.push_back(make(power_table, "workload.gpu_power", "dynamic_power_at_max"));
    if (has(ReplayPhase::stall)) unknowns.push_back(make(job_table, "workload.job", "stall_activity"));
    if (has(ReplayPhase::communication))
      unknowns.push_back(make(job_table, "workload.job", "communication_activity"));
    if (has(ReplayPhase::power_capped))
      unknowns.push_back(make(power_table, "workload.gpu_power", "power_limit"));
    if (trace.has_temperature && (has(ReplayPhase::compute) || has(ReplayPhase::idle)))
      unknowns.push_back(make(package_table, "server.gpu", "leakage_temperature_coefficient"));
    if (unknowns.empty() || samples.size() <= unknowns.size()) break;

    const core::ParameterTree base = tree;
    Residuals r;
    r.input_count = static_cast<int>(unknowns.size());
    r.value_count = static_cast<int>(samples.size());
    r.evaluate = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
      core::ParameterTree t = base;
      set_values(t, unknowns, values_of(unknowns, x));
      const auto run = replay_power(trace, read_model(t), thermal, options, &phases, &timeline);
      for (std::size_t i = 0; i < samples.size(); ++i) {
        const auto [g, k] = samples[i];
        out[static_cast<long>(i)] = run.power[g][k] - trace.power[g][k];
      }
    };
    const Eigen::VectorXd x = least_squares(r);
    const std::vector<double> values = values_of(unknowns, x);
    // The fit holds the temperatures; its leakage must still let the thermal model run.
    core::ParameterTree trial = tree;
    set_values(trial, unknowns, values);
    try {
      (void)replay_thermal(trace, trial, read_model(trial), options);
    } catch (const ReplayError& e) {
      std::string list;
      for (std::size_t i = 0; i < unknowns.size(); ++i)
        list += fmt::format("{}{} {:g} {}", i == 0 ? "" : ", ", unknowns[i].parameter.key, values[i],
                            unknowns[i].parameter.unit);
      fit.notes.push_back(fmt::format("the power fit's values ({}) make the thermal replay fail ({}); the previous "
                                      "values are kept and the fit stops there",
                                      list, e.what()));
      fit.failed = true;
      break;
    }
    tree = trial;
    for (std::size_t i = 0; i < unknowns.size(); ++i) {
      const std::string name = unknowns[i].parameter.section + "." + unknowns[i].parameter.key;
      auto [it, inserted] = fitted.try_emplace(name, unknowns[i].parameter);
      if (inserted) order.push_back(name);
      it->second.value = values[i];
    }
  }

  // The activity of power-capped work, from the measured clock: at the cap the governor runs the
  // highest clock at which P_static + L(T_j) + a s_i P_dyn(1, f) <= P_limit, so each capped sample
  // with its clock f_k gives a_k = (P_limit - P_static - L(T_k)) / (s_i P_dyn(1, f_k)); the median
  // over the training samples (not next to a change) is robust to the samples the cap just began at.
  if (trace.has_clock && !fit.failed) {
    const auto model = read_model(tree);
    const auto current = replay_power(trace, model, thermal, options);
    const models::workload::GpuPowerModel power(model.workload.power);
    std::vector<double> activity;
    for (std::size_t g = 0; g < trace.time.size(); ++g) {
      const std::size_t j = trace.model_gpu[g];
      for (std::size_t k = 0; k < trace.time[g].size(); ++k) {
        const double f = trace.clock[g][k];
        if (!training(trace.time[g][k]) || current.transition[g][k] ||
            current.phases[g][k] != ReplayPhase::power_capped || !std::isfinite(f))
          continue;
        const double tj = trace.temperature_filled[g].empty() ? current.temperature[g][k] : trace.temperature_filled[g][k];
        const double unit = model.spread[j].power_scale * power.dynamic_power(1.0, f);
        if (unit > 0.0)
          activity.push_back((model.workload.power.power_limit - model.workload.power.static_power -
                              model.leakage(j, tj)) / unit);
      }
    }
    if (activity.size() >= minimum_samples) {
      std::nth_element(activity.begin(), activity.begin() + static_cast<long>(activity.size() / 2), activity.end());
      Unknown u = make(job_table, "workload.job", "power_capped_activity");
      const double value = std::clamp(activity[activity.size() / 2], u.parameter.lower, u.parameter.upper);
      set_values(tree, {u}, {value});
      u.parameter.value = value;
      const std::string name = "workload.job.power_capped_activity";
      fitted[name] = u.parameter;
      order.push_back(name);
    }
  }
  for (const auto& name : order) fit.parameters.push_back(fitted.at(name));
  return fit;
}

}  // namespace replay

std::string calibration_fragment(const std::vector<CalibratedParameter>& parameters) {
  // Sections in first-appearance order, each key once.
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::vector<std::string> tops;
  for (const auto& p : parameters) {
    const auto top = p.section.substr(0, p.section.find('.'));
    if (std::find(tops.begin(), tops.end(), top) == tops.end()) tops.push_back(top);
  }
  for (const auto& top : tops) {
    out << YAML::Key << top << YAML::Value << YAML::BeginMap;
    std::vector<std::string> subs;
    for (const auto& p : parameters) {
      if (p.section.substr(0, p.section.find('.')) != top) continue;
      const auto dot = p.section.find('.');
      const std::string sub = dot == std::string::npos ? std::string() : p.section.substr(dot + 1);
      if (std::find(subs.begin(), subs.end(), sub) == subs.end()) subs.push_back(sub);
    }
    for (const auto& sub : subs) {
      if (!sub.empty()) out << YAML::Key << sub << YAML::Value << YAML::BeginMap;
      for (const auto& p : parameters) {
        const auto dot = p.section.find('.');
        const std::string this_sub = dot == std::string::npos ? std::string() : p.section.substr(dot + 1);
        if (p.section.substr(0, dot) != top || this_sub != sub) continue;
        out << YAML::Key << p.key << YAML::Value << (yaml_number(p.value) + (p.unit == "1" ? "" : " " + p.unit));
      }
      if (!sub.empty()) out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::string merge_scenario_fragment(std::string_view scenario, std::string_view fragment) {
  YAML::Node base, overlay;
  try {
    base = YAML::Load(std::string(scenario));
    overlay = YAML::Load(std::string(fragment));
  } catch (const YAML::Exception& e) {
    throw TelemetryError(std::string("cannot merge the fragment: ") + e.what());
  }
  if (!base.IsMap() || !overlay.IsMap()) throw TelemetryError("cannot merge the fragment: both must be YAML mappings");
  merge(base, overlay);
  YAML::Emitter out;
  out << base;
  return std::string(out.c_str()) + "\n";
}

ScenarioDocument apply_calibration(const ScenarioDocument& scenario, const std::vector<CalibratedParameter>& parameters) {
  ScenarioDocument copy = scenario;
  for (const auto& p : parameters)
    if (p.section.rfind("server.air.slots[", 0) == 0)
      complete_slots(copy.tree, static_cast<std::size_t>(copy.tree.section("server").integer("gpu_count")));
  for (const auto& p : parameters) {
    auto& v = value_in(copy.tree, p.section, p.key);
    v.number = p.value;
    v.as_written = yaml_number(p.value) + (p.unit == "1" ? "" : " " + p.unit) + " (calibrated)";
    v.from_default = false;
  }
  return copy;
}

namespace {

/// Sets `at_bound` of every parameter and adds a note for each one that ended on a bound.
void mark_bounds(CalibrationResult& result) {
  for (auto& p : result.parameters) {
    const double tolerance = 1e-6 * std::max(p.upper - p.lower, 1e-300);
    const bool lower = std::abs(p.value - p.lower) <= tolerance;
    const bool upper = std::abs(p.upper - p.value) <= tolerance;
    if (!(lower || upper) || p.at_bound) continue;
    p.at_bound = true;
    result.notes.push_back(fmt::format(
        "warning: {}.{} ended at its {} bound {:g} {}: the bound set it, not the trace (the trace does not "
        "determine it, or wants it beyond the bound)",
        p.section, p.key, lower ? "lower" : "upper", lower ? p.lower : p.upper, p.unit));
  }
}

}  // namespace

CalibrationResult calibrate_trace(const TelemetryTrace& trace, const ScenarioDocument& scenario,
                                  const CalibrationOptions& options) {
  if (!(options.train_fraction > 0.0 && options.train_fraction < 1.0))
    throw TelemetryError("the training fraction must be in (0, 1), not " + fmt::format("{}", options.train_fraction));
  ValidationOptions vo = options.validation;
  const replay::PreparedTrace prepared = replay::prepare(trace, scenario, vo);
  const std::string where = prepared.source.empty() ? std::string("trace") : prepared.source;
  CalibrationResult result;
  if (!prepared.has_temperature)
    result.notes.push_back(where + ": no GPU temperature (temperature.gpu): only the power model is fitted");

  result.split_time = options.train_fraction * prepared.end;
  auto training = [&](double t) { return t < result.split_time; };

  const auto package_table = models::thermal::GpuPackageParameters::table();
  // The air-cooled server is fitted GPU by GPU (fit_air_slots); the cold-plate server's package
  // parameters are shared by its GPUs.
  const bool air = replay::read_model(scenario.tree).cooling == "air";
  if (air && options.fit_supply_temperature)
    throw TelemetryError("--fit-supply-temperature: the air-cooled server (server.cooling: air in " + scenario.file +
                         ") has no coolant supply; its GPUs' inlet offsets are fitted instead");
  std::vector<Unknown> thermal;
  if (!air)
    thermal = {
        unknown(scenario.tree, package_table, "server.gpu", "junction_to_base_resistance"),
        unknown(scenario.tree, package_table, "server.gpu", "junction_capacitance"),
        unknown(scenario.tree, package_table, "server.gpu", "base_capacitance"),
    };
  std::vector<CalibratedParameter> air_parameters;
  if (options.fit_supply_temperature)
    thermal.push_back(unknown(scenario.tree, models::facility::single_node_loop_schema().parameters, "loop",
                              "supply_temperature"));
  std::vector<CalibratedParameter> power_parameters;  // the power fit's, in the order first fitted

  core::ParameterTree tree = scenario.tree;
  std::vector<double> thermal_values;
  for (const auto& u : thermal) thermal_values.push_back(u.parameter.initial);

  // Training temperature samples.
  std::vector<std::pair<std::size_t, std::size_t>> temperature_samples;
  for (std::size_t g = 0; g < prepared.time.size(); ++g)
    for (std::size_t k = 0; k < prepared.time[g].size(); ++k)
      if (training(prepared.time[g][k]) && std::isfinite(prepared.temperature[g][k]))
        temperature_samples.emplace_back(g, k);

  replay::ThermalReplay replayed;
  bool stopped = false;
  // Without temperatures only the power model is fitted, once (the thermal replay it reads the
  // junction temperature from does not change).
  const int outer_passes = prepared.has_temperature ? std::max(1, options.outer_iterations) : 1;
  for (int outer = 0; outer < outer_passes; ++outer) {
    // 1. Package resistances and capacitances against the measured temperature.
    if (!prepared.has_temperature) {
      replayed = replay::replay_thermal(prepared, tree, replay::read_model(tree), vo);
      ++result.evaluations;
    } else if (air) {
      air_parameters = fit_air_slots(prepared, tree, vo, result.split_time, result.evaluations, result.notes);
      replayed = replay::replay_thermal(prepared, tree, replay::read_model(tree), vo);
      ++result.evaluations;
    } else {
      const core::ParameterTree base = tree;
      Residuals r;
      r.input_count = static_cast<int>(thermal.size());
      r.value_count = static_cast<int>(temperature_samples.size());
      r.evaluate = [&](const Eigen::VectorXd& x, Eigen::VectorXd& out) {
        core::ParameterTree t = base;
        set_values(t, thermal, values_of(thermal, x));
        const auto model = replay::read_model(t);
        ++result.evaluations;
        replay::ThermalReplay run;
        try {
          run = replay::replay_thermal(prepared, t, model, vo);
        } catch (const ReplayError&) {
          // No solution for these values (a leakage runaway: no steady state, or a junction
          // without bound): a large residual makes the fit step back.
          out.setConstant(failed_residual);
          return;
        }
        for (std::size_t i = 0; i < temperature_samples.size(); ++i) {
          const auto [g, k] = temperature_samples[i];
          out[static_cast<long>(i)] =
              run.at(run.junction[prepared.model_gpu[g]], prepared.time[g][k]) - prepared.temperature[g][k];
        }
      };
      // Each outer pass starts again from the current values.
      for (std::size_t i = 0; i < thermal.size(); ++i) thermal[i].reference = thermal_values[i];
      const Eigen::VectorXd x = least_squares(r);
      thermal_values = values_of(thermal, x);
      set_values(tree, thermal, thermal_values);
      replayed = replay::replay_thermal(prepared, tree, replay::read_model(tree), vo);
      ++result.evaluations;
    }
    // 2. Phases, then the power model's levels against the measured power with the phases held,
    //    until the phases no longer change.
    auto power_fit = replay::fit_power_levels(prepared, scenario.tree, tree, replayed, vo, result.split_time);
    for (auto& note : power_fit.notes) result.notes.push_back(std::move(note));
    for (auto& p : power_fit.parameters) {
      const auto same = [&](const CalibratedParameter& q) { return q.section == p.section && q.key == p.key; };
      const auto it = std::find_if(power_parameters.begin(), power_parameters.end(), same);
      if (it == power_parameters.end()) {
        power_parameters.push_back(p);
      } else {
        it->value = p.value;
      }
    }
    stopped = power_fit.failed;
    if (stopped) break;
  }

  for (std::size_t i = 0; i < thermal.size() && prepared.has_temperature; ++i) {
    CalibratedParameter p = thermal[i].parameter;
    p.value = thermal_values[i];
    result.parameters.push_back(p);
  }
  for (const auto& p : power_parameters) result.parameters.push_back(p);
  mark_bounds(result);

  // The calibrated model over the whole trace; metrics before and after the split.
  const auto model = replay::read_model(tree);
  const auto thermal_run = replay::replay_thermal(prepared, tree, model, vo);
  const auto power_run = replay::replay_power(prepared, model, thermal_run, vo);
  replay::check_physical(prepared, power_run);
  ValidationOptions train = vo, held = vo;
  train.metrics_until = result.split_time;
  held.metrics_from = result.split_time;
  result.training = replay::assemble(prepared, power_run, train);
  result.held_out = replay::assemble(prepared, power_run, held);
  result.fragment = calibration_fragment(result.parameters);
  if (air) {
    // The per-GPU values go in as the whole slot list (a list merges as a whole). Their initial
    // values are the scenario's (the outer passes restart from the previous pass's).
    const auto& given = scenario.tree.section("server").section("air").list("slots");
    const auto slot_table = models::thermal::AirCooledSlot::table();
    for (auto p : air_parameters) {
      const auto open = p.section.find('[');
      const auto index = static_cast<std::size_t>(std::stoul(p.section.substr(open + 1)));
      p.initial = index < given.size() ? given[index].values.at(p.key).number
                                       : spec(slot_table, p.key).default_value.value_or(0.0);
      if (std::find_if(result.parameters.begin(), result.parameters.end(), [&](const CalibratedParameter& q) {
            return q.section == p.section && q.key == p.key;
          }) == result.parameters.end())
        result.parameters.push_back(p);
    }
    mark_bounds(result);
    std::vector<CalibratedParameter> shared;
    for (const auto& p : result.parameters)
      if (p.section.find('[') == std::string::npos) shared.push_back(p);
    result.fragment = merge_scenario_fragment(calibration_fragment(shared), slots_fragment(tree));
  }
  return result;
}

}  // namespace dctwin::io
