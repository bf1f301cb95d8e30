// The vectorisable exponential, logarithm and power of models/src/vector_math.hpp against libm:
// within a few ulps over their ranges, exact where the definitions are (ln 1 = 0, e^0 = 1), the
// documented ends (0 and subnormals to the power a are 0, NaN stays NaN), and the passes giving
// the bits of the scalar functions.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "../../models/src/vector_math.hpp"

using namespace dctwin::models::detail;

namespace {
/// |a - b| in units of the last place of b.
double ulps(double a, double b) { return std::abs(a - b) / std::abs(std::nextafter(b, INFINITY) - b); }
}  // namespace

TEST_CASE("e^x within a few ulps of libm over [-700, 700]", "[vector_math]") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> wide(-700.0, 700.0), narrow(-1.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? wide(random) : narrow(random);
    worst = std::max(worst, ulps(exp_within_700(x), std::exp(x)));
  }
  CHECK(worst <= 4.0);
  CHECK(exp_within_700(0.0) == 1.0);
  CHECK(std::isnan(exp_within_700(std::numeric_limits<double>::quiet_NaN())));
}

TEST_CASE("ln x within a few ulps of libm over the normal numbers", "[vector_math]") {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> decades(-307.0, 308.0), near_one(0.5, 2.0);
  double worst = 0.0;
  for (int i = 0; i < 200000; ++i) {
    const double x = i % 2 ? std::pow(10.0, decades(random)) : near_one(random);
    const double reference = std::log(x);
    if (reference == 0.0) continue;
    worst = std::max(worst, ulps(log_of_normal(x), reference));
  }
  CHECK(worst <= 4.0);
  // The ends of the fold at sqrt(1/2) and sqrt(2), and the extremes of the normal range.
  for (const double x : {0.7071067811865475, 0.7071067811865476, 1.414213562373095, 1.4142135623730951, 0.5, 2.0,
                         std::numeric_limits<double>::min(), std::numeric_limits<double>::max()})
    CHECK(ulps(log_of_normal(x), std::log(x)) <= 4.0);
  CHECK(log_of_normal(1.0) == 0.0);
}

TEST_CASE("x^a within 1e-14 of libm's pow, 0 below the normal numbers, NaN kept", "[vector_math]") {
  std::mt19937_64 random(13);
  std::uniform_real_distribution<double> base(0.0, 4.0), exponent(0.1, 2.0);
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double x = base(random), a = exponent(random), reference = std::pow(x, a);
    if (reference > 0.0) worst = std::max(worst, std::abs(power_of_non_negative(x, a) - reference) / reference);
  }
  CHECK(worst < 1e-14);
  CHECK(power_of_non_negative(0.0, 0.8) == 0.0);
  CHECK(power_of_non_negative(std::numeric_limits<double>::denorm_min(), 0.8) == 0.0);
  CHECK(power_of_non_negative(1.0, 0.8) == 1.0);
  CHECK(std::isnan(power_of_non_negative(std::numeric_limits<double>::quiet_NaN(), 0.8)));
}

TEST_CASE("The power pass gives the scalar power's bits, in place too", "[vector_math]") {
  std::vector<double> x;
  for (int i = 0; i < 37; ++i) x.push_back(i == 5 ? 0.0 : 0.013 * i * i + 1e-3);
  std::vector<double> out(x.size());
  powers_of_non_negative(x.size(), x.data(), 0.8, out.data());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(out[i] == power_of_non_negative(x[i], 0.8));
  std::vector<double> in_place = x;
  powers_of_non_negative(in_place.size(), in_place.data(), 0.8, in_place.data());
  CHECK(in_place == out);
}
