// probe_report: a child process reads a report first, so that libhdf5's faults on damaged files
// (report_probe.hpp) end the child, not the caller.
//
// The child tells the parent what it is doing through a pipe, one line per step:
//   step <what>       about to read <what> (the last one names where a crash or a hang happened)
//   refused <message> the reader refused something with a ReportError (first one only)
//   oom               an allocation failed
//   error <message>   any other exception (a defect)
// and exits 0 (all read), 10 (refused), 11 (out of memory) or 12 (other exception). The parent
// reads the pipe until it closes or the time limit passes, then collects the child's status.
#include "dctwin/io/report_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <new>
#include <optional>
#include <string_view>
#include <thread>

#include "dctwin/io/report.hpp"
#include "hdf5_handles.hpp"

namespace dctwin::io {
namespace {

enum ChildExit : int { child_ok = 0, child_refused = 10, child_out_of_memory = 11, child_error = 12, child_cannot_exec = 127 };

/// Values read at once from a numeric dataset (8 MB of doubles).
constexpr hsize_t block_values = hsize_t{1} << 20;
/// Attributes with more elements are not read (no reader of dctwin reads such attributes).
constexpr hsize_t max_attribute_values = hsize_t{1} << 20;

struct OutOfMemory {};

/// The child's side of the pipe.
class Progress {
 public:
  explicit Progress(int fd) : fd_(fd) {}

  void step(std::string_view what) { line("step", what); }
  void refused(std::string_view message) {
    if (refused_) return;
    refused_ = true;
    line("refused", message);
  }
  void out_of_memory() { line("oom", ""); }
  void error(std::string_view message) { line("error", message); }
  [[nodiscard]] bool any_refused() const { return refused_; }

