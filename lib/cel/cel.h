#pragma once

// A small evaluator for the subset of CEL (the Common Expression Language) that the
// `x-kubernetes-validations` rules of the bundled CRDs use. An expression is compiled once into
// an immutable `Program` and evaluated against `self` (and `oldSelf`, for transition rules).
// Nothing here throws on bad input: a malformed expression is a `CompileError`, a failing
// evaluation (no such key, type mismatch, overflow, division by zero, cost limit) an `Outcome`
// of kind `Error`. Depends on nothing but RE2 (inside cel.cpp).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace pg::cel {

class Value;
using MapEntry = std::pair<Value, Value>;

// A CEL value. Scalars are held inline; strings, bytes, lists and maps are shared and
// immutable, so copying a Value never copies their contents. Maps keep insertion order.
class Value {
 public:
  enum class Kind : std::uint8_t {
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    List,
    Map,
    Type,       // a type value, `type(x)` or `int`: its name is asString()
    Optional,   // optional.of(x) / optional.none(): hasValue(), optionalValue()
    Duration,   // nanoseconds in asInt()
    Timestamp,  // nanoseconds since the Unix epoch in asInt()
    Opaque,     // an extension value (url, ip, cidr): its type name is typeName()
  };

  Value() = default;  // null
  static Value null() { return Value(); }
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value uinteger(std::uint64_t u);
  static Value real(double d);
  static Value string(std::string s);
  static Value bytes(std::string b);
  static Value list(std::vector<Value> items);
  static Value map(std::vector<MapEntry> entries);
  static Value type(std::string_view name);
  static Value optional(const Value* inner);  // none when null
  static Value duration(std::int64_t nanoseconds);
  static Value timestamp(std::int64_t nanosecondsSinceEpoch);

  Kind kind() const { return kind_; }
  bool isNull() const { return kind_ == Kind::Null; }
  // The CEL type name: "int", "string", "list", "map", "google.protobuf.Duration", "net.IP", ...
  std::string_view typeName() const;

  // Accessors: valid only for the matching kind (checked with assert in debug builds).
  bool asBool() const { return scalar_.b; }
  std::int64_t asInt() const { return scalar_.i; }
  std::uint64_t asUint() const { return scalar_.u; }
  double asDouble() const { return scalar_.d; }
  std::string_view asString() const;  // String, Bytes, Type
  std::span<const Value> asList() const;
  std::span<const MapEntry> asMap() const;
  // A map's value for a key, with CEL's numeric key equality (1 == 1u == 1.0); null if absent.
  const Value* find(const Value& key) const;
  // A map's value for a string key; null if absent or not a map.
  const Value* field(std::string_view key) const;
  bool hasValue() const;               // Optional
  const Value& optionalValue() const;  // Optional with a value

  // CEL equality (`==`): numbers compare across int, uint and double by value; lists and maps
  // element-wise; values of different types are unequal.
  friend bool operator==(const Value& a, const Value& b);

  // A readable rendering for messages and tests: strings quoted, lists `[1, 2]`, maps
  // `{"a": 1}`.
  std::string debugString() const;

  // For extension values (lib/cel only).
  struct Heap;
  const Heap* heap() const { return heap_.get(); }
  static Value fromHeap(Kind kind, std::shared_ptr<const Heap> heap);

 private:
  union Scalar {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double d;
  };
  static Value scalar(Kind kind, Scalar scalar);

  Kind kind_ = Kind::Null;
  Scalar scalar_{.i = 0};
  std::shared_ptr<const Heap> heap_;
};

// Why an expression does not compile. `offset` is the byte offset in the expression.
// `unsupported`: the expression is (as far as we can tell) valid CEL that this evaluator does
// not implement, as opposed to a malformed one.
struct CompileError {
  std::string message;
  std::size_t offset = 0;
  bool unsupported = false;
};

namespace detail {
struct Node;
struct Access;
}  // namespace detail

// A compiled expression: immutable, cheap to copy, safe to evaluate from several threads.
class Program {
 public:
  const std::string& source() const { return source_; }

