// Coolant properties (models/fluid/coolant.hpp): the tables are reproduced, the interpolation
// matches the source correlations between table points and is C1, the values agree with
// independent references, trends are physical, errors carry the documented messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "dctwin/core/input_error.hpp"
#include "dctwin/models/fluid/coolant.hpp"

using dctwin::models::fluid::Coolant;
using dctwin::models::fluid::Glycol;
using dctwin::core::InputError;

namespace {

constexpr double kelvin = 273.15;

double celsius(double t_degc) { return t_degc + kelvin; }

/// A CSV of data/fluids/ read the simple way: '#' comments, a header line, rows of numbers.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<double>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    FAIL("no column " << name);
    return 0;
  }
};

Csv read_csv(const std::string& name) {
  const std::string path = std::string(DCTWIN_SOURCE_DIR) + "/data/fluids/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  Csv csv;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream fields(line);
    std::string field;
    if (csv.header.empty()) {
      while (std::getline(fields, field, ',')) csv.header.push_back(field);
      continue;
    }
    std::vector<double> row;
    while (std::getline(fields, field, ',')) row.push_back(std::stod(field));
    REQUIRE(row.size() == csv.header.size());
    csv.rows.push_back(row);
  }
  REQUIRE(!csv.rows.empty());
  return csv;
}

/// Relative difference |a - b| / |b|.
double relative(double a, double b) { return std::abs(a - b) / std::abs(b); }

/// The message of the InputError thrown by f, or "" if nothing was thrown.
template <typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::vector<Coolant> sample_coolants() {
  std::vector<Coolant> result{Coolant::water()};
  for (const Glycol g : {Glycol::propylene, Glycol::ethylene}) {
    for (const double x : {0.025, 0.05, 0.1, 0.2, 0.25, 0.275, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6}) {
      result.emplace_back(g, x);
    }
  }
  return result;
}

}  // namespace

TEST_CASE("Coolant is a small value type", "[models][fluid]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<Coolant>);
  STATIC_REQUIRE(sizeof(Coolant) <= 64);
}

TEST_CASE("Every table point is reproduced to round-off", "[models][fluid]") {
  // The interpolant passes through the table values; only the K -> degC conversion and, for
  // viscosity, the exp(ln(mu)) round trip add round-off.
  const double tolerance = 1e-12;
  const Csv water = read_csv("water.csv");
  const Coolant w = Coolant::water();
  for (const auto& row : water.rows) {
    const double t = celsius(row[0]);
    CHECK(relative(w.density(t), row[1]) < tolerance);
    CHECK(relative(w.specific_heat(t), row[2]) < tolerance);
    CHECK(relative(w.conductivity(t), row[3]) < tolerance);
    CHECK(relative(w.viscosity(t), row[4]) < tolerance);
  }
  for (const auto& [file, glycol] : {std::pair{"propylene_glycol.csv", Glycol::propylene},
                                     std::pair{"ethylene_glycol.csv", Glycol::ethylene}}) {
    const Csv table = read_csv(file);
    const std::size_t x = table.column("mass_fraction"), t = table.column("temperature_degC");
    const std::size_t rho = table.column("density_kg_m3"), cp = table.column("specific_heat_J_kgK");
    const std::size_t k = table.column("conductivity_W_mK"), mu = table.column("viscosity_Pa_s");
    int checked = 0;
    for (const auto& row : table.rows) {
      const Coolant c(glycol, row[x]);
      const Coolant::Properties p = c.properties(celsius(row[t]));
      INFO(c.name() << " at " << row[t] << " degC");
      CHECK(relative(p.density, row[rho]) < tolerance);
      CHECK(relative(p.specific_heat, row[cp]) < tolerance);
      CHECK(relative(p.conductivity, row[k]) < tolerance);
      CHECK(relative(p.viscosity, row[mu]) < tolerance);
      ++checked;
    }
    CHECK(checked > 200);
  }
}

