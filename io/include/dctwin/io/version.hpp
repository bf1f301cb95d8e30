// Version of the dctwin libraries, as written into reports.
#pragma once

namespace dctwin::io {
/// "MAJOR.MINOR.PATCH" of this build.
const char* version() noexcept;
}  // namespace dctwin::io
