// Telemetry: canonical quantities, the line reader, the trace builder, timestamps, format
// detection and the import entry point.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <system_error>

#include "dctwin/core/printable.hpp"
#include "dctwin/io/scenario.hpp"
#include "dctwin/io/units.hpp"
#include "dctwin/io/weather_csv.hpp"
#include "telemetry_internal.hpp"

namespace dctwin::io {

namespace td = telemetry_detail;

std::string_view format_name(TelemetryFormat format) {
  switch (format) {
    case TelemetryFormat::automatic:
      return "auto";
    case TelemetryFormat::nvidia_smi_csv:
      return "nvidia-smi-csv";
    case TelemetryFormat::nvidia_smi_dmon:
      return "nvidia-smi-dmon";
    case TelemetryFormat::dcgmi_dmon:
      return "dcgmi-dmon";
    case TelemetryFormat::prometheus_text:
      return "prometheus";
    case TelemetryFormat::prometheus_json:
      return "prometheus-json";
    case TelemetryFormat::generic_csv:
      return "csv";
  }
  return "auto";
}

std::optional<TelemetryFormat> parse_format_name(std::string_view name) {
  for (auto f : {TelemetryFormat::automatic, TelemetryFormat::nvidia_smi_csv, TelemetryFormat::nvidia_smi_dmon,
                 TelemetryFormat::dcgmi_dmon, TelemetryFormat::prometheus_text, TelemetryFormat::prometheus_json,
                 TelemetryFormat::generic_csv})
    if (format_name(f) == name) return f;
  return std::nullopt;
}

const std::vector<TelemetryQuantity>& telemetry_quantities() {
  // Order matches telemetry_detail::Q.
  static const std::vector<TelemetryQuantity> quantities{
      {"power", "W", "GPU board power (driver average, 1 s on Hopper)"},
      {"power_instant", "W", "GPU board power (instantaneous)"},
      {"power_limit", "W", "enforced power limit"},
      {"energy", "J", "total energy consumed since the driver was loaded"},
      {"gpu_temperature", "K", "GPU core temperature"},
      {"memory_temperature", "K", "HBM memory temperature"},
      {"sm_clock", "Hz", "SM clock"},
      {"memory_clock", "Hz", "memory clock"},
      {"graphics_clock", "Hz", "graphics clock"},
      {"gpu_utilization", "1", "fraction of time a kernel was running"},
      {"memory_utilization", "1", "fraction of time memory was read or written"},
      {"sm_active", "1", "fraction of time at least one warp was active on an SM (SM average)"},
      {"tensor_active", "1", "fraction of cycles the tensor pipes were active"},
      {"clock_event_reasons", "1", "clock-event (throttle) reasons, NVML bitmask"},
  };
  return quantities;
}

const TelemetryQuantity* find_telemetry_quantity(std::string_view name) {
  for (const auto& q : telemetry_quantities())
    if (q.name == name) return &q;
  return nullptr;
}

std::string GpuSeries::label() const {
  return hostname.empty() ? fmt::format("gpu{}", index) : fmt::format("{}:gpu{}", hostname, index);
}

std::size_t TelemetryTrace::sample_count() const {
  std::size_t n = 0;
  for (const auto& g : gpus) n += g.time.size();
  return n;
}

std::optional<std::size_t> TelemetryTrace::quantity_index(std::string_view name) const {
  for (std::size_t i = 0; i < quantities.size(); ++i)
    if (quantities[i] == name) return i;
  return std::nullopt;
}

std::string TelemetryImportOptions::describe() const {
  std::string text = fmt::format("format={} timezone={}", format_name(format), timezone);
  if (!columns.empty()) {
    text += " columns=";
    for (std::size_t i = 0; i < columns.size(); ++i) text += (i ? "," : "") + columns[i];
  }
  if (!map_file.empty()) text += " map=" + map_file;
  if (gpus > 0) text += fmt::format(" gpus={}", gpus);
  text += " interval=" + format_number(interval) + " s";
  text += skip_bad_lines ? " skip-bad-lines=yes" : " skip-bad-lines=no";
  return text;
}

double parse_utc_offset(std::string_view zone) {
  const auto bad = [&]() -> TelemetryError {
    return TelemetryError(fmt::format("invalid time zone '{}' (use UTC or a fixed offset such as +02:00)", zone));
  };
  std::string_view z = td::trim(zone);
  if (z == "UTC" || z == "utc" || z == "Z" || z == "GMT") return 0.0;
  if (z.starts_with("UTC") || z.starts_with("GMT")) z.remove_prefix(3);
  if (z.empty() || (z[0] != '+' && z[0] != '-')) throw bad();
  const double sign = z[0] == '-' ? -1.0 : 1.0;
  z.remove_prefix(1);
  const auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view hh, mm;
  if (const auto colon = z.find(':'); colon != std::string_view::npos) {
    hh = z.substr(0, colon);
    mm = z.substr(colon + 1);
    if (mm.size() != 2) throw bad();
  } else if (z.size() == 4) {
    hh = z.substr(0, 2);
    mm = z.substr(2);
  } else {
    hh = z;
    mm = "00";
  }
  if (!digits(hh) || !digits(mm) || hh.size() > 2) throw bad();
  const int hours = std::stoi(std::string(hh)), minutes = std::stoi(std::string(mm));
  if (hours > 14 || minutes > 59) throw bad();
  return sign * (3600.0 * hours + 60.0 * minutes);
}

namespace telemetry_detail {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split_on(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    fields.push_back(trim(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start)));
    if (at == std::string_view::npos) break;
    start = at + 1;
  }
  return fields;
}

