#include "dctwin/models/facility/liquid_cooling.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "dctwin/core/check.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::models::facility {

using solver::Index;

// ---------------------------------------------------------------------------------------------
// RackPlateCoolant

RackPlateCoolant::RackPlateCoolant(const FacilityLayout& layout, thermal::ColdPlate plate, CoolantConstants coolant,
                                   const FlowPlan& flows, const thermal::GpuPackageArray& gpus,
                                   double initial_temperature)
    : Component("plates"),
      layout_(layout),
      plate_(plate),
      coolant_(coolant),
      flows_(flows),
      gpus_(gpus),
      initial_temperature_(initial_temperature) {
  DCTWIN_DEMAND(gpus.count() == layout.gpus(), "one cold plate per GPU");
  capacitance_ = coolant_.density * plate_.parameters().coolant_volume * coolant_.specific_heat;
  temperature_ = declare_state_group(
      {"plate_coolant_temperature", "K", "coolant temperature in each GPU's cold plate", static_cast<Index>(layout.gpus())});
  // R_cp(q_g) and C_g of every plate at each flow phase, computed once: the flows only change
  // between phases, and R_cp's power law would otherwise cost two pow() per GPU per evaluation.
  for (const auto& phase : flows.phases()) {
    PhaseConstants k;
    k.resistance.resize(layout.gpus());
    k.conductance.resize(layout.gpus());
    k.capacity_rate.resize(layout.gpus());
    for (std::size_t g = 0; g < layout.gpus(); ++g) {
      const double q = phase.plate_flow[g];
      k.capacity_rate[g] = coolant_.capacity_rate(q);
      // A plate without flow still conducts a little into its stagnant coolant; 1e3 times the
      // nominal resistance keeps the network well posed while the GPU heats up toward its trip.
      k.resistance[g] = q > 0.0 ? plate_.resistance(q, k.capacity_rate[g])
                                : 1e3 * plate_.parameters().resistance_at_nominal_flow;
      k.conductance[g] = 1.0 / k.resistance[g];
    }
    phase_constants_.push_back(std::move(k));
  }
}

double RackPlateCoolant::plate_flow(std::size_t g, double segment_start) const {
  return flows_.at(segment_start).plate_flow[g];
}

double RackPlateCoolant::environment_resistance(std::size_t g, const solver::EvalContext& ctx) const {
  return phase_constants_[flows_.phase_index(ctx.segment_start)].resistance[g];
}

void RackPlateCoolant::environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                                Coefficients* out) const {
  // As environment_terms() and environment_resistance(), with the phase and the group located once.
  const std::vector<double>& resistance = phase_constants_[flows_.phase_index(ctx.segment_start)].resistance;
  const solver::Index t0 = temperature_index(0);
  for (std::size_t g = first; g < last; ++g) {
    const solver::Index c = t0 + static_cast<solver::Index>(g);
    out[g - first] = {{{{c, 1.0}, {c, 0.0}}}, resistance[g]};
  }
}

thermal::GpuEnvironment::OwnNode RackPlateCoolant::own_node(std::size_t g, const solver::EvalContext& ctx) const {
  return {capacitance_, phase_constants_[flows_.phase_index(ctx.segment_start)].capacity_rate[g]};
}

double RackPlateCoolant::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t g = 0; g < layout_.gpus(); ++g) e += capacitance_ * x[temperature_index(g)];
  return e;
}

void RackPlateCoolant::initial_state(double* x) const {
  for (std::size_t g = 0; g < layout_.gpus(); ++g) x[temperature_index(g)] = initial_temperature_;
}

void RackPlateCoolant::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  const PhaseConstants& k = phase_constants_[flows_.phase_index(ctx.segment_start)];
  const std::size_t per_rack = layout_.gpus_per_rack();
  // The groups are contiguous: plate g's coolant is x[c0 + g], its GPU's base x[b0 + g]; the
  // supply index is looked up once per rack.
  const auto c0 = static_cast<std::size_t>(temperature_index(0)), b0 = static_cast<std::size_t>(gpus_.base_index(0));
  solver::for_each_block(layout_.gpus(), [&](const solver::BlockRange& block) {
    std::size_t rack = block.first / per_rack;
    std::size_t rack_end = (rack + 1) * per_rack;
    double t_supply = x[headers_->rack_inlet_index(rack)];
    for (std::size_t g = block.first; g < block.last; ++g) {
      if (g == rack_end) {
        ++rack;
        rack_end += per_rack;
        t_supply = x[headers_->rack_inlet_index(rack)];
      }
      const double c_g = k.capacity_rate[g], g_cp = k.conductance[g];
      const double tc = x[c0 + g];
      xdot[c0 + g] += (c_g * (t_supply - tc) + g_cp * (x[b0 + g] - tc)) / capacitance_;
    }
  });
}

void RackPlateCoolant::jacobian_pattern(solver::PatternSink& pattern) const {
  for (std::size_t g = 0; g < layout_.gpus(); ++g) {
    const Index c = temperature_index(g);
    pattern.add(c, c);
    pattern.add(c, gpus_.base_index(g));
    pattern.add(c, headers_->rack_inlet_index(layout_.rack_of_gpu(g)));
  }
}

