#include "dctwin/core/input_error.hpp"
#include "dctwin/io/units.hpp"

#include <udunits2.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace dctwin::io {

namespace {

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

/// Facility engineers' units that udunits2 reads otherwise or not at all, as whole words of a unit
/// expression: udunits2 takes `gal` for the galileo (an acceleration, 0.01 m/s2) and `TR` for the
/// tera-roentgen, and knows neither `gpm` nor `CFM`. Factors (NIST SP 811, 2008 edition, Appendix B.8 and B.9):
///   US gallon  1 gal = 231 in3 = 3.785411784e-3 m3 exactly (the inch is 2.54 cm exactly); written
///              as 231 inch^3 because udunits2 stores the gallon rounded to 3.785412e-3 m3
///   gpm        1 gal/min = 6.30901964e-5 m3/s
///   CFM        1 ft3/min = 28.316846592e-3 m3 / 60 s = 4.719474432e-4 m3/s
///   TR         ton of refrigeration, 12,000 Btu_IT/h = 3.516852842e3 W (Btu_IT = 1055.05585262 J
///              exactly, as udunits2's `Btu`)
struct UnitAlias {
  std::string_view word, meaning;
};
constexpr std::array<UnitAlias, 8> unit_aliases = {{
    {"gal", "(231 inch^3)"},
    {"gpm", "(231 inch^3/min)"},
    {"GPM", "(231 inch^3/min)"},
    {"cfm", "(ft^3/min)"},
    {"CFM", "(ft^3/min)"},
    {"TR", "(12000 Btu/h)"},
    {"ton_refrigeration", "(12000 Btu/h)"},
    {"tons_refrigeration", "(12000 Btu/h)"},
}};

/// Words refused as ambiguous: to udunits2 `ton` is the short ton of mass (907 kg), to a cooling
/// engineer the ton of refrigeration (3.517 kW). dctwin reads neither; the message names both.
constexpr std::array<std::string_view, 2> ambiguous_words = {"ton", "tons"};

bool is_word_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

/// Calls `visit(word)` for every whole word of `text` (letters, digits, '_'); `visit` returns the
/// text that replaces the word. Returns the rewritten text.
template <typename Visit>
std::string rewrite_words(std::string_view text, Visit visit) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!is_word_character(text[i])) {
      out += text[i++];
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && is_word_character(text[j])) ++j;
    out += visit(text.substr(i, j - i));
    i = j;
  }
  return out;
}

/// `text` with every whole word that has an alias replaced by its meaning.
std::string with_aliases(std::string_view text) {
  return rewrite_words(text, [](std::string_view word) {
    for (const UnitAlias& alias : unit_aliases)
      if (word == alias.word) return alias.meaning;
    return word;
  });
}

/// The first ambiguous word of a unit expression, or empty.
std::string ambiguous_word_in(std::string_view text) {
  std::string found;
  (void)rewrite_words(text, [&](std::string_view word) {
    for (std::string_view ambiguous : ambiguous_words)
      if (word == ambiguous && found.empty()) found = std::string(word);
    return word;
  });
  return found;
}

/// The udunits2 unit system with caches of parsed units and converters. udunits2 is not
/// thread-safe (its parser has global state), so every call into it holds `mutex_`.
class UnitDatabase {
 public:
  static UnitDatabase& instance() {
    static UnitDatabase database;
    return database;
  }

  UnitDatabase(const UnitDatabase&) = delete;
  UnitDatabase& operator=(const UnitDatabase&) = delete;

  ~UnitDatabase() {
    for (auto& entry : converters_)
      if (entry.second != nullptr) cv_free(entry.second);
    for (auto& entry : units_)
      if (entry.second != nullptr) ut_free(entry.second);
    ut_free_system(system_);
  }

