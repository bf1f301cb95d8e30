// CVODE (BDF) with a sparse direct solver (KLU, or small groups eliminated first and KLU on the
// rest: schur_solver.hpp), fed the System's sparse Jacobian in CSR form.
//
// Each smooth segment [t_k, t_{k+1}) of the forcing is integrated separately: CVodeSetStopTime
// keeps CVODE from stepping past the edge, and CVodeReInit restarts the multistep history at the
// edge (order 1, fresh step size), as the SUNDIALS documentation recommends for discontinuous
// forcing. Every SUNDIALS return code is checked and reported with the function's name.
//
// With forced responses (forced_response.hpp) CVODE integrates y = x - r(t) instead of x, and an
// update that only steps forcing which r absorbs continues the segment: continue_across checks
// that the derivative of y does not jump there (the jump of f equals the jump of r'). Accumulator
// states (bookkeeping integrals) absorb any jump of their own derivative in a linear ramp.
#include "dctwin/solver/integrator.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>

#include "dctwin/core/check.hpp"
#include "dctwin/core/printable.hpp"
#include "dctwin/solver/parallel.hpp"
#include "schur_solver.hpp"
#include "vector_operations.hpp"

namespace dctwin::solver {

IntegratorSettings IntegratorSettings::reference() {
  IntegratorSettings s;
  s.relative_tolerance = 1e-10;
  s.absolute_tolerance = 1e-10;
  s.max_order = 5;
  s.max_steps_per_output = 10000000;
  s.max_gamma_change = 0.3;  // CVODE's own default
  s.min_step_growth = 1.5;   // CVODE's own default
  s.forced_responses = false;
  s.accumulator_error_control = true;
  s.structured_linear_solver = false;
  s.skip_ticks_at_rest = false;
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
    : std::runtime_error(core::printable(function + " failed with " + flag_name(code) + " (" + std::to_string(code) +
                                   ")" + (detail.empty() ? std::string() : ": " + detail))),
      function_(function),
      detail_(detail),
      code_(code) {}

SolverError::SolverError(const std::string& function, const std::string& detail)
    : std::runtime_error(core::printable(function + " failed: " + detail)),
      function_(function),
      detail_(detail),
      code_(0) {}

struct CvodeIntegrator::Impl {
  const System* system = nullptr;
  IntegratorSettings settings;
  SUNContext context = nullptr;
  N_Vector y = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver linear_solver = nullptr;
  Index grouped_states = 0;  // eliminated in groups by the Schur solver
  void* cvode = nullptr;
  bool initialised = false;
  EvalContext eval;
  double segment_end = 0.0;
  SolverStatistics finished_segments;  // counters of segments already closed
  std::string last_error;              // CVODE's own message for the last failure
  std::string callback_error;          // exception caught inside a callback
  std::vector<int> roots;

  // Forced responses: x = y + r(t). `shifted` is false when there are none (x = y, no copies).
  bool shifted = false;
  std::vector<std::unique_ptr<ForcedResponse>> responses;
  std::vector<Index> accumulators;       // their r: base + slope (t - anchor)
  std::vector<double> accumulator_base, accumulator_slope;
  double anchor_time = 0.0;
  // Bounds over the last step (upper_bounds_since): the Nordsieck array as CVodeGetDky reads it,
  // and the responses' upper bounds of r, kept until their pieces change (r_upper_ranges: the
  // states they were formed for; zero on states no response covers).
  std::vector<double> nordsieck_coefficients;
  std::vector<const double*> nordsieck;
  std::vector<double> r_upper;
  std::optional<StateRanges> r_upper_ranges;
  std::vector<double> r, r_dot, x_shifted, f_before, f_after, r_dot_before;
  std::optional<StateRanges> event_reads;  // the states the event functions read, when declared
  std::vector<double> absolute_tolerances;  // per state, when accumulators leave the error test
  double r_time = std::numeric_limits<double>::quiet_NaN();      // r holds r(r_time)
  double r_dot_time = std::numeric_limits<double>::quiet_NaN();  // r_dot holds r'(r_dot_time)
  long continued = 0;
  double interpolation_seconds = 0.0;  // wall time forming states at requested times
  // A root CVODE found beyond the t_out asked for (in the step that passed t_out), with its
  // directions in `roots`; returned by the advance() whose t_out reaches it. NaN: none.
  double pending_root = std::numeric_limits<double>::quiet_NaN();

  /// r(t) into r, and r'(t) into r_dot when `with_rate`, each kept for the last t it was formed
  /// at. The state at a requested time, the Jacobian and the event functions need r alone; only
  /// the right-hand side needs r'. Forming r alone leaves r_dot as it was: a continuation at the
  /// end of a step (continue_across) finds there r' at that time from the step's last right-hand
  /// side, after the states at the ticks inside the step and at its end have overwritten r.
  void shift_at(double t, bool with_rate = true) {
    const bool rate = with_rate && t != r_dot_time;
    if (t == r_time && !rate) return;
    for (const auto& response : responses) response->evaluate(t, r.data(), rate ? r_dot.data() : nullptr);
    for (std::size_t k = 0; k < accumulators.size(); ++k) {
      const auto i = static_cast<std::size_t>(accumulators[k]);
      r[i] = accumulator_base[k] + accumulator_slope[k] * (t - anchor_time);
      r_dot[i] = accumulator_slope[k];
    }
    r_time = t;
    if (rate) r_dot_time = t;
  }
  /// r(t) at least on the states of `ranges` (r then holds values of several times: its cache
  /// is dropped unless r already held r(t) everywhere; r_dot is not touched).
  void shift_in(double t, const StateRanges& ranges) {
    if (t == r_time) return;
    for (const auto& response : responses) response->evaluate_in(t, r.data(), ranges);
    for (std::size_t k = 0; k < accumulators.size(); ++k) {
      const auto i = static_cast<std::size_t>(accumulators[k]);
      r[i] = accumulator_base[k] + accumulator_slope[k] * (t - anchor_time);
    }
    r_time = std::numeric_limits<double>::quiet_NaN();
  }
  /// A continuation at t: the segment goes on from t with `discrete` to `end` (a new stop time).
  void go_on(double t, const double* discrete, double end) {
    eval.segment_start = t;
    eval.discrete = discrete;
    segment_end = end;
    check(CVodeSetStopTime(cvode, end), "CVodeSetStopTime");
    ++continued;
  }
  /// The responses' coefficients changed: r and r_dot are out of date.
  void forget_shift() {
    r_time = std::numeric_limits<double>::quiet_NaN();
    r_dot_time = std::numeric_limits<double>::quiet_NaN();
  }
  [[nodiscard]] bool has_accumulators() const {
    for (Index i = 0; i < system->size(); ++i)
      if (system->is_accumulator(i)) return true;
    return false;
  }
  /// The physical state x = y + r(t) (y itself without forced responses); r'(t) as well when
  /// `with_rate`.
  const double* physical(double t, const double* shifted_state, bool with_rate = false) {
    if (!shifted) return shifted_state;
    shift_at(t, with_rate);
    physical_into(t, shifted_state, x_shifted.data());
    return x_shifted.data();
  }
  /// x = y + r(t) written into `x` (a copy of y without forced responses), in blocks. With
  /// kCheck (the state handed out at a requested time, written once where it is wanted) it
  /// returns the first entry that is not finite, or -1; without (the right-hand side's own
  /// copy), -1.
  template <bool kCheck = false>
  long physical_into(double t, const double* shifted_state, double* x) {
    if (shifted) shift_at(t, false);
    const double* shift = shifted ? r.data() : nullptr;
    std::array<long, parallel_blocks> first_bad;
    first_bad.fill(-1);
    for_each_block(
        static_cast<std::size_t>(system->size()),
        [&](const BlockRange& block) { form_run<kCheck>(shifted_state, shift, x, block, first_bad[block.block]); },
        vector_parallel_minimum);
    return first_of(first_bad);
  }

  /// x = y + r(t) on the states of `ranges` only; x's other entries keep their values. Returns
  /// the first formed entry that is not finite (with kCheck), or -1.
  template <bool kCheck = false>
  long physical_in(double t, const double* shifted_state, double* x, const StateRanges& ranges) {
    if (shifted) shift_in(t, ranges);
    const double* shift = shifted ? r.data() : nullptr;
    std::array<long, parallel_blocks> first_bad;
    first_bad.fill(-1);
    for_each_block_in(
        ranges, [&](const BlockRange& run) { form_run<kCheck>(shifted_state, shift, x, run, first_bad[run.block]); },
        vector_parallel_minimum);
    return first_of(first_bad);
  }

  /// x = y (+ shift) over one run; with kCheck, the run's first entry that is not finite into
  /// `bad` unless it holds an earlier one (runs of a block come in order).
  template <bool kCheck>
  static void form_run(const double* y, const double* shift, double* x, const BlockRange& run, long& bad) {
    if (!kCheck || bad >= 0) {
      if (shift == nullptr) std::copy(y + run.first, y + run.last, x + run.first);
      else for (std::size_t i = run.first; i < run.last; ++i) x[i] = y[i] + shift[i];
      return;
    }
    // Counted in the same pass (!(|v| <= max) holds for infinities and NaN alone: a comparison
    // the loop keeps in vector registers); searched for only when there is one.
    constexpr double largest = std::numeric_limits<double>::max();
    std::size_t not_finite = 0;
    if (shift == nullptr) {
      for (std::size_t i = run.first; i < run.last; ++i) {
        const double v = y[i];
        x[i] = v;
        not_finite += !(std::abs(v) <= largest);
      }
    } else {
      for (std::size_t i = run.first; i < run.last; ++i) {
        const double v = y[i] + shift[i];
        x[i] = v;
        not_finite += !(std::abs(v) <= largest);
      }
    }
    if (not_finite == 0) return;
    for (std::size_t i = run.first; i < run.last; ++i) {
      if (!std::isfinite(x[i])) {
        bad = static_cast<long>(i);
        return;
      }
    }
  }
  /// The first of the blocks' first entries (the blocks come in index order), or -1.
  static long first_of(const std::array<long, parallel_blocks>& first_bad) {
    for (const long bad : first_bad)
      if (bad >= 0) return bad;
    return -1;
  }

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
      const ImmediateVectorOperations immediate;  // reads and writes the vectors' data directly
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      double* f = N_VGetArrayPointer(ydot);
      self->system->derivatives(ctx, self->physical(t, N_VGetArrayPointer(y), true), f);
      if (self->shifted) {
        const double* r_dot = self->r_dot.data();
        for_each_block(  // y' = f - r'
            self->r_dot.size(),
            [&](const BlockRange& block) {
              for (std::size_t i = block.first; i < block.last; ++i) f[i] -= r_dot[i];
            },
            vector_parallel_minimum);
      }
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
      const ImmediateVectorOperations immediate;
      const SparsePattern& p = self->system->jacobian_pattern();
      sunindextype* row_ptr = SUNSparseMatrix_IndexPointers(J);
      sunindextype* col_idx = SUNSparseMatrix_IndexValues(J);
      std::copy(p.row_start.begin(), p.row_start.end(), row_ptr);
      std::copy(p.columns.begin(), p.columns.end(), col_idx);
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      self->system->jacobian(ctx, self->physical(t, N_VGetArrayPointer(y)), SUNSparseMatrix_Data(J));
      return 0;
    } catch (const std::exception& e) {
      self->callback_error = std::string("in the Jacobian: ") + e.what();
      return -1;
    }
  }

