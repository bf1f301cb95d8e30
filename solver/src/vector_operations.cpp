#include "vector_operations.hpp"

#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

#include "dctwin/core/check.hpp"
#include "dctwin/solver/parallel.hpp"

namespace dctwin::solver {

namespace {

std::size_t length(N_Vector v) { return static_cast<std::size_t>(NV_LENGTH_S(v)); }
double* data(N_Vector v) { return NV_DATA_S(v); }

template <class Body>
void for_each_element_block(std::size_t n, const Body& body) {
  for_each_block(
      n, [&](const BlockRange& block) { body(block.first, block.last); }, vector_parallel_minimum);
}

// ---- queued elementwise operations -----------------------------------------------------------------
// CVODE's step is a run of short elementwise operations over the whole state: the rescaling of the
// Nordsieck array (q scalings), its prediction (q (q + 1) / 2 linear sums), the corrector's zero
// and first iterate, the Newton residual, and so on, each reading and writing vectors of the full
// length. Element i of each result depends only on element i of its operands, so a run of them
// may be applied run by run of elements instead of operation by operation: every element gets
// the same operations in the same order, so the same bits, and the vectors pass through the cache
// once instead of once per operation. The operations are queued while a FusedElementwisePasses
// lives on the thread and run at the first operation that needs their results.

struct QueuedOperation {
  enum class Kind : unsigned char { linear_sum, scale, constant };
  Kind kind = Kind::constant;
  double a = 0.0, b = 0.0;
  const double* x = nullptr;
  const double* y = nullptr;
  double* z = nullptr;
};

// Elements per run: the vectors of a typical queue (the Nordsieck array, the correction and the
// iterate, up to ~8) then stay in the first-level cache from one queued operation to the next.
constexpr std::size_t fused_run = 512;

struct OperationQueue {
  static constexpr std::size_t capacity = 32;
  std::array<QueuedOperation, capacity> operations{};
  std::size_t count = 0;
  std::size_t length = 0;  // every queued operation is over this many elements
  int fusing = 0;          // FusedElementwisePasses alive on this thread (0 under ImmediateVectorOperations)
};

thread_local OperationQueue operation_queue;

// Applies the queued operations, in order, to elements [first, last), with the expressions of the
// single operations (z = a x + b y, z = c x, z = c). Compute-bound once a run is in the cache, so
// compiled in vector variants (the same bits in each: this file is compiled without contraction).
DCTWIN_VECTOR_VARIANTS void apply_run(const QueuedOperation* ops, std::size_t count, std::size_t first,
                                      std::size_t last) {
  for (std::size_t k = 0; k < count; ++k) {
    const QueuedOperation& op = ops[k];
    double* z = op.z;
    switch (op.kind) {
      case QueuedOperation::Kind::linear_sum: {
        const double *x = op.x, *y = op.y;
        const double a = op.a, b = op.b;
        for (std::size_t i = first; i < last; ++i) z[i] = a * x[i] + b * y[i];
        break;
      }
      case QueuedOperation::Kind::scale: {
        const double* x = op.x;
        const double c = op.a;
        for (std::size_t i = first; i < last; ++i) z[i] = c * x[i];
        break;
      }
      case QueuedOperation::Kind::constant: {
        const double c = op.a;
        for (std::size_t i = first; i < last; ++i) z[i] = c;
        break;
      }
    }
  }
}

// Runs the queued operations over every element, block by block and in runs of fused_run elements
// within a block; `after(block, first, last)` is called on each run once the queue has formed it
// (in order within a block), for a reduction that reads the results in the same pass.
template <class After>
void run_queue_then(OperationQueue& queue, const After& after) {
  const QueuedOperation* ops = queue.operations.data();
  const std::size_t count = queue.count;
  for_each_block(
      queue.length,
      [&](const BlockRange& block) {
        for (std::size_t first = block.first; first < block.last; first += fused_run) {
          const std::size_t last = std::min(first + fused_run, block.last);
          apply_run(ops, count, first, last);
          after(block.block, first, last);
        }
      },
      vector_parallel_minimum);
  queue.count = 0;
}

// Runs what is queued on this thread (every operation that reads or writes vector data directly
// calls this first).
void run_queued_operations() {
  OperationQueue& queue = operation_queue;
  if (queue.count == 0) return;
  run_queue_then(queue, [](std::size_t, std::size_t, std::size_t) {});
}

// Queues op over n elements; runs it at once (with anything queued before it) when no
// FusedElementwisePasses lives on this thread.
void enqueue(const QueuedOperation& op, std::size_t n) {
  OperationQueue& queue = operation_queue;
  if (queue.count > 0 && (queue.length != n || queue.count == OperationQueue::capacity)) run_queued_operations();
  queue.length = n;
  queue.operations[queue.count++] = op;
  if (queue.fusing == 0) run_queued_operations();
}

// z = a x + b y
void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  enqueue({QueuedOperation::Kind::linear_sum, a, b, data(x), data(y), data(z)}, length(z));
}

// z = c x
void scale(sunrealtype c, N_Vector x, N_Vector z) {
  enqueue({QueuedOperation::Kind::scale, c, 0.0, data(x), nullptr, data(z)}, length(z));
}

// z = c
void constant(sunrealtype c, N_Vector z) {
  enqueue({QueuedOperation::Kind::constant, c, 0.0, nullptr, nullptr, data(z)}, length(z));
}

// z = |x|
void absolute(N_Vector x, N_Vector z) {
  run_queued_operations();
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = std::abs(xd[i]);
  });
}

