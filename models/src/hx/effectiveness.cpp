// Effectiveness-NTU relations: forward, limits, inverses, and the two-stream exchange.
#include "dctwin/models/hx/effectiveness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dctwin/core/check.hpp"
#include "dctwin/core/input_error.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models::hx {

namespace {

void demand_arguments(double ntu, double capacity_ratio) {
  DCTWIN_DEMAND(ntu >= 0.0, "effectiveness needs NTU >= 0");
  DCTWIN_DEMAND(capacity_ratio >= 0.0 && capacity_ratio <= 1.0, "effectiveness needs 0 <= C_r <= 1");
}

/// expm1(-c x) / c, and its limit -x at c = 0 (the 1 / C_r factors of the cross-flow relations).
double expm1_over(double c, double x) { return c > 0.0 ? std::expm1(-c * x) / c : -x; }

double counter_flow(double ntu, double cr) {
  if (cr == 1.0) return ntu / (1.0 + ntu);
  const double x = ntu * (1.0 - cr);
  const double e = std::expm1(-x);  // exp(-x) - 1, in (-1, 0]
  return -e / ((1.0 - cr) - cr * e);
}

double parallel_flow(double ntu, double cr) { return -std::expm1(-ntu * (1.0 + cr)) / (1.0 + cr); }

double cross_flow_unmixed(double ntu, double cr) {
  if (ntu == 0.0) return 0.0;
  return -std::expm1(std::pow(ntu, 0.22) * expm1_over(cr, std::pow(ntu, 0.78)));
}

double cross_flow_cmax_mixed(double ntu, double cr) {
  const double y = -std::expm1(-ntu);  // 1 - exp(-NTU)
  return -expm1_over(cr, y);
}

double cross_flow_cmin_mixed(double ntu, double cr) {
  return -std::expm1(expm1_over(cr, ntu));
}

[[noreturn]] void unreachable(FlowArrangement arrangement, double eps, double cr, double limit) {
  std::string rule = limit >= 1.0 ? "in [0, 1)" : "in [0, " + format_number(limit) + ")";
  throw core::InputError(std::string(arrangement_name(arrangement)) + " effectiveness " + format_number(eps) +
                           " is not reachable at capacity ratio " + format_number(cr) + " (must be " + rule + ")");
}

}  // namespace

std::string_view arrangement_name(FlowArrangement arrangement) {
  switch (arrangement) {
    case FlowArrangement::counter_flow: return "counter-flow";
    case FlowArrangement::parallel_flow: return "parallel-flow";
    case FlowArrangement::cross_flow_unmixed: return "cross-flow (both unmixed)";
    case FlowArrangement::cross_flow_cmax_mixed: return "cross-flow (C_max mixed)";
    case FlowArrangement::cross_flow_cmin_mixed: return "cross-flow (C_min mixed)";
  }
  return "unknown";
}

double effectiveness_limit(FlowArrangement arrangement, double cr) {
  demand_arguments(0.0, cr);
  switch (arrangement) {
    case FlowArrangement::counter_flow:
    case FlowArrangement::cross_flow_unmixed: return 1.0;
    case FlowArrangement::parallel_flow: return 1.0 / (1.0 + cr);
    case FlowArrangement::cross_flow_cmax_mixed: return -expm1_over(cr, 1.0);
    case FlowArrangement::cross_flow_cmin_mixed: return cr > 0.0 ? -std::expm1(-1.0 / cr) : 1.0;
  }
  return 0.0;
}

double effectiveness(FlowArrangement arrangement, double ntu, double cr) {
  demand_arguments(ntu, cr);
  if (std::isinf(ntu)) return effectiveness_limit(arrangement, cr);
  switch (arrangement) {
    case FlowArrangement::counter_flow: return counter_flow(ntu, cr);
    case FlowArrangement::parallel_flow: return parallel_flow(ntu, cr);
    case FlowArrangement::cross_flow_unmixed: return cross_flow_unmixed(ntu, cr);
    case FlowArrangement::cross_flow_cmax_mixed: return cross_flow_cmax_mixed(ntu, cr);
    case FlowArrangement::cross_flow_cmin_mixed: return cross_flow_cmin_mixed(ntu, cr);
  }
  return 0.0;
}

double counter_flow_ntu(double eps, double cr) {
  DCTWIN_DEMAND(cr >= 0.0 && cr <= 1.0, "counter_flow_ntu needs 0 <= C_r <= 1");
  if (!(eps >= 0.0 && eps < 1.0)) unreachable(FlowArrangement::counter_flow, eps, cr, 1.0);
  if (cr == 1.0) return eps / (1.0 - eps);
  return std::log1p(eps * (1.0 - cr) / (1.0 - eps)) / (1.0 - cr);
}

