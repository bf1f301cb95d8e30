#include "dctwin/solver/number_text.hpp"

#include <array>
#include <cstdio>

namespace dctwin::solver {

std::string format_general(double value) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
  return buffer.data();
}

}  // namespace dctwin::solver
