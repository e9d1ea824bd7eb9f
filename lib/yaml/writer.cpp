#include "lib/yaml/writer.h"

#include <yaml-cpp/yaml.h>

#include "lib/yaml/parser.h"

namespace pg::yaml {

struct Writer::Impl {
  YAML::Emitter out;
};

Writer::Writer() : impl_(std::make_unique<Impl>()) {
  impl_->out.SetIndent(2);
  impl_->out.SetSeqFormat(YAML::Block);
  impl_->out.SetMapFormat(YAML::Block);
}

Writer::~Writer() = default;

void Writer::beginMap() {
  impl_->out << YAML::BeginMap;
}
void Writer::endMap() {
  impl_->out << YAML::EndMap;
}
void Writer::beginList() {
  impl_->out << YAML::BeginSeq;
}
void Writer::endList() {
  impl_->out << YAML::EndSeq;
}
void Writer::key(std::string_view key) {
  impl_->out << YAML::Key;
  string(key);
  impl_->out << YAML::Value;
}

namespace {

// Whether a plain scalar with this text would be read back as a string by YAML 1.1 and 1.2
// readers alike (Kubernetes reads YAML 1.1: `yes`, `on` and `0x1F` are not strings there).
bool safePlain(std::string_view text) {
  if (text.empty()) return false;
  // The common case, decided without parsing: a word that starts with a letter and is not
  // one of YAML's keywords.
  static constexpr std::string_view kKeywords[] = {"true", "false", "null", "yes", "no",
                                                   "on",   "off",   "y",    "n"};
  bool word = (text[0] >= 'a' && text[0] <= 'z') || (text[0] >= 'A' && text[0] <= 'Z');
  for (char c : text)
    word = word && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '/');
  if (word) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (std::string_view k : kKeywords)
      if (lower == k) return false;
    return true;
  }
  std::string parsed = std::string("v: ") + std::string(text) + "\n";
  ParseResult r = parse(parsed, {}, false);
  if (!r.problems.empty() || r.tree->documents().empty()) return false;
  NodeRef v = r.tree->root(0).get("v");
  if (!v.isString() || v.str() != text) return false;
  static constexpr std::string_view kYaml11[] = {"y",  "Y",   "yes", "Yes", "YES", "n",
                                                 "N",  "no",  "No",  "NO",  "on",  "On",
                                                 "ON", "off", "Off", "OFF"};
  for (std::string_view word : kYaml11)
    if (text == word) return false;
  // Numbers YAML 1.1 reads differently (octal, hex, sexagesimal, underscores).
  bool numeric = true;
  for (char c : text)
    numeric = numeric && ((c >= '0' && c <= '9') || c == '_' || c == ':' || c == '.' || c == '+' ||
                          c == '-' || c == 'x' || c == 'o' || c == 'e' || c == 'E' ||
                          (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
  return !numeric;
}

}  // namespace

void Writer::string(std::string_view value) {
  if (safePlain(value)) {
    impl_->out << std::string(value);
  } else {
    impl_->out << YAML::DoubleQuoted << std::string(value);
  }
}

void Writer::integer(std::int64_t value) {
  impl_->out << value;
}
void Writer::number(double value) {
  impl_->out << value;
}
void Writer::boolean(bool value) {
  impl_->out << YAML::TrueFalseBool << value;
}
void Writer::null() {
  impl_->out << YAML::Null;
}
void Writer::emptyList() {
  impl_->out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
}
void Writer::emptyMap() {
  impl_->out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
}
void Writer::comment(std::string_view text) {
  impl_->out << YAML::Comment(std::string(text));
}

std::string Writer::str() const {
  std::string out = impl_->out.c_str();
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

}  // namespace pg::yaml