std::vector<std::string_view> split_blanks(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  while (true) {
    pos = text.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos) break;
    const auto end = text.find_first_of(" \t", pos);
    fields.push_back(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end;
  }
  return fields;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void fail(const std::string& label, std::size_t line, const std::string& problem) {
  if (line == 0) throw TelemetryError(label + ": " + problem);
  throw TelemetryError(fmt::format("{}:{}: {}", label, line, problem));
}

LineReader::LineReader(const std::filesystem::path& file, std::string label)
    : in_(file, std::ios::binary), label_(std::move(label)) {
  if (!in_) {
    const int error_number = errno;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
      throw MissingInputError(label_ + ": cannot open telemetry file (No such file or directory)");
    throw MissingInputError(label_ + ": cannot open telemetry file (" +
                            std::generic_category().message(error_number ? error_number : EIO) + ")");
  }
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw MissingInputError(label_ + ": cannot open telemetry file (Is a directory)");
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) return false;
  ++line_number_;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line_number_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // byte order mark
  if (line.find('\0') != std::string::npos) fail(label_, line_number_, "binary data (NUL byte); not a text file");
  if (core::valid_utf8_prefix(line) != line.size()) fail(label_, line_number_, "invalid UTF-8; not a text file");
  return true;
}

double UnitCache::to_si(double value, const std::string& unit, const std::string& si_unit) {
  const auto key = std::make_pair(unit, si_unit);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    const double offset = io::convert(0.0, unit, si_unit);
    const double scale = io::convert(1.0, unit, si_unit) - offset;
    it = cache_.emplace(key, std::make_pair(scale, offset)).first;
  }
  const double si = it->second.first * value + it->second.second;
  // A huge finite value can overflow in the conversion (1e306 kW): refused like `inf` itself.
  if (!std::isfinite(si))
    throw UnitError(UnitError::Reason::not_finite,
                    fmt::format("{} {} is not a finite number in {}", value, unit, si_unit));
  return si;
}

TraceBuilder::TraceBuilder(std::string label, const TelemetryImportOptions& options)
    : label_(std::move(label)), skip_(options.skip_bad_lines), present_(q_count, false) {}

void TraceBuilder::declare(std::size_t quantity) {
  if (present_[quantity]) return;
  present_[quantity] = true;
  for (auto& [key, s] : series_) s.values[quantity].assign(s.time.size(), std::numeric_limits<double>::quiet_NaN());
}

