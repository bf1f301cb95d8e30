// Loading every YAML document of a text, without yaml-cpp 0.7's endless loop; UTF-8 scalars.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace dctwin::io {

/// YAML::LoadAll(text), except that a text on which yaml-cpp's parser stops advancing (a document
/// starting with a stray `,`: yaml-cpp 0.7 then returns an endless series of empty documents and
/// LoadAll never returns) throws YAML::ParserException `unexpected ','` at that place, like any
/// other syntax error.
[[nodiscard]] std::vector<YAML::Node> load_all_documents(const std::string& text);

/// The length of the well-formed UTF-8 sequence starting at `text[at]` (1 to 4 bytes), or 0 when
/// there is none there (Unicode 15, table 3-7).
[[nodiscard]] std::size_t utf8_sequence_length(const std::string& text, std::size_t at);

/// A scalar's text with the characters of yaml-cpp 0.7's `\N` and `\_` escapes encoded as UTF-8
/// (it decodes them to the single bytes 0x85 and 0xA0).
[[nodiscard]] std::string scalar_text(const YAML::Node& node);

/// What a node is, for messages: "a mapping", "a list", "a single value" or "empty".
[[nodiscard]] const char* node_kind(const YAML::Node& node);

}  // namespace dctwin::io