void RackPlateCoolant::jacobian(const solver::EvalContext& ctx, const double*, solver::JacobianSink& jac) const {
  const PhaseConstants& k = phase_constants_[flows_.phase_index(ctx.segment_start)];
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    const Index supply = headers_->rack_inlet_index(r);
    for (std::size_t g = r * layout_.gpus_per_rack(); g < (r + 1) * layout_.gpus_per_rack(); ++g) {
      const double c_g = k.capacity_rate[g], g_cp = k.conductance[g];
      const Index c = temperature_index(g);
      jac.add(c, c, -(c_g + g_cp) / capacitance_);
      jac.add(c, gpus_.base_index(g), g_cp / capacitance_);
      jac.add(c, supply, c_g / capacitance_);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// RackCoolantLoop

RackCoolantLoop::RackCoolantLoop(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows,
                                 const RackPlateCoolant& plates, double manifold_volume,
                                 std::unique_ptr<hx::RearDoor> door, double door_water_volume, double door_fan_speed,
                                 Air air, double initial_temperature)
    : Component("racks"),
      layout_(layout),
      coolant_(coolant),
      flows_(flows),
      plates_(plates),
      door_(std::move(door)),
      manifold_capacitance_(coolant.density * manifold_volume * coolant.specific_heat),
      door_capacitance_(coolant.density * door_water_volume * coolant.specific_heat),
      door_fan_speed_(door_fan_speed),
      air_(air),
      initial_temperature_(initial_temperature) {
  const auto racks = static_cast<Index>(layout.racks());
  return_ = declare_state_group({"return_temperature", "K", "coolant in each rack's return manifold", racks});
  server_heat_ = declare_state_group({"server_air_heat", "J",
                                      "heat of the servers' parts besides the GPUs (CPUs, memory, NICs, fans, PSU "
                                      "losses) and the door fans, into the air",
                                      1, true});
  out_return_ = declare_output({"rack", "coolant_return_temperature", "K", "coolant leaving the rack's servers", "rack", racks});
  out_flow_ = declare_output({"rack", "coolant_flow", "m3/s", "coolant flow through the rack", "rack", racks});
  out_pressure_ = declare_output({"rack", "coolant_pressure_drop", "Pa", "coolant pressure drop across the rack (tap to tap)", "rack", racks});
  if (door_) {
    door_water_ = declare_state_group({"door_water_temperature", "K", "coolant in each rear-door coil (door outlet)", racks});
    out_door_air_ = declare_output({"rack", "door_outlet_air_temperature", "K", "air leaving the rear door", "rack", racks});
    out_door_heat_ = declare_output({"rack", "door_heat", "W", "heat the rear door hands to the air", "rack", racks});
    if (door_->parameters().active) air_.server_air_flow = door_->air_flow(air_.server_air_flow, door_fan_speed_);
    // k_r = eps C_min at each phase's flows (eps depends on the flows only).
    for (const auto& phase : flows.phases()) {
      std::vector<double> k(layout.racks(), 0.0);
      for (std::size_t r = 0; r < layout.racks(); ++r) {
        const double water = coolant_.density * phase.rack_flow[r];
        if (water <= 0.0 || air_.server_air_flow <= 0.0) continue;
        const auto op = door_->evaluate(300.0, air_.server_air_flow, 310.0, water, air_.specific_heat, coolant_.specific_heat);
        k[r] = op.effectiveness * std::min(air_.server_air_flow * air_.specific_heat, water * coolant_.specific_heat);
      }
      door_conductance_.push_back(std::move(k));
    }
  }
  declare_entity_table({"rack", layout.rack_labels()});
}

double RackCoolantLoop::rack_capacity_rate(std::size_t r, double segment_start) const {
  return coolant_.capacity_rate(flows_.at(segment_start).rack_flow[r]);
}

double RackCoolantLoop::door_conductance(std::size_t r, double segment_start) const {
  return door_ ? door_conductance_[flows_.phase_index(segment_start)][r] : 0.0;
}

double RackCoolantLoop::door_fan_power() const { return door_ ? door_->fan_power(door_fan_speed_) : 0.0; }

double RackCoolantLoop::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    e += manifold_capacitance_ * x[return_index(r)];
    if (door_) e += door_capacitance_ * x[outlet_index(r)];
  }
  return e;
}

void RackCoolantLoop::initial_state(double* x) const {
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    x[return_index(r)] = initial_temperature_;
    if (door_) x[outlet_index(r)] = initial_temperature_;
  }
  x[server_heat_index()] = 0.0;
}

double RackCoolantLoop::pod_air_flow(std::size_t, const solver::EvalContext&) const {
  return static_cast<double>(layout_.racks_per_pod()) * air_.server_air_flow;
}

double RackCoolantLoop::pod_air_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const {
  double q = static_cast<double>(layout_.racks_per_pod()) * (air_.server_air_heat + door_fan_power());
  for (std::size_t r = pod * layout_.racks_per_pod(); r < (pod + 1) * layout_.racks_per_pod(); ++r)
    q += door_heat_to_air(r, ctx, x);
  return q;
}

void RackCoolantLoop::pod_air_heat_pattern(std::size_t pod, std::vector<solver::Index>& states) const {
  if (!door_) return;
  states.push_back(hall_->cold_index(pod));
  for (std::size_t r = pod * layout_.racks_per_pod(); r < (pod + 1) * layout_.racks_per_pod(); ++r)
    states.push_back(return_index(r));
}

void RackCoolantLoop::pod_air_heat_jacobian(std::size_t pod, const solver::EvalContext& ctx, const double*,
                                            std::vector<std::pair<solver::Index, double>>& terms) const {
  if (!door_) return;
  // Door heat k_r (T_rm,r - T_C - Q_srv / C_air): +k_r on T_rm,r, -k_r on T_C.
  double k_sum = 0.0;
  for (std::size_t r = pod * layout_.racks_per_pod(); r < (pod + 1) * layout_.racks_per_pod(); ++r) {
    const double k = door_conductance(r, ctx.segment_start);
    k_sum += k;
    terms.emplace_back(return_index(r), k);
  }
  terms.emplace_back(hall_->cold_index(pod), -k_sum);
}

void RackCoolantLoop::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  const double* conductance = door_ ? door_conductance_[flows_.phase_index(ctx.segment_start)].data() : nullptr;
  const std::size_t n = layout_.gpus_per_rack();
  xdot[server_heat_index()] +=
      static_cast<double>(layout_.racks()) * (air_.server_air_heat + door_fan_power());
  // Each rack's return manifold and door water, rack by rack on the run's threads (each rack
  // writes its own two states only).
  solver::for_each_block(layout_.racks(), [&](const solver::BlockRange& block) {
    for (std::size_t r = block.first; r < block.last; ++r) {
      const double c_r = coolant_.capacity_rate(phase.rack_flow[r]);
      const double t_rm = x[return_index(r)];
      double inflow = 0.0;
      for (std::size_t g = r * n; g < (r + 1) * n; ++g)
        inflow += coolant_.capacity_rate(phase.plate_flow[g]) * (x[plates_.temperature_index(g)] - t_rm);
      xdot[return_index(r)] += inflow / manifold_capacitance_;
      if (conductance != nullptr) {
        const double t_dw = x[outlet_index(r)];
        xdot[outlet_index(r)] += (c_r * (t_rm - t_dw) - door_heat(r, conductance[r], x)) / door_capacitance_;
      }
    }
  });
}

void RackCoolantLoop::jacobian_pattern(solver::PatternSink& pattern) const {
  const std::size_t n = layout_.gpus_per_rack();
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    const Index rm = return_index(r);
    pattern.add(rm, rm);
    for (std::size_t g = r * n; g < (r + 1) * n; ++g) pattern.add(rm, plates_.temperature_index(g));
    if (door_) {
      const Index dw = outlet_index(r);
      pattern.add(dw, dw);
      pattern.add(dw, rm);
      pattern.add(dw, hall_->cold_index(layout_.pod_of_rack(r)));
    }
  }
}

