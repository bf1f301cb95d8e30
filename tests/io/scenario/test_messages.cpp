// What users wrote (file names, keys, values, units) made printable in messages.
#include <catch2/catch.hpp>

#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"
#include "test_schema.hpp"

namespace io = dctwin::io;
using dctwin::io::test::error_of;
using dctwin::io::test::minimal_scenario;
using dctwin::core::printable;

namespace {

bool has_control_byte(const std::string& text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("printable: control characters, DEL, C1 controls and bytes that are not UTF-8 as escapes",
          "[messages]") {
  CHECK(printable("plain text, UTF-8 \xC2\xB0" "C and \xE2\x82\xAC, a \\ backslash") ==
        "plain text, UTF-8 \xC2\xB0" "C and \xE2\x82\xAC, a \\ backslash");
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(printable("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(printable(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(printable("\x07\x08\x7f") == "\\x07\\x08\\x7f");
  CHECK(printable("csi \xC2\x9B" "2J, nel \xC2\x85") == "csi \\u009b2J, nel \\u0085");
  CHECK(printable("\xff\xfe") == "\\xff\\xfe");
  CHECK(printable("truncated \xE2\x82") == "truncated \\xe2\\x82");
  CHECK(printable("overlong \xC0\xAF, surrogate \xED\xA0\x80") == "overlong \\xc0\\xaf, surrogate \\xed\\xa0\\x80");
  CHECK(printable("\xF4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  // Applying it again changes nothing, so a message may be made printable more than once.
  const std::string once = printable("\x1b]0;title\x07\n\xff");
  CHECK(once == "\\x1b]0;title\\x07\\n\\xff");
  CHECK(printable(once) == once);
}

TEST_CASE("valid_utf8_prefix: where well-formed UTF-8 ends", "[messages]") {
  using dctwin::core::valid_utf8_prefix;
  CHECK(valid_utf8_prefix("") == 0);
  CHECK(valid_utf8_prefix("ascii") == 5);
  CHECK(valid_utf8_prefix("25 \xC2\xB0" "C, 3 \xE2\x82\xAC, \xF0\x9F\x94\xA5") == 19);  // all of it
  CHECK(valid_utf8_prefix("ok \xff") == 3);
  CHECK(valid_utf8_prefix("cut \xE2\x82") == 4);               // truncated at the end
  CHECK(valid_utf8_prefix("over \xC0\xAF") == 5);              // overlong
  CHECK(valid_utf8_prefix("sur \xED\xA0\x80") == 4);           // surrogate
  CHECK(valid_utf8_prefix("big \xF4\x90\x80\x80") == 4);       // above U+10FFFF
  CHECK(valid_utf8_prefix("a\x80") == 1);                       // stray continuation byte
}

TEST_CASE("Messages quoting what users wrote hold no control character", "[messages][scenario]") {
  // A key written with YAML escapes (the file itself holds no control character).
  const std::string key = error_of(std::string(minimal_scenario) + "\"s\\e[2Jx\": 1\n");
  CHECK(key.rfind("t.yaml:5:1: s\\x1b[2Jx: unknown key", 0) == 0);
  CHECK_FALSE(has_control_byte(key));
  // A choice's value with an escape sequence and a line break.
  CHECK(error_of(std::string(minimal_scenario) + "loop:\n  arrangement: \"series\\e[8m\\nhidden\"\n") ==
        "t.yaml:6:16: loop.arrangement = series\\x1b[8m\\nhidden (must be one of: series, parallel)");
  // A unit.
  const std::string unit = error_of(std::string(minimal_scenario) + "duration: \"5 \\e[1mh\"\n");
  CHECK(unit == "t.yaml:5:11: duration = 5 \\x1b[1mh (unknown unit '\\x1b[1mh')");
  // Every InputError, whoever builds it.
  const dctwin::core::InputError error("file\x1b[2J.yaml: bad \xC2\x9B value\n");
  CHECK(std::string(error.what()) == "file\\x1b[2J.yaml: bad \\u009b value\\n");
  const io::UnitError unit_error(io::UnitError::Reason::unknown_unit, "unknown unit '\x1b'");
  CHECK(std::string(unit_error.what()) == "unknown unit '\\x1b'");
}
