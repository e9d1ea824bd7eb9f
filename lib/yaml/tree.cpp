#include "lib/yaml/tree.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace pg::yaml {

std::string_view StringArena::store(std::string_view text) {
  if (text.empty()) return {};
  if (text.size() > capacity_ - used_) {
    std::size_t size = std::max<std::size_t>(text.size(), 64 * 1024);
    chunks_.push_back(std::make_unique<char[]>(size));
    used_ = 0;
    capacity_ = size;
  }
  char* out = chunks_.back().get() + used_;
  std::memcpy(out, text.data(), text.size());
  used_ += text.size();
  return {out, text.size()};
}

NodeRef Tree::root(std::size_t document) const {
  if (document >= documents_.size()) return {};
  return {this, documents_[document].root};
}

bool NodeRef::isNull() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return false;
  std::string_view v = node().value;
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

std::optional<bool> NodeRef::asBool() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return std::nullopt;
  std::string_view v = node().value;
  if (v == "true" || v == "True" || v == "TRUE") return true;
  if (v == "false" || v == "False" || v == "FALSE") return false;
  return std::nullopt;
}

std::optional<std::int64_t> NodeRef::asInt() const {
  if (!isScalar() || node().style != ScalarStyle::Plain) return std::nullopt;
  std::string_view v = node().value;
  if (!v.empty() && v.front() == '+') v.remove_prefix(1);
  std::int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || ptr != v.data() + v.size() || v.empty()) return std::nullopt;
  return out;
}

bool NodeRef::isString() const {
  if (!isScalar()) return false;
  if (node().style != ScalarStyle::Plain) return true;
  if (isNull() || asBool() || asInt()) return false;
  // Floats and the special values of the YAML 1.2 core schema.
  std::string_view v = node().value;
  static constexpr std::string_view kSpecial[] = {".inf",  ".Inf",  ".INF", "-.inf", "-.Inf",
                                                  "-.INF", "+.inf", ".nan", ".NaN",  ".NAN"};
  if (std::find(std::begin(kSpecial), std::end(kSpecial), v) != std::end(kSpecial)) return false;
  double d = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
  return !(ec == std::errc() && ptr == v.data() + v.size());
}

std::size_t NodeRef::size() const {
  if (!tree_ || node().kind == NodeKind::Scalar) return 0;
  return node().kind == NodeKind::Mapping ? node().count / 2 : node().count;
}

NodeRef NodeRef::keyNode(std::string_view key) const {
  if (!isMapping()) return {};
  const std::uint32_t n = node().count;
  for (std::uint32_t i = 0; i < n; i += 2) {
    NodeRef k = child(i);
    if (k.isScalar() && k.node().value == key) return k;
  }
  return {};
}

NodeRef NodeRef::get(std::string_view key) const {
  if (!isMapping()) return {};
  const std::uint32_t n = node().count;
  for (std::uint32_t i = 0; i < n; i += 2) {
    NodeRef k = child(i);
    if (k.isScalar() && k.node().value == key) return child(i + 1);
  }
  return {};
}

NodeRef NodeRef::at(std::size_t index) const {
  if (!isSequence() || index >= node().count) return {};
  return child(index);
}

NodeRef NodeRef::keyAt(std::size_t entry) const {
  if (!isMapping() || entry * 2 >= node().count) return {};
  return child(entry * 2);
}

NodeRef NodeRef::valueAt(std::size_t entry) const {
  if (!isMapping() || entry * 2 >= node().count) return {};
  return child(entry * 2 + 1);
}

}  // namespace pg::yaml
