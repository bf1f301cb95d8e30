#include "dctwin/models/facility/air_cooling.hpp"

#include <algorithm>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"

namespace dctwin::models::facility {

using solver::Index;

AirCooledServers::AirCooledServers(const FacilityLayout& layout, thermal::ServerAirPath path, thermal::ServerFans fans,
                                   thermal::FanController controller, double other_heat, double chassis_capacitance,
                                   const thermal::GpuPackageArray& gpus, double initial_temperature)
    : Component("servers"),
      layout_(layout),
      path_(std::move(path)),
      fans_(fans),
      controller_(std::move(controller)),
      other_heat_(other_heat),
      capacitance_(chassis_capacitance),
      initial_temperature_(initial_temperature),
      gpus_(gpus) {
  if (path_.gpu_count() != layout.gpus_per_server())
    throw core::InputError("facility.air_path: " + std::to_string(path_.gpu_count()) + " GPU slots but a server holds " +
                                 std::to_string(layout.gpus_per_server()) + " GPUs (inconsistent topology)",
                             "facility.air_path");
  density_ = path_.air().density(initial_temperature);
  specific_heat_ = path_.air().specific_heat(initial_temperature);
  for (std::size_t i = 0; i < path_.gpu_count(); ++i) phi_.push_back(path_.slots()[i].position_fraction);
  const auto& control = controller_.parameters();
  // (A grid finer than 1e-4 of full speed is left to the bisection.)
  if (control.speed_resolution >= 1e-4) {
    for (long k = 0; static_cast<double>(k) * control.speed_resolution <= 1.0 + control.speed_resolution; ++k) {
      const double speed = controller_.quantize(static_cast<double>(k) * control.speed_resolution);
      flow_table_.emplace_back(speed, fans_.operating_point(speed).flow);
    }
    std::sort(flow_table_.begin(), flow_table_.end());
    flow_table_.erase(std::unique(flow_table_.begin(), flow_table_.end()), flow_table_.end());
  }
  const auto servers = static_cast<Index>(layout.servers());
  exhaust_ = declare_state_group({"exhaust_temperature", "K", "air leaving each server (with its chassis)", servers});
  server_heat_ = declare_state_group(
      {"server_air_heat", "J", "heat of the servers' parts besides the GPUs: CPUs, memory, NICs, fans and PSU losses", 1,
       true});
  speed_ = declare_discrete_group({"fan_speed", "1", "server fan speed written by the controller", servers});
  integral_ = declare_discrete_group({"fan_controller_integral", "1", "fan controller integral term", servers});
  flow_ = declare_discrete_group({"air_flow", "m3/s", "server air flow at the written fan speed", servers});
  speed_at_write_ = declare_discrete_group({"fan_speed_at_write", "1", "server fan speed at the last write", servers});
  flow_at_write_ = declare_discrete_group({"air_flow_at_write", "m3/s", "server air flow at the last write", servers});
  write_time_ = declare_discrete_group({"fan_write_time", "s", "time of the fan controllers' last write", 1});
  out_exhaust_ = declare_output({"server", "exhaust_air_temperature", "K", "air leaving the server", "server", servers});
  out_speed_ = declare_output({"server", "fan_speed", "1", "server fan speed", "server", servers});
  out_written_speed_ =
      declare_output({"server", "fan_speed_written", "1", "server fan speed written by the controller", "server", servers});
  out_fan_power_ = declare_output({"server", "fan_power", "W", "server fan power", "server", servers});
  std::vector<std::string> labels;
  const auto gpu_labels = layout.gpu_labels();
  for (std::size_t s = 0; s < layout.servers(); ++s) {
    const std::string& g = gpu_labels[s * layout.gpus_per_server()];
    labels.push_back(g.substr(0, g.rfind('/')));
  }
  declare_entity_table({"server", std::move(labels)});
  declare_entity_table({"rack", layout.rack_labels()});  // the layout's rack map refers to it
}

double AirCooledServers::lag_remaining(const solver::EvalContext& ctx) const {
  // Not before the write (a run that starts before the initial write time of 0 s).
  return fans_.lag_remaining(std::max(0.0, ctx.t - ctx.discrete[discrete_index(write_time_)]));
}
double AirCooledServers::written_fan_speed(std::size_t s, const solver::EvalContext& ctx) const {
  return ctx.discrete[discrete_index(speed_, static_cast<Index>(s))];
}
namespace {
/// x(t) = x_w + (x(t_w) - x_w) a: exactly x(t_w) at the write itself (a = 1), the value the write
/// took from the lag before it, and exactly x_w once the two are equal (a rotor at its speed).
double lagged(double written, double at_write, double remaining) {
  return remaining == 1.0 ? at_write : written + (at_write - written) * remaining;
}
}  // namespace

double AirCooledServers::fan_speed(std::size_t s, const solver::EvalContext& ctx, double remaining) const {
  const auto i = static_cast<Index>(s);
  return lagged(ctx.discrete[discrete_index(speed_, i)], ctx.discrete[discrete_index(speed_at_write_, i)], remaining);
}
double AirCooledServers::air_flow(std::size_t s, const solver::EvalContext& ctx, double remaining) const {
  const auto i = static_cast<Index>(s);
  return lagged(ctx.discrete[discrete_index(flow_, i)], ctx.discrete[discrete_index(flow_at_write_, i)], remaining);
}
double AirCooledServers::fan_speed(std::size_t s, const solver::EvalContext& ctx) const {
  return fan_speed(s, ctx, lag_remaining(ctx));
}
double AirCooledServers::air_flow(std::size_t s, const solver::EvalContext& ctx) const {
  return air_flow(s, ctx, lag_remaining(ctx));
}
double AirCooledServers::fan_power(std::size_t s, const solver::EvalContext& ctx) const {
  return fans_.power(fan_speed(s, ctx));
}
void AirCooledServers::add_pod_fan_power(const solver::EvalContext& ctx, std::vector<double>& power) const {
  const double remaining = lag_remaining(ctx);
  const std::size_t per_pod = layout_.servers() / layout_.pods();
  for (std::size_t s = 0; s < layout_.servers(); ++s) power[s / per_pod] += fans_.power(fan_speed(s, ctx, remaining));
}

double AirCooledServers::flow_at(double speed) const {
  const auto at = std::lower_bound(flow_table_.begin(), flow_table_.end(), std::make_pair(speed, -1.0));
  if (at != flow_table_.end() && at->first == speed) return at->second;
  return fans_.operating_point(speed).flow;  // a speed off the grid (a slew-limited step)
}


double AirCooledServers::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t s = 0; s < layout_.servers(); ++s) e += capacitance_ * x[exhaust_index(s)];
  return e;
}

