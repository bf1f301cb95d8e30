// Sweep files: a base scenario, values to fix and parameters to vary, and a design that turns
// them into members. Every member is the base scenario's YAML with the values set at the YAML
// level, so the ordinary scenario checker checks every member.
//
// A sweep file (YAML, one document, a mapping):
//
//   name: supply-margin                 # required, text
//   description: ...                    # optional, text
//   base: ../single-node.yaml           # required: the base scenario, relative to this file
//   design: grid                        # required: grid | list, or a mapping:
//                                       #   {type: latin_hypercube | monte_carlo, samples: N, seed: S}
//   set:                                # optional: scenario values fixed for every member
//     simulation.duration: 60 s
//   parameters:                         # required, at least one scenario key
//     loop.supply_temperature: [25 degC, 30 degC, 35 degC]
//     loop.pump.speed: {min: 0.4, max: 1, count: 4}
//
// Keys of `set:` and `parameters:` are scenario key paths (`loop.pump.speed`,
// `server.gpus[5].power_scale`), checked against the scenario schema; a list entry must exist in
// the base scenario. Values are written like scenario values (`600 W`, `32 degC`, `0.5`).
//
// Designs and parameter forms:
//   grid             every combination of the parameters' values (full factorial). Member order:
//                    the first parameter varies slowest, the last fastest (nested loops in file
//                    order). Each parameter is a list of values `[a, b, c]` or evenly spaced
//                    values `{min: A, max: B, count: N}` (N >= 2, both ends included).
//   list             the i-th member takes the i-th value of every parameter (zipped lists of the
//                    same length; same forms as grid).
//   latin_hypercube  `samples` members; each parameter is a range `{min: A, max: B}`, divided into
//                    `samples` equal strata; every stratum of every parameter holds exactly one
//                    member. Real-valued keys only.
//   monte_carlo      `samples` independent members; each parameter is
//                    `{distribution: uniform, min: A, max: B}` (the default distribution) or
//                    `{distribution: normal, mean: M, std: S}`. Real-valued keys only. Member i's
//                    values do not depend on `samples`: a larger ensemble extends a smaller one.
//   `seed` (integer >= 0, default 1) drives the sampled designs: the same file and seed give the
//   same members. Sampled and spaced values are written into the members in SI with the exact
//   double (`305.15 K`); ranges must lie inside the parameter's allowed range.
//
// Members have deterministic ids: the 0-based member number, zero-padded to at least 4 digits
// (`0007`). A member's scenario text starts with a comment naming the sweep, the member and its
// values, followed by the base scenario (as YAML, comments dropped) with the `set:` values and
// the member's values applied.
//
// Error messages follow the scenario file's conventions (scenario.hpp), with key paths inside the
// sweep file (`parameters.loop.pump.speed.max`):
//   `FILE: sweep file is empty`, `FILE:L:C: YAML syntax error: MESSAGE`,
//   `FILE:L:C: the sweep must be a mapping, not a list`,
//   `FILE:L:C: a sweep file holds one YAML document (another starts here)`,
//   `FILE:L:C: KEY: unknown key (did you mean 'parameters'?)`,
//   `FILE:L:C: KEY: duplicate key (first at line N)`,
//   `FILE:L:C: KEY: required key is missing (DETAIL)`, `FILE:L:C: KEY: value is missing (DETAIL)`,
//   `FILE:L:C: design.type = KIND (must be one of: grid, list, latin_hypercube, monte_carlo)`,
//   `FILE:L:C: design.samples = 0 (must be >= 1)`, `FILE:L:C: design.seed: not used by a grid design`,
//   `FILE:L:C: parameters: must name at least one scenario key`,
//   `FILE:L:C: parameters.loop.pump.sped: unknown scenario key (did you mean 'speed'?)`,
//   `FILE:L:C: parameters.loop.pump: loop.pump is a section, not a parameter`,
//   `FILE:L:C: parameters.server.gpus.power_scale: server.gpus is a list (name an entry, e.g. server.gpus[0])`,
//   `FILE:L:C: parameters.server.gpus[9].power_scale: the base scenario has 8 entries in server.gpus`,
//   `FILE:L:C: parameters.loop.pump.speed: a grid design needs a list of values or {min, max, count}, not a single value`,
//   `FILE:L:C: parameters.loop.pump.speed: a list design pairs the i-th values of every parameter: 3 values here, 4 in parameters.loop.supply_temperature`,
//   `FILE:L:C: parameters.server.gpu_count: a latin_hypercube design samples real-valued keys only (server.gpu_count is an integer)`,
//   `FILE:L:C: parameters.loop.pump.speed.max = 1.5 (must be in (0, 1.2], the range of loop.pump.speed)`,
//   `FILE:L:C: parameters.loop.pump.speed.max = 0.2 (must be > min)`,
//   `FILE:L:C: parameters.loop.pump.speed: also fixed by set (line N)`.
// The base scenario with the `set:` values applied is checked before any member: an error at a
// key no parameter varies is an error of the sweep (located in the sweep file for a `set:` value,
// in the base scenario otherwise). A base file that cannot be read is reported as
// `FILE:L:C: base = PATH (cannot open scenario file RESOLVED: REASON)` (MissingInputError).
//
// A member whose values break a scenario rule gets the scenario checker's message, located where
// the value came from and naming the member:
//   `sweep.yaml:14:30: member 0007: loop.pump.speed = 2 (must be in (0, 1.2])`
// (the value's place in the sweep file; the parameter's key for sampled or spaced values), or,
// for a problem at a key the sweep does not set, `base.yaml:L:C: member 0007: ...` in the base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/io/scenario.hpp"

