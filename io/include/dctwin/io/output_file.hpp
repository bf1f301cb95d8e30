// Output files that another process, a planted link or a mistyped name cannot destroy.
//
// Every file dctwin writes goes through OutputFile: the target is checked before any work, the
// contents go to a temporary `.<name>.XXXXXX.part` created (O_EXCL, never through a link) in the
// target's directory, and commit() renames it over the target, which must be absent, a regular
// file or a link (the link is replaced, never followed). A character device (`-o /dev/null`,
// `/dev/stdout`) receives a copy of the bytes instead and is never replaced. An OutputFile removes
// its own temporary, and nothing else, when it is not committed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dctwin::io {

/// A file a command reads, which its output must not be: the path and what it is ("scenario").
struct InputFile {
  std::filesystem::path path;
  std::string role;
};

/// Checks that `target` can become an output file before any work is done. Throws ReportError
/// "cannot create <kind> '<target>': <reason>" when it is empty, ends in '/', is a directory, lies
/// in a directory that does not exist or cannot be written, is a file other than a regular file
/// or a character device, or is the same file as one of `inputs`.
void check_output_path(const std::filesystem::path& target, std::string_view kind,
                       const std::vector<InputFile>& inputs = {});

class OutputFile {
 public:
  /// Checks the target (check_output_path) and creates the temporary. `kind` names the file in
  /// messages ("report", "telemetry file"; empty: none). Throws ReportError "cannot create ...".
  OutputFile(std::filesystem::path target, std::string kind, const std::vector<InputFile>& inputs = {});
  /// Removes the temporary unless committed.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  [[nodiscard]] const std::filesystem::path& target() const noexcept { return target_; }
  /// The temporary's name in its directory.
  [[nodiscard]] const std::filesystem::path& temporary() const noexcept { return temporary_; }
  /// A name for a library that opens files itself (HDF5): /proc/self/fd/N, which reaches the file
  /// this object created even if its directory entry has been replaced meanwhile; the temporary's
  /// name where /proc is not mounted.
  [[nodiscard]] std::filesystem::path open_path() const;
  /// "<kind> '<target>'", for messages.
  [[nodiscard]] std::string describe() const;

  /// Appends bytes to the temporary. Throws ReportError "cannot write <kind> '<target>': ...".
  void write(std::string_view bytes);
  /// Makes the temporary durable and puts it in place. Throws ReportError (the temporary is then
  /// removed); "cannot create ..." when the target has become something that must not be replaced.
  void commit();
  /// Removes the temporary (if it still is the file this object created). Idempotent.
  void discard() noexcept;

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::string kind_;
  int fd_ = -1;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  bool to_character_device_ = false;
  int slot_ = -1;  ///< entry in the table remove_output_temporaries() reads
};

/// Writes `text` to `target` through an OutputFile.
void write_output_text(const std::filesystem::path& target, std::string_view text, std::string_view kind,
                       const std::vector<InputFile>& inputs = {});

/// Removes the temporary of every OutputFile of the process that is neither committed nor
/// discarded. Async-signal-safe: for a handler of SIGINT/SIGTERM that then ends the process.
void remove_output_temporaries() noexcept;

}  // namespace dctwin::io
