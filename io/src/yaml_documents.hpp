// Loading every YAML document of a text, without yaml-cpp 0.7's endless loop.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace dctwin::io {

/// YAML::LoadAll(text), except that a text on which yaml-cpp's parser stops advancing (a document
/// starting with a stray `,`: yaml-cpp 0.7 then returns an endless series of empty documents and
/// LoadAll never returns) throws YAML::ParserException `unexpected ','` at that place, like any
/// other syntax error.
[[nodiscard]] std::vector<YAML::Node> load_all_documents(const std::string& text);

}  // namespace dctwin::io
