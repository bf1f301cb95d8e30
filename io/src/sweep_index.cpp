// The sweep index: one HDF5 table of every member's parameters, status and summary figures,
// rebuilt from the member reports (see sweep_run.hpp for the layout).
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <system_error>

#include "dctwin/io/sweep_run.hpp"
#include "dctwin/io/version.hpp"
#include "hdf5_handles.hpp"
#include "parameter_rules.hpp"
#include "sweep_internal.hpp"

namespace dctwin::io {

namespace fs = std::filesystem;

namespace {

constexpr long long index_version = 1;
constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();

struct NumericColumn {
  std::string units;
  std::string long_name;
  std::vector<double> values;
};

h5::PropertyList ordered_group_properties(hid_t cls, const char* what) {
  auto plist = h5::PropertyList::create(cls, what);
  h5::check_status(H5Pset_obj_track_times(plist.id(), 0), "cannot configure", plist.what());
  h5::check_status(H5Pset_link_creation_order(plist.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED),
                   "cannot configure", plist.what());
  return plist;
}

class IndexFile {
 public:
  IndexFile(h5::File& file, std::size_t rows) : rows_(rows), file_(file) {
    gcpl_ = ordered_group_properties(H5P_GROUP_CREATE, "group creation");
    dcpl_ = h5::PropertyList::create(H5P_DATASET_CREATE, "dataset creation");
    h5::check_status(H5Pset_obj_track_times(dcpl_.id(), 0), "cannot configure", dcpl_.what());
    text_type_ = h5::Datatype::utf8_string();
  }

  h5::File& file() { return file_; }

  h5::Group group(const std::string& name) { return h5::Group::create(file_, name, gcpl_.id()); }

  h5::Dataset strings(const h5::Object& parent, const std::string& name, const std::vector<std::string>& values,
                      const std::string& long_name) {
    const hsize_t dims[1] = {rows_};
    const auto space = h5::Dataspace::simple(dims);
    auto dataset = h5::Dataset::create(parent, name, text_type_.id(), space, dcpl_.id());
    std::vector<const char*> pointers;
    pointers.reserve(values.size());
    for (const auto& value : values) pointers.push_back(value.c_str());
    if (!pointers.empty()) dataset.write_all(text_type_.id(), pointers.data());
    describe(dataset, "1", long_name);
    return dataset;
  }

  h5::Dataset numbers(const h5::Object& parent, const std::string& name, const std::vector<double>& values,
                      const std::string& units, const std::string& long_name) {
    const hsize_t dims[1] = {rows_};
    const auto space = h5::Dataspace::simple(dims);
    auto dataset = h5::Dataset::create(parent, name, H5T_IEEE_F64LE, space, dcpl_.id());
    if (!values.empty()) dataset.write_all(H5T_NATIVE_DOUBLE, values.data());
    describe(dataset, units, long_name);
    return dataset;
  }

  /// Unsigned 64-bit integers (H5T_STD_U64LE), exact over their whole range (seeds).
  h5::Dataset unsigned_numbers(const h5::Object& parent, const std::string& name, const std::vector<std::uint64_t>& values,
                               const std::string& long_name) {
    const hsize_t dims[1] = {rows_};
    const auto space = h5::Dataspace::simple(dims);
    auto dataset = h5::Dataset::create(parent, name, H5T_STD_U64LE, space, dcpl_.id());
    if (!values.empty()) dataset.write_all(H5T_NATIVE_UINT64, values.data());
    describe(dataset, "1", long_name);
    return dataset;
  }

  void text(const h5::Object& parent, const std::string& name, const std::string& value, const std::string& long_name,
            const std::string& file_label) {
    const auto space = h5::Dataspace::scalar();
    auto dataset = h5::Dataset::create(parent, name, text_type_.id(), space, dcpl_.id());
    const char* pointer = value.c_str();
    dataset.write_all(text_type_.id(), &pointer);
    describe(dataset, "1", long_name);
    dataset.set_attribute("file", file_label);
    dataset.close();
  }

 private:
  static void describe(h5::Dataset& dataset, const std::string& units, const std::string& long_name) {
    dataset.set_attribute("units", units);
    dataset.set_attribute("long_name", long_name);
  }