void RackCoolantLoop::jacobian(const solver::EvalContext& ctx, const double*, solver::JacobianSink& jac) const {
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  const std::size_t n = layout_.gpus_per_rack();
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    const double c_r = coolant_.capacity_rate(phase.rack_flow[r]);
    const Index rm = return_index(r);
    double c_plates = 0.0;
    for (std::size_t g = r * n; g < (r + 1) * n; ++g) {
      const double c_g = coolant_.capacity_rate(phase.plate_flow[g]);
      c_plates += c_g;
      jac.add(rm, plates_.temperature_index(g), c_g / manifold_capacitance_);
    }
    jac.add(rm, rm, -c_plates / manifold_capacitance_);
    if (door_) {
      const double k = door_conductance(r, ctx.segment_start);
      const Index dw = outlet_index(r);
      jac.add(dw, dw, -c_r / door_capacitance_);
      jac.add(dw, rm, (c_r - k) / door_capacitance_);
      jac.add(dw, hall_->cold_index(layout_.pod_of_rack(r)), k / door_capacitance_);
    }
  }
}

double RackCoolantLoop::door_air_inlet_temperature(std::size_t r, const double* x) const {
  const double t_cold = x[hall_->cold_index(layout_.pod_of_rack(r))];
  return t_cold + air_.server_air_heat / (air_.server_air_flow * air_.specific_heat);
}

double RackCoolantLoop::door_heat(std::size_t r, double conductance, const double* x) const {
  return conductance * (x[return_index(r)] - door_air_inlet_temperature(r, x));
}

double RackCoolantLoop::door_heat_to_air(std::size_t r, const solver::EvalContext& ctx, const double* x) const {
  if (!door_) return 0.0;
  return door_heat(r, door_conductance(r, ctx.segment_start), x);
}

void RackCoolantLoop::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  const double c_air = air_.server_air_flow * air_.specific_heat;
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    values[out_return_][r] = x[return_index(r)];
    values[out_flow_][r] = phase.rack_flow[r];
    values[out_pressure_][r] = phase.rack_pressure_drop[r];
    if (door_) {
      const double q = door_heat_to_air(r, ctx, x);
      values[out_door_heat_][r] = q;
      values[out_door_air_][r] = door_air_inlet_temperature(r, x) + q / c_air;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PodHeaderTransport

namespace {
/// Cells of a pipe whose coolant stays `residence` seconds at the first phase's flow: enough that
/// none holds it longer than `max_cell_time`, at least one, at most `cap`.
std::size_t cell_count(double residence, double max_cell_time, std::size_t cap) {
  if (!(residence > 0.0) || !std::isfinite(residence)) return residence > 0.0 ? cap : 1;
  const double n = std::ceil(residence / max_cell_time * (1.0 - 1e-12));
  return std::clamp<std::size_t>(n < static_cast<double>(cap) ? static_cast<std::size_t>(n) : cap, 1, cap);
}
constexpr std::size_t max_cells_per_header_pipe = 64;
constexpr std::size_t max_cells_per_hose = 16;
}  // namespace

PodHeaderTransport::PodHeaderTransport(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows,
                                       Geometry geometry, double initial_temperature)
    : Component("headers"),
      layout_(layout),
      coolant_(coolant),
      flows_(flows),
      geometry_(geometry),
      initial_temperature_(initial_temperature) {
  DCTWIN_DEMAND(geometry.max_cell_time > 0.0, "the longest residence time of a header cell must be positive");
  DCTWIN_DEMAND(geometry.supply_main_volume > 0.0 && geometry.return_main_volume > 0.0 && geometry.segment_volume > 0.0 &&
                    geometry.rack_hose_volume > 0.0,
                "header pipes need positive volumes");
  const std::size_t per_pod = layout.racks_per_pod();
  // Capacity rates of every pipe at every phase: each header pipe carries the racks beyond it
  // (supply: racks m ... R-1, summed from the far end; return: the racks collected so far).
  for (const auto& phase : flows.phases()) {
    PhaseRates k;
    k.rack.resize(layout.racks());
    for (std::size_t r = 0; r < layout.racks(); ++r) k.rack[r] = coolant_.capacity_rate(phase.rack_flow[r]);
    k.supply.resize(layout.racks());
    k.ret.resize(layout.racks());
    for (std::size_t p = 0; p < layout.pods(); ++p) {
      const double* c = &k.rack[p * per_pod];
      double sum = 0.0;
      for (std::size_t m = per_pod; m-- > 0;) k.supply[p * per_pod + m] = sum += c[m];
      sum = 0.0;
      for (std::size_t m = 0; m < per_pod; ++m) k.ret[p * per_pod + m] = sum += c[return_rack(m)];
    }
    phase_rates_.push_back(std::move(k));
  }
  // Cells per pipe from the first phase: the slowest pod decides (pods share one layout).
  const PhaseRates& first = phase_rates_.front();
  const double rho_cp = coolant_.density * coolant_.specific_heat;
  auto layout_pipes = [&](std::vector<PipeCells>& pipes, const std::vector<double>& rates, bool supply) {
    pipes.resize(per_pod);
    for (std::size_t m = 0; m < per_pod; ++m) {
      const bool main = supply ? m == 0 : m + 1 == per_pod;
      const double volume = main ? (supply ? geometry_.supply_main_volume : geometry_.return_main_volume) : geometry_.segment_volume;
      double residence = 0.0;
      for (std::size_t p = 0; p < layout.pods(); ++p) {
        const double c = rates[p * per_pod + m];
        residence = std::max(residence, c > 0.0 ? rho_cp * volume / c : std::numeric_limits<double>::infinity());
      }
      PipeCells& pipe = pipes[m];
      pipe.first = cells_per_pod_;
      pipe.count = cell_count(residence, geometry_.max_cell_time, max_cells_per_header_pipe);
      pipe.cell_capacitance = rho_cp * volume / static_cast<double>(pipe.count);
      cells_per_pod_ += pipe.count;
    }
  };
  layout_pipes(supply_pipes_, first.supply, true);
  layout_pipes(return_pipes_, first.ret, false);
  // Every rack's hose gets the same number of cells, from the mean rack flow.
  double mean_rack_rate = 0.0;
  for (double c : first.rack) mean_rack_rate += c;
  mean_rack_rate /= static_cast<double>(layout.racks());
  hose_cells_ = cell_count(mean_rack_rate > 0.0 ? rho_cp * geometry_.rack_hose_volume / mean_rack_rate : 0.0,
                           geometry_.max_cell_time, max_cells_per_hose);
  hose_pipe_.count = hose_cells_;
  hose_pipe_.cell_capacitance = rho_cp * geometry_.rack_hose_volume / static_cast<double>(hose_cells_);

  cell_ = declare_state_group({"header_coolant_temperature", "K",
                               "coolant in each well-mixed cell of the pod's supply and return mains and headers",
                               static_cast<Index>(layout.pods() * cells_per_pod_)});
  hose_ = declare_state_group({"rack_hose_coolant_temperature", "K", "coolant in each cell of each rack's supply hose",
                               static_cast<Index>(layout.racks() * hose_cells_)});
  out_rack_supply_ = declare_output({"rack", "coolant_supply_temperature", "K",
                                     "coolant reaching the rack's plates (pod supply after the mains, header and hose)",
                                     "rack", static_cast<Index>(layout.racks())});
  out_pod_return_ = declare_output({"pod", "coolant_return_temperature", "K",
                                    "coolant reaching the pod's pumps (end of the return main)", "pod",
                                    static_cast<Index>(layout.pods())});
}

template <typename Term>
void PodHeaderTransport::for_each_term(const PhaseRates& k, Term&& term) const {
  const std::size_t per_pod = layout_.racks_per_pod();
  auto last_cell = [&](std::size_t p, const PipeCells& pipe) { return cell_index(p, pipe.first + pipe.count - 1); };
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    // Supply: the main from the pod supply, each segment from the one before.
    for (std::size_t m = 0; m < per_pod; ++m) {
      const PipeCells& pipe = supply_pipes_[m];
      const double a = k.supply[p * per_pod + m] / pipe.cell_capacitance;
      Index upstream = m == 0 ? pod_supply_(p) : last_cell(p, supply_pipes_[m - 1]);
      for (std::size_t j = 0; j < pipe.count; ++j) {
        const Index row = cell_index(p, pipe.first + j);
        term(row, upstream, a);
        term(row, row, -a);
        upstream = row;
      }
    }
    // Return: the first cell of each pipe mixes its rack's outlet with the pipe before.
    for (std::size_t m = 0; m < per_pod; ++m) {
      const PipeCells& pipe = return_pipes_[m];
      const double a = k.ret[p * per_pod + m] / pipe.cell_capacitance;
      const std::size_t rack = p * per_pod + return_rack(m);
      const Index head = cell_index(p, pipe.first);
      term(head, rack_outlet_(rack), k.rack[rack] / pipe.cell_capacitance);
      if (m > 0) term(head, last_cell(p, return_pipes_[m - 1]), k.ret[p * per_pod + m - 1] / pipe.cell_capacitance);
      term(head, head, -a);
      for (std::size_t j = 1; j < pipe.count; ++j) {
        const Index row = cell_index(p, pipe.first + j);
        term(row, row - 1, a);
        term(row, row, -a);
      }
    }
  }
  // Each rack's hose, from its tap: the end of supply pipe k for pod-local rack k.
  for (std::size_t r = 0; r < layout_.racks(); ++r) {
    const std::size_t p = layout_.pod_of_rack(r);
    const double a = k.rack[r] / hose_pipe_.cell_capacitance;
    Index upstream = last_cell(p, supply_pipes_[r - p * per_pod]);
    for (std::size_t j = 0; j < hose_cells_; ++j) {
      const Index row = hose_index(r, j);
      term(row, upstream, a);
      term(row, row, -a);
      upstream = row;
    }
  }
}