void TraceBuilder::bad_line(std::size_t line, const std::string& problem, bool impossible) {
  if (!skip_) fail(label_, line, problem);
  ++skipped_count_;
  if (impossible) ++impossible_count_;
  // Printed and stored as they are: the cell quoted in the problem is made printable here, as the
  // exception would have made it.
  if (skipped_.size() < 10) skipped_.push_back(core::printable(fmt::format("{}: {}", line, problem)));
}

bool TraceBuilder::add(const GpuKey& gpu, const std::string& uuid, double time, const std::vector<double>& values,
                       std::size_t line) {
  auto [it, inserted] = series_.try_emplace(gpu);
  Series& s = it->second;
  if (inserted) s.values.assign(q_count, {});
  const std::string who =
      gpu.hostname.empty() ? fmt::format("GPU {}", gpu.index) : fmt::format("GPU {} of {}", gpu.index, gpu.hostname);
  if (!uuid.empty()) {
    if (s.uuid.empty()) {
      s.uuid = uuid;
    } else if (s.uuid != uuid) {
      bad_line(line, fmt::format("{} has UUID {}, but earlier samples give {}", who, uuid, s.uuid));
      return false;
    }
  }
  if (!s.time.empty() && time < s.time.back()) {
    bad_line(line, fmt::format("time {} is before the previous sample of {} at {} (line {})", format_time(time), who,
                               format_time(s.time.back()), s.last_line));
    return false;
  }
  if (!s.time.empty() && time == s.time.back()) {
    // Same GPU, same time: the sample completes the previous one; a conflicting value is an error.
    for (std::size_t q = 0; q < q_count; ++q) {
      if (!present_[q]) continue;
      const double old_value = s.values[q].back();
      if (std::isnan(values[q]) || std::isnan(old_value) || old_value == values[q]) continue;
      bad_line(line, fmt::format("duplicate sample of {} at {} with a different {} (line {})", who, format_time(time),
                                 telemetry_quantities()[q].name, s.last_line));
      return false;
    }
    for (std::size_t q = 0; q < q_count; ++q)
      if (present_[q] && !std::isnan(values[q])) s.values[q].back() = values[q];
    return true;
  }
  s.time.push_back(time);
  s.last_line = line;
  for (std::size_t q = 0; q < q_count; ++q)
    if (present_[q]) s.values[q].push_back(values[q]);
  return true;
}

void TraceBuilder::missing(std::string_view field, std::string_view cell) {
  ++missing_count_;
  std::string spelling(trim(cell));
  if (spelling.empty()) spelling = "empty";
  ++missing_[std::make_pair(std::string(field), spelling)];
}

void TraceBuilder::ignored(std::string_view what, const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::string text = fmt::format("ignored {} (not read by dctwin):", what);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i == 10) {
      text += fmt::format(" and {} more", names.size() - 10);
      break;
    }
    text += (i ? ", " : " ") + names[i];
  }
  warn(text);
  if (ignored_text_.empty()) ignored_text_ = fmt::format("{} {}", what, text.substr(text.find(':') + 2));
}