std::array<std::pair<Index, double>, 2> AirCooledServers::environment_terms(std::size_t g) const {
  const std::size_t s = layout_.server_of_gpu(g);
  const double phi = phi_[g % layout_.gpus_per_server()];
  const Index cold = hall_->cold_index(layout_.pod_of_rack(layout_.rack_of_gpu(g)));
  return {{{cold, 1.0 - phi}, {exhaust_index(s), phi}}};
}

double AirCooledServers::environment_resistance(std::size_t g, const solver::EvalContext& ctx) const {
  return path_.case_to_air_resistance(air_flow(layout_.server_of_gpu(g), ctx));
}

void AirCooledServers::environment_coefficients(std::size_t first, std::size_t last, const solver::EvalContext& ctx,
                                                Coefficients* out) const {
  const double remaining = lag_remaining(ctx);
  std::size_t server = layout_.servers();
  double resistance = 0.0;
  for (std::size_t g = first; g < last; ++g) {
    const std::size_t s = layout_.server_of_gpu(g);
    if (s != server) {
      server = s;
      resistance = path_.case_to_air_resistance(air_flow(s, ctx, remaining));
    }
    out[g - first] = {environment_terms(g), resistance};
  }
}

double AirCooledServers::pod_air_flow(std::size_t pod, const solver::EvalContext& ctx) const {
  const std::size_t per_pod = layout_.racks_per_pod() * layout_.servers_per_rack();
  const double remaining = lag_remaining(ctx);
  double m = 0.0;
  for (std::size_t s = pod * per_pod; s < (pod + 1) * per_pod; ++s) m += density_ * air_flow(s, ctx, remaining);
  return m;
}