double PodHeaderTransport::supply_main_capacity_rate(std::size_t pod, double segment_start) const {
  return phase_rates_[flows_.phase_index(segment_start)].supply[pod * layout_.racks_per_pod()];
}

double PodHeaderTransport::return_main_capacity_rate(std::size_t pod, double segment_start) const {
  return phase_rates_[flows_.phase_index(segment_start)].ret[(pod + 1) * layout_.racks_per_pod() - 1];
}

double PodHeaderTransport::supply_delay(std::size_t rack, double segment_start) const {
  const PhaseRates& k = phase_rates_[flows_.phase_index(segment_start)];
  const std::size_t per_pod = layout_.racks_per_pod(), p = layout_.pod_of_rack(rack);
  // V / Q = (rho c_p V) / (rho c_p Q): each pipe's heat capacity over its capacity rate.
  auto delay = [](double capacitance, double rate) {
    return rate > 0.0 ? capacitance / rate : std::numeric_limits<double>::infinity();
  };
  double tau = delay(hose_pipe_.cell_capacitance * static_cast<double>(hose_cells_), k.rack[rack]);
  for (std::size_t m = 0; m <= rack - p * per_pod; ++m)
    tau += delay(supply_pipes_[m].cell_capacitance * static_cast<double>(supply_pipes_[m].count), k.supply[p * per_pod + m]);
  return tau;
}

double PodHeaderTransport::return_delay(std::size_t rack, double segment_start) const {
  const PhaseRates& k = phase_rates_[flows_.phase_index(segment_start)];
  const std::size_t per_pod = layout_.racks_per_pod(), p = layout_.pod_of_rack(rack), local = rack - p * per_pod;
  const std::size_t entry = geometry_.reverse_return ? local : per_pod - 1 - local;
  double tau = 0.0;
  for (std::size_t m = entry; m < per_pod; ++m) {
    const double rate = k.ret[p * per_pod + m];
    tau += rate > 0.0 ? return_pipes_[m].cell_capacitance * static_cast<double>(return_pipes_[m].count) / rate
                      : std::numeric_limits<double>::infinity();
  }
  return tau;
}

double PodHeaderTransport::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    for (const auto* pipes : {&supply_pipes_, &return_pipes_})
      for (const PipeCells& pipe : *pipes)
        for (std::size_t j = 0; j < pipe.count; ++j) e += pipe.cell_capacitance * x[cell_index(p, pipe.first + j)];
  }
  for (std::size_t r = 0; r < layout_.racks(); ++r)
    for (std::size_t j = 0; j < hose_cells_; ++j) e += hose_pipe_.cell_capacitance * x[hose_index(r, j)];
  return e;
}