TEST_CASE("Freezing points are the tabulated ones at the table's mass fractions",
          "[models][fluid]") {
  for (const auto& [file, glycol] : {std::pair{"propylene_glycol_freezing.csv", Glycol::propylene},
                                     std::pair{"ethylene_glycol_freezing.csv", Glycol::ethylene}}) {
    const Csv table = read_csv(file);
    REQUIRE(table.rows.size() == 13);
    for (const auto& row : table.rows) {
      const Coolant c(glycol, row[0]);
      INFO(c.name());
      CHECK(c.freezing_point() == Approx(celsius(row[1])).epsilon(0).margin(1e-9));
      // No table point below the freezing point: the lowest one is the first grid temperature
      // (5 K steps) at or above it, or the bottom of the grid (-40 degC).
      CHECK(c.min_temperature() >= c.freezing_point());
      CHECK((c.min_temperature() < c.freezing_point() + 5.0 + 1e-9 ||
             c.min_temperature() == Approx(celsius(-40.0))));
    }
  }
}

TEST_CASE("PG25 reproduces the reference values of CoolProp's SecCool tables (Melinder)",
          "[models][fluid]") {
  // Reference: [coolprop-2014], PG25 interpolated from Melinder's tables (SecCool/xMass).
  // Tolerances: density 0.1 %, conductivity 0.5 %, viscosity 4 % (the reference marks its viscosity
  // values as approximate). Specific heat 1.5 %: the SecCool tables lie 1-2.5 % above both
  // Melinder's published polynomial (which the table is built from) and the ASHRAE Handbook
  // at this composition; see docs/models/fluid.md, "Doubts".
  const Coolant pg25 = Coolant::parse("PG25");
  struct Point {
    double t_degc, density, specific_heat, conductivity, viscosity;
  };
  for (const Point& ref : {Point{20, 1019.5, 3971, 0.468, 2.51e-3},
                           Point{30, 1015.2, 3979, 0.477, 1.84e-3},
                           Point{40, 1010.3, 3991, 0.487, 1.37e-3}}) {
    const Coolant::Properties p = pg25.properties(celsius(ref.t_degc));
    INFO("PG25 at " << ref.t_degc << " degC");
    CHECK(relative(p.density, ref.density) < 0.001);
    CHECK(relative(p.specific_heat, ref.specific_heat) < 0.015);
    CHECK(relative(p.conductivity, ref.conductivity) < 0.005);
    CHECK(relative(p.viscosity, ref.viscosity) < 0.04);
  }
}

TEST_CASE("Water agrees with well-known reference values", "[models][fluid]") {
  const Coolant w = Coolant::water();
  // 20 degC: 998.2 kg/m3, 4182 J/(kg K), 0.598 W/(m K), 1.002 mPa s (handbook values; the
  // IAPWS formulations give 998.21, 4184.8, 0.5980, 1.0016).
  CHECK(relative(w.density(celsius(20)), 998.2) < 0.0005);
  CHECK(relative(w.specific_heat(celsius(20)), 4182.0) < 0.001);
  CHECK(relative(w.conductivity(celsius(20)), 0.598) < 0.005);
  CHECK(relative(w.viscosity(celsius(20)), 1.002e-3) < 0.005);
  CHECK(relative(w.prandtl(celsius(20)), 7.0) < 0.01);
  // Density maximum near 4 degC, boiling-side end of the table.
  CHECK(w.density(celsius(4)) > w.density(celsius(0)));
  CHECK(w.density(celsius(4)) > w.density(celsius(8)));
  CHECK(relative(w.density(celsius(4)), 999.97) < 0.0001);
  CHECK(relative(w.density(celsius(80)), 971.8) < 0.0005);
  CHECK(relative(w.viscosity(celsius(80)), 0.354e-3) < 0.01);
}

