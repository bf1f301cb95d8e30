#include "dctwin/io/output_file.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <system_error>

#include "dctwin/io/report.hpp"

namespace dctwin::io {

namespace fs = std::filesystem;

namespace {

// The temporaries not yet committed or discarded, for remove_output_temporaries(), which runs in
// a signal handler: fixed storage (a handler must not allocate or follow a pointer another thread
// may free) and a lock-free state per slot. A process with more temporaries at once than slots
// (sweeps with many threads) leaves the extra ones to the owners' own clean-up.
enum SlotState : int { slot_free, slot_filling, slot_armed, slot_removing };
struct Slot {
  std::atomic<int> state{slot_free};
  std::array<char, PATH_MAX> path{};
  dev_t device = 0;
  ino_t inode = 0;
};
std::array<Slot, 64> slots;
static_assert(std::atomic<int>::is_always_lock_free);

int arm_slot(const fs::path& path, dev_t device, ino_t inode) {
  const std::string& text = path.native();
  if (text.size() >= PATH_MAX) return -1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    int expected = slot_free;
    if (!slots[i].state.compare_exchange_strong(expected, slot_filling)) continue;
    std::memcpy(slots[i].path.data(), text.c_str(), text.size() + 1);
    slots[i].device = device;
    slots[i].inode = inode;
    slots[i].state.store(slot_armed);
    return static_cast<int>(i);
  }
  return -1;
}

void release_slot(int slot) noexcept {
  if (slot < 0) return;
  int expected = slot_armed;
  // Fails only while a signal handler removes the file; the process is then ending.
  (void)slots[static_cast<std::size_t>(slot)].state.compare_exchange_strong(expected, slot_free);
}

/// Removes `path` if it is still the file (device, inode) this process created: the name may have
/// been replaced by someone else's file, which is not ours to delete. Async-signal-safe. (Between
/// the check and the unlink the name can still be swapped; only a writer of the directory can do
/// that, and the window is a few instructions.)
void unlink_if_ours(const char* path, dev_t device, ino_t inode) noexcept {
  struct stat st {};
  if (::lstat(path, &st) != 0) return;
  if (st.st_dev != device || st.st_ino != inode) return;
  (void)::unlink(path);
}

std::string reason_text(int error) { return std::strerror(error); }

std::string file_kind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::string describe_target(std::string_view kind, const fs::path& target) {
  return kind.empty() ? fmt::format("'{}'", target.string()) : fmt::format("{} '{}'", kind, target.string());
}

[[noreturn]] void cannot_create(std::string_view kind, const fs::path& target, const std::string& reason) {
  throw ReportError(fmt::format("cannot create {}: {}", describe_target(kind, target), reason));
}

fs::path directory_of(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

bool is_character_device(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

/// Six characters from [0-9A-Za-z], as mkstemp() uses.
std::string random_tag() {
  static constexpr char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::array<unsigned char, 6> bytes{};
  if (::getrandom(bytes.data(), bytes.size(), GRND_NONBLOCK) != static_cast<ssize_t>(bytes.size())) {
    // No entropy yet (early boot): a counter and the pid still differ between processes, and
    // O_EXCL catches what they do not.
    static std::atomic<unsigned> counter{0};
    unsigned long long mix = (static_cast<unsigned long long>(::getpid()) << 20) ^ counter.fetch_add(7919);
    for (auto& b : bytes) b = static_cast<unsigned char>(mix >>= 5);
  }
  std::string tag;
  for (const unsigned char b : bytes) tag += alphabet[b % (sizeof alphabet - 1)];
  return tag;
}

}  // namespace

void check_output_path(const fs::path& target, std::string_view kind, const std::vector<InputFile>& inputs) {
  const std::string& text = target.native();
  if (text.empty()) cannot_create(kind, target, "the file name is empty");
  if (text.back() == '/') cannot_create(kind, target, "the name ends in '/' (a file name is needed, not a directory)");
  struct stat st {};
  bool device = false;
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) cannot_create(kind, target, "it is a directory");
    if (S_ISCHR(st.st_mode)) {
      device = true;
      // Written through at the end (the device is never replaced).
      if (::access(target.c_str(), W_OK) != 0) cannot_create(kind, target, reason_text(errno));
    } else if (!S_ISREG(st.st_mode)) {
      cannot_create(kind, target, "it exists and is " + file_kind(st.st_mode) + " (only a regular file is replaced)");
    }
  } else {
    const int error = errno;
    if (error != ENOENT) cannot_create(kind, target, reason_text(error));
    const fs::path directory = directory_of(target);
    struct stat dir {};
    if (::stat(directory.c_str(), &dir) != 0) {
      const int dir_error = errno;
      if (dir_error == ENOENT) cannot_create(kind, target, "directory '" + directory.string() + "' does not exist");
      cannot_create(kind, target, reason_text(dir_error));
    }
    if (!S_ISDIR(dir.st_mode)) cannot_create(kind, target, "'" + directory.string() + "' is not a directory");
  }
  if (!device && ::access(directory_of(target).c_str(), W_OK | X_OK) != 0)
    cannot_create(kind, target, reason_text(errno));
  for (const auto& input : inputs) {
    if (input.path.empty()) continue;
    std::error_code error;
    if (fs::equivalent(target, input.path, error) && !error)
      cannot_create(kind, target,
                    "it is the " + input.role + " file this command reads (an output must not replace an input)");
  }
}

