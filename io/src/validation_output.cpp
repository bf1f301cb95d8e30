// A validation result as HDF5 and as a text table (layout in docs/validation.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <system_error>

#include "dctwin/io/report.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/io/validation.hpp"
#include "hdf5_handles.hpp"

namespace dctwin::io {

namespace {

constexpr int validation_file_version = 1;

void write_strings(h5::Group& group, const std::string& name, const std::vector<std::string>& strings) {
  const auto type = h5::Datatype::utf8_string();
  const std::array<hsize_t, 1> dims{strings.size()};
  const auto space = h5::Dataspace::simple(dims);
  auto dataset = h5::Dataset::create(group, name, type.id(), space);
  std::vector<const char*> pointers;
  for (const auto& s : strings) pointers.push_back(s.c_str());
  if (!strings.empty()) dataset.write_all(type.id(), pointers.data());
}

h5::Dataset write_vector(h5::Group& group, const std::string& name, const std::vector<double>& values,
                         const std::string& units, const std::string& long_name) {
  const std::array<hsize_t, 1> dims{values.size()};
  const auto space = h5::Dataspace::simple(dims);
  auto dataset = h5::Dataset::create(group, name, H5T_IEEE_F64LE, space);
  if (!values.empty()) dataset.write_all(H5T_NATIVE_DOUBLE, values.data());
  dataset.set_attribute("units", units);
  dataset.set_attribute("long_name", long_name);
  return dataset;
}

/// [gpu x sample], NaN-padded to the longest GPU series.
h5::Dataset write_rows(h5::Group& group, const std::string& name, const std::vector<std::vector<double>>& rows,
                       const std::string& units, const std::string& long_name) {
  std::size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.size());
  std::vector<double> buffer(rows.size() * width, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t g = 0; g < rows.size(); ++g) std::copy(rows[g].begin(), rows[g].end(), buffer.begin() + static_cast<long>(g * width));
  const std::array<hsize_t, 2> dims{rows.size(), width};
  const auto space = h5::Dataspace::simple(dims);
  auto dataset = h5::Dataset::create(group, name, H5T_IEEE_F64LE, space);
  if (!buffer.empty()) dataset.write_all(H5T_NATIVE_DOUBLE, buffer.data());
  dataset.set_attribute("units", units);
  dataset.set_attribute("long_name", long_name);
  return dataset;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

const char* metric_long_name(const std::string& name) {
  if (name == "mae") return "mean absolute error";
  if (name == "rmse") return "root mean square error";
  if (name == "bias") return "mean bias, simulated minus measured";
  if (name == "cv_rmse") return "CV(RMSE), ASHRAE Guideline 14, n - p degrees of freedom (fraction)";
  if (name == "nmbe") return "NMBE, ASHRAE Guideline 14, measured minus simulated, n - p degrees of freedom (fraction)";
  if (name == "max_error") return "largest absolute error";
  return "lag of the cross-correlation peak (> 0: simulated late)";
}

/// `<parent>/metrics/<q>/<m>`: one value per trace GPU, attribute `overall`.
void write_metrics(h5::Group& parent, const std::vector<QuantityMetrics>& quantities) {
  auto metrics = h5::Group::create(parent, "metrics");
  for (const auto& q : quantities) {
    auto group = h5::Group::create(metrics, q.quantity);
    group.set_attribute("units", q.unit);
    for (const auto& name : metric_names()) {
      std::vector<double> values;
      for (const auto& m : q.per_gpu) values.push_back(metric_value(m, name));
      auto dataset = write_vector(group, name, values, metric_unit(name, q.unit), metric_long_name(name));
      dataset.set_attribute("overall", metric_value(q.overall, name));
    }
    std::vector<double> counts;
    for (const auto& m : q.per_gpu) counts.push_back(static_cast<double>(m.count));
    auto dataset = write_vector(group, "count", counts, "1", "sample pairs compared");
    dataset.set_attribute("overall", static_cast<double>(q.overall.count));
  }

}

void write_file(const ValidationResult& r, h5::File& file) {
  file.set_attribute("title", "dctwin validation against GPU telemetry");
  file.set_attribute("dctwin_validation_version", static_cast<long long>(validation_file_version));
  auto root = h5::Group::create(file, "validation");
  root.set_attribute("start_time", r.start_time);
  root.set_attribute("start_time_utc", format_utc_time(r.start_time));
  root.set_attribute("notes", join(r.notes));
  write_strings(root, "gpu", r.gpu_labels);
  {
    std::vector<double> model(r.model_gpus.begin(), r.model_gpus.end());
    write_vector(root, "model_gpu", model, "1", "model GPU each trace GPU drives");
  }

  write_metrics(root, r.metrics);

  auto series = h5::Group::create(root, "series");
  for (const auto& s : r.series) {
    auto group = h5::Group::create(series, s.quantity);
    write_rows(group, "time", s.time, "s", "sample time since 1970-01-01T00:00:00Z [gpu x sample]");
    write_rows(group, "measured", s.measured, s.unit, "measured " + s.quantity + " [gpu x sample]");
    write_rows(group, "simulated", s.simulated, s.unit, "simulated " + s.quantity + " [gpu x sample]");
  }

  auto phases = h5::Group::create(root, "phases");
  std::vector<std::string> names;
  for (std::size_t q = 0; q < replay_phase_count; ++q) names.emplace_back(replay_phase_name(static_cast<ReplayPhase>(q)));
  write_strings(phases, "names", names);
  {
    std::vector<std::vector<double>> rows;
    for (const auto& share : r.phase_share) rows.emplace_back(share.begin(), share.end());
    write_rows(phases, "share", rows, "1", "share of samples in each phase [gpu x phase]");
    write_vector(phases, "overall_share",
                 std::vector<double>(r.overall_phase_share.begin(), r.overall_phase_share.end()), "1",
                 "share of samples in each phase, all GPUs");
    std::vector<std::vector<double>> codes;
    for (const auto& p : r.phases) {
      codes.emplace_back();
      for (const auto phase : p) codes.back().push_back(static_cast<double>(phase));
    }
    write_rows(phases, "phase", codes, "1", "phase of each sample (index into names) [gpu x sample]");
  }
  file.flush();  // while every object is open (h5::write_output)
}

void write_calibration(const CalibrationResult& c, h5::File& file) {
  auto group = h5::Group::create(file, "calibration");
  group.set_attribute("split_time", c.split_time);
  group.set_attribute("evaluations", static_cast<long long>(c.evaluations));
  group.set_attribute("notes", join(c.notes));
  std::vector<std::string> names, units;
  std::vector<double> initial, value, lower, upper, at_bound;
  for (const auto& p : c.parameters) {
    names.push_back(p.section + "." + p.key);
    units.push_back(p.unit);
    initial.push_back(p.initial);
    value.push_back(p.value);
    lower.push_back(p.lower);
    upper.push_back(p.upper);
    at_bound.push_back(p.at_bound ? 1.0 : 0.0);
  }
  write_strings(group, "parameter", names);
  write_strings(group, "unit", units);
  const char* per_unit = "the parameter's unit (dataset unit)";
  write_vector(group, "initial", initial, per_unit, "value in the scenario before the fit");
  write_vector(group, "value", value, per_unit, "calibrated value");
  write_vector(group, "lower", lower, per_unit, "lower bound of the fit");
  write_vector(group, "upper", upper, per_unit, "upper bound of the fit");
  write_vector(group, "at_bound", at_bound, "1", "1 when the calibrated value ended on a bound, else 0");
  auto training = h5::Group::create(group, "training");
  training.set_attribute("long_name", "metrics over the training span, calibrated model");
  write_metrics(training, c.training.metrics);
  file.flush();
}

std::string value_text(double v) {
  if (std::isnan(v)) return "-";
  if (v == 0.0) return "0";  // no "-0"
  return fmt::format("{:.4g}", v);
}

}  // namespace

void write_validation_hdf5(const ValidationResult& result, const std::filesystem::path& file,
                           const std::vector<InputFile>& inputs) {
  h5::init();
  OutputFile output(file, "validation file", inputs);
  h5::write_output(output, H5P_DEFAULT, H5P_DEFAULT, [&](h5::File& f) { write_file(result, f); });
}

void write_calibration_hdf5(const CalibrationResult& result, const std::filesystem::path& file,
                            const std::vector<InputFile>& inputs) {
  h5::init();
  OutputFile output(file, "calibration metrics file", inputs);
  h5::write_output(output, H5P_DEFAULT, H5P_DEFAULT, [&](h5::File& f) {
    write_file(result.held_out, f);
    write_calibration(result, f);
  });
}

std::string format_validation_table(const ValidationResult& r) {
  std::string out = fmt::format("{:<26} {:<10} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>10} {:>6}\n", "quantity", "gpu",
                                "n", "mae", "rmse", "bias", "cv_rmse", "nmbe", "max_error", "lag");
  auto row = [&](const QuantityMetrics& q, const std::string& gpu, const ErrorMetrics& m) {
    out += fmt::format("{:<26} {:<10} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>10} {:>6}\n", q.quantity + " [" + q.unit + "]",
                       gpu, m.count, value_text(m.mae), value_text(m.rmse), value_text(m.bias), value_text(m.cv_rmse),
                       value_text(m.nmbe), value_text(m.max_error), value_text(m.lag));
  };
  for (const auto& q : r.metrics) {
    for (std::size_t g = 0; g < q.per_gpu.size(); ++g) row(q, r.gpu_labels[g], q.per_gpu[g]);
    row(q, "all", q.overall);
  }
  out += "phase shares:";
  for (std::size_t q = 0; q < replay_phase_count; ++q)
    out += fmt::format(" {} {:.1f} %", replay_phase_name(static_cast<ReplayPhase>(q)), 100.0 * r.overall_phase_share[q]);
  out += "\n";
  return out;
}

}  // namespace dctwin::io
