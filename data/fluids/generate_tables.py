#!/usr/bin/python3
"""Generate the coolant property tables in this folder from published correlations.

Run from anywhere with the system Python (standard library only):

    /usr/bin/python3 data/fluids/generate_tables.py          # rewrite the CSV files
    /usr/bin/python3 data/fluids/generate_tables.py --check  # verify, print reference points

What it evaluates
-----------------
Pure water (water.csv), at p = 101.325 kPa:
  * density and isobaric specific heat: IAPWS-IF97 region 1 (IAPWS R7-97(2012), "Revised Release
    on the IAPWS Industrial Formulation 1997 for the Thermodynamic Properties of Water and Steam",
    Table 2 coefficients, Eq. 7). IF97 reproduces the scientific formulation IAPWS-95 within
    about 0.01 % in density and 0.1 % in specific heat for liquid water at these conditions.
  * dynamic viscosity: IAPWS R12-08, "Release on the IAPWS Formulation 2008 for the Viscosity of
    Ordinary Water Substance" (Huber et al., J. Phys. Chem. Ref. Data 38 (2009) 101), Eqs. 10-12,
    Tables 1-2, with the critical enhancement mu2 = 1 (the release states that mu2 differs from 1
    only in a small region around the critical point).
  * thermal conductivity: IAPWS R15-11, "Release on the IAPWS Formulation 2011 for the Thermal
    Conductivity of Ordinary Water Substance" (Huber et al., J. Phys. Chem. Ref. Data 41 (2012)
    033102), Eqs. 16-17, Tables 1-2, without the critical enhancement lambda2 (its contribution
    below 80 degC is below 0.1 %, well inside the formulation's 1-2 % uncertainty).
  The density fed to the transport correlations is the IF97 density.

Propylene glycol / water and ethylene glycol / water (propylene_glycol*.csv, ethylene_glycol*.csv):
  * Melinder, A. (2010), "Properties of Secondary Working Fluids (Secondary Refrigerants or
    Coolants, Heat Transfer Fluids) for Indirect Systems", IIR/IIF, Paris. Melinder fits each
    property f (freezing point [degC], density [kg/m3], specific heat [J/(kg K)], thermal
    conductivity [W/(m K)], ln(viscosity / mPa s)) as a polynomial in the mass percent x and the
    temperature t [degC] about a reference point (xm, tm):
        f = sum_{i=0..5} sum_{j=0..nT[i]-1} c_ij (x - xm)^i (t - tm)^j,   nT = 4, 4, 4, 3, 2, 1
    The 18 coefficients per property below are the published ones as implemented in the CoolProp
    incompressible-fluid library (fluids "MPG" and "MEG", file
    dev/incompressible_liquids/CPIncomp/MelinderFluids.py) and, identically, in the Modelica
    IBPSA / Buildings libraries (Buildings.Media.Antifreeze.PropyleneGlycolWater).
  * Grid: mass fraction 0.05 to 0.60 in steps of 0.05, temperature -40 to 80 degC in steps of 5 K.
    A point below the freezing point of its mass fraction is frozen and is left out of the table.
    The pure-water column of each glycol (mass fraction 0) is water.csv.

The output numbers are rounded to about five significant digits, finer than the accuracy of any
source. See docs/models/fluid.md for the accuracy discussion and the comparison with the ASHRAE
Handbook tables.
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
P_ATM = 101325.0  # Pa
KELVIN = 273.15

# --------------------------------------------------------------------------------------------
# IAPWS-IF97 region 1 (compressed liquid): dimensionless Gibbs energy gamma(pi, tau)
# --------------------------------------------------------------------------------------------
IF97_R = 461.526  # J/(kg K), specific gas constant used by IF97
IF97_P_STAR = 16.53e6  # Pa
IF97_T_STAR = 1386.0  # K
IF97_I = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 8, 8,
          21, 23, 29, 30, 31, 32]
IF97_J = [-2, -1, 0, 1, 2, 3, 4, 5, -9, -7, -1, 0, 1, 3, -3, 0, 1, 3, 17, -4, 0, 6, -5, -2,
          10, -8, -11, -6, -29, -31, -38, -39, -40, -41]
IF97_N = [0.14632971213167, -0.84548187169114, -0.37563603672040e1, 0.33855169168385e1,
          -0.95791963387872, 0.15772038513228, -0.16616417199501e-1, 0.81214629983568e-3,
          0.28319080123804e-3, -0.60706301565874e-3, -0.18990068218419e-1,
          -0.32529748770505e-1, -0.21841717175414e-1, -0.52838357969930e-4,
          -0.47184321073267e-3, -0.30001780793026e-3, 0.47661393906987e-4,
          -0.44141845330846e-5, -0.72694996297594e-15, -0.31679644845054e-4,
          -0.28270797985312e-5, -0.85205128120103e-9, -0.22425281908000e-5,
          -0.65171222895601e-6, -0.14341729937924e-12, -0.40516996860117e-6,
          -0.12734301741641e-8, -0.17424871230634e-9, -0.68762131295531e-18,
          0.14478307828521e-19, 0.26335781662795e-22, -0.11947622640071e-22,
          0.18228094581404e-23, -0.93537087292458e-25]


def if97_region1(temperature_k, pressure_pa):
    """Return (density kg/m3, cp J/(kg K)) from IF97 region 1."""
    pi = pressure_pa / IF97_P_STAR
    tau = IF97_T_STAR / temperature_k
    a = 7.1 - pi
    b = tau - 1.222
    gamma_pi = 0.0
    gamma_tautau = 0.0
    for i, j, n in zip(IF97_I, IF97_J, IF97_N):
        gamma_pi += -n * i * a ** (i - 1) * b ** j
        gamma_tautau += n * a ** i * j * (j - 1) * b ** (j - 2)
    specific_volume = pi * gamma_pi * IF97_R * temperature_k / pressure_pa
    cp = -tau * tau * gamma_tautau * IF97_R
    return 1.0 / specific_volume, cp


# --------------------------------------------------------------------------------------------
# IAPWS 2008 viscosity and IAPWS 2011 thermal conductivity (reduced with T* = 647.096 K,
# rho* = 322 kg/m3)
# --------------------------------------------------------------------------------------------
T_CRIT = 647.096
RHO_CRIT = 322.0
VISC_H0 = [1.67752, 2.20462, 0.6366564, -0.241605]
# VISC_H1[i][j]: i = power of (1/Tbar - 1), j = power of (rhobar - 1)
VISC_H1 = [
    [0.520094, 0.222531, -0.281378, 0.161913, -0.0325372, 0.0, 0.0],
    [0.0850895, 0.999115, -0.906851, 0.257399, 0.0, 0.0, 0.0],
    [-1.08374, 1.88797, -0.772479, 0.0, 0.0, 0.0, 0.0],
    [-0.289555, 1.26613, -0.489837, 0.0, 0.0698452, 0.0, -0.00435673],
    [0.0, 0.0, -0.25704, 0.0, 0.0, 0.00872102, 0.0],
    [0.0, 0.120573, 0.0, 0.0, 0.0, 0.0, -0.000593264],
]
COND_L0 = [2.443221e-3, 1.323095e-2, 6.770357e-3, -3.454586e-3, 4.096266e-4]
# COND_L1[i][j]: i = power of (1/Tbar - 1), j = power of (rhobar - 1)
COND_L1 = [
    [1.60397357, -0.646013523, 0.111443906, 0.102997357, -0.0504123634, 0.00609859258],
    [2.33771842, -2.78843778, 1.53616167, -0.463045512, 0.0832827019, -0.00719201245],
    [2.19650529, -4.54580785, 3.55777244, -1.40944978, 0.275418278, -0.0205938816],
    [-1.21051378, 1.60812989, -0.621178141, 0.0716373224, 0.0, 0.0],
    [-2.7203370, 4.57586331, -3.18369245, 1.1168348, -0.19268305, 0.012913842],
]


def _reduced_double_sum(coefficients, tbar, rhobar):
    total = 0.0
    for i, row in enumerate(coefficients):
        for j, c in enumerate(row):
            total += c * (1.0 / tbar - 1.0) ** i * (rhobar - 1.0) ** j
    return total


def iapws_viscosity(temperature_k, density):
    """Dynamic viscosity [Pa s], IAPWS 2008 with mu2 = 1."""
    tbar = temperature_k / T_CRIT
    rhobar = density / RHO_CRIT
    mu0 = 100.0 * math.sqrt(tbar) / sum(h / tbar ** i for i, h in enumerate(VISC_H0))
    mu1 = math.exp(rhobar * _reduced_double_sum(VISC_H1, tbar, rhobar))
    return mu0 * mu1 * 1e-6


def iapws_conductivity(temperature_k, density):
    """Thermal conductivity [W/(m K)], IAPWS 2011 without the critical enhancement."""
    tbar = temperature_k / T_CRIT
    rhobar = density / RHO_CRIT
    l0 = math.sqrt(tbar) / sum(c / tbar ** k for k, c in enumerate(COND_L0))
    l1 = math.exp(rhobar * _reduced_double_sum(COND_L1, tbar, rhobar))
    return l0 * l1 * 1e-3


def water_properties(t_degc):
    """(density, cp, conductivity, viscosity) of liquid water at 101.325 kPa."""
    temperature_k = t_degc + KELVIN
    density, cp = if97_region1(temperature_k, P_ATM)
    return (density, cp, iapws_conductivity(temperature_k, density),
            iapws_viscosity(temperature_k, density))


def verify_water_formulations():
    """Check the implementations against the verification values printed in the releases."""
    failures = []

    def expect(label, got, want, rel):
        # rel: half a unit in the last digit printed in the release's table
        if abs(got - want) > rel * abs(want):
            failures.append(f"{label}: got {got:.10g}, expected {want:.10g}")

    # IF97 Table 5: region 1 at (300 K, 3 MPa), (300 K, 80 MPa), (500 K, 3 MPa)
    for (t, p, v, cp) in [(300.0, 3e6, 0.100215168e-2, 0.417301218e1),
                          (300.0, 80e6, 0.971180894e-3, 0.401008987e1),
                          (500.0, 3e6, 0.120241800e-2, 0.465580682e1)]:
        rho, c = if97_region1(t, p)
        expect(f"IF97 v({t} K, {p / 1e6} MPa)", 1.0 / rho, v, 5e-9)
        expect(f"IF97 cp({t} K, {p / 1e6} MPa)", c / 1000.0, cp, 5e-9)
    # IAPWS R12-08 Table 4 (mu2 = 1), micro Pa s
    for (t, rho, mu) in [(298.15, 998.0, 889.735100), (298.15, 1200.0, 1437.649467),
                         (373.15, 1000.0, 307.883622), (433.15, 1.0, 14.538324),
                         (433.15, 1000.0, 217.685358), (873.15, 1.0, 32.619287),
                         (873.15, 100.0, 35.802262), (873.15, 600.0, 77.430195),
                         (1173.15, 1.0, 44.217245), (1173.15, 100.0, 47.640433),
                         (1173.15, 400.0, 64.154608)]:
        expect(f"IAPWS 2008 mu({t} K, {rho} kg/m3)", iapws_viscosity(t, rho) * 1e6, mu, 5e-8)
    # IAPWS R15-11 Table 4 (lambda2 = 0), mW/(m K)
    for (t, rho, lam) in [(298.15, 0.0, 18.4341883), (298.15, 998.0, 607.712868),
                          (298.15, 1200.0, 799.038144), (873.15, 0.0, 79.1034659)]:
        expect(f"IAPWS 2011 lambda({t} K, {rho} kg/m3)", iapws_conductivity(t, rho) * 1e3, lam,
               5e-9)
    return failures


# --------------------------------------------------------------------------------------------
# Melinder (2010) polynomial fits for aqueous glycols
# --------------------------------------------------------------------------------------------
# Columns: freezing point [degC], density [kg/m3], specific heat [J/(kg K)],
#          conductivity [W/(m K)], ln(viscosity / (mPa s)).
# Rows in Melinder's order: (i, j) = (0,0) (0,1) (0,2) (0,3) (1,0) ... (1,3) (2,0) ... (2,3)
#                                    (3,0) (3,1) (3,2) (4,0) (4,1) (5,0)
MELINDER_NT = [4, 4, 4, 3, 2, 1]

MELINDER_PROPYLENE = {
    "name": "propylene glycol",
    "xm": 30.7031,  # mass percent
    "tm": 32.7083,  # degC
    "c": [
        [-1.325e1, 1.018e3, 3.882e3, 4.513e-1, 6.837e-1],
        [-3.820e-5, -5.406e-1, 2.699e0, 7.955e-4, -3.045e-2],
        [7.865e-7, -2.666e-3, -1.659e-3, 3.482e-8, 2.525e-4],
        [-1.733e-9, 1.347e-5, -1.032e-5, -5.966e-9, -1.399e-6],
        [-6.631e-1, 7.604e-1, -1.304e1, -4.795e-3, 3.328e-2],
        [6.774e-6, -9.450e-3, 5.070e-2, -1.678e-5, -3.984e-4],
        [-6.242e-8, 5.541e-5, -4.752e-5, 8.941e-8, 4.332e-6],
        [-7.819e-10, -1.343e-7, 1.522e-6, 1.493e-10, -1.860e-8],
        [-1.094e-2, -2.498e-3, -1.598e-1, 2.076e-5, 5.453e-5],
        [5.332e-8, 2.700e-5, 9.534e-5, 1.563e-7, -8.600e-8],
        [-4.169e-9, -4.018e-7, 1.167e-5, -4.615e-9, -1.593e-8],
        [3.288e-11, 3.376e-9, -4.870e-8, 9.897e-12, -4.465e-11],
        [-2.283e-4, -1.550e-4, 3.539e-4, -9.083e-8, -3.900e-6],
        [-1.131e-8, 2.829e-6, 3.102e-5, -2.518e-9, 1.054e-7],
        [1.918e-10, -7.175e-9, -2.950e-7, 6.543e-11, -1.589e-9],
        [-3.409e-6, -1.131e-6, 5.000e-5, -5.952e-10, -1.587e-8],
        [8.035e-11, -2.221e-8, -7.135e-7, -3.605e-11, 4.475e-10],
        [1.465e-8, 2.342e-8, -4.959e-7, 2.104e-11, 3.564e-9],
    ],
}

MELINDER_ETHYLENE = {
    "name": "ethylene glycol",
    "xm": 30.8462,
    "tm": 31.728,
    "c": [
        [-1.525e1, 1.034e3, 3.737e3, 4.720e-1, 4.705e-1],
        [-1.566e-6, -4.781e-1, 2.930e0, 8.903e-4, -2.550e-2],
        [-2.278e-7, -2.692e-3, -4.675e-3, -1.058e-6, 1.782e-4],
        [2.169e-9, 4.725e-6, -1.389e-5, -2.789e-9, -7.669e-7],
        [-8.080e-1, 1.311e0, -1.799e1, -4.286e-3, 2.471e-2],
        [-1.339e-6, -6.876e-3, 1.046e-1, -1.473e-5, -1.171e-4],
        [2.047e-8, 4.805e-5, -4.147e-4, 1.059e-7, 1.052e-6],
        [-2.717e-11, 1.690e-8, 1.847e-7, -1.142e-10, -1.634e-8],
        [-1.334e-2, 7.490e-5, -9.933e-2, 1.747e-5, 3.328e-6],
        [6.322e-8, 7.855e-5, 3.516e-4, 6.814e-8, 1.086e-6],
        [2.373e-10, -3.995e-7, 5.109e-6, -3.612e-9, 1.051e-8],
        [-2.183e-12, 4.982e-9, -7.138e-8, 2.365e-12, -6.475e-10],
        [-7.293e-5, -1.062e-4, 2.610e-3, 3.017e-8, 1.659e-6],
        [1.764e-9, 1.229e-6, -1.189e-6, -2.412e-9, 3.157e-9],
        [-2.442e-11, -1.153e-8, -1.643e-7, 4.004e-11, 4.063e-10],
        [1.006e-6, -9.623e-7, 1.537e-5, -1.322e-9, 3.089e-8],
        [-7.662e-11, -7.211e-8, -4.272e-7, 2.555e-11, 1.831e-10],
        [1.140e-9, 4.891e-8, -1.618e-6, 2.678e-11, -1.865e-9],
    ],
}

FREEZING, DENSITY, SPECIFIC_HEAT, CONDUCTIVITY, LN_VISCOSITY = range(5)


def melinder(fluid, prop, mass_fraction, t_degc):
    """Evaluate Melinder's polynomial for one property (mass fraction 0-1, t in degC)."""
    dx = 100.0 * mass_fraction - fluid["xm"]
    dt = t_degc - fluid["tm"]
    total = 0.0
    row = 0
    for i, count in enumerate(MELINDER_NT):
        for j in range(count):
            total += fluid["c"][row][prop] * dx ** i * dt ** j
            row += 1
    return total