namespace dctwin::io {

/// A problem in a sweep file; the message is complete and located (`file:line:col: ...`).
class SweepError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

enum class SweepDesign { grid, list, latin_hypercube, monte_carlo };
[[nodiscard]] const char* to_string(SweepDesign design) noexcept;

enum class SweepDistribution { values, spaced, uniform, normal };

/// One varied scenario key.
struct SweepParameter {
  std::string key;               ///< canonical scenario key path, e.g. `server.gpus[5].power_scale`
  core::ParameterSpec spec;    ///< the scenario parameter it sets
  core::SourceLocation location;  ///< the key in the sweep file
  SweepDistribution distribution = SweepDistribution::values;
  std::vector<std::string> values;                   ///< `values`: as written
  std::vector<core::SourceLocation> value_locations;  ///< `values`: where each was written
  double a = 0.0;  ///< SI: min (spaced, uniform) or mean (normal)
  double b = 0.0;  ///< SI: max (spaced, uniform) or standard deviation (normal)
  std::size_t count = 0;  ///< spaced: number of values
};

/// One scenario value fixed for every member (`set:`).
struct SweepSetting {
  std::string key;
  std::string value;
  core::SourceLocation location;  ///< the value in the sweep file
};

/// One member: the value of every parameter (in the order of `SweepPlan::parameters`).
struct SweepMember {
  std::string id;
  std::vector<std::string> written;  ///< text put into the member's scenario
  std::vector<double> si;            ///< SI value (NaN for text and choices, or if not a number)
  std::vector<std::string> shown;    ///< for people: as written, or in the parameter's display unit
  std::vector<core::SourceLocation> where;  ///< where each value came from in the sweep file
};

/// A checked sweep and all its members.
struct SweepPlan {
  std::string name;
  std::string description;
  std::string file;         ///< label of the sweep file in messages (the path as given)
  std::string source_text;  ///< the sweep file's text
  std::string base_written; ///< `base:` as written
  std::string base_file;    ///< label of the base scenario (the resolved path)
  std::string base_text;    ///< the base scenario's text
  SweepDesign design = SweepDesign::grid;
  std::size_t samples = 0;  ///< sampled designs
  std::uint64_t seed = 1;   ///< sampled designs
  std::vector<SweepSetting> settings;
  std::vector<SweepParameter> parameters;
  std::vector<SweepMember> members;

  /// "grid 4 x 5", "list of 6", "latin_hypercube, 20 samples, seed 7", ...
  [[nodiscard]] std::string design_text() const;
};

/// The base scenario's text and label, when the caller has it already (for example a copy stored
/// with a sweep's results). Otherwise the base is read from `base:`, relative to the sweep file.
struct SweepBase {
  std::string text;
  std::string label;
};

/// Checks sweep text against the scenario `schema` and builds its members. Throws SweepError
/// (ScenarioError) for problems of the sweep or of the base scenario, MissingInputError when the
/// base cannot be read.
[[nodiscard]] SweepPlan parse_sweep(std::string_view text, std::string file_label,
                                    const core::SectionSchema& schema,
                                    const std::optional<SweepBase>& base = std::nullopt);

/// Reads `file` and `parse_sweep`s it. Throws MissingInputError when the file cannot be read.
[[nodiscard]] SweepPlan load_sweep(const std::filesystem::path& file,
                                   const core::SectionSchema& schema);

/// The scenario text of member `index` (see the top of this header).
[[nodiscard]] std::string member_scenario_text(const SweepPlan& plan, std::size_t index);

/// The label a member's scenario carries in reports (`scenario_file`): the base scenario's path
/// followed by ` [sweep member <id>]`, so that file names inside the scenario (a weather file)
/// resolve against the base scenario's directory, as they do for the base itself.
[[nodiscard]] std::string member_label(const SweepPlan& plan, std::size_t index);

/// Member `index`'s scenario, checked against `schema`. Throws core::InputError with the
/// message re-located by `describe_member_error`.
[[nodiscard]] ScenarioDocument load_sweep_member(const SweepPlan& plan, std::size_t index,
                                                 const core::SectionSchema& schema);

/// The message of an error raised for member `index`'s scenario (by the checker, or by a model
/// while building the site), located in the sweep file or the base scenario as described above.
/// Messages that carry no location of the member's scenario are prefixed with
/// `<sweep file>: member <id>: `.
[[nodiscard]] std::string describe_member_error(const SweepPlan& plan, std::size_t index,
                                                const core::InputError& error);

}  // namespace dctwin::io
