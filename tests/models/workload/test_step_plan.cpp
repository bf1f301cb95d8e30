// The planned training step: MFU and throughput arithmetic, the pipeline bubble, clock scaling,
// checkpoint sizing, the Llama 3 405B reproduction (arXiv 2407.21783 Table 4), input errors and
// the parameter tables of `job:` and `checkpoint:`.
#include <catch2/catch.hpp>

#include "../test_helpers.hpp"

#include <set>
#include <string>

#include "dctwin/core/input_error.hpp"
#include "dctwin/core/parameters.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/models/workload/step_plan.hpp"

using namespace dctwin::models::workload;
using dctwin::core::InputError;
using dctwin::core::ParameterKind;
using dctwin::core::ParameterTable;
using dctwin::core::ParameterTree;

using model_test::defaults_tree;

namespace {

/// The InputError thrown by `f` (message and key path); empty strings if nothing was thrown.
struct Thrown {
  std::string message;
  std::string key_path;
};
template <class F>
Thrown input_error(F&& f) {
  try {
    f();
  } catch (const InputError& error) {
    return {error.what(), error.key_path()};
  }
  return {};
}

/// A scenario schema holding the two sections, as the facility declares them.
const dctwin::core::SectionSchema& job_schema() {
  static const dctwin::core::SectionSchema schema = [] {
    dctwin::core::SectionSchema root;
    root.doc = "training job";
    root.sections["job"].parameters = TrainingJobParameters::table();
    root.sections["job"].doc = "the job";
    root.sections["checkpoint"].parameters = CheckpointParameters::table();
    root.sections["checkpoint"].doc = "checkpoints";
    return root;
  }();
  return schema;
}

constexpr double h100_peak = 989e12;

}  // namespace

TEST_CASE("MFU and throughput against a hand calculation", "[workload][step_plan]") {
  // A small job: N = 1e9, 64 GPUs = TP 4 x PP 2 x CP 1 x DP 8, b_r = 4 sequences of 2048 tokens.
  //   B_tok = 4 x 8 x 2048 = 65,536 tokens
  //   F     = 6 x 1e9 x 65,536 = 3.93216e14 FLOP
  //   T_c   = F / (G P eta) = 3.93216e14 / (64 x 1e15 x 0.5) = 0.012288 s
  //   m     = 4 / 2 = 2;  T_b = T_c (PP - 1) / (v m) = 0.012288 x 1 / (1 x 2) = 0.006144 s
  //   T_step = 0.012288 + 0.006144 + 0.01 + 0.002 = 0.030432 s
  TrainingJobParameters p;
  p.model_parameters = 1e9;
  p.sequence_length = 2048;
  p.batch_size_per_replica = 4;
  p.micro_batch_size = 2;
  p.tensor_parallel = 4;
  p.pipeline_parallel = 2;
  p.context_parallel = 1;
  p.data_parallel = 0;
  p.virtual_pipeline_stages = 1;
  p.peak_flops = 1e15;
  p.compute_efficiency = 0.5;
  p.exposed_communication_time = 0.01;
  p.optimizer_time = 0.002;
  const StepPlan plan = plan_step(p, 64, "job");
  CHECK(plan.gpus == 64);
  CHECK(plan.data_parallel == 8);
  CHECK(plan.tokens_per_step == 65536.0);
  CHECK(plan.model_flops_per_step == Approx(3.93216e14).epsilon(1e-14));
  CHECK(plan.compute_time == Approx(0.012288).epsilon(1e-12));
  CHECK(plan.bubble_time == Approx(0.006144).epsilon(1e-12));
  CHECK(plan.communication_time == 0.01);
  CHECK(plan.optimizer_time == 0.002);
  CHECK(plan.step_time() == Approx(0.030432).epsilon(1e-12));

  // 100 steps in 3.0432 s: MFU = 100 x 3.93216e14 / (3.0432 x 64 x 1e15) = 0.201893...
  //   (= eta T_c / T_step = 0.5 x 0.012288 / 0.030432); throughput = 100 x 65,536 / 3.0432.
  CHECK(plan.mfu(100.0, 3.0432, 1e15) == Approx(3.93216e16 / (3.0432 * 64e15)).epsilon(1e-12));
  CHECK(plan.mfu(100.0, 3.0432, 1e15) == Approx(0.5 * 0.012288 / 0.030432).epsilon(1e-12));
  CHECK(plan.mfu(100.0, 3.0432, 1e15) == Approx(0.2018927).epsilon(1e-6));
  CHECK(plan.throughput(100.0, 3.0432) == Approx(6553600.0 / 3.0432).epsilon(1e-12));
  // Half the time for the same work doubles both; nothing done in a span gives 0.
  CHECK(plan.mfu(100.0, 1.5216, 1e15) == Approx(2.0 * 0.2018927).epsilon(1e-6));
  CHECK(plan.mfu(0.0, 10.0, 1e15) == 0.0);
  CHECK(plan.mfu(5.0, 0.0, 1e15) == 0.0);
  CHECK(plan.throughput(5.0, 0.0) == 0.0);
}

