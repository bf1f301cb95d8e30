// The feed the electrical feed tests share: two lineups of 384 servers in 192 racks at 30 degC
// ambient, built from parameters and a starting load; and the names those tests use.
#pragma once

#include <cstddef>

#include "../test_helpers.hpp"
#include "dctwin/models/electrical/feed.hpp"

namespace feed_test {

using namespace dctwin::models::electrical;
using dctwin::core::ParameterTree;
using dctwin::core::SectionSchema;
using model_test::defaults_tree;
using model_test::input_error;

inline constexpr std::size_t lineups = 2;
inline constexpr std::size_t servers = 384;  ///< per lineup
inline constexpr std::size_t racks = 192;    ///< per lineup
inline constexpr double ambient = 303.15;    ///< K

/// The shared feed with parameters `p`, starting at `start` [s] with `load`.
inline ElectricalFeed reference_feed(const ElectricalParameters& p, const FeedLoad& load, double start = 0.0) {
  return ElectricalFeed(p, lineups, servers, racks, ambient, start, load);
}

}  // namespace feed_test
