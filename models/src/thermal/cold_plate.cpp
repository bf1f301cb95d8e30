#include "dctwin/models/thermal/cold_plate.hpp"

#include <algorithm>
#include <cmath>

#include "dctwin/core/check.hpp"

namespace dctwin::models::thermal {

core::ParameterTable ColdPlateParameters::table() {
  using namespace core;
  ParameterTable t;
  auto p = real_parameter("resistance_at_nominal_flow", "K/W",
                          "R_nom: convective resistance 1/(h A) from plate base to coolant at the nominal flow; "
                          "with the coolant's capacity rate it gives the plate's effectiveness (eps-NTU)",
                          0.016,
                          "Fitted [E] to the OCP 1 kW OAM cold plate with PG25, 14 points of case-to-inlet "
                          "resistance, 0.0389 K/W at 0.4 L/min to 0.0197 K/W at 2.4 L/min "
                          "([ocp-oai-cold-plate-2023] Fig. 7, as in [modelica-buildings-cold-plate]): "
                          "R_ci = 1/(eps rho c_p Q) within 8.3 % at every point (docs/models/single-node.md)");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_flow", "m3/s", "Flow at which the nominal resistance and pressure drop hold",
                     2.5e-5, "OCP guideline 1.5 L/min per kW ([ocp-liquid-cooling-guideline])");
  p.display_unit = "L/min";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("resistance_flow_exponent", "1", "n in R_conv = R_nom (Q/Q_nom)^-n", 0.0,
                     "Fitted [E] with R_nom to [ocp-oai-cold-plate-2023] Fig. 7: least squares under n >= 0 ends "
                     "at n = 0 (unconstrained -0.10); h independent of flow, as in fully developed laminar "
                     "flow ([incropera-2007] section 8.4). The data's own fall, R_ci ~ Q^-0.35, is the "
                     "coolant's heat capacity, 1/(eps rho c_p Q)");
  at_least(p, 0.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("pressure_drop_at_nominal_flow", "Pa", "Pressure drop across the plate at the nominal flow",
                     50e3, "OCP cold-plate data, 50 kPa nominal ([modelica-buildings-cold-plate])");
  p.display_unit = "kPa";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("pressure_drop_flow_exponent", "1", "m in dp = dp_nom (Q/Q_nom)^m", 1.85,
                     "OCP cold-plate data, Q/Q_nom = (dp/dp_nom)^(1/1.85) ([modelica-buildings-cold-plate])");
  greater_than(p, 1.0);
  t.push_back(at_most(p, 2.0));
  p = real_parameter("coolant_volume", "m3", "Coolant held inside one plate", 25e-6,
                     "Estimate for a GPU cold plate with its hoses; gives the ~2 s outlet lag of [modelica-buildings-cold-plate] at 1 L/min");
  p.display_unit = "mL";
  t.push_back(greater_than(p, 0.0));
  return t;
}

ColdPlateParameters ColdPlateParameters::from(const core::ParameterTree& s) {
  ColdPlateParameters p;
  p.resistance_at_nominal_flow = s.number("resistance_at_nominal_flow");
  p.nominal_flow = s.number("nominal_flow");
  p.resistance_flow_exponent = s.number("resistance_flow_exponent");
  p.pressure_drop_at_nominal_flow = s.number("pressure_drop_at_nominal_flow");
  p.pressure_drop_flow_exponent = s.number("pressure_drop_flow_exponent");
  p.coolant_volume = s.number("coolant_volume");
  return p;
}

double ColdPlate::convective_resistance(double flow) const {
  DCTWIN_DEMAND(flow > 0.0, "cold-plate resistance needs a positive flow");
  return p_.resistance_at_nominal_flow * std::pow(flow / p_.nominal_flow, -p_.resistance_flow_exponent);
}

double ColdPlate::resistance(double flow, double capacity_rate) const {
  DCTWIN_DEMAND(capacity_rate > 0.0, "cold-plate resistance needs a positive capacity rate");
  // R_cp = 1 / (C (exp(NTU) - 1)); expm1 keeps it exact at small NTU, where R_cp -> R_conv - 1/(2C).
  const double ntu = std::min(1.0 / (convective_resistance(flow) * capacity_rate), max_transfer_units);
  return 1.0 / (capacity_rate * std::expm1(ntu));
}

double ColdPlate::case_to_inlet_resistance(double flow, double capacity_rate) const {
  return resistance(flow, capacity_rate) + 1.0 / capacity_rate;
}

double ColdPlate::pressure_drop(double flow) const {
  DCTWIN_DEMAND(flow >= 0.0, "cold-plate pressure drop needs a non-negative flow");
  return p_.pressure_drop_at_nominal_flow * std::pow(flow / p_.nominal_flow, p_.pressure_drop_flow_exponent);
}

}  // namespace dctwin::models::thermal
