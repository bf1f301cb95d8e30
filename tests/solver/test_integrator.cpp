// Verification of the CVODE + KLU integrator and the simulation loop against closed forms.
#include <catch2/catch.hpp>

#include <unsupported/Eigen/MatrixFunctions>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dctwin/solver/simulator.hpp"
#include "linear_component.hpp"

using dctwin::solver::IntegratorSettings;
using dctwin::solver::SimulationSettings;
using dctwin::solver::Simulator;
using dctwin::solver::StopReason;
using dctwin::solver::System;
using dctwin::test::LinearComponent;
using dctwin::test::Recorder;

namespace {

/// Exact solution of x' = A x + b (b constant) after time dt: e^{A dt} x0 + A^{-1}(e^{A dt} - I) b.
Eigen::VectorXd propagate(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x0,
                          double dt) {
  const Eigen::MatrixXd phi = (a * dt).exp();
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(a.rows(), a.cols());
  return phi * x0 + a.fullPivLu().solve((phi - identity) * b);
}

/// A three-node RC ladder: C_i dT_i/dt = sum_j (T_j - T_i)/R_ij + (T_amb - T_i)/R_i,amb + P_i.
/// Written as T' = A T + b; temperatures in K, C in J/K, R in K/W, P in W.
struct RcLadder {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(3, 3);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(3);
  RcLadder(double p_junction) {
    const double c[3] = {50.0, 400.0, 80.0};    // junction, base, coolant volume
    const double r01 = 0.03, r12 = 0.02, r2a = 0.005;
    const double t_ambient = 305.15;
    auto link = [&](int i, int j, double r) {
      a(i, i) -= 1.0 / (r * c[i]);
      a(i, j) += 1.0 / (r * c[i]);
      a(j, j) -= 1.0 / (r * c[j]);
      a(j, i) += 1.0 / (r * c[j]);
    };
    link(0, 1, r01);
    link(1, 2, r12);
    a(2, 2) -= 1.0 / (r2a * c[2]);
    b[2] = t_ambient / (r2a * c[2]);
    b[0] = p_junction / c[0];
  }
};

}  // namespace

TEST_CASE("RC network step response matches the matrix exponential to 1e-6", "[solver][verification]") {
  const RcLadder rc(700.0);
  Eigen::VectorXd x0 = Eigen::VectorXd::Constant(3, 305.15);
  System system;
  system.add(std::make_unique<LinearComponent>(rc.a, [&](double) { return rc.b; }, x0));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 60.0;
  settings.output_interval = 0.5;
  settings.integrator = IntegratorSettings::reference();
  Simulator simulator(system, settings);
  Recorder recorder;
  const auto status = simulator.run(recorder);
  REQUIRE(status.finished());
  REQUIRE(recorder.times.size() == 121);
  double worst = 0.0;
  for (std::size_t k = 0; k < recorder.times.size(); ++k) {
    const Eigen::VectorXd exact = propagate(rc.a, rc.b, x0, recorder.times[k]);
    for (int i = 0; i < 3; ++i) {
      // Relative error of the temperature rise above the initial state (the part that moves).
      const double rise_exact = exact[i] - x0[i];
      const double rise = recorder.states[k][static_cast<std::size_t>(i)] - x0[i];
      const double scale = std::max(std::abs(rise_exact), 1.0);
      worst = std::max(worst, std::abs(rise - rise_exact) / scale);
    }
  }
  INFO("worst relative error " << worst);
  REQUIRE(worst <= 1e-6);
}

TEST_CASE("A stiff problem (time constants 1e-3 s and 1e3 s) takes few steps", "[solver][verification]") {
  // Eigenvalues -1e3 and -1e-3 in a coupled 2x2 system: A = V diag(-1e3, -1e-3) V^-1.
  Eigen::Matrix2d v;
  v << 1.0, 1.0, -1.0, 1.0;
  const Eigen::Matrix2d a = v * Eigen::Vector2d(-1e3, -1e-3).asDiagonal() * v.inverse();
  const Eigen::Vector2d b(1.0, 2.0);
  const Eigen::Vector2d x0(0.0, 0.0);
  System system;
  system.add(std::make_unique<LinearComponent>(a, [&](double) -> Eigen::VectorXd { return b; }, x0));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 5000.0;  // five slow time constants
  settings.output_interval = 5000.0;
  settings.integrator.relative_tolerance = 1e-8;
  settings.integrator.absolute_tolerance = 1e-10;
  Simulator simulator(system, settings);
  Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  const Eigen::VectorXd exact = propagate(a, b, x0, 5000.0);
  const auto& x = recorder.states.back();
  CHECK(std::abs(x[0] - exact[0]) <= 1e-6 * std::abs(exact[0]) + 1e-9);
  CHECK(std::abs(x[1] - exact[1]) <= 1e-6 * std::abs(exact[1]) + 1e-9);
  // An explicit method would need about 5000 s / 2e-3 s = 2.5e6 steps for stability alone.
  INFO("steps " << simulator.statistics().steps);
  CHECK(simulator.statistics().steps < 1000);
  CHECK(simulator.statistics().last_step_size > 10.0);
}

