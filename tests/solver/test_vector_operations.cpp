// The block vector operations CVODE uses (solver/src/vector_operations.hpp) give SUNDIALS' own
// serial results bit for bit, on one thread and on two, for a vector long enough to be split.
#include <catch2/catch.hpp>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../../solver/src/vector_operations.hpp"
#include "dctwin/solver/parallel.hpp"

using namespace dctwin::solver;

namespace {

constexpr sunindextype kLength = 100003;  // above vector_parallel_minimum, not a multiple of 16

/// A serial vector with SUNDIALS' operations and one with the block operations, same contents.
struct VectorPair {
  N_Vector plain = nullptr, blocks = nullptr;
  VectorPair(SUNContext context, double offset) {
    plain = N_VNew_Serial(kLength, context);
    blocks = N_VNew_Serial(kLength, context);
    use_block_operations(blocks);
    for (sunindextype i = 0; i < kLength; ++i) {
      // Values of both signs and many magnitudes, none zero (the inverse divides by them).
      const double v = std::sin(0.37 * static_cast<double>(i) + offset) * std::exp(0.001 * static_cast<double>(i % 997));
      NV_Ith_S(plain, i) = v == 0.0 ? 1.0 : v;
      NV_Ith_S(blocks, i) = NV_Ith_S(plain, i);
    }
  }
  ~VectorPair() {
    N_VDestroy(plain);
    N_VDestroy(blocks);
  }
  VectorPair(const VectorPair&) = delete;
  VectorPair& operator=(const VectorPair&) = delete;
  [[nodiscard]] bool same() const {
    return std::memcmp(NV_DATA_S(plain), NV_DATA_S(blocks), sizeof(double) * static_cast<std::size_t>(kLength)) == 0;
  }
};

struct BudgetGuard {
  int saved = thread_budget();
  ~BudgetGuard() { set_thread_budget(saved); }
};

}  // namespace

TEST_CASE("Block vector operations equal SUNDIALS' serial ones to the last bit", "[solver][parallel]") {
  BudgetGuard guard;
  SUNContext context = nullptr;
  REQUIRE(SUNContext_Create(nullptr, &context) == 0);
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    VectorPair x(context, 0.0), y(context, 1.0), z(context, 2.0);
    // Each operation on the plain and on the block vectors, then the outputs compared.
    const std::vector<std::pair<std::string, std::function<void(N_Vector, N_Vector, N_Vector)>>> operations = {
        {"linear sum", [](N_Vector a, N_Vector b, N_Vector c) { N_VLinearSum(0.3, a, -1.7, b, c); }},
        {"linear sum 1, -1", [](N_Vector a, N_Vector b, N_Vector c) { N_VLinearSum(1.0, a, -1.0, b, c); }},
        {"scale", [](N_Vector a, N_Vector, N_Vector c) { N_VScale(-2.5, a, c); }},
        {"constant", [](N_Vector, N_Vector, N_Vector c) { N_VConst(0.125, c); }},
        {"absolute value", [](N_Vector a, N_Vector, N_Vector c) { N_VAbs(a, c); }},
        {"added constant", [](N_Vector a, N_Vector, N_Vector c) { N_VAddConst(a, 1e-6, c); }},
        {"inverse", [](N_Vector a, N_Vector, N_Vector c) { N_VInv(a, c); }},
        {"product", [](N_Vector a, N_Vector b, N_Vector c) { N_VProd(a, b, c); }},
        {"linear combination", [](N_Vector a, N_Vector b, N_Vector c) {
           sunrealtype coefficients[] = {0.5, -0.25, 2.0};
           N_Vector vectors[] = {c, a, b};  // the output may be the first vector (SUNDIALS' rule)
           N_VLinearCombination(3, coefficients, vectors, c);
         }},
        {"scale add multi", [](N_Vector a, N_Vector b, N_Vector c) {
           sunrealtype coefficients[] = {0.75, -3.0};
           N_Vector ys[] = {b, c};
           N_Vector zs[] = {b, c};
           N_VScaleAddMulti(2, coefficients, a, ys, zs);
         }},
    };
    for (const auto& [name, operation] : operations) {
      INFO(name << " on " << threads << " thread(s)");
      operation(x.plain, y.plain, z.plain);
      operation(x.blocks, y.blocks, z.blocks);
      CHECK(y.same());
      CHECK(z.same());
    }
    // The weighted RMS norm is summed per block, then in block order: not SUNDIALS' order, but
    // the same on one thread or two and equal to it within rounding.
    const double plain_norm = N_VWrmsNorm(x.plain, y.plain);
    const double block_norm = N_VWrmsNorm(x.blocks, y.blocks);
    CHECK(block_norm == Approx(plain_norm).epsilon(1e-12));
    set_thread_budget(1);
    const double one_thread = N_VWrmsNorm(x.blocks, y.blocks);
    set_thread_budget(2);
    CHECK(N_VWrmsNorm(x.blocks, y.blocks) == one_thread);
  }
  SUNContext_Free(&context);
}
