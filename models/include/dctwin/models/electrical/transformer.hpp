// MV/LV transformers of a lineup: losses, voltage drop, and the IEEE C57.91 clause 7 thermal model
// with insulation ageing.
//
// Load factor K = S / S_rated per unit, S = P / pf the apparent power a unit carries.
//
// Losses per unit:  P_loss = P_0 + P_LL K^2       (no-load loss P_0, load loss P_LL at rated current)
//
// Voltage drop (the usual approximation for a short series impedance, in per unit of the unit's rating
// with r = z / sqrt(1 + (X/R)^2), x = r X/R):
//
//   dV / V ~ r p + x q,   p = P / S_rated, q = Q / S_rated
//
// (first-order term of |V_s - Z I| at V ~ 1 p.u.; neglects the quadratic (x p - r q)^2 / 2 term,
// below 0.2 % at rated load for z = 5.75 %). Reactive power absorbed by a unit: x K^2 S_rated.
//
// Thermal model, IEEE Std C57.91-2011 clause 7 (exponential form), per unit:
//
//   R       = P_LL / P_0                                  ratio of load loss to no-load loss
//   dTO_U   = dTO_R [(K^2 R + 1) / (R + 1)]^n             ultimate top-oil rise over ambient
//   dH_U    = dH_R K^(2m)                                 ultimate hot-spot rise over top oil
//   tau_TO d(dTO)/dt = dTO_U - dTO,  tau_w d(dH)/dt = dH_U - dH
//   theta_H = theta_A + dTO + dH
//
// The lags are integrated exactly over a step with K held at the step's value (the load fraction of
// the step's mean power): dTO(t + h) = dTO_U + (dTO(t) - dTO_U) e^{-h / tau_TO}, and likewise dH.
//
// Ageing (IEEE C57.91 clause 5, reference hot spot 110 degC):
//
//   F_AA = exp(15000 / 383 - 15000 / (theta_H + 273))     theta_H in degC
//   F_EQA hours = (1/3600) integral F_AA dt               equivalent ageing [h] at the reference
//
// the integral taken with the trapezoidal rule over each step (exact for a constant hot spot).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::electrical {

struct TransformerParameters {
  int units_per_lineup = 2;               ///< transformers in parallel per lineup (load shared equally)
  double rated_power = 2.5e6;             ///< S_rated [VA] per unit
  double impedance = 0.0575;              ///< z [1] short-circuit impedance, per unit of S_rated
  double x_over_r = 7.0;                  ///< X/R [1]
  double no_load_loss = 2300.0;           ///< P_0 [W] per unit
  double load_loss = 14000.0;             ///< P_LL [W] per unit at rated current
  double top_oil_rise = 55.0;             ///< dTO_R [K] rated top-oil rise over ambient
  double hot_spot_rise = 25.0;            ///< dH_R [K] rated hot-spot rise over top oil
  double oil_exponent = 0.8;              ///< n [1]
  double winding_exponent = 0.8;          ///< m [1]
  double top_oil_time_constant = 10800.0; ///< tau_TO [s]
  double winding_time_constant = 420.0;   ///< tau_w [s]
  double ambient_rise = 0.0;              ///< [K] of the transformer's surroundings over the site ambient
  bool start_at_steady_state = true;      ///< start at the steady state of the initial load (else at ambient)

  static core::ParameterTable table();
  static TransformerParameters from(const core::ParameterTree& section);
  void check(const std::string& section) const;

  /// R = P_LL / P_0.
  [[nodiscard]] double loss_ratio() const { return load_loss / no_load_loss; }
  /// r and x [1].
  [[nodiscard]] double resistance_pu() const;
  [[nodiscard]] double reactance_pu() const;
};

/// F_AA at hot spot theta_H [K].
[[nodiscard]] double ageing_acceleration(double hot_spot_kelvin);

