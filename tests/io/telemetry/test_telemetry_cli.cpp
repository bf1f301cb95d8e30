// `dctwin import` end to end: summary, exit codes and messages.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../support/run_program.hpp"
#include "dctwin/io/telemetry.hpp"

namespace fs = std::filesystem;
using test_support::Outcome;
using test_support::run_dctwin;
using test_support::slurp;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(DCTWIN_BINARY_DIR) / "tests" / "io" / "telemetry" / "cli" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

const std::string samples = DCTWIN_SOURCE_DIR "/data/telemetry/";

}  // namespace

TEST_CASE("dctwin import: a sample trace, summary and HDF5 output", "[cli][telemetry]") {
  const auto dir = scratch("ok");
  const auto o = run_dctwin({"import", samples + "nvidia-smi.csv", "-o", "t.h5"}, dir);
  INFO(o.err);
  CHECK(o.code == 0);
  CHECK(o.out.find("nvidia-smi-csv, 2 GPUs, 80 samples, 39 s from 2025-07-26T23:32:09.703Z to "
                   "2025-07-26T23:32:48.703Z") != std::string::npos);
  CHECK(o.out.find("quantities: power, gpu_temperature, sm_clock, gpu_utilization, clock_event_reasons") !=
        std::string::npos);
  CHECK(o.out.find("skipped lines: 0") != std::string::npos);
  const auto trace = dctwin::io::read_telemetry_hdf5(dir / "t.h5");
  CHECK(trace.gpus.size() == 2);
  CHECK(trace.sample_count() == 80);

  const auto noheader = run_dctwin({"import", samples + "nvidia-smi-noheader.csv", "-o", "n.h5", "--columns",
                                    "timestamp,index,power.draw,temperature.gpu,clocks.sm", "-q"},
                                   dir);
  CHECK(noheader.code == 0);
  CHECK(noheader.out.empty());
  const auto dmon = run_dctwin({"import", samples + "nvidia-smi-dmon.txt", "-o", "d.h5", "--interval", "500 ms"}, dir);
  CHECK(dmon.code == 0);
  CHECK(dmon.out.find("80 samples, 19.5 s from 1970-01-01T00:00:00Z") != std::string::npos);
  const auto generic =
      run_dctwin({"import", samples + "generic.csv", "--map", samples + "generic-map.yaml", "-o", "c.h5"}, dir);
  CHECK(generic.code == 0);
  CHECK(generic.out.find(": csv, 2 GPUs, 80 samples") != std::string::npos);
  const auto forced = run_dctwin(
      {"import", samples + "dcgmi-dmon.txt", "-o", "g.h5", "--format", "dcgmi-dmon", "--timezone", "+02:00"}, dir);
  CHECK(forced.code == 0);
}