double AirCooledServers::pod_air_heat(std::size_t pod, const solver::EvalContext& ctx, const double* x) const {
  const std::size_t per_pod = layout_.racks_per_pod() * layout_.servers_per_rack();
  const double t_cold = x[hall_->cold_index(pod)];
  const double remaining = lag_remaining(ctx);
  double q = 0.0;
  for (std::size_t s = pod * per_pod; s < (pod + 1) * per_pod; ++s)
    q += density_ * air_flow(s, ctx, remaining) * specific_heat_ * (x[exhaust_index(s)] - t_cold);
  return q;
}

void AirCooledServers::pod_air_heat_pattern(std::size_t pod, std::vector<Index>& states) const {
  const std::size_t per_pod = layout_.racks_per_pod() * layout_.servers_per_rack();
  states.push_back(hall_->cold_index(pod));
  for (std::size_t s = pod * per_pod; s < (pod + 1) * per_pod; ++s) states.push_back(exhaust_index(s));
}

void AirCooledServers::pod_air_heat_jacobian(std::size_t pod, const solver::EvalContext& ctx, const double*,
                                             std::vector<std::pair<Index, double>>& terms) const {
  const std::size_t per_pod = layout_.racks_per_pod() * layout_.servers_per_rack();
  const double remaining = lag_remaining(ctx);
  double sum = 0.0;
  for (std::size_t s = pod * per_pod; s < (pod + 1) * per_pod; ++s) {
    const double c_air = density_ * air_flow(s, ctx, remaining) * specific_heat_;
    sum += c_air;
    terms.emplace_back(exhaust_index(s), c_air);
  }
  terms.emplace_back(hall_->cold_index(pod), -sum);
}

void AirCooledServers::initial_state(double* x) const {
  for (std::size_t s = 0; s < layout_.servers(); ++s) x[exhaust_index(s)] = initial_temperature_;
  x[server_heat_index()] = 0.0;
}

void AirCooledServers::initial_discrete(double* d) const {
  // Fans start at full speed, as a BMC does at power-on, and settle under the controller.
  const auto state = controller_.initial_state(controller_.parameters().max_speed);
  const auto op = fans_.operating_point(state.speed);
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const auto i = static_cast<Index>(s);
    d[discrete_index(speed_, i)] = state.speed;
    d[discrete_index(integral_, i)] = state.integral;
    d[discrete_index(flow_, i)] = op.flow;
    d[discrete_index(speed_at_write_, i)] = state.speed;
    d[discrete_index(flow_at_write_, i)] = op.flow;
  }
  d[discrete_index(write_time_)] = 0.0;  // the rotors are at the written speed: a = 1 changes nothing
}

// Each server's controller writes a speed w_s. When one of them writes a new one, the lag of every
// server starts again at t from where its rotors are (u_s(t), V_s(t) of the lag so far: the write
// time is shared), which leaves u_s and V_s continuous at t. While every controller writes the
// speed it wrote before, nothing changes: the lags go on from their write, an exponential that
// takes the same course from any point of it.
bool AirCooledServers::update_discrete(const solver::EvalContext& ctx, const double* x, double* d_next) const {
  const std::size_t n = layout_.gpus_per_server();
  const double remaining = lag_remaining(ctx);
  bool changed = false;
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const auto i = static_cast<Index>(s);
    double hottest = x[gpus_.junction_index(s * n)];
    for (std::size_t g = s * n + 1; g < (s + 1) * n; ++g) hottest = std::max(hottest, x[gpus_.junction_index(g)]);
    thermal::FanControllerState state{ctx.discrete[discrete_index(speed_, i)], ctx.discrete[discrete_index(integral_, i)]};
    thermal::FanControllerInputs inputs;
    inputs.temperature = hottest;
    const double speed = controller_.step(state, inputs);
    d_next[discrete_index(speed_, i)] = state.speed;
    d_next[discrete_index(integral_, i)] = state.integral;
    if (speed != ctx.discrete[discrete_index(speed_, i)]) {
      d_next[discrete_index(flow_, i)] = flow_at(speed);
      changed = true;
    }
  }
  if (!changed) return false;
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const auto i = static_cast<Index>(s);
    d_next[discrete_index(speed_at_write_, i)] = fan_speed(s, ctx, remaining);
    d_next[discrete_index(flow_at_write_, i)] = air_flow(s, ctx, remaining);
  }
  d_next[discrete_index(write_time_)] = ctx.t;
  return true;
}