 private:
  void line(std::string_view kind, std::string_view text) {
    std::string out(kind);
    out += ' ';
    for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
    out += '\n';
    const char* data = out.data();
    std::size_t left = out.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, data, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the parent is gone or stopped listening; keep reading regardless
      data += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  int fd_;
  bool refused_ = false;
};

bool mentions_allocation(std::string_view message) {
  std::string lower(message);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("memory allocation failed") != std::string::npos ||
         lower.find("can't allocate") != std::string::npos || lower.find("unable to allocate") != std::string::npos ||
         lower.find("out of memory") != std::string::npos;
}

/// Runs one step; a ReportError is noted (first one only) and reading goes on with the next step,
/// so that everything a caller may read is touched even when something before it is refused.
template <typename Body>
bool attempt(Progress& progress, Body&& body) {
  try {
    body();
    return true;
  } catch (const ReportError& error) {
    if (mentions_allocation(error.what())) throw OutOfMemory{};
    progress.refused(error.what());
    return false;
  }
}

/// Limits the address space of this process to what it uses now plus `extra` bytes.
void limit_address_space(std::size_t extra) {
  std::size_t pages = 0;
  if (std::ifstream statm("/proc/self/statm"); !(statm >> pages)) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t current = pages * page;
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max =
      extra > RLIM_INFINITY - current ? RLIM_INFINITY : static_cast<rlim_t>(current + extra);
  ::setrlimit(RLIMIT_AS, &limit);
}

/// Reads a numeric dataset in blocks of rows: in full while `budget` allows, else its first and
/// last row.
void read_numeric(const h5::Dataset& dataset, std::size_t& budget) {
  const auto dims = dataset.space().dims();
  double scalar = 0.0;
  if (dims.empty()) {
    dataset.read_all(H5T_NATIVE_DOUBLE, &scalar);
    return;
  }
  hsize_t row = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) {
    if (dims[k] != 0 && row > block_values / dims[k]) return;  // one row alone is too large to read
    row *= dims[k];
  }
  const hsize_t rows = dims[0];
  if (rows == 0 || row == 0) return;
  const bool whole = rows <= budget / row;
  const hsize_t rows_per_block = std::max<hsize_t>(1, block_values / row);
  std::vector<double> buffer;
  auto read_rows = [&](hsize_t first, hsize_t count) {
    std::vector<hsize_t> start(dims.size(), 0), extent(dims);
    start[0] = first;
    extent[0] = count;
    auto file_space = dataset.space();
    file_space.select_hyperslab(start, extent);
    const auto memory_space = h5::Dataspace::simple(extent);
    buffer.resize(static_cast<std::size_t>(count * row));
    dataset.read(H5T_NATIVE_DOUBLE, memory_space, file_space, buffer.data());
  };
  if (whole) {
    budget -= static_cast<std::size_t>(rows * row);
    for (hsize_t first = 0; first < rows; first += rows_per_block) read_rows(first, std::min(rows_per_block, rows - first));
  } else {
    read_rows(0, 1);
    if (rows > 1) read_rows(rows - 1, 1);
  }
}

/// Every attribute of `object` (at `path`), read in full.
void read_attributes(Progress& progress, const h5::Object& object, const std::string& path) {
  std::vector<std::string> names;
  if (!attempt(progress, [&] { names = object.attribute_names(); })) return;
  for (const auto& name : names) {
    const std::string what = fmt::format("attribute '{}' of {}", name, path);
    progress.step(what);
    attempt(progress, [&] {
      const auto attribute = object.open_attribute(name);
      const auto type = attribute.type();
      const auto space = attribute.space();
      const H5T_class_t type_class = type.type_class();
      if (type_class == H5T_STRING) {
        (void)h5::read_strings(attribute, what);
      } else if ((type_class == H5T_INTEGER || type_class == H5T_FLOAT) && space.element_count() <= max_attribute_values) {
        std::vector<double> values(static_cast<std::size_t>(std::max<hsize_t>(space.element_count(), 1)));
        attribute.read(H5T_NATIVE_DOUBLE, values.data());
      }
    });
  }
}

/// The names of a group's members, one by one by index in name order, as the desktop
/// application's validation reader lists them (h5::Group::member_names_by_index): another path through
/// libhdf5 than the walk by H5Lvisit, with faults of its own on damaged link tables.
void list_members_by_index(hid_t group) {
  H5G_info_t info{};
  if (H5Gget_info(group, &info) < 0) return;
  std::string name;
  for (hsize_t k = 0; k < std::min<hsize_t>(info.nlinks, hsize_t{1} << 20); ++k) {
    const ssize_t length = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    if (length <= 0) continue;
    name.assign(static_cast<std::size_t>(length) + 1, '\0');
    H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(), H5P_DEFAULT);
  }
}

/// The child's reading (report_probe.hpp lists what it touches). Returns the child's exit code.
int read_everything(const std::filesystem::path& path, const ReportProbeOptions& options, Progress& progress) {
  h5::init();
  const std::string root = "/";
  // Through ReportReader, as dctwin info and the desktop application read.
  progress.step("the file");
  std::optional<ReportReader> reader;
  attempt(progress, [&] { reader.emplace(path); });
  if (reader) {
    progress.step("attribute 'status' of /");
    attempt(progress, [&] { (void)reader->status(); });
    attempt(progress, [&] { (void)reader->status_reason(); });
  }

  // Every object of the file, with the HDF5 layer the readers share.
  progress.step("the file");
  std::optional<h5::File> file;
  attempt(progress, [&] { file.emplace(h5::File::open_read_only(path)); });
  if (!file) return progress.any_refused() ? child_refused : child_ok;
  progress.step("the attributes of /");
  read_attributes(progress, *file, root);
  progress.step("the members of /");
  list_members_by_index(file->id());
  progress.step("the list of objects");
  std::vector<std::string> objects;
  attempt(progress, [&] { objects = file->walk(); });
  std::size_t budget = options.read_all_data ? options.max_values : 0;
  for (const auto& relative : objects) {
    const std::string object_path = "/" + relative;
    progress.step(object_path);
    H5I_type_t kind = H5I_BADID;
    if (!attempt(progress, [&] { kind = file->object_type(object_path); })) continue;
    if (kind == H5I_GROUP) {
      std::optional<h5::Group> group;
      if (attempt(progress, [&] { group.emplace(h5::Group::open(*file, object_path)); })) {
        read_attributes(progress, *group, object_path);
        progress.step("the members of " + object_path);
        list_members_by_index(group->id());
      }
      continue;
    }
    if (kind != H5I_DATASET) continue;
    std::optional<h5::Dataset> dataset;
    if (!attempt(progress, [&] { dataset.emplace(h5::Dataset::open(*file, object_path)); })) continue;
    read_attributes(progress, *dataset, object_path);
    progress.step(object_path);
    attempt(progress, [&] {
      const auto type = dataset->type();
      (void)dataset->space().dims();
      const H5T_class_t type_class = type.type_class();
      if (type_class == H5T_STRING) {
        if (options.read_strings) (void)h5::read_strings(*dataset);
      } else if ((type_class == H5T_INTEGER || type_class == H5T_FLOAT) && options.read_all_data) {
        read_numeric(*dataset, budget);
      }
    });
  }
  // The rest of what the readers read through ReportReader (after the walk above, which names the
  // object it is at more precisely).
  if (reader) {
    progress.step("the attributes of /");
    attempt(progress, [&] { (void)reader->string_attributes(); });
    attempt(progress, [&] { (void)reader->integer_attributes(); });
    attempt(progress, [&] { (void)reader->double_attributes(); });
    progress.step("the list of datasets");
    std::vector<ReportReader::DatasetInfo> infos;
    attempt(progress, [&] { infos = reader->datasets(); });
    for (const auto& wanted : options.datasets) {
      if (std::none_of(infos.begin(), infos.end(), [&](const auto& info) { return info.path == wanted; })) continue;
      progress.step(wanted);
      attempt(progress, [&] { (void)reader->read(wanted); });
    }
    progress.step("/summary");
    attempt(progress, [&] { (void)reader->summary(); });
  }
  return progress.any_refused() ? child_refused : child_ok;
}

/// The child's whole run, with the exceptions turned into exit codes.
int child_main(const std::filesystem::path& path, const ReportProbeOptions& options, int fd) {
  Progress progress(fd);
  try {
    return read_everything(path, options, progress);
  } catch (const OutOfMemory&) {
    progress.out_of_memory();
    return child_out_of_memory;
  } catch (const std::bad_alloc&) {
    progress.out_of_memory();
    return child_out_of_memory;
  } catch (const std::exception& e) {
    progress.error(e.what());
    return child_error;
  } catch (...) {
    progress.error("unknown exception");
    return child_error;
  }
}

/// Signal dispositions and limits of the child, set between fork and exec: system calls only
/// (async-signal-safe), since the parent may have other threads.
void prepare_child(double timeout_seconds) noexcept {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  for (const int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU, SIGINT, SIGTERM, SIGPIPE, SIGHUP}) {
    ::sigaction(s, &default_action, nullptr);
  }
  // Whatever the child would print (a sanitizer's report in such builds) is not the caller's
  // output: the caller prints the verdict.
  if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, STDERR_FILENO);
    ::close(null);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  rlimit none_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &none_core);
  const auto cpu = static_cast<rlim_t>(std::ceil(std::max(timeout_seconds, 1.0))) + 1;
  rlimit cpu_limit{cpu, cpu + 1};  // SIGXCPU, then SIGKILL a second later
  ::setrlimit(RLIMIT_CPU, &cpu_limit);
}