TEST_CASE("Between table points the interpolation matches the source correlations",
          "[models][fluid]") {
  // Reference values evaluated directly from the correlations (not from the tables) by
  // `/usr/bin/python3 data/fluids/generate_tables.py --check`, midway between table
  // temperatures. They measure the interpolation error: cubic Hermite in temperature (plus the
  // rounding of the CSV values) on a tabulated mass fraction; for PG27.5 and EG27.5 also the
  // linear blend between the 25 % and 30 % columns.
  struct Point {
    Coolant coolant;
    double t_degc, density, specific_heat, conductivity, viscosity;
  };
  struct Tolerance {
    double density, specific_heat, conductivity, viscosity;
  };
  const Tolerance on_column{1e-5, 5e-5, 5e-5, 5e-4};
  const Tolerance blended{2e-5, 5e-4, 5e-4, 2e-3};
  const Point points[] = {
      {Coolant::water(), 2.5, 999.9580, 4211.41, 0.561883, 1.645898e-03},
      {Coolant::water(), 22.5, 997.6582, 4183.20, 0.602347, 9.431552e-04},
      {Coolant::water(), 37.5, 993.1556, 4178.67, 0.625164, 6.846221e-04},
      {Coolant::water(), 57.5, 984.4778, 4181.76, 0.648579, 4.842319e-04},
      {Coolant::water(), 77.5, 973.3459, 4193.47, 0.665339, 3.654204e-04},
      {Coolant(Glycol::propylene, 0.30), 22.5, 1022.6185, 3863.74, 0.446443, 2.706841e-03},
      {Coolant(Glycol::propylene, 0.40), 67.5, 1000.8860, 3857.23, 0.431552, 1.098735e-03},
      {Coolant(Glycol::propylene, 0.275), 12.5, 1024.5752, 3870.43, 0.449608, 3.581878e-03},
      {Coolant(Glycol::propylene, 0.55), -27.5, 1067.3380, 3237.15, 0.320509, 2.218251e-01},
      {Coolant(Glycol::ethylene, 0.30), 22.5, 1037.0120, 3725.57, 0.467212, 2.013100e-03},
      {Coolant(Glycol::ethylene, 0.40), 67.5, 1024.1251, 3694.70, 0.460787, 9.499370e-04},
      {Coolant(Glycol::ethylene, 0.275), 12.5, 1037.2627, 3745.22, 0.467932, 2.560179e-03},
      {Coolant(Glycol::ethylene, 0.55), -27.5, 1091.7246, 2908.92, 0.347064, 4.458947e-02},
  };
  for (const Point& ref : points) {
    const Coolant::Properties p = ref.coolant.properties(celsius(ref.t_degc));
    INFO(ref.coolant.name() << " at " << ref.t_degc << " degC");
    const double percent = 100.0 * ref.coolant.mass_fraction();
    const Tolerance& tol = std::abs(percent - 5.0 * std::round(percent / 5.0)) > 1e-9 ? blended
                                                                                      : on_column;
    CHECK(relative(p.density, ref.density) < tol.density);
    CHECK(relative(p.specific_heat, ref.specific_heat) < tol.specific_heat);
    CHECK(relative(p.conductivity, ref.conductivity) < tol.conductivity);
    CHECK(relative(p.viscosity, ref.viscosity) < tol.viscosity);
  }
  // Freezing point between tabulated mass fractions (Melinder's curve at 27.5 %, 57.5 %).
  CHECK(Coolant(Glycol::propylene, 0.275).freezing_point() ==
        Approx(celsius(-11.231)).margin(0.02));
  CHECK(Coolant(Glycol::ethylene, 0.275).freezing_point() ==
        Approx(celsius(-12.693)).margin(0.02));
  CHECK(Coolant(Glycol::propylene, 0.575).freezing_point() ==
        Approx(celsius(-44.823)).margin(0.1));
  CHECK(Coolant(Glycol::ethylene, 0.575).freezing_point() ==
        Approx(celsius(-47.121)).margin(0.1));
}

TEST_CASE("Glycol values agree with the ASHRAE Handbook tables", "[models][fluid]") {
  // ASHRAE Handbook-Fundamentals, ch. "Physical properties of secondary coolants", aqueous
  // propylene / ethylene glycol by mass (values as tabulated in EnergyPlus's default glycol
  // data). An independent source: the tolerances are the observed agreement between the two
  // sources rounded up (docs/models/fluid.md), not the accuracy of the interpolation.
  struct Point {
    Glycol glycol;
    double fraction, t_degc, density, specific_heat, conductivity, viscosity;
  };
  const Point points[] = {
      {Glycol::propylene, 0.30, 0, 1036.24, 3793, 0.423, 7.08e-3},
      {Glycol::propylene, 0.30, 20, 1028.35, 3848, 0.445, 3.06e-3},
      {Glycol::propylene, 0.30, 60, 1006.44, 3958, 0.475, 1.01e-3},
      {Glycol::propylene, 0.50, 40, 1030.98, 3609, 0.372, 3.11e-3},
      {Glycol::propylene, 0.50, 80, 1001.05, 3763, 0.382, 1.12e-3},
      {Glycol::ethylene, 0.30, 0, 1051.78, 3589, 0.429, 4.15e-3},
      {Glycol::ethylene, 0.30, 20, 1045.25, 3645, 0.453, 2.20e-3},
      {Glycol::ethylene, 0.30, 60, 1026.36, 3759, 0.488, 0.90e-3},
      {Glycol::ethylene, 0.50, 40, 1063.66, 3358, 0.394, 2.26e-3},
      {Glycol::ethylene, 0.50, 80, 1038.46, 3512, 0.411, 0.98e-3},
  };
  for (const Point& ref : points) {
    const Coolant c(ref.glycol, ref.fraction);
    const Coolant::Properties p = c.properties(celsius(ref.t_degc));
    INFO(c.name() << " at " << ref.t_degc << " degC");
    CHECK(relative(p.density, ref.density) < 0.015);
    CHECK(relative(p.specific_heat, ref.specific_heat) < 0.03);
    CHECK(relative(p.conductivity, ref.conductivity) < 0.05);
    CHECK(relative(p.viscosity, ref.viscosity) < 0.10);
  }
}

