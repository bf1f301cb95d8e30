// DCGM telemetry: `dcgmi dmon`, dcgm-exporter's Prometheus text exposition, and Prometheus
// query_range JSON answers of the same metrics.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <tuple>

#include "dctwin/io/units.hpp"
#include "telemetry_internal.hpp"

namespace dctwin::io::telemetry_detail {

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct RowProblem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NamedMetric {
  const char* name;
  MetricMapping mapping;
};

// dcgm-exporter metric names (DCGM field identifiers in brackets).
constexpr NamedMetric dcgm_metrics[] = {
    {"DCGM_FI_DEV_SM_CLOCK", {q_sm_clock, "MHz"}},                         // 100
    {"DCGM_FI_DEV_MEM_CLOCK", {q_memory_clock, "MHz"}},                    // 101
    {"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", {q_clock_event_reasons, "1"}},  // 112
    {"DCGM_FI_DEV_CLOCKS_EVENT_REASONS", {q_clock_event_reasons, "1"}},    // 112 (newer name)
    {"DCGM_FI_DEV_MEMORY_TEMP", {q_memory_temperature, "degC"}},           // 140
    {"DCGM_FI_DEV_GPU_TEMP", {q_gpu_temperature, "degC"}},                 // 150
    {"DCGM_FI_DEV_POWER_USAGE", {q_power, "W"}},                           // 155
    {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {q_energy, "mJ"}},            // 156
    {"DCGM_FI_DEV_POWER_USAGE_INSTANT", {q_power_instant, "W"}},           // 157
    {"DCGM_FI_DEV_POWER_MGMT_LIMIT", {q_power_limit, "W"}},                // 160
    {"DCGM_FI_DEV_GPU_UTIL", {q_gpu_utilization, "%"}},                    // 203
    {"DCGM_FI_DEV_MEM_COPY_UTIL", {q_memory_utilization, "%"}},            // 204
    {"DCGM_FI_PROF_SM_ACTIVE", {q_sm_active, "1"}},                        // 1002
    {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", {q_tensor_active, "1"}},           // 1004
};

// `dcgmi dmon` column headings.
constexpr NamedMetric dmon_columns[] = {
    {"SMCLK", {q_sm_clock, "MHz"}},
    {"MMCLK", {q_memory_clock, "MHz"}},
    {"DVCCTR", {q_clock_event_reasons, "1"}},  // 112, clock-event (throttle) reasons, decimal
    {"MMTMP", {q_memory_temperature, "degC"}},
    {"TMPTR", {q_gpu_temperature, "degC"}},
    {"POWER", {q_power, "W"}},
    {"TOTEC", {q_energy, "mJ"}},
    {"GPUTL", {q_gpu_utilization, "%"}},
    {"MCUTL", {q_memory_utilization, "%"}},
    {"SMACT", {q_sm_active, "1"}},
    {"TENSO", {q_tensor_active, "1"}},
};

/// A number cell of a DCGM source in `unit`, converted to SI; blanks and N/A give NaN.
double dcgm_value(std::string_view cell, const std::string& field, const MetricMapping& m, UnitCache& units) {
  if (is_missing(cell)) return nan;
  const std::string c = lower(trim(cell));
  if (c == "nan") return nan;
  const auto number = parse_number(cell);
  if (!number) throw RowProblem(fmt::format("{}: '{}' is not a number", field, trim(cell)));
  if (!std::isfinite(*number)) throw RowProblem(fmt::format("{}: '{}' is not a finite number", field, trim(cell)));
  if (is_dcgm_blank(*number)) return nan;
  const std::string& si = telemetry_quantities()[m.quantity].unit;
  const std::string unit = m.unit;
  double value = *number;
  if (unit != si && unit != "1") {
    try {
      value = units.to_si(*number, unit, si);
    } catch (const UnitError& e) {
      throw RowProblem(fmt::format("{}: {}", field, e.what()));
    }
  }
  check_possible(m.quantity, value, field, cell);
  return value;
}

int gpu_index(std::string_view text, const std::string& what) {
  const std::string_view t = trim(text);
  int value = -1;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || value < 0)
    throw RowProblem(fmt::format("{} '{}' is not a GPU index", what, t));
  return value;
}

}  // namespace

