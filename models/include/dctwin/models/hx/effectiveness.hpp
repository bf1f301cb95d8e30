// Effectiveness-NTU relations of two-stream heat exchangers.
//
// With the capacity rates C = m cp of the two streams, C_min = min(C_1, C_2), C_max = max(...),
// the capacity ratio C_r = C_min / C_max in [0, 1] and NTU = UA / C_min, the heat flow is
//
//   Q = eps(NTU, C_r) C_min (T_1,in - T_2,in)
//
// and each stream's outlet follows from its own energy balance, T_1,out = T_1,in - Q / C_1,
// T_2,out = T_2,in + Q / C_2, so that Q = C_1 dT_1 = C_2 dT_2 by construction.
//
// Relations (Incropera, DeWitt, Bergman, Lavine, "Fundamentals of Heat and Mass Transfer",
// 6th ed., 2007, Table 11.3 and, for the inverses, Table 11.4; equation numbers from there):
//
//   counter flow      eps = (1 - exp(-NTU (1 - C_r))) / (1 - C_r exp(-NTU (1 - C_r)))   (11.30a)
//                     C_r = 1:  eps = NTU / (1 + NTU)
//   parallel flow     eps = (1 - exp(-NTU (1 + C_r))) / (1 + C_r)                        (11.29a)
//   cross flow, both streams unmixed (series approximation)
//                     eps = 1 - exp[(1 / C_r) NTU^0.22 (exp(-C_r NTU^0.78) - 1)]         (11.32)
//   cross flow, C_max mixed, C_min unmixed
//                     eps = (1 / C_r) (1 - exp(-C_r (1 - exp(-NTU))))                    (11.33a)
//   cross flow, C_min mixed, C_max unmixed
//                     eps = 1 - exp(-(1 / C_r) (1 - exp(-C_r NTU)))                      (11.34a)
//   every arrangement, C_r = 0 (one stream at constant temperature): eps = 1 - exp(-NTU)  (11.35a)
//
// Numerics: every difference of nearly equal exponentials is written with expm1 / log1p, so the
// relations are accurate to rounding for small NTU, for C_r -> 0 (the 1 / C_r factors are
// evaluated as expm1(-C_r x) / C_r, which tends to -x) and, for counter flow, for C_r -> 1:
//
//   eps = -expm1(-x) / ((1 - C_r) - C_r expm1(-x)),   x = NTU (1 - C_r),
//
// which tends to NTU / (1 + C_r NTU) without cancellation. C_r = 1 exactly uses NTU / (1 + NTU).
// NTU = +infinity is allowed and returns the limits of effectiveness_limit():
//
//   counter flow 1; parallel 1 / (1 + C_r); cross unmixed 1; C_max mixed (1 - exp(-C_r)) / C_r;
//   C_min mixed 1 - exp(-1 / C_r)   (each tends to 1 as C_r -> 0).
//
// Inverse relations (NTU from eps), used to size an exchanger from a rating point:
//
//   counter flow      NTU = ln((1 - eps C_r) / (1 - eps)) / (1 - C_r)                    (11.30b)
//                         = log1p(eps (1 - C_r) / (1 - eps)) / (1 - C_r),  C_r = 1: eps / (1 - eps)
//   parallel flow     NTU = -ln(1 - eps (1 + C_r)) / (1 + C_r)                            (11.29b)
//   C_max mixed       NTU = -ln(1 + ln(1 - eps C_r) / C_r)                                (11.33b)
//   C_min mixed       NTU = -(1 / C_r) ln(1 + C_r ln(1 - eps))                            (11.34b)
//   both unmixed      no closed form: bisection on the monotone eps(NTU), to 1e-15 relative.
//
// Argument errors of the forward relations (NTU < 0, C_r outside [0, 1]) are defects of the
// caller (DCTWIN_DEMAND). An effectiveness that the arrangement cannot reach is a property of
// the data the exchanger is sized from, so the inverse throws core::InputError:
//   "counter-flow effectiveness 1.2 is not reachable at capacity ratio 0.5 (must be in [0, 1))"
#pragma once