OutputFile::OutputFile(fs::path target, std::string kind, const std::vector<InputFile>& inputs)
    : target_(std::move(target)), kind_(std::move(kind)) {
  check_output_path(target_, kind_, inputs);
  to_character_device_ = is_character_device(target_);
  // The temporary lives next to the target, so that the rename is atomic and stays on the same
  // file system; for a device, in the temporary directory (not in /dev).
  std::error_code ignored;
  const fs::path directory = to_character_device_ ? fs::temp_directory_path(ignored) : directory_of(target_);
  const std::string name = target_.filename().string();
  // SIGINT and SIGTERM wait until the temporary is in the table remove_output_temporaries()
  // reads: a handler running between the creation and the registration would miss it.
  sigset_t stop_signals, previous;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, &previous);
  struct Unblock {
    const sigset_t& previous;
    ~Unblock() { pthread_sigmask(SIG_SETMASK, &previous, nullptr); }
  } unblock{previous};
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path candidate = directory / ("." + name + "." + random_tag() + ".part");
    // O_EXCL: never an existing file, nor a link planted at the name (O_NOFOLLOW says so twice).
    const int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      cannot_create(kind_, target_, reason_text(errno));
    }
    struct stat st {};
    (void)::fstat(fd, &st);
    fd_ = fd;
    device_ = st.st_dev;
    inode_ = st.st_ino;
    temporary_ = std::move(candidate);
    slot_ = arm_slot(temporary_, device_, inode_);
    return;
  }
  cannot_create(kind_, target_, "no unused temporary name in '" + directory.string() + "'");
}

OutputFile::~OutputFile() { discard(); }

fs::path OutputFile::open_path() const {
  const fs::path via_descriptor = "/proc/self/fd/" + std::to_string(fd_);
  struct stat st {};
  if (fd_ >= 0 && ::stat(via_descriptor.c_str(), &st) == 0 && st.st_dev == device_ && st.st_ino == inode_)
    return via_descriptor;
  // Without /proc the library opens the name itself: someone able to write the target's
  // directory could swap it for a link between our O_EXCL create and that open.
  return temporary_;
}

std::string OutputFile::describe() const { return describe_target(kind_, target_); }

void OutputFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      throw ReportError(fmt::format("cannot write {}: {}", describe(), reason_text(errno)));
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

void OutputFile::commit() {
  if (fd_ < 0) throw ReportError(fmt::format("cannot write {}: it was already closed", describe()));
  try {
    if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
      throw ReportError(fmt::format("cannot write {}: {}", describe(), reason_text(errno)));
    if (to_character_device_) {
      // Copy the bytes to the device; never create or truncate anything at that name.
      const int out = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
      if (out < 0) cannot_create(kind_, target_, reason_text(errno));
      struct stat st {};
      if (::fstat(out, &st) != 0 || !S_ISCHR(st.st_mode)) {
        ::close(out);
        cannot_create(kind_, target_, "it is no longer a character device");
      }
      std::array<char, 1 << 16> buffer{};
      off_t offset = 0;
      while (true) {
        const ssize_t got = ::pread(fd_, buffer.data(), buffer.size(), offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        offset += got;
        std::string_view rest(buffer.data(), static_cast<std::size_t>(got));
        while (!rest.empty()) {
          const ssize_t put = ::write(out, rest.data(), rest.size());
          if (put < 0 && errno == EINTR) continue;
          if (put < 0) {
            const int error = errno;
            ::close(out);
            throw ReportError(fmt::format("cannot write {}: {}", describe(), reason_text(error)));
          }
          rest.remove_prefix(static_cast<std::size_t>(put));
        }
      }
      ::close(out);
      discard();
      return;
    }
    // Replace only a regular file or a link (rename replaces the link itself); anything else may
    // have appeared since the check.
    struct stat st {};
    if (::lstat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
      cannot_create(kind_, target_,
                    S_ISDIR(st.st_mode) ? std::string("it is a directory")
                                        : "it exists and is " + file_kind(st.st_mode) + " (only a regular file is replaced)");
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) cannot_create(kind_, target_, reason_text(errno));
  } catch (...) {
    discard();
    throw;
  }
  release_slot(slot_);
  slot_ = -1;
  ::close(fd_);
  fd_ = -1;
  // The new directory entry durable too; best effort.
  const int dir = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
}

void OutputFile::discard() noexcept {
  if (fd_ < 0) return;
  unlink_if_ours(temporary_.c_str(), device_, inode_);
  release_slot(slot_);
  slot_ = -1;
  ::close(fd_);
  fd_ = -1;
}

void write_output_text(const fs::path& target, std::string_view text, std::string_view kind,
                       const std::vector<InputFile>& inputs) {
  OutputFile file(target, std::string(kind), inputs);
  file.write(text);
  file.commit();
}

void remove_output_temporaries() noexcept {
  for (auto& slot : slots) {
    int expected = slot_armed;
    if (!slot.state.compare_exchange_strong(expected, slot_removing)) continue;
    unlink_if_ours(slot.path.data(), slot.device, slot.inode);
  }
}

}  // namespace dctwin::io