  static int weights(N_Vector y, N_Vector w, void* user_data) {
    const auto* self = static_cast<const Impl*>(user_data);
    try {
      const ImmediateVectorOperations immediate;
      const double* atol = self->absolute_tolerances.empty() ? nullptr : self->absolute_tolerances.data();
      return error_weights(y, self->settings.relative_tolerance, self->settings.absolute_tolerance, atol, w);
    } catch (...) {
      return -1;  // CVODE reports the weights as failed
    }
  }

  static int roots_fn(sunrealtype t, N_Vector y, sunrealtype* g, void* user_data) {
    auto* self = static_cast<Impl*>(user_data);
    try {
      const ImmediateVectorOperations immediate;
      EvalContext ctx{t, self->eval.segment_start, self->eval.discrete};
      const double* x = nullptr;
      if (self->shifted && self->event_reads) {  // only the states the event functions read
        self->physical_in(t, N_VGetArrayPointer(y), self->x_shifted.data(), *self->event_reads);
        x = self->x_shifted.data();
      } else {
        x = self->physical(t, N_VGetArrayPointer(y));
      }
      self->system->event_functions(ctx, x, g);
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

bool has_every_diagonal(const SparsePattern& p) {
  for (Index r = 0; r < p.rows; ++r)
    if (p.find(r, r) < 0) return false;
  return true;
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
  DCTWIN_DEMAND(settings.min_step_growth > 1.0, "the smallest step growth taken must be > 1");
  DCTWIN_DEMAND(settings.max_order >= 1 && settings.max_order <= 5, "the BDF order limit must be 1..5");
  Impl& m = *impl_;
  m.system = &system;
  m.settings = settings;
  m.check(SUNContext_Create(nullptr, &m.context), "SUNContext_Create");
  const auto n = static_cast<sunindextype>(system.size());
  m.y = N_VNew_Serial(n, m.context);
  if (m.y == nullptr) throw SolverError("N_VNew_Serial", "out of memory");
  use_block_operations(m.y);
  const SparsePattern& p = system.jacobian_pattern();
  m.matrix = SUNSparseMatrix(n, n, static_cast<sunindextype>(p.nonzeros()), CSR_MAT, m.context);
  if (m.matrix == nullptr) throw SolverError("SUNSparseMatrix", "out of memory");
  // CVODE's set-up zeroes, copies and shifts the whole matrix (and its saved Jacobian, a clone):
  // serial loops over every entry otherwise.
  use_block_operations(m.matrix);
  // Small groups of states (a GPU's four) eliminated in parallel and KLU on the rest
  // (schur_solver.hpp), when the pattern has them and keeps its shape under A = cA + I.
  if (settings.structured_linear_solver && has_every_diagonal(p)) {
    StatePartition partition = find_small_groups(p);
    if (schur_solver_pays(partition, system.size())) {
      m.grouped_states = static_cast<Index>(partition.group_states.size());
      m.linear_solver = make_schur_solver(p, std::move(partition), m.context);
    }
  }
  if (m.linear_solver == nullptr) {
    m.linear_solver = SUNLinSol_KLU(m.y, m.matrix, m.context);
    if (m.linear_solver == nullptr) throw SolverError("SUNLinSol_KLU", "could not create the KLU solver");
    m.linear_solver->ops->initialize = initialize_keeping_analysis;
    // AMD on A + A^T rather than KLU's default COLAMD: the thermal and hydraulic networks are
    // structurally almost symmetric, and COLAMD ordered the 24,576-GPU hall's matrix with 1.46 M
    // nonzeros in L (7x more than U) against 0.20 M with AMD; at 3,072 GPUs 44 k against 26 k.
    m.check(SUNLinSol_KLUSetOrdering(m.linear_solver, 0), "SUNLinSol_KLUSetOrdering");
  }
  m.cvode = CVodeCreate(CV_BDF, m.context);
  if (m.cvode == nullptr) throw SolverError("CVodeCreate", "out of memory");
  m.roots.assign(static_cast<std::size_t>(system.event_count()), 0);
  roots_.assign(m.roots.size(), 0);
  if (settings.forced_responses) {
    for (const auto& c : system.components())
      if (auto response = c->make_forced_response()) m.responses.push_back(std::move(response));
    if (!m.responses.empty()) {
      std::vector<bool> covered(static_cast<std::size_t>(n), false);
      for (const auto& response : m.responses)
        for (const Index i : response->covered_states()) covered[static_cast<std::size_t>(i)] = true;
      for (Index i = 0; i < system.size(); ++i)
        if (system.is_accumulator(i) && !covered[static_cast<std::size_t>(i)]) m.accumulators.push_back(i);
      m.shifted = true;
      const auto size = static_cast<std::size_t>(n);
      m.r.assign(size, 0.0);
      m.r_dot.assign(size, 0.0);
      m.x_shifted.assign(size, 0.0);
      m.accumulator_base.assign(m.accumulators.size(), 0.0);
      m.accumulator_slope.assign(m.accumulators.size(), 0.0);
      m.event_reads = system.states_read_by_events();
      if (m.event_reads && !m.event_reads->empty())
        DCTWIN_DEMAND(m.event_reads->back().first + m.event_reads->back().count <= system.size(),
                      "an event function declares states beyond the system's end");
    }
  }
}

CvodeIntegrator::~CvodeIntegrator() = default;

void CvodeIntegrator::restart(double t, const std::vector<double>& x, double segment_end, const double* discrete) {
  Impl& m = *impl_;
  DCTWIN_DEMAND(static_cast<Index>(x.size()) == m.system->size(), "state vector of the wrong size");
  DCTWIN_DEMAND(segment_end > t, "a segment must end after it starts");
  m.pending_root = std::numeric_limits<double>::quiet_NaN();  // found with the old forcing
  m.eval.segment_start = t;
  m.eval.discrete = discrete;
  double* y = N_VGetArrayPointer(m.y);
  std::copy(x.begin(), x.end(), y);
  if (m.shifted) {
    const EvalContext ctx{t, t, discrete};
    for (const auto& response : m.responses) response->reset(ctx, x.data());
    std::fill(m.accumulator_base.begin(), m.accumulator_base.end(), 0.0);
    std::fill(m.accumulator_slope.begin(), m.accumulator_slope.end(), 0.0);
    m.anchor_time = t;
    m.r_upper_ranges.reset();
    m.forget_shift();
    m.shift_at(t);
    for (std::size_t i = 0; i < x.size(); ++i) y[i] -= m.r[i];
  }
  m.segment_end = segment_end;
  m.callback_error.clear();
  m.last_error.clear();
  if (!m.initialised) {
    m.check(CVodeInit(m.cvode, Impl::rhs, t, m.y), "CVodeInit");
    m.check(CVodeSetUserData(m.cvode, &m), "CVodeSetUserData");
    m.check(CVodeSetErrHandlerFn(m.cvode, Impl::error_handler, &m), "CVodeSetErrHandlerFn");
    // The weight of state i is 1 / (rtol |y_i| + atol_i), formed in one pass at every step
    // (error_weights: the bits of CVodeSStolerances/SVtolerances without their five passes). An
    // absolute tolerance of 1e30 takes an accumulator out of the error test (and out of the Newton
    // convergence test, which it does not need: its row is linear in the other states' corrections).
    if (!m.settings.accumulator_error_control && m.has_accumulators()) {
      m.absolute_tolerances.resize(static_cast<std::size_t>(m.system->size()));
      for (Index i = 0; i < m.system->size(); ++i)
        m.absolute_tolerances[static_cast<std::size_t>(i)] = m.system->is_accumulator(i) ? 1e30 : m.settings.absolute_tolerance;
    }
    m.check(CVodeWFtolerances(m.cvode, Impl::weights), "CVodeWFtolerances");
    m.check(CVodeSetLinearSolver(m.cvode, m.linear_solver, m.matrix), "CVodeSetLinearSolver");
    m.check(CVodeSetJacFn(m.cvode, Impl::jacobian), "CVodeSetJacFn");
    m.check(CVodeSetMaxOrd(m.cvode, m.settings.max_order), "CVodeSetMaxOrd");
    m.check(CVodeSetMaxNumSteps(m.cvode, m.settings.max_steps_per_output), "CVodeSetMaxNumSteps");
    if (m.settings.max_step > 0.0) m.check(CVodeSetMaxStep(m.cvode, m.settings.max_step), "CVodeSetMaxStep");
    m.check(CVodeSetDeltaGammaMaxLSetup(m.cvode, m.settings.max_gamma_change), "CVodeSetDeltaGammaMaxLSetup");
    // Decreases are always taken (0); increases from min_step_growth on.
    m.check(CVodeSetEtaFixedStepBounds(m.cvode, 0.0, m.settings.min_step_growth), "CVodeSetEtaFixedStepBounds");
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
  not_finite_ = -1;
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

bool CvodeIntegrator::has_forced_responses() const noexcept { return impl_->shifted; }

Index CvodeIntegrator::grouped_states() const noexcept { return impl_->grouped_states; }

bool CvodeIntegrator::stopped_at(double t, double segment_end) const {
  const Impl& m = *impl_;
  if (!m.shifted || !m.initialised || t != t_ || segment_end <= t) return false;
  // CVODE must have stopped at t (a stop time): steps beyond t used the old forcing.
  sunrealtype tn = t;
  m.check(CVodeGetCurrentTime(m.cvode, &tn), "CVodeGetCurrentTime");
  return !(std::abs(static_cast<double>(tn) - t) >
           64.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t)));
}

bool CvodeIntegrator::continue_unchanged(double t, const double* discrete_after, double segment_end) {
  Impl& m = *impl_;
  if (!stopped_at(t, segment_end)) return false;
  m.go_on(t, discrete_after, segment_end);
  return true;
}

bool CvodeIntegrator::continue_across(double t, const std::vector<double>& x, const double* discrete_before,
                                      const double* discrete_after, double segment_end) {
  Impl& m = *impl_;
  if (!stopped_at(t, segment_end)) return false;
  const std::size_t n = x.size();
  m.f_before.resize(n);
  m.f_after.resize(n);
  m.system->derivatives(EvalContext{t, m.eval.segment_start, discrete_before}, x.data(), m.f_before.data());
  m.system->derivatives(EvalContext{t, t, discrete_after}, x.data(), m.f_after.data());
  // r and r' of the old pieces at t: both usually at hand (the state at t formed r, and CVODE's
  // step ended at t with a right-hand side there, which formed r').
  m.shift_at(t);
  m.r_dot_before = m.r_dot;
  // New pieces from t: the responses keep r continuous (starting from r(t) just formed) and take
  // the new forcing; each accumulator's ramp takes its own state's jump.
  const EvalContext after{t, t, discrete_after};
  for (const auto& response : m.responses) response->reanchor_from(after, x.data(), m.r.data());
  for (std::size_t k = 0; k < m.accumulators.size(); ++k) {
    const auto i = static_cast<std::size_t>(m.accumulators[k]);
    m.accumulator_base[k] += m.accumulator_slope[k] * (t - m.anchor_time);
    m.accumulator_slope[k] += m.f_after[i] - m.f_before[i];
  }
  m.anchor_time = t;
  m.r_upper_ranges.reset();
  m.forget_shift();
  m.shift_at(t);
  // y' is continuous at t when every jump of f is matched by the jump of r' (to rounding).
  std::array<bool, parallel_blocks> block_matched{};
  for_each_block(
      n,
      [&](const BlockRange& block) {
        bool matched = true;
        for (std::size_t i = block.first; i < block.last && matched; ++i) {
          const double jump = (m.f_after[i] - m.f_before[i]) - (m.r_dot[i] - m.r_dot_before[i]);
          const double scale =
              std::abs(m.f_after[i]) + std::abs(m.f_before[i]) + std::abs(m.r_dot[i]) + std::abs(m.r_dot_before[i]);
          matched = !(std::abs(jump) > 1e-9 * scale);
        }
        block_matched[block.block] = matched;
      },
      vector_parallel_minimum);
  for (const bool matched : block_matched)
    if (!matched) return false;  // the caller restarts (which resets r)
  // CVODE's root finding keeps the event functions' values at its last step: they must not jump.
  if (m.system->event_count() > 0) {
    std::vector<double> g_before(static_cast<std::size_t>(m.system->event_count()));
    std::vector<double> g_after(g_before.size());
    m.system->event_functions(EvalContext{t, m.eval.segment_start, discrete_before}, x.data(), g_before.data());
    m.system->event_functions(after, x.data(), g_after.data());
    if (g_before != g_after) return false;
  }
  m.go_on(t, discrete_after, segment_end);
  return true;
}

namespace {
/// upper[i] = z_0 + sum_{j>=1} |c_j z_j| (+ shift[i]) for i in [first, last), with K - 1 = q terms
/// z_q, ..., z_1 then z_0 (CVodeGetDky's order, c_j = s^j at the step's start). A margin of 1e-12
/// of the terms' size covers the rounding of the interpolation at any time in the step and of
/// y + r.
template <std::size_t K>
void nordsieck_bound_run(const double* const* z, const double* c, const double* shift, double* upper,
                         std::size_t first, std::size_t last) {
  static_assert(K >= 2 && K <= 6);
  constexpr double margin = 1e-12;
  std::array<const double*, K> zk;
  std::array<double, K> ck;
  for (std::size_t j = 0; j < K; ++j) zk[j] = z[j], ck[j] = std::abs(c[j]);
  for (std::size_t i = first; i < last; ++i) {
    const double z0 = zk[K - 1][i];
    double swing = 0.0;
    for (std::size_t j = 0; j + 1 < K; ++j) swing += ck[j] * std::abs(zk[j][i]);
    upper[i] = z0 + swing + margin * (std::abs(z0) + swing);
  }
  if (shift == nullptr) return;
  for (std::size_t i = first; i < last; ++i) upper[i] += shift[i] + margin * std::abs(shift[i]);
}
}  // namespace

double CvodeIntegrator::step_until(double t_out, bool defer_roots) {
  Impl& m = *impl_;
  // CVODE steps on its own (CV_ONE_STEP) until its last step reaches t_out, and the state at t_out
  // is its interpolant (CVodeGetDky). The event functions are checked over each step as CVODE
  // takes it; in CV_NORMAL mode CVODE also evaluates them at every t_out, and with a governor tick
  // every 0.1 s inside 0.3-s steps those evaluations (each needs the forced responses at t_out)
  // were the largest single cost of a 24,576-GPU run.
  sunrealtype tn = step_time();
  long steps = 0;
  while (tn < t_out) {
    if (steps == m.settings.max_steps_per_output) {
      t_ = tn;
      not_finite_ = m.physical_into<true>(t_, N_VGetArrayPointer(m.y), x_.data());
      complete_ = true;
      char detail[160];
      std::snprintf(detail, sizeof detail, "at t = %.9g s, %ld steps without reaching t = %.9g s (max_steps_per_output)",
                    static_cast<double>(tn), steps, t_out);
      throw SolverError("CVode", CV_TOO_MUCH_WORK, detail);
    }
    sunrealtype t_reached = tn;
    int flag = 0;
    {
      // CVODE's elementwise vector operations run in fused passes within the step (the callbacks
      // above run theirs at once); everything is formed when CVode returns.
      FusedElementwisePasses fused;
      flag = CVode(m.cvode, t_out, m.y, &t_reached, CV_ONE_STEP);
      fused.complete();
    }
    if (flag < 0) fail(flag, t_reached);
    ++steps;
    if (flag == CV_ROOT_RETURN) {
      m.check(CVodeGetRootInfo(m.cvode, m.roots.data()), "CVodeGetRootInfo");
      if (t_reached <= t_out && !defer_roots) return t_reached;
      m.pending_root = t_reached;  // for the advance() that reaches it
      break;
    }
    // CV_TSTOP_RETURN: exactly at the segment end; CV_SUCCESS: at CVODE's new step time (or, right
    // after a root, at the end of the step the root was in).
    tn = t_reached;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

bool CvodeIntegrator::upper_bounds_since(double from, const StateRanges& ranges, double* upper) {
  Impl& m = *impl_;
  if (!m.initialised) return false;
  long steps = 0;
  sunrealtype h_last = 0.0, tn = 0.0;
  m.check(CVodeGetNumSteps(m.cvode, &steps), "CVodeGetNumSteps");
  m.check(CVodeGetLastStep(m.cvode, &h_last), "CVodeGetLastStep");
  m.check(CVodeGetCurrentTime(m.cvode, &tn), "CVodeGetCurrentTime");
  // The interpolant reaches back to the last step's start; the responses' present pieces, to
  // their anchor.
  if (steps == 0 || !(h_last > 0.0) || from < tn - h_last || (m.shifted && from < m.anchor_time)) return false;
  // The terms CVodeGetDky would combine at the step's start: z_q, ..., z_0 with s^q, ..., 1,
  // s = -h_last / h; |s| is the largest over the step, so |c_j| bounds |s|^j everywhere in it.
  m.check(record_linear_combination(m.y, m.nordsieck_coefficients, m.nordsieck,
                                    [&] { return CVodeGetDky(m.cvode, tn - h_last, 0, m.y); }),
          "CVodeGetDky");
  if (m.shifted && m.r_upper_ranges != ranges) {
    m.r_upper.assign(static_cast<std::size_t>(m.system->size()), 0.0);
    for (const auto& response : m.responses)
      if (!response->upper_bound_in(m.r_upper.data(), ranges)) return false;
    m.r_upper_ranges = ranges;
  }
  // An accumulator's ramp is largest at one end of [its anchor, the segment's end] (which
  // extend() may move: formed each time).
  for (std::size_t k = 0; m.shifted && k < m.accumulators.size(); ++k) {
    const auto i = static_cast<std::size_t>(m.accumulators[k]);
    m.r_upper[i] = m.accumulator_base[k] + std::max(0.0, m.accumulator_slope[k] * (m.segment_end - m.anchor_time));
  }
  const std::size_t terms = m.nordsieck.size();
  DCTWIN_DEMAND(terms >= 2 && terms <= 6, "CVODE's interpolant has an order outside 1-5");
  const double* const* z = m.nordsieck.data();
  const double* c = m.nordsieck_coefficients.data();
  const double* shift = m.shifted ? m.r_upper.data() : nullptr;
  for_each_block_in(
      ranges,
      [&](const BlockRange& run) {
        switch (terms) {  // CVODE's orders 1-5: the count compiled in, so that the loop vectorises
          case 2: nordsieck_bound_run<2>(z, c, shift, upper, run.first, run.last); break;
          case 3: nordsieck_bound_run<3>(z, c, shift, upper, run.first, run.last); break;
          case 4: nordsieck_bound_run<4>(z, c, shift, upper, run.first, run.last); break;
          case 5: nordsieck_bound_run<5>(z, c, shift, upper, run.first, run.last); break;
          default: nordsieck_bound_run<6>(z, c, shift, upper, run.first, run.last); break;
        }
      },
      vector_parallel_minimum);
  return true;
}

double CvodeIntegrator::last_step_start() const {
  const Impl& m = *impl_;
  if (!m.initialised) return t_;
  long steps = 0;
  sunrealtype h_last = 0.0;
  m.check(CVodeGetNumSteps(m.cvode, &steps), "CVodeGetNumSteps");
  m.check(CVodeGetLastStep(m.cvode, &h_last), "CVodeGetLastStep");
  const double end = step_time();
  return steps > 0 ? end - static_cast<double>(h_last) : end;
}

bool CvodeIntegrator::step_past(double t_out) {
  Impl& m = *impl_;
  DCTWIN_DEMAND(m.initialised, "call restart() before step_past()");
  DCTWIN_DEMAND(t_out <= m.segment_end, "cannot integrate past the end of the segment");
  if (std::isnan(m.pending_root)) step_until(t_out, true);
  return std::isnan(m.pending_root);
}

AdvanceResult CvodeIntegrator::advance(double t_out, const StateRanges* only) {
  Impl& m = *impl_;
  if (only != nullptr && !only->empty())
    DCTWIN_DEMAND(only->back().first + only->back().count <= m.system->size(), "a state range beyond the system's end");
  DCTWIN_DEMAND(m.initialised, "call restart() before advance()");
  DCTWIN_DEMAND(t_out <= m.segment_end, "cannot integrate past the end of the segment");
  std::fill(roots_.begin(), roots_.end(), 0);
  if (t_out <= t_) return AdvanceResult::reached;
  auto at_root = [&](double t_root) {
    t_ = t_root;
    not_finite_ = m.physical_into<true>(t_, N_VGetArrayPointer(m.y), x_.data());
    complete_ = true;
    roots_ = m.roots;
    return AdvanceResult::root_found;
  };
  if (!std::isnan(m.pending_root) && m.pending_root <= t_out) {
    const double t_root = m.pending_root;
    m.pending_root = std::numeric_limits<double>::quiet_NaN();
    m.check(CVodeGetDky(m.cvode, t_root, 0, m.y), "CVodeGetDky");
    return at_root(t_root);
  }
  const double t_root = step_until(t_out, false);
  if (!std::isnan(t_root)) return at_root(t_root);
  // The interpolant also at t_out == tn: m.y may hold an earlier interpolated state.
  t_ = t_out;
  const auto interpolation_start = std::chrono::steady_clock::now();
  if (only != nullptr) {  // only the states asked for; complete_state() forms the rest
    m.check(linear_combination_in(m.y, *only, [&] { return CVodeGetDky(m.cvode, t_out, 0, m.y); }), "CVodeGetDky");
    not_finite_ = m.physical_in<true>(t_, N_VGetArrayPointer(m.y), x_.data(), *only);
    complete_ = false;
  } else {
    m.check(CVodeGetDky(m.cvode, t_out, 0, m.y), "CVodeGetDky");
    not_finite_ = m.physical_into<true>(t_, N_VGetArrayPointer(m.y), x_.data());
    complete_ = true;
  }
  m.interpolation_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - interpolation_start).count();
  return AdvanceResult::reached;
}

void CvodeIntegrator::complete_state() {
  Impl& m = *impl_;
  if (complete_) return;
  const auto interpolation_start = std::chrono::steady_clock::now();
  // CVODE has not stepped since the partial advance(): time() is still inside its last step.
  m.check(CVodeGetDky(m.cvode, t_, 0, m.y), "CVodeGetDky");
  not_finite_ = m.physical_into<true>(t_, N_VGetArrayPointer(m.y), x_.data());
  complete_ = true;
  m.interpolation_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - interpolation_start).count();
}

void CvodeIntegrator::fail(int flag, double t_reached) {
  Impl& m = *impl_;
  // The time and state CVODE reached, and the state whose local error estimate (weighted as the
  // error test weighs it) was largest: where the run went wrong.
  t_ = t_reached;
  not_finite_ = m.physical_into<true>(t_, N_VGetArrayPointer(m.y), x_.data());
  complete_ = true;
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
  throw SolverError("CVode", flag, m.last_error);  // not reached: flag < 0 throws above
}

SolverStatistics CvodeIntegrator::statistics() const {
  SolverStatistics total = impl_->finished_segments;
  add_counts(total, impl_->current());
  total.continued_segments = impl_->continued;
  total.wall_time.interpolation = impl_->interpolation_seconds;
  return total;
}

}  // namespace dctwin::solver