void PodHeaderTransport::initial_state(double* x) const {
  for (std::size_t i = 0; i < layout_.pods() * cells_per_pod_; ++i) x[index(cell_, static_cast<Index>(i))] = initial_temperature_;
  for (std::size_t i = 0; i < layout_.racks() * hose_cells_; ++i) x[index(hose_, static_cast<Index>(i))] = initial_temperature_;
}

void PodHeaderTransport::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  for_each_term(phase_rates_[flows_.phase_index(ctx.segment_start)],
                [&](Index row, Index column, double a) { xdot[row] += a * x[column]; });
}

void PodHeaderTransport::jacobian_pattern(solver::PatternSink& pattern) const {
  for_each_term(phase_rates_.front(), [&](Index row, Index column, double) { pattern.add(row, column); });
}

void PodHeaderTransport::jacobian(const solver::EvalContext& ctx, const double*, solver::JacobianSink& jac) const {
  for_each_term(phase_rates_[flows_.phase_index(ctx.segment_start)],
                [&](Index row, Index column, double a) { jac.add(row, column, a); });
}

void PodHeaderTransport::compute_outputs(const solver::EvalContext&, const double* x, double* const* values) const {
  for (std::size_t r = 0; r < layout_.racks(); ++r) values[out_rack_supply_][r] = x[rack_inlet_index(r)];
  for (std::size_t p = 0; p < layout_.pods(); ++p) values[out_pod_return_][p] = x[return_outlet_index(p)];
}

// ---------------------------------------------------------------------------------------------
// PodCoolantLoop

PodCoolantLoop::PodCoolantLoop(const FacilityLayout& layout, CoolantConstants coolant, const FlowPlan& flows,
                               const PodHeaderTransport& headers, double header_volume, std::unique_ptr<hx::Cdu> cdu,
                               double supply_setpoint, double initial_temperature)
    : Component("pods"),
      layout_(layout),
      coolant_(coolant),
      flows_(flows),
      headers_(headers),
      cdu_(std::move(cdu)),
      supply_setpoint_(supply_setpoint),
      header_capacitance_(coolant.density * header_volume * coolant.specific_heat),
      initial_temperature_(initial_temperature) {
  const auto pods = static_cast<Index>(layout.pods());
  supply_ = declare_state_group({"supply_temperature", "K", "coolant in each pod's supply header", pods});
  pump_heat_ = declare_state_group({"pump_heat", "J", "pump shaft work turned into heat in the coolant", 1, true});
  out_supply_ = declare_output({"pod", "coolant_supply_temperature", "K", "coolant supplied to the pod's racks", "pod", pods});
  out_pump_power_ = declare_output({"pod", "pump_power", "W", "shaft power of the pod's pumps", "pod", pods});
  if (cdu_) {
    return_ = declare_state_group({"return_temperature", "K", "coolant in each pod's return header (CDU inlet)", pods});
    opening_ = declare_discrete_group({"cdu_valve_command", "1", "CDU facility-water valve opening commanded", pods});
    integral_ = declare_discrete_group({"cdu_controller_integral", "1", "CDU PI controller integral term", pods});
    position_at_command_ =
        declare_discrete_group({"cdu_valve_position_at_command", "1", "CDU valve position at the last command", pods});
    command_time_ = declare_discrete_group({"cdu_valve_command_time", "s", "time of the CDU controllers' last command", 1});
    out_cdu_heat_ = declare_output({"pod", "cdu_heat", "W", "heat the CDU hands to the facility water", "pod", pods});
    out_opening_ = declare_output({"pod", "cdu_valve_opening", "1", "CDU facility-water valve opening", "pod", pods});
    out_command_ =
        declare_output({"pod", "cdu_valve_command", "1", "CDU facility-water valve opening commanded", "pod", pods});
  }
  declare_entity_table({"pod", layout.pod_labels()});
}

double PodCoolantLoop::cdu_conductance(std::size_t pod, const solver::EvalContext& ctx) const {
  if (!cdu_) return 0.0;
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  double it_flow = 0.0;
  for (std::size_t r = pod * layout_.racks_per_pod(); r < (pod + 1) * layout_.racks_per_pod(); ++r)
    it_flow += coolant_.density * phase.rack_flow[r];
  const double facility_flow = cdu_->facility_flow(valve_position(pod, ctx));
  if (it_flow <= 0.0 || facility_flow <= 0.0) return 0.0;
  const double cp_f = cdu_->parameters().facility_specific_heat;
  const auto op = cdu_->evaluate(310.0, it_flow, 300.0, facility_flow, coolant_.specific_heat, cp_f);
  return op.effectiveness * std::min(it_flow * coolant_.specific_heat, facility_flow * cp_f);
}

double PodCoolantLoop::valve_position(std::size_t pod, const solver::EvalContext& ctx) const {
  const auto i = static_cast<Index>(pod);
  return cdu_->travel(ctx.discrete[discrete_index(position_at_command_, i)], ctx.discrete[discrete_index(opening_, i)],
                      ctx.t - ctx.discrete[discrete_index(command_time_)]);
}

double PodCoolantLoop::cdu_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const {
  if (!cdu_) return 0.0;
  return cdu_conductance(pod, ctx) * (x[cdu_return_index(pod)] - x[plant_->supply_index()]);
}

double PodCoolantLoop::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    e += header_capacitance_ * x[supply_index(p)];
    if (cdu_) e += header_capacitance_ * x[cdu_return_index(p)];
  }
  return e;
}

void PodCoolantLoop::initial_state(double* x) const {
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    x[supply_index(p)] = initial_temperature_;
    if (cdu_) x[cdu_return_index(p)] = initial_temperature_;
  }
  x[pump_heat_index()] = 0.0;
}

void PodCoolantLoop::initial_discrete(double* d) const {
  if (!cdu_) return;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    // Bumpless start at half open, as if the loop had been at its set-point.
    const hx::PiState s = cdu_->controller().initial_state(0.5, supply_setpoint_, supply_setpoint_);
    d[discrete_index(opening_, static_cast<Index>(p))] = s.output;
    d[discrete_index(integral_, static_cast<Index>(p))] = s.integral;
    d[discrete_index(position_at_command_, static_cast<Index>(p))] = s.output;
  }
  d[discrete_index(command_time_)] = 0.0;  // the valves are where they were commanded
}