namespace {

/// One sample of one metric, kept until the whole source is read: Prometheus sources list a
/// metric's samples together, so samples are ordered by GPU and time before they are added.
struct Point {
  GpuKey gpu;
  double time;
  std::size_t quantity;
  double value;
  std::size_t line;
  std::string uuid;
};

void add_points(std::vector<Point>& points, TraceBuilder& builder) {
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return std::tie(a.gpu, a.time) < std::tie(b.gpu, b.time); });
  std::vector<double> values(q_count, nan);
  for (const Point& p : points) {
    std::fill(values.begin(), values.end(), nan);
    values[p.quantity] = p.value;
    builder.add(p.gpu, p.uuid, p.time, values, p.line);
  }
}

}  // namespace

const MetricMapping* find_dcgm_metric(std::string_view name) {
  for (const auto& m : dcgm_metrics)
    if (name == m.name) return &m.mapping;
  return nullptr;
}

void read_dcgmi_dmon(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options) {
  const std::string& label = reader.label();
  std::vector<const MetricMapping*> mapping;  // per value column (after the two entity tokens)
  std::vector<std::string> names;
  UnitCache units;
  std::set<int> in_tick;
  long long tick = 0;
  std::vector<double> values(q_count, nan);
  std::string line;
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    const std::string_view text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      auto words = split_blanks(text.substr(1));
      if (words.empty() || lower(words[0]) != "entity") continue;
      std::vector<std::string> new_names;
      std::vector<const MetricMapping*> new_mapping;
      std::vector<std::string> ignored;
      for (std::size_t i = 1; i < words.size(); ++i) {
        new_names.emplace_back(words[i]);
        const MetricMapping* m = nullptr;
        for (const auto& c : dmon_columns)
          if (words[i] == c.name) m = &c.mapping;
        if (!m) ignored.emplace_back(words[i]);
        new_mapping.push_back(m);
      }
      if (!names.empty() && new_names != names) fail(label, n, "dcgmi dmon header differs from the first one");
      if (names.empty()) {
        names = new_names;
        mapping = new_mapping;
        for (const auto* m : mapping)
          if (m) builder.declare(m->quantity);
        builder.ignored("columns", ignored);
        builder.note(
            fmt::format("no timestamps: sample k is at k x {} s from 0 (--interval); a new sample starts "
                        "when a GPU appears again",
                        format_number(options.interval)));
      }
      continue;
    }
    if (text == "ID" || text == "Id") continue;  // second heading line
    if (names.empty()) fail(label, n, "no dcgmi dmon header line ('#Entity ...') before the first row");
    try {
      const auto cells = split_blanks(text);
      if (cells.size() != names.size() + 2)
        throw RowProblem(fmt::format("expected {} fields, found {}", names.size() + 2, cells.size()));
      if (cells[0] != "GPU") throw RowProblem(fmt::format("entity '{}' is not a GPU", cells[0]));
      const int gpu = gpu_index(cells[1], "GPU id");
      std::fill(values.begin(), values.end(), nan);
      for (std::size_t i = 0; i < names.size(); ++i)
        if (mapping[i]) values[mapping[i]->quantity] = dcgm_value(cells[i + 2], names[i], *mapping[i], units);
      if (in_tick.contains(gpu)) {
        ++tick;
        in_tick.clear();
      }
      in_tick.insert(gpu);
      builder.add(GpuKey{"", gpu}, "", static_cast<double>(tick) * options.interval, values, n);
    } catch (const ImpossibleValue& p) {
      builder.bad_line(n, p.what(), true);
    } catch (const RowProblem& p) {
      builder.bad_line(n, p.what());
    }
  }
}

namespace {

struct PromSample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
  std::optional<double> timestamp_ms;
};

