#include "dctwin/core/number_text.hpp"

#include <array>
#include <cstdio>

namespace dctwin::core {

std::string format_general(double value) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
  return buffer.data();
}

}  // namespace dctwin::core