TEST_CASE("Freezing points agree with ASHRAE", "[models][fluid]") {
  // ASHRAE: ethylene glycol 30 % by mass freezes at about -15 degC, propylene glycol 30 % at
  // about -13 degC.
  CHECK(Coolant::parse("EG30").freezing_point() == Approx(celsius(-15.0)).margin(1.0));
  CHECK(Coolant::parse("PG30").freezing_point() == Approx(celsius(-13.0)).margin(1.0));
  CHECK(Coolant::water().freezing_point() == Approx(kelvin).margin(1e-12));
  // More glycol, lower freezing point; ethylene glycol depresses it more than propylene.
  for (const Glycol g : {Glycol::propylene, Glycol::ethylene}) {
    double previous = Coolant::water().freezing_point();
    for (double x = 0.01; x <= 0.6 + 1e-9; x += 0.01) {
      const double t = Coolant(g, x).freezing_point();
      CHECK(t < previous);
      previous = t;
    }
  }
  CHECK(Coolant::parse("EG40").freezing_point() < Coolant::parse("PG40").freezing_point());
}

TEST_CASE("Physical trends: density and viscosity fall with temperature", "[models][fluid]") {
  for (const Coolant& c : sample_coolants()) {
    INFO(c.name());
    // Water (and dilute mixtures) have their density maximum near 4 degC: start at 10 degC.
    const double start = std::max(c.min_temperature(), celsius(10.0));
    double previous_density = c.density(start), previous_viscosity = c.viscosity(start);
    bool density_falls = true, viscosity_falls = true;
    for (double t = start + 0.1; t <= c.max_temperature(); t += 0.1) {
      density_falls = density_falls && c.density(t) < previous_density;
      viscosity_falls = viscosity_falls && c.viscosity(t) < previous_viscosity;
      previous_density = c.density(t);
      previous_viscosity = c.viscosity(t);
    }
    CHECK(density_falls);
    CHECK(viscosity_falls);
    // Viscosity also falls below 10 degC, down to the coldest tabulated point.
    CHECK(c.viscosity(c.min_temperature()) > c.viscosity(start));
  }
  // At a given temperature more glycol means denser, more viscous, lower specific heat and
  // conductivity.
  for (const Glycol g : {Glycol::propylene, Glycol::ethylene}) {
    const double t = celsius(40.0);
    Coolant previous = Coolant::water();
    for (double x = 0.05; x <= 0.6 + 1e-9; x += 0.05) {
      const Coolant c(g, x);
      INFO(c.name());
      CHECK(c.density(t) > previous.density(t));
      CHECK(c.viscosity(t) > previous.viscosity(t));
      CHECK(c.specific_heat(t) < previous.specific_heat(t));
      CHECK(c.conductivity(t) < previous.conductivity(t));
      previous = c;
    }
  }
}