// A new command starts every pod's valve from where it is (its travel so far: the command time
// is shared), so the positions stay continuous at t. While every controller commands what it
// commanded before, nothing changes: each valve travels on from its last command.
bool PodCoolantLoop::update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const {
  bool changed = false;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const auto i = static_cast<Index>(p);
    hx::PiState s{ctx.discrete[discrete_index(integral_, i)], ctx.discrete[discrete_index(opening_, i)]};
    cdu_->control(s, supply_setpoint_, x[supply_index(p)]);
    changed |= s.output != ctx.discrete[discrete_index(opening_, i)];
    d_next[discrete_index(opening_, i)] = s.output;
    d_next[discrete_index(integral_, i)] = s.integral;
  }
  if (!changed) return false;
  for (std::size_t p = 0; p < layout_.pods(); ++p)
    d_next[discrete_index(position_at_command_, static_cast<Index>(p))] = valve_position(p, ctx);
  d_next[discrete_index(command_time_)] = ctx.t;
  return true;
}

void PodCoolantLoop::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  double pump_heat = 0.0;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    // What the return main brings, and what leaves into the supply main (the same flow, its
    // capacity rate summed along each header as the headers' cells take it).
    const double c_in = headers_.return_main_capacity_rate(p, ctx.segment_start);
    const double c_out = headers_.supply_main_capacity_rate(p, ctx.segment_start);
    const double inflow = c_in * x[headers_.return_outlet_index(p)];
    const double pump = phase.pod_pump_power[p];
    pump_heat += pump;
    if (!cdu_) {
      xdot[supply_index(p)] += (inflow - c_out * x[supply_index(p)] + pump) / header_capacitance_;
    } else {
      const double t_pr = x[cdu_return_index(p)], t_ps = x[supply_index(p)];
      xdot[cdu_return_index(p)] += (inflow - c_out * t_pr + pump) / header_capacitance_;
      xdot[supply_index(p)] += (c_out * (t_pr - t_ps) - cdu_heat(p, ctx, x)) / header_capacitance_;
    }
  }
  xdot[pump_heat_index()] += pump_heat;
}

void PodCoolantLoop::jacobian_pattern(solver::PatternSink& pattern) const {
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const Index in = cdu_ ? cdu_return_index(p) : supply_index(p);
    pattern.add(in, in);
    pattern.add(in, headers_.return_outlet_index(p));
    if (cdu_) {
      const Index ps = supply_index(p);
      pattern.add(ps, ps);
      pattern.add(ps, in);
      pattern.add(ps, plant_->supply_index());
    }
  }
}

void PodCoolantLoop::jacobian(const solver::EvalContext& ctx, const double*, solver::JacobianSink& jac) const {
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const Index in = cdu_ ? cdu_return_index(p) : supply_index(p);
    const double c_in = headers_.return_main_capacity_rate(p, ctx.segment_start);
    const double c_out = headers_.supply_main_capacity_rate(p, ctx.segment_start);
    jac.add(in, headers_.return_outlet_index(p), c_in / header_capacitance_);
    jac.add(in, in, -c_out / header_capacitance_);
    if (cdu_) {
      const double k = cdu_conductance(p, ctx);
      const Index ps = supply_index(p);
      jac.add(ps, ps, -c_out / header_capacitance_);
      jac.add(ps, in, (c_out - k) / header_capacitance_);
      jac.add(ps, plant_->supply_index(), k / header_capacitance_);
    }
  }
}

void PodCoolantLoop::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  const FlowPhase& phase = flows_.at(ctx.segment_start);
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    values[out_supply_][p] = x[supply_index(p)];
    values[out_pump_power_][p] = phase.pod_pump_power[p];
    if (cdu_) {
      values[out_cdu_heat_][p] = cdu_heat(p, ctx, x);
      values[out_opening_][p] = valve_position(p, ctx);
      values[out_command_][p] = ctx.discrete[discrete_index(opening_, static_cast<Index>(p))];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// HallAir

HallAir::HallAir(const FacilityLayout& layout, thermal::RoomAir room, const HallAirSource& source, double initial_cold,
                 double initial_hot)
    : Component("hall"),
      layout_(layout),
      room_(std::move(room)),
      source_(source),
      initial_cold_(initial_cold),
      initial_hot_(initial_hot) {
  const auto pods = static_cast<Index>(layout.pods());
  cold_ = declare_state_group({"cold_aisle_temperature", "K", "cold-aisle air (server inlet) of each pod", pods});
  hot_ = declare_state_group({"hot_aisle_temperature", "K", "hot-aisle air (CRAH return) of each pod", pods});
  fan_heat_ = declare_state_group({"fan_heat", "J", "CRAH fan power turned into heat in the air", 1, true});
  out_cold_ = declare_output({"pod", "cold_aisle_temperature", "K", "cold-aisle (server inlet) air", "pod", pods});
  out_hot_ = declare_output({"pod", "hot_aisle_temperature", "K", "hot-aisle (CRAH return) air", "pod", pods});
  out_supply_ = declare_output({"pod", "crah_supply_temperature", "K", "air supplied by the CRAH units", "pod", pods});
  out_coil_ = declare_output({"pod", "crah_coil_heat", "W", "heat the CRAH coils hand to the facility water", "pod", pods});
  declare_entity_table({"pod", layout.pod_labels()});
}

thermal::RoomAirInputs HallAir::inputs(std::size_t pod, const solver::EvalContext& ctx, const double* x) const {
  thermal::RoomAirInputs in;
  in.it_mass_flow = source_.pod_air_flow(pod, ctx);
  in.it_heat = source_.pod_air_heat(pod, ctx, x);
  in.crah_speed = 1.0;
  in.water_supply_temperature = x[plant_->supply_index()];
  return in;
}

HallAir::CoilHeat HallAir::coil_heat(std::size_t pod, const double* x) const {
  thermal::RoomAirInputs in;
  in.crah_speed = 1.0;
  in.water_supply_temperature = x[plant_->supply_index()];
  const auto op = room_.crah(x[hot_index(pod)], in);
  const double m_s = room_.crah_mass_flow(1.0);
  const double eps = room_.crah_parameters().coil_effectiveness;
  // dT_coil/dT_H equals dT_s/dT_H; at the coil's limit T_coil = T_H - eps (T_H - T_w).
  const bool at_limit = eps > 0.0 && std::abs(op.supply_temperature_slope - (1.0 - eps)) < 1e-12;
  const double cp = room_.specific_heat();
  return {op.coil_heat, m_s * cp * (1.0 - op.supply_temperature_slope), at_limit ? -m_s * cp * eps : 0.0};
}

double HallAir::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t p = 0; p < layout_.pods(); ++p)
    e += room_.stored_energy({x[cold_index(p)], x[hot_index(p)]});
  return e;
}

