#!/usr/bin/env python3
"""Writes the synthetic telemetry samples of this folder (python3 standard library only).

Every file shows the same made-up trace in a different collection format: two H100 SXM5 GPUs
sampled once a second for 40 s of transformer training, with a checkpoint stall (about 150 W) from
second 20 to second 27 and a software power-cap event on GPU 1 at second 12. The numbers are drawn
from a seeded generator, so running the script again gives byte-identical files.

    python3 data/telemetry/generate.py [OUTPUT_DIR]
"""

import json
import os
import random
import sys

START = 1753572729  # 2025-07-26T23:32:09Z
TICKS = 40
GPUS = 2
HOST = "node-a"
UUIDS = ["GPU-5f1c2a0e-7b44-4c1e-9a53-0a1b2c3d4e01", "GPU-5f1c2a0e-7b44-4c1e-9a53-0a1b2c3d4e02"]


def trace():
    """Rows of (tick, gpu, dict of values in the tools' units)."""
    rng = random.Random(20250726)
    rows = []
    temperature = [61.0, 63.0]
    for tick in range(TICKS):
        stall = 20 <= tick < 28
        for gpu in range(GPUS):
            throttle = gpu == 1 and tick == 12
            if stall:
                power = 150.0 + rng.uniform(-8.0, 8.0)
                utilization = 88
                sm_active = 0.05 + rng.uniform(0.0, 0.03)
                tensor_active = 0.0
            else:
                power = 540.0 + rng.uniform(-20.0, 25.0)
                utilization = 100
                sm_active = 0.82 + rng.uniform(-0.04, 0.04)
                tensor_active = 0.45 + rng.uniform(-0.05, 0.05)
            if throttle:
                power = 700.0
            target = 55.0 + 0.04 * power
            temperature[gpu] += 0.3 * (target - temperature[gpu])
            rows.append((tick, gpu, {
                "power": round(power, 2),
                "gtemp": int(round(temperature[gpu])),
                "mtemp": int(round(temperature[gpu] + 6.0)),
                "smclk": 1755 if throttle else 1980,
                "mclk": 2619,
                "util": utilization,
                "memutil": 35 if not stall else 5,
                "mask": 0x4 if throttle else 0x0,
                "sm_active": round(sm_active, 3),
                "tensor_active": round(tensor_active, 3),
            }))
    return rows


def stamp(tick, millis=703):
    import time
    t = time.gmtime(START + tick)
    return time.strftime("%Y/%m/%d %H:%M:%S", t) + ".%03d" % millis


def write(directory, name, text):
    with open(os.path.join(directory, name), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def nvidia_smi(rows):
    out = {}
    # --query-gpu=timestamp,index,power.draw,temperature.gpu,clocks.sm,utilization.gpu,clocks_event_reasons.active --format=csv
    lines = ["timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], utilization.gpu [%], "
             "clocks_event_reasons.active"]
    for tick, gpu, v in rows:
        lines.append("%s, %d, %.2f W, %d, %d MHz, %d %%, 0x%016x" % (stamp(tick), gpu, v["power"], v["gtemp"],
                                                                   v["smclk"], v["util"], v["mask"]))
    out["nvidia-smi.csv"] = "\n".join(lines) + "\n"
    # ... --format=csv,nounits
    lines = ["timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], utilization.gpu [%]"]
    for tick, gpu, v in rows:
        lines.append("%s, %d, %.2f, %d, %d, %d" % (stamp(tick), gpu, v["power"], v["gtemp"], v["smclk"], v["util"]))
    out["nvidia-smi-nounits.csv"] = "\n".join(lines) + "\n"
    # ... --format=csv,noheader,nounits (import with --columns timestamp,index,power.draw,temperature.gpu,clocks.sm)
    lines = []
    for tick, gpu, v in rows:
        lines.append("%s, %d, %.2f, %d, %d" % (stamp(tick), gpu, v["power"], v["gtemp"], v["smclk"]))
    out["nvidia-smi-noheader.csv"] = "\n".join(lines) + "\n"
    # Older driver, no index column, per-reason throttle fields, memory temperature not supported.
    lines = ["timestamp, uuid, power.draw [W], temperature.gpu, temperature.memory, clocks.current.sm [MHz], "
             "clocks_throttle_reasons.sw_power_cap, clocks_throttle_reasons.hw_slowdown, "
             "clocks_throttle_reasons.sw_thermal_slowdown"]
    for tick, gpu, v in rows:
        active = "Active" if v["mask"] & 0x4 else "Not Active"
        lines.append("%s, %s, %.2f W, %d, [N/A], %d MHz, %s, Not Active, Not Active" % (
            stamp(tick), UUIDS[gpu], v["power"], v["gtemp"], v["smclk"], active))
    out["nvidia-smi-noindex-throttle.csv"] = "\n".join(lines) + "\n"
    return out


def stamp_seconds(seconds):
    """nvidia-smi's timestamp of a time in seconds since the epoch (milliseconds, truncated)."""
    import time
    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000.0))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(whole)) + ".%03d" % millis


