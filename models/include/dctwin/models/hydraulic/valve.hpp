// Valve with a flow coefficient, an opening and an inherent characteristic.
//
// The flow coefficient Kv is the flow of water (rho_ref = 1000 kg/m3) through the fully open
// valve at dp_ref = 1 bar; it is stored in SI (m3/s) and written in m3/h as usual. At opening x:
//
//   Kv(x) = Kv max(phi(x), leakage)
//   phi(x) = x                       linear
//   phi(x) = R^(x - 1)   (x > 0)     equal percentage: every step in x multiplies the flow by the
//                                    same factor; R = rangeability (Kv / Kv at x = 0+)
//   phi(0) = 0                       shut: only the leakage passes (ANSI/FCI 70-2 classes:
//                                    Class IV 1e-4 of the rated Kv, Class VI ~ tight)
//
//   dp(Q) = dp_ref (rho / rho_ref) Q|Q| / Kv(x)^2,
//
// regularised with `solver::signed_power` below 1e-3 Kv(x). A shut valve without leakage is a
// closed branch (no flow at all).
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"
#include "dctwin/solver/network.hpp"

namespace dctwin::models::hydraulic {

enum class ValveCharacteristic { linear, equal_percentage };

struct ValveParameters {
  double flow_coefficient = 10.0 / 3600.0;  ///< Kv [m3/s] at 1 bar, water (10 m3/h)
  ValveCharacteristic characteristic = ValveCharacteristic::equal_percentage;
  double rangeability = 50.0;               ///< R [1], equal-percentage characteristic
  double leakage = 1e-4;                    ///< fraction of Kv passed when shut [1]
  double opening = 1.0;                     ///< x [1], 0 = shut, 1 = fully open

  static core::ParameterTable table(const ValveParameters& defaults, const std::string& sizing_source);
  static ValveParameters from(const core::ParameterTree& section);
};

/// "linear" / "equal_percentage".
const char* to_string(ValveCharacteristic c) noexcept;

class Valve final : public solver::BranchLaw {
 public:
  /// `density` of the coolant [kg/m3].
  Valve(ValveParameters p, double density);

  /// phi(x) (before the leakage floor).
  [[nodiscard]] double relative_flow_coefficient() const;
  /// Kv(x) [m3/s at 1 bar, water].
  [[nodiscard]] double effective_flow_coefficient() const { return kv_; }
  /// Flow at a given pressure drop (the inverse of the law above the regularisation) [m3/s].
  [[nodiscard]] double flow_at(double pressure_drop) const;

  [[nodiscard]] double pressure_drop(double flow) const override;
  [[nodiscard]] double derivative(double flow) const override;
  void evaluate(double flow, double& drop, double& slope) const override;
  /// Kv(x): the flow at 1 bar.
  [[nodiscard]] double flow_scale() const override { return kv_ > 0.0 ? kv_ : p_.flow_coefficient; }
  [[nodiscard]] bool closed() const override { return kv_ == 0.0; }
  [[nodiscard]] std::string defect() const override;
  [[nodiscard]] const ValveParameters& parameters() const { return p_; }

 private:
  ValveParameters p_;
  double density_;
  double kv_;
  double k_;  // dp_ref (rho / rho_ref) / Kv(x)^2
};

}  // namespace dctwin::models::hydraulic
