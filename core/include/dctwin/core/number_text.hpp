// Numbers in the messages of the solver and the flow-network models.
#pragma once

#include <string>

namespace dctwin::core {

/// `value` as printf's "%.6g" writes it (six significant digits, trailing zeros dropped, exponent
/// notation below 1e-4 and from 1e6 on): 0.0001, 123457, 1.5e+06, -0, nan, inf.
[[nodiscard]] std::string format_general(double value);

}  // namespace dctwin::core