def nvidia_smi_lms():
    """An 8-GPU HGX H100 node logged with -lms 100 and no index column.

    nvidia-smi queries the GPUs one after the other and stamps every row with its own time: the rows
    of one tick are 1-3 ms apart, then the loop waits about 100 ms. GPU 5 runs power-capped at
    700 W (SM clock 1755 MHz, clock-event reason 0x4, SW power cap) from tick 10 to tick 19.
    """
    rng = random.Random(20250727)
    gpus, ticks = 8, 40
    start = START + 0.104
    lines = ["timestamp, power.draw [W], temperature.gpu, clocks.sm [MHz], clocks_event_reasons.active"]
    temperature = [58.0 + 1.5 * g for g in range(gpus)]
    t = start
    for tick in range(ticks):
        row_time = t
        for gpu in range(gpus):
            capped = gpu == 5 and 10 <= tick < 20
            power = 700.0 if capped else 540.0 + rng.uniform(-25.0, 25.0) + 2.0 * gpu
            temperature[gpu] += 0.05 * (55.0 + 0.04 * power + 1.5 * gpu - temperature[gpu])
            lines.append("%s, %.2f W, %d, %d MHz, 0x%016x" % (
                stamp_seconds(row_time), power, int(round(temperature[gpu])), 1755 if capped else 1980,
                0x4 if capped else 0x0))
            row_time += rng.uniform(0.0012, 0.0028)
        t += 0.100 + rng.uniform(0.0, 0.004)
    return {"nvidia-smi-lms-noindex.csv": "\n".join(lines) + "\n"}


def nvidia_smi_pdsh(rows):
    """pdsh -w node-a,node-b nvidia-smi --query-gpu=... -l 1: every line prefixed with its host.

    node-b's GPU 1 fell off the bus from tick 4 to tick 6 ([GPU requires reset]); the lines of the two
    hosts interleave as pdsh receives them.
    """
    header = ("timestamp, index, pci.bus_id, power.draw [W], temperature.gpu, temperature.memory, "
              "clocks.sm [MHz], clocks_event_reasons.active")
    streams = {}
    for host, offset in (("node-a", 0), ("node-b", 17)):
        lines = [header]
        for tick, gpu, v in rows[:20]:
            bus = "00000000:%02X:00.0" % (0x18 + 0x26 * gpu)
            if host == "node-b" and gpu == 1 and 4 <= tick <= 6:
                reset = "[GPU requires reset]"
                lines.append("%s, %d, %s, %s, %s, %s, %s, %s" % (stamp(tick, 703 + offset), gpu, bus, reset, reset,
                                                                  reset, reset, reset))
                continue
            lines.append("%s, %d, %s, %.2f W, %d, [N/A], %d MHz, 0x%016x" % (
                stamp(tick, 703 + offset), gpu, bus, v["power"] - (3.0 if host == "node-b" else 0.0),
                v["gtemp"], v["smclk"], v["mask"]))
        streams[host] = ["%s: %s" % (host, line) for line in lines]
    merged = []
    a, b = streams["node-a"], streams["node-b"]
    i = j = 0
    rng = random.Random(7)
    while i < len(a) or j < len(b):
        if j >= len(b) or (i < len(a) and rng.random() < 0.5):
            merged.append(a[i])
            i += 1
        else:
            merged.append(b[j])
            j += 1
    return {"nvidia-smi-pdsh.csv": "\n".join(merged) + "\n"}