 private:
  friend std::variant<Program, CompileError> compile(std::string_view expression);
  friend std::vector<std::variant<Program, CompileError>> compileTogether(
      std::span<const std::string_view> expressions);
  friend struct detail::Access;
  friend bool referencesOldSelf(const Program& program);
  std::string source_;
  std::shared_ptr<const detail::Node> root_;
  bool oldSelf_ = false;
};

// Limits that bound a compile: CEL's own parsers cap nesting for the same reason.
inline constexpr std::size_t kMaxExpressionBytes = 64 * 1024;
inline constexpr int kMaxNesting = 100;

std::variant<Program, CompileError> compile(std::string_view expression);

// The syntax error of `expression`, without resolving its names (nullopt: it parses): what an
// environment whose variables are only known at run time checks (Envoy's attributes in Envoy
// Gateway's access log matches, which cel-go parses without a checker).
std::optional<CompileError> syntaxError(std::string_view expression);

// Compiles expressions that are evaluated on the same values, as the rules of one schema node
// are: each as compile() would, and the subexpressions of `self` two of them have in common
// (HTTPRoute's path rules all start with `self.type in ['Exact','PathPrefix']`) are marked so
// that evaluateDirect(), given one memo for them all, works each out once per value.
std::vector<std::variant<Program, CompileError>> compileTogether(
    std::span<const std::string_view> expressions);

// The variables a rule sees. A missing binding makes any reference to it an evaluation error.
struct Bindings {
  const Value* self = nullptr;
  const Value* oldSelf = nullptr;
};

struct Outcome {
  enum Kind { Value_, Error } kind = Error;
  Value value;
  std::string error;
  // The error is the cost limit: the expression may well hold, it was not worked out.
  bool costExceeded = false;
};

// Evaluation work is bounded: every node evaluated, every step of a comprehension and every
// element a function walks costs one unit (strings: one per 16 to 64 bytes); past the limit the
// outcome is an error, never a hang. The default, one million, is the figure of the apiserver's
// per-call limit (whose units are its own estimates); it bounds memory too, as each value made
// costs at least one unit.
inline constexpr std::uint64_t kDefaultCostLimit = 1'000'000;

Outcome evaluate(const Program& program, const Bindings& bindings);
Outcome evaluate(const Program& program, const Bindings& bindings, std::uint64_t costLimit);

// Whether the expression names `oldSelf` (a transition rule: nothing to compare with offline).
bool referencesOldSelf(const Program& program);

// A value `self` can be read from in place, without converting it to a Value first (the schema
// layer reads its document tree, defaults included). A Ref is the source's own handle.
class Source {
 public:
  struct Ref {
    const void* a = nullptr;
    const void* b = nullptr;
    std::uint32_t i = 0;
  };
  enum class Shape : std::uint8_t { Absent, Bool, Int, String, List, Map, Other };

  virtual ~Source() = default;
  virtual Shape shape(Ref ref) const = 0;
  virtual Ref field(Ref map, std::string_view name) const = 0;  // shape Absent when none
  // A list's items; false when they cannot be counted as a Value's would be (the caller then
  // takes the ordinary path).
  virtual bool size(Ref list, std::size_t& n) const = 0;
  virtual Ref item(Ref list, std::size_t index) const = 0;
  virtual std::string_view string(Ref ref) const = 0;
  virtual std::int64_t integer(Ref ref) const = 0;
  virtual bool boolean(Ref ref) const = 0;
};

// Whether evaluateDirect() can evaluate the expression: it uses nothing but field selection,
// has(), indexing by a literal, literals, `!`, `&&`, `||`, `? :`, `==`, `!=`, `<`, `<=`, `>`,
// `>=`, `in`, `+` on ints, startsWith, endsWith, contains, matches with a literal pattern,
// size(), and the all, exists, exists_one and filter macros over lists.
bool directlyEvaluable(const Program& program);

// Evaluates an expression with `self` read in place from `source`: the
// result of evaluate() on the equivalent Value, without building it. Nothing when the
// expression is not directly evaluable, when it meets anything the direct path does not decide
// (an error, a value of another type, a list with a pruned item, the cost limit): the caller
// then calls evaluate(), which gives the result or the error.
std::optional<bool> evaluateDirect(const Program& program, const Source& source, Source::Ref self);

}  // namespace pg::cel