TelemetryTrace TraceBuilder::finish(const TelemetryImportOptions& options) {
  if (std::none_of(present_.begin(), present_.end(), [](bool p) { return p; }) && !ignored_text_.empty())
    fail(label_, 0, fmt::format("no telemetry quantity recognised (ignored {}); docs/telemetry.md lists the "
                                "fields read", ignored_text_));
  if (series_.empty()) fail(label_, 0, "no samples");
  TelemetryTrace trace;
  std::vector<std::size_t> kept;
  for (std::size_t q = 0; q < q_count; ++q)
    if (present_[q]) {
      kept.push_back(q);
      trace.quantities.push_back(telemetry_quantities()[q].name);
    }
  for (auto& [key, s] : series_) {
    GpuSeries g;
    g.index = key.index;
    g.hostname = key.hostname;
    g.uuid = s.uuid;
    g.time = std::move(s.time);
    for (const auto q : kept) g.values.push_back(std::move(s.values[q]));
    trace.gpus.push_back(std::move(g));
  }
  trace.provenance.format = std::string(format_name(format_));
  TelemetryImportOptions used = options;
  used.format = format_;
  trace.provenance.options = used.describe();
  if (missing_count_ > 0) {
    std::string text = fmt::format("missing values: {} (", missing_count_);
    bool first = true;
    for (const auto& [key, count] : missing_) {
      text += fmt::format("{}{} {} {}", first ? "" : ", ", key.first, count, key.second);
      first = false;
    }
    notes_.push_back(text + ")");
  }
  trace.provenance.notes = std::move(notes_);
  trace.provenance.warnings = std::move(warnings_);
  trace.provenance.missing_count = missing_count_;
  trace.provenance.skipped_count = skipped_count_;
  trace.provenance.impossible_count = impossible_count_;
  trace.provenance.skipped = std::move(skipped_);
  return trace;
}

double civil_seconds(int year, int month, int day, int hour, int minute, double second) {
  using namespace std::chrono;
  const year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                            std::chrono::day{static_cast<unsigned>(day)}};
  const auto days = static_cast<double>(sys_days{date}.time_since_epoch().count());
  return 86400.0 * days + 3600.0 * hour + 60.0 * minute + second;
}

std::optional<double> parse_timestamp(std::string_view text, double offset) {
  std::string s(trim(text));
  // nvidia-smi writes the date with slashes: 2025/07/26 23:32:09.703
  if (s.size() >= 10 && s[4] == '/' && s[7] == '/') {
    s[4] = '-';
    s[7] = '-';
  }
  double seconds = 0.0;
  bool has_zone = false;
  if (!parse_iso8601(s, seconds, has_zone)) return std::nullopt;
  return has_zone ? seconds : seconds - offset;
}