def melinder_freezing_point(fluid, mass_fraction):
    """Freezing point [degC]: the j = 0 terms only (Melinder's fit depends on x alone)."""
    return melinder(fluid, FREEZING, mass_fraction, fluid["tm"])


def melinder_properties(fluid, mass_fraction, t_degc):
    return (melinder(fluid, DENSITY, mass_fraction, t_degc),
            melinder(fluid, SPECIFIC_HEAT, mass_fraction, t_degc),
            melinder(fluid, CONDUCTIVITY, mass_fraction, t_degc),
            1e-3 * math.exp(melinder(fluid, LN_VISCOSITY, mass_fraction, t_degc)))


# --------------------------------------------------------------------------------------------
# Grids and CSV output
# --------------------------------------------------------------------------------------------
WATER_TEMPERATURES = [5.0 * k for k in range(0, 17)]  # 0 .. 80 degC
GLYCOL_TEMPERATURES = [-40.0 + 5.0 * k for k in range(0, 25)]  # -40 .. 80 degC
GLYCOL_FRACTIONS = [round(0.05 * k, 2) for k in range(1, 13)]  # 0.05 .. 0.60

PROPERTY_HEADER = ("density_kg_m3,specific_heat_J_kgK,conductivity_W_mK,viscosity_Pa_s")