  hsize_t rows_;
  h5::File& file_;
  h5::PropertyList gcpl_;
  h5::PropertyList dcpl_;
  h5::Datatype text_type_;
};

void write_index_file(h5::File& file, const SweepPlan& plan, const std::vector<MemberRecord>& records,
                      const SweepCounts& counts) {
  const std::size_t rows = plan.members.size();
  IndexFile index(file, rows);

  file.set_attribute("title", "dctwin sweep index: " + plan.name);
  file.set_attribute("Conventions", "CF-1.8");
  file.set_attribute("dctwin_sweep_index_version", index_version);
  file.set_attribute("dctwin_version", version());
  file.set_attribute("sweep_name", plan.name);
  file.set_attribute("sweep_description", plan.description);
  file.set_attribute("sweep_file", plan.file);
  file.set_attribute("base_scenario", plan.base_file);
  file.set_attribute("design", to_string(plan.design));
  file.set_attribute("design_description", plan.design_text());
  file.set_unsigned_attribute("seed", plan.seed);
  file.set_attribute("samples", static_cast<long long>(plan.samples));
  file.set_attribute("members", static_cast<long long>(rows));
  file.set_attribute("complete", static_cast<long long>(counts.complete));
  file.set_attribute("incomplete", static_cast<long long>(counts.incomplete));
  file.set_attribute("failed", static_cast<long long>(counts.failed));
  file.set_attribute("missing", static_cast<long long>(counts.missing));

  std::vector<std::string> ids, status, reason, report;
  std::vector<double> end_time, wall_time;
  for (std::size_t i = 0; i < rows; ++i) {
    ids.push_back(plan.members[i].id);
    status.emplace_back(to_string(records[i].status));
    reason.push_back(records[i].reason);
    report.push_back("members/" + plan.members[i].id + ".h5");
    end_time.push_back(records[i].end_time);
    wall_time.push_back(records[i].wall_time);
  }
  auto member = index.strings(file, "member", ids, "sweep member id");
  member.make_scale("member");
  std::vector<h5::Dataset> columns;
  columns.push_back(index.strings(file, "status", status, "member status: complete, incomplete, failed or missing"));
  columns.push_back(index.strings(file, "reason", reason, "why the member is not complete"));
  columns.push_back(index.strings(file, "report", report, "member report, relative to the sweep directory"));
  columns.push_back(index.numbers(file, "end_time", end_time, "s", "simulated time reached"));
  columns.push_back(index.numbers(file, "wall_time", wall_time, "s", "wall-clock time of the member's run"));

  {
    auto group = index.group("parameters");
    for (std::size_t p = 0; p < plan.parameters.size(); ++p) {
      const auto& parameter = plan.parameters[p];
      const bool text = parameter.spec.kind == core::ParameterKind::choice ||
                        parameter.spec.kind == core::ParameterKind::text;
      const std::string long_name = parameter.key + ": " + parameter.spec.doc;
      if (text) {
        std::vector<std::string> values;
        for (const auto& m : plan.members) values.push_back(m.written[p]);
        columns.push_back(index.strings(group, parameter.key, values, long_name));
      } else if (parameter.spec.kind == core::ParameterKind::unsigned_integer) {
        // Seeds exactly, from the text each member was given (a double would round those above
        // 2^53); 0 for a value that is not a seed, whose member failed (see status and reason).
        std::vector<std::uint64_t> values;
        for (const auto& m : plan.members) {
          std::uint64_t value = 0;
          if (rules::unsigned_problem(m.written[p], value)) value = 0;
          values.push_back(value);
        }
        columns.push_back(index.unsigned_numbers(group, parameter.key, values, long_name));
      } else {
        std::vector<double> values;
        for (const auto& m : plan.members) values.push_back(m.si[p]);
        const std::string units = parameter.spec.kind == core::ParameterKind::real ? parameter.spec.unit : "1";
        columns.push_back(index.numbers(group, parameter.key, values, units, long_name));
      }
      columns.back().set_attribute("key", parameter.key);
    }
    group.close();
  }

  {
    std::vector<std::string> order;
    std::map<std::string, NumericColumn> figures;
    for (std::size_t i = 0; i < rows; ++i) {
      for (const auto& figure : records[i].summary) {
        auto it = figures.find(figure.name);
        if (it == figures.end()) {
          order.push_back(figure.name);
          it = figures.emplace(figure.name, NumericColumn{figure.unit, figure.long_name,
                                                          std::vector<double>(rows, not_a_number)})
                   .first;
        }
        it->second.values[i] = figure.value;
      }
    }
    auto group = index.group("summary");
    for (const auto& name : order) {
      const auto& column = figures.at(name);
      columns.push_back(index.numbers(group, name, column.values, column.units, column.long_name));
    }
    group.close();
  }
  for (auto& column : columns) {
    column.attach_scale(member, 0);
    column.close();
  }
  member.close();

  {
    auto group = index.group("sweep");
    index.text(group, "source", plan.source_text, "sweep file as written", plan.file);
    index.text(group, "base", plan.base_text, "base scenario as written", plan.base_file);
    group.close();
  }
  file.flush();  // while every object is open (h5::write_output)
}

}  // namespace

SweepCounts write_sweep_index(const SweepPlan& plan, const fs::path& dir) {
  std::vector<MemberRecord> records;
  records.reserve(plan.members.size());
  SweepCounts counts;
  for (std::size_t i = 0; i < plan.members.size(); ++i) {
    records.push_back(inspect_sweep_member(plan, i, dir));
    switch (records.back().status) {
      case MemberStatus::complete:
        ++counts.complete;
        break;
      case MemberStatus::incomplete:
        ++counts.incomplete;
        break;
      case MemberStatus::failed:
        ++counts.failed;
        break;
      case MemberStatus::missing:
        ++counts.missing;
        break;
    }
  }
  h5::init();
  OutputFile output(dir / "index.h5", "index");
  auto fapl = h5::PropertyList::create(H5P_FILE_ACCESS, "file access");
  h5::check_status(H5Pset_libver_bounds(fapl.id(), H5F_LIBVER_V18, H5F_LIBVER_V18), "cannot configure", fapl.what());
  h5::check_status(H5Pset_file_locking(fapl.id(), 1, 1), "cannot configure", fapl.what());
  const auto fcpl = ordered_group_properties(H5P_FILE_CREATE, "file creation");
  h5::write_output(output, fcpl.id(), fapl.id(), [&](h5::File& file) { write_index_file(file, plan, records, counts); });
  return counts;
}

SweepIndex read_sweep_index(const fs::path& path) {
  h5::init();
  SweepIndex index;
  try {
    const auto file = h5::File::open_read_only(path);
    for (const auto& name : file.attribute_names()) {
      const auto attribute = file.open_attribute(name);
      const H5T_class_t cls = attribute.type().type_class();
      if (cls == H5T_STRING) index.string_attributes[name] = file.string_attribute(name);
      else if (cls == H5T_INTEGER && attribute.type().is_unsigned_integer())
        index.unsigned_attributes[name] = file.unsigned_attribute(name);
      else if (cls == H5T_INTEGER) index.integer_attributes[name] = file.integer_attribute(name);
    }
    const auto strings = [&](const char* name) { return h5::read_strings(h5::Dataset::open(file, name)); };
    const auto numbers = [](const h5::Dataset& dataset) {
      std::vector<double> values(static_cast<std::size_t>(dataset.space().element_count()));
      if (!values.empty()) dataset.read_all(H5T_NATIVE_DOUBLE, values.data());
      return values;
    };
    index.member = strings("member");
    index.status = strings("status");
    index.reason = strings("reason");
    index.report = strings("report");
    index.end_time = numbers(h5::Dataset::open(file, "end_time"));
    index.wall_time = numbers(h5::Dataset::open(file, "wall_time"));
    for (auto [group_name, columns] : {std::pair{"parameters", &index.parameters}, std::pair{"summary", &index.summary}}) {
      const auto group = h5::Group::open(file, group_name);
      for (const auto& name : group.member_names()) {
        const auto dataset = h5::Dataset::open(group, name);
        SweepIndex::Column column;
        column.name = name;
        column.units = dataset.string_attribute("units");
        column.long_name = dataset.string_attribute("long_name");
        column.is_text = dataset.type().type_class() == H5T_STRING;
        if (column.is_text) {
          column.text = h5::read_strings(dataset);
        } else {
          column.values = numbers(dataset);
          if (dataset.type().is_unsigned_integer()) {
            column.unsigned_values.resize(column.values.size());
            if (!column.values.empty()) dataset.read_all(H5T_NATIVE_UINT64, column.unsigned_values.data());
          }
        }
        columns->push_back(std::move(column));
      }
    }
  } catch (const ReportError& error) {
    throw ReportError(path.string() + ": " + error.what());
  }
  return index;
}

}  // namespace dctwin::io
