#include "vector_operations.hpp"

#include <nvector/nvector_serial.h>

#include <cmath>

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

// z = a x + b y
void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  const double *xd = data(x), *yd = data(y);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = a * xd[i] + b * yd[i];
  });
}

// z = c x
void scale(sunrealtype c, N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = c * xd[i];
  });
}

// z = c
void constant(sunrealtype c, N_Vector z) {
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = c;
  });
}

// z = |x|
void absolute(N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = std::abs(xd[i]);
  });
}

// z = x + b
void add_constant(N_Vector x, sunrealtype b, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = xd[i] + b;
  });
}

// z = 1 / x
void inverse(N_Vector x, N_Vector z) {
  const double* xd = data(x);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = 1.0 / xd[i];
  });
}

// z = x y, element by element
void product(N_Vector x, N_Vector y, N_Vector z) {
  const double *xd = data(x), *yd = data(y);
  double* zd = data(z);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) zd[i] = xd[i] * yd[i];
  });
}

// sum_i (x_i w_i)^2, per block and then in block order
double weighted_square_sum(N_Vector x, N_Vector w) {
  const double *xd = data(x), *wd = data(w);
  BlockSums sums{};
  for_each_block(
      length(x),
      [&](const BlockRange& block) {
        double s = 0.0;
        for (std::size_t i = block.first; i < block.last; ++i) {
          const double p = xd[i] * wd[i];
          s += p * p;
        }
        sums[block.block] = s;
      },
      vector_parallel_minimum);
  return ordered_sum(sums);
}

sunrealtype weighted_rms_norm(N_Vector x, N_Vector w) {
  return std::sqrt(weighted_square_sum(x, w) / static_cast<double>(length(x)));
}

// z = sum_k c_k X_k (z may be X_0)
int linear_combination(int nvec, sunrealtype* c, N_Vector* X, N_Vector z) {
  double* zd = data(z);
  const auto count = static_cast<std::size_t>(nvec);
  for_each_element_block(length(z), [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      double s = c[0] * data(X[0])[i];
      for (std::size_t k = 1; k < count; ++k) s += c[k] * data(X[k])[i];
      zd[i] = s;
    }
  });
  return 0;
}

// Z_k = a_k x + Y_k (Z_k may be Y_k)
int scale_add_multi(int nvec, sunrealtype* a, N_Vector x, N_Vector* Y, N_Vector* Z) {
  const double* xd = data(x);
  const auto count = static_cast<std::size_t>(nvec);
  for_each_element_block(length(x), [&](std::size_t first, std::size_t last) {
    for (std::size_t k = 0; k < count; ++k) {
      const double* yd = data(Y[k]);
      double* zd = data(Z[k]);
      for (std::size_t i = first; i < last; ++i) zd[i] = a[k] * xd[i] + yd[i];
    }
  });
  return 0;
}

}  // namespace

void use_block_operations(N_Vector v) {
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

}  // namespace dctwin::solver