// z = x + b
void add_constant(N_Vector x, sunrealtype b, N_Vector z) {
  run_queued_operations();
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = xd[i] + b;
  });
}

// z = 1 / x
void inverse(N_Vector x, N_Vector z) {
  run_queued_operations();
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = 1.0 / xd[i];
  });
}

// z = x y, element by element
void product(N_Vector x, N_Vector y, N_Vector z) {
  run_queued_operations();
  const double *xd = data(x), *yd = data(y);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = xd[i] * yd[i];
  });
}

// sum_i (x_i w_i)^2, per block and then in block order; in the same pass as the queued operations
// when there are any (each block's terms are added in element order either way).
double weighted_square_sum(N_Vector x, N_Vector w) {
  const double *xd = data(x), *wd = data(w);
  const std::size_t n = length(x);
  OperationQueue& queue = operation_queue;
  if (queue.count > 0 && queue.length != n) run_queued_operations();
  BlockSums sums{};
  const auto accumulate = [&](std::size_t block, std::size_t first, std::size_t last) {
    double s = sums[block];
    for (std::size_t i = first; i < last; ++i) {
      const double p = xd[i] * wd[i];
      s += p * p;
    }
    sums[block] = s;
  };
  if (queue.count > 0) {
    run_queue_then(queue, accumulate);
  } else {
    for_each_block(
        n, [&](const BlockRange& block) { accumulate(block.block, block.first, block.last); },
        vector_parallel_minimum);
  }
  return ordered_sum(sums);
}

sunrealtype weighted_rms_norm(N_Vector x, N_Vector w) {
  return std::sqrt(weighted_square_sum(x, w) / static_cast<double>(length(x)));
}

// z = sum_k c_k X_k (z may be X_0)
// z_i = c_0 X_0,i + c_1 X_1,i + ... over [first, last), the terms added in order (the bits of
// SUNDIALS' serial combination). K terms known at compile time, with the vectors' data pointers
// read once, so the loop runs over i in vector registers; z may be one of the X.
template <std::size_t K>
void combine_run(const double* c, const double* const* x, double* z, std::size_t first, std::size_t last) {
  std::array<double, K> ck;
  std::array<const double*, K> xk;
  for (std::size_t k = 0; k < K; ++k) {
    ck[k] = c[k];
    xk[k] = x[k];
  }
  for (std::size_t i = first; i < last; ++i) {
    double s = ck[0] * xk[0][i];
    for (std::size_t k = 1; k < K; ++k) s += ck[k] * xk[k][i];
    z[i] = s;
  }
}