def dmon(rows):
    out = {}
    head = ["# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk",
            "# Idx      W      C      C      %      %      %      %    MHz    MHz"]
    lines = list(head)
    for tick, gpu, v in rows:
        lines.append("%5d %6d %6d %6d %6d %6d %6s %6s %6d %6d" % (gpu, round(v["power"]), v["gtemp"], v["mtemp"],
                                                              v["util"], v["memutil"], "-", "-", v["mclk"], v["smclk"]))
    out["nvidia-smi-dmon.txt"] = "\n".join(lines) + "\n"
    import time
    lines = ["#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem   mclk   pclk",
             "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %    MHz    MHz"]
    for tick, gpu, v in rows:
        t = time.gmtime(START + tick)
        lines.append("%s   %s %6d %6d %6d %6d %6d %6d %6d %6d" % (
            time.strftime("%Y%m%d", t), time.strftime("%H:%M:%S", t), gpu, round(v["power"]), v["gtemp"],
            v["mtemp"], v["util"], v["memutil"], v["mclk"], v["smclk"]))
    out["nvidia-smi-dmon-dt.txt"] = "\n".join(lines) + "\n"
    return out


def dcgmi(rows):
    # dcgmi dmon -e 100,112,140,150,155,1002,1004 (112: clock-event reasons, decimal)
    lines = ["#Entity   SMCLK  DVCCTR  MMTMP  TMPTR  POWER    SMACT  TENSO", "ID"]
    for tick, gpu, v in rows:
        mmtmp = "N/A" if tick == 5 else "%d" % v["mtemp"]
        lines.append("GPU %d     %-6d %-7d %-6s %-6d %-8.3f %-6.3f %-6.3f" % (
            gpu, v["smclk"], v["mask"], mmtmp, v["gtemp"], v["power"], v["sm_active"], v["tensor_active"]))
    return {"dcgmi-dmon.txt": "\n".join(lines) + "\n"}


METRICS = [
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", "smclk"),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", "mtemp"),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", "gtemp"),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", "power"),
    ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "gauge", "Current clock throttle reasons.", "mask"),
    ("DCGM_FI_PROF_SM_ACTIVE", "gauge", "The ratio of cycles an SM has at least 1 warp assigned.", "sm_active"),
]


# Metrics of dcgm-exporter's default set that are not telemetry quantities (value as written).
EXTRA_METRICS = [
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", "61234"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", "0"),
]


def labels(gpu):
    return ('gpu="%d",UUID="%s",device="nvidia%d",modelName="NVIDIA H100 80GB HBM3",Hostname="%s"'
            % (gpu, UUIDS[gpu], gpu, HOST))