def format_properties(props):
    density, cp, conductivity, viscosity = props
    return f"{density:.3f},{cp:.1f},{conductivity:.5f},{viscosity:.5e}"


EMBED_NOTE = [
    "# This file is data, not code: at configure time cmake/EmbedTable.cmake turns it into a",
    "# generated C++ source (one constexpr double array per file) compiled into dctwin_models,",
    "# so that the models never open it at run time. Lines starting with '#' are comments; the",
    "# first other line names the columns; every further line is one row of numbers.",
    "# Written by data/fluids/generate_tables.py; edit that script, not this file.",
]


def write_csv(path, comment_lines, header, rows):
    with open(path, "w", encoding="ascii", newline="\n") as out:
        for line in comment_lines + [""] + EMBED_NOTE:
            out.write(("# " + line if not line.startswith("#") else line).rstrip() + "\n"
                      if line else "#\n")
        out.write(header + "\n")
        for row in rows:
            out.write(row + "\n")


WATER_COMMENT = [
    "Liquid water at 101.325 kPa, 0 to 80 degC in steps of 5 K.",
    "Sources: density and specific heat from IAPWS-IF97 region 1 (IAPWS R7-97(2012));",
    "viscosity from the IAPWS Formulation 2008 (IAPWS R12-08; Huber et al., J. Phys. Chem. Ref.",
    "Data 38 (2009) 101) with mu2 = 1; thermal conductivity from the IAPWS Formulation 2011",
    "(IAPWS R15-11; Huber et al., J. Phys. Chem. Ref. Data 41 (2012) 033102) without the",
    "critical enhancement. Uncertainty (from the releases): density 0.01 %, specific heat",
    "0.1 %, viscosity 1 %, conductivity 1-2 %. Pressure effect neglected (density +0.05 % per",
    "10 bar). Columns: temperature [degC], density [kg/m3], isobaric specific heat [J/(kg K)],",
    "thermal conductivity [W/(m K)], dynamic viscosity [Pa s].",
]


