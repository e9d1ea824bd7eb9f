#pragma once

// The compiled form of an expression (internal to lib/cel): a tree of Nodes, identifiers
// resolved to bindings or comprehension slots and function names to Fn values at compile time.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cel/cel.h"

namespace re2 {
class RE2;
}

namespace pg::cel::detail {

enum class NodeKind : std::uint8_t {
  Literal,  // value
  Ident,    // ident, slot
  Select,   // children[0].name; optional: `.?name`
  Has,      // has(children[0].name)
  Index,    // children[0][children[1]]; optional: `[?...]`
  Call,     // fn(children...); with a receiver it is children[0]
  List,     // [children...]; optionalItems marks `?x` items
  Map,      // {children[2i]: children[2i+1]}; optionalItems marks `?k: v` entries
  Not,
  Neg,
  And,
  Or,
  Conditional,    // children[0] ? children[1] : children[2]
  Binary,         // children[0] op children[1]
  Comprehension,  // macro over children[0] with variable(s) in slot (and slot + 1)
};

enum class IdentKind : std::uint8_t { Self, OldSelf, Var, Type };

enum class BinaryOp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, In, Add, Sub, Mul, Div, Mod };

enum class Macro : std::uint8_t {
  All,        // children: range, predicate
  Exists,     // children: range, predicate
  ExistsOne,  // children: range, predicate
  Map,        // children: range, transform
  MapFilter,  // children: range, filter, transform
  Filter,     // children: range, predicate
};

// Every function the evaluator knows. Receiver-style and global forms share one Fn; the
// evaluator checks argument types at run time, as CEL's dynamic dispatch does.
enum class Fn : std::uint16_t {
  Size,
  Matches,
  StartsWith,
  EndsWith,
  Contains,
  LowerAscii,
  UpperAscii,
  Trim,
  Split,
  Join,
  IndexOf,
  LastIndexOf,
  Substring,
  Replace,
  CharAt,
  ToInt,
  ToUint,
  ToDouble,
  ToString,
  ToBytes,
  ToBool,
  Type,
  Dyn,
  IsSorted,
  Sum,
  Min,
  Max,
  Quantity,
  IsQuantity,
  QuantityIsGreaterThan,
  QuantityIsLessThan,
  QuantityCompareTo,
  QuantityIsInteger,
  QuantityAsInteger,
  QuantityAsApproximateFloat,
  QuantitySign,
  QuantityAdd,
  QuantitySub,
  Url,
  IsUrl,
  GetScheme,
  GetHost,
  GetHostname,
  GetPort,
  GetEscapedPath,
  GetQuery,
  Ip,
  IsIp,
  Cidr,
  IsCidr,
  Family,
  IsUnspecified,
  IsLoopback,
  IsLinkLocalMulticast,
  IsLinkLocalUnicast,
  IsGlobalUnicast,
  IsCanonical,
  CidrIp,  // cidr.ip()
  PrefixLength,
  ContainsIp,
  ContainsCidr,
  Masked,
  OptionalOf,
  OptionalNone,
  OptionalOfNonZero,
  HasValue,
  OptionalValue,
  OrValue,
  Or,
  Duration,
  Timestamp,
};

struct Node {
  NodeKind kind = NodeKind::Literal;
  std::size_t offset = 0;  // byte offset in the source, for messages
  int height = 1;
  Value value;               // Literal; Ident of kind Type: the type value
  std::string name;          // Ident, Select, Has, Call (as written), Comprehension's variable
  std::uint32_t nameId = 0;  // Select, Has: fieldId(name), the same for one name everywhere
  std::string name2;         // Comprehension's second variable, if any
  IdentKind ident = IdentKind::Var;
  int slot = 0;           // Ident Var; Comprehension: its first variable's slot
  bool optional = false;  // Select `.?`, Index `[?`
  bool receiver = false;  // Call: children[0] is the receiver
  BinaryOp op = BinaryOp::Eq;
  Macro macro = Macro::All;
  Fn fn = Fn::Size;
  std::vector<bool> optionalItems;  // List, Map
  std::vector<std::unique_ptr<Node>> children;
  std::shared_ptr<const re2::RE2> regex;  // Call matches() with a literal pattern
  // Not 0: a subexpression of `self` alone that another program compiled with this one has
  // too (compileTogether); evaluateDirect() works it out once per value and memo.
  std::uint32_t shareId = 0;
};

struct Access {
  static const Node& root(const Program& p) { return *p.root_; }
  static bool compiled(const Program& p) { return p.root_ != nullptr; }
};

// A small number standing for a field name, the same in every program of the process (so
// that what one rule read can be reused by another); never 0.
std::uint32_t fieldId(std::string_view name);

// Gives the subexpressions that occur more than once among `roots` (the same expression,
// reading nothing but `self`: no comprehension variable from outside it) one shareId each.
void markShared(std::span<Node* const> roots);

// The function a call names: by its name (qualified names such as "optional.of" included),
// whether it has a receiver and its number of arguments (receiver excluded). Nothing when no
// overload exists here.
std::optional<Fn> lookupFunction(std::string_view name, bool receiver, std::size_t arity);

}  // namespace pg::cel::detail