TEST_CASE("Llama 3 405B at 16,384 and 24,576 GPUs reproduces ~40 % MFU", "[workload][step_plan]") {
  const TrainingJobParameters p;  // the defaults are Llama 3 405B, TP 8, CP 1, PP 16
  SECTION("16,384 GPUs: DP 128, 16M tokens per step (Table 4: 400 TFLOP/s per GPU, 41 %)") {
    const StepPlan plan = plan_step(p, 16384, "job");
    CHECK(plan.data_parallel == 128);
    CHECK(plan.tokens_per_step == 16777216.0);
    // F = 6 x 405e9 x 16,777,216 = 4.0768635e19 FLOP
    CHECK(plan.model_flops_per_step == Approx(4.0768634880e19).epsilon(1e-10));
    // T_c = F / (16,384 x 989e12 x 0.51) = 4.9333 s; T_b = T_c x 15 / (8 x 16) = 0.5781 s
    CHECK(plan.compute_time == Approx(4.93333).epsilon(1e-4));
    CHECK(plan.bubble_time == Approx(0.578125).epsilon(1e-4));
    CHECK(plan.step_time() == Approx(6.21145).epsilon(1e-4));
    const double mfu = plan.mfu(1.0, plan.step_time(), h100_peak);
    CHECK(mfu > 0.38);
    CHECK(mfu < 0.43);
    CHECK(mfu == Approx(0.40506).epsilon(1e-3));
    const double tflops_per_gpu = mfu * h100_peak / 1e12;
    CHECK(tflops_per_gpu == Approx(400.0).epsilon(0.01));
  }
  SECTION("24,576 GPUs: DP 192, 24M tokens per step, the same per-GPU work") {
    const StepPlan plan = plan_step(p, 24576, "job");
    CHECK(plan.data_parallel == 192);
    CHECK(plan.tokens_per_step == 25165824.0);
    const double mfu = plan.mfu(1.0, plan.step_time(), h100_peak);
    CHECK(mfu > 0.38);
    CHECK(mfu < 0.43);
    CHECK(plan.step_time() == Approx(plan_step(p, 16384, "job").step_time()).epsilon(1e-12));
  }
  SECTION("a given data_parallel that agrees is accepted") {
    TrainingJobParameters q;
    q.data_parallel = 128;
    CHECK(plan_step(q, 16384, "job").data_parallel == 128);
  }
}

TEST_CASE("Pipeline bubble of plain and interleaved 1F1B", "[workload][step_plan]") {
  // T_b = T_c (PP - 1) / (v m), Narayanan et al. 2021; defaults: PP 16, m = 16 / 1 = 16.
  TrainingJobParameters p;
  p.virtual_pipeline_stages = 1;
  const StepPlan plain = plan_step(p, 16384, "job");
  CHECK(plain.bubble_time == Approx(plain.compute_time * 15.0 / 16.0).epsilon(1e-14));
  CHECK(plain.bubble_time == Approx(4.62500).epsilon(1e-4));  // 4.93333 x 15 / 16
  p.virtual_pipeline_stages = 8;
  const StepPlan interleaved = plan_step(p, 16384, "job");
  CHECK(interleaved.bubble_time == Approx(interleaved.compute_time * 15.0 / 128.0).epsilon(1e-14));
  CHECK(interleaved.bubble_time == Approx(plain.bubble_time / 8.0).epsilon(1e-14));
  CHECK(interleaved.compute_time == plain.compute_time);
  // Micro-batches of 4 sequences: m = 4, the bubble grows fourfold.
  p.micro_batch_size = 4;
  CHECK(plan_step(p, 16384, "job").bubble_time == Approx(4.0 * interleaved.bubble_time).epsilon(1e-14));
  // No pipeline, no bubble.
  p.pipeline_parallel = 1;
  CHECK(plan_step(p, 16384, "job").bubble_time == 0.0);
}

