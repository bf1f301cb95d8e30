#include "dctwin/core/printable.hpp"

#include <cstddef>
#include <cstdint>

namespace dctwin::core {

namespace {

/// Length of the well-formed UTF-8 sequence starting at `text[i]` (a byte >= 0x80), 0 if none;
/// `code` receives its code point.
std::size_t utf8_length(std::string_view text, std::size_t i, std::uint32_t& code) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t extra = 0;
  std::uint32_t min_code = 0;
  if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    min_code = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    min_code = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    min_code = 0x10000;
  } else {
    return 0;
  }
  if (i + extra >= text.size()) return 0;
  code = lead & (0x3Fu >> extra);
  for (std::size_t k = 1; k <= extra; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3Fu);
  }
  if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return extra + 1;
}

constexpr char hex_digits[] = "0123456789abcdef";

void append_byte_escape(std::string& out, unsigned char byte) {
  out += "\\x";
  out += hex_digits[byte >> 4];
  out += hex_digits[byte & 0x0F];
}

}  // namespace

std::size_t valid_utf8_prefix(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    std::uint32_t code = 0;
    const std::size_t length = utf8_length(text, i, code);
    if (length == 0) return i;
    i += length;
  }
  return i;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte == '\n') {
        out += "\\n";
      } else if (byte == '\t') {
        out += "\\t";
      } else if (byte == '\r') {
        out += "\\r";
      } else if (byte < 0x20 || byte == 0x7F) {
        append_byte_escape(out, byte);
      } else {
        out += static_cast<char>(byte);
      }
      ++i;
      continue;
    }
    std::uint32_t code = 0;
    const std::size_t length = utf8_length(text, i, code);
    if (length == 0) {
      append_byte_escape(out, byte);
      ++i;
    } else if (code <= 0x9F) {  // C1 control (U+0080-U+009F)
      out += "\\u00";
      out += hex_digits[code >> 4];
      out += hex_digits[code & 0x0F];
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace dctwin::core
