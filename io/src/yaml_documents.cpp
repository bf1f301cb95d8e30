#include "yaml_documents.hpp"

#include <sstream>

#include <yaml-cpp/eventhandler.h>

namespace dctwin::io {

/// The length of the well-formed UTF-8 sequence starting at `text[at]` (1 to 4 bytes), or 0 when the
/// bytes there are not one: a stray continuation byte, a truncated sequence, an overlong form, a
/// surrogate (U+D800-U+DFFF) or a code point above U+10FFFF (Unicode 15, table 3-7).
std::size_t utf8_sequence_length(const std::string& text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
  return length;
}

/// The text of a scalar as UTF-8. yaml-cpp 0.7 decodes the YAML escapes `\N` (U+0085) and `\_`
/// (U+00A0) to the single bytes 0x85 and 0xA0 instead of their UTF-8 encodings, so `"a\Nb"` read
/// back as text that is not UTF-8 (and the resolved scenario written from it did not load). The
/// other escapes are encoded, so in a file that is UTF-8 a byte that starts no UTF-8 sequence in a
/// scalar is one of those two: it is encoded as the character it stands for. Other bytes are
/// copied (a file that is not UTF-8 is refused where the scenario is parsed).
std::string scalar_text(const YAML::Node& node) {
  const std::string& raw = node.Scalar();
  std::string text;
  text.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t length = utf8_sequence_length(raw, i);
    if (length > 0) {
      text.append(raw, i, length);
      i += length;
      continue;
    }
    const auto byte = static_cast<unsigned char>(raw[i++]);
    if (byte == 0x85 || byte == 0xA0) text += static_cast<char>(0xC2);
    text += static_cast<char>(byte);
  }
  return text;
}

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

const char* node_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a single value";
    default:
      return "empty";
  }
}

}  // namespace dctwin::io
