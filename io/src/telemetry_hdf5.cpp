// HDF5 telemetry files: the canonical trace on one common time grid (the union of every GPU's
// sample times; a GPU not sampled at a time has NaN there).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <system_error>

#include "dctwin/io/report.hpp"
#include "dctwin/io/telemetry.hpp"
#include "hdf5_handles.hpp"

namespace dctwin::io {

namespace {

constexpr const char* group_name = "telemetry";
constexpr int telemetry_file_version = 1;
constexpr std::string_view warning_mark = "warning: ";

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  if (text.empty()) return lines;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

h5::PropertyList chunked(std::span<const hsize_t> chunk) {
  auto dcpl = h5::PropertyList::create(H5P_DATASET_CREATE, "dataset creation");
  h5::check_status(H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()), "cannot configure",
                   dcpl.what());
  h5::check_status(H5Pset_shuffle(dcpl.id()), "cannot configure", dcpl.what());
  h5::check_status(H5Pset_deflate(dcpl.id(), 4), "cannot configure", dcpl.what());
  return dcpl;
}

void write_strings(h5::Group& group, const std::string& name, const std::vector<std::string>& strings) {
  const auto type = h5::Datatype::utf8_string();
  const std::array<hsize_t, 1> dims{strings.size()};
  const auto space = h5::Dataspace::simple(dims);
  auto dataset = h5::Dataset::create(group, name, type.id(), space);
  std::vector<const char*> pointers;
  for (const auto& s : strings) pointers.push_back(s.c_str());
  if (!strings.empty()) dataset.write_all(type.id(), pointers.data());
}

void write_file(const TelemetryTrace& trace, h5::File& file) {
  // The common time grid.
  std::vector<double> grid;
  for (const auto& g : trace.gpus) grid.insert(grid.end(), g.time.begin(), g.time.end());
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  const hsize_t nt = grid.size(), ng = trace.gpus.size();

  file.set_attribute("title", "dctwin GPU telemetry");
  file.set_attribute("dctwin_telemetry_version", static_cast<long long>(telemetry_file_version));
  auto group = h5::Group::create(file, group_name);
  const auto& p = trace.provenance;
  group.set_attribute("source", p.source);
  group.set_attribute("format", p.format);
  group.set_attribute("options", p.options);
  // Warnings are kept among the notes, marked, and split off again when the file is read.
  std::vector<std::string> notes = p.notes;
  for (const auto& w : p.warnings) notes.push_back(std::string(warning_mark) + w);
  group.set_attribute("notes", join(notes));
  group.set_attribute("skipped_line_count", static_cast<long long>(p.skipped_count));
  group.set_attribute("skipped_lines", join(p.skipped));
  group.set_attribute("time_grid", "union of every GPU's sample times; NaN where a GPU has no sample");

  const std::array<hsize_t, 1> time_dims{nt};
  const auto time_space = h5::Dataspace::simple(time_dims);
  auto time = h5::Dataset::create(group, "time", H5T_IEEE_F64LE, time_space);
  if (nt) time.write_all(H5T_NATIVE_DOUBLE, grid.data());
  time.set_attribute("units", "s");
  time.set_attribute("long_name", "time since 1970-01-01T00:00:00Z");
  time.make_scale("time");

  std::vector<std::string> labels, uuids, hosts;
  std::vector<long long> indices;
  for (const auto& g : trace.gpus) {
    labels.push_back(g.label());
    uuids.push_back(g.uuid);
    hosts.push_back(g.hostname);
    indices.push_back(g.index);
  }
  write_strings(group, "gpu", labels);
  auto gpu = h5::Dataset::open(group, "gpu");
  gpu.set_attribute("long_name", "GPU label (host:gpuN or gpuN)");
  gpu.make_scale("gpu");
  write_strings(group, "gpu_uuid", uuids);
  h5::Dataset::open(group, "gpu_uuid").set_attribute("long_name", "GPU UUID (empty when the source gives none)");
  write_strings(group, "gpu_hostname", hosts);
  h5::Dataset::open(group, "gpu_hostname")
      .set_attribute("long_name", "host of the GPU (empty when the source gives none)");
  {
    const std::array<hsize_t, 1> dims{ng};
    const auto space = h5::Dataspace::simple(dims);
    auto dataset = h5::Dataset::create(group, "gpu_index", H5T_STD_I64LE, space);
    if (ng) dataset.write_all(H5T_NATIVE_LLONG, indices.data());
    dataset.set_attribute("units", "1");
    dataset.set_attribute("long_name", "GPU index as numbered by the source");
  }

  // Row of each GPU sample on the grid.
  std::vector<std::vector<std::size_t>> rows(trace.gpus.size());
  for (std::size_t g = 0; g < trace.gpus.size(); ++g)
    for (const double t : trace.gpus[g].time)
      rows[g].push_back(static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), t) - grid.begin()));

  const std::array<hsize_t, 2> dims{nt, ng};
  const auto space = h5::Dataspace::simple(dims);
  std::vector<double> buffer(nt * ng);
  for (std::size_t q = 0; q < trace.quantities.size(); ++q) {
    const TelemetryQuantity* info = find_telemetry_quantity(trace.quantities[q]);
    std::fill(buffer.begin(), buffer.end(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t g = 0; g < trace.gpus.size(); ++g)
      for (std::size_t k = 0; k < rows[g].size(); ++k) buffer[rows[g][k] * ng + g] = trace.gpus[g].values[q][k];
    h5::Dataset dataset;
    if (nt && ng) {
      const std::array<hsize_t, 2> chunk{std::min<hsize_t>(nt, 4096), ng};
      const auto dcpl = chunked(chunk);
      dataset = h5::Dataset::create(group, trace.quantities[q], H5T_IEEE_F64LE, space, dcpl.id());
      dataset.write_all(H5T_NATIVE_DOUBLE, buffer.data());
    } else {
      dataset = h5::Dataset::create(group, trace.quantities[q], H5T_IEEE_F64LE, space);
    }
    dataset.set_attribute("units", info ? info->unit : "1");
    dataset.set_attribute("long_name", info ? info->long_name : trace.quantities[q]);
    dataset.attach_scale(time, 0);
    dataset.attach_scale(gpu, 1);
  }
  // While every object is open: writes their cached chunks, and fails here if that fails.
  file.flush();
}

}  // namespace