// Up to this many terms the combination takes a compiled form (CVODE asks for at most q + 1 = 6).
constexpr std::size_t max_compiled_terms = 6;

// combine_run for `count` (1 to max_compiled_terms) terms, X's data pointers in x.
void combine_run(std::size_t count, const double* c, const double* const* x, double* z, std::size_t first,
                 std::size_t last) {
  switch (count) {
    case 1: return combine_run<1>(c, x, z, first, last);
    case 2: return combine_run<2>(c, x, z, first, last);
    case 3: return combine_run<3>(c, x, z, first, last);
    case 4: return combine_run<4>(c, x, z, first, last);
    case 5: return combine_run<5>(c, x, z, first, last);
    case 6: return combine_run<6>(c, x, z, first, last);
    default:  // the callers take more terms element by element themselves
      DCTWIN_DEMAND(false, "combine_run takes 1 to max_compiled_terms terms");
  }
}

// The data pointers of X (count of them, count <= max_compiled_terms, else the first ones).
std::array<const double*, max_compiled_terms> data_pointers(std::size_t count, N_Vector* X) {
  std::array<const double*, max_compiled_terms> x{};
  for (std::size_t k = 0; k < std::min(count, max_compiled_terms); ++k) x[k] = data(X[k]);
  return x;
}

int linear_combination(int nvec, sunrealtype* c, N_Vector* X, N_Vector z) {
  run_queued_operations();
  double* zd = data(z);
  const auto count = static_cast<std::size_t>(nvec);
  if (count > max_compiled_terms) {
    for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
      for (std::size_t i = first; i < last; ++i) {
        double s = c[0] * data(X[0])[i];
        for (std::size_t k = 1; k < count; ++k) s += c[k] * data(X[k])[i];
        zd[i] = s;
      }
    });
    return 0;
  }
  const auto x = data_pointers(count, X);
  for_each_element_block(length(z),
                         [&](std::size_t first, std::size_t last) { combine_run(count, c, x.data(), zd, first, last); });
  return 0;
}

// z = sum_k c_k X_k on the states of the ranges linear_combination_in() set for this thread only.
thread_local const StateRanges* combination_ranges = nullptr;

int linear_combination_in_ranges(int nvec, sunrealtype* c, N_Vector* X, N_Vector z) {
  run_queued_operations();
  double* zd = data(z);
  const auto count = static_cast<std::size_t>(nvec);
  if (count > max_compiled_terms) {
    for_each_block_in(*combination_ranges, [&](const BlockRange& run) {
      for (std::size_t i = run.first; i < run.last; ++i) {  // as linear_combination, element by element
        double s = c[0] * data(X[0])[i];
        for (std::size_t k = 1; k < count; ++k) s += c[k] * data(X[k])[i];
        zd[i] = s;
      }
    }, vector_parallel_minimum);
    return 0;
  }
  const auto x = data_pointers(count, X);
  for_each_block_in(
      *combination_ranges, [&](const BlockRange& run) { combine_run(count, c, x.data(), zd, run.first, run.last); },
      vector_parallel_minimum);
  return 0;
}

// Z_k = a_k x + Y_k (Z_k may be Y_k), k = 0, 1, ...: queued as that many linear sums with b = 1
// (1 y_i is y_i exactly).
int scale_add_multi(int nvec, sunrealtype* a, N_Vector x, N_Vector* Y, N_Vector* Z) {
  for (int k = 0; k < nvec; ++k)
    enqueue({QueuedOperation::Kind::linear_sum, a[k], 1.0, data(x), data(Y[k]), data(Z[k])}, length(x));
  return 0;
}

// ---- sparse matrices ------------------------------------------------------------------------------
// Blocks of rows (CSR) or columns (CSC), each with the entries indexptrs[j] .. indexptrs[j + 1].

std::size_t nonzeros_capacity(SUNMatrix A) { return static_cast<std::size_t>(SM_NNZ_S(A)); }
std::size_t pointers(SUNMatrix A) { return static_cast<std::size_t>(SM_NP_S(A)); }

