#include "lib/cel/cel.h"

#include <doctest/doctest.h>

#include <string>

using namespace pg::cel;

namespace {

// A value written as a CEL literal (evaluated with nothing bound).
Value literal(std::string_view text) {
  auto compiled = compile(text);
  REQUIRE_MESSAGE(std::holds_alternative<Program>(compiled), text);
  Outcome out = evaluate(std::get<Program>(compiled), {});
  REQUIRE_MESSAGE(out.kind == Outcome::Value_, text, ": ", out.error);
  return out.value;
}

Outcome run(std::string_view expression, std::string_view self = "null") {
  auto compiled = compile(expression);
  if (auto* error = std::get_if<CompileError>(&compiled)) {
    FAIL_CHECK(expression, ": does not compile: ", error->message);
    return {};
  }
  Value s = literal(self);
  return evaluate(std::get<Program>(compiled), Bindings{&s, nullptr});
}

struct Row {
  std::string_view expression;
  std::string_view self;
  // A CEL literal the result must equal (same kind too), or "error: <part of the message>".
  std::string_view expected;
};

void check(const Row& row) {
  CAPTURE(row.expression);
  CAPTURE(row.self);
  Outcome out = run(row.expression, row.self);
  std::string_view expected = row.expected;
  if (expected.starts_with("error: ")) {
    expected.remove_prefix(7);
    REQUIRE_MESSAGE(out.kind == Outcome::Error, "got ", out.value.debugString());
    CHECK_MESSAGE(out.error.find(expected) != std::string::npos, out.error);
    return;
  }
  REQUIRE_MESSAGE(out.kind == Outcome::Value_, out.error);
  Value want = literal(expected);
  CHECK_MESSAGE(out.value == want, out.value.debugString(), " != ", want.debugString());
  CHECK_MESSAGE(out.value.kind() == want.kind(), out.value.debugString(), " is not a ",
                want.typeName());
}

}  // namespace