void AirCooledServers::derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const {
  const std::size_t n = layout_.gpus_per_server();
  const double remaining = lag_remaining(ctx);
  double heat = 0.0;
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const double t_cold = x[hall_->cold_index(layout_.pod_of_rack(s / layout_.servers_per_rack()))];
    const double t_x = x[exhaust_index(s)];
    const double flow = air_flow(s, ctx, remaining);
    const double g_hs = 1.0 / path_.case_to_air_resistance(flow);
    const double fans = fans_.power(fan_speed(s, ctx, remaining));
    double q = other_heat_ + fans + psu_loss(fans);
    heat += q;
    for (std::size_t k = 0; k < n; ++k) {
      const double t_e = (1.0 - phi_[k]) * t_cold + phi_[k] * t_x;
      q += g_hs * (x[gpus_.base_index(s * n + k)] - t_e);
    }
    q -= density_ * flow * specific_heat_ * (t_x - t_cold);
    xdot[exhaust_index(s)] += q / capacitance_;
  }
  xdot[server_heat_index()] += heat;
}

void AirCooledServers::jacobian_pattern(solver::PatternSink& pattern) const {
  const std::size_t n = layout_.gpus_per_server();
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const Index x = exhaust_index(s);
    pattern.add(x, x);
    pattern.add(x, hall_->cold_index(layout_.pod_of_rack(s / layout_.servers_per_rack())));
    for (std::size_t g = s * n; g < (s + 1) * n; ++g) pattern.add(x, gpus_.base_index(g));
  }
}

void AirCooledServers::jacobian(const solver::EvalContext& ctx, const double*, solver::JacobianSink& jac) const {
  const std::size_t n = layout_.gpus_per_server();
  const double remaining = lag_remaining(ctx);
  double phi_sum = 0.0;
  for (double p : phi_) phi_sum += p;
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const Index x = exhaust_index(s);
    const Index cold = hall_->cold_index(layout_.pod_of_rack(s / layout_.servers_per_rack()));
    const double flow = air_flow(s, ctx, remaining);
    const double g_hs = 1.0 / path_.case_to_air_resistance(flow);
    const double c_air = density_ * flow * specific_heat_;
    jac.add(x, x, (-g_hs * phi_sum - c_air) / capacitance_);
    jac.add(x, cold, (-g_hs * (static_cast<double>(n) - phi_sum) + c_air) / capacitance_);
    for (std::size_t g = s * n; g < (s + 1) * n; ++g) jac.add(x, gpus_.base_index(g), g_hs / capacitance_);
  }
}

void AirCooledServers::compute_outputs(const solver::EvalContext& ctx, const double* x, double* const* values) const {
  const double remaining = lag_remaining(ctx);
  for (std::size_t s = 0; s < layout_.servers(); ++s) {
    const double speed = fan_speed(s, ctx, remaining);
    values[out_exhaust_][s] = x[exhaust_index(s)];
    values[out_speed_][s] = speed;
    values[out_written_speed_][s] = written_fan_speed(s, ctx);
    values[out_fan_power_][s] = fans_.power(speed);
  }
}

}  // namespace dctwin::models::facility
