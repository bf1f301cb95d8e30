// Lumped flow resistances given by one rated point: heat-exchanger passes, a plant's pressure
// drop, and the cold plate (its own nominal point and exponent, thermal/cold_plate.hpp).
//
//   dp(Q) = dp_nom signed_power(Q / Q_nom, n, 1e-3)        (= dp_nom (Q / Q_nom)^n for Q >= 1e-3 Q_nom)
//
// n = 2 for turbulent passages, 1.85 for the OCP cold plate (thermal/cold_plate.hpp), 1 for
// laminar ones. Below 1e-3 Q_nom the law is the C1 odd cubic of `solver::signed_power`.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

struct FixedResistanceParameters {
  double nominal_flow = 1e-3;                    ///< Q_nom [m3/s]
  double pressure_drop_at_nominal_flow = 10e3;   ///< dp_nom [Pa]
  double exponent = 2.0;                         ///< n [1], 1 <= n < 3

  /// Table with the given defaults; `what` names the element in the docs ("CDU secondary pass").
  static core::ParameterTable table(const FixedResistanceParameters& defaults, const std::string& what,
                                      const std::string& source);
  static FixedResistanceParameters from(const core::ParameterTree& section);
};

class FixedResistance final : public solver::BranchLaw {
 public:
  explicit FixedResistance(FixedResistanceParameters p) : p_(p) {}
  [[nodiscard]] double pressure_drop(double flow) const override;
  [[nodiscard]] double derivative(double flow) const override;
  void evaluate(double flow, double& drop, double& slope) const override;
  [[nodiscard]] double flow_scale() const override { return p_.nominal_flow; }
  [[nodiscard]] std::string defect() const override;
  [[nodiscard]] const FixedResistanceParameters& parameters() const { return p_; }

 private:
  FixedResistanceParameters p_;
};

}  // namespace dctwin::models::hydraulic