// All entries, indices and pointers to zero (as SUNMatZero_Sparse).
int matrix_zero(SUNMatrix A) {
  double* values = SM_DATA_S(A);
  sunindextype* indices = SM_INDEXVALS_S(A);
  sunindextype* starts = SM_INDEXPTRS_S(A);
  for_each_element_block(nonzeros_capacity(A), [&](std::size_t first, std::size_t last) {
    std::fill(values + first, values + last, 0.0);
    std::fill(indices + first, indices + last, sunindextype{0});
  });
  std::fill(starts, starts + pointers(A) + 1, sunindextype{0});
  return SUNMAT_SUCCESS;
}

// B = A (as SUNMatCopy_Sparse: B's entries beyond A's nonzeros are zero).
int matrix_copy(SUNMatrix A, SUNMatrix B) {
  const bool same_shape = SUNMatGetID(B) == SUNMATRIX_SPARSE && SM_SPARSETYPE_S(A) == SM_SPARSETYPE_S(B) &&
                          SM_ROWS_S(A) == SM_ROWS_S(B) && SM_COLUMNS_S(A) == SM_COLUMNS_S(B);
  const std::size_t np = pointers(A);
  const auto used = static_cast<std::size_t>(SM_INDEXPTRS_S(A)[np]);
  if (!same_shape || nonzeros_capacity(B) < used) return SUNMatCopy_Sparse(A, B);
  const double* from_values = SM_DATA_S(A);
  const sunindextype* from_indices = SM_INDEXVALS_S(A);
  double* values = SM_DATA_S(B);
  sunindextype* indices = SM_INDEXVALS_S(B);
  for_each_element_block(nonzeros_capacity(B), [&](std::size_t first, std::size_t last) {
    const std::size_t copied = std::clamp(used, first, last);
    std::copy(from_values + first, from_values + copied, values + first);
    std::copy(from_indices + first, from_indices + copied, indices + first);
    std::fill(values + copied, values + last, 0.0);
    std::fill(indices + copied, indices + last, sunindextype{0});
  });
  std::copy(SM_INDEXPTRS_S(A), SM_INDEXPTRS_S(A) + np + 1, SM_INDEXPTRS_S(B));
  return SUNMAT_SUCCESS;
}

// A = c A + I in place when every row (column) holds its diagonal entry; otherwise SUNDIALS
// builds the matrix with the new entries.
int matrix_scale_add_identity(sunrealtype c, SUNMatrix A) {
  const std::size_t np = pointers(A);
  if (SM_ROWS_S(A) != SM_COLUMNS_S(A)) return SUNMatScaleAddI_Sparse(c, A);
  double* values = SM_DATA_S(A);
  const sunindextype* indices = SM_INDEXVALS_S(A);
  const sunindextype* starts = SM_INDEXPTRS_S(A);
  // First whether a diagonal entry is missing anywhere, then the update: nothing is changed
  // before SUNDIALS is asked to do the general case.
  std::array<bool, parallel_blocks> missing{};
  for_each_block(
      np,
      [&](const BlockRange& block) {
        for (std::size_t j = block.first; j < block.last && !missing[block.block]; ++j) {
          bool found = false;
          for (auto k = starts[j]; k < starts[j + 1] && !found; ++k) found = static_cast<std::size_t>(indices[k]) == j;
          missing[block.block] = !found;
        }
      },
      vector_parallel_minimum);
  if (std::find(missing.begin(), missing.end(), true) != missing.end()) return SUNMatScaleAddI_Sparse(c, A);
  for_each_block(
      np,
      [&](const BlockRange& block) {
        for (std::size_t j = block.first; j < block.last; ++j)
          for (auto k = starts[j]; k < starts[j + 1]; ++k)
            values[k] = static_cast<std::size_t>(indices[k]) == j ? c * values[k] + 1.0 : c * values[k];
      },
      vector_parallel_minimum);
  return SUNMAT_SUCCESS;
}

SUNMatrix matrix_clone(SUNMatrix A) {
  SUNMatrix clone = SUNMatClone_Sparse(A);
  if (clone != nullptr) use_block_operations(clone);
  return clone;
}

}  // namespace