TEST_CASE("Given timing takes the phases as written", "[workload][step_plan]") {
  TrainingJobParameters p;
  p.timing = "given";
  p.compute_time = 3.0;
  p.bubble_time = 0.4;
  p.exposed_communication_time = 0.5;
  p.optimizer_time = 0.1;
  p.compute_efficiency = 0.1;  // ignored with given timing
  p.micro_batch_size = 3;      // ignored too: the bubble is given
  const StepPlan plan = plan_step(p, 16384, "job");
  CHECK(plan.compute_time == 3.0);
  CHECK(plan.bubble_time == 0.4);
  CHECK(plan.communication_time == 0.5);
  CHECK(plan.optimizer_time == 0.1);
  CHECK(plan.step_time() == Approx(4.0).epsilon(1e-15));
  // The work per step still comes from the model and batch: MFU = 4.0768635e19 / (4 x 16,384 x 989e12).
  CHECK(plan.tokens_per_step == 16777216.0);
  CHECK(plan.mfu(1.0, 4.0, h100_peak) == Approx(4.0768634880e19 / (4.0 * 16384.0 * 989e12)).epsilon(1e-12));
  CHECK(plan.mfu(1.0, 4.0, h100_peak) == Approx(0.628999).epsilon(1e-5));
  // The bubble is 0 unless given.
  p.bubble_time = 0.0;
  CHECK(plan_step(p, 16384, "job").step_time() == Approx(3.6).epsilon(1e-15));
}

TEST_CASE("Clock scaling of the step", "[workload][step_plan]") {
  // T(r) = T0 (c / r + 1 - c)
  CHECK(StepPlan::scaled_time(10.0, 0.85, 1.0) == Approx(10.0).epsilon(1e-15));
  CHECK(StepPlan::scaled_time(10.0, 0.85, 0.5) == Approx(18.5).epsilon(1e-15));  // 10 (1.7 + 0.15)
  CHECK(StepPlan::scaled_time(10.0, 0.0, 0.5) == 10.0);                           // memory-bound
  CHECK(StepPlan::scaled_time(10.0, 1.0, 0.8) == Approx(12.5).epsilon(1e-15));    // fully compute-bound

  // Compute 4 s and bubble 1 s scale, communication 0.5 s and optimizer 0.2 s do not:
  //   T(0.8) = (4 + 1) (0.85 / 0.8 + 0.15) + 0.5 + 0.2 = 5 x 1.2125 + 0.7 = 6.7625 s.
  StepPlan plan;
  plan.compute_time = 4.0;
  plan.bubble_time = 1.0;
  plan.communication_time = 0.5;
  plan.optimizer_time = 0.2;
  plan.compute_bound_fraction = 0.85;
  CHECK(plan.step_time() == Approx(5.7).epsilon(1e-15));
  CHECK(plan.step_time_at(1.0) == Approx(5.7).epsilon(1e-15));
  CHECK(plan.step_time_at(0.8) == Approx(6.7625).epsilon(1e-14));
  CHECK(plan.step_time_at(0.5) > plan.step_time_at(0.8));
}

TEST_CASE("Checkpoint size and stall time", "[workload][step_plan]") {
  const CheckpointParameters c;
  // 405e9 x 14 B = 5.67e12 B; 5.67e12 B / 2e12 B/s + 1 s = 3.835 s.
  CHECK(c.size_bytes(405e9) == Approx(5.67e12).epsilon(1e-14));
  CHECK(c.stall_time(405e9) == Approx(3.835).epsilon(1e-14));
  CheckpointParameters given = c;
  given.size = 1e12;
  given.write_bandwidth = 5e11;
  given.overhead = 0.0;
  CHECK(given.size_bytes(405e9) == 1e12);
  CHECK(given.stall_time(405e9) == Approx(2.0).epsilon(1e-15));
}

