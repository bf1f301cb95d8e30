#include "dctwin/core/check.hpp"

#include <cstdio>
#include <cstdlib>

namespace dctwin::core::detail {

void abort_with_message(const char* condition, const char* file, int line,
                        const char* message) noexcept {
  std::fprintf(stderr, "dctwin: internal error at %s:%d: %s (failed: %s)\n", file, line, message,
               condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace dctwin::core::detail
