// Cold plate: thermal resistance from the plate base to the coolant inside it, and pressure drop,
// both as functions of the volumetric flow through the plate.
//
//   R(Q)  = R_nom * (Q / Q_nom)^(-n)        convective resistance, n ~ 0.8 (turbulent, Dittus-Boelter)
//   dp(Q) = dp_nom * (Q / Q_nom)^m          m = 1.85 (OCP cold-plate data: Q/Q_nom = (dp/dp_nom)^(1/1.85))
//
// The coolant in the plate is one well-mixed volume V whose temperature is the plate's outlet
// temperature (see thermal/coolant_channel.hpp).
#pragma once

#include "dctwin/solver/parameters.hpp"

namespace dctwin::models::thermal {

struct ColdPlateParameters {
  double resistance_at_nominal_flow = 0.020;  ///< [K/W] base to coolant at Q_nom
  double nominal_flow = 2.5e-5;               ///< [m3/s] (1.5 L/min)
  double resistance_flow_exponent = 0.8;      ///< n [1]
  double pressure_drop_at_nominal_flow = 50e3;///< [Pa]
  double pressure_drop_flow_exponent = 1.85;  ///< m [1]
  double coolant_volume = 25e-6;              ///< [m3] coolant held inside the plate

  static solver::ParameterTable table();
  static ColdPlateParameters from(const solver::ParameterTree& section);
};

class ColdPlate {
 public:
  explicit ColdPlate(ColdPlateParameters p) : p_(p) {}
  /// Base-to-coolant resistance at volumetric flow Q > 0 [K/W].
  [[nodiscard]] double resistance(double flow) const;
  /// Pressure drop at volumetric flow Q >= 0 [Pa].
  [[nodiscard]] double pressure_drop(double flow) const;
  [[nodiscard]] const ColdPlateParameters& parameters() const { return p_; }

 private:
  ColdPlateParameters p_;
};

}  // namespace dctwin::models::thermal