TEST_CASE("dctwin import: exit codes and messages", "[cli][telemetry]") {
  const auto dir = scratch("errors");
  write(dir / "bad.csv",
        "timestamp, index, power.draw [W]\n2025/07/26 23:32:09, 0, 540 W\n2025/07/26 23:32:10, 0, x\n");
  write(dir / "empty.csv", "");

  auto o = run_dctwin({"import", "bad.csv", "-o", "t.h5"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "bad.csv:3: power.draw: 'x' is not a number\n");
  CHECK_FALSE(fs::exists(dir / "t.h5"));

  o = run_dctwin({"import", "bad.csv", "-o", "t.h5", "--skip-bad-lines"}, dir);
  CHECK(o.code == 0);
  CHECK(o.err == "dctwin import: skipped 1 bad line:\n  bad.csv:3: power.draw: 'x' is not a number\n");
  CHECK(o.out.find("skipped lines: 1") != std::string::npos);
  CHECK(fs::exists(dir / "t.h5"));

  o = run_dctwin({"import", "empty.csv"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "empty.csv: file is empty\n");

  o = run_dctwin({"import", "missing.csv"}, dir);
  CHECK(o.code == 66);
  CHECK(o.err == "missing.csv: cannot open telemetry file (No such file or directory)\n");

  o = run_dctwin({"import", "bad.csv", "--skip-bad-lines", "-o", "no-such-dir/t.h5"}, dir);
  CHECK(o.code == 73);
  CHECK(o.err == "dctwin import: cannot create telemetry file 'no-such-dir/t.h5': directory 'no-such-dir' does not exist\n");

  o = run_dctwin({"import", "bad.csv", "--format", "csv"}, dir);
  CHECK(o.code == 64);
  CHECK(o.err == "dctwin import: the csv format needs a column map (--map map.yaml)\n");

  o = run_dctwin({"import", "bad.csv", "--format", "tsv"}, dir);
  CHECK(o.code == 64);
  CHECK(o.err ==
        "dctwin import: unknown format 'tsv' (auto, nvidia-smi-csv, nvidia-smi-dmon, dcgmi-dmon, prometheus, "
        "prometheus-json, csv)\n");

  o = run_dctwin({"import", "bad.csv", "--timezone", "CET"}, dir);
  CHECK(o.code == 64);
  CHECK(o.err == "dctwin import: invalid time zone 'CET' (use UTC or a fixed offset such as +02:00)\n");

  o = run_dctwin({"import", "bad.csv", "--interval", "0"}, dir);
  CHECK(o.code == 64);
  CHECK(o.err == "dctwin import: invalid interval '0' (must be > 0)\n");

  o = run_dctwin({"import"}, dir);
  CHECK(o.code == 64);
}

TEST_CASE("dctwin import: impossible values stop the import, or are skipped and counted", "[cli][telemetry][ranges]") {
  const auto dir = scratch("ranges");
  write(dir / "neg.csv",
        "timestamp, index, power.draw [W], temperature.gpu\n"
        "2025/07/26 23:32:09, 0, 540 W, 66\n"
        "2025/07/26 23:32:10, 0, -500 W, 66\n"
        "2025/07/26 23:32:11, 0, 541 W, -300\n"
        "2025/07/26 23:32:12, 0, x, 66\n"
        "2025/07/26 23:32:13, 0, 542 W, 67\n");
  auto o = run_dctwin({"import", "neg.csv", "-o", "t.h5"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "neg.csv:3: power.draw: -500 W (must be in [0, 2000] W)\n");
  CHECK_FALSE(fs::exists(dir / "t.h5"));

  o = run_dctwin({"import", "neg.csv", "-o", "t.h5", "--skip-bad-lines"}, dir);
  CHECK(o.code == 0);
  CHECK(o.err ==
        "dctwin import: skipped 3 bad lines:\n"
        "  neg.csv:3: power.draw: -500 W (must be in [0, 2000] W)\n"
        "  neg.csv:4: temperature.gpu: -300 (must be in [-40, 150] degC)\n"
        "  neg.csv:5: power.draw: 'x' is not a number\n");
  CHECK(o.out.find("skipped lines: 3 (2 with a physically impossible value)\n") != std::string::npos);
  CHECK(dctwin::io::read_telemetry_hdf5(dir / "t.h5").sample_count() == 2);
}

TEST_CASE("dctwin import: warnings on stderr, --gpus, no quantity at all", "[cli][telemetry][warnings]") {
  const auto dir = scratch("warnings");
  write(dir / "extra.csv",
        "timestamp, index, name, power.draw [W]\n2025/07/26 23:32:09, 0, NVIDIA H100 80GB HBM3, 540 W\n");
  auto o = run_dctwin({"import", "extra.csv", "-o", "t.h5", "-q"}, dir);
  CHECK(o.code == 0);
  CHECK(o.out.empty());
  CHECK(o.err == "dctwin import: warning: ignored columns (not read by dctwin): name\n");
  // Kept in the file, among the notes.
  CHECK(dctwin::io::read_telemetry_hdf5(dir / "t.h5").provenance.warnings ==
        std::vector<std::string>{"ignored columns (not read by dctwin): name"});

  write(dir / "none.csv", "timestamp, index, name\n2025/07/26 23:32:09, 0, NVIDIA H100 80GB HBM3\n");
  o = run_dctwin({"import", "none.csv", "-o", "n.h5"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "none.csv:1: no telemetry quantity among the columns (timestamp, index, name); query power.draw, "
                 "temperature.gpu, clocks.sm, ... (docs/telemetry.md lists the fields read)\n");
  CHECK_FALSE(fs::exists(dir / "n.h5"));

  // Rows 4 ms apart with no pause between ticks: an error that names --gpus, which resolves it.
  write(dir / "even.csv",
        "timestamp, power.draw [W]\n2025/07/26 23:32:09.000, 100 W\n2025/07/26 23:32:09.004, 200 W\n"
        "2025/07/26 23:32:09.008, 101 W\n2025/07/26 23:32:09.012, 201 W\n");
  o = run_dctwin({"import", "even.csv", "-o", "e.h5"}, dir);
  CHECK(o.code == 65);
  CHECK(o.err == "even.csv:2: cannot tell the GPUs apart: rows are 4 ms to 4 ms apart with no longer pause between "
                 "ticks (query index, uuid or pci.bus_id, or give the number of GPUs with --gpus)\n");
  o = run_dctwin({"import", "even.csv", "-o", "e.h5", "--gpus", "2"}, dir);
  CHECK(o.code == 0);
  CHECK(o.out.find("nvidia-smi-csv, 2 GPUs, 4 samples") != std::string::npos);
  o = run_dctwin({"import", "even.csv", "-o", "e.h5", "--gpus", "-1"}, dir);
  CHECK(o.code == 64);
  CHECK(o.err == "dctwin import: invalid --gpus -1 (a number of GPUs, or 0 to find it from the pauses between ticks)\n");

  // The pdsh sample: 2 hosts x 2 GPUs, a GPU that needs a reset.
  o = run_dctwin({"import", samples + "nvidia-smi-pdsh.csv", "-o", "p.h5"}, dir);
  CHECK(o.code == 0);
  CHECK(o.err == "dctwin import: warning: GPU 1 of node-b: 3 rows read [GPU requires reset] (first at line 30); "
                 "their values are missing\n");
  CHECK(o.out.find("nvidia-smi-csv, 4 GPUs, 40 samples") != std::string::npos);
  CHECK(o.out.find("note: missing values: 52 (") != std::string::npos);
  // 40 ticks of the -lms sample: one sample per GPU and tick, the span to the millisecond.
  o = run_dctwin({"import", samples + "nvidia-smi-lms-noindex.csv", "-o", "l.h5"}, dir);
  CHECK(o.code == 0);
  CHECK(o.out.find("nvidia-smi-csv, 8 GPUs, 320 samples, 3.988 s from 2025-07-26T23:32:09.104Z to "
                   "2025-07-26T23:32:13.092Z") != std::string::npos);
}
