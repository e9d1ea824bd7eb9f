// The conditions of the Kuadrant RFC's constraints (examples E1-E3): a `when` on a defaults
// or overrides block holds a CEL expression evaluated against the lower policy (`self`), and
// the block applies only when it holds. No Debian package evaluates CEL, and the RFC leaves
// the expression open, so policygraph evaluates the part of CEL that constraints are written
// in and says so for the rest:
//
//   expression  := or
//   or          := and ("||" and)*
//   and         := unary ("&&" unary)*
//   unary       := "!" unary | comparison
//   comparison  := operand (("<" | "<=" | ">" | ">=" | "==" | "!=") operand)?
//   operand     := literal | path | "size(" path ")" | "has(" path ")" | "(" expression ")"
//   path        := "self" ("." name | "[" integer "]" | "[" string "]")*
//   literal     := integer | decimal | "string" | 'string' | true | false | null
//
// A path that does not exist makes its comparison false (CEL would raise an error, which a
// controller treats as "the condition does not hold").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "lib/policy/value.h"

namespace pg::policy::kuadrant {

struct WhenNode;

class WhenExpression {
 public:
  WhenExpression();
  ~WhenExpression();
  WhenExpression(WhenExpression&&) noexcept;
  WhenExpression& operator=(WhenExpression&&) noexcept;

  // Parses `text`; returns nothing and sets `error` (what is not supported, and where) when
  // it is not in the subset above.
  static std::optional<WhenExpression> parse(std::string_view text, std::string& error);

  // Whether the condition holds for `self`, the lower policy as merged so far.
  bool holds(const Value& self) const;

 private:
  std::unique_ptr<WhenNode> root_;
};

}  // namespace pg::policy::kuadrant
