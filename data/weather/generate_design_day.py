#!/usr/bin/python3
"""Writes the hourly cooling design day of data/weather/los_lunas_nm_cooling_design_day.csv.

The design conditions are the ASHRAE 2013 annual cooling 0.4 % values of Albuquerque International
Airport (WMO 723650), the ASHRAE station nearest to Meta's Los Lunas, New Mexico data center, as
written in the EnergyPlus design-day file USA_NM_Albuquerque.Intl.AP.723650_TMY3.ddy (design
conditions "Climate Design Data 2013 ASHRAE Handbook"), stored in the NREL/openstudio-standards
repository at data/weather/:

    SizingPeriod:DesignDay "Albuquerque Intl Arpt Isis Ann Clg .4% Condns DB=>MWB"
    month 7, day 21; maximum dry bulb 35.1 C; daily dry-bulb range 13.2 K;
    wet bulb at maximum dry bulb 15.6 C; barometric pressure 83328 Pa;
    dry-bulb range modifier "DefaultMultipliers" (the ASHRAE profile below).

Procedure (ASHRAE Handbook-Fundamentals ch. 14, "Generating Design-Day Data", Table 6):
    T_db(h) = T_db,design - f(h) * DR, with the 24 published fractions f, value of hour h at h:00
local standard time. The file has no wet-bulb daily range, so the humidity ratio of (35.1 C,
15.6 C, 83328 Pa) is held for the whole day (an assumption: the moisture content of the air changes
little over a clear design day), and the hourly wet bulb follows from T_db(h) with the ASHRAE Handbook-Fundamentals
(2017) ch. 1 psychrometric equations (eqs. 5, 6, 20, 21, 33).

This script is an independent implementation of what models/src/facility/weather.cpp does with
wet_bulb_method = constant_humidity_ratio; tests/models/air compares the two.

Usage: /usr/bin/python3 data/weather/generate_design_day.py          (rewrites the CSV)
       /usr/bin/python3 data/weather/generate_design_day.py --check  (exit 1 if it differs)
"""
import math
import pathlib
import sys

FRACTIONS = [0.88, 0.92, 0.95, 0.98, 1.00, 0.98, 0.91, 0.74, 0.55, 0.38, 0.23, 0.13,
             0.05, 0.00, 0.00, 0.06, 0.14, 0.24, 0.39, 0.50, 0.59, 0.68, 0.75, 0.82]

DESIGN_DRY_BULB = 35.1   # C
DAILY_RANGE = 13.2       # K
COINCIDENT_WET_BULB = 15.6  # C
PRESSURE = 83328.0       # Pa


def saturation_pressure(t_c):
    """Hyland-Wexler, ASHRAE 2017 ch. 1 eqs. 5 (ice) and 6 (liquid) [Pa]."""
    t = t_c + 273.15
    if t_c < 0.0:
        return math.exp(-5.6745359e3 / t + 6.3925247 - 9.6778430e-3 * t + 6.2215701e-7 * t ** 2
                        + 2.0747825e-9 * t ** 3 - 9.4840240e-13 * t ** 4 + 4.1635019 * math.log(t))
    return math.exp(-5.8002206e3 / t + 1.3914993 - 4.8640239e-2 * t + 4.1764768e-5 * t ** 2
                    - 1.4452093e-8 * t ** 3 + 6.5459673 * math.log(t))


def saturation_humidity_ratio(t_c, p):
    pws = saturation_pressure(t_c)
    return 0.621945 * pws / (p - pws)


def humidity_ratio_from_wet_bulb(t_c, twb_c, p):
    ws = saturation_humidity_ratio(twb_c, p)
    if twb_c >= 0.0:
        return ((2501.0 - 2.326 * twb_c) * ws - 1.006 * (t_c - twb_c)) / (2501.0 + 1.86 * t_c - 4.186 * twb_c)
    return ((2830.0 - 0.24 * twb_c) * ws - 1.006 * (t_c - twb_c)) / (2830.0 + 1.86 * t_c - 2.1 * twb_c)


def wet_bulb_from_humidity_ratio(t_c, w, p):
    """Secant iteration on eq. 33/35 (a different method from the C++ bisection)."""
    if w >= saturation_humidity_ratio(t_c, p):
        return t_c
    a, b = t_c - 30.0, t_c
    fa = humidity_ratio_from_wet_bulb(t_c, a, p) - w
    fb = humidity_ratio_from_wet_bulb(t_c, b, p) - w
    for _ in range(100):
        c = b - fb * (b - a) / (fb - fa)
        a, fa = b, fb
        b, fb = c, humidity_ratio_from_wet_bulb(t_c, c, p) - w
        if abs(b - a) < 1e-10:
            break
    return b


def rows():
    w = humidity_ratio_from_wet_bulb(DESIGN_DRY_BULB, COINCIDENT_WET_BULB, PRESSURE)
    out = []
    for clock_hour in range(25):  # 00:00 .. 24:00
        f = FRACTIONS[(clock_hour + 23) % 24]
        db = DESIGN_DRY_BULB - f * DAILY_RANGE
        wb = wet_bulb_from_humidity_ratio(db, w, PRESSURE)
        stamp = ("2024-07-22T00:00:00-07:00" if clock_hour == 24
                 else "2024-07-21T%02d:00:00-07:00" % clock_hour)
        out.append("%s,%.2f,%.2f" % (stamp, db, wb))
    return out, w


HEADER = """# Cooling design day (ASHRAE 0.4 %% annual dry bulb) for Meta's Los Lunas, New Mexico data center,
# from the nearest ASHRAE station, Albuquerque International Airport (WMO 723650, 35.04 N 106.62 W,
# elevation 1619 m, station pressure 83328 Pa).
# Source: ASHRAE 2013 Handbook-Fundamentals climatic design conditions as written in the EnergyPlus
# design-day file USA_NM_Albuquerque.Intl.AP.723650_TMY3.ddy (NREL/openstudio-standards,
# data/weather/), design day "Ann Clg .4%% Condns DB=>MWB": July 21, maximum dry bulb 35.1 degC,
# daily range 13.2 K, wet bulb 15.6 degC at the maximum dry bulb.
# Hourly profile: ASHRAE Handbook-Fundamentals ch. 14 Table 6 fractions of the daily range, hour h
# at h:00 local standard time (MST, UTC-7; the year is arbitrary). Wet bulb: humidity ratio held at
# its value at the maximum dry bulb (%.6f kg/kg), wet bulb from the ASHRAE 2017 ch. 1 equations.
# Written by data/weather/generate_design_day.py; edit that script, not this file.
# Columns: ISO-8601 local time, dry bulb [degC], wet bulb [degC].
time,dry_bulb [degC],wet_bulb [degC]
"""


def main():
    data, w = rows()
    text = HEADER % w + "\n".join(data) + "\n"
    path = pathlib.Path(__file__).with_name("los_lunas_nm_cooling_design_day.csv")
    if "--check" in sys.argv[1:]:
        if path.read_text() != text:
            print("%s is not up to date" % path)
            return 1
        print("%s is up to date" % path)
        return 0
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
