// The block vector and sparse-matrix operations CVODE uses (solver/src/vector_operations.hpp) give
// SUNDIALS' own serial results bit for bit, on one thread and on two, for a vector and a matrix
// long enough to be split.
#include <catch2/catch.hpp>

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunmatrix/sunmatrix_sparse.h>

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
        // Every count of terms the block combination compiles (1-6) and one beyond (7), with the
        // output apart from the terms and as the first term; coefficients that take SUNDIALS'
        // general formula (none equal, none +-1).
        {"linear combinations of 1 to 7 terms", [](N_Vector a, N_Vector b, N_Vector c) {
           sunrealtype coefficients[] = {0.5, -0.25, 2.0, 0.125, -3.5, 1.5, 0.3};
           for (int n = 1; n <= 7; ++n) {
             N_Vector apart[] = {a, b, a, b, a, b, a};
             N_VLinearCombination(n, coefficients, apart, c);
             N_Vector first[] = {c, a, b, a, b, a, b};
             N_VLinearCombination(n, coefficients, first, c);
             N_VLinearSum(1e-3, c, 1.0, b, b);  // keep the vectors apart for the next count
           }
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

namespace {
/// What CVODE does to its vectors between two right-hand sides, on plain or on block vectors:
/// the Nordsieck array rescaled and predicted (z_{j-1} += z_j, each vector both read and
/// written), the correction zeroed, the iterate formed, a fused scale-and-add, and then enough
/// linear sums to run past a queue's capacity (32).
void cvode_like_operations(N_Vector z0, N_Vector z1, N_Vector z2, N_Vector correction) {
  N_VScale(0.8, z1, z1);
  N_VScale(0.64, z2, z2);
  N_Vector zn[] = {z0, z1, z2};
  for (int k = 1; k <= 2; ++k)
    for (int j = 2; j >= k; --j) N_VLinearSum(1.0, zn[j - 1], 1.0, zn[j], zn[j - 1]);
  N_VConst(0.0, correction);
  N_VLinearSum(1.0, z0, 1.0, correction, correction);
  sunrealtype l[] = {0.5, -1.25, 2.0};
  N_VScaleAddMulti(3, l, correction, zn, zn);
  for (int i = 0; i < 40; ++i) N_VLinearSum(0.999, correction, 1e-3, zn[i % 3], correction);
}
}  // namespace

TEST_CASE("Queued elementwise operations give the bits of the operations run one by one", "[solver][parallel]") {
  BudgetGuard guard;
  SUNContext context = nullptr;
  REQUIRE(SUNContext_Create(nullptr, &context) == 0);
  const auto bytes = sizeof(double) * static_cast<std::size_t>(kLength);
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    INFO(threads << " thread(s)");
    VectorPair z0(context, 0.0), z1(context, 1.0), z2(context, 2.0), correction(context, 3.0);
    cvode_like_operations(z0.plain, z1.plain, z2.plain, correction.plain);
    double norm_fused = 0.0, max_norm_fused = 0.0;
    {
      const FusedElementwisePasses fused;
      cvode_like_operations(z0.blocks, z1.blocks, z2.blocks, correction.blocks);
      // The last operations are still queued: the data itself has not been formed yet.
      CHECK(std::memcmp(NV_DATA_S(correction.plain), NV_DATA_S(correction.blocks), bytes) != 0);
      // The weighted norm takes the queue in its own pass; a serial operation (the max norm)
      // and the data pointer run it first.
      norm_fused = N_VWrmsNorm(correction.blocks, z1.blocks);
      N_VScale(-2.0, correction.blocks, z2.blocks);
      max_norm_fused = N_VMaxNorm(z2.blocks);
      N_VScale(0.5, z2.blocks, z2.blocks);
      CHECK(N_VGetArrayPointer(z2.blocks) == NV_DATA_S(z2.blocks));
      CHECK(std::memcmp(NV_DATA_S(z2.blocks), NV_DATA_S(correction.plain), bytes) != 0);  // formed: -correction
      {
        // Callbacks read the data directly: under ImmediateVectorOperations each runs at once.
        const ImmediateVectorOperations immediate;
        N_VScale(-1.0, z2.blocks, z2.blocks);
        CHECK(std::memcmp(NV_DATA_S(z2.blocks), NV_DATA_S(correction.plain), bytes) == 0);
      }
      // A vector destroyed with an operation on it queued: the queue runs first.
      N_Vector scratch = N_VClone(z0.blocks);
      N_VConst(1.0, scratch);
      N_VDestroy(scratch);
      N_VScale(1.0, z2.blocks, z2.blocks);  // left queued for the scope's end
    }
    CHECK(z0.same());
    CHECK(z1.same());
    CHECK(correction.same());
    CHECK(std::memcmp(NV_DATA_S(z2.blocks), NV_DATA_S(correction.plain), bytes) == 0);
    N_VScale(-2.0, correction.plain, z2.plain);
    CHECK(max_norm_fused == N_VMaxNorm(z2.plain));
    CHECK(norm_fused == N_VWrmsNorm(correction.blocks, z1.blocks));  // the same as without a queue
  }
  SUNContext_Free(&context);
}

TEST_CASE("Error weights in one pass equal CVODE's own set-up to the last bit", "[solver][parallel]") {
  // CVODE's weights from scalar tolerances: |y|, times rtol, plus atol, inverted (cvEwtSetSS);
  // from a vector of absolute tolerances: |y|, rtol |y| + 1 atol, inverted (cvEwtSetSV).
  BudgetGuard guard;
  SUNContext context = nullptr;
  REQUIRE(SUNContext_Create(nullptr, &context) == 0);
  const double rtol = 1e-6, atol = 1e-6;
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    INFO(threads << " thread(s)");
    VectorPair y(context, 0.5), expected(context, 0.0), got(context, 0.0), tolerances(context, 1.0);
    N_VAbs(tolerances.plain, tolerances.plain);  // positive absolute tolerances of many magnitudes
    N_VAbs(y.plain, expected.plain);
    N_VScale(rtol, expected.plain, expected.plain);
    N_VAddConst(expected.plain, atol, expected.plain);
    N_VInv(expected.plain, expected.plain);
    CHECK(error_weights(y.blocks, rtol, atol, nullptr, got.blocks) == 0);
    CHECK(std::memcmp(NV_DATA_S(expected.plain), NV_DATA_S(got.blocks), sizeof(double) * static_cast<std::size_t>(kLength)) == 0);
    N_VAbs(y.plain, expected.plain);
    N_VLinearSum(rtol, expected.plain, 1.0, tolerances.plain, expected.plain);
    N_VInv(expected.plain, expected.plain);
    CHECK(error_weights(y.blocks, rtol, atol, NV_DATA_S(tolerances.plain), got.blocks) == 0);
    CHECK(std::memcmp(NV_DATA_S(expected.plain), NV_DATA_S(got.blocks), sizeof(double) * static_cast<std::size_t>(kLength)) == 0);
    // A weight that is not positive (a zero state with zero tolerance) is reported as CVODE does.
    NV_Ith_S(y.blocks, 777) = 0.0;
    CHECK(error_weights(y.blocks, rtol, 0.0, nullptr, got.blocks) == -1);
  }
  SUNContext_Free(&context);
}