  bool known(std::string_view unit) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return find_unit(unit) != nullptr;
  }

  bool convertible(std::string_view from, std::string_view to) {
    const std::lock_guard<std::mutex> lock(mutex_);
    ut_unit* b = find_unit(to);
    ut_unit* a = find_unit(from);
    return a != nullptr && b != nullptr && ut_are_convertible(a, b) != 0;
  }

  double convert(double value, std::string_view from, std::string_view to) {
    if (from == to) return value;
    const std::lock_guard<std::mutex> lock(mutex_);
    const cv_converter* converter = find_converter(from, to);
    return cv_convert_double(converter, value);
  }

 private:
  UnitDatabase() {
    ut_set_error_message_handler(ut_ignore);
    system_ = ut_read_xml(nullptr);
    if (system_ == nullptr)
      throw std::runtime_error("cannot load the udunits2 unit database (status " +
                               std::to_string(ut_get_status()) +
                               "; is libudunits2-data installed, or UDUNITS2_XML_PATH set?)");
  }

  // Parsed unit or nullptr if udunits2 does not know it or it is ambiguous. Caller holds the mutex.
  ut_unit* find_unit(std::string_view text) {
    std::string key(trim(text));
    if (!ambiguous_word_in(key).empty()) return nullptr;
    const std::string expression = with_aliases(key);
    auto it = units_.find(key);
    if (it != units_.end()) return it->second;
    ut_unit* unit = key.empty() ? nullptr : ut_parse(system_, expression.c_str(), UT_UTF8);
    units_.emplace(key, unit);
    return unit;
  }

  // Converter, or throws UnitError. Caller holds the mutex.
  const cv_converter* find_converter(std::string_view from, std::string_view to) {
    auto key = std::make_pair(std::string(trim(from)), std::string(trim(to)));
    auto it = converters_.find(key);
    if (it != converters_.end()) return it->second;
    for (const std::string* unit : {&key.first, &key.second}) {
      const std::string word = ambiguous_word_in(*unit);
      if (!word.empty())
        throw UnitError(UnitError::Reason::unknown_unit,
                        "ambiguous unit " + quoted(word) + (*unit == word ? std::string() : " in " + quoted(*unit)) +
                            ": write 'TR' for the ton of refrigeration, 12000 Btu/h = 3.517 kW, or 'short_ton', "
                            "'long_ton' or 't' for a mass");
    }
    ut_unit* b = find_unit(key.second);
    ut_unit* a = find_unit(key.first);
    if (a == nullptr)
      throw UnitError(UnitError::Reason::unknown_unit, "unknown unit " + quoted(key.first));
    if (b == nullptr)
      throw UnitError(UnitError::Reason::unknown_unit, "unknown unit " + quoted(key.second));
    cv_converter* converter = ut_are_convertible(a, b) != 0 ? ut_get_converter(a, b) : nullptr;
    if (converter == nullptr)
      throw UnitError(UnitError::Reason::not_convertible,
                      "unit " + quoted(key.first) + " is not convertible to " + quoted(key.second));
    converters_.emplace(std::move(key), converter);
    return converter;
  }

  std::mutex mutex_;
  ut_system* system_ = nullptr;
  std::map<std::string, ut_unit*, std::less<>> units_;
  std::map<std::pair<std::string, std::string>, cv_converter*> converters_;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// `inf`, `infinity`, `nan`, with an optional sign and YAML's leading dot, as a whole word.
bool names_non_finite(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  if (!text.empty() && text.front() == '.') text.remove_prefix(1);
  std::string word;
  for (char c : text) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return word == "inf" || word == "infinity" || word == "nan";
}

std::string format_with_precision(double value, int digits) {
  std::array<char, 64> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", digits, value);
  std::string text(buffer.data());
  if (text == "-0") text = "0";
  return text;
}

}  // namespace

Quantity parse_quantity(std::string_view text) {
  const std::string_view written = trim(text);
  if (names_non_finite(written))
    throw UnitError(UnitError::Reason::not_finite, quoted(written) + " is not a finite number");
  const auto not_a_number = [&] {
    return UnitError(UnitError::Reason::not_a_number, quoted(written) + " is not a number");
  };

  // sign? digits* ('.' digits*)? (e sign? digits+)?, with at least one mantissa digit
  std::size_t pos = 0;
  const std::size_t size = written.size();
  bool negative = false;
  if (pos < size && (written[pos] == '+' || written[pos] == '-')) negative = written[pos++] == '-';
  const std::size_t mantissa_begin = pos;
  std::size_t mantissa_digits = 0;
  while (pos < size && is_digit(written[pos])) ++pos, ++mantissa_digits;
  if (pos < size && written[pos] == '.') {
    ++pos;
    while (pos < size && is_digit(written[pos])) ++pos, ++mantissa_digits;
  }
  if (mantissa_digits == 0) throw not_a_number();
  const std::size_t mantissa_end = pos;
  if (pos < size && (written[pos] == 'e' || written[pos] == 'E')) {
    std::size_t exponent = pos + 1;
    if (exponent < size && (written[exponent] == '+' || written[exponent] == '-')) ++exponent;
    if (exponent < size && is_digit(written[exponent])) {
      pos = exponent;
      while (pos < size && is_digit(written[pos])) ++pos;
    }
  }
  const std::string_view number_text = written.substr(mantissa_begin, pos - mantissa_begin);
  const std::string_view unit_text = trim(written.substr(pos));
  // A unit never starts like a number ("1.2.3", "5 2"), except a reciprocal such as `1/s`.
  if (!unit_text.empty() &&
      (is_digit(unit_text.front()) || unit_text.front() == '.' || unit_text.front() == '+' ||
       unit_text.front() == '-') &&
      unit_text.substr(0, 2) != "1/")
    throw not_a_number();

  Quantity quantity;
  double magnitude = 0.0;
  const char* first = number_text.data();
  const char* last = first + number_text.size();
  const auto result = std::from_chars(first, last, magnitude, std::chars_format::general);
  if (result.ec == std::errc::result_out_of_range) {
    // Overflow is not finite; underflow is zero. Tell them apart from the decimal magnitude.
    double mantissa = 0.0;
    std::from_chars(written.data() + mantissa_begin, written.data() + mantissa_end, mantissa);
    long exponent = 0;
    if (mantissa_end < pos) {
      const char* e = written.data() + mantissa_end + 1;
      if (*e == '+') ++e;
      std::from_chars(e, written.data() + pos, exponent);
    }
    if (mantissa != 0.0 && std::log10(mantissa) + static_cast<double>(exponent) > 0.0)
      throw UnitError(UnitError::Reason::not_finite, quoted(written) + " is not a finite number");
    magnitude = 0.0;
  } else if (result.ec != std::errc{} || result.ptr != last) {
    throw not_a_number();
  }
  if (!std::isfinite(magnitude))
    throw UnitError(UnitError::Reason::not_finite, quoted(written) + " is not a finite number");
  quantity.number = negative ? -magnitude : magnitude;
  quantity.unit = std::string(unit_text);
  return quantity;
}

