// Electric vapour-compression chiller (water-cooled), DOE-2 / EnergyPlus Chiller:Electric:EIR
// model (EnergyPlus Engineering Reference, "Electric Chiller Model Based on Condenser Entering
// Temperature"; Hydeman et al., DOE-2.1E):
//
//   x = T_chw,lvg [degC] (leaving chilled water), y = T_cond,ent [degC] (entering condenser water)
//   CAPFT(x, y)   = a1 + a2 x + a3 x^2 + a4 y + a5 y^2 + a6 x y       (biquadratic)
//   EIRFT(x, y)   = b1 + b2 x + b3 x^2 + b4 y + b5 y^2 + b6 x y       (biquadratic)
//   EIRFPLR(p)    = c1 + c2 p + c3 p^2                                (quadratic)
//
//   Q_avail = Q_ref CAPFT                         available capacity [W]
//   PLR     = min(Q_load, PLR_max Q_avail) / Q_avail     (load above PLR_max Q_avail is unmet)
//   p       = max(PLR, PLR_unl)                   below the minimum unloading ratio the chiller
//                                                 false-loads (hot-gas bypass)
//   f_cyc   = min(1, PLR / PLR_min)               below the minimum part-load ratio it cycles
//   P       = (Q_avail / COP_ref) EIRFT EIRFPLR(p) f_cyc     electric power [W]
//   Q_cond  = Q_evap + f_cond P                   condenser heat [W] (first law; f_cond = share
//                                                 of compressor power reaching the refrigerant,
//                                                 1 for hermetic motors)
//   COP     = Q_evap / P
//
// Curve set (default): "DOE-2 Centrifugal/5.50COP" from the EnergyPlus Input-Output Reference
// (Chiller:Electric:EIR example; same as DOE-2.1E HERM-CENT-CAP-FT, HERM-CENT-EIR-FT,
// HERM-CENT-EIR-FPLR), reference 6.67 degC leaving chilled water, 29.4 degC entering condenser
// water, COP 5.5, PLR_min 0.1, PLR_unl 0.2, curves valid for x in [5, 10] degC, y in [24, 35] degC.
//
// Normalisation: the published curves are 1.0033 (CAPFT) and 0.99909 (EIRFT) at the reference
// point, not exactly 1 (EIRFPLR(1) = 1.000000). This model divides CAPFT and EIRFT by their values
// at the reference point, so that capacity and COP at the rating conditions are exactly Q_ref and
// COP_ref (EnergyPlus warns when a curve is off 1 by more than 10 % and uses it unnormalised).
//
// Outside the curves' ranges the temperatures are clamped to them before the curves are
// evaluated, as EnergyPlus' curve objects do, and curves_clamped reports it. A warm-water data
// centre plant (chilled water 15-25 degC) is far above the DOE-2 curves' 10 degC limit: the model
// then holds the 10 degC performance, which underestimates the COP of a warm-water chiller
// (doc: docs/models/hx.md, uncertain).
#pragma once

#include <array>
#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::models::hx {

/// Performance curves of a chiller and the reference point they are normalised at.
struct ChillerCurves {
  std::array<double, 6> capacity_temperature;  ///< CAPFT a1..a6 (x, y in degC)
  std::array<double, 6> eir_temperature;       ///< EIRFT b1..b6
  std::array<double, 3> eir_part_load;         ///< EIRFPLR c1..c3
  double reference_leaving_chilled_water_temperature;  ///< [K]
  double reference_entering_condenser_temperature;     ///< [K]
  double min_leaving_chilled_water_temperature;        ///< [K] curve validity
  double max_leaving_chilled_water_temperature;        ///< [K]
  double min_entering_condenser_temperature;           ///< [K]
  double max_entering_condenser_temperature;           ///< [K]

  /// EnergyPlus "DOE-2 Centrifugal/5.50COP" (DOE-2.1E hermetic centrifugal).
  static ChillerCurves doe2_centrifugal();
};

struct ChillerParameters {
  double reference_capacity = 2.0e6;      ///< Q_ref [W] at the reference temperatures
  double reference_cop = 5.5;             ///< COP_ref [1]
  double minimum_part_load_ratio = 0.1;   ///< PLR_min: cycles below [1]
  double minimum_unloading_ratio = 0.2;   ///< PLR_unl: false-loads below [1]
  double maximum_part_load_ratio = 1.0;   ///< PLR_max [1]
  double condenser_heat_fraction = 1.0;   ///< f_cond [1]
  ChillerCurves curves = ChillerCurves::doe2_centrifugal();

  static core::ParameterTable table();
  /// Reads the scalar parameters; the curves stay the default set.
  static ChillerParameters from(const core::ParameterTree& section);
};

struct ChillerOperatingPoint {
  double cooling = 0.0;              ///< Q_evap [W] delivered
  double unmet_load = 0.0;           ///< [W] load above PLR_max Q_avail
  double available_capacity = 0.0;   ///< Q_avail [W]
  double part_load_ratio = 0.0;      ///< PLR [1]
  double cycling_ratio = 0.0;        ///< f_cyc [1]
  double electric_power = 0.0;       ///< P [W]
  double condenser_heat_flow = 0.0;  ///< Q_cond [W]
  double cop = 0.0;                  ///< Q_evap / P [1] (0 when off)
  double capacity_modifier = 0.0;    ///< normalised CAPFT [1]
  double eir_modifier = 0.0;         ///< normalised EIRFT [1]
  double part_load_modifier = 0.0;   ///< EIRFPLR(p) [1]
  bool curves_clamped = false;       ///< a temperature was outside the curves' range
};

class Chiller {
 public:
  /// Checks the parameters; throws core::InputError ("chiller.reference_cop = 0 (must be > 0)").
  explicit Chiller(ChillerParameters p, std::string section = "chiller");

  /// Operating point for a cooling load >= 0 [W] at leaving chilled water and entering condenser
  /// temperatures [K].
  [[nodiscard]] ChillerOperatingPoint evaluate(double load, double leaving_chilled_water_temperature,
                                               double entering_condenser_temperature) const;
  [[nodiscard]] double available_capacity(double leaving_chilled_water_temperature,
                                          double entering_condenser_temperature) const;
  [[nodiscard]] const ChillerParameters& parameters() const { return p_; }

 private:
  ChillerParameters p_;
  double capacity_normalisation_ = 1.0;  ///< CAPFT at the reference point
  double eir_normalisation_ = 1.0;       ///< EIRFT at the reference point
};

}  // namespace dctwin::models::hx