PromSample parse_prom_line(std::string_view text) {
  PromSample s;
  std::size_t pos = 0;
  while (pos < text.size() && text[pos] != '{' && text[pos] != ' ' && text[pos] != '\t') ++pos;
  s.name = std::string(text.substr(0, pos));
  if (s.name.empty()) throw RowProblem("expected a metric name");
  for (const char c : s.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'))
      throw RowProblem(fmt::format("'{}' is not a metric name", s.name));
  if (pos < text.size() && text[pos] == '{') {
    ++pos;
    while (true) {
      while (pos < text.size() && (text[pos] == ' ' || text[pos] == ',')) ++pos;
      if (pos >= text.size()) throw RowProblem("unterminated label set (missing '}')");
      if (text[pos] == '}') {
        ++pos;
        break;
      }
      const auto eq = text.find('=', pos);
      if (eq == std::string_view::npos) throw RowProblem("malformed label set (expected name=\"value\")");
      const std::string key(trim(text.substr(pos, eq - pos)));
      pos = eq + 1;
      if (pos >= text.size() || text[pos] != '"') throw RowProblem(fmt::format("label {}: value not quoted", key));
      ++pos;
      std::string value;
      bool closed = false;
      while (pos < text.size()) {
        const char c = text[pos++];
        if (c == '\\' && pos < text.size()) {
          const char e = text[pos++];
          value += e == 'n' ? '\n' : e;
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value += c;
        }
      }
      if (!closed) throw RowProblem(fmt::format("label {}: unterminated value", key));
      s.labels[key] = value;
    }
  }
  const auto rest = split_blanks(text.substr(pos));
  if (rest.empty()) throw RowProblem(fmt::format("{}: no value", s.name));
  if (rest.size() > 2) throw RowProblem(fmt::format("{}: unexpected text after the value", s.name));
  s.value = std::string(rest[0]);
  if (rest.size() == 2) {
    long long ms = 0;
    const auto t = rest[1];
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), ms);
    if (ec != std::errc() || end != t.data() + t.size())
      throw RowProblem(fmt::format("{}: '{}' is not a timestamp in milliseconds", s.name, t));
    s.timestamp_ms = static_cast<double>(ms);
  }
  return s;
}

}  // namespace

void read_prometheus_text(LineReader& reader, TraceBuilder& builder, const TelemetryImportOptions& options,
                          double offset) {
  UnitCache units;
  std::set<std::string> ignored;
  // Scrapes without time lines and samples without timestamps: a scrape is one sample time.
  using SeriesKey = std::tuple<std::string, std::string, int>;  // metric, host, gpu
  // A listing is the run of lines of one metric family (its # HELP and # TYPE lines and samples).
  std::map<SeriesKey, std::pair<std::size_t, long long>> in_scrape;  // -> line, listing
  std::set<std::string> families_in_scrape;                          // `# HELP`/`# TYPE` names
  std::string family;                                                // of the current listing
  long long listing = 0;
  bool samples_in_listing = false;
  long long scrape = 0;
  std::optional<double> scrape_time;  // from a separator line
  bool separator_seen = false, warned = false;
  std::vector<Point> points;
  std::map<SeriesKey, std::pair<double, std::size_t>> last_of_series;
  std::string line;
  const auto new_scrape = [&] {
    ++scrape;
    in_scrape.clear();
    families_in_scrape.clear();
  };
  while (reader.next(line)) {
    const std::size_t n = reader.line_number();
    const std::string_view text = trim(line);
    if (text.empty()) continue;
    if (text.front() == '#') {
      if (text.starts_with("# HELP ") || text.starts_with("# TYPE ")) {
        const auto words = split_blanks(text.substr(7));
        const std::string name = words.empty() ? std::string() : std::string(words[0]);
        if (name != family || samples_in_listing) {
          // The families of one scrape are listed once each: a family listed again starts the
          // next scrape (when no time line separates them).
          if (!separator_seen && families_in_scrape.contains(name) && !in_scrape.empty()) new_scrape();
          families_in_scrape.insert(name);
          family = name;
          ++listing;
          samples_in_listing = false;
        }
      }
      continue;
    }
    // A scrape separator: a line holding only a time (Unix seconds or an ISO-8601 timestamp).
    if (text.find_first_of(" \t{") == std::string_view::npos) {
      std::optional<double> t = parse_number(text);
      if (t && !std::isfinite(*t)) t.reset();  // `inf` alone is not a scrape time
      if (!t) t = parse_timestamp(text, offset);
      if (t) {
        new_scrape();
        scrape_time = *t;
        separator_seen = true;
        continue;
      }
    }
    try {
      const PromSample s = parse_prom_line(text);
      if (s.name != family) {
        family = s.name;
        ++listing;
      }
      samples_in_listing = true;
      const MetricMapping* m = find_dcgm_metric(s.name);
      if (!m) {
        ignored.insert(s.name);
        continue;
      }
      builder.declare(m->quantity);
      const auto gpu_label = s.labels.find("gpu");
      if (gpu_label == s.labels.end()) throw RowProblem(fmt::format("{}: no gpu label", s.name));
      const int gpu = gpu_index(gpu_label->second, "gpu label");
      std::string host, uuid;
      if (auto h = s.labels.find("Hostname"); h != s.labels.end()) host = h->second;
      if (auto u = s.labels.find("UUID"); u != s.labels.end()) uuid = u->second;
      const double value = dcgm_value(s.value, s.name, *m, units);
      double time = 0.0;
      if (s.timestamp_ms) {
        time = *s.timestamp_ms / 1000.0;
      } else {
        if (!separator_seen) {
          const SeriesKey key{s.name, host, gpu};
          if (const auto seen = in_scrape.find(key); seen != in_scrape.end()) {
            // Within one listing of its family a series given twice is not the next scrape but a
            // second series that differs in labels dctwin does not read (MIG instances, pods).
            if (seen->second.second == listing)
              throw RowProblem(fmt::format("{} of GPU {}{} is listed twice in a row (line {}): series that differ "
                                           "only in other labels (MIG instances, ...) cannot be told apart, nor "
                                           "scrapes without a time line between them",
                                           s.name, gpu, host.empty() ? std::string() : " of " + host,
                                           seen->second.first));
            new_scrape();
          }
          in_scrape.emplace(key, std::make_pair(n, listing));
          if (!warned) {
            builder.warn(fmt::format("samples carry no time: scrape k is placed at k x {} s from "
                                     "1970-01-01T00:00:00Z (--interval); write each scrape's time on a line of "
                                     "its own before it (date +%s)",
                                     format_number(options.interval)));
            warned = true;
          }
          time = static_cast<double>(scrape) * options.interval;
        } else {
          time = *scrape_time;
        }
      }
      const SeriesKey series{s.name, host, gpu};
      if (const auto last = last_of_series.find(series); last != last_of_series.end() && time < last->second.first)
        throw RowProblem(fmt::format("{} of GPU {}: time {} is before the previous sample at {} (line {})", s.name, gpu,
                                     format_time(time), format_time(last->second.first), last->second.second));
      last_of_series[series] = {time, n};
      points.push_back(Point{GpuKey{host, gpu}, time, m->quantity, value, n, uuid});
    } catch (const ImpossibleValue& p) {
      builder.bad_line(n, p.what(), true);
    } catch (const RowProblem& p) {
      builder.bad_line(n, p.what());
    }
  }
  add_points(points, builder);
  builder.ignored("metrics", std::vector<std::string>(ignored.begin(), ignored.end()));
}