TEST_CASE("Smoothness: continuous values and slopes across table cells", "[models][fluid]") {
  // At every grid temperature compare one-sided difference quotients from both sides. A kink
  // (a C0-only interpolation) would differ by about f'' * 5 K; a C1 one by f'' * h.
  const double h = 1e-3;  // K
  for (const Coolant& c : sample_coolants()) {
    for (double t = c.min_temperature() + 5.0; t < c.max_temperature() - 1.0; t += 5.0) {
      INFO(c.name() << " at " << t - kelvin << " degC");
      const auto check = [&](double (Coolant::*property)(double) const) {
        const double left = (c.*property)(t - h);
        const double mid = (c.*property)(t);
        const double right = (c.*property)(t + h);
        const double scale = std::abs(mid);
        CHECK(std::abs(right - mid) < 1e-3 * scale);  // no jump
        const double slope_left = (mid - left) / h, slope_right = (right - mid) / h;
        CHECK(std::abs(slope_right - slope_left) <=
              2e-3 * std::max(std::abs(slope_left), std::abs(slope_right)) + 1e-9 * scale);
      };
      check(&Coolant::density);
      check(&Coolant::specific_heat);
      check(&Coolant::conductivity);
      check(&Coolant::viscosity);
    }
  }
  // Continuous in mass fraction across a tabulated column.
  for (const Glycol g : {Glycol::propylene, Glycol::ethylene}) {
    const Coolant below(g, 0.25 - 1e-9), at(g, 0.25), above(g, 0.25 + 1e-9);
    const double t = celsius(30.0);
    CHECK(relative(below.density(t), at.density(t)) < 1e-9);
    CHECK(relative(above.density(t), at.density(t)) < 1e-9);
    CHECK(relative(below.viscosity(t), at.viscosity(t)) < 1e-8);
    CHECK(relative(above.viscosity(t), at.viscosity(t)) < 1e-8);
  }
}

TEST_CASE("properties() and prandtl() agree with the single lookups", "[models][fluid]") {
  const Coolant c = Coolant::parse("EG 35 %");
  const double t = celsius(33.3);
  const Coolant::Properties p = c.properties(t);
  CHECK(p.density == c.density(t));
  CHECK(p.specific_heat == c.specific_heat(t));
  CHECK(p.conductivity == c.conductivity(t));
  CHECK(p.viscosity == c.viscosity(t));
  CHECK(c.prandtl(t) == Approx(p.viscosity * p.specific_heat / p.conductivity).epsilon(1e-14));
}

TEST_CASE("Temperature ranges per composition", "[models][fluid]") {
  CHECK(Coolant::water().min_temperature() == Approx(celsius(0)));
  CHECK(Coolant::water().max_temperature() == Approx(celsius(80)));
  // PG25 freezes at -9.8 degC: its coldest table point is -5 degC.
  CHECK(Coolant::parse("PG25").min_temperature() == Approx(celsius(-5)));
  CHECK(Coolant::parse("PG60").min_temperature() == Approx(celsius(-40)));
  CHECK(Coolant::parse("EG60").min_temperature() == Approx(celsius(-40)));
  // Between two columns the table covers what both columns cover.
  const Coolant pg275(Glycol::propylene, 0.275);
  CHECK(pg275.min_temperature() == Approx(celsius(-5)));
  CHECK(pg275.freezing_point() < Coolant::parse("PG25").freezing_point());
  CHECK(pg275.freezing_point() > Coolant::parse("PG30").freezing_point());
  // The edges themselves are inside.
  for (const Coolant& c : sample_coolants()) {
    CHECK_NOTHROW(c.density(c.min_temperature()));
    CHECK_NOTHROW(c.viscosity(c.max_temperature()));
  }
}

