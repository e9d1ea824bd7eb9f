// The CEL subset of Kuadrant constraint conditions (`when` on defaults/overrides blocks).
#include <doctest/doctest.h>

#include "lib/policy/kuadrant/when.h"
#include "lib/yaml/parser.h"

namespace {

using pg::policy::Value;
using pg::policy::kuadrant::WhenExpression;

bool holds(const std::string& expression, const Value& self) {
  std::string error;
  std::optional<WhenExpression> e = WhenExpression::parse(expression, error);
  REQUIRE_MESSAGE(e, error);
  return e->holds(self);
}

}  // namespace

TEST_CASE("when conditions read the lower policy through self") {
  pg::yaml::ParseResult parsed = pg::yaml::parse(
      "limits:\n  a:\n    rates:\n    - limit: 500\n      window: 1m\n  b:\n    rates: []\n", {},
      false);
  Value self = pg::policy::wholeValue(parsed.tree->root(0), {});
  CHECK(holds("self.limits.a.rates[0].limit > 100", self));
  CHECK_FALSE(holds("self.limits.a.rates[0].limit <= 100", self));
  CHECK(holds("self.limits.a.rates[0].window == '1m'", self));
  CHECK(holds("self.limits[\"a\"].rates[0].window != \"2m\"", self));
  CHECK(holds("has(self.limits.b) && !has(self.limits.c)", self));
  CHECK(holds("size(self.limits) == 2 || false", self));
  CHECK(holds("(self.limits.a.rates[0].limit > 1000) || size(self.limits.b.rates) == 0", self));
  // A path that leads nowhere makes its comparison false; types do not order across.
  CHECK_FALSE(holds("self.limits.z.rates[0].limit > 1", self));
  CHECK_FALSE(holds("self.limits.a.rates[0].window > 1", self));
}

TEST_CASE("when conditions outside the subset are refused with the spot") {
  std::string error;
  CHECK_FALSE(WhenExpression::parse("self.limits.all(r, r.limit < 10)", error));
  CHECK(error.find("column") != std::string::npos);
  error.clear();
  CHECK_FALSE(WhenExpression::parse("request.method == 'GET'", error));
  CHECK(error.find("self") != std::string::npos);
  error.clear();
  CHECK_FALSE(WhenExpression::parse(std::string(200, '(') + "true" + std::string(200, ')'), error));
  CHECK(error.find("deeply") != std::string::npos);
}
