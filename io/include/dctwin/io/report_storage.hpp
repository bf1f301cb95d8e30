// Which series a report holds and how precisely: the scenario's `output` section applied to a
// report layout, and the report's size estimated from the layout before the run.
//
//   output:
//     float_type: float32            # the measured series no rule matches (default float64)
//     variables:                     # rules; the first rule that matches a series decides
//       - match: "gpu/hbm_*"         # glob on the path in the report, no leading '/' needed
//         write: false
//       - match: "*"
//         units: K                   # only series whose units convert to K
//         resolution: 0.01 K         # rounded to 2^-7 K = 0.0078125 K, error <= half of that
//
// docs/reports.md ("Choosing the series") describes the rules and what they do to a report.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dctwin/io/report.hpp"
#include "dctwin/io/scenario.hpp"

namespace dctwin::io {

/// Sets the storage (SeriesStorage) of every output and fine series of `layout` from the
/// `output` section of `document`. Throws core::InputError with the rule's location for a rule
/// that matches no series, a resolution that is not a positive quantity, or a resolution whose units
/// do not convert to those of a series the rule matches, e.g.
/// `run.yaml:12:21: output.variables[1].resolution = 0.01 K does not fit /gpu/power (units W),
/// which 'gpu/*' matches (give the rule units: K, or a narrower match)`.
void apply_output_section(const ScenarioDocument& document, ReportLayout& layout);

/// The report's size before the run, from its layout and the sampling intervals.
struct ReportSizeEstimate {
  /// Upper bound: every stored value at its stored size (8 bytes float64, 4 float32 and uint32)
  /// without compression, plus the data written once and the labels [bytes].
  double uncompressed_bytes = 0.0;
  /// What the report is expected to take on disk after shuffle and deflate [bytes]: the
  /// uncompressed size of each series times the share deflate leaves of such a series, measured on
  /// the shipped scenarios (docs/reports.md, "Size").
  double expected_bytes = 0.0;
  std::size_t series_written = 0;  ///< outputs and fine series in the report
  std::size_t series_left_out = 0; ///< outputs and fine series the `output` section leaves out
};

/// The size of a report of `layout` with `samples` rows of its outputs and `fine_samples[g]` rows of
/// its fine series group g.
ReportSizeEstimate estimate_report_size(const ReportLayout& layout, double samples,
                                        const std::vector<double>& fine_samples);

/// "about 12.3 MiB on disk (at most 40.1 MiB uncompressed), 57 series (12 left out)".
std::string describe(const ReportSizeEstimate& estimate);

}  // namespace dctwin::io