// ---------------------------------------------------------------------------------------------
// A small strict JSON reader (RFC 8259) for query_range answers.

namespace {

struct Json {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  double number = 0.0;
  std::string text;  // string value, or the number as written
  std::vector<Json> items;
  // Object members as two parallel lists: a std::pair holding the still incomplete Json is not
  // allowed (clang with libstdc++ refuses it), a std::vector of it is.
  std::vector<std::string> member_names;
  std::vector<Json> member_values;
  std::size_t line = 0;

  [[nodiscard]] const Json* find(std::string_view key) const {
    for (std::size_t k = 0; k < member_names.size(); ++k)
      if (member_names[k] == key) return &member_values[k];
    return nullptr;
  }
};

class JsonParser {
 public:
  JsonParser(const std::string& text, const std::string& label) : text_(text), label_(label) {}

  Json parse() {
    Json value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void error(const std::string& problem) { fail(label_, line_, problem); }

  void skip_space() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') ++line_;
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  Json parse_value(int depth) {
    if (depth > 64) error("JSON nested too deeply");
    skip_space();
    if (pos_ >= text_.size()) error("unexpected end of JSON");
    Json v;
    v.line = line_;
    const char c = text_[pos_];
    if (c == '{') {
      v.kind = Json::Kind::object;
      ++pos_;
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return v;
      }
      while (true) {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != '"') error("expected a quoted member name");
        std::string key = parse_string();
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != ':') error("expected ':' after a member name");
        ++pos_;
        Json value = parse_value(depth + 1);
        v.member_names.push_back(std::move(key));
        v.member_values.push_back(std::move(value));
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return v;
        }
        error("expected ',' or '}' in an object");
      }
    }
    if (c == '[') {
      v.kind = Json::Kind::array;
      ++pos_;
      skip_space();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return v;
      }
      while (true) {
        v.items.push_back(parse_value(depth + 1));
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return v;
        }
        error("expected ',' or ']' in an array");
      }
    }
    if (c == '"') {
      v.kind = Json::Kind::string;
      v.text = parse_string();
      return v;
    }
    if (text_.compare(pos_, 4, "true") == 0) {
      pos_ += 4;
      v.kind = Json::Kind::boolean;
      v.boolean = true;
      return v;
    }
    if (text_.compare(pos_, 5, "false") == 0) {
      pos_ += 5;
      v.kind = Json::Kind::boolean;
      return v;
    }
    if (text_.compare(pos_, 4, "null") == 0) {
      pos_ += 4;
      return v;
    }
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' || text_[pos_] == 'e' ||
            text_[pos_] == 'E' || text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    v.text = text_.substr(start, pos_ - start);
    const auto number = parse_number(v.text);
    if (v.text.empty() || !number || v.text.front() == '+') error("invalid JSON value");
    v.kind = Json::Kind::number;
    v.number = *number;
    return v;
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) error("unterminated JSON string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) error("control character in a JSON string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) error("unterminated JSON string");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) error("invalid \\u escape");
          unsigned code = 0;
          const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16);
          if (ec != std::errc() || end != text_.data() + pos_ + 4) error("invalid \\u escape");
          pos_ += 4;
          // Labels are ASCII in practice; other code points are kept as UTF-8 (BMP only).
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          error("invalid escape in a JSON string");
      }
    }
  }

  const std::string& text_;
  const std::string& label_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

}  // namespace