PROPYLENE_CP_DOUBT = [
    "Unresolved: the specific heat of Melinder's polynomial agrees with ASHRAE within 0.4 %,",
    "but the SecCool tables of Melinder's data are 1-2.5 % higher (PG25 at 20 degC: 3920",
    "here, 3971 in SecCool).",
]


def glycol_comment(fluid, label):
    doubt = PROPYLENE_CP_DOUBT if fluid is MELINDER_PROPYLENE else []
    return [
        f"Aqueous {fluid['name']} ({label}), mass fraction 0.05 to 0.60 in steps of 0.05,",
        "temperature -40 to 80 degC in steps of 5 K, at atmospheric pressure. A (mass fraction,",
        "temperature) point below the freezing point of that mass fraction is frozen and absent.",
        "Mass fraction 0 (pure water) is water.csv.",
        "Source: A. Melinder, Properties of Secondary Working Fluids (Secondary Refrigerants or",
        "Coolants, Heat Transfer Fluids) for Indirect Systems, IIR/IIF, Paris, 2010: the",
        "published polynomial fits in mass percent and temperature (coefficients as in the",
        f"CoolProp incompressible fluid '{label}' and the Modelica IBPSA/Buildings libraries),",
        "evaluated by generate_tables.py.",
        "Accuracy and doubts: Melinder's work targets secondary refrigerants (the SecCool",
        "tables derived from it stop at +40 degC); above 40 degC the fits are used as",
        "published. Checked against the ASHRAE Handbook-Fundamentals glycol tables",
        "(docs/models/fluid.md): from 0 to 80 degC the two agree within 1.3 % in density",
        "(ASHRAE higher), 2.6 % in specific heat, 4 % in conductivity and 13 % in viscosity;",
        "below 0 degC within 4.3 %, 8.5 % and 19 % for specific heat, conductivity and",
        "viscosity. Treat differences of that size as the uncertainty of these data.",
    ] + doubt + [
        "Columns: mass fraction [1], temperature [degC], density [kg/m3], isobaric specific",
        "heat [J/(kg K)], thermal conductivity [W/(m K)], dynamic viscosity [Pa s].",
    ]


