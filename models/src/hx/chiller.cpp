#include "dctwin/models/hx/chiller.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

constexpr double kelvin_offset = 273.15;

double biquadratic(const std::array<double, 6>& c, double x, double y) {
  return c[0] + c[1] * x + c[2] * x * x + c[3] * y + c[4] * y * y + c[5] * x * y;
}

double quadratic(const std::array<double, 3>& c, double x) { return c[0] + c[1] * x + c[2] * x * x; }

}  // namespace

ChillerCurves ChillerCurves::doe2_centrifugal() {
  // EnergyPlus Input-Output Reference, Chiller:Electric:EIR example "DOE-2 Centrifugal/5.50COP".
  ChillerCurves c{};
  c.capacity_temperature = {0.257896, 0.0389016, -0.00021708, 0.0468684, -0.00094284, -0.00034344};
  c.eir_temperature = {0.933884, -0.058212, 0.00450036, 0.00243, 0.000486, -0.001215};
  c.eir_part_load = {0.222903, 0.313387, 0.463710};
  c.reference_leaving_chilled_water_temperature = kelvin_offset + 6.67;
  c.reference_entering_condenser_temperature = kelvin_offset + 29.4;
  c.min_leaving_chilled_water_temperature = kelvin_offset + 5.0;
  c.max_leaving_chilled_water_temperature = kelvin_offset + 10.0;
  c.min_entering_condenser_temperature = kelvin_offset + 24.0;
  c.max_entering_condenser_temperature = kelvin_offset + 35.0;
  return c;
}

core::ParameterTable ChillerParameters::table() {
  using namespace core;
  const ChillerParameters d;
  ParameterTable t;
  auto p = real_parameter("reference_capacity", "W", "Cooling capacity at 6.67 degC leaving chilled water, 29.4 degC entering condenser water",
                          d.reference_capacity, "Sized for one 2 MW CDU [E]");
  p.display_unit = "kW";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("reference_cop", "1", "COP at the reference temperatures and full load", d.reference_cop,
                     "EnergyPlus DOE-2 Centrifugal/5.50COP");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("minimum_part_load_ratio", "1", "Below this part-load ratio the compressor cycles",
                     d.minimum_part_load_ratio, "EnergyPlus DOE-2 Centrifugal/5.50COP");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("minimum_unloading_ratio", "1", "Below this part-load ratio the chiller false-loads",
                     d.minimum_unloading_ratio, "EnergyPlus DOE-2 Centrifugal/5.50COP");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  p = real_parameter("maximum_part_load_ratio", "1", "Largest load as a fraction of the available capacity",
                     d.maximum_part_load_ratio, "EnergyPlus DOE-2 Centrifugal/5.50COP");
  greater_than(p, 0.0);
  t.push_back(at_most(p, 1.5));
  p = real_parameter("condenser_heat_fraction", "1", "Share of the compressor power rejected in the condenser",
                     d.condenser_heat_fraction, "Hermetic motor: 1 (EnergyPlus default)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 1.0));
  return t;
}

ChillerParameters ChillerParameters::from(const core::ParameterTree& s) {
  ChillerParameters p;
  p.reference_capacity = s.number("reference_capacity");
  p.reference_cop = s.number("reference_cop");
  p.minimum_part_load_ratio = s.number("minimum_part_load_ratio");
  p.minimum_unloading_ratio = s.number("minimum_unloading_ratio");
  p.maximum_part_load_ratio = s.number("maximum_part_load_ratio");
  p.condenser_heat_fraction = s.number("condenser_heat_fraction");
  return p;
}

Chiller::Chiller(ChillerParameters p, std::string section) : p_(p) {
  const ParameterCheck check(std::move(section));
  check.positive("reference_capacity", p_.reference_capacity, "W");
  check.positive("reference_cop", p_.reference_cop, "");
  check.in_range("minimum_part_load_ratio", p_.minimum_part_load_ratio, 0.0, 1.0, "");
  check.in_range("minimum_unloading_ratio", p_.minimum_unloading_ratio, 0.0, 1.0, "");
  check.in_half_open_range("maximum_part_load_ratio", p_.maximum_part_load_ratio, 0.0, 1.5, "");
  check.in_range("condenser_heat_fraction", p_.condenser_heat_fraction, 0.0, 1.0, "");
  const ChillerCurves& c = p_.curves;
  const double x = c.reference_leaving_chilled_water_temperature - kelvin_offset;
  const double y = c.reference_entering_condenser_temperature - kelvin_offset;
  capacity_normalisation_ = biquadratic(c.capacity_temperature, x, y);
  eir_normalisation_ = biquadratic(c.eir_temperature, x, y);
  if (!(capacity_normalisation_ > 0.0 && eir_normalisation_ > 0.0))
    check.fail("the performance curves are not positive at the reference point");
}

double Chiller::available_capacity(double leaving, double entering) const {
  const ChillerCurves& c = p_.curves;
  const double x = std::clamp(leaving, c.min_leaving_chilled_water_temperature, c.max_leaving_chilled_water_temperature);
  const double y = std::clamp(entering, c.min_entering_condenser_temperature, c.max_entering_condenser_temperature);
  return p_.reference_capacity * biquadratic(c.capacity_temperature, x - kelvin_offset, y - kelvin_offset) /
         capacity_normalisation_;
}

ChillerOperatingPoint Chiller::evaluate(double load, double leaving, double entering) const {
  DCTWIN_DEMAND(load >= 0.0, "chiller load must be non-negative");
  const ChillerCurves& c = p_.curves;
  ChillerOperatingPoint r;
  const double x = std::clamp(leaving, c.min_leaving_chilled_water_temperature, c.max_leaving_chilled_water_temperature);
  const double y = std::clamp(entering, c.min_entering_condenser_temperature, c.max_entering_condenser_temperature);
  r.curves_clamped = x != leaving || y != entering;
  r.capacity_modifier = biquadratic(c.capacity_temperature, x - kelvin_offset, y - kelvin_offset) / capacity_normalisation_;
  r.eir_modifier = biquadratic(c.eir_temperature, x - kelvin_offset, y - kelvin_offset) / eir_normalisation_;
  r.available_capacity = p_.reference_capacity * r.capacity_modifier;
  if (load == 0.0 || r.available_capacity <= 0.0) {
    r.unmet_load = load;
    return r;
  }
  r.cooling = std::min(load, p_.maximum_part_load_ratio * r.available_capacity);
  r.unmet_load = load - r.cooling;
  r.part_load_ratio = r.cooling / r.available_capacity;
  const double operating_ratio = std::max(r.part_load_ratio, p_.minimum_unloading_ratio);
  r.cycling_ratio = p_.minimum_part_load_ratio > 0.0 ? std::min(1.0, r.part_load_ratio / p_.minimum_part_load_ratio) : 1.0;
  r.part_load_modifier = quadratic(c.eir_part_load, operating_ratio);
  r.electric_power = r.available_capacity / p_.reference_cop * r.eir_modifier * r.part_load_modifier * r.cycling_ratio;
  r.condenser_heat_flow = r.cooling + p_.condenser_heat_fraction * r.electric_power;
  r.cop = r.electric_power > 0.0 ? r.cooling / r.electric_power : 0.0;
  return r;
}

}  // namespace dctwin::models::hx