/// Thermal state of one transformer.
struct TransformerThermalState {
  double top_oil_rise = 0.0;   ///< dTO [K]
  double hot_spot_rise = 0.0;  ///< dH [K] over top oil
  double ageing_hours = 0.0;   ///< equivalent ageing [h]
  /// F_AA at the hot spot `ageing_rate_hot_spot` [K], left by the last step for the next step's
  /// start (a step that starts at the same hot spot, as the next one does while the ambient holds,
  /// takes it instead of a second exponential). NaN: none yet.
  double ageing_rate_hot_spot = std::numeric_limits<double>::quiet_NaN();
  double ageing_rate = 0.0;
};

/// The thermal states of several units side by side (one entry per unit in each field), for
/// stepping them together (Transformer::step_each).
struct TransformerThermalStates {
  std::vector<double> top_oil_rise, hot_spot_rise, ageing_hours, ageing_rate_hot_spot, ageing_rate;
  /// Takes the states given, in their order.
  void assign(const std::vector<const TransformerThermalState*>& states);
  [[nodiscard]] TransformerThermalState operator[](std::size_t unit) const;
  [[nodiscard]] std::size_t size() const noexcept { return top_oil_rise.size(); }
};

/// The factors exp(-h / tau_TO) and exp(-h / tau_W) of a step of h [s]: the same for every unit
/// of a type, so a feed stepping many units at one h forms them once (Transformer::decay).
struct TransformerDecay {
  double h = 0.0;        ///< [s]
  double top_oil = 1.0;  ///< exp(-h / tau_TO)
  double winding = 1.0;  ///< exp(-h / tau_W)
};

/// One transformer type (all units of a bank share it): losses, voltage drop and thermal model.
class Transformer {
 public:
  /// Checks the parameters (section "electrical.transformer").
  explicit Transformer(const TransformerParameters& p);
  /// Losses of one unit at load factor K [W].
  [[nodiscard]] double loss(double load_factor) const {
    return p_.no_load_loss + p_.load_loss * load_factor * load_factor;
  }
  /// Relative voltage drop r p + x q of one unit carrying P [W], Q [var].
  [[nodiscard]] double voltage_drop(double active_power, double reactive_power) const;
  /// Reactive power absorbed by one unit at load factor K [var].
  [[nodiscard]] double reactive_loss(double load_factor) const {
    return reactance_pu_ * load_factor * load_factor * p_.rated_power;
  }
  [[nodiscard]] double ultimate_top_oil_rise(double load_factor) const;
  [[nodiscard]] double ultimate_hot_spot_rise(double load_factor) const;
  /// The steady state at load factor K (ageing 0).
  [[nodiscard]] TransformerThermalState steady_state(double load_factor) const;
  /// Hot spot [K] of `state` at ambient theta_A [K] (the parameter's ambient_rise added).
  [[nodiscard]] double hot_spot(const TransformerThermalState& state, double ambient) const;
  /// Advances over h [s] with K held and ambient theta_A [K]; adds the ageing.
  void step(TransformerThermalState& state, double h, double load_factor, double ambient) const;
  /// The same step with its decay factors formed beforehand (decay(h)): the same bits.
  void step(TransformerThermalState& state, const TransformerDecay& decay, double load_factor, double ambient) const;
  /// step() with `decay` for every unit of `states`, unit u at load factor load_factor[u], in
  /// vectorised passes: the same bits as step() on each unit in turn.
  void step_each(TransformerThermalStates& states, const TransformerDecay& decay, const double* load_factor,
                 double ambient) const;
  /// exp(-h / tau) of the top oil and the winding for a step of h >= 0 [s].
  [[nodiscard]] TransformerDecay decay(double h) const;
  [[nodiscard]] const TransformerParameters& parameters() const { return p_; }

 private:
  TransformerParameters p_;
  double reactance_pu_;  // p_.reactance_pu(), formed once
};

}  // namespace dctwin::models::electrical