def freezing_comment(fluid, label):
    return [
        f"Freezing point (first ice crystals) of aqueous {fluid['name']} ({label}) against the",
        "mass fraction, 0 to 0.60 in steps of 0.05.",
        "Source: A. Melinder (IIR/IIF, 2010), polynomial fit of the freezing point, evaluated by",
        "generate_tables.py; mass fraction 0 is the ice point of water at 101.325 kPa (0 degC).",
        "Columns: mass fraction [1], freezing point [degC].",
    ]


def build_tables():
    """Return {filename: (comment, header, rows)}."""
    tables = {}
    rows = [f"{t:.0f}," + format_properties(water_properties(t)) for t in WATER_TEMPERATURES]
    tables["water.csv"] = (WATER_COMMENT, "temperature_degC," + PROPERTY_HEADER, rows)
    for fluid, label, stem in ((MELINDER_PROPYLENE, "MPG", "propylene_glycol"),
                               (MELINDER_ETHYLENE, "MEG", "ethylene_glycol")):
        rows = []
        freezing_rows = ["0.00,0.00"]
        for x in GLYCOL_FRACTIONS:
            t_freeze = melinder_freezing_point(fluid, x)
            freezing_rows.append(f"{x:.2f},{t_freeze:.2f}")
            for t in GLYCOL_TEMPERATURES:
                if t < t_freeze:
                    continue
                rows.append(f"{x:.2f},{t:.0f}," +
                            format_properties(melinder_properties(fluid, x, t)))
        tables[stem + ".csv"] = (glycol_comment(fluid, label),
                                 "mass_fraction,temperature_degC," + PROPERTY_HEADER, rows)
        tables[stem + "_freezing.csv"] = (freezing_comment(fluid, label),
                                          "mass_fraction,freezing_point_degC", freezing_rows)
    return tables


