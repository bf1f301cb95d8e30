// CVODE (BDF) + KLU sparse direct solver, with the System's sparse Jacobian in CSR form.
//
// Each smooth segment [t_k, t_{k+1}) of the forcing is integrated separately: CVodeSetStopTime
// keeps CVODE from stepping past the edge, and CVodeReInit restarts the multistep history at the
// edge (order 1, fresh step size), as the SUNDIALS documentation recommends for discontinuous
// forcing. Every SUNDIALS return code is checked and reported with the function's name.
#include "dctwin/solver/integrator.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "dctwin/solver/check.hpp"

namespace dctwin::solver {

IntegratorSettings IntegratorSettings::reference() {
  IntegratorSettings s;
  s.relative_tolerance = 1e-10;
  s.absolute_tolerance = 1e-10;
  s.max_order = 5;
  s.max_steps_per_output = 10000000;
  s.max_gamma_change = 0.3;  // CVODE's own default
  return s;
}

namespace {
std::string flag_name(int flag) {
  char* name = CVodeGetReturnFlagName(flag);
  std::string text = name != nullptr ? name : "unknown";
  std::free(name);
  return text;
}
}  // namespace

SolverError::SolverError(const std::string& function, int code, const std::string& detail)
    : std::runtime_error(function + " failed with " + flag_name(code) + " (" + std::to_string(code) +
                         ")" + (detail.empty() ? std::string() : ": " + detail)),
      function_(function),
      code_(code) {}

SolverError::SolverError(const std::string& function, const std::string& detail)
    : std::runtime_error(function + " failed: " + detail), function_(function), code_(0) {}

struct CvodeIntegrator::Impl {
  const System* system = nullptr;
  IntegratorSettings settings;
  SUNContext context = nullptr;
  N_Vector y = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  void* cvode = nullptr;
  bool initialised = false;
  EvalContext eval;
  double segment_end = 0.0;
  SolverStatistics finished_segments;  // counters of segments already closed
  std::string last_error;              // CVODE's own message for the last failure
  std::string callback_error;          // exception caught inside a callback
  std::vector<int> roots;

  ~Impl() {
    if (cvode != nullptr) CVodeFree(&cvode);
    if (linear_solver != nullptr) SUNLinSolFree(linear_solver);
    if (matrix != nullptr) SUNMatDestroy(matrix);
    if (y != nullptr) N_VDestroy(y);
    if (context != nullptr) SUNContext_Free(&context);
  }

  void check(int flag, const char* function) const {
    if (flag < 0) {
      std::string detail = callback_error.empty() ? last_error : callback_error;
      throw SolverError(function, flag, detail);
    }
  }

  static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    try {
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      self->system->derivatives(ctx, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
      return 0;
    } catch (const std::exception& e) {
      self->callback_error = std::string("in the right-hand side: ") + e.what();
      return -1;
    }
  }

  static int jacobian(sunrealtype t, N_Vector y, N_Vector, SUNMatrix J, void* user_data, N_Vector,
                      N_Vector, N_Vector) {
    auto* self = static_cast<Impl*>(user_data);
    try {
      const SparsePattern& p = self->system->jacobian_pattern();
      sunindextype* row_ptr = SUNSparseMatrix_IndexPointers(J);
      sunindextype* col_idx = SUNSparseMatrix_IndexValues(J);
      std::copy(p.row_start.begin(), p.row_start.end(), row_ptr);
      std::copy(p.columns.begin(), p.columns.end(), col_idx);
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      self->system->jacobian(ctx, N_VGetArrayPointer(y), SUNSparseMatrix_Data(J));
      return 0;
    } catch (const std::exception& e) {
      self->callback_error = std::string("in the Jacobian: ") + e.what();
      return -1;
    }
  }

  static int roots_fn(sunrealtype t, N_Vector y, sunrealtype* g, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    try {
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      self->system->event_functions(ctx, N_VGetArrayPointer(y), g);
      return 0;
    } catch (const std::exception& e) {
      self->callback_error = std::string("in an event function: ") + e.what();
      return -1;
    }
  }

  static void error_handler(int, const char* module, const char* function, char* message,
                            void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    self->last_error = std::string(module) + "/" + function + ": " + message;
  }

