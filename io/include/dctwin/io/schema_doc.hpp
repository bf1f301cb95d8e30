// The scenario reference: every section and parameter of the scenario schema as Markdown, made
// from the same parameter tables that check scenario files, so the docs cannot drift from the code.
#pragma once

#include <string>

#include "dctwin/core/parameters.hpp"

namespace dctwin::io {

/// Markdown reference of a schema: one table per section (key, unit, default, range, meaning,
/// source).
std::string schema_markdown(const core::SectionSchema& schema, const std::string& title);

/// The same schema as a JSON Schema (draft 2020-12) for editors: a quantity is a bare number in SI
/// units (bounds checked) or a string with a unit (checked by `dctwin check` only); unknown keys
/// are refused as the loader refuses them.
std::string schema_json(const core::SectionSchema& schema, const std::string& title);

}  // namespace dctwin::io
