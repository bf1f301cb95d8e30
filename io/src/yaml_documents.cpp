#include "yaml_documents.hpp"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace dctwin::io {

namespace {

/// Notes where each document starts; every other event is ignored.
class DocumentStarts : public YAML::EventHandler {
 public:
  YAML::Mark last;
  bool stalled = false;
  int count = 0;

  void OnDocumentStart(const YAML::Mark& mark) override {
    // Every document consumes at least one token, so the next one starts further on.
    if (count > 0 && mark.pos <= last.pos) stalled = true;
    last = mark;
    ++count;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace

std::vector<YAML::Node> load_all_documents(const std::string& text) {
  // A first pass over the events only, stopped as soon as the parser stops advancing.
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts starts;
  while (parser.HandleNextDocument(starts)) {
    if (starts.stalled) {
      const auto pos = static_cast<std::size_t>(starts.last.pos);
      throw YAML::ParserException(starts.last, pos < text.size() ? std::string("unexpected '") + text[pos] + "'"
                                                                 : std::string("unexpected end of file"));
    }
  }
  return YAML::LoadAll(text);
}

}  // namespace dctwin::io