  SolverStatistics current() const {
    SolverStatistics s;
    if (!initialised) return s;
    long value = 0;
    CVodeGetNumSteps(cvode, &value), s.steps = value;
    CVodeGetNumRhsEvals(cvode, &value), s.rhs_evaluations = value;
    CVodeGetNumJacEvals(cvode, &value), s.jacobian_evaluations = value;
    CVodeGetNumLinSolvSetups(cvode, &value), s.linear_solver_setups = value;
    CVodeGetNumNonlinSolvIters(cvode, &value), s.nonlinear_iterations = value;
    CVodeGetNumNonlinSolvConvFails(cvode, &value), s.nonlinear_convergence_failures = value;
    CVodeGetNumErrTestFails(cvode, &value), s.error_test_failures = value;
    if (system->event_count() > 0) CVodeGetNumGEvals(cvode, &value), s.root_evaluations = value;
    sunrealtype h = 0.0;
    CVodeGetLastStep(cvode, &h);
    s.last_step_size = h;
    return s;
  }
};

namespace {

/// Replaces SUNLinSolInitialize_KLU, which CVODE calls after every CVodeReInit and which throws
/// away KLU's symbolic analysis (a COLAMD ordering and a full factorization each time). The
/// Jacobian's sparsity pattern never changes here, so the analysis of the first setup stays valid
/// for the whole run; later setups refactor numerically (SUNLinSolSetup_KLU still falls back to a
/// full factorization when its condition estimate degrades).
int initialize_keeping_analysis(SUNLinearSolver solver) {
  static_cast<SUNLinearSolverContent_KLU>(solver->content)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}

void add_counts(SolverStatistics& total, const SolverStatistics& more) {
  total.steps += more.steps;
  total.rhs_evaluations += more.rhs_evaluations;
  total.jacobian_evaluations += more.jacobian_evaluations;
  total.linear_solver_setups += more.linear_solver_setups;
  total.nonlinear_iterations += more.nonlinear_iterations;
  total.nonlinear_convergence_failures += more.nonlinear_convergence_failures;
  total.error_test_failures += more.error_test_failures;
  total.root_evaluations += more.root_evaluations;
  if (more.last_step_size > 0.0) total.last_step_size = more.last_step_size;
}
}  // namespace

CvodeIntegrator::CvodeIntegrator(const System& system, IntegratorSettings settings)
    : impl_(std::make_unique<Impl>()) {
  DCTWIN_DEMAND(system.assembled(), "assemble the system before creating an integrator");
  DCTWIN_DEMAND(system.size() > 0, "the system has no states");
  Impl& m = *impl_;
  m.system = &system;
  m.settings = settings;
  m.check(SUNContext_Create(nullptr, &m.context), "SUNContext_Create");
  const auto n = static_cast<sunindextype>(system.size());
  m.y = N_VNew_Serial(n, m.context);
  if (m.y == nullptr) throw SolverError("N_VNew_Serial", "out of memory");
  const SparsePattern& p = system.jacobian_pattern();
  m.matrix = SUNSparseMatrix(n, n, static_cast<sunindextype>(p.nonzeros()), CSR_MAT, m.context);
  if (m.matrix == nullptr) throw SolverError("SUNSparseMatrix", "out of memory");
  m.linear_solver = SUNLinSol_KLU(m.y, m.matrix, m.context);
  if (m.linear_solver == nullptr) throw SolverError("SUNLinSol_KLU", "could not create the KLU solver");
  m.linear_solver->ops->initialize = initialize_keeping_analysis;
  // AMD on A + A^T rather than KLU's default COLAMD: the thermal and hydraulic networks are
  // structurally almost symmetric, and COLAMD ordered the 24,576-GPU hall's matrix with 1.46 M
  // nonzeros in L (7x more than U) against 0.20 M with AMD; at 3,072 GPUs 44 k against 26 k.
  m.check(SUNLinSol_KLUSetOrdering(m.linear_solver, 0), "SUNLinSol_KLUSetOrdering");
  m.cvode = CVodeCreate(CV_BDF, m.context);
  if (m.cvode == nullptr) throw SolverError("CVodeCreate", "out of memory");
  m.roots.assign(static_cast<std::size_t>(system.event_count()), 0);
  roots_.assign(m.roots.size(), 0);
}

CvodeIntegrator::~CvodeIntegrator() = default;

void CvodeIntegrator::restart(double t, const std::vector<double>& x, double segment_end, const double* discrete) {
  Impl& m = *impl_;
  DCTWIN_DEMAND(static_cast<Index>(x.size()) == m.system->size(), "state vector of the wrong size");
  DCTWIN_DEMAND(segment_end > t, "a segment must end after it starts");
  std::copy(x.begin(), x.end(), N_VGetArrayPointer(m.y));
  m.eval.segment_start = t;
  m.eval.discrete = discrete;
  m.segment_end = segment_end;
  m.callback_error.clear();
  m.last_error.clear();
  if (!m.initialised) {
    m.check(CVodeInit(m.cvode, Impl::rhs, t, m.y), "CVodeInit");
    m.check(CVodeSetUserData(m.cvode, &m), "CVodeSetUserData");
    m.check(CVodeSetErrHandlerFn(m.cvode, Impl::error_handler, &m), "CVodeSetErrHandlerFn");
    m.check(CVodeSStolerances(m.cvode, m.settings.relative_tolerance, m.settings.absolute_tolerance),
            "CVodeSStolerances");
    m.check(CVodeSetLinearSolver(m.cvode, m.linear_solver, m.matrix), "CVodeSetLinearSolver");
    m.check(CVodeSetJacFn(m.cvode, Impl::jacobian), "CVodeSetJacFn");
    m.check(CVodeSetMaxOrd(m.cvode, m.settings.max_order), "CVodeSetMaxOrd");
    m.check(CVodeSetMaxNumSteps(m.cvode, m.settings.max_steps_per_output), "CVodeSetMaxNumSteps");
    if (m.settings.max_step > 0.0) m.check(CVodeSetMaxStep(m.cvode, m.settings.max_step), "CVodeSetMaxStep");
    m.check(CVodeSetDeltaGammaMaxLSetup(m.cvode, m.settings.max_gamma_change), "CVodeSetDeltaGammaMaxLSetup");
    if (m.system->event_count() > 0)
      m.check(CVodeRootInit(m.cvode, m.system->event_count(), Impl::roots_fn), "CVodeRootInit");
    m.initialised = true;
  } else {
    add_counts(m.finished_segments, m.current());
    m.check(CVodeReInit(m.cvode, t, m.y), "CVodeReInit");
  }
  if (m.settings.initial_step > 0.0) m.check(CVodeSetInitStep(m.cvode, m.settings.initial_step), "CVodeSetInitStep");
  m.check(CVodeSetStopTime(m.cvode, segment_end), "CVodeSetStopTime");
  m.finished_segments.segments += 1;
  t_ = t;
  x_ = x;
}

double CvodeIntegrator::step_time() const {
  const Impl& m = *impl_;
  if (!m.initialised) return t_;
  sunrealtype tn = t_;
  m.check(CVodeGetCurrentTime(m.cvode, &tn), "CVodeGetCurrentTime");
  return std::max(static_cast<double>(tn), t_);
}

void CvodeIntegrator::extend(double segment_end) {
  Impl& m = *impl_;
  DCTWIN_DEMAND(m.initialised, "call restart() before extend()");
  DCTWIN_DEMAND(segment_end > t_, "a segment must end after the current time");
  DCTWIN_DEMAND(segment_end >= step_time(), "a segment cannot end before CVODE's last step");
  m.segment_end = segment_end;
  // CVODE disables the stop time once it has returned there; setting a new one re-arms it.
  m.check(CVodeSetStopTime(m.cvode, segment_end), "CVodeSetStopTime");
}

AdvanceResult CvodeIntegrator::advance(double t_out) {
  Impl& m = *impl_;
  DCTWIN_DEMAND(m.initialised, "call restart() before advance()");
  DCTWIN_DEMAND(t_out <= m.segment_end, "cannot integrate past the end of the segment");
  std::fill(roots_.begin(), roots_.end(), 0);
  if (t_out <= t_) return AdvanceResult::reached;
  sunrealtype t_reached = t_;
  const int flag = CVode(m.cvode, t_out, m.y, &t_reached, CV_NORMAL);
  if (flag < 0) {
    // The time and state CVODE reached, and the state whose local error estimate (weighted as the
    // error test weighs it) was largest: where the run went wrong.
    t_ = t_reached;
    const double* y = N_VGetArrayPointer(m.y);
    std::copy(y, y + x_.size(), x_.begin());
    // Only error-test and corrector failures point at a state; too much work or accuracy do not.
    const bool state_specific = flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE;
    long worst = -1;
    N_Vector errors = state_specific ? N_VClone(m.y) : nullptr;
    N_Vector weights = state_specific ? N_VClone(m.y) : nullptr;
    if (errors != nullptr && weights != nullptr && CVodeGetEstLocalErrors(m.cvode, errors) >= 0 &&
        CVodeGetErrWeights(m.cvode, weights) >= 0) {
      const double* e = N_VGetArrayPointer(errors);
      const double* w = N_VGetArrayPointer(weights);
      double largest = -1.0;
      for (std::size_t i = 0; i < x_.size(); ++i) {
        const double weighted = std::abs(e[i] * w[i]);
        if (std::isfinite(weighted) && weighted > largest) {
          largest = weighted;
          worst = static_cast<long>(i);
        }
      }
    }
    if (errors != nullptr) N_VDestroy(errors);
    if (weights != nullptr) N_VDestroy(weights);
    try {
      m.check(flag, "CVode");
    } catch (SolverError& e) {
      e.set_state(worst);
      throw;
    }
  }
  m.check(flag, "CVode");
  t_ = t_reached;
  const double* y = N_VGetArrayPointer(m.y);
  std::copy(y, y + x_.size(), x_.begin());
  if (flag == CV_ROOT_RETURN) {
    m.check(CVodeGetRootInfo(m.cvode, m.roots.data()), "CVodeGetRootInfo");
    roots_ = m.roots;
    return AdvanceResult::root_found;
  }
  // CV_TSTOP_RETURN stops exactly at the segment end; CV_SUCCESS at t_out.
  return AdvanceResult::reached;
}

SolverStatistics CvodeIntegrator::statistics() const {
  SolverStatistics total = impl_->finished_segments;
  add_counts(total, impl_->current());
  return total;
}

}  // namespace dctwin::solver
