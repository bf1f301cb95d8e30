// Cold plate: heat transfer from the plate base to the coolant inside it, and pressure drop, as
// functions of the volumetric flow Q through the plate.
//
// The base is isothermal at T_b and the coolant enters at T_in with capacity rate C = rho c_p Q.
// With a convective resistance R_conv = 1/(h A) between base and coolant, the plate is a heat
// exchanger with one stream (effectiveness-NTU method, e.g. Incropera et al., Fundamentals of Heat
// and Mass Transfer, 6th ed., eq. 11.35a with C_r = 0):
//
//   R_conv(Q) = R_nom (Q / Q_nom)^(-n)
//   NTU       = 1 / (R_conv C),   eps = 1 - exp(-NTU)
//   q         = eps C (T_b - T_in)                  => case-to-inlet R_ci = 1 / (eps C)
//
// The coolant in the plate is one well-mixed volume whose temperature T_c is the plate's outlet
// temperature (thermal/coolant_channel.hpp). The base couples to it through R_cp, chosen so that
// the volume's steady state carries exactly the heat of the exchanger above:
//
//   R_cp = R_ci - 1/C = 1 / (C (exp(NTU) - 1))
//
// R_cp falls toward 0 as the flow falls (the outlet approaches the base temperature) and toward
// R_conv at high flow. NTU is held at most 14 (eps = 1 - 8e-7) so that the conductance stays
// finite at small flows.
//
//   dp(Q) = dp_nom * (Q / Q_nom)^m          m = 1.85 (OCP cold-plate data: Q/Q_nom = (dp/dp_nom)^(1/1.85))
#pragma once

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::thermal {

struct ColdPlateParameters {
  double resistance_at_nominal_flow = 0.016;  ///< R_nom [K/W]: convective, base to coolant, at Q_nom
  double nominal_flow = 2.5e-5;               ///< [m3/s] (1.5 L/min)
  double resistance_flow_exponent = 0.0;      ///< n [1]
  double pressure_drop_at_nominal_flow = 50e3;///< [Pa]
  double pressure_drop_flow_exponent = 1.85;  ///< m [1]
  double coolant_volume = 25e-6;              ///< [m3] coolant held inside the plate

  static core::ParameterTable table();
  static ColdPlateParameters from(const core::ParameterTree& section);
};

class ColdPlate {
 public:
  explicit ColdPlate(ColdPlateParameters p) : p_(p) {}
  /// Largest number of transfer units the plate is given (see above).
  static constexpr double max_transfer_units = 14.0;
  /// R_conv = 1/(h A) at volumetric flow Q > 0 [K/W].
  [[nodiscard]] double convective_resistance(double flow) const;
  /// R_cp: base to the plate's well-mixed coolant (its outlet temperature) at flow Q > 0 with the
  /// coolant's capacity rate C = rho c_p Q [W/K]; [K/W].
  [[nodiscard]] double resistance(double flow, double capacity_rate) const;
  /// R_ci = (T_b - T_in) / q at steady state: R_cp + 1/C [K/W].
  [[nodiscard]] double case_to_inlet_resistance(double flow, double capacity_rate) const;
  /// Pressure drop at volumetric flow Q >= 0 [Pa].
  [[nodiscard]] double pressure_drop(double flow) const;
  [[nodiscard]] const ColdPlateParameters& parameters() const { return p_; }

 private:
  ColdPlateParameters p_;
};

}  // namespace dctwin::models::thermal