void HallAir::initial_state(double* x) const {
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    x[cold_index(p)] = initial_cold_;
    x[hot_index(p)] = initial_hot_;
  }
  x[fan_heat_index()] = 0.0;
}

void HallAir::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  double fan = 0.0;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const auto in = inputs(p, ctx, x);
    const auto rates = room_.derivatives({x[cold_index(p)], x[hot_index(p)]}, in);
    xdot[cold_index(p)] += rates.cold_aisle;
    xdot[hot_index(p)] += rates.hot_aisle;
    if (room_.crah_parameters().fan_heat_to_air) fan += room_.crah(x[hot_index(p)], in).fan_power;
  }
  xdot[fan_heat_index()] += fan;
}

void HallAir::jacobian_pattern(solver::PatternSink& pattern) const {
  const Index fs = plant_->supply_index();
  std::vector<Index> states;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const Index c = cold_index(p), h = hot_index(p);
    pattern.add(c, c);
    pattern.add(c, h);
    pattern.add(c, fs);
    pattern.add(h, c);
    pattern.add(h, h);
    states.clear();
    source_.pod_air_heat_pattern(p, states);
    for (Index s : states) pattern.add(h, s);
  }
}

void HallAir::jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const {
  const Index fs = plant_->supply_index();
  std::vector<std::pair<Index, double>> terms;
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    const Index c = cold_index(p), h = hot_index(p);
    const auto in = inputs(p, ctx, x);
    const auto j = room_.jacobian({x[c], x[h]}, in);
    jac.add(c, c, j.cold_cold);
    jac.add(c, h, j.cold_hot);
    jac.add(h, c, j.hot_cold);
    jac.add(h, h, j.hot_hot);
    // Q_it enters the hot aisle directly: d(dT_H/dt)/dQ_it = 1 / C_H.
    terms.clear();
    source_.pod_air_heat_jacobian(p, ctx, x, terms);
    for (const auto& [state, derivative] : terms) jac.add(h, state, derivative / room_.hot_aisle_heat_capacity());
    // The CRAH supply follows the water supply while its coil is at its limit.
    const double eps = room_.crah_parameters().coil_effectiveness;
    const auto op = room_.crah(x[h], in);
    if (eps > 0.0 && std::abs(op.supply_temperature_slope - (1.0 - eps)) < 1e-12) {
      const double m_s = room_.crah_mass_flow(1.0);
      jac.add(c, fs, m_s * room_.specific_heat() * eps / room_.cold_aisle_heat_capacity());
    }
  }
}

void HallAir::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  for (std::size_t p = 0; p < layout_.pods(); ++p) {
    values[out_cold_][p] = x[cold_index(p)];
    values[out_hot_][p] = x[hot_index(p)];
    const auto op = room_.crah(x[hot_index(p)], inputs(p, ctx, x));
    values[out_supply_][p] = op.supply_temperature;
    values[out_coil_][p] = op.coil_heat;
  }
}

// ---------------------------------------------------------------------------------------------
// FacilityWaterPlant

core::SectionSchema PlantParameters::schema() {
  using namespace core;
  SectionSchema s;
  s.doc = "Facility water plant: heat rejection, chillers, water-side economizer";
  s.parameters.push_back(choice_parameter("heat_rejection", {"cooling_tower", "dry_cooler"},
                                          "What rejects the heat outdoors (wet bulb or dry bulb)", std::string("cooling_tower")));
  auto p = real_parameter("supply_setpoint", "K", "Facility water supply set-point", 291.15,
                          "Typical chilled-water supply for CRAH coils (18 degC)");
  p.display_unit = "degC";
  at_least(p, 273.15);
  s.parameters.push_back(at_most(p, 318.15));
  p = real_parameter("design_flow", "kg/s", "Facility water flow", 1200.0, "30 MW at a 6 K rise: 30e6 / (4180 x 6) = 1200 kg/s");
  s.parameters.push_back(greater_than(p, 0.0));
  p = real_parameter("pump_power", "W", "Facility water pump power", 300e3, "Estimate: ~1 % of the IT load");
  p.display_unit = "kW";
  s.parameters.push_back(at_least(p, 0.0));
  p = real_parameter("water_volume", "m3", "Water in the facility loop (supply and return headers)", 200.0, "Estimate");
  s.parameters.push_back(greater_than(p, 0.0));
  s.sections["economizer"] = SectionSchema{"Water-side economizer", hx::EconomizerParameters::table(), {}, {}, false};
  s.sections["cooling_tower"] = SectionSchema{"Cooling towers (lumped)", hx::CoolingTowerParameters::table(), {}, {}, false};
  s.sections["dry_cooler"] = SectionSchema{"Dry coolers (lumped)", hx::DryCoolerParameters::table(), {}, {}, false};
  s.sections["chiller"] = SectionSchema{"Chillers (lumped)", hx::ChillerParameters::table(), {}, {}, false};
  return s;
}

PlantParameters PlantParameters::from(const core::ParameterTree& s) {
  PlantParameters p;
  p.heat_rejection = s.text("heat_rejection");
  p.supply_setpoint = s.number("supply_setpoint");
  p.design_flow = s.number("design_flow");
  p.pump_power = s.number("pump_power");
  p.water_volume = s.number("water_volume");
  return p;
}

namespace {
constexpr double water_density = 998.0;         // [kg/m3]
constexpr double water_specific_heat = 4180.0;   // [J/(kg K)]
}  // namespace

FacilityWaterPlant::FacilityWaterPlant(PlantParameters p, std::unique_ptr<hx::WaterSideEconomizer> economizer,
                                       const WeatherSeries& weather, const HallAir& hall, const PodCoolantLoop* pods,
                                       std::size_t pod_count, double initial_temperature)
    : Component("plant"),
      p_(std::move(p)),
      economizer_(std::move(economizer)),
      weather_(weather),
      hall_(hall),
      pods_(pods),
      pod_count_(pod_count),
      capacity_rate_(p_.design_flow * water_specific_heat),
      capacitance_(0.5 * water_density * p_.water_volume * water_specific_heat),
      initial_temperature_(initial_temperature) {
  supply_ = declare_state_group({"supply_temperature", "K", "facility water supply header", 1});
  return_ = declare_state_group({"return_temperature", "K", "facility water return header", 1});
  rejected_ = declare_state_group({"heat_rejected", "J", "heat rejected outdoors by the plant", 1, true});
  out_supply_ = declare_output({"plant", "water_supply_temperature", "K", "facility water supply", "", 1});
  out_return_ = declare_output({"plant", "water_return_temperature", "K", "facility water return", "", 1});
  out_power_ = declare_output({"plant", "power", "W", "plant electrical power: chillers, tower fans, pumps", "", 1});
  out_rejected_ = declare_output({"plant", "heat_removed", "W", "heat taken out of the facility water", "", 1});
  out_dry_ = declare_output({"weather", "dry_bulb_temperature", "K", "outdoor dry-bulb temperature", "", 1});
  out_wet_ = declare_output({"weather", "wet_bulb_temperature", "K", "outdoor wet-bulb temperature", "", 1});
  out_mode_ = declare_output({"plant", "mode", "1", "plant mode: 0 free cooling, 1 partial free cooling, 2 mechanical", "", 1});
}