TEST_CASE("Out-of-range input gives the documented messages", "[models][fluid]") {
  CHECK(error_message([] { Coolant(Glycol::propylene, 0.8); }) ==
        "glycol mass fraction 0.8 is outside the tabulated range 0-0.6");
  CHECK(error_message([] { Coolant(Glycol::ethylene, -0.1); }) ==
        "glycol mass fraction -0.1 is outside the tabulated range 0-0.6");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(error_message([&] { Coolant(Glycol::ethylene, nan); }) ==
        "glycol mass fraction nan is outside the tabulated range 0-0.6");
  CHECK(error_message([] { Coolant(Glycol::none, 0.25); }) ==
        "water has no glycol: mass fraction 0.25 given for Glycol::none");

  const Coolant pg25 = Coolant::parse("PG25");
  CHECK(error_message([&] { (void)pg25.density(celsius(90)); }) ==
        "PG25: temperature 90 degC is outside the property table (-5 to 80 degC)");
  CHECK(error_message([&] { (void)pg25.density(253.15); }) ==
        "PG25: 253.15 K is below the freezing point (-9.8 degC)");
  CHECK(error_message([&] { (void)pg25.viscosity(celsius(-7)); }) ==
        "PG25: temperature -7 degC is outside the property table (-5 to 80 degC)");
  CHECK(error_message([&] { (void)pg25.conductivity(nan); }) ==
        "PG25: temperature nan K is not a finite number");

  const Coolant water = Coolant::water();
  CHECK(error_message([&] { (void)water.specific_heat(272.15); }) ==
        "water: 272.15 K is below the freezing point (0.0 degC)");
  CHECK(error_message([&] { (void)water.prandtl(celsius(80.01)); }) ==
        "water: temperature 80.01 degC is outside the property table (0 to 80 degC)");
  CHECK(error_message([] { (void)Coolant(Glycol::ethylene, 0.275).properties(celsius(-20)); }) ==
        "EG27.5: 253.15 K is below the freezing point (-12.7 degC)");

  // Every accessor checks.
  const double hot = celsius(100);
  CHECK_THROWS_AS(pg25.density(hot), InputError);
  CHECK_THROWS_AS(pg25.specific_heat(hot), InputError);
  CHECK_THROWS_AS(pg25.conductivity(hot), InputError);
  CHECK_THROWS_AS(pg25.viscosity(hot), InputError);
  CHECK_THROWS_AS(pg25.prandtl(hot), InputError);
  CHECK_THROWS_AS(pg25.properties(hot), InputError);
}

TEST_CASE("Parsing coolant names", "[models][fluid]") {
  struct Case {
    const char* text;
    Glycol glycol;
    double fraction;
    const char* name;
  };
  for (const Case& c : {Case{"water", Glycol::none, 0.0, "water"},
                        Case{"Water", Glycol::none, 0.0, "water"},
                        Case{"PG25", Glycol::propylene, 0.25, "PG25"},
                        Case{"pg25", Glycol::propylene, 0.25, "PG25"},
                        Case{"PG 25 %", Glycol::propylene, 0.25, "PG25"},
                        Case{"PG25%", Glycol::propylene, 0.25, "PG25"},
                        Case{"PG-25", Glycol::propylene, 0.25, "PG25"},
                        Case{"EG30", Glycol::ethylene, 0.30, "EG30"},
                        Case{"EG 30 %", Glycol::ethylene, 0.30, "EG30"},
                        Case{"MEG30", Glycol::ethylene, 0.30, "EG30"},
                        Case{"MPG 40", Glycol::propylene, 0.40, "PG40"},
                        Case{"propylene glycol 25 %", Glycol::propylene, 0.25, "PG25"},
                        Case{"Ethylene Glycol 30%", Glycol::ethylene, 0.30, "EG30"},
                        Case{"PG27.5", Glycol::propylene, 0.275, "PG27.5"},
                        Case{"PG60", Glycol::propylene, 0.60, "PG60"},
                        Case{"PG0", Glycol::none, 0.0, "water"}}) {
    INFO(c.text);
    const Coolant coolant = Coolant::parse(c.text);
    CHECK(coolant.glycol() == c.glycol);
    CHECK(coolant.mass_fraction() == Approx(c.fraction).margin(1e-15));
    CHECK(coolant.name() == c.name);
    // The name parses back to the same coolant.
    CHECK(Coolant::parse(coolant.name()).mass_fraction() == coolant.mass_fraction());
  }
  const std::string expected_tail =
      "': expected 'water', 'PG<percent>' or 'EG<percent>' (for example 'PG25' or 'EG 30 %')";
  for (const char* bad : {"brine", "", "PG", "PG25x", "PGabc", "PG1e1", "PG.", "EG2.5.1", "glycol",
                          "PG nan", "EG inf"}) {
    INFO(bad);
    CHECK(error_message([&] { Coolant::parse(bad); }) ==
          std::string("unknown coolant '") + bad + expected_tail);
  }
  CHECK(error_message([] { Coolant::parse("PG80"); }) ==
        "glycol mass fraction 0.8 is outside the tabulated range 0-0.6");
  CHECK(error_message([] { Coolant::parse("EG 65 %"); }) ==
        "glycol mass fraction 0.65 is outside the tabulated range 0-0.6");
}