void write_telemetry_hdf5(const TelemetryTrace& trace, const std::filesystem::path& file,
                          const std::vector<InputFile>& inputs) {
  h5::init();
  OutputFile output(file, "telemetry file", inputs);
  h5::write_output(output, H5P_DEFAULT, H5P_DEFAULT, [&](h5::File& f) { write_file(trace, f); });
}

TelemetryTrace read_telemetry_hdf5(const std::filesystem::path& path) {
  h5::init();
  const auto file = h5::File::open_read_only(path);
  const auto group = h5::Group::open(file, group_name);
  TelemetryTrace trace;
  auto& p = trace.provenance;
  p.source = group.string_attribute("source");
  p.format = group.string_attribute("format");
  p.options = group.string_attribute("options");
  for (auto& note : split_lines(group.string_attribute("notes"))) {
    if (note.starts_with(warning_mark))
      p.warnings.push_back(note.substr(warning_mark.size()));
    else
      p.notes.push_back(std::move(note));
  }
  p.skipped_count = static_cast<std::size_t>(group.integer_attribute("skipped_line_count"));
  p.skipped = split_lines(group.string_attribute("skipped_lines"));

  const auto time = h5::Dataset::open(group, "time");
  std::vector<double> grid(time.space().element_count());
  if (!grid.empty()) time.read_all(H5T_NATIVE_DOUBLE, grid.data());
  const auto labels = h5::read_strings(h5::Dataset::open(group, "gpu"));
  const auto uuids = h5::read_strings(h5::Dataset::open(group, "gpu_uuid"));
  const auto hosts = h5::read_strings(h5::Dataset::open(group, "gpu_hostname"));
  const auto index_set = h5::Dataset::open(group, "gpu_index");
  std::vector<long long> indices(index_set.space().element_count());
  if (!indices.empty()) index_set.read_all(H5T_NATIVE_LLONG, indices.data());
  const std::size_t ng = labels.size(), nt = grid.size();
  if (uuids.size() != ng || hosts.size() != ng || indices.size() != ng)
    throw ReportError(fmt::format("'{}': GPU tables of different lengths", path.string()));

  std::vector<std::vector<double>> data;  // per quantity, [time x gpu]
  for (const auto& q : telemetry_quantities()) {
    if (!group.exists(q.name)) continue;
    const auto dataset = h5::Dataset::open(group, q.name);
    const auto dims = dataset.space().dims();
    if (dims.size() != 2 || dims[0] != nt || dims[1] != ng)
      throw ReportError(fmt::format("'{}': dataset '{}' is not [time x gpu]", path.string(), q.name));
    std::vector<double> values(nt * ng);
    if (!values.empty()) dataset.read_all(H5T_NATIVE_DOUBLE, values.data());
    trace.quantities.push_back(q.name);
    data.push_back(std::move(values));
  }
  for (std::size_t g = 0; g < ng; ++g) {
    GpuSeries s;
    s.index = static_cast<int>(indices[g]);
    s.uuid = uuids[g];
    s.hostname = hosts[g];
    s.values.resize(data.size());
    for (std::size_t t = 0; t < nt; ++t) {
      bool any = false;
      for (const auto& d : data) any = any || std::isfinite(d[t * ng + g]);
      if (!any) continue;
      s.time.push_back(grid[t]);
      for (std::size_t q = 0; q < data.size(); ++q) s.values[q].push_back(data[q][t * ng + g]);
    }
    trace.gpus.push_back(std::move(s));
  }
  return trace;
}

}  // namespace dctwin::io
