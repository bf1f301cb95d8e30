// Seeded random numbers with a fixed definition, so that a scenario and its seed give the same
// draws on every platform and compiler (the standard library's distributions do not promise that).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace dctwin::models {

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform on the open interval (0, 1).
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
  /// Standard normal by Box-Muller, truncated at +-4.
  double normal() {
    const double u1 = uniform(), u2 = uniform();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return std::clamp(z, -4.0, 4.0);
  }
  /// Exponential with the given rate [1/unit]: the waiting time of a Poisson process.
  double exponential(double rate) { return -std::log(uniform()) / rate; }
  /// Integer uniform on [0, n).
  std::uint64_t below(std::uint64_t n) { return static_cast<std::uint64_t>(uniform() * static_cast<double>(n)) % n; }

 private:
  std::uint64_t state_;
};

}  // namespace dctwin::models