hx::PlantOperatingPoint FacilityWaterPlant::plant_at(double t, double return_temperature) const {
  const auto w = weather_.at(t);
  hx::PlantDemand demand;
  // The load that brings the return down to the set-point (none when it is already below).
  demand.heat_flow = std::max(0.0, capacity_rate_ * (return_temperature - p_.supply_setpoint));
  demand.supply_setpoint = p_.supply_setpoint;
  demand.facility_water_flow = p_.design_flow;
  demand.facility_water_specific_heat = water_specific_heat;
  demand.pump_power = p_.pump_power;
  return economizer_->evaluate({w.dry_bulb, w.wet_bulb}, demand);
}

hx::PlantOperatingPoint FacilityWaterPlant::steady_operation(double t, double load, double supply_temperature) const {
  const auto w = weather_.at(t);
  hx::PlantDemand demand;
  demand.heat_flow = load;
  demand.supply_setpoint = supply_temperature;
  demand.facility_water_flow = p_.design_flow;
  demand.facility_water_specific_heat = water_specific_heat;
  demand.pump_power = p_.pump_power;
  return economizer_->evaluate({w.dry_bulb, w.wet_bulb}, demand);
}

std::vector<FacilityWaterPlant::DesignPoint> FacilityWaterPlant::design_points(double load, double t0, double t1) const {
  std::vector<double> times{t0};
  for (double t : weather_.times())
    if (t > t0 && t < t1) times.push_back(t);
  if (t1 > t0) times.push_back(t1);
  std::vector<DesignPoint> points;
  points.reserve(times.size());
  for (double t : times) points.push_back({t, steady_operation(t, load, p_.supply_setpoint)});
  return points;
}

FacilityWaterPlant::Operation FacilityWaterPlant::operate(double t, const double* x) const {
  const double t_return = x[return_index()];
  const auto plant = plant_at(t, t_return);
  Operation op;
  // Below the set-point the plant does nothing and the water passes through.
  op.leaving_temperature = t_return <= p_.supply_setpoint ? t_return : plant.supply_temperature;
  const double h = 1e-4;  // [K]
  auto leaving = [&](double tr) { return tr <= p_.supply_setpoint ? tr : plant_at(t, tr).supply_temperature; };
  op.d_return = (leaving(t_return + h) - leaving(t_return - h)) / (2.0 * h);
  op.heat_removed = capacity_rate_ * (t_return - op.leaving_temperature);
  op.power = plant.total_power;
  op.mode = static_cast<int>(plant.mode);
  return op;
}

double FacilityWaterPlant::stored_energy(const double* x) const {
  return capacitance_ * (x[supply_index()] + x[return_index()]);
}

void FacilityWaterPlant::initial_state(double* x) const {
  x[supply_index()] = initial_temperature_;
  x[return_index()] = initial_temperature_;
  x[heat_rejected_index()] = 0.0;
}

void FacilityWaterPlant::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  double load = 0.0;
  for (std::size_t p = 0; p < pod_count_; ++p) {
    load += hall_.coil_heat(p, x).heat;
    if (pods_ != nullptr) load += pods_->cdu_heat(p, ctx, x);
  }
  const auto op = operate(ctx.t, x);
  xdot[return_index()] += (capacity_rate_ * (x[supply_index()] - x[return_index()]) + load) / capacitance_;
  xdot[supply_index()] += capacity_rate_ * (op.leaving_temperature - x[supply_index()]) / capacitance_;
  xdot[heat_rejected_index()] += op.heat_removed;
}

void FacilityWaterPlant::jacobian_pattern(solver::PatternSink& pattern) const {
  const Index s = supply_index(), r = return_index(), e = heat_rejected_index();
  pattern.add(r, r);
  pattern.add(r, s);
  pattern.add(s, s);
  pattern.add(s, r);
  pattern.add(e, r);
  for (std::size_t p = 0; p < pod_count_; ++p) {
    pattern.add(r, hall_.hot_index(p));
    if (pods_ != nullptr && pods_->has_cdu()) pattern.add(r, pods_->cdu_return_index(p));
  }
}

void FacilityWaterPlant::jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const {
  const Index s = supply_index(), r = return_index(), e = heat_rejected_index();
  double d_supply = capacity_rate_;
  for (std::size_t p = 0; p < pod_count_; ++p) {
    const auto coil = hall_.coil_heat(p, x);
    jac.add(r, hall_.hot_index(p), coil.d_hot / capacitance_);
    d_supply += coil.d_water;
    if (pods_ != nullptr && pods_->has_cdu()) {
      const double k = pods_->cdu_conductance(p, ctx);
      jac.add(r, pods_->cdu_return_index(p), k / capacitance_);
      d_supply -= k;
    }
  }
  const auto op = operate(ctx.t, x);
  jac.add(r, s, d_supply / capacitance_);
  jac.add(r, r, -capacity_rate_ / capacitance_);
  jac.add(s, s, -capacity_rate_ / capacitance_);
  jac.add(s, r, capacity_rate_ * op.d_return / capacitance_);
  jac.add(e, r, capacity_rate_ * (1.0 - op.d_return));
}

void FacilityWaterPlant::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  const auto op = operate(ctx.t, x);
  values[out_supply_][0] = x[supply_index()];
  values[out_return_][0] = x[return_index()];
  values[out_power_][0] = op.power;
  values[out_rejected_][0] = op.heat_removed;
  values[out_mode_][0] = op.mode;
  const auto w = weather_.at(ctx.t);
  values[out_dry_][0] = w.dry_bulb;
  values[out_wet_][0] = w.wet_bulb;
}

}  // namespace dctwin::models::facility
