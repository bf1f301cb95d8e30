#include "dctwin/models/thermal/cold_plate.hpp"

#include <cmath>

#include "dctwin/solver/check.hpp"

namespace dctwin::models::thermal {

solver::ParameterTable ColdPlateParameters::table() {
  using namespace solver;
  ParameterTable t;
  auto p = real_parameter("resistance_at_nominal_flow", "K/W",
                          "Thermal resistance from plate base to the coolant at the nominal flow", 0.020,
                          "OCP 1 kW OAM cold plate (PG25): 0.0389 K/W at 0.4 L/min to 0.0197 K/W at 2.4 L/min, case to inlet ([modelica-buildings-cold-plate])");
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("nominal_flow", "m3/s", "Flow at which the nominal resistance and pressure drop hold",
                     2.5e-5, "OCP guideline 1.5 L/min per kW ([ocp-liquid-cooling-guideline])");
  p.display_unit = "L/min";
  t.push_back(greater_than(p, 0.0));
  p = real_parameter("resistance_flow_exponent", "1", "n in R = R_nom (Q/Q_nom)^-n", 0.8,
                     "Turbulent forced convection, Nu ~ Re^0.8 (Dittus-Boelter)");
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

ColdPlateParameters ColdPlateParameters::from(const solver::ParameterTree& s) {
  ColdPlateParameters p;
  p.resistance_at_nominal_flow = s.number("resistance_at_nominal_flow");
  p.nominal_flow = s.number("nominal_flow");
  p.resistance_flow_exponent = s.number("resistance_flow_exponent");
  p.pressure_drop_at_nominal_flow = s.number("pressure_drop_at_nominal_flow");
  p.pressure_drop_flow_exponent = s.number("pressure_drop_flow_exponent");
  p.coolant_volume = s.number("coolant_volume");
  return p;
}

double ColdPlate::resistance(double flow) const {
  DCTWIN_DEMAND(flow > 0.0, "cold-plate resistance needs a positive flow");
  return p_.resistance_at_nominal_flow * std::pow(flow / p_.nominal_flow, -p_.resistance_flow_exponent);
}

double ColdPlate::pressure_drop(double flow) const {
  DCTWIN_DEMAND(flow >= 0.0, "cold-plate pressure drop needs a non-negative flow");
  return p_.pressure_drop_at_nominal_flow * std::pow(flow / p_.nominal_flow, p_.pressure_drop_flow_exponent);
}

}  // namespace dctwin::models::thermal