double convert(double value, std::string_view from_unit, std::string_view to_unit) {
  return UnitDatabase::instance().convert(value, from_unit, to_unit);
}

double to_si(const Quantity& quantity, std::string_view si_unit) {
  if (quantity.unit.empty()) return quantity.number;
  const double value = convert(quantity.number, quantity.unit, si_unit);
  if (!std::isfinite(value))
    throw UnitError(UnitError::Reason::not_finite,
                    quoted(format_number(quantity.number) + " " + quantity.unit) +
                        " is not a finite number in " + std::string(si_unit));
  return value;
}

double parse_to_si(std::string_view text, std::string_view si_unit) {
  return to_si(parse_quantity(text), si_unit);
}

bool is_known_unit(std::string_view unit) { return UnitDatabase::instance().known(unit); }

bool are_convertible(std::string_view from_unit, std::string_view to_unit) {
  return UnitDatabase::instance().convertible(from_unit, to_unit);
}

double parse_duration(std::string_view text) {
  const std::string written(trim(text));
  const auto invalid = [&](const std::string& rule) {
    return core::InputError("invalid duration " + quoted(written) + " (" + rule + ")");
  };
  Quantity quantity;
  try {
    quantity = parse_quantity(written);
  } catch (const UnitError& error) {
    if (error.reason() == UnitError::Reason::not_finite) throw invalid("must be a finite number");
    throw invalid("must be a number of seconds or a number with a time unit, such as '10 min'");
  }
  double seconds = 0.0;
  try {
    seconds = to_si(quantity, "s");
  } catch (const UnitError& error) {
    throw invalid(error.what());
  }
  if (seconds < 0.0) throw invalid("must be >= 0");
  return seconds;
}

std::string format_number(double value) { return format_with_precision(value, 10); }

std::string format_number_exact(double value) {
  // Shortest round-trip digits; plain notation for exponents -4..16 (`100000`, `0.001`),
  // scientific otherwise (`2.0000000000000005e-05`), as %g does.
  std::array<char, 400> buffer{};
  char* const first = buffer.data();
  char* const last = first + buffer.size();
  auto result = std::to_chars(first, last, value, std::chars_format::scientific);
  const std::string scientific(first, result.ptr);
  const auto e = scientific.find('e');
  int exponent = 0;
  if (e != std::string::npos) {
    const char* digits = scientific.c_str() + e + 1;
    if (*digits == '+') ++digits;
    std::from_chars(digits, scientific.c_str() + scientific.size(), exponent);
  }
  std::string text = scientific;
  if (std::isfinite(value) && exponent >= -4 && exponent <= 16) {
    result = std::to_chars(first, last, value, std::chars_format::fixed);
    text.assign(first, result.ptr);
  }
  if (text == "-0") text = "0";
  return text;
}

std::string format_quantity(double si_value, const std::string& si_unit,
                            const std::string& display_unit) {
  const std::string& unit = display_unit.empty() ? si_unit : display_unit;
  const double value = unit == si_unit ? si_value : convert(si_value, si_unit, unit);
  std::string text = format_number(value);
  if (!unit.empty() && unit != "1") text += " " + unit;
  return text;
}

}  // namespace dctwin::io
