// One declaration per parameter of a model's parameter struct.
//
// A parameter struct (for example electrical::TransformerParameters) holds its defaults as in-class
// initialisers. Its .cpp declares each member once, next to where the model uses it:
//
//   const ParameterDeclarations<TransformerParameters>& declarations() {
//     static const ParameterDeclarations<TransformerParameters> d = [] {
//       ParameterDeclarations<TransformerParameters> d;
//       using P = TransformerParameters;
//       d.real("rated_power", &P::rated_power, "VA", "S_rated: rated apparent power of one unit",
//              "Estimate (uncertain): 2500 kVA, ...").above(0.0).shown_in("kVA");
//       d.integer("units_per_lineup", &P::units_per_lineup, "Transformers per lineup", "...").at_least(1.0);
//       return d;
//     }();
//     return d;
//   }
//
// and everything else comes from that one list:
//
//   table()            the core::ParameterTable (name, kind, SI unit, shown unit, doc, range,
//                      source) that io/ checks scenarios against, `dctwin schema` and
//                      docs/scenario-reference.md print and the GUI's editor shows; each default is
//                      read from a default-constructed struct, so it is written only in the struct;
//   read(section)      the struct with every declared member taken from a resolved scenario section;
//   check(values, s)   every declared member against its declared range, throwing the messages of
//                      ParameterCheck::declared (parameter_check.hpp), so a model built directly in
//                      C++ refuses what io/ refuses in a scenario.
//
// A struct's check() adds only what a table cannot say (one parameter against another, lists).
// The templates below are thin loops over the declarations; the range logic and the messages are
// compiled once in parameter_check.cpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dctwin/core/parameters.hpp"
#include "dctwin/models/parameter_check.hpp"

namespace dctwin::models {

/// The path of a resolved section, or `fallback` for a tree built without one (a test's tree).
[[nodiscard]] std::string section_path(const core::ParameterTree& section, const char* fallback);

template <class S>
class ParameterDeclarations {
 public:
  /// The declaration just made, to add its range and shown unit in the same statement:
  /// `d.real(...).above(0.0).shown_in("kW")`. Holds a pointer into the list: use it before the
  /// next declaration.
  class Declared {
   public:
    explicit Declared(core::ParameterSpec& spec) : spec_(&spec) {}
    /// value > bound.
    Declared& above(double bound) { core::greater_than(*spec_, bound); return *this; }
    /// value >= bound.
    Declared& at_least(double bound) { core::at_least(*spec_, bound); return *this; }
    /// value < bound.
    Declared& below(double bound) { core::less_than(*spec_, bound); return *this; }
    /// value <= bound.
    Declared& at_most(double bound) { core::at_most(*spec_, bound); return *this; }
    /// The unit docs, messages of io/ and the GUI show the value in (`kW`, `degC`).
    Declared& shown_in(const char* unit) { spec_->display_unit = unit; return *this; }
    /// No default: the scenario must give it (the struct's initialiser is then not a default).
    Declared& required() {
      spec_->default_value.reset();
      spec_->default_text.reset();
      return *this;
    }

   private:
    core::ParameterSpec* spec_;
  };

  /// A physical quantity held in SI `unit` (udunits2 syntax, "1" when dimensionless).
  Declared real(const char* name, double S::*member, const char* unit, const char* doc, const char* source) {
    Field field;
    field.spec = core::real_parameter(name, unit, doc, defaults_.*member, source);
    field.real = member;
    return add(std::move(field));
  }
  /// A count, written without a unit.
  Declared integer(const char* name, int S::*member, const char* doc, const char* source) {
    Field field;
    field.spec = core::integer_parameter(name, doc, static_cast<double>(defaults_.*member), source);
    field.integer = member;
    return add(std::move(field));
  }
  /// true / false.
  Declared boolean(const char* name, bool S::*member, const char* doc, const char* source) {
    Field field;
    field.spec = core::boolean_parameter(name, doc, defaults_.*member);
    field.spec.source = source;
    field.flag = member;
    return add(std::move(field));
  }
  /// One of `choices`.
  Declared choice(const char* name, std::string S::*member, std::vector<std::string> choices, const char* doc,
                  const char* source) {
    Field field;
    field.spec = core::choice_parameter(name, std::move(choices), doc, defaults_.*member);
    field.spec.source = source;
    field.text = member;
    return add(std::move(field));
  }

  /// The parameter table, in declaration order.
  [[nodiscard]] core::ParameterTable table() const {
    core::ParameterTable table;
    table.reserve(fields_.size());
    for (const Field& field : fields_) table.push_back(field.spec);
    return table;
  }

  /// A default-constructed struct with every declared member read from `section` (whose schema is
  /// table(), so every name is there). Members not declared keep their defaults.
  [[nodiscard]] S read(const core::ParameterTree& section) const {
    S values{};
    for (const Field& field : fields_) {
      const std::string& name = field.spec.name;
      if (field.real != nullptr) values.*field.real = section.number(name);
      if (field.integer != nullptr) values.*field.integer = static_cast<int>(section.integer(name));
      if (field.flag != nullptr) values.*field.flag = section.boolean(name);
      if (field.text != nullptr) values.*field.text = section.text(name);
    }
    return values;
  }

  /// Every declared member of `values` against its range (numbers: also finite) or its choices,
  /// in declaration order; the first problem throws core::InputError "<section>.<name> = ...".
  void check(const S& values, const std::string& section) const {
    const ParameterCheck check(section);
    for (const Field& field : fields_) {
      if (field.real != nullptr) check.declared(field.spec, values.*field.real);
      if (field.integer != nullptr) check.declared(field.spec, static_cast<double>(values.*field.integer));
      if (field.text != nullptr) check.declared_choice(field.spec, values.*field.text);
    }
  }

 private:
  struct Field {
    core::ParameterSpec spec;
    double S::*real = nullptr;
    int S::*integer = nullptr;
    bool S::*flag = nullptr;
    std::string S::*text = nullptr;
  };

  Declared add(Field field) {
    fields_.push_back(std::move(field));
    return Declared(fields_.back().spec);
  }

  S defaults_{};
  std::vector<Field> fields_;
};

}  // namespace dctwin::models