TEST_CASE("Parallelism and batch errors name the key", "[workload][step_plan]") {
  const TrainingJobParameters p;
  SECTION("model-parallel group does not divide the GPUs") {
    const Thrown e = input_error([&] { (void)plan_step(p, 1000, "job"); });
    CHECK(e.message ==
          "job.tensor_parallel x job.pipeline_parallel x job.context_parallel = 8 x 16 x 1 = 128 does not divide "
          "the job's 1000 GPUs");
    CHECK(e.key_path == "job.tensor_parallel");
  }
  SECTION("given data_parallel disagrees with the GPU count") {
    TrainingJobParameters q = p;
    q.data_parallel = 100;
    const Thrown e = input_error([&] { (void)plan_step(q, 24576, "job"); });
    CHECK(e.message == "job.data_parallel = 100 but 24576 GPUs / (8 x 16 x 1) = 192 (write 192, or 0 to derive it)");
    CHECK(e.key_path == "job.data_parallel");
  }
  SECTION("micro-batch does not divide the replica's batch") {
    TrainingJobParameters q = p;
    q.micro_batch_size = 3;
    const Thrown e = input_error([&] { (void)plan_step(q, 16384, "job"); });
    CHECK(e.message == "job.micro_batch_size = 3 does not divide job.batch_size_per_replica = 16");
    CHECK(e.key_path == "job.micro_batch_size");
  }
  SECTION("the section path prefixes every key") {
    const Thrown e = input_error([&] { (void)plan_step(p, 1000, "jobs[2]"); });
    CHECK(e.key_path == "jobs[2].tensor_parallel");
  }
  SECTION("values the schema would refuse are refused in C++ too") {
    TrainingJobParameters q = p;
    q.timing = "given";
    q.compute_time = -1.0;
    Thrown e = input_error([&] { (void)plan_step(q, 16384, "job"); });
    CHECK(e.message == "job.compute_time = -1 s (must be > 0)");
    CHECK(e.key_path == "job.compute_time");
    q = p;
    q.compute_efficiency = 1.5;
    e = input_error([&] { (void)plan_step(q, 16384, "job"); });
    CHECK(e.message == "job.compute_efficiency = 1.5 (must be in (0, 1])");
    e = input_error([&] { (void)plan_step(p, 0, "job"); });
    CHECK(e.message == "job: no GPUs to run on");
    CHECK(e.key_path == "job");
  }
}

