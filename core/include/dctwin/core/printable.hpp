// Text from outside (file names, cells, labels, headers, names) made safe to quote in messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dctwin::core {

/// `text` with every byte that a terminal could act on written as a visible escape, so that a
/// message quoting a file's content cannot move the cursor, change colours, set the window title
/// or hide the rest of the line:
///
///   * C0 controls: tab, line feed and carriage return as `\t`, `\n`, `\r`, the others as `\xNN`
///     (`\x1b` for ESC, `\x00` for NUL); line feeds included, so a message is always one line
///     (no message the project composes spans lines, and a value carrying a line break could
///     otherwise forge a second, innocent-looking message);
///   * DEL as `\x7f`;
///   * C1 controls (U+0080-U+009F, which some terminals obey like ESC sequences) as `\u009b`;
///   * each byte that is not part of well-formed UTF-8 (a stray continuation byte, a truncated or
///     overlong sequence, a surrogate, a code point above U+10FFFF) as `\xNN`.
///
/// Everything else, including a backslash and well-formed UTF-8, is kept as it is. The result
/// holds no byte the function would change, so applying it again changes nothing: messages may be
/// escaped where they are built and again where they are printed. (A backslash written in the
/// input is therefore not doubled: `\x1b` in a message may stand for the four characters or for
/// ESC; the message is for reading, not for parsing back.)
[[nodiscard]] std::string printable(std::string_view text);

/// Length of the longest prefix of `text` that is well-formed UTF-8, by the rules printable()
/// applies (no overlong sequence, no surrogate, nothing above U+10FFFF); text.size() if all of it is.
[[nodiscard]] std::size_t valid_utf8_prefix(std::string_view text);

}  // namespace dctwin::core