void use_block_operations(SUNMatrix A) {
  A->ops->zero = matrix_zero;
  A->ops->copy = matrix_copy;
  A->ops->scaleaddi = matrix_scale_add_identity;
  A->ops->clone = matrix_clone;
}

namespace {
// w_i = 1 / d_i, d_i = (rtol |y_i|) + atol_i over [first, last) (as CVODE's N_VScale then
// N_VAddConst, or N_VLinearSum with 1 atol_i); true when some d_i is not positive (or NaN). A
// division per element: compiled in vector variants (IEEE division, the same bits in each).
DCTWIN_VECTOR_VARIANTS bool weights_run(const double* y, double rtol, double atol, const double* atol_vector,
                                        double* w, std::size_t first, std::size_t last) {
  unsigned bad = 0;
  if (atol_vector != nullptr) {
    for (std::size_t i = first; i < last; ++i) {
      const double d = rtol * std::abs(y[i]) + atol_vector[i];
      bad |= static_cast<unsigned>(!(d > 0.0));
      w[i] = 1.0 / d;
    }
  } else {
    for (std::size_t i = first; i < last; ++i) {
      const double d = rtol * std::abs(y[i]) + atol;
      bad |= static_cast<unsigned>(!(d > 0.0));
      w[i] = 1.0 / d;
    }
  }
  return bad != 0;
}
}  // namespace

int error_weights(N_Vector y, double rtol, double atol, const double* atol_vector, N_Vector w) {
  run_queued_operations();
  const double* yd = data(y);
  double* wd = data(w);
  std::array<bool, parallel_blocks> bad{};
  for_each_block(
      length(y),
      [&](const BlockRange& block) {
        bad[block.block] = weights_run(yd, rtol, atol, atol_vector, wd, block.first, block.last);
      },
      vector_parallel_minimum);
  return std::find(bad.begin(), bad.end(), true) != bad.end() ? -1 : 0;
}

int linear_combination_in(N_Vector z, const StateRanges& ranges, const std::function<int()>& form) {
  DCTWIN_DEMAND(z->ops->nvlinearcombination == linear_combination, "the vector does not use the block operations");
  DCTWIN_DEMAND(ranges.empty() || ranges.back().first + ranges.back().count <= NV_LENGTH_S(z),
                "a state range beyond the vector's end");
  // z's own operation table (N_VClone gives each clone its own) points to the restricted
  // combination for the duration of the call, on this thread.
  struct Restore {
    N_Vector z;
    ~Restore() {
      z->ops->nvlinearcombination = linear_combination;
      combination_ranges = nullptr;
    }
  } restore{z};
  combination_ranges = &ranges;
  z->ops->nvlinearcombination = linear_combination_in_ranges;
  return form();
}

namespace {
// Where record_linear_combination() puts the terms, for the duration of its call on this thread.
thread_local std::vector<double>* recorded_coefficients = nullptr;
thread_local std::vector<const double*>* recorded_vectors = nullptr;

int record_combination(int nvec, sunrealtype* c, N_Vector* X, N_Vector) {
  run_queued_operations();
  const auto count = static_cast<std::size_t>(nvec);
  recorded_coefficients->assign(c, c + count);
  recorded_vectors->resize(count);
  for (std::size_t k = 0; k < count; ++k) (*recorded_vectors)[k] = data(X[k]);
  return 0;
}
}  // namespace

int record_linear_combination(N_Vector z, std::vector<double>& c, std::vector<const double*>& x,
                              const std::function<int()>& form) {
  DCTWIN_DEMAND(z->ops->nvlinearcombination == linear_combination, "the vector does not use the block operations");
  struct Restore {
    N_Vector z;
    ~Restore() {
      z->ops->nvlinearcombination = linear_combination;
      recorded_coefficients = nullptr;
      recorded_vectors = nullptr;
    }
  } restore{z};
  c.clear();
  x.clear();
  recorded_coefficients = &c;
  recorded_vectors = &x;
  z->ops->nvlinearcombination = record_combination;
  return form();
}

