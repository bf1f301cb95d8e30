// A whole liquid-cooled site at facility scale (Llama 3's 24,576-GPU hall with a cold-plate
// retrofit): GPUs on cold plates, rack manifolds, rear doors (liquid-to-air) or CDUs
// (liquid-to-liquid), pod loops with their pumps and header hydraulics, the hall's air with CRAH
// units, the facility water plant and the weather. See docs/models/facility.md.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "dctwin/core/report_datasets.hpp"
#include "dctwin/models/facility/air_cooling.hpp"
#include "dctwin/models/facility/envelope.hpp"
#include "dctwin/models/facility/flow_plan.hpp"
#include "dctwin/models/facility/layout.hpp"
#include "dctwin/models/facility/liquid_cooling.hpp"
#include "dctwin/models/facility/site.hpp"
#include "dctwin/models/facility/weather.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"
#include "dctwin/models/workload/training_job.hpp"

namespace dctwin::models::facility {

/// Schema of the `facility:` section.
core::SectionSchema facility_schema();

class FacilitySite final : public Site {
 public:
  /// `weather_file` is the series read by io/ when `facility.weather.source` is `file`.
  FacilitySite(const core::ParameterTree& scenario, std::optional<WeatherSeries> weather_file);

  [[nodiscard]] std::vector<double> initial_state() const override;
  void observe(double t, const std::vector<double>& x, const std::vector<double>& outputs) override;
  [[nodiscard]] std::vector<core::SummaryFigure> summary(const std::vector<double>& x0, const std::vector<double>& x,
                                                           const std::vector<double>& discrete) const override;
  [[nodiscard]] std::vector<core::StaticData> static_data() const override { return layout_->static_data(); }
  /// The plant against the design heat load (every GPU at its power limit, every server's other
  /// heat) in the run's weather: a warning when it leaves more than 0.5 % of that load unmet.
  [[nodiscard]] std::vector<std::string> design_warnings() const override;
  [[nodiscard]] bool has_electrical_feed() const override { return electrical_.has_value(); }
  void knot(double t, const std::vector<double>& x, const std::vector<double>& before,
            const std::vector<double>& after) override;
  /// The GPUs' junction temperatures (their leakage is part of the feed's load) and the facility
  /// water's return (the plant's power follows from it).
  [[nodiscard]] std::optional<solver::StateRanges> states_read_by_knots() const override {
    return solver::merge_state_ranges({gpus_->junction_states(), {plant_->return_index(), 1}});
  }
  std::vector<electrical::GridSample> take_grid_samples() override;
  /// The feed, once the first sample has started it (nullptr before, or without one).
  [[nodiscard]] const electrical::ElectricalFeed* feed() const { return feed_.get(); }

  [[nodiscard]] const FacilityLayout& layout() const { return *layout_; }
  [[nodiscard]] const thermal::GpuPackageArray& gpus() const { return *gpus_; }
  [[nodiscard]] const FlowPlan& flows() const { return *flows_; }
  /// The pods' mains, headers and rack hoses (nullptr on an air-cooled site).
  [[nodiscard]] const PodHeaderTransport* headers() const { return headers_; }
  /// The pods' coolant loops (nullptr on an air-cooled site).
  [[nodiscard]] const PodCoolantLoop* pod_loops() const { return pods_; }
  [[nodiscard]] const workload::TrainingJob& job() const { return *job_; }

  [[nodiscard]] double stored_energy(const std::vector<double>& x) const;
  /// Heat put into the site so far: GPUs, other server parts, pumps, fans [J].
  [[nodiscard]] double heat_generated(const std::vector<double>& x) const;

 private:
  /// The servers with their fans, the hall's air and the plant of an air-cooled site.
  void assemble_air_cooled(const core::ParameterTree& facility, std::unique_ptr<thermal::GpuPackageArray> gpus,
                           std::unique_ptr<workload::TrainingJob> job, thermal::RoomAir room,
                           const PlantParameters& plant);
  /// Cold plates, rack loops (rear doors or CDUs), pod headers and loops, the hall's air and the
  /// plant of a liquid-cooled site.
  void assemble_liquid_cooled(const core::ParameterTree& facility, std::unique_ptr<thermal::GpuPackageArray> gpus,
                              std::unique_ptr<workload::TrainingJob> job, thermal::RoomAir room,
                              const PlantParameters& plant);
  void finish_assembly();
  /// Sets the servers' PSU loss in the thermal model at the step-mean load (after assembly).
  void set_psu_loss();
  /// Each pod's GPU power at time t with discrete state d (each GPU's leakage given in `leakage`,
  /// taken from x by the caller).
  [[nodiscard]] std::vector<double> pod_gpu_power(double t, const double* d, const std::vector<double>& leakage) const;
  /// Each pod's GPU power from the sums per block and pod (added in block order).
  [[nodiscard]] std::vector<double> pod_gpu_power(const workload::TrainingJob::GroupPowerSums& pod_sums) const;
  /// Cooling power that steps at known times: pod pumps (per flow phase) and door fans [W]; `before`
  /// takes the flow phase in effect just before t.
  [[nodiscard]] double stepped_cooling_power(double t, bool before) const;
  /// Each pod's IT power besides the GPUs at time t with discrete state d [W]: the servers' other
  /// DC load and, air-cooled, their fans at the speed their rotors have at t.
  [[nodiscard]] std::vector<double> pod_other_it_power(double t, const double* d) const;
  /// Advances the feed through the knots held since the last sample: the plant and CRAH power as
  /// each knot's state gives it, the servers' other IT power (fans) as each knot's discrete state
  /// gives it.
  void advance_feed_to_sample();
  /// The CRAH units' fan power, at their fixed speed [W].
  [[nodiscard]] double crah_fan_power() const;

