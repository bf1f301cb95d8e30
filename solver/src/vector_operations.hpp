#pragma once
// CVODE's most used vector operations over the blocks of solver/parallel.hpp (internal to the
// solver library).

#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <cstddef>
#include <functional>
#include <vector>

#include "dctwin/solver/types.hpp"

namespace dctwin::solver {

/// Vectors shorter than this stay on one thread: an operation on them takes a few microseconds,
/// about what waking a second thread costs.
inline constexpr std::size_t vector_parallel_minimum = 8192;

/// Replaces the operations of a serial N_Vector that CVODE's steps spend their time in (linear
/// sums, scaling, the fused combinations, the weighted RMS norm, and the constant, absolute value,
/// added constant, inverse and product that set the error weights) by ones that run on the calling
/// thread's thread budget for long vectors. Elementwise results are those of one thread; the
/// norm is summed per block and then in block order, so it does not depend on the thread count.
/// Every other operation that touches the data (the serial ones kept, N_VGetArrayPointer,
/// N_VDestroy) first runs what FusedElementwisePasses queued. Vectors CVODE clones from this one
/// inherit the operations.
void use_block_operations(N_Vector v);

/// While one lives on a thread, the elementwise operations the block vectors take on that thread
/// (linear sums, scalings, constants and the fused scale-and-add) are queued, up to 32 of them, and
/// run together in one pass over the elements, run by run of 512 elements, when something needs
/// their results: any other operation (the weighted norm takes the queue in its own pass), a
/// request for the data (N_VGetArrayPointer), a vector's destruction, complete(), or this
/// object's end. Each element gets the same operations in the same order, so the results have the
/// bits of the operations run one by one; what is saved is the vectors' trips through the cache
/// (CVODE's step takes ~20 such operations over the whole state). Code that reads vector data
/// through pointers it holds (NV_DATA_S, or a pointer kept from before an operation) must not run
/// while operations may be queued: CVODE's callbacks open an ImmediateVectorOperations. Not
/// copyable; scopes nest.
class FusedElementwisePasses {
 public:
  FusedElementwisePasses();
  /// Runs what is queued (call it at the scope's end: it may throw, the destructor does not).
  void complete();
  ~FusedElementwisePasses();
  FusedElementwisePasses(const FusedElementwisePasses&) = delete;
  FusedElementwisePasses& operator=(const FusedElementwisePasses&) = delete;
};

/// Runs what is queued on this thread and, while it lives, runs every operation at once (for
/// code that reads vector data directly, such as CVODE's callbacks inside a fused scope).
class ImmediateVectorOperations {
 public:
  ImmediateVectorOperations();
  ~ImmediateVectorOperations();
  ImmediateVectorOperations(const ImmediateVectorOperations&) = delete;
  ImmediateVectorOperations& operator=(const ImmediateVectorOperations&) = delete;

 private:
  int saved_;
};

/// Runs `form`, a call that forms z by N_VLinearCombination (as CVodeGetDky(cvode, t, 0, z) does),
/// with z's linear combination restricted to the states of `ranges` (sorted, disjoint); z's other
/// entries keep their values, and each formed entry has the bits the whole combination gives it.
/// z must use the block operations. Returns what `form` returns.
int linear_combination_in(N_Vector z, const StateRanges& ranges, const std::function<int()>& form);

/// Runs `form`, a call that forms z by N_VLinearCombination (CVodeGetDky(cvode, t, 0, z)), with
/// z's linear combination replaced by one that forms nothing and records its terms: the
/// coefficients into c and the vectors' data into x, in the order given (for CVodeGetDky: the
/// Nordsieck array z_q, ..., z_0 with the coefficients s^q, ..., 1). z must use the block
/// operations. Returns what `form` returns.
int record_linear_combination(N_Vector z, std::vector<double>& c, std::vector<const double*>& x,
                              const std::function<int()>& form);

/// CVODE's error weights w_i = 1 / (rtol |y_i| + atol_i) in one pass, in blocks; atol_i is
/// atol_vector[i] when given, else atol. CVODE's own set-up (CVodeSStolerances/SVtolerances)
/// takes four vector operations and a serial minimum over the state at every step; this gives
/// every weight the same bits. Returns -1 when a denominator is not positive (or not a number),
/// as CVODE's weight functions report a bad weight, else 0.
int error_weights(N_Vector y, double rtol, double atol, const double* atol_vector, N_Vector w);

/// The same for a SUNDIALS sparse matrix (CSR or CSC): zero, copy and A = c A + I, the three
/// operations CVODE's linear-solver set-up applies to the whole Newton matrix (and to the saved
/// Jacobian it copies from), run in blocks of rows (columns) for large matrices. Each entry gets
/// the value SUNDIALS' own operation gives it; cases outside the common one (a copy into a matrix
/// with less room, A + I with a missing diagonal entry) are left to SUNDIALS. Matrices cloned from
/// this one inherit the operations.
void use_block_operations(SUNMatrix A);

}  // namespace dctwin::solver
