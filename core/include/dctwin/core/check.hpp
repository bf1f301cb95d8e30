// Always-on invariant checks. A broken invariant is a defect in dctwin, not bad user input: the
// process prints where and why, then aborts. User input errors throw dctwin::core::InputError.
#pragma once

namespace dctwin::core::detail {
[[noreturn]] void abort_with_message(const char* condition, const char* file, int line,
                                     const char* message) noexcept;
}  // namespace dctwin::core::detail

/// Aborts with file, line and the failed condition when `condition` is false. Never compiled out.
#define DCTWIN_DEMAND(condition, message)                                                       \
  do {                                                                                          \
    if (!(condition))                                                                           \
      ::dctwin::core::detail::abort_with_message(#condition, __FILE__, __LINE__, (message));    \
  } while (false)
