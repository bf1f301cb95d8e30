// Reading a report of unknown origin without risking the reading process.
//
// libhdf5 1.10.8 does not survive every damaged file: a few changed bytes in a report's global heap
// (where every variable-length string lives) or in its object headers make it loop forever, read
// out of bounds, copy overlapping memory or allocate gigabytes (docs/reliability.md). None of that
// can be caught in the process that calls it. `probe_report` therefore lets a child process read
// the report first, with the same reader, under a time limit and an address-space limit, and tells
// whether the caller can then read it safely:
//
//   ok           the child read everything it was asked to read
//   refused      the reader refused part of the report with a ReportError (the message of the
//                first one is in `message`); the caller's own reading will meet the same error,
//                cleanly
//   crashed      the child died of a signal (or of a sanitizer report) while reading `where`
//   timed_out    the child did not finish within the time limit
//   out_of_memory the child ran out of its address-space allowance
//   failed       the probe itself could not run (no process could be started)
//
// The child reads: the file's superblock and root attributes through ReportReader (status,
// status_reason, every root attribute, end_time), the datasets listed in `datasets` (in full), the
// list of datasets with their units and long names, the summary figures, then walks every object
// of the file: every attribute of every group and dataset (read in full), the members of every
// group listed one by one by index, every dataset's header,
// every string dataset when `read_strings`, and every numeric dataset when `read_all_data` (in
// blocks of rows, in full while the values read stay within `max_values`, then only the first and
// last row of each). What a caller reads later must be within what it asked the probe to read.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace dctwin::io {

struct ReportProbeOptions {
  /// Wall-clock limit for the child [s]; its CPU time is limited to the same (rounded up).
  double timeout_seconds = 30.0;
  /// Address space the child may add to what it had when it started [bytes].
  std::size_t memory_limit_bytes = std::size_t{2} << 30;
  /// Numeric datasets read in full, first of all (e.g. "/time"); absent ones are skipped.
  std::vector<std::string> datasets;
  /// Read every string dataset in full (the global heap, where libhdf5's known faults are).
  bool read_strings = true;
  /// Read every numeric dataset (see `max_values`).
  bool read_all_data = false;
  /// With `read_all_data`: numeric values read in full before falling back to first and last rows.
  std::size_t max_values = std::size_t{1} << 26;
  /// When set, the child executes this program (see `report_probe_main`) instead of reading in a
  /// copy of the calling process. Needed when another thread of the caller may be inside libhdf5
  /// (or hold any other lock) when the probe starts: a forked copy keeps such a lock held forever.
  std::filesystem::path helper;
};

struct ReportProbe {
  enum class Outcome { ok, refused, crashed, timed_out, out_of_memory, failed };
  Outcome outcome = Outcome::ok;
  /// What the child was reading when it stopped, e.g. "/gpu/junction_temperature" or
  /// "attribute 'status' of /" ("" when it finished).
  std::string where;
  /// For a refusal, the reader's message; otherwise a sentence such as "damaged: libhdf5 crashed
  /// (SIGSEGV) while reading /gpu/junction_temperature", "damaged: reading did not finish within
  /// 30 s (while reading attribute 'status' of /)", "damaged: reading needed more than 2048 MiB of
  /// memory (while reading /index/gpu)". Empty when ok.
  std::string message;
  int signal = 0;  ///< the signal that ended the child, when it crashed

  /// Crashed, timed out or out of memory: the caller must not read the report itself.
  [[nodiscard]] bool damaged() const {
    return outcome == Outcome::crashed || outcome == Outcome::timed_out || outcome == Outcome::out_of_memory;
  }
};

/// Reads `path` in a child process as described at the top of this header and reports how that
/// went. Never throws for anything the report holds; a missing file is `refused` with the reader's
/// message. The calling process opens nothing of the report.
[[nodiscard]] ReportProbe probe_report(const std::filesystem::path& path, const ReportProbeOptions& options = {});

/// The body of a helper executable for ReportProbeOptions::helper: its `main` returns
/// `report_probe_main(argc, argv)`. The arguments are the probe's own (written by probe_report);
/// progress goes to standard output.
int report_probe_main(int argc, char** argv);

}  // namespace dctwin::io