  std::unique_ptr<FacilityLayout> layout_;
  std::unique_ptr<FlowPlan> flows_;
  std::unique_ptr<WeatherSeries> weather_;
  thermal::GpuPackageArray* gpus_ = nullptr;
  workload::TrainingJob* job_ = nullptr;
  AirCooledServers* servers_ = nullptr;   // air-cooled sites
  HallAirSource* air_source_ = nullptr;
  RackPlateCoolant* plates_ = nullptr;    // liquid-cooled sites (plates, racks, pods)
  RackCoolantLoop* racks_ = nullptr;
  PodHeaderTransport* headers_ = nullptr;
  PodCoolantLoop* pods_ = nullptr;
  HallAir* hall_ = nullptr;
  FacilityWaterPlant* plant_ = nullptr;
  double initial_temperature_ = 0.0;
  /// The heat the plant must reject at full load [W]: GPUs at their power limit plus the servers'
  /// other heat (pumps and fans, a few per cent more, left out: a lower bound).
  double design_heat_load_ = 0.0;
  std::size_t design_gpus_ = 0, design_servers_ = 0;
  double design_power_limit_ = 0.0, design_air_heat_ = 0.0;
  bool start_from_steady_state_ = false;
  double first_failure_time_ = -1.0;
  double server_air_heat_per_rack_ = 0.0;  // DC load of the servers' other parts [W per rack]
  electrical::PsuParameters psu_;           // the servers' supplies (electrical.psu)
  double psu_design_load_ = 0.0;            // step-mean DC load of one server [W]
  double psu_loss_per_server_ = 0.0;        // its PSU loss at that load [W]
  // Running figures over samples.
  bool first_sample_ = true;
  double last_t_ = 0.0;
  double junction_max_ = 0.0, hbm_max_ = 0.0, supply_max_ = 0.0, cold_aisle_max_ = 0.0;
  double time_to_limit_ = -1.0;  // first sample with a junction above its max operating temperature
  double plant_energy_ = 0.0;  // cooling energy, trapezoid over samples [J] (without a feed)
  double last_cooling_power_ = 0.0;
  double junction_spread_ = 0.0;  // hottest minus coolest junction at the last sample [K]
  // Electrical feed (multirate): started at the first sample, advanced at every knot.
  std::optional<electrical::ElectricalParameters> electrical_;
  std::unique_ptr<electrical::ElectricalFeed> feed_;
  // Each knot's loads are held until the next sample, and the feed is advanced through the held
  // knots there (its samples reach the report with the thermal part's).
  struct HeldKnot {
    double t = 0.0;
    std::vector<double> gpu_before, gpu_after;  // each pod's GPU power on both sides [W]
    double smooth_cooling = 0.0;                // plant and CRAH fans from the state at t [W]
    std::vector<double> other_before, other_after;  // each pod's IT power besides the GPUs [W]
  };
  std::vector<HeldKnot> held_knots_;
  double held_until_ = 0.0;                   // time of the last knot held (or the feed's start)
  electrical::FeedLoad feed_right_;           // load just after the last knot the feed has passed
  std::vector<double> knot_leakage_;          // each GPU's leakage at the knot being handled [W]
  std::vector<double> pod_other_it_power_;    // non-GPU IT power per pod at the last sample [W]
  std::size_t gpu_power_slot_ = 0;            // position of /gpu/power in the output buffer
  // Operating envelopes (air and water classes, HBM, server fans, the plant's correlations):
  // counted, not clamped (docs/models/facility.md, Operating envelopes).
  EnvelopeMonitor envelope_;
  std::size_t cold_aisle_check_ = 0, hbm_check_ = 0, condenser_check_ = 0, chiller_capacity_check_ = 0;
  std::size_t condenser_low_check_ = 0, chilled_water_check_ = 0, chilled_water_low_check_ = 0;
  std::optional<std::size_t> wet_bulb_check_, tower_range_check_, tower_flow_check_, tower_lg_check_,
      tower_approach_check_;
  std::optional<std::size_t> facility_water_check_, fans_full_check_;
  std::optional<std::size_t> fan_speed_slot_;  // first output slot of server/fan_speed (air)
  std::optional<std::size_t> rack_flow_slot_;  // position of /rack/coolant_flow (liquid-cooled sites)
  double rack_flow_min_ = 0.0, rack_flow_max_ = 0.0;  // over samples and racks [m3/s]
};

}  // namespace dctwin::models::facility