void read_prometheus_json(const std::string& text, TraceBuilder& builder) {
  const std::string& label = builder.label();
  const Json root = JsonParser(text, label).parse();
  if (root.kind != Json::Kind::object) fail(label, root.line, "expected a JSON object");
  const Json* status = root.find("status");
  if (!status || status->kind != Json::Kind::string) fail(label, root.line, "no \"status\" member");
  if (status->text != "success") {
    const Json* error = root.find("error");
    fail(label, status->line,
         fmt::format("query failed (status '{}'{})", status->text,
                     error && error->kind == Json::Kind::string ? ": " + error->text : std::string()));
  }
  const Json* data = root.find("data");
  if (!data || data->kind != Json::Kind::object) fail(label, root.line, "no \"data\" object");
  const Json* type = data->find("resultType");
  if (!type || type->kind != Json::Kind::string || type->text != "matrix")
    fail(label, type ? type->line : data->line, "resultType must be \"matrix\" (a query_range answer)");
  const Json* result = data->find("result");
  if (!result || result->kind != Json::Kind::array) fail(label, data->line, "no \"result\" array");

  std::vector<Point> points;
  UnitCache units;
  std::set<std::string> ignored;
  for (const Json& series : result->items) {
    try {
      if (series.kind != Json::Kind::object) throw RowProblem("result entry is not an object");
      const Json* metric = series.find("metric");
      const Json* values = series.find("values");
      if (!metric || metric->kind != Json::Kind::object) throw RowProblem("result entry without \"metric\" object");
      if (!values || values->kind != Json::Kind::array) throw RowProblem("result entry without \"values\" array");
      const Json* name = metric->find("__name__");
      if (!name || name->kind != Json::Kind::string)
        throw RowProblem("series without a __name__ label (query the metric by name)");
      const MetricMapping* m = find_dcgm_metric(name->text);
      if (!m) {
        ignored.insert(name->text);
        continue;
      }
      builder.declare(m->quantity);
      const Json* gpu = metric->find("gpu");
      if (!gpu || gpu->kind != Json::Kind::string) throw RowProblem(fmt::format("{}: no gpu label", name->text));
      const int index = gpu_index(gpu->text, "gpu label");
      std::string host, uuid;
      if (const Json* h = metric->find("Hostname"); h && h->kind == Json::Kind::string) host = h->text;
      if (const Json* u = metric->find("UUID"); u && u->kind == Json::Kind::string) uuid = u->text;
      double previous = -std::numeric_limits<double>::infinity();
      for (const Json& pair : values->items) {
        try {
          if (pair.kind != Json::Kind::array || pair.items.size() != 2 || pair.items[0].kind != Json::Kind::number ||
              pair.items[1].kind != Json::Kind::string)
            throw RowProblem("expected [unix_seconds, \"value\"]");
          const double t = pair.items[0].number;
          if (t <= previous)
            throw RowProblem(
                fmt::format("{} of GPU {}: time {} is not after the previous one", name->text, index, format_time(t)));
          previous = t;
          points.push_back(Point{GpuKey{host, index}, t, m->quantity,
                                 dcgm_value(pair.items[1].text, name->text, *m, units), pair.line, uuid});
        } catch (const ImpossibleValue& p) {
          builder.bad_line(pair.line, p.what(), true);
        } catch (const RowProblem& p) {
          builder.bad_line(pair.line, p.what());
        }
      }
    } catch (const RowProblem& p) {
      builder.bad_line(series.line, p.what());
    }
  }
  add_points(points, builder);
  builder.ignored("metrics", std::vector<std::string>(ignored.begin(), ignored.end()));
}

}  // namespace dctwin::io::telemetry_detail