TEST_CASE("Scenario values of job and checkpoint: units and located errors", "[workload][step_plan][parameters]") {
  using dctwin::io::parse_scenario;
  using dctwin::io::ScenarioError;
  // Every real unit is one udunits2 parses.
  for (const auto& table : {TrainingJobParameters::table(), CheckpointParameters::table()})
    for (const auto& spec : table)
      if (spec.kind == ParameterKind::real) {
        INFO(spec.name << " [" << spec.unit << "]");
        CHECK(dctwin::io::is_known_unit(spec.unit));
        if (!spec.display_unit.empty()) CHECK(dctwin::io::are_convertible(spec.unit, spec.display_unit));
      }

  const auto doc = parse_scenario(
      "job:\n"
      "  peak_flops: 989e12\n"
      "  exposed_communication_time: 500 ms\n"
      "checkpoint:\n"
      "  write_bandwidth: 7 Tbyte/s\n"
      "  size: 4 Tbyte\n",
      "scenario.yaml", job_schema());
  const TrainingJobParameters job = TrainingJobParameters::from(doc.tree.section("job"));
  CHECK(job.peak_flops == 989e12);
  CHECK(job.exposed_communication_time == Approx(0.5).epsilon(1e-15));
  const CheckpointParameters checkpoint = CheckpointParameters::from(doc.tree.section("checkpoint"));
  CHECK(checkpoint.write_bandwidth == Approx(7e12).epsilon(1e-15));
  CHECK(checkpoint.size == Approx(4e12).epsilon(1e-15));

  auto schema_error = [](const std::string& text) {
    try {
      (void)parse_scenario(text, "scenario.yaml", job_schema());
    } catch (const ScenarioError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  CHECK(schema_error("job:\n  timing: given\n  compute_time: -5 s\n") ==
        "scenario.yaml:3:17: job.compute_time = -5 s (must be > 0)");
  CHECK(schema_error("checkpoint:\n  interval_steps: 0\n") ==
        "scenario.yaml:2:19: checkpoint.interval_steps = 0 (must be >= 1)");
  CHECK(schema_error("job:\n  compute_efficiency: 0\n") ==
        "scenario.yaml:2:23: job.compute_efficiency = 0 (must be in (0, 1])");

  // A parallelism error from plan_step is located at the key through describe_error.
  const auto bad = parse_scenario("job:\n  tensor_parallel: 8\n  data_parallel: 100\n", "scenario.yaml", job_schema());
  try {
    (void)plan_step(TrainingJobParameters::from(bad.tree.section("job")), 24576, bad.tree.section("job").path);
    FAIL("plan_step accepted data_parallel = 100");
  } catch (const InputError& error) {
    CHECK(dctwin::io::describe_error(bad, error) ==
          "scenario.yaml:3:18: job.data_parallel = 100 but 24576 GPUs / (8 x 16 x 1) = 192 (write 192, or 0 to "
          "derive it)");
  }
}

namespace {

void check_table(const ParameterTable& table, const std::string& name) {
  INFO("table " << name);
  std::set<std::string> names;
  for (const auto& spec : table) {
    INFO("parameter " << spec.name);
    CHECK(names.insert(spec.name).second);
    CHECK_FALSE(spec.doc.empty());
    CHECK_FALSE(spec.unit.empty());
    CHECK_FALSE(spec.source.empty());
    CHECK_FALSE(spec.required());
    if (spec.kind == ParameterKind::real || spec.kind == ParameterKind::integer) {
      const double v = *spec.default_value;
      CHECK((spec.min_inclusive ? v >= spec.min : v > spec.min));
      CHECK((spec.max_inclusive ? v <= spec.max : v < spec.max));
    }
    if (spec.kind == ParameterKind::choice) {
      bool listed = false;
      for (const auto& choice : spec.choices) listed = listed || choice == *spec.default_text;
      CHECK(listed);
    }
  }
}

}  // namespace

TEST_CASE("job and checkpoint parameter tables are complete", "[workload][step_plan][parameters]") {
  check_table(TrainingJobParameters::table(), "job");
  check_table(CheckpointParameters::table(), "checkpoint");
  CHECK(TrainingJobParameters::table().size() == 24);
  CHECK(CheckpointParameters::table().size() == 6);

  // Ranges the scenario checker enforces.
  auto find = [](const ParameterTable& table, const std::string& key) {
    for (const auto& spec : table)
      if (spec.name == key) return spec;
    FAIL("no parameter " << key);
    return dctwin::core::ParameterSpec{};
  };
  const auto job = TrainingJobParameters::table();
  CHECK(find(job, "compute_time").min == 0.0);
  CHECK_FALSE(find(job, "compute_time").min_inclusive);
  CHECK(find(job, "data_parallel").min == 0.0);
  CHECK(find(job, "tensor_parallel").min == 1.0);
  CHECK(find(job, "compute_efficiency").max == 1.0);
  CHECK(find(job, "compute_bound_fraction").max == 1.0);
  CHECK(find(CheckpointParameters::table(), "interval_steps").min == 1.0);

  const TrainingJobParameters d{};
  const TrainingJobParameters job_params = TrainingJobParameters::from(defaults_tree(job, "job"));
  CHECK(job_params.timing == d.timing);
  CHECK(job_params.model_parameters == d.model_parameters);
  CHECK(job_params.sequence_length == d.sequence_length);
  CHECK(job_params.batch_size_per_replica == d.batch_size_per_replica);
  CHECK(job_params.micro_batch_size == d.micro_batch_size);
  CHECK(job_params.tensor_parallel == d.tensor_parallel);
  CHECK(job_params.pipeline_parallel == d.pipeline_parallel);
  CHECK(job_params.context_parallel == d.context_parallel);
  CHECK(job_params.data_parallel == d.data_parallel);
  CHECK(job_params.virtual_pipeline_stages == d.virtual_pipeline_stages);
  CHECK(job_params.pipeline_stagger == d.pipeline_stagger);
  CHECK(job_params.peak_flops == d.peak_flops);
  CHECK(job_params.compute_efficiency == d.compute_efficiency);
  CHECK(job_params.exposed_communication_time == d.exposed_communication_time);
  CHECK(job_params.optimizer_time == d.optimizer_time);
  CHECK(job_params.compute_time == d.compute_time);
  CHECK(job_params.bubble_time == d.bubble_time);
  CHECK(job_params.compute_bound_fraction == d.compute_bound_fraction);
  CHECK(job_params.compute_activity == d.compute_activity);
  CHECK(job_params.bubble_activity == d.bubble_activity);
  CHECK(job_params.communication_activity == d.communication_activity);
  CHECK(job_params.optimizer_activity == d.optimizer_activity);
  CHECK(job_params.stall_activity == d.stall_activity);
  CHECK(job_params.power_capped_activity == d.power_capped_activity);

  const CheckpointParameters c{};
  const CheckpointParameters checkpoint =
      CheckpointParameters::from(defaults_tree(CheckpointParameters::table(), "checkpoint"));
  CHECK(checkpoint.enabled == c.enabled);
  CHECK(checkpoint.interval_steps == c.interval_steps);
  CHECK(checkpoint.bytes_per_parameter == c.bytes_per_parameter);
  CHECK(checkpoint.size == c.size);
  CHECK(checkpoint.write_bandwidth == c.write_bandwidth);
  CHECK(checkpoint.overhead == c.overhead);
}

TEST_CASE("Pipeline stagger: stage offsets from the bubble and the stage of each rank", "[workload][step_plan]") {
  // t_f + t_b = T_b / (S - 1), t_b = 2 t_f; Llama 3 405B at 16,384 GPUs: T_b = 0.578125 s, S = 16,
  // t_f = 0.578125 / 45 = 12.847 ms, t_b = 25.694 ms; the compute edges spread over (S - 1) t_f = T_b / 3.
  TrainingJobParameters p;
  p.pipeline_stagger = true;
  const StepPlan plan = plan_step(p, 16384, "job");
  CHECK(plan.staggered_stages == 16);
  CHECK(plan.stage_width == 8);
  CHECK(plan.stage_forward_time == Approx(plan.bubble_time / 45.0).epsilon(1e-14));
  CHECK(plan.stage_backward_time == Approx(2.0 * plan.stage_forward_time).epsilon(1e-14));
  CHECK(plan.stage_forward_time == Approx(0.0128472).epsilon(1e-4));
  CHECK(15.0 * (plan.stage_forward_time + plan.stage_backward_time) == Approx(plan.bubble_time).epsilon(1e-14));
  // Ranks in the order [TP, CP, PP, DP]: eight GPUs (one server) per stage, 16 servers per pipeline.
  CHECK(plan.stage_of(0) == 0);
  CHECK(plan.stage_of(7) == 0);
  CHECK(plan.stage_of(8) == 1);
  CHECK(plan.stage_of(127) == 15);
  CHECK(plan.stage_of(128) == 0);
  CHECK(plan.stage_of(16383) == 15);
  // Context parallelism widens a stage: TP 8 x CP 2 = 16 consecutive ranks.
  TrainingJobParameters cp = p;
  cp.context_parallel = 2;
  CHECK(plan_step(cp, 16384, "job").stage_of(15) == 0);
  CHECK(plan_step(cp, 16384, "job").stage_of(16) == 1);
  // Off, without a pipeline, or without a bubble: one stage, no offsets.
  TrainingJobParameters off = p;
  off.pipeline_stagger = false;
  CHECK(plan_step(off, 16384, "job").staggered_stages == 1);
  CHECK(plan_step(off, 16384, "job").stage_forward_time == 0.0);
  CHECK(plan_step(off, 16384, "job").bubble_time == plan.bubble_time);
  // Only "off" leaves out offsets that the schedule has; no pipeline or no bubble has none to leave.
  CHECK_FALSE(plan.stagger_left_out);
  CHECK(plan_step(off, 16384, "job").stagger_left_out);
  TrainingJobParameters flat = p;
  flat.pipeline_parallel = 1;
  CHECK(plan_step(flat, 16384, "job").staggered_stages == 1);
  flat.pipeline_stagger = false;
  CHECK_FALSE(plan_step(flat, 16384, "job").stagger_left_out);
  TrainingJobParameters given = p;
  given.timing = "given";
  given.bubble_time = 0.0;
  CHECK(plan_step(given, 16384, "job").staggered_stages == 1);
  given.pipeline_stagger = false;
  CHECK_FALSE(plan_step(given, 16384, "job").stagger_left_out);
  given.pipeline_stagger = true;
  given.bubble_time = 0.45;
  CHECK(plan_step(given, 16384, "job").stage_forward_time == Approx(0.01).epsilon(1e-14));
}
