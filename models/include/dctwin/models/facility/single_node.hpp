// One server of N GPUs on a pump-driven cold-plate loop with a fixed supply temperature.
//
//   pump --> [plates: B branches x S in series] --> return        (supply held at T_supply)
//
// The loop's flow is the operating point of the pump against the plates' and the piping's
// pressure drop; the thermal part is the GPU packages (thermal/gpu_package.hpp) and the coolant
// in the plates (thermal/coolant_channel.hpp). See docs/models/single-node.md.
//
// The GPUs' power comes from the scenario's training job, or, for the replay of a measured trace
// (io/validation.hpp), from a power source given to the constructor: the job is then not built,
// `workload:` is only read for its power model, and a GPU reaching its shutdown temperature does
// not end the run (the trace decides what the GPU draws).
#pragma once

#include <memory>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/facility/site.hpp"
#include "dctwin/models/thermal/coolant_channel.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/training_job.hpp"

namespace dctwin::models::facility {

/// Schema of the `server:` and `loop:` sections.
core::SectionSchema single_node_server_schema();
core::SectionSchema single_node_loop_schema();

class SingleNodeSite final : public Site {
 public:
  explicit SingleNodeSite(const core::ParameterTree& scenario);
  /// The same server with `power` driving the GPUs instead of the training job (one power per
  /// GPU of the scenario, leakage excluded: the packages add it). The site shares ownership of it;
  /// a null `power` builds the training job, as the first constructor does.
  SingleNodeSite(const core::ParameterTree& scenario, std::shared_ptr<const thermal::GpuPowerSource> power);

  [[nodiscard]] std::vector<double> initial_state() const override;
  void observe(double t, const std::vector<double>& x, const std::vector<double>& outputs) override;
  [[nodiscard]] std::vector<core::SummaryFigure> summary(const std::vector<double>& x0, const std::vector<double>& x,
                                                           const std::vector<double>& discrete) const override;

  [[nodiscard]] const thermal::GpuPackageArray& gpus() const { return *gpus_; }
  [[nodiscard]] const thermal::CoolantChannel& coolant() const { return *coolant_; }
  /// Whether the GPUs run the scenario's training job (false when built with a power source).
  [[nodiscard]] bool has_job() const { return job_ != nullptr; }
  /// The training job; only when has_job().
  [[nodiscard]] const workload::TrainingJob& job() const { return *job_; }
  /// What drives the GPUs: the training job or the power source given to the constructor.
  [[nodiscard]] const thermal::GpuPowerSource& power_source() const;
  [[nodiscard]] double pump_pressure_rise() const { return pump_pressure_rise_; }
  /// Total stored thermal energy sum C T over every node [J].
  [[nodiscard]] double stored_energy(const std::vector<double>& x) const;
  /// Steady-state junction temperatures by hand, for the GPUs' power at discrete state d [K]: along
  /// each branch, plate by plate, T_j solves
  ///   T_j = T_in + (P + L(T_j)) (1/(mdot c_p) + R_cp) + ((1 - f_h) P + L(T_j)) R_jb
  /// (a scalar Newton iteration when leakage depends on T_j), and the next plate's inlet is
  /// T_in + (P + L) / (mdot c_p).
  [[nodiscard]] std::vector<double> hand_steady_junction_temperatures(const std::vector<double>& d) const;

 private:
  thermal::GpuPackageArray* gpus_ = nullptr;
  thermal::CoolantChannel* coolant_ = nullptr;
  workload::TrainingJob* job_ = nullptr;
  std::shared_ptr<const thermal::GpuPowerSource> external_power_;
  bool start_from_steady_state_ = false;
  double pump_pressure_rise_ = 0.0;
  // Running extrema over samples.
  double junction_max_ = 0.0;
  double return_max_ = 0.0;
  double time_above_max_operating_ = 0.0;
  double last_sample_time_ = 0.0;
  bool last_above_ = false;
  bool first_sample_ = true;
};

}  // namespace dctwin::models::facility