std::string format_time(double seconds) {
  if (!std::isfinite(seconds)) return "nan";
  // Outside the years 0000-9999 (a time in a wrong unit, or a damaged file): seconds as a number,
  // since the calendar arithmetic below would overflow.
  if (seconds < -62167219200.0 || seconds >= 253402300800.0) return fmt::format("{} s", seconds);
  const double whole = std::floor(seconds);
  const auto days = static_cast<long long>(std::floor(whole / 86400.0));
  const double in_day = seconds - 86400.0 * static_cast<double>(days);
  using namespace std::chrono;
  const year_month_day date{sys_days{std::chrono::days{days}}};
  const int hour = static_cast<int>(in_day / 3600.0);
  const int minute = static_cast<int>((in_day - 3600.0 * hour) / 60.0);
  const double second = in_day - 3600.0 * hour - 60.0 * minute;
  const auto millis = static_cast<long long>(std::llround(second * 1000.0));
  std::string text =
      fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), hour, minute, millis / 1000);
  if (millis % 1000 != 0) text += fmt::format(".{:03}", millis % 1000);
  return text + "Z";
}

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (std::isnan(value)) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_bitmask(std::string_view text) {
  text = trim(text);
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool is_missing(std::string_view text) {
  const std::string t = lower(trim(text));
  return t.empty() || t == "[n/a]" || t == "n/a" || t == "[not supported]" || t == "not supported" || t == "-" ||
         t == "[unknown error]" || t == "[insufficient permissions]" || t == "[gpu is lost]" ||
         t == "[gpu requires reset]" || t == "gpu requires reset" ||
         t == "[requested functionality has been deprecated]";
}

namespace {

/// The physically possible range of a quantity, in the unit its rule is worded in.
struct PossibleRange {
  double low, high;      ///< in `unit`; -inf / +inf when open
  const char* unit;      ///< shown after the bounds ("" for ratios)
  double scale, offset;  ///< value in `unit` = si * scale + offset
};

// Bounds wide enough for any GPU a training facility runs today or soon, narrow enough to catch a
// sign error, a sentinel or a wrong unit (a kW column read as W stays in range; mW read as W, a
// kelvin reading taken for degC, or kHz for MHz does not).
constexpr double open = std::numeric_limits<double>::infinity();
PossibleRange possible_range(std::size_t quantity) {
  switch (quantity) {
    // Board power, instantaneous or averaged, and its limit: never negative; the largest boards
    // (GB200, B300) are rated 1.2-1.4 kW, so 2 kW per GPU leaves room for the next generation.
    case q_power:
    case q_power_instant:
    case q_power_limit:
      return {0.0, 2000.0, "W", 1.0, 0.0};
    // A counter since the driver was loaded.
    case q_energy:
      return {0.0, open, "J", 1.0, 0.0};
    // A GPU's sensors cannot read colder than its surroundings: -40 degC is the lowest storage
    // temperature of data-centre GPUs and colder than any hall or chiller. 150 degC is above any
    // junction or HBM limit (slowdown near 90 degC, shutdown near 100 degC on H100, silicon's
    // absolute maximum about 125-150 degC). Outside: a sentinel, a K value taken for degC, noise.
    case q_gpu_temperature:
    case q_memory_temperature:
      return {-40.0, 150.0, "degC", 1.0, -273.15};
    // Core clocks: the fastest GPUs boost to about 3 GHz.
    case q_sm_clock:
    case q_graphics_clock:
      return {0.0, 5000.0, "MHz", 1e-6, 0.0};
    // Memory clocks are reported as the data rate of the part: HBM3 2.6 GHz (H100), GDDR6 9 GHz
    // (L40S), GDDR7 14 GHz; 30 GHz leaves room and still catches kHz taken for MHz.
    case q_memory_clock:
      return {0.0, 30000.0, "MHz", 1e-6, 0.0};
    // Shares of time.
    case q_gpu_utilization:
    case q_memory_utilization:
      return {0.0, 100.0, "%", 100.0, 0.0};
    case q_sm_active:
    case q_tensor_active:
      return {0.0, 1.0, "", 1.0, 0.0};
    // A bitmask.
    case q_clock_event_reasons:
      return {0.0, open, "", 1.0, 0.0};
    default:
      return {-open, open, "", 1.0, 0.0};
  }
}

}  // namespace

std::optional<std::string> impossible_value_rule(std::size_t quantity, double si) {
  if (std::isnan(si)) return std::nullopt;
  const PossibleRange r = possible_range(quantity);
  const double shown = si * r.scale + r.offset;
  // A bound met up to rounding in the unit conversion (150 degC via K) is met.
  const auto slack = [](double bound) { return 1e-9 * std::max(1.0, std::abs(bound)); };
  if (shown >= r.low - slack(r.low) && shown <= r.high + slack(r.high)) return std::nullopt;
  const std::string unit = *r.unit ? std::string(" ") + r.unit : std::string();
  if (std::isinf(r.high)) return fmt::format("must be >= {}{}", r.low, unit);
  return fmt::format("must be in [{}, {}]{}", r.low, r.high, unit);
}

void check_possible(std::size_t quantity, double si, std::string_view field, std::string_view cell) {
  if (const auto rule = impossible_value_rule(quantity, si))
    throw ImpossibleValue(fmt::format("{}: {} ({})", field, trim(cell), *rule));
}

bool is_dcgm_blank(double value) {
  // DCGM_INT64_BLANK is 0x7ffffffffffffff0; its neighbours (not found, not supported, ...) sit just
  // above it, and 9223372036854775794 (what exporters print) rounds into the same double range.
  return value >= 9.2233720368547758e18 - 4096.0;
}

}  // namespace telemetry_detail

std::string format_utc_time(double seconds) { return td::format_time(seconds); }