def print_reference_points():
    """Off-grid values straight from the correlations, for the interpolation tests."""
    print("Off-grid reference values (correlation, not table):")
    for t in (2.5, 22.5, 37.5, 57.5, 77.5):
        rho, cp, lam, mu = water_properties(t)
        print(f"  water      t={t:5.1f} degC  rho={rho:.4f} cp={cp:.2f} k={lam:.6f} "
              f"mu={mu:.6e}")
    for fluid, label in ((MELINDER_PROPYLENE, "PG"), (MELINDER_ETHYLENE, "EG")):
        for x, t in ((0.25, 20.0), (0.25, 30.0), (0.25, 40.0), (0.30, 22.5), (0.40, 67.5),
                     (0.275, 12.5), (0.55, -27.5)):
            rho, cp, lam, mu = melinder_properties(fluid, x, t)
            print(f"  {label}{100 * x:<5g} t={t:5.1f} degC  rho={rho:.4f} cp={cp:.2f} "
                  f"k={lam:.6f} mu={mu:.6e}")
        for x in (0.10, 0.20, 0.25, 0.275, 0.30, 0.35, 0.40, 0.50, 0.575, 0.60):
            print(f"  {label}{100 * x:<5g} freezing point {melinder_freezing_point(fluid, x):.3f}"
                  " degC")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="verify the formulations and the CSV files; write nothing")
    args = parser.parse_args()

    failures = verify_water_formulations()
    if failures:
        print("water formulations do not reproduce the IAPWS verification values:",
              *failures, sep="\n  ")
        return 1
    tables = build_tables()
    if args.check:
        stale = []
        for name, (comment, header, rows) in tables.items():
            path = os.path.join(HERE, name)
            expected_rows = [header] + rows
            try:
                with open(path, encoding="ascii") as f:
                    actual = [l.rstrip("\n") for l in f if not l.startswith("#")]
            except OSError:
                actual = None
            if actual != expected_rows:
                stale.append(name)
        print_reference_points()
        if stale:
            print("out of date (run without --check):", ", ".join(stale))
            return 1
        print("IAPWS verification values reproduced; CSV files are up to date.")
        return 0
    for name, (comment, header, rows) in tables.items():
        write_csv(os.path.join(HERE, name), comment, header, rows)
        print(f"wrote {name}: {len(rows)} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