TEST_CASE("A linear combination restricted to ranges forms their entries to the last bit, no others", "[solver][parallel]") {
  // CVodeGetDky forms the interpolated state by N_VLinearCombination; at a governors' tick only
  // the states the governors read are formed (linear_combination_in).
  BudgetGuard guard;
  SUNContext context = nullptr;
  REQUIRE(SUNContext_Create(nullptr, &context) == 0);
  const StateRanges ranges = merge_state_ranges({{17, 30000}, {50000, 24576}, {99990, 13}});
  for (const int threads : {1, 2}) {
    set_thread_budget(threads);
    INFO(threads << " thread(s)");
    VectorPair x(context, 0.0), y(context, 1.0), z(context, 2.0);
    sunrealtype coefficients[] = {0.5, -0.25, 2.0};
    N_Vector whole_in[] = {x.blocks, y.blocks, z.blocks};
    N_Vector whole = N_VClone(x.blocks);
    N_VLinearCombination(3, coefficients, whole_in, whole);
    N_Vector part = N_VClone(x.blocks);
    N_VConst(-7.0, part);
    const int flag = linear_combination_in(part, ranges, [&] { return N_VLinearCombination(3, coefficients, whole_in, part); });
    CHECK(flag == 0);
    std::size_t formed = 0, kept = 0;
    for (sunindextype i = 0; i < kLength; ++i) {
      bool inside = false;
      for (const auto& r : ranges) inside = inside || (i >= r.first && i < r.first + r.count);
      if (inside) formed += std::memcmp(&NV_Ith_S(part, i), &NV_Ith_S(whole, i), sizeof(double)) == 0 ? 1 : 0;
      else kept += NV_Ith_S(part, i) == -7.0 ? 1 : 0;
    }
    CHECK(formed == 30000 + 24576 + 13);
    CHECK(kept == static_cast<std::size_t>(kLength) - formed);
    // Afterwards the vector combines in full again.
    N_VLinearCombination(3, coefficients, whole_in, part);
    CHECK(std::memcmp(NV_DATA_S(part), NV_DATA_S(whole), sizeof(double) * static_cast<std::size_t>(kLength)) == 0);
    N_VDestroy(part);
    N_VDestroy(whole);
  }
  SUNContext_Free(&context);
}