TEST_CASE("cel: literals") {
  const Row rows[] = {
      {"1", "null", "1"},
      {"0x1F", "null", "31"},
      {"-9223372036854775808", "null", "-9223372036854775808"},
      {"18446744073709551615u", "null", "18446744073709551615u"},
      {"1.5e2", "null", "150.0"},
      {"'a\\tb'", "null", "\"a\\tb\""},
      {"r'a\\tb'", "null", "'a' + '\\\\' + 'tb'"},
      {"'''multi\nline'''", "null", "'multi\\nline'"},
      {"'\\u00e9' == '\u00e9'", "null", "true"},
      {"'\\303\\251' == '\u00c3\u00a9'", "null", "true"},
      {"b'\\303\\251' == bytes('\u00e9')", "null", "true"},
      {"size(b'\\xff')", "null", "1"},
      {"[1, 'a', [true]]", "null", "[1, 'a', [true]]"},
      {"{'a': 1, 'b': 2}.b", "null", "2"},
      {"null == null", "null", "true"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: compile errors are malformed or unsupported, never a crash") {
  struct Case {
    std::string_view expression;
    bool unsupported;
  };
  const Case cases[] = {
      {"", false},
      {"1 +", false},
      {"(1", false},
      {"a", false},  // undeclared
      {"self.", false},
      {"'unterminated", false},
      {"9223372036854775808", false},
      {"self = 1", false},
      {"self & 1", false},
      {"self.matches('[')", false},
      {"if", false},
      {"has(self)", false},
      {"self.all(1, true)", false},
      {"'\\q'", false},
      {"self.frobnicate()", true},
      {"Msg{a: 1}", true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expression);
    auto compiled = compile(c.expression);
    REQUIRE(std::holds_alternative<CompileError>(compiled));
    CHECK(std::get<CompileError>(compiled).unsupported == c.unsupported);
  }
  // Nesting is bounded before it reaches the stack.
  std::string deep(100000, '(');
  CHECK(std::holds_alternative<CompileError>(compile(deep)));
  std::string chain = "self";
  for (int i = 0; i < 500; ++i) chain += ".a";
  CHECK(std::holds_alternative<CompileError>(compile(chain)));
  std::string nots(100000, '!');
  CHECK(std::holds_alternative<CompileError>(compile(nots + "true")));
  // A long && chain is balanced, so it compiles.
  std::string conj = "true";
  for (int i = 0; i < 1000; ++i) conj += " && true";
  CHECK(std::holds_alternative<Program>(compile(conj)));
  CHECK(std::holds_alternative<CompileError>(compile(std::string(kMaxExpressionBytes + 1, ' '))));
}

TEST_CASE("cel: field selection, has and indexing") {
  const Row rows[] = {
      {"self.a", "{'a': 1}", "1"},
      {"self.a.b", "{'a': {'b': 'x'}}", "'x'"},
      {"self.b", "{'a': 1}", "error: no such key"},
      {"self.a.b", "{'a': 1}", "error: has no field"},
      {"has(self.a)", "{'a': 1}", "true"},
      {"has(self.b)", "{'a': 1}", "false"},
      {"has(self.a.b)", "{'a': {}}", "false"},
      {"has(self.a)", "1", "error: has no fields"},
      {"self[1]", "[10, 20]", "20"},
      {"self[1u]", "[10, 20]", "20"},
      {"self[2]", "[10, 20]", "error: index out of bounds"},
      {"self[-1]", "[10, 20]", "error: index out of bounds"},
      {"self['k']", "{'k': 3}", "3"},
      {"self['z']", "{'k': 3}", "error: no such key"},
      {"self[1]", "{1: 'one'}", "'one'"},
      {"self[1u]", "{1: 'one'}", "'one'"},
      {"self['a']", "'abc'", "error: does not support indexing"},
      {"self[true]", "[1]", "error: unsupported index type"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: logic absorbs errors as CEL's commutative operators do") {
  const Row rows[] = {
      {"false && self.missing", "{}", "false"},
      {"self.missing && false", "{}", "false"},
      {"true && self.missing", "{}", "error: no such key"},
      {"self.missing && true", "{}", "error: no such key"},
      {"true || self.missing", "{}", "true"},
      {"self.missing || true", "{}", "true"},
      {"self.missing || false", "{}", "error: no such key"},
      {"1 || true", "{}", "true"},
      {"1 || false", "{}", "error: no such overload"},
      {"!true", "null", "false"},
      {"!1", "null", "error: no such overload"},
      {"self ? 1 : 2", "true", "1"},
      {"self ? 1 : 2", "false", "2"},
      {"self ? 1 : 2", "'x'", "error: no such overload"},
      {"true ? 1 : self.missing", "{}", "1"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: comparisons across numeric types, equality of everything") {
  const Row rows[] = {
      {"1 == 1u", "null", "true"},
      {"1 == 1.0", "null", "true"},
      {"-1 < 0u", "null", "true"},
      {"18446744073709551615u > 9223372036854775807", "null", "true"},
      {"1.5 > 1", "null", "true"},
      {"2 >= 2.0", "null", "true"},
      {"9007199254740993 > 9007199254740992.0", "null", "true"},
      {"'a' < 'b'", "null", "true"},
      {"'abc' <= 'abc'", "null", "true"},
      {"false < true", "null", "true"},
      {"1 < 'a'", "null", "error: no such overload"},
      {"1 == 'a'", "null", "false"},
      {"[1, 2] == [1, 2.0]", "null", "true"},
      {"{'a': 1} == {'a': 1u}", "null", "true"},
      {"{'a': 1} != {'b': 1}", "null", "true"},
      {"null == 0", "null", "false"},
      {"0.0/0.0 == 0.0/0.0", "null", "false"},
      {"2 in [1, 2]", "null", "true"},
      {"3 in [1, 2]", "null", "false"},
      {"'a' in {'a': 1}", "null", "true"},
      {"'a' in 'abc'", "null", "error: no such overload"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: arithmetic with overflow and division errors") {
  const Row rows[] = {
      {"1 + 2 * 3 - 4 / 2 % 3", "null", "5"},
      {"9223372036854775807 + 1", "null", "error: overflow"},
      {"-9223372036854775807 - 2", "null", "error: overflow"},
      {"4611686018427387904 * 2", "null", "error: overflow"},
      {"-self", "-9223372036854775808", "error: overflow"},
      {"self / -1", "-9223372036854775808", "error: overflow"},
      {"1 / 0", "null", "error: division by zero"},
      {"1 % 0", "null", "error: modulus by zero"},
      {"0u - 1u", "null", "error: overflow"},
      {"3u / 2u", "null", "1u"},
      {"1.0 / 0.0 > 1e308", "null", "true"},
      {"1 + 1u", "null", "error: no such overload"},
      {"1.0 % 2.0", "null", "error: no such overload"},
      {"'a' + 'b'", "null", "'ab'"},
      {"[1] + [2, 3]", "null", "[1, 2, 3]"},
      {"-(1.5)", "null", "-1.5"},
      {"-(-3)", "null", "3"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: macros") {
  const Row rows[] = {
      {"self.all(x, x > 0)", "[1, 2]", "true"},
      {"self.all(x, x > 1)", "[1, 2]", "false"},
      {"self.all(x, x > 0)", "[]", "true"},
      {"self.exists(x, x == 2)", "[1, 2]", "true"},
      {"self.exists(x, x == 3)", "[1, 2]", "false"},
      {"self.exists_one(x, x > 0)", "[1, 2]", "false"},
      {"self.exists_one(x, x > 1)", "[1, 2]", "true"},
      {"self.map(x, x * 2)", "[1, 2]", "[2, 4]"},
      {"self.map(x, x > 1, x * 2)", "[1, 2]", "[4]"},
      {"self.filter(x, x > 1)", "[1, 2, 3]", "[2, 3]"},
      {"self.all(k, k.startsWith('a'))", "{'ab': 1, 'ac': 2}", "true"},
      {"self.map(k, self[k])", "{'a': 1, 'b': 2}", "[1, 2]"},
      {"self.all(i, v, i < 2 && v > 0)", "[5, 6]", "true"},
      {"self.exists(k, v, k == 'b' && v == 2)", "{'a': 1, 'b': 2}", "true"},
      // An error in one element is absorbed by a deciding element elsewhere.
      {"self.all(x, x.a == 1)", "[{}, {'a': 2}]", "false"},
      {"self.all(x, x.a == 1)", "[{}, {'a': 1}]", "error: no such key"},
      {"self.exists(x, x.a == 1)", "[{}, {'a': 1}]", "true"},
      {"self.all(x, x)", "[1]", "error: no such overload"},
      {"self.all(x, x > 0)", "1", "error: comprehension over type 'int'"},
      {"self.all(x, self.all(y, x != y || x == y))", "[1, 2]", "true"},
      {"self.all(x, [x].all(x, x > 0))", "[1, 2]", "true"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: oldSelf") {
  auto compiled = compile("self == oldSelf");
  REQUIRE(std::holds_alternative<Program>(compiled));
  const Program& p = std::get<Program>(compiled);
  CHECK(referencesOldSelf(p));
  Value a = Value::integer(1), b = Value::integer(2);
  CHECK(evaluate(p, {&a, &a}).value == Value::boolean(true));
  CHECK(evaluate(p, {&a, &b}).value == Value::boolean(false));
  CHECK(evaluate(p, {&a, nullptr}).kind == Outcome::Error);
  CHECK_FALSE(referencesOldSelf(std::get<Program>(compile("self.all(oldSelf2, true)"))));
}

TEST_CASE("cel: evaluation cost is bounded") {
  // Each level multiplies the work by 100: 100^5 steps would take minutes.
  auto compiled = compile(
      "self.all(a, self.all(b, self.all(c, self.all(d, self.all(e, a + b + c + d + e >= 0)))))");
  REQUIRE(std::holds_alternative<Program>(compiled));
  std::vector<Value> items;
  for (int i = 0; i < 100; ++i) items.push_back(Value::integer(i));
  Value self = Value::list(items);
  Outcome out = evaluate(std::get<Program>(compiled), {&self, nullptr});
  REQUIRE(out.kind == Outcome::Error);
  CHECK(out.error.find("cost limit") != std::string::npos);
  // The cost limit is not absorbed by || or exists.
  auto absorbed =
      compile("self.exists(a, self.all(b, self.all(c, self.all(d, b + c + d < 0)))) || true");
  out = evaluate(std::get<Program>(absorbed), {&self, nullptr}, 1000);
  CHECK(out.kind == Outcome::Error);
}
