// Conductance UA of a heat exchanger at off-design flows, from its nominal UA split into the two
// convective resistances in series (wall resistance and fouling neglected or lumped into them):
//
//   1 / UA = 1 / hA_1 + 1 / hA_2,      hA_i = hA_i,0 (m_i / m_i,0)^n_i
//
// With r = hA_1,0 / hA_2,0 (the nominal ratio of the two convective conductances, i.e. the ratio
// R_2,0 / R_1,0 of the resistances) the nominal split that reproduces the nominal UA_0 is
//
//   hA_1,0 = UA_0 (1 + r),     hA_2,0 = UA_0 (1 + r) / r,
//
// so UA(m_1,0, m_2,0) = UA_0 exactly (to rounding) and UA(m_1, m_2) = UA_0 g(m_1, m_2) with
//
//   g = (1 + r) / ( (m_1 / m_1,0)^-n_1 + r (m_2 / m_2,0)^-n_2 ).
//
// For a coil, stream 1 is the air side (n_1 = 0.8) and stream 2 the water side (n_2 = 0.85), with
// r = 2/3 by default: the convention of the Modelica Buildings library's dry-coil
// epsilon-NTU model (Buildings.Fluid.HeatExchangers.DryCoilEffectivenessNTU, parameter r_nominal;
// exponents from [modelica-buildings-dry-coil]). Exponents of turbulent forced convection: Nu ~ Re^0.8
// (Dittus-Boelter); plate heat exchangers use Re^0.67-0.78 (see hx/cdu.hpp).
//
// A stream with zero flow has hA = 0 and the exchanger UA = 0. Flows must be >= 0.
#pragma once

namespace dctwin::models::hx {

struct UaScalingParameters {
  double nominal_ua = 1.0;                ///< UA_0 [W/K] at the nominal flows
  double conductance_ratio = 2.0 / 3.0;   ///< r = hA_1,0 / hA_2,0 [1]
  double first_nominal_flow = 1.0;        ///< m_1,0 [kg/s]
  double second_nominal_flow = 1.0;       ///< m_2,0 [kg/s]
  double first_flow_exponent = 0.8;       ///< n_1 [1] (air side of a coil)
  double second_flow_exponent = 0.85;     ///< n_2 [1] (water side of a coil)
};

class UaScaling {
 public:
  /// Checks the parameters (throws core::InputError, section "<section>").
  explicit UaScaling(UaScalingParameters p, const char* section = "ua_scaling");

  /// UA [W/K] at flows m_1, m_2 >= 0 [kg/s].
  [[nodiscard]] double ua(double first_flow, double second_flow) const;
  /// hA_1 [W/K] at flow m_1.
  [[nodiscard]] double first_conductance(double first_flow) const;
  /// hA_2 [W/K] at flow m_2.
  [[nodiscard]] double second_conductance(double second_flow) const;
  /// g(m_1, m_2) = UA / UA_0 [1].
  [[nodiscard]] double ua_ratio(double first_flow, double second_flow) const;

  [[nodiscard]] double first_nominal_conductance() const { return first_nominal_conductance_; }
  [[nodiscard]] double second_nominal_conductance() const { return second_nominal_conductance_; }
  [[nodiscard]] const UaScalingParameters& parameters() const { return p_; }

 private:
  UaScalingParameters p_;
  double first_nominal_conductance_;   ///< hA_1,0 = UA_0 (1 + r)
  double second_nominal_conductance_;  ///< hA_2,0 = UA_0 (1 + r) / r
};

}  // namespace dctwin::models::hx