namespace {

/// Above vector_parallel_minimum rows, not a multiple of 16; smaller than kLength because
/// SUNDIALS' own A = cA + I, the yardstick here, takes time quadratic in the rows (two minutes
/// at 100,003).
constexpr sunindextype kMatrixRows = 16411;

/// A CSR or CSC matrix of kMatrixRows rows with a diagonal entry in every row (unless
/// `skip_diagonal` names one to leave out) and two off-diagonal entries per row, values of many
/// magnitudes.
SUNMatrix banded_sparse(SUNContext context, int type, long skip_diagonal = -1) {
  const sunindextype n = kMatrixRows;
  SUNMatrix A = SUNSparseMatrix(n, n, 3 * n + 7, type, context);  // room to spare at the end
  sunindextype* starts = SM_INDEXPTRS_S(A);
  sunindextype* indices = SM_INDEXVALS_S(A);
  double* values = SM_DATA_S(A);
  sunindextype k = 0;
  for (sunindextype j = 0; j < n; ++j) {
    starts[j] = k;
    for (const sunindextype other : {(j + n - 97) % n, j, (j + 5) % n}) {
      if (other == j && j == skip_diagonal) continue;
      indices[k] = other;
      values[k] = std::cos(0.11 * static_cast<double>(k)) * std::exp(0.002 * static_cast<double>(k % 1009));
      ++k;
    }
  }
  starts[n] = k;
  return A;
}

bool same_matrix(SUNMatrix A, SUNMatrix B) {
  if (SM_NNZ_S(A) != SM_NNZ_S(B) || SM_NP_S(A) != SM_NP_S(B)) return false;
  const auto nnz = static_cast<std::size_t>(SM_NNZ_S(A));
  const auto np = static_cast<std::size_t>(SM_NP_S(A));
  return std::memcmp(SM_DATA_S(A), SM_DATA_S(B), sizeof(double) * nnz) == 0 &&
         std::memcmp(SM_INDEXVALS_S(A), SM_INDEXVALS_S(B), sizeof(sunindextype) * nnz) == 0 &&
         std::memcmp(SM_INDEXPTRS_S(A), SM_INDEXPTRS_S(B), sizeof(sunindextype) * (np + 1)) == 0;
}

}  // namespace

TEST_CASE("Block sparse-matrix operations equal SUNDIALS' serial ones to the last bit", "[solver][parallel]") {
  BudgetGuard guard;
  SUNContext context = nullptr;
  REQUIRE(SUNContext_Create(nullptr, &context) == 0);
  for (const int type : {CSR_MAT, CSC_MAT}) {
    for (const int threads : {1, 2}) {
      set_thread_budget(threads);
      INFO((type == CSR_MAT ? "CSR" : "CSC") << " on " << threads << " thread(s)");
      SUNMatrix plain = banded_sparse(context, type);
      SUNMatrix blocks = banded_sparse(context, type);
      use_block_operations(blocks);

      // A + I with every diagonal entry present: in place.
      REQUIRE(SUNMatScaleAddI(-0.37, plain) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatScaleAddI(-0.37, blocks) == SUNMAT_SUCCESS);
      CHECK(same_matrix(plain, blocks));

      // Copies into clones (which inherit the operations), then copies back after a zero.
      SUNMatrix plain_copy = SUNMatClone(plain);
      SUNMatrix block_copy = SUNMatClone(blocks);
      CHECK(block_copy->ops->copy == blocks->ops->copy);
      REQUIRE(SUNMatCopy(plain, plain_copy) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatCopy(blocks, block_copy) == SUNMAT_SUCCESS);
      CHECK(same_matrix(plain_copy, block_copy));
      REQUIRE(SUNMatZero(plain) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatZero(blocks) == SUNMAT_SUCCESS);
      CHECK(same_matrix(plain, blocks));
      REQUIRE(SUNMatCopy(plain_copy, plain) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatCopy(block_copy, blocks) == SUNMAT_SUCCESS);
      CHECK(same_matrix(plain, blocks));

      // A copy of a matrix with fewer nonzeros than the target's room leaves zeros behind it.
      SUNMatrix fewer_plain = banded_sparse(context, type, 12345);
      SUNMatrix fewer_blocks = banded_sparse(context, type, 12345);
      use_block_operations(fewer_blocks);
      REQUIRE(SUNMatCopy(fewer_plain, plain) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatCopy(fewer_blocks, blocks) == SUNMAT_SUCCESS);
      CHECK(same_matrix(plain, blocks));
      // A + I with a diagonal entry missing: SUNDIALS' general case, the same result.
      REQUIRE(SUNMatScaleAddI(2.5, fewer_plain) == SUNMAT_SUCCESS);
      REQUIRE(SUNMatScaleAddI(2.5, fewer_blocks) == SUNMAT_SUCCESS);
      CHECK(same_matrix(fewer_plain, fewer_blocks));

      for (SUNMatrix m : {plain, blocks, plain_copy, block_copy, fewer_plain, fewer_blocks}) SUNMatDestroy(m);
    }
  }
  SUNContext_Free(&context);
}
