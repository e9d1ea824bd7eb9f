#include <charconv>
#include <cmath>

#include "lib/cel/heap.h"
#include "lib/model/quote.h"

namespace pg::cel {

using detail::ListHeap;
using detail::MapHeap;
using detail::StringHeap;

Value Value::fromHeap(Kind kind, std::shared_ptr<const Heap> heap) {
  Value v;
  v.kind_ = kind;
  v.heap_ = std::move(heap);
  return v;
}

Value Value::scalar(Kind kind, Scalar scalar) {
  Value v;
  v.kind_ = kind;
  v.scalar_ = scalar;
  return v;
}

Value Value::boolean(bool b) {
  return scalar(Kind::Bool, {.b = b});
}

Value Value::integer(std::int64_t i) {
  return scalar(Kind::Int, {.i = i});
}

Value Value::uinteger(std::uint64_t u) {
  return scalar(Kind::Uint, {.u = u});
}

Value Value::real(double d) {
  return scalar(Kind::Double, {.d = d});
}

Value Value::string(std::string s) {
  return fromHeap(Kind::String, std::make_shared<StringHeap>(std::move(s)));
}

Value Value::bytes(std::string b) {
  return fromHeap(Kind::Bytes, std::make_shared<StringHeap>(std::move(b)));
}

Value Value::type(std::string_view name) {
  return fromHeap(Kind::Type, std::make_shared<StringHeap>(std::string(name)));
}

Value Value::list(std::vector<Value> items) {
  return fromHeap(Kind::List, std::make_shared<ListHeap>(std::move(items)));
}

Value Value::map(std::vector<MapEntry> entries) {
  return fromHeap(Kind::Map, std::make_shared<MapHeap>(std::move(entries)));
}

Value Value::optional(const Value* inner) {
  std::vector<Value> items;
  if (inner) items.push_back(*inner);
  return fromHeap(Kind::Optional, std::make_shared<ListHeap>(std::move(items)));
}

Value Value::duration(std::int64_t nanoseconds) {
  return scalar(Kind::Duration, {.i = nanoseconds});
}

Value Value::timestamp(std::int64_t nanosecondsSinceEpoch) {
  return scalar(Kind::Timestamp, {.i = nanosecondsSinceEpoch});
}

std::string_view Value::typeName() const {
  switch (kind_) {
    case Kind::Null:
      return "null_type";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Uint:
      return "uint";
    case Kind::Double:
      return "double";
    case Kind::String:
      return "string";
    case Kind::Bytes:
      return "bytes";
    case Kind::List:
      return "list";
    case Kind::Map:
      return "map";
    case Kind::Type:
      return "type";
    case Kind::Optional:
      return "optional_type";
    case Kind::Duration:
      return "google.protobuf.Duration";
    case Kind::Timestamp:
      return "google.protobuf.Timestamp";
    case Kind::Opaque:
      return detail::opaqueHeap(*this).typeName();
  }
  return "unknown";
}

std::string_view Value::asString() const {
  if (kind_ != Kind::String && kind_ != Kind::Bytes && kind_ != Kind::Type) return {};
  return detail::stringHeap(*this).text;
}

std::span<const Value> Value::asList() const {
  if (kind_ != Kind::List) return {};
  return detail::listHeap(*this).items;
}

std::span<const MapEntry> Value::asMap() const {
  if (kind_ != Kind::Map) return {};
  return detail::mapHeap(*this).entries;
}

const Value* Value::find(const Value& key) const {
  if (kind_ != Kind::Map) return nullptr;
  if (key.kind_ == Kind::String) return field(key.asString());
  for (const MapEntry& e : detail::mapHeap(*this).entries) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

const Value* Value::field(std::string_view key) const {
  if (kind_ != Kind::Map) return nullptr;
  for (const MapEntry& e : detail::mapHeap(*this).entries) {
    if (e.first.kind_ == Kind::String && detail::stringHeap(e.first).text == key) {
      return &e.second;
    }
  }
  return nullptr;
}

bool Value::hasValue() const {
  return kind_ == Kind::Optional && !detail::listHeap(*this).items.empty();
}

const Value& Value::optionalValue() const {
  return detail::listHeap(*this).items.front();
}

namespace detail {

bool isNumber(const Value& v) {
  return v.kind() == Value::Kind::Int || v.kind() == Value::Kind::Uint ||
         v.kind() == Value::Kind::Double;
}

namespace {

int sign(bool less, bool greater) {
  return less ? -1 : (greater ? 1 : 0);
}

// An int64 against a double, exactly (no rounding of the integer).
std::optional<int> compareIntDouble(std::int64_t i, double d) {
  if (std::isnan(d)) return std::nullopt;
  if (d < -9.2233720368547758e18) return 1;
  if (d >= 9.2233720368547758e18) return -1;
  double t = std::trunc(d);
  auto ti = static_cast<std::int64_t>(t);
  if (i != ti) return sign(i<ti, i> ti);
  return sign(d > t, d < t);
}

std::optional<int> compareUintDouble(std::uint64_t u, double d) {
  if (std::isnan(d)) return std::nullopt;
  if (d < 0) return 1;
  if (d >= 1.8446744073709552e19) return -1;
  double t = std::trunc(d);
  auto tu = static_cast<std::uint64_t>(t);
  if (u != tu) return sign(u<tu, u> tu);
  return sign(d > t, d < t);
}

}  // namespace

std::optional<int> compareNumbers(const Value& a, const Value& b) {
  using K = Value::Kind;
  switch (a.kind()) {
    case K::Int:
      switch (b.kind()) {
        case K::Int:
          return sign(a.asInt() < b.asInt(), a.asInt() > b.asInt());
        case K::Uint:
          if (a.asInt() < 0) return -1;
          return sign(static_cast<std::uint64_t>(a.asInt()) < b.asUint(),
                      static_cast<std::uint64_t>(a.asInt()) > b.asUint());
        case K::Double:
          return compareIntDouble(a.asInt(), b.asDouble());
        default:
          return std::nullopt;
      }
    case K::Uint:
      switch (b.kind()) {
        case K::Int: {
          auto r = compareNumbers(b, a);
          if (r) return -*r;
          return std::nullopt;
        }
        case K::Uint:
          return sign(a.asUint() < b.asUint(), a.asUint() > b.asUint());
        case K::Double:
          return compareUintDouble(a.asUint(), b.asDouble());
        default:
          return std::nullopt;
      }
    case K::Double:
      switch (b.kind()) {
        case K::Int:
        case K::Uint: {
          auto r = compareNumbers(b, a);
          if (r) return -*r;
          return std::nullopt;
        }
        case K::Double:
          if (std::isnan(a.asDouble()) || std::isnan(b.asDouble())) return std::nullopt;
          return sign(a.asDouble() < b.asDouble(), a.asDouble() > b.asDouble());
        default:
          return std::nullopt;
      }
    default:
      return std::nullopt;
  }
}

std::size_t codePoints(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace detail

bool operator==(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (detail::isNumber(a) && detail::isNumber(b)) {
    auto r = detail::compareNumbers(a, b);
    return r && *r == 0;
  }
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case K::Null:
      return true;
    case K::Bool:
      return a.asBool() == b.asBool();
    case K::String:
    case K::Bytes:
    case K::Type:
      return a.asString() == b.asString();
    case K::Duration:
    case K::Timestamp:
      return a.asInt() == b.asInt();
    case K::List: {
      auto x = a.asList(), y = b.asList();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(x[i] == y[i])) return false;
      }
      return true;
    }
    case K::Map: {
      auto x = a.asMap();
      if (x.size() != b.asMap().size()) return false;
      for (const MapEntry& e : x) {
        const Value* other = b.find(e.first);
        if (!other || !(e.second == *other)) return false;
      }
      return true;
    }
    case K::Optional:
      if (a.hasValue() != b.hasValue()) return false;
      return !a.hasValue() || a.optionalValue() == b.optionalValue();
    case K::Opaque:
      return a.typeName() == b.typeName() && detail::opaqueHeap(a).equals(detail::opaqueHeap(b));
    default:
      return false;
  }
}

namespace {

void render(std::string& out, const Value& v) {
  using K = Value::Kind;
  switch (v.kind()) {
    case K::Null:
      out += "null";
      return;
    case K::Bool:
      out += v.asBool() ? "true" : "false";
      return;
    case K::Int:
      out += std::to_string(v.asInt());
      return;
    case K::Uint:
      out += std::to_string(v.asUint()) + "u";
      return;
    case K::Double:
      out += detail::formatDouble(v.asDouble());
      return;
    case K::String:
      model::appendQuoted(out, v.asString());
      return;
    case K::Bytes:
      out += 'b';
      model::appendQuoted(out, v.asString());
      return;
    case K::Type:
      out += v.asString();
      return;
    case K::List: {
      out += '[';
      bool first = true;
      for (const Value& item : v.asList()) {
        if (!first) out += ", ";
        first = false;
        render(out, item);
      }
      out += ']';
      return;
    }
    case K::Map: {
      out += '{';
      bool first = true;
      for (const MapEntry& e : v.asMap()) {
        if (!first) out += ", ";
        first = false;
        render(out, e.first);
        out += ": ";
        render(out, e.second);
      }
      out += '}';
      return;
    }
    case K::Optional:
      if (!v.hasValue()) {
        out += "optional.none()";
        return;
      }
      out += "optional.of(";
      render(out, v.optionalValue());
      out += ')';
      return;
    case K::Duration:
      out += "duration(\"" + detail::formatDuration(v.asInt()) + "\")";
      return;
    case K::Timestamp:
      out += "timestamp(" + std::to_string(v.asInt()) + "ns)";
      return;
    case K::Opaque:
      out += v.typeName();
      out += '(';
      model::appendQuoted(out, detail::opaqueHeap(v).text());
      out += ')';
      return;
  }
}

}  // namespace

std::string Value::debugString() const {
  std::string out;
  render(out, *this);
  return out;
}

namespace detail {

std::string formatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string formatDuration(std::int64_t ns) {
  // Go's time.Duration text for whole seconds and fractions: "1.5s", "-3s", "0s".
  std::string out;
  std::uint64_t u = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  if (ns < 0) out += '-';
  out += std::to_string(u / 1'000'000'000);
  if (std::uint64_t frac = u % 1'000'000'000) {
    std::string f = std::to_string(frac);
    f.insert(0, 9 - f.size(), '0');
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += '.' + f;
  }
  out += 's';
  return out;
}

}  // namespace detail
}  // namespace pg::cel