TEST_CASE("Forcing discontinuities are hit exactly, never integrated across", "[solver][verification]") {
  // x' = -x/tau + u(t)/tau with a square wave u switching between 1 and 0 at known edges.
  const double tau = 2.0;
  Eigen::MatrixXd a(1, 1);
  a(0, 0) = -1.0 / tau;
  std::vector<double> edges;
  for (int k = 1; k < 20; ++k) edges.push_back(0.7 * k);  // deliberately off the output grid
  auto level = [&](double segment_start) {
    int k = 0;
    for (double e : edges)
      if (e <= segment_start) ++k;
    return (k % 2 == 0) ? 1.0 : 0.0;
  };
  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(1);
  System system;
  auto& linear = system.add(std::make_unique<LinearComponent>(
      a, [&](double s) { return Eigen::VectorXd::Constant(1, level(s) / tau); }, x0, edges));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 14.0;
  settings.output_interval = 0.25;
  settings.integrator = IntegratorSettings::reference();
  Simulator simulator(system, settings);
  Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  CHECK_FALSE(linear.crossed_edge);
  CHECK(simulator.statistics().segments == 20);  // 19 edges inside (0, 14]

  // Exact piecewise solution at every sample.
  double worst = 0.0;
  for (std::size_t k = 0; k < recorder.times.size(); ++k) {
    const double t = recorder.times[k];
    double x = 0.0, t0 = 0.0;
    for (double e : edges) {
      if (e > t) break;
      const double u = level(t0);
      x = u + (x - u) * std::exp(-(e - t0) / tau);
      t0 = e;
    }
    const double u = level(t0);
    x = u + (x - u) * std::exp(-(t - t0) / tau);
    worst = std::max(worst, std::abs(recorder.states[k][0] - x));
  }
  INFO("worst absolute error " << worst);
  CHECK(worst <= 1e-7);
}

TEST_CASE("Samples fall on the requested grid and at the end", "[solver]") {
  Eigen::MatrixXd a = Eigen::MatrixXd::Constant(1, 1, -1.0);
  System system;
  system.add(std::make_unique<LinearComponent>(a, [](double) { return Eigen::VectorXd::Zero(1); },
                                               Eigen::VectorXd::Ones(1)));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 1.05;
  settings.output_interval = 0.1;
  Simulator simulator(system, settings);
  Recorder recorder;
  REQUIRE(simulator.run(recorder).finished());
  REQUIRE(recorder.times.size() == 12);
  for (std::size_t k = 0; k < 11; ++k) CHECK(recorder.times[k] == 0.1 * static_cast<double>(k));
  CHECK(recorder.times.back() == 1.05);
  CHECK(recorder.outputs.back()[0] == Approx(std::exp(-1.05)).epsilon(1e-5));
}

TEST_CASE("Cancellation ends the run early with status interrupted", "[solver]") {
  Eigen::MatrixXd a = Eigen::MatrixXd::Constant(1, 1, -1.0);
  System system;
  system.add(std::make_unique<LinearComponent>(a, [](double) { return Eigen::VectorXd::Zero(1); },
                                               Eigen::VectorXd::Ones(1)));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 100.0;
  struct Canceller final : dctwin::solver::SimulationObserver {
    std::atomic<bool>* flag;
    int samples = 0;
    void on_sample(double, const std::vector<double>&, const std::vector<double>&) override {
      if (++samples == 5) flag->store(true);
    }
  } observer;
  std::atomic<bool> cancel{false};
  observer.flag = &cancel;
  Simulator simulator(system, settings);
  const auto status = simulator.run(observer, &cancel);
  CHECK(status.reason == StopReason::interrupted);
  CHECK(status.time < 100.0);
  CHECK(status.describe().rfind("ended early at t = ", 0) == 0);
}

TEST_CASE("A stop request is taken between samples closer than the time resolution", "[solver][signals]") {
  // Samples 1e-15 s apart are closer than the loop's time resolution near t = 0 (64 ulps of 1 s),
  // so the loop takes them without a step: it must still see the request (a run of 1e-14 s samples
  // once ignored SIGTERM while its report grew without bound).
  Eigen::MatrixXd a(1, 1);
  a(0, 0) = -1.0;
  Eigen::VectorXd b(1), x0(1);
  b(0) = 1.0;
  x0(0) = 0.0;
  System system;
  system.add(std::make_unique<LinearComponent>(a, [&](double) { return b; }, x0));
  system.assemble();
  SimulationSettings settings;
  settings.end_time = 1.0;
  settings.output_interval = 1e-15;
  std::atomic<bool> cancel{false};
  struct StopAfter final : dctwin::solver::SimulationObserver {
    std::atomic<bool>* cancel = nullptr;
    std::vector<double> times;
    void on_sample(double t, const std::vector<double>&, const std::vector<double>&) override {
      times.push_back(t);
      if (times.size() == 10) cancel->store(true);
      if (times.size() > 100000) throw std::runtime_error("the stop request was not taken");
    }
  } observer;
  observer.cancel = &cancel;
  Simulator simulator(system, settings);
  const auto status = simulator.run(observer, &cancel);
  CHECK(status.reason == StopReason::interrupted);
  CHECK(observer.times.size() <= 11);
  // The state where it stopped is sampled once, not twice.
  for (std::size_t k = 1; k < observer.times.size(); ++k) CHECK(observer.times[k] > observer.times[k - 1]);
}