std::string signal_name(int signal) {
  if (const char* abbreviation = ::sigabbrev_np(signal)) return std::string("SIG") + abbreviation;
  return fmt::format("signal {}", signal);
}

std::string format_mib(std::size_t bytes) { return fmt::format("{} MiB", bytes >> 20); }

std::string format_seconds(double seconds) { return fmt::format("{:g} s", seconds); }

/// The arguments of the helper program: report_probe_main reads them back.
std::vector<std::string> helper_arguments(const std::filesystem::path& path, const ReportProbeOptions& options) {
  std::vector<std::string> arguments{options.helper.string(),
                                     "--timeout",
                                     fmt::format("{:.17g}", options.timeout_seconds),
                                     "--memory",
                                     std::to_string(options.memory_limit_bytes),
                                     "--strings",
                                     options.read_strings ? "1" : "0",
                                     "--all-data",
                                     options.read_all_data ? "1" : "0",
                                     "--max-values",
                                     std::to_string(options.max_values)};
  for (const auto& dataset : options.datasets) {
    arguments.emplace_back("--dataset");
    arguments.push_back(dataset);
  }
  arguments.emplace_back("--");
  arguments.push_back(path.string());
  return arguments;
}

}  // namespace

ReportProbe probe_report(const std::filesystem::path& path, const ReportProbeOptions& options) {
  using Clock = std::chrono::steady_clock;
  ReportProbe result;
  // Everything the child needs is prepared here: between fork and exec only system calls happen.
  std::vector<std::string> arguments;
  std::vector<char*> argv;
  if (!options.helper.empty()) {
    arguments = helper_arguments(path, options);
    for (auto& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.outcome = ReportProbe::Outcome::failed;
    result.message = fmt::format("cannot check the report: pipe: {}", std::strerror(errno));
    return result;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    result.outcome = ReportProbe::Outcome::failed;
    result.message = fmt::format("cannot check the report: fork: {}", std::strerror(error));
    return result;
  }
  if (child == 0) {
    ::close(fds[0]);
    prepare_child(options.timeout_seconds);
    if (!argv.empty()) {
      // dup2 clears close-on-exec on the copy: the helper writes its progress to standard output.
      if (::dup2(fds[1], STDOUT_FILENO) < 0) ::_exit(child_cannot_exec);
      ::execv(argv[0], argv.data());
      ::_exit(child_cannot_exec);
    }
    // A copy of the caller, which must have no other thread that could hold a lock (see
    // ReportProbeOptions::helper). _exit: no atexit handlers, no flushing of the caller's buffers.
    limit_address_space(options.memory_limit_bytes);
    ::_exit(child_main(path, options, fds[1]));
  }
  ::close(fds[1]);

  // Progress until the child closes its end (it ended) or the time is up.
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(options.timeout_seconds, 0.0)));
  // What the child said, taken line by line as it arrives (a damaged file may list millions of
  // objects: only the last step is kept).
  std::string pending;
  std::string refusal;
  std::string error;
  bool out_of_memory = false;
  bool heard = false;
  auto take_lines = [&] {
    std::size_t position = 0;
    while (true) {
      const std::size_t end = pending.find('\n', position);
      if (end == std::string::npos) break;
      const std::string_view line(pending.data() + position, end - position);
      position = end + 1;
      const std::size_t space = line.find(' ');
      const std::string_view kind = line.substr(0, space);
      const std::string_view text = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
      if (kind == "step") result.where = text;
      if (kind == "refused" && refusal.empty()) refusal = text;
      if (kind == "oom") out_of_memory = true;
      if (kind == "error") error = text;
    }
    pending.erase(0, position);
  };
  bool timed_out = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd watch{fds[0], POLLIN, 0};
    const int ready = ::poll(&watch, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // end of file: the child has ended (or closed its output)
    heard = true;
    pending.append(buffer, static_cast<std::size_t>(n));
    take_lines();
  }
  ::close(fds[0]);
  int status = 0;
  bool reaped = false;
  bool lost = false;  // the child was reaped elsewhere (SIGCHLD ignored): its status is unknown
  if (!timed_out) {
    // Its output closed: the child has ended, or is about to; wait for it until the deadline.
    while (true) {
      const pid_t done = ::waitpid(child, &status, WNOHANG);
      if (done == child) {
        reaped = true;
        break;
      }
      if (done < 0 && errno != EINTR) {
        lost = true;
        break;
      }
      if (Clock::now() >= deadline) {
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  if (!reaped && !lost) {
    ::kill(child, SIGKILL);
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }

  const std::string where = result.where.empty() ? std::string("the file") : result.where;
  using Outcome = ReportProbe::Outcome;
  if (timed_out) {
    result.outcome = Outcome::timed_out;
    result.message = fmt::format("damaged: reading did not finish within {} (while reading {})",
                                 format_seconds(options.timeout_seconds), where);
    return result;
  }
  if (lost) {
    result.outcome = Outcome::failed;
    result.message = "cannot check the report: its reading process was collected elsewhere";
    return result;
  }
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    if (result.signal == SIGXCPU) {
      result.outcome = Outcome::timed_out;
      result.message = fmt::format("damaged: reading used more than {} of processor time (while reading {})",
                                   format_seconds(std::ceil(std::max(options.timeout_seconds, 1.0)) + 1), where);
      return result;
    }
    result.outcome = Outcome::crashed;
    result.message = fmt::format("damaged: libhdf5 crashed ({}) while reading {}", signal_name(result.signal), where);
    return result;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == child_ok) {
    result.where.clear();
    return result;
  }
  if (code == child_refused) {
    result.outcome = Outcome::refused;
    result.message = refusal;
    return result;
  }
  if (code == child_out_of_memory || out_of_memory) {
    result.outcome = Outcome::out_of_memory;
    result.message = fmt::format("damaged: reading needed more than {} of memory (while reading {})",
                                 format_mib(options.memory_limit_bytes), where);
    return result;
  }
  if (code == child_cannot_exec && !options.helper.empty() && !heard) {
    result.outcome = Outcome::failed;
    result.message = fmt::format("cannot check the report: cannot run {}", options.helper.string());
    return result;
  }
  result.outcome = Outcome::crashed;
  result.message = code == child_error
                       ? fmt::format("damaged: reading failed ({}) while reading {}", error, where)
                       : fmt::format("damaged: the reader stopped with exit status {} while reading {}", code, where);
  return result;
}

int report_probe_main(int argc, char** argv) {
  ReportProbeOptions options;
  std::filesystem::path path;
  bool have_path = false;
  for (int k = 1; k < argc; ++k) {
    const std::string_view argument = argv[k];
    const char* value = k + 1 < argc ? argv[k + 1] : nullptr;
    if (argument == "--" && value != nullptr) {
      path = value;
      have_path = true;
      break;
    }
    if (value == nullptr) break;
    ++k;
    if (argument == "--timeout") options.timeout_seconds = std::strtod(value, nullptr);
    else if (argument == "--memory") options.memory_limit_bytes = std::strtoull(value, nullptr, 10);
    else if (argument == "--strings") options.read_strings = std::string_view(value) == "1";
    else if (argument == "--all-data") options.read_all_data = std::string_view(value) == "1";
    else if (argument == "--max-values") options.max_values = std::strtoull(value, nullptr, 10);
    else if (argument == "--dataset") options.datasets.emplace_back(value);
  }
  if (!have_path) {
    std::fprintf(stderr,
                 "usage: %s [--timeout S] [--memory BYTES] [--strings 0|1] [--all-data 0|1] [--max-values N] "
                 "[--dataset PATH]... -- REPORT\n(run by the programs that read reports; see "
                 "dctwin/io/report_probe.hpp)\n",
                 argc > 0 ? argv[0] : "dctwin-report-probe");
    return 64;
  }
  limit_address_space(options.memory_limit_bytes);
  return child_main(path, options, STDOUT_FILENO);
}

}  // namespace dctwin::io
