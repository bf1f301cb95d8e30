#!/usr/bin/env bash
# Writes the seed inputs larger than 64 KiB of the fuzz corpora (tests/fuzz/corpus/*/large-*), so
# that libFuzzer, run with -max_len beyond 64 KiB (scripts/fuzz.sh), starts from inputs of that
# size. Deterministic: the same files every time (awk arithmetic only, no clock, no randomness).
#
#   bash tests/fuzz/make_large_seeds.sh      # rewrites the files; commit them
#
# The report seeds of that size (facility-1pod-2racks-large.hdf5-report, 80 kB) are written by
# tests/gui/make_facility_report OUT 1 2 4, which is deterministic too.
set -euo pipefail
corpus="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/corpus"

# 196 days of hourly weather: 4,700 rows, about 75 kB.
awk 'BEGIN {
  print "time [h],dry_bulb [degC],wet_bulb [degC]"
  for (h = 0; h < 4700; ++h) {
    day = int(h / 24); hour = h % 24
    dry = 12 + 10 * sin(2 * 3.14159265 * (day - 100) / 365) + 6 * sin(2 * 3.14159265 * (hour - 9) / 24)
    printf "%d,%.2f,%.2f\n", h, dry, dry - 4 - 2 * sin(2 * 3.14159265 * hour / 24)
  }
}' >"$corpus/weather/large-hourly.csv"

# nvidia-smi CSV: 8 GPUs sampled every second for 110 s, about 68 kB.
awk 'BEGIN {
  print "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], utilization.gpu [%], clocks_event_reasons.active"
  for (s = 0; s < 110; ++s) {
    for (g = 0; g < 8; ++g) {
      minute = int(s / 60); second = s % 60
      if (s % 10 < 7) power = 540 + g * 2.5 + (s % 7); else power = 250 + g
      clock = 1755; busy = 35; reasons = 0
      if (power > 400) { clock = 1980; busy = 100 }
      if (power > 560) reasons = 4
      printf "2025/07/26 23:%02d:%02d.703, %d, %.2f W, %d, %d MHz, %d %%, 0x%016x\n", minute % 60, second, g, power, 60 + (s % 10) + g % 3, clock, busy, reasons
    }
  }
}' >"$corpus/telemetry-nvidia-smi-csv/large-8gpu-110s.csv"

# A sweep over a list of 5,200 supply temperatures, about 68 kB.
awk 'BEGIN {
  print "name: large-list"
  print "base: ../single-node.yaml"
  print "design: list"
  print "set:"
  print "  simulation.duration: 1 min"
  print "parameters:"
  printf "  loop.supply_temperature: ["
  for (k = 0; k < 5200; ++k) printf "%s%.3f degC", k ? ", " : "", 20 + k * 0.004
  print "]"
}' >"$corpus/sweep/large-list.yaml"
