#pragma once

// The shared, immutable payloads behind a cel::Value (internal to lib/cel).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/cel/cel.h"

namespace pg::cel {

struct Value::Heap {
  virtual ~Heap() = default;
};

namespace detail {

struct StringHeap final : Value::Heap {  // String, Bytes, Type
  explicit StringHeap(std::string s) : text(std::move(s)) {}
  std::string text;
};

struct ListHeap final : Value::Heap {  // List; Optional (zero or one item)
  explicit ListHeap(std::vector<Value> v) : items(std::move(v)) {}
  std::vector<Value> items;
};

struct MapHeap final : Value::Heap {
  explicit MapHeap(std::vector<MapEntry> e) : entries(std::move(e)) {}
  std::vector<MapEntry> entries;
};

// An extension value (url, ip, cidr). Equality and rendering are the type's own.
struct OpaqueHeap : Value::Heap {
  virtual std::string_view typeName() const = 0;
  virtual bool equals(const OpaqueHeap& other) const = 0;
  virtual std::string text() const = 0;
};

inline const StringHeap& stringHeap(const Value& v) {
  return static_cast<const StringHeap&>(*v.heap());
}
inline const ListHeap& listHeap(const Value& v) {
  return static_cast<const ListHeap&>(*v.heap());
}
inline const MapHeap& mapHeap(const Value& v) {
  return static_cast<const MapHeap&>(*v.heap());
}
inline const OpaqueHeap& opaqueHeap(const Value& v) {
  return static_cast<const OpaqueHeap&>(*v.heap());
}

// Number of Unicode code points in valid UTF-8 (CEL's string size and indices count them).
std::size_t codePoints(std::string_view s);

bool isNumber(const Value& v);
// -1, 0 or 1 comparing two numbers of any numeric kinds exactly; nothing when either is NaN
// or either is not a number.
std::optional<int> compareNumbers(const Value& a, const Value& b);
std::string formatDouble(double d);
std::string formatDuration(std::int64_t nanoseconds);  // Go's form: "1.5s"

}  // namespace detail
}  // namespace pg::cel