#include <string_view>

namespace dctwin::models::hx {

/// Flow arrangement named by capacity rates (the form of the textbook relations).
enum class FlowArrangement {
  counter_flow,
  parallel_flow,
  cross_flow_unmixed,     ///< cross flow, both streams unmixed (eq. 11.32)
  cross_flow_cmax_mixed,  ///< cross flow, C_max mixed and C_min unmixed (eq. 11.33)
  cross_flow_cmin_mixed,  ///< cross flow, C_min mixed and C_max unmixed (eq. 11.34)
};

/// Effectiveness eps(NTU, C_r) in [0, 1]; NTU >= 0 (may be +inf), 0 <= C_r <= 1.
[[nodiscard]] double effectiveness(FlowArrangement arrangement, double ntu, double capacity_ratio);

/// lim_{NTU -> inf} eps(NTU, C_r): the largest effectiveness the arrangement can reach.
[[nodiscard]] double effectiveness_limit(FlowArrangement arrangement, double capacity_ratio);

/// NTU such that eps(NTU, C_r) = `effectiveness`. Throws core::InputError when the
/// effectiveness is negative or not below effectiveness_limit().
[[nodiscard]] double ntu_from_effectiveness(FlowArrangement arrangement, double effectiveness,
                                            double capacity_ratio);

/// Counter-flow inverse in closed form (eq. 11.30b, written with log1p): the sizing relation
/// of a plate heat exchanger from its nominal approach.
[[nodiscard]] double counter_flow_ntu(double effectiveness, double capacity_ratio);

/// "counter-flow", "parallel-flow", "cross-flow (both unmixed)", ...
[[nodiscard]] std::string_view arrangement_name(FlowArrangement arrangement);

/// Physical arrangement of a particular exchanger, by stream rather than by capacity rate: a coil
/// whose tube side is mixed keeps it mixed whichever stream has the smaller capacity rate.
enum class StreamArrangement {
  counter_flow,
  parallel_flow,
  cross_flow_unmixed,       ///< both streams unmixed
  cross_flow_first_mixed,   ///< first stream mixed, second unmixed
  cross_flow_second_mixed,  ///< first stream unmixed, second mixed
};

/// The textbook arrangement for given capacity rates (which stream is C_min decides whether a
/// mixed stream is "C_min mixed" or "C_max mixed").
[[nodiscard]] FlowArrangement flow_arrangement(StreamArrangement arrangement, double first_capacity_rate,
                                               double second_capacity_rate);

/// Parses "counter_flow", "parallel_flow", "cross_flow_unmixed", "cross_flow_first_mixed",
/// "cross_flow_second_mixed" (the choices of the parameter tables).
[[nodiscard]] StreamArrangement parse_stream_arrangement(std::string_view text);

/// One stream entering an exchanger.
struct Stream {
  double inlet_temperature = 0.0;  ///< [K]
  double capacity_rate = 0.0;      ///< m cp [W/K], >= 0
};

/// Steady state of a two-stream exchanger.
struct Exchange {
  double heat_flow = 0.0;                  ///< [W] from the first stream to the second (< 0 if the second is warmer)
  double first_outlet_temperature = 0.0;   ///< [K]
  double second_outlet_temperature = 0.0;  ///< [K]
  double effectiveness = 0.0;              ///< [1]
  double ntu = 0.0;                        ///< UA / C_min [1]
  double capacity_ratio = 0.0;             ///< C_min / C_max [1]
};

/// Heat flow and outlet temperatures of an exchanger of conductance `ua` [W/K] >= 0 (may be +inf).
/// A stream with zero capacity rate exchanges no heat; if the other stream flows and UA > 0, the
/// stagnant stream's "outlet" is reported at the other stream's inlet temperature (the C_min -> 0
/// limit), otherwise at its own inlet temperature.
[[nodiscard]] Exchange exchange(StreamArrangement arrangement, double ua, Stream first, Stream second);

}  // namespace dctwin::models::hx