namespace {
// The serial operation in slot Slot of the vectors' operation table, with what is queued on the
// calling thread run first: every operation that reads or writes vector data and is not one of
// the block operations above (norms, minima, comparisons, the array pointer, destruction, ...).
template <auto Slot>
struct QueuedFirst;

template <class R, class... A, R (*_generic_N_Vector_Ops::*Slot)(A...)>
struct QueuedFirst<Slot> {
  using Function = R (*)(A...);
  // The same for every serial vector; set once, by whichever thread installs first (the members
  // of a sweep build their integrators on several threads).
  static inline std::atomic<Function> serial{nullptr};
  static R call(A... args) {
    run_queued_operations();
    return serial.load(std::memory_order_acquire)(args...);
  }
  static void install(N_Vector v) {
    auto& slot = v->ops->*Slot;
    if (slot == nullptr || slot == &call) return;
    Function expected = nullptr;
    if (!serial.compare_exchange_strong(expected, slot, std::memory_order_acq_rel))
      DCTWIN_DEMAND(expected == slot, "the vectors' operations are not all the serial ones");
    slot = &call;
  }
};

template <auto... Slots>
void run_queue_first(N_Vector v) {
  (QueuedFirst<Slots>::install(v), ...);
}
}  // namespace

void use_block_operations(N_Vector v) {
  using Ops = _generic_N_Vector_Ops;
  run_queue_first<&Ops::nvdestroy, &Ops::nvgetarraypointer, &Ops::nvsetarraypointer, &Ops::nvdiv, &Ops::nvdotprod,
                  &Ops::nvmaxnorm, &Ops::nvwrmsnormmask, &Ops::nvmin, &Ops::nvwl2norm, &Ops::nvl1norm,
                  &Ops::nvcompare, &Ops::nvinvtest, &Ops::nvconstrmask, &Ops::nvminquotient, &Ops::nvdotprodmulti,
                  &Ops::nvlinearsumvectorarray, &Ops::nvscalevectorarray, &Ops::nvconstvectorarray,
                  &Ops::nvwrmsnormvectorarray, &Ops::nvwrmsnormmaskvectorarray, &Ops::nvscaleaddmultivectorarray,
                  &Ops::nvlinearcombinationvectorarray, &Ops::nvdotprodlocal, &Ops::nvmaxnormlocal,
                  &Ops::nvminlocal, &Ops::nvl1normlocal, &Ops::nvinvtestlocal, &Ops::nvconstrmasklocal,
                  &Ops::nvminquotientlocal, &Ops::nvwsqrsummasklocal, &Ops::nvdotprodmultilocal, &Ops::nvbufpack,
                  &Ops::nvbufunpack, &Ops::nvprint, &Ops::nvprintfile>(v);
  v->ops->nvlinearsum = linear_sum;
  v->ops->nvscale = scale;
  v->ops->nvwrmsnorm = weighted_rms_norm;
  v->ops->nvwsqrsumlocal = weighted_square_sum;
  v->ops->nvlinearcombination = linear_combination;
  v->ops->nvscaleaddmulti = scale_add_multi;
  v->ops->nvconst = constant;
  v->ops->nvabs = absolute;
  v->ops->nvaddconst = add_constant;
  v->ops->nvinv = inverse;
  v->ops->nvprod = product;
}

FusedElementwisePasses::FusedElementwisePasses() { ++operation_queue.fusing; }

void FusedElementwisePasses::complete() { run_queued_operations(); }

FusedElementwisePasses::~FusedElementwisePasses() {
  // complete() has run the queue unless an exception is on its way out of the scope; then the
  // queue is run here, and if that fails too it is dropped (the integrator's state is lost
  // with the exception anyway) rather than thrown from a destructor.
  try {
    run_queued_operations();
  } catch (...) {
    operation_queue.count = 0;
  }
  --operation_queue.fusing;
}

ImmediateVectorOperations::ImmediateVectorOperations() : saved_(operation_queue.fusing) {
  run_queued_operations();
  operation_queue.fusing = 0;
}

ImmediateVectorOperations::~ImmediateVectorOperations() { operation_queue.fusing = saved_; }

}  // namespace dctwin::solver
