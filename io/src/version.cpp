#include "dctwin/io/version.hpp"

namespace dctwin::io {
const char* version() noexcept { return DCTWIN_VERSION; }
}  // namespace dctwin::io
