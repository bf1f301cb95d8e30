// A linear test component dx/dt = A x + b(t), with b piecewise constant between known edges.
#pragma once

#include <Eigen/Dense>

#include <functional>
#include <limits>
#include <vector>

#include "dctwin/solver/component.hpp"

namespace dctwin::test {

class LinearComponent final : public solver::Component {
 public:
  /// `forcing(t_segment_start)` gives b on the segment; `edges` lists its jump times.
  LinearComponent(Eigen::MatrixXd a, std::function<Eigen::VectorXd(double)> forcing,
                  Eigen::VectorXd x0, std::vector<double> edges = {}, bool analytic = true)
      : Component("linear"),
        a_(std::move(a)),
        forcing_(std::move(forcing)),
        x0_(std::move(x0)),
        edges_(std::move(edges)),
        analytic_(analytic) {
    group_ = declare_state_group({"x", "K", "test state", static_cast<solver::Index>(x0_.size())});
    output_ = declare_output({"test", "x", "K", "test state", "node", x0_.size()});
  }

  void initial_state(double* x) const override {
    for (Eigen::Index i = 0; i < x0_.size(); ++i) x[index(group_, i)] = x0_[i];
  }
  void derivatives(const solver::EvalContext& ctx, const double* x, double* xdot) const override {
    // Record the largest time evaluated within a segment, to prove no step crosses an edge.
    const double edge = next_discontinuity(ctx.segment_start);
    if (ctx.t > edge) crossed_edge = true;
    max_time_seen = std::max(max_time_seen, ctx.t);
    const Eigen::VectorXd b = forcing_(ctx.segment_start);
    const solver::Index off = index(group_);
    for (Eigen::Index i = 0; i < a_.rows(); ++i) {
      double sum = b[i];
      for (Eigen::Index j = 0; j < a_.cols(); ++j) sum += a_(i, j) * x[off + j];
      xdot[off + i] += sum;
    }
  }
  void jacobian_pattern(solver::PatternSink& p) const override {
    for (Eigen::Index i = 0; i < a_.rows(); ++i)
      for (Eigen::Index j = 0; j < a_.cols(); ++j)
        if (a_(i, j) != 0.0) p.add(index(group_, i), index(group_, j));
  }
  void jacobian(const solver::EvalContext& ctx, const double* x, solver::JacobianSink& jac) const override {
    if (!analytic_) return Component::jacobian(ctx, x, jac);
    for (Eigen::Index i = 0; i < a_.rows(); ++i)
      for (Eigen::Index j = 0; j < a_.cols(); ++j)
        if (a_(i, j) != 0.0) jac.add(index(group_, i), index(group_, j), a_(i, j));
  }
  double next_discontinuity(double t) const override {
    for (double e : edges_)
      if (e > t) return e;
    return std::numeric_limits<double>::infinity();
  }
  void compute_outputs(const solver::EvalContext&, const double* x, double* const* values) const override {
    for (Eigen::Index i = 0; i < x0_.size(); ++i) values[output_][i] = x[index(group_, i)];
  }

  mutable bool crossed_edge = false;
  mutable double max_time_seen = 0.0;

 private:
  Eigen::MatrixXd a_;
  std::function<Eigen::VectorXd(double)> forcing_;
  Eigen::VectorXd x0_;
  std::vector<double> edges_;
  bool analytic_;
  int group_ = 0;
  int output_ = 0;
};

/// Records every sample.
struct Recorder final : solver::SimulationObserver {
  std::vector<double> times;
  std::vector<std::vector<double>> states;
  std::vector<std::vector<double>> outputs;
  std::vector<std::string> events;
  void on_sample(double t, const std::vector<double>& x, const std::vector<double>& out) override {
    times.push_back(t);
    states.push_back(x);
    outputs.push_back(out);
  }
  void on_event(double, const std::string& component, const std::string& event,
                const std::string& message) override {
    events.push_back(component + "/" + event + ": " + message);
  }
};

}  // namespace dctwin::test