std::optional<TelemetryFormat> detect_telemetry_format(std::string_view head) {
  std::size_t pos = 0;
  bool first_content = true;
  while (pos < head.size()) {
    auto end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    const std::string_view line = td::trim(head.substr(pos, end - pos));
    pos = end + 1;
    if (line.empty()) continue;
    if (first_content && (line.front() == '{' || line.front() == '[')) return TelemetryFormat::prometheus_json;
    first_content = false;
    if (line.starts_with("# HELP") || line.starts_with("# TYPE")) return TelemetryFormat::prometheus_text;
    if (line.starts_with("DCGM_FI_")) return TelemetryFormat::prometheus_text;
    if (line.starts_with("#Entity") || line.starts_with("# Entity")) return TelemetryFormat::dcgmi_dmon;
    if (line.front() == '#') {
      const auto words = td::split_blanks(line.substr(1));
      for (const auto w : words) {
        const std::string l = td::lower(w);
        if (l == "gpu" || l == "idx") return TelemetryFormat::nvidia_smi_dmon;
      }
      continue;
    }
    if (line.starts_with("GPU ")) return TelemetryFormat::dcgmi_dmon;
    // A line holding only a time separates Prometheus scrapes.
    if (line.find_first_of(" \t,") == std::string_view::npos && td::parse_number(line)) continue;
    if (line.find(',') != std::string_view::npos) return TelemetryFormat::nvidia_smi_csv;
    return std::nullopt;
  }
  return std::nullopt;
}

TelemetryTrace import_telemetry(const std::filesystem::path& file, const TelemetryImportOptions& options) {
  const std::string label = file.string();
  if (!(options.interval > 0.0) || !std::isfinite(options.interval))
    throw TelemetryError(fmt::format("invalid interval {} s (must be > 0)", format_number(options.interval)));
  const double offset = parse_utc_offset(options.timezone);

  td::LineReader probe(file, label);
  std::string head, line;
  std::size_t lines = 0;
  bool any_text = false;
  while (lines < 40 && probe.next(line)) {
    ++lines;
    head += line;
    head += '\n';
    if (!td::trim(line).empty()) any_text = true;
  }
  if (!any_text) {
    // Nothing but blank lines (or nothing at all).
    std::string rest;
    while (probe.next(rest))
      if (!td::trim(rest).empty()) {
        any_text = true;
        break;
      }
    if (!any_text) td::fail(label, 0, "file is empty");
  }

  TelemetryFormat format = options.format;
  if (format == TelemetryFormat::automatic && !options.map_file.empty()) format = TelemetryFormat::generic_csv;
  if (format == TelemetryFormat::generic_csv && options.map_file.empty())
    throw TelemetryError("the csv format needs a column map (--map map.yaml)");
  if (format == TelemetryFormat::automatic) {
    const auto detected = detect_telemetry_format(head);
    if (!detected)
      td::fail(label, 0,
               "unknown telemetry format (expected nvidia-smi CSV or dmon, dcgmi dmon, Prometheus text or "
               "query_range JSON; use --format)");
    format = *detected;
  }

  td::TraceBuilder builder(label, options);
  builder.set_format(format);
  if (format == TelemetryFormat::prometheus_json) {
    // JSON is not line-oriented: the file is read whole.
    td::LineReader reader(file, label);
    std::string text;
    while (reader.next(line)) {
      text += line;
      text += '\n';
    }
    td::read_prometheus_json(text, builder);
  } else {
    td::LineReader reader(file, label);
    switch (format) {
      case TelemetryFormat::nvidia_smi_csv:
        td::read_nvidia_smi_csv(reader, builder, options, offset);
        break;
      case TelemetryFormat::nvidia_smi_dmon:
        td::read_nvidia_smi_dmon(reader, builder, options, offset);
        break;
      case TelemetryFormat::dcgmi_dmon:
        td::read_dcgmi_dmon(reader, builder, options);
        break;
      case TelemetryFormat::prometheus_text:
        td::read_prometheus_text(reader, builder, options, offset);
        break;
      case TelemetryFormat::generic_csv:
        td::read_generic_csv(reader, builder, options, offset);
        break;
      default:
        break;
    }
  }
  TelemetryTrace trace = builder.finish(options);
  trace.provenance.source = label;
  return trace;
}

}  // namespace dctwin::io
