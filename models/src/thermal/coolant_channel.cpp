#include "dctwin/models/thermal/coolant_channel.hpp"

#include "dctwin/core/check.hpp"
#include "dctwin/models/thermal/gpu_package.hpp"

namespace dctwin::models::thermal {

using solver::Index;

core::ParameterTable CoolantProperties::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("density", "kg/m3", "Coolant density (held constant)", 1015.2,
                          "PG25 at 30 degC, Melinder tables via CoolProp ([coolprop-2014])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("specific_heat", "J/(kg K)", "Coolant specific heat capacity (held constant)", 3979.0,
                     "PG25 at 30 degC, Melinder tables via CoolProp ([coolprop-2014])");
  t.push_back(greater_than(p, 0.0));
  return t;
}

CoolantProperties CoolantProperties::from(const core::ParameterTree& s) {
  return {s.number("density"), s.number("specific_heat")};
}

CoolantChannel::CoolantChannel(std::string name, const GpuPackageArray& gpus, ColdPlate plate,
                               CoolantProperties coolant, std::size_t plates_in_series, double total_flow,
                               double supply_temperature, double initial_temperature)
    : Component(std::move(name)),
      gpus_(gpus),
      plate_(plate),
      coolant_(coolant),
      count_(gpus.count()),
      series_(plates_in_series),
      total_flow_(total_flow),
      supply_temperature_(supply_temperature),
      initial_temperature_(initial_temperature) {
  DCTWIN_DEMAND(series_ >= 1 && count_ % series_ == 0, "plates must split into equal series branches");
  DCTWIN_DEMAND(total_flow_ > 0.0, "the coolant flow must be positive");
  capacitance_ = coolant_.density * plate_.parameters().coolant_volume * coolant_.specific_heat;
  branch_capacity_rate_ = coolant_.density * branch_flow() * coolant_.specific_heat;
  plate_resistance_ = plate_.resistance(branch_flow(), branch_capacity_rate_);
  const auto n = static_cast<Index>(count_);
  temperature_ = declare_state_group({"plate_coolant_temperature", "K", "coolant temperature in each cold plate", n});
  heat_removed_ = declare_state_group({"heat_removed", "J", "heat carried away by the coolant", 1, true});
  out_outlet_ = declare_output({"coolant", "plate_outlet_temperature", "K", "coolant temperature leaving each cold plate", "gpu", n});
  out_supply_ = declare_output({"coolant", "supply_temperature", "K", "coolant supply temperature", "", 1});
  out_return_ = declare_output({"coolant", "return_temperature", "K", "mixed coolant return temperature", "", 1});
  out_flow_ = declare_output({"coolant", "flow", "m3/s", "coolant volumetric flow through the server", "", 1});
  out_heat_ = declare_output({"coolant", "heat_removal_rate", "W", "heat carried away by the coolant", "", 1});
}

double CoolantChannel::return_temperature(const double* x) const {
  // Equal branches: the mixed return is the mean of the branch outlets.
  double sum = 0.0;
  for (std::size_t b = 0; b < branches(); ++b) sum += x[temperature_index(b * series_ + series_ - 1)];
  return sum / static_cast<double>(branches());
}

double CoolantChannel::heat_removal_rate(const double* x) const {
  return static_cast<double>(branches()) * branch_capacity_rate_ * (return_temperature(x) - supply_temperature_);
}

double CoolantChannel::stored_energy(const double* x) const {
  double e = 0.0;
  for (std::size_t i = 0; i < count_; ++i) e += capacitance_ * x[temperature_index(i)];
  return e;
}

void CoolantChannel::initial_state(double* x) const {
  for (std::size_t i = 0; i < count_; ++i) x[temperature_index(i)] = initial_temperature_;
  x[heat_removed_index()] = 0.0;
}

void CoolantChannel::derivatives(const solver::EvalContext&, const double* x, double* xdot) const {
  for (std::size_t i = 0; i < count_; ++i) {
    const double tc = x[temperature_index(i)];
    const double t_in = (i % series_ == 0) ? supply_temperature_ : x[temperature_index(i - 1)];
    const double q_bc = (x[gpus_.base_index(i)] - tc) / plate_resistance_;
    xdot[temperature_index(i)] += (branch_capacity_rate_ * (t_in - tc) + q_bc) / capacitance_;
  }
  xdot[heat_removed_index()] += heat_removal_rate(x);
}

void CoolantChannel::jacobian_pattern(solver::PatternSink& pattern) const {
  for (std::size_t i = 0; i < count_; ++i) {
    const Index c = temperature_index(i);
    pattern.add(c, c);
    pattern.add(c, gpus_.base_index(i));
    if (i % series_ != 0) pattern.add(c, temperature_index(i - 1));
  }
  for (std::size_t b = 0; b < branches(); ++b)
    pattern.add(heat_removed_index(), temperature_index(b * series_ + series_ - 1));
}

void CoolantChannel::jacobian(const solver::EvalContext&, const double*, solver::JacobianSink& jac) const {
  const double g = 1.0 / plate_resistance_;
  for (std::size_t i = 0; i < count_; ++i) {
    const Index c = temperature_index(i);
    jac.add(c, c, -(branch_capacity_rate_ + g) / capacitance_);
    jac.add(c, gpus_.base_index(i), g / capacitance_);
    if (i % series_ != 0) jac.add(c, temperature_index(i - 1), branch_capacity_rate_ / capacitance_);
  }
  for (std::size_t b = 0; b < branches(); ++b)
    jac.add(heat_removed_index(), temperature_index(b * series_ + series_ - 1), branch_capacity_rate_);
}

void CoolantChannel::compute_outputs(const solver::EvalContext&, const double* x, double* const* values) const {
  for (std::size_t i = 0; i < count_; ++i) values[out_outlet_][i] = x[temperature_index(i)];
  values[out_supply_][0] = supply_temperature_;
  values[out_return_][0] = return_temperature(x);
  values[out_flow_][0] = total_flow_;
  values[out_heat_][0] = heat_removal_rate(x);
}

}  // namespace dctwin::models::thermal