def prometheus(rows):
    by_tick = {}
    for tick, gpu, v in rows:
        by_tick.setdefault(tick, {})[gpu] = v
    out = {}
    # Scrapes (first 10 s), each preceded by the scrape time in Unix seconds.
    lines = []
    for tick in range(10):
        lines.append("%d" % (START + tick))
        for name, kind, help_text, key in METRICS:
            lines.append("# HELP %s %s" % (name, help_text))
            lines.append("# TYPE %s %s" % (name, kind))
            for gpu in range(GPUS):
                value = by_tick[tick][gpu][key]
                if name == "DCGM_FI_DEV_MEMORY_TEMP" and tick == 3 and gpu == 0:
                    value = 9223372036854775794  # DCGM's blank value
                lines.append("%s{%s} %s" % (name, labels(gpu), value))
    out["dcgm-exporter.prom"] = "\n".join(lines) + "\n"
    # Raw scrapes as `curl -s node-a:9400/metrics >> file` appends them (first 3 s): no time lines,
    # every family with its # HELP and # TYPE lines, metrics dctwin does not read among them.
    lines = []
    for tick in range(3):
        for name, kind, help_text, key in METRICS + EXTRA_METRICS:
            lines.append("# HELP %s %s" % (name, help_text))
            lines.append("# TYPE %s %s" % (name, kind))
            for gpu in range(GPUS):
                value = by_tick[tick][gpu][key] if key in by_tick[tick][gpu] else key
                lines.append("%s{%s} %s" % (name, labels(gpu), value))
    out["dcgm-exporter-raw.prom"] = "\n".join(lines) + "\n"
    # Samples with their own millisecond timestamps (first 10 s).
    lines = []
    for name, kind, help_text, key in METRICS:
        lines.append("# HELP %s %s" % (name, help_text))
        lines.append("# TYPE %s %s" % (name, kind))
        for tick in range(10):
            for gpu in range(GPUS):
                lines.append("%s{%s} %s %d" % (name, labels(gpu), by_tick[tick][gpu][key], (START + tick) * 1000))
    out["dcgm-exporter-timestamps.prom"] = "\n".join(lines) + "\n"
    # query_range answer for power and GPU temperature (step 1 s, all 40 s).
    result = []
    for name, key in (("DCGM_FI_DEV_POWER_USAGE", "power"), ("DCGM_FI_DEV_GPU_TEMP", "gtemp")):
        for gpu in range(GPUS):
            metric = {"__name__": name, "gpu": str(gpu), "UUID": UUIDS[gpu], "Hostname": HOST,
                      "instance": HOST + ":9400", "job": "dcgm"}
            values = [[START + tick, str(by_tick[tick][gpu][key])] for tick in range(TICKS)]
            result.append({"metric": metric, "values": values})
    answer = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    out["prometheus-query-range.json"] = json.dumps(answer, indent=1) + "\n"
    return out


def generic(rows):
    """A spreadsheet-style CSV (power in kW, time in ms since the epoch) and its column map."""
    lines = ["# exported by a facility historian", "ts_ms;host;gpu_id;P_kW;T_core_degF;f_sm_GHz"]
    for tick, gpu, v in rows:
        t_f = v["gtemp"] * 9.0 / 5.0 + 32.0
        lines.append("%d;%s;%d;%.5f;%.1f;%.3f" % ((START + tick) * 1000 + 500, HOST, gpu, v["power"] / 1000.0, t_f,
                                                 v["smclk"] / 1000.0))
    mapping = ("# Column map of generic.csv for: dctwin import generic.csv --map generic-map.yaml\n"
               "delimiter: \";\"\n"
               "time: {column: ts_ms, unit: ms}\n"
               "hostname: {column: host}\n"
               "gpu: {column: gpu_id}\n"
               "power: {column: P_kW, unit: kW}\n"
               "gpu_temperature: {column: T_core_degF, unit: degF}\n"
               "sm_clock: {column: f_sm_GHz, unit: GHz}\n")
    return {"generic.csv": "\n".join(lines) + "\n", "generic-map.yaml": mapping}


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = trace()
    files = {}
    for part in (nvidia_smi(rows), nvidia_smi_lms(), nvidia_smi_pdsh(rows), dmon(rows), dcgmi(rows), prometheus(rows), generic(rows)):
        files.update(part)
    for name in sorted(files):
        write(directory, name, files[name])
        print(name)


if __name__ == "__main__":
    main()
