// Writing YAML: a small streaming interface over yaml-cpp's emitter, so no other folder sees
// yaml-cpp. Strings that YAML would read back as something else (`True`, `80`, `null`, `on`)
// are quoted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace pg::yaml {

class Writer {
 public:
  Writer();
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void beginMap();
  void endMap();
  void beginList();
  void endList();
  void key(std::string_view key);
  void string(std::string_view value);
  void integer(std::int64_t value);
  void number(double value);
  void boolean(bool value);
  void null();
  // An empty list or mapping, `[]` or `{}` on its key's line (a block one with no entries
  // would put that on a line of its own).
  void emptyList();
  void emptyMap();
  void comment(std::string_view text);  // after the value just written

  std::string str() const;  // the document, ending with a newline

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pg::yaml
