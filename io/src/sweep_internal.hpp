// Pieces of the sweep module shared between its translation units and its tests.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "dctwin/core/parameters.hpp"

namespace dctwin::io::detail {

/// One step of a scenario key path: `gpus[5]` is {"gpus", 5}.
struct KeyStep {
  std::string name;
  std::optional<std::size_t> index;
};

/// Sets the scalar at `steps` in the YAML tree `root` to `value`, creating missing mappings on the
/// way (list entries must exist). Returns what is wrong with the tree when it cannot.
std::optional<std::string> apply_override(YAML::Node& root, const std::vector<KeyStep>& steps,
                                          const std::string& value);

/// Where the steps of `key_path` are written in the YAML `text`: entry 0 is the document's root
/// mapping, entry k the k-th step's key and value (the key again for an empty value). Stops at the
/// first step that is not written; empty when the text does not parse.
struct YamlPlace {
  core::SourceLocation key;
  core::SourceLocation value;
};
std::vector<YamlPlace> locate_in_yaml(const std::string& text, const std::string& file, const std::string& key_path);

/// Writes `text` through an OutputFile (output_file.hpp). Throws ReportError "cannot create
/// '<path>': <reason>" or "cannot write '<path>': <reason>".
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace dctwin::io::detail
