#pragma once
// Exponential, logarithm and power in plain arithmetic, for loops the compiler vectorises (libm's
// functions are calls it cannot). Each gives the same bits in scalar code and in every vector
// variant of a loop (DCTWIN_VECTOR_VARIANTS, solver/parallel.hpp), provided the file is compiled
// without contraction into fused multiply-adds (models/CMakeLists.txt). Internal to models/.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace dctwin::models::detail {

/// Exponents are taken within [-700, 700] (e^-700 ~ 1e-304, e^700 ~ 1e304; 2^n stays a normal number).
inline constexpr double min_exponent = -700.0;
inline constexpr double max_exponent = 700.0;

/// ln 2 in two parts: the first has trailing zero bits, so that n ln2_high is exact for |n| < 2^11.
inline constexpr double ln2_high = 0x1.62e42fefa3800p-1;
inline constexpr double ln2_low = 0x1.ef35793c76730p-45;

/// e^x for -700 <= x <= 700, within a few ulps: x = n ln 2 + r with |r| <= ln 2 / 2, 2^n built in
/// the exponent bits, e^r by its Taylor series to r^13 (remainder < 1e-17). It matches libm to
/// ~1e-15; libm's exp took ~17 % of a pod run when the GPU packages called it.
inline double exp_within_700(double x) {
  constexpr double shifter = 0x1.8p52;  // adding it rounds to an integer held in the low mantissa bits
  const double shifted = x * 1.4426950408889634 + shifter;
  const double n = shifted - shifter;
  const double r = (x - n * ln2_high) - n * ln2_low;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // n + 1023 in the exponent bits, in unsigned arithmetic (any input, NaN included, wraps instead
  // of overflowing; a NaN's p is NaN whatever the exponent).
  const auto n_bits = std::bit_cast<std::uint64_t>(shifted) - std::bit_cast<std::uint64_t>(shifter);
  return p * std::bit_cast<double>((n_bits + 1023) << 52);
}

/// ln x for a positive normal x (not checked; NaN gives NaN), within ~2 ulps of libm's log: x = z 2^k with z in
/// [sqrt(1/2), sqrt(2)), split in the bits without a branch (k from the exponent field after
/// moving sqrt(1/2) to its start, as libm's do), and ln z = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...),
/// s = (z - 1) / (z + 1), |s| <= 0.172, to the s^23 term (remainder < 1e-18 of the sum).
inline double log_of_normal(double x) {
  constexpr std::uint64_t sqrt_half = 0x3fe6a09e667f3bcd;          // the bits of sqrt(1/2)
  constexpr std::uint64_t exponent_field = std::uint64_t{0xfff} << 52;
  constexpr std::uint64_t bias = std::uint64_t{0x400} << 52;       // keeps k + 1024 positive
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t shifted = bits - sqrt_half + bias;
  // k + 1024 < 2^52 as a double from its bits (an integer conversion the vector units all have).
  const double k = std::bit_cast<double>((shifted >> 52) | 0x4330000000000000) - 0x1p52 - 1024.0;
  const double z = std::bit_cast<double>(bits - ((shifted & exponent_field) - bias));
  const double s = (z - 1.0) / (z + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23.0;
  p = p * s2 + 1.0 / 21.0;
  p = p * s2 + 1.0 / 19.0;
  p = p * s2 + 1.0 / 17.0;
  p = p * s2 + 1.0 / 15.0;
  p = p * s2 + 1.0 / 13.0;
  p = p * s2 + 1.0 / 11.0;
  p = p * s2 + 1.0 / 9.0;
  p = p * s2 + 1.0 / 7.0;
  p = p * s2 + 1.0 / 5.0;
  p = p * s2 + 1.0 / 3.0;
  p = p * s2 + 1.0;
  return k * ln2_high + (k * ln2_low + 2.0 * s * p) + (x - x);  // + (x - x): NaN stays NaN
}

/// x within [min_exponent, max_exponent]; NaN stays NaN (as std::clamp; written as selects, which
/// GCC vectorises where it keeps std::min/std::max of references scalar).
inline double clamp_exponent(double x) { return x < min_exponent ? min_exponent : x > max_exponent ? max_exponent : x; }

/// out[i] = x[i]^a = e^(a ln x[i]) for n values x[i] >= 0 and a > 0, in passes the compiler
/// vectorises (GCC 12 keeps a loop scalar when a clamp or a select sits next to the polynomials);
/// out may be x. 0 below the least normal number (libm's pow gives 0 or a subnormal there), NaN
/// for NaN; the exponent clamped to [-700, 700].
inline void powers_of_non_negative(std::size_t n, const double* x, double a, double* out) {
  constexpr std::size_t lanes = 16;
  double t[lanes];
  for (std::size_t first = 0; first < n; first += lanes) {
    const std::size_t m = std::min(lanes, n - first);
    const double* xs = x + first;
    for (std::size_t i = 0; i < m; ++i) t[i] = xs[i] < std::numeric_limits<double>::min() ? 1.0 : xs[i];
    for (std::size_t i = 0; i < m; ++i) t[i] = a * log_of_normal(t[i]);
    for (std::size_t i = 0; i < m; ++i) t[i] = clamp_exponent(t[i]);
    for (std::size_t i = 0; i < m; ++i) t[i] = exp_within_700(t[i]);
    for (std::size_t i = 0; i < m; ++i) out[first + i] = xs[i] < std::numeric_limits<double>::min() ? 0.0 : t[i];
  }
}

/// x^a for one value: the pass with one lane.
inline double power_of_non_negative(double x, double a) {
  double out = 0.0;
  powers_of_non_negative(1, &x, a, &out);
  return out;
}

}  // namespace dctwin::models::detail