double ntu_from_effectiveness(FlowArrangement arrangement, double eps, double cr) {
  DCTWIN_DEMAND(cr >= 0.0 && cr <= 1.0, "ntu_from_effectiveness needs 0 <= C_r <= 1");
  const double limit = effectiveness_limit(arrangement, cr);
  if (!(eps >= 0.0 && eps < limit)) unreachable(arrangement, eps, cr, limit);
  switch (arrangement) {
    case FlowArrangement::counter_flow: return counter_flow_ntu(eps, cr);
    case FlowArrangement::parallel_flow: return -std::log1p(-eps * (1.0 + cr)) / (1.0 + cr);
    case FlowArrangement::cross_flow_cmax_mixed: {
      const double q = cr > 0.0 ? std::log1p(-eps * cr) / cr : -eps;  // ln(1 - eps C_r) / C_r
      return -std::log1p(q);
    }
    case FlowArrangement::cross_flow_cmin_mixed: {
      const double l = std::log1p(-eps);  // ln(1 - eps)
      return cr > 0.0 ? -std::log1p(cr * l) / cr : -l;
    }
    case FlowArrangement::cross_flow_unmixed: break;
  }
  // Both unmixed: eps(NTU) increases monotonically from 0 to 1; bracket, then bisect.
  if (eps == 0.0) return 0.0;
  double low = 0.0;
  double high = 1.0;
  while (cross_flow_unmixed(high, cr) < eps) {
    low = high;
    high *= 2.0;
    DCTWIN_DEMAND(high < 1e300, "cross-flow NTU bracket diverged");
  }
  for (int i = 0; i < 2000 && high - low > 1e-15 * high; ++i) {
    const double middle = 0.5 * (low + high);
    if (cross_flow_unmixed(middle, cr) < eps) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return 0.5 * (low + high);
}

FlowArrangement flow_arrangement(StreamArrangement arrangement, double c1, double c2) {
  switch (arrangement) {
    case StreamArrangement::counter_flow: return FlowArrangement::counter_flow;
    case StreamArrangement::parallel_flow: return FlowArrangement::parallel_flow;
    case StreamArrangement::cross_flow_unmixed: return FlowArrangement::cross_flow_unmixed;
    case StreamArrangement::cross_flow_first_mixed:
      return c1 <= c2 ? FlowArrangement::cross_flow_cmin_mixed : FlowArrangement::cross_flow_cmax_mixed;
    case StreamArrangement::cross_flow_second_mixed:
      return c2 < c1 ? FlowArrangement::cross_flow_cmin_mixed : FlowArrangement::cross_flow_cmax_mixed;
  }
  return FlowArrangement::counter_flow;
}

StreamArrangement parse_stream_arrangement(std::string_view text) {
  if (text == "counter_flow") return StreamArrangement::counter_flow;
  if (text == "parallel_flow") return StreamArrangement::parallel_flow;
  if (text == "cross_flow_unmixed") return StreamArrangement::cross_flow_unmixed;
  if (text == "cross_flow_first_mixed") return StreamArrangement::cross_flow_first_mixed;
  if (text == "cross_flow_second_mixed") return StreamArrangement::cross_flow_second_mixed;
  throw core::InputError("unknown flow arrangement '" + std::string(text) +
                           "': expected counter_flow, parallel_flow, cross_flow_unmixed, "
                           "cross_flow_first_mixed or cross_flow_second_mixed");
}

Exchange exchange(StreamArrangement arrangement, double ua, Stream first, Stream second) {
  DCTWIN_DEMAND(ua >= 0.0, "heat exchange needs UA >= 0");
  DCTWIN_DEMAND(first.capacity_rate >= 0.0 && second.capacity_rate >= 0.0,
                "heat exchange needs non-negative capacity rates");
  Exchange result;
  result.first_outlet_temperature = first.inlet_temperature;
  result.second_outlet_temperature = second.inlet_temperature;
  const double c_min = std::min(first.capacity_rate, second.capacity_rate);
  const double c_max = std::max(first.capacity_rate, second.capacity_rate);
  if (c_max == 0.0) return result;
  if (c_min == 0.0) {
    // C_min -> 0: eps -> 1 for UA > 0, the stagnant stream takes the other's temperature.
    if (ua > 0.0) {
      if (first.capacity_rate == 0.0) result.first_outlet_temperature = second.inlet_temperature;
      else result.second_outlet_temperature = first.inlet_temperature;
      result.effectiveness = 1.0;
      result.ntu = std::numeric_limits<double>::infinity();
    }
    return result;
  }
  result.capacity_ratio = c_min / c_max;
  result.ntu = ua / c_min;
  const FlowArrangement textbook = flow_arrangement(arrangement, first.capacity_rate, second.capacity_rate);
  result.effectiveness = effectiveness(textbook, result.ntu, result.capacity_ratio);
  result.heat_flow = result.effectiveness * c_min * (first.inlet_temperature - second.inlet_temperature);
  result.first_outlet_temperature = first.inlet_temperature - result.heat_flow / first.capacity_rate;
  result.second_outlet_temperature = second.inlet_temperature + result.heat_flow / second.capacity_rate;
  return result;
}

}  // namespace dctwin::models::hx
