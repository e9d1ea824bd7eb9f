#include "lib/cel/cel.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/cel/ast.h"
#include "lib/cel/direct.h"
#include "lib/cel/reads.h"
#include "lib/yaml/parser.h"
#include "lib/yaml/tree.h"
#include "tests/unit/skip.h"

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
      {"r'a\\'", "null", "'a\\\\'"},  // no escapes at all in a raw string
      {"R\"\"\"x'\"y\"\"\"", "null", "'x\\'\"y'"},
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
      // Kubernetes' escapes for property names that are not identifiers.
      {"self.x__dash__y", "{'x-y': 1}", "1"},
      {"has(self.a__dot__b__slash__c)", "{'a.b/c': 1}", "true"},
      {"self.a__underscores__b", "{'a__b': 2}", "2"},
      {"self.__namespace__", "{'namespace': 'ns'}", "'ns'"},
      {"self.__x__", "{'__x__': 3}", "3"},
      {"self.namespace", "{'namespace': 'ns'}", "'ns'"},
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
  // Splitting a long string into code points charges each part as it is made: the cost limit
  // stops it long before ten million parts are allocated.
  auto split = compile("self.split('').size() > 0");
  REQUIRE(std::holds_alternative<Program>(split));
  Value big = Value::string(std::string(10'000'000, 'x'));
  out = evaluate(std::get<Program>(split), {&big, nullptr});
  REQUIRE(out.kind == Outcome::Error);
  CHECK(out.error.find("cost limit") != std::string::npos);
  auto splitComma = compile("self.split(',').size() > 0");
  REQUIRE(std::holds_alternative<Program>(splitComma));
  Value commas = Value::string(std::string(4'000'000, ','));
  out = evaluate(std::get<Program>(splitComma), {&commas, nullptr});
  REQUIRE(out.kind == Outcome::Error);
  CHECK(out.error.find("cost limit") != std::string::npos);
}

TEST_CASE("cel: Kubernetes IP, CIDR and URL libraries") {
  const Row rows[] = {
      {"isIP(self)", "'10.0.0.1'", "true"},
      {"isIP(self)", "'2001:db8::1'", "true"},
      {"isIP(self)", "'010.0.0.1'", "false"},
      {"isIP(self)", "'10.0.0.256'", "false"},
      {"isIP(self)", "'::ffff:10.0.0.1'", "false"},
      {"isIP(self)", "'fe80::1%eth0'", "false"},
      {"isIP(self)", "'example.com'", "false"},
      {"ip(self).family()", "'2001:db8::1'", "6"},
      {"ip(self).isLoopback()", "'127.0.0.2'", "true"},
      {"ip(self).isUnspecified()", "'::'", "true"},
      {"ip(self).isLinkLocalUnicast()", "'169.254.1.1'", "true"},
      {"ip(self).isGlobalUnicast()", "'8.8.8.8'", "true"},
      {"ip(self).isGlobalUnicast()", "'255.255.255.255'", "false"},
      {"ip.isCanonical(self)", "'2001:db8::1'", "true"},
      {"ip.isCanonical(self)", "'2001:DB8::1'", "false"},
      {"ip(self) == ip('10.0.0.1')", "'10.0.0.1'", "true"},
      {"string(ip(self))", "'2001:0db8::0001'", "'2001:db8::1'"},
      {"ip(self)", "'nope'", "error: parse error"},
      {"isCIDR(self)", "'10.0.0.0/8'", "true"},
      {"isCIDR(self)", "'10.0.0.0/33'", "false"},
      {"isCIDR(self)", "'10.0.0.0'", "false"},
      {"isCIDR(self)", "'fd00::/8'", "true"},
      {"cidr(self).prefixLength()", "'10.0.0.0/8'", "8"},
      {"cidr(self).containsIP('10.1.2.3')", "'10.0.0.0/8'", "true"},
      {"cidr(self).containsIP(ip('11.0.0.1'))", "'10.0.0.0/8'", "false"},
      {"cidr(self).containsCIDR('10.1.0.0/16')", "'10.0.0.0/8'", "true"},
      {"cidr(self).containsCIDR('10.0.0.0/7')", "'10.0.0.0/8'", "false"},
      {"string(cidr(self).masked())", "'10.1.2.3/8'", "'10.0.0.0/8'"},
      {"string(cidr(self).ip())", "'10.1.2.3/8'", "'10.1.2.3'"},
      {"cidr(self)", "'10.0.0.0/x'", "error: parse error"},
      {"isURL(self)", "'https://example.com:8443/a?b=c'", "true"},
      {"isURL(self)", "'/just/a/path'", "true"},
      {"isURL(self)", "'not a url'", "false"},
      {"isURL(self)", "'example.com'", "false"},
      {"url(self).getScheme()", "'HTTPS://example.com'", "'https'"},
      {"url(self).getHost()", "'https://user@example.com:8443/a'", "'example.com:8443'"},
      {"url(self).getHostname()", "'https://[::1]:8443/a'", "'::1'"},
      {"url(self).getPort()", "'https://example.com:8443/a'", "'8443'"},
      {"url(self).getPort()", "'https://example.com/a'", "''"},
      {"url(self).getEscapedPath()", "'https://example.com/a%20b?q=1'", "'/a%20b'"},
      {"url(self).getQuery()", "'https://x/?a=1&a=2&b=%20'", "{'a': ['1', '2'], 'b': [' ']}"},
      {"url(self)", "'::'", "error: URL parse error"},
      {"url(self).getScheme()", "'/p'", "''"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: Kubernetes quantity library") {
  const Row rows[] = {
      {"isQuantity(self)", "'500m'", "true"},
      {"isQuantity(self)", "'1.5Gi'", "true"},
      {"isQuantity(self)", "'2e3'", "true"},
      {"isQuantity(self)", "'1Gb'", "false"},
      {"isQuantity(self)", "''", "false"},
      {"isQuantity(self)", "'.'", "false"},
      {"quantity(self).isGreaterThan(quantity('65534'))", "'64Ki'", "true"},
      {"quantity(self).isGreaterThan(quantity('65534'))", "'65534'", "false"},
      {"quantity(self).isLessThan(quantity('4Gi'))", "'4G'", "true"},
      {"quantity(self).isLessThan(quantity('4Gi'))", "'4Gi'", "false"},
      {"quantity(self).compareTo(quantity('1k'))", "'1000'", "0"},
      {"quantity(self).compareTo(quantity('1'))", "'999m'", "-1"},
      {"quantity(self).isInteger()", "'1500m'", "false"},
      {"quantity(self).asInteger()", "'2k'", "2000"},
      {"quantity(self).asInteger()", "'500m'", "error: cannot convert value to integer"},
      {"quantity(self).sign()", "'-3'", "-1"},
      {"quantity(self).add(quantity('1')).isGreaterThan(quantity('1'))", "'1m'", "true"},
      {"quantity(self).sub(1).sign()", "'1'", "0"},
      {"quantity(self)", "'1.2.3'", "error: quantities must match the regular expression"},
  };
  for (const Row& row : rows) check(row);
}

namespace {

// Every `rule` and `messageExpression` under an `x-kubernetes-validations` in the tree.
void collectRules(pg::yaml::NodeRef node, std::vector<std::string>& out) {
  if (node.isSequence()) {
    for (pg::yaml::NodeRef item : node.items()) collectRules(item, out);
    return;
  }
  if (!node.isMapping()) return;
  for (auto [key, value] : node.entries()) {
    if (key.str() == "x-kubernetes-validations" && value.isSequence()) {
      for (pg::yaml::NodeRef v : value.items()) {
        for (std::string_view field : {"rule", "messageExpression"}) {
          if (v.get(field).isScalar()) out.emplace_back(v.get(field).str());
        }
      }
      continue;
    }
    collectRules(value, out);
  }
}

struct Survey {
  std::size_t files = 0;
  std::size_t total = 0;
  std::size_t compiled = 0;
};

// Compiles every rule in `dir`: CRD files (*.yaml, every `rule` and `messageExpression` under an
// `x-kubernetes-validations`) and lists of rules, one a line (*.rules.txt, `#` lines are
// comments). A rule that does not compile must be valid CEL this library does not implement
// (reported), never one it fails to parse.
Survey survey(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  Survey result;
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> rules;
    std::string name = file.filename().string();
    if (name.ends_with(".rules.txt")) {
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && line[0] != '#') rules.push_back(line);
      }
    } else if (name.ends_with(".yaml") || name.ends_with(".yml")) {
      auto parsed = pg::yaml::parse(text, pg::yaml::ParseLimits{}, false);
      for (std::size_t d = 0; d < parsed.tree->documents().size(); ++d) {
        collectRules(parsed.tree->root(d), rules);
      }
    } else {
      continue;
    }
    ++result.files;
    for (const std::string& rule : rules) {
      ++result.total;
      auto compiled = compile(rule);
      if (std::holds_alternative<Program>(compiled)) {
        ++result.compiled;
        continue;
      }
      const CompileError& error = std::get<CompileError>(compiled);
      CAPTURE(name);
      CAPTURE(rule);
      CHECK_MESSAGE(error.unsupported, error.message);
      MESSAGE("unsupported in ", name, ": ", rule, ": ", error.message);
    }
  }
  return result;
}

}  // namespace

TEST_CASE("cel: the survey reads rules and message expressions from CRD files") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "pg-cel-survey-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "example.yaml") << R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        properties:
          spec:
            x-kubernetes-validations:
            - message: folded over two lines
              rule: '!(has(self.a) && has(self.b)) ? true
                : size(self.a) > 0'
            - messageExpression: "'bad: ' + self.a"
              rule: self.a.startsWith('x')
            - rule: semver(self.v).isGreaterThan(semver('1.0.0'))
)";
  std::ofstream(dir / "more.rules.txt") << "# a comment\nself.all(x, x > 0)\n";
  std::ofstream(dir / "notes.md") << "rule: not read\n";
  Survey s = survey(dir);
  CHECK(s.files == 2);
  CHECK(s.total == 5);
  CHECK(s.compiled == 4);  // semver() is not implemented: unsupported, not malformed
  fs::remove_all(dir);
}

// The survey of the upstream CRDs beside the repository (../shared/crds, or $PG_CRD_DIR);
// skipped, saying so, when the folder is absent.
TEST_CASE("cel: the rules of the surveyed CRDs compile") {
  namespace fs = std::filesystem;
  const char* env = std::getenv("PG_CRD_DIR");
  fs::path dir = env ? fs::path(env) : fs::path(PG_SOURCE_DIR) / ".." / "shared" / "crds";
  if (!fs::is_directory(dir)) {
    pg::testing::skipCheck("no CRD folder at " + dir.string());
    return;
  }
  Survey s = survey(dir);
  MESSAGE(s.compiled, " of ", s.total, " rules in ", s.files, " files under ", dir.string(),
          " compile");
}

TEST_CASE("cel: rule shapes of the surveyed CRDs, true and false") {
  const Row rows[] = {
      // Kuadrant RateLimitPolicy: targetRef and mutually exclusive blocks.
      {"self.group == 'gateway.networking.k8s.io'", "{'group': 'gateway.networking.k8s.io'}",
       "true"},
      {"self.group == 'gateway.networking.k8s.io'", "{'group': ''}", "false"},
      {"self.kind == 'HTTPRoute' || self.kind == 'Gateway'", "{'kind': 'Gateway'}", "true"},
      {"self.kind == 'HTTPRoute' || self.kind == 'Gateway'", "{'kind': 'Service'}", "false"},
      {"!(has(self.defaults) && has(self.limits))", "{'limits': {}}", "true"},
      {"!(has(self.defaults) && has(self.limits))", "{'defaults': {}, 'limits': {}}", "false"},
      {"!(has(self.overrides) || has(self.defaults)) ? has(self.limits) && size(self.limits) > 0 "
       ": true",
       "{'limits': {'a': {}}}", "true"},
      {"!(has(self.overrides) || has(self.defaults)) ? has(self.limits) && size(self.limits) > 0 "
       ": true",
       "{'limits': {}}", "false"},
      {"has(self.overrides) ? has(self.overrides.limits) && size(self.overrides.limits) > 0 : true",
       "{'overrides': {}}", "false"},
      // Unique names, the filter-count and type-matches-field shapes of route and listener lists.
      {"self.all(l1, self.exists_one(l2, l1.name == l2.name))", "[{'name': 'a'}, {'name': 'b'}]",
       "true"},
      {"self.all(l1, self.exists_one(l2, l1.name == l2.name))", "[{'name': 'a'}, {'name': 'a'}]",
       "false"},
      {"self.filter(f, f.type == 'RequestHeaderModifier').size() <= 1",
       "[{'type': 'RequestHeaderModifier'}, {'type': 'URLRewrite'}]", "true"},
      {"self.filter(f, f.type == 'RequestHeaderModifier').size() <= 1",
       "[{'type': 'RequestHeaderModifier'}, {'type': 'RequestHeaderModifier'}]", "false"},
      {"(self.type == 'RequestHeaderModifier') == has(self.requestHeaderModifier)",
       "{'type': 'RequestHeaderModifier', 'requestHeaderModifier': {}}", "true"},
      {"(self.type == 'RequestHeaderModifier') == has(self.requestHeaderModifier)",
       "{'type': 'RequestHeaderModifier'}", "false"},
      {"self.all(a, a.type == 'IPAddress' ? isIP(a.value) : true)",
       "[{'type': 'IPAddress', 'value': '10.0.0.1'}, {'type': 'Hostname', 'value': 'x'}]", "true"},
      {"self.all(a, a.type == 'IPAddress' ? isIP(a.value) : true)",
       "[{'type': 'IPAddress', 'value': 'x'}]", "false"},
      {"self.all(l, l.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(l.tls) : true)",
       "[{'protocol': 'HTTPS', 'tls': {}}]", "true"},
      {"self.all(l, l.protocol in ['HTTP', 'TCP', 'UDP'] ? !has(l.tls) : true)",
       "[{'protocol': 'HTTP', 'tls': {}}]", "false"},
      {"(has(self.path) && has(self.path.value)) ? self.path.value.startsWith('/') : true",
       "{'path': {'value': '/a'}}", "true"},
      {"(has(self.path) && has(self.path.value)) ? self.path.value.startsWith('/') : true",
       "{'path': {'value': 'a'}}", "false"},
      {"self.value.matches('^(?:[-A-Za-z0-9/._~!$&\\'()*+,;=:@]|[%][0-9a-fA-F]{2})+$')",
       "{'value': '/a%20b'}", "true"},
      {"self.value.matches('^(?:[-A-Za-z0-9/._~!$&\\'()*+,;=:@]|[%][0-9a-fA-F]{2})+$')",
       "{'value': '/a b'}", "false"},
      {"size(self.parentRefs) <= 32 && self.parentRefs.all(p, !has(p.port) || p.port > 0)",
       "{'parentRefs': [{'port': 80}]}", "true"},
      // Gateway API HTTPRoute: a raw triple-quoted pattern, durations, the match count.
      {"(self.type in ['Exact','PathPrefix']) ? "
       "self.value.matches(r\"\"\"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$\"\"\") : "
       "true",
       "{'type': 'Exact', 'value': '/a%2Fb'}", "true"},
      {"(self.type in ['Exact','PathPrefix']) ? "
       "self.value.matches(r\"\"\"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$\"\"\") : "
       "true",
       "{'type': 'PathPrefix', 'value': '/a%zz'}", "false"},
      {"!(has(self.request) && has(self.backendRequest) && duration(self.request) != "
       "duration('0s') && duration(self.backendRequest) > duration(self.request))",
       "{'request': '1m', 'backendRequest': '30s'}", "true"},
      {"!(has(self.request) && has(self.backendRequest) && duration(self.request) != "
       "duration('0s') && duration(self.backendRequest) > duration(self.request))",
       "{'request': '1s', 'backendRequest': '1h30m'}", "false"},
      {"!(has(self.request) && has(self.backendRequest) && duration(self.request) != "
       "duration('0s') && duration(self.backendRequest) > duration(self.request))",
       "{'request': '0s', 'backendRequest': '1h'}", "true"},
      {"duration(self)", "'1x'", "error: invalid duration"},
      {"(self.size() > 0 ? self[0].matches.size() : 0) + (self.size() > 1 ? "
       "self[1].matches.size() : 0) + (self.size() > 2 ? self[2].matches.size() : 0) <= 3",
       "[{'matches': [1, 2]}, {'matches': [3]}]", "true"},
      {"(self.size() > 0 ? self[0].matches.size() : 0) + (self.size() > 1 ? "
       "self[1].matches.size() : 0) + (self.size() > 2 ? self[2].matches.size() : 0) <= 3",
       "[{'matches': [1, 2]}, {'matches': [3]}, {'matches': [4]}]", "false"},
      {"self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && l1.name == l2.name))",
       "[{'name': 'a'}, {}, {}]", "true"},
      {"self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && l1.name == l2.name))",
       "[{'name': 'a'}, {'name': 'a'}]", "false"},
      {"!('*' in self && self.size() > 1)", "['*']", "true"},
      {"!('*' in self && self.size() > 1)", "['*', 'GET']", "false"},
      // Gateway API Gateway: case-insensitive protocol patterns, keys of a map, raw patterns.
      {"self.all(l, l.protocol.matches('(?i)^(HTTP|TCP|UDP)$') ? !has(l.tls) : true)",
       "[{'protocol': 'https', 'tls': {}}]", "true"},
      {"self.all(l, l.protocol.matches('(?i)^(HTTP|TCP|UDP)$') ? !has(l.tls) : true)",
       "[{'protocol': 'tcp', 'tls': {}}]", "false"},
      {"self.all(key, key.split(\"/\")[0].size() < 253)", "{'example.com/a': 'x', 'b': 'y'}",
       "true"},
      {"self.all(key, key.split(\"/\")[0].size() < 3)", "{'example.com/a': 'x'}", "false"},
      {"self.type == 'Hostname' ? (!has(self.value) || "
       "self.value.matches(r\"\"\"^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-"
       "z0-9])?)*$\"\"\")): "
       "true",
       "{'type': 'Hostname', 'value': '*.example.com'}", "true"},
      {"self.type == 'Hostname' ? (!has(self.value) || "
       "self.value.matches(r\"\"\"^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-"
       "z0-9])?)*$\"\"\")): "
       "true",
       "{'type': 'Hostname', 'value': 'a.*.example.com'}", "false"},
      {"self.all(l1, self.exists_one(l2, l1.port == l2.port && l1.protocol == l2.protocol && "
       "(has(l1.hostname) && has(l2.hostname) ? l1.hostname == l2.hostname : !has(l1.hostname) && "
       "!has(l2.hostname))))",
       "[{'port': 80, 'protocol': 'HTTP'}, {'port': 80, 'protocol': 'HTTP', 'hostname': 'a'}]",
       "true"},
      {"self.all(l1, self.exists_one(l2, l1.port == l2.port && l1.protocol == l2.protocol && "
       "(has(l1.hostname) && has(l2.hostname) ? l1.hostname == l2.hostname : !has(l1.hostname) && "
       "!has(l2.hostname))))",
       "[{'port': 80, 'protocol': 'HTTP'}, {'port': 80, 'protocol': 'HTTP'}]", "false"},
      // Envoy Gateway Backend: fqdn endpoints are not mixed with others.
      {"self.all(f, has(f.fqdn)) || !self.exists(f, has(f.fqdn))", "[{'ip': {}}, {'unix': {}}]",
       "true"},
      {"self.all(f, has(f.fqdn)) || !self.exists(f, has(f.fqdn))", "[{'fqdn': {}}, {'ip': {}}]",
       "false"},
      // Envoy Gateway OIDC and ClientTrafficPolicy: case folding, nested conditionals.
      {"!(has(self.forwardAccessToken) && self.forwardAccessToken && has(self.forwardIDToken) && "
       "self.forwardIDToken.header.lowerAscii() == 'authorization')",
       "{'forwardAccessToken': true, 'forwardIDToken': {'header': 'X-Id'}}", "true"},
      {"!(has(self.forwardAccessToken) && self.forwardAccessToken && has(self.forwardIDToken) && "
       "self.forwardIDToken.header.lowerAscii() == 'authorization')",
       "{'forwardAccessToken': true, 'forwardIDToken': {'header': 'Authorization'}}", "false"},
      {"has(self.backendSettings)? (has(self.backendSettings.retry)?"
       "(has(self.backendSettings.retry.perRetry)? "
       "!has(self.backendSettings.retry.perRetry.timeout):true):true):true",
       "{'backendSettings': {'retry': {'perRetry': {}}}}", "true"},
      {"has(self.backendSettings)? (has(self.backendSettings.retry)?"
       "(has(self.backendSettings.retry.perRetry)? "
       "!has(self.backendSettings.retry.perRetry.timeout):true):true):true",
       "{'backendSettings': {'retry': {'perRetry': {'timeout': '1s'}}}}", "false"},
      {"has(self.targetRefs) ? self.targetRefs.all(ref, ref.kind in ['Gateway', 'ListenerSet']) : "
       "true",
       "{'targetRefs': [{'kind': 'Gateway'}]}", "true"},
      {"has(self.targetRefs) ? self.targetRefs.all(ref, ref.kind in ['Gateway', 'ListenerSet']) : "
       "true",
       "{'targetRefs': [{'kind': 'HTTPRoute'}]}", "false"},
      {"self.isSorted()", "['a', 'b', 'c']", "true"},
      {"self.isSorted()", "['b', 'a']", "false"},
  };
  for (const Row& row : rows) check(row);
}

TEST_CASE("cel: string, list, conversion, optional and time functions") {
  const Row rows[] = {
      {"size('h\u00e9llo')", "null", "5"},
      {"'h\u00e9llo'.size()", "null", "5"},
      {"size([1, 2]) + size({'a': 1})", "null", "3"},
      {"size(1)", "null", "error: no such overload"},
      {"'abc'.matches('^a.c$')", "null", "true"},
      {"matches('abc', 'b')", "null", "true"},
      {"'x'.matches(self)", "'['", "error: invalid regular expression"},
      {"'xay'.matches(self)", "'a'", "true"},
      {"'abc'.startsWith('ab') && 'abc'.endsWith('bc') && 'abc'.contains('b')", "null", "true"},
      {"'AbC'.lowerAscii() + 'AbC'.upperAscii()", "null", "'abcABC'"},
      {"'  \\t x y \\n'.trim()", "null", "'x y'"},
      {"'\u00a0x\u3000'.trim()", "null", "'x'"},
      {"'a,b,,c'.split(',')", "null", "['a', 'b', '', 'c']"},
      {"'a,b,c'.split(',', 2)", "null", "['a', 'b,c']"},
      {"'a,b'.split(',', 0)", "null", "[]"},
      {"'ab'.split('')", "null", "['a', 'b']"},
      {"['a', 'b'].join('-') + ['c'].join()", "null", "'a-bc'"},
      {"[1].join()", "null", "error: no such overload"},
      {"'h\u00e9llo'.indexOf('l') + 'hello'.lastIndexOf('l')", "null", "5"},
      {"'hello'.indexOf('l', 3)", "null", "3"},
      {"'hello'.indexOf('z')", "null", "-1"},
      {"'hello'.indexOf('l', 9)", "null", "error: index out of range"},
      {"[1, 2, 3].indexOf(2) + [1, 2, 2].lastIndexOf(2)", "null", "3"},
      {"'h\u00e9llo'.substring(1, 3)", "null", "'\u00e9l'"},
      {"'hello'.substring(3)", "null", "'lo'"},
      {"'hello'.substring(4, 2)", "null", "error: index out of range"},
      {"'aaa'.replace('a', 'b', 2)", "null", "'bba'"},
      {"'ab'.replace('', '-')", "null", "'-a-b-'"},
      {"'hello'.charAt(1) + 'hello'.charAt(5)", "null", "'e'"},
      {"int('42') + int(3.9) + int(2u)", "null", "47"},
      {"int('x')", "null", "error: cannot convert"},
      {"int(1e19)", "null", "error: overflow"},
      {"uint(-1)", "null", "error: overflow"},
      {"uint('7')", "null", "7u"},
      {"double('1.5') + double(1)", "null", "2.5"},
      {"string(1) + string(2u) + string(true) + string(1.5) + string(b'x')", "null",
       "'12true1.5x'"},
      {"bytes('a') == b'a' && bool('true') && !bool('false')", "null", "true"},
      {"type(1) == int && type('a') == string && type([]) == list && type(null) == null_type",
       "null", "true"},
      {"type(1u) == int", "null", "false"},
      {"dyn(1) == 1", "null", "true"},
      {"[1, 2, 3].isSorted() && ![2, 1].isSorted() && [].isSorted()", "null", "true"},
      {"[1, 'a'].isSorted()", "null", "error: no such overload"},
      {"[1, 2, 3].sum() + [].sum()", "null", "6"},
      {"[1.5, 2.5].sum()", "null", "4.0"},
      {"[9223372036854775807, 1].sum()", "null", "error: overflow"},
      {"[3, 1, 2].min() + [3, 1, 2].max()", "null", "4"},
      {"[].min()", "null", "error: empty list"},
      {"self.?a.orValue(0) + self.?b.orValue(5)", "{'a': 1}", "6"},
      {"self.?a.b.orValue('none')", "{'a': {'b': 'x'}}", "'x'"},
      {"self.?a.b.orValue('none')", "{}", "'none'"},
      {"self[?'k'].hasValue()", "{'k': 1}", "true"},
      {"self[?3].hasValue()", "[1]", "false"},
      {"optional.of(1).value() + optional.ofNonZeroValue(0).orValue(2)", "null", "3"},
      {"optional.none().value()", "null", "error: optional.none()"},
      {"optional.none().or(optional.of(4)).value()", "null", "4"},
      {"[1, ?optional.none(), ?optional.of(2)]", "null", "[1, 2]"},
      {"{'a': 1, ?'b': optional.none()}", "null", "{'a': 1}"},
      {"{'a': 1, 'a': 2}", "null", "error: duplicate map key"},
      {"{[1]: 2}", "null", "error: unsupported key type"},
      {"duration('1h30m') == duration('90m') && duration('1.5s') < duration('2s')", "null", "true"},
      {"string(duration('-1.5s'))", "null", "'-1.5s'"},
      {"duration('1d')", "null", "error: invalid duration"},
      {"timestamp('2024-01-02T03:04:05Z') < timestamp('2024-01-02T04:04:05+01:00') || "
       "timestamp('2024-01-02T03:04:05Z') == timestamp('2024-01-02T04:04:05+01:00')",
       "null", "true"},
      {"int(timestamp('1970-01-01T00:01:00Z'))", "null", "60"},
      {"timestamp('2024-13-01T00:00:00Z')", "null", "error: invalid timestamp"},
      {"timestamp('2024-01-01T00:00:00Z') + duration('1h') > timestamp('2024-01-01T00:30:00Z')",
       "null", "true"},
  };
  for (const Row& row : rows) check(row);
}

namespace {

// `self` read in place from a Value, so that the direct path can be compared with evaluate().
class ValueSource final : public Source {
 public:
  static Ref ref(const Value* v) {
    Ref r;
    r.a = v;
    return r;
  }
  static const Value* value(Ref r) { return static_cast<const Value*>(r.a); }
  Shape shape(Ref r) const override {
    const Value* v = value(r);
    if (!v) return Shape::Absent;
    switch (v->kind()) {
      case Value::Kind::Bool:
        return Shape::Bool;
      case Value::Kind::Int:
        return Shape::Int;
      case Value::Kind::String:
        return Shape::String;
      case Value::Kind::List:
        return Shape::List;
      case Value::Kind::Map:
        return Shape::Map;
      default:
        return Shape::Other;
    }
  }
  Ref field(Ref map, std::string_view name) const override { return ref(value(map)->field(name)); }
  bool size(Ref list, std::size_t& n) const override {
    n = value(list)->asList().size();
    return true;
  }
  Ref item(Ref list, std::size_t index) const override {
    return ref(&value(list)->asList()[index]);
  }
  std::string_view string(Ref r) const override { return value(r)->asString(); }
  std::int64_t integer(Ref r) const override { return value(r)->asInt(); }
  bool boolean(Ref r) const override { return value(r)->asBool(); }
};

}  // namespace

TEST_CASE("direct evaluation decides exactly what evaluate() does, or leaves it") {
  const std::vector<std::string_view> selves = {
      R"({"type": "PathPrefix", "value": "/shop"})",
      R"({"type": "Exact", "value": "shop//x"})",
      R"({"type": "RegularExpression", "value": "#x"})",
      R"({"type": "PathPrefix"})",
      R"({"type": 3, "value": "/"})",
      R"({"items": [{"name": "a", "port": 1}, {"name": "a"}, {"name": "b", "port": 2}],
          "tags": ["*", "x"], "n": 9223372036854775807})",
      R"({"items": [], "tags": ["*"], "n": 1})",
  };
  const std::vector<std::string_view> expressions = {
      "(self.type in ['Exact','PathPrefix']) ? self.value.startsWith('/') : true",
      "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('//') : true",
      "self.type in ['Exact','PathPrefix'] || self.type == 'RegularExpression'",
      "!self.value.endsWith('/..') && self.value.matches('^[/a-z#]+$')",
      "!(has(self.value) && self.type != 'Exact')",
      "has(self.value) || self.type == 'PathPrefix'",
      "self.value == 'x' || self.type == 'PathPrefix'",
      "self.items.all(i, self.items.exists_one(j, i.name == j.name))",
      "self.items.exists(i, has(i.port) && i.port > 1)",
      "self.items.filter(i, !has(i.port)).size() <= 1",
      "size(self.items) > 0 ? self.items[0].name == 'a' : true",
      "self.items.size() > 3 ? self.items[3].name == 'a' : self.items.size() + 1 < 4",
      "!('*' in self.tags && self.tags.size() > 1)",
      "self.n + 1 > 0",
      "self.items.map(i, i.name).size() == 3",
      "self.value.size() <= 5",
  };
  ValueSource source;
  DirectMemo memo;  // shared by every expression on one self, as the schema validator does
  int decided = 0;
  for (std::string_view self : selves) {
    Value s = literal(self);
    memo.clear();
    for (std::string_view expression : expressions) {
      auto compiled = compile(expression);
      REQUIRE(std::holds_alternative<Program>(compiled));
      const Program& program = std::get<Program>(compiled);
      Outcome full = evaluate(program, Bindings{&s, nullptr});
      std::optional<bool> direct = evaluateDirect(program, source, ValueSource::ref(&s));
      INFO(expression, " on ", self, " with the memo");
      CHECK(evaluateDirect(program, source, ValueSource::ref(&s), memo) == direct);
      if (!direct) continue;
      ++decided;
      INFO(expression, " on ", self);
      REQUIRE(full.kind == Outcome::Value_);
      REQUIRE(full.value.kind() == Value::Kind::Bool);
      CHECK(full.value.asBool() == *direct);
    }
  }
  CHECK(decided > 40);  // most of the table is decided in place
  CHECK(directlyEvaluable(std::get<Program>(compile("self.a.startsWith('x')"))));
  CHECK_FALSE(directlyEvaluable(std::get<Program>(compile("self.a.map(x, x).size() > 0"))));
  CHECK_FALSE(directlyEvaluable(std::get<Program>(compile("duration(self.a) > duration('1s')"))));
}

TEST_CASE("rules compiled together work out what they share once per value") {
  using pg::cel::detail::Access;
  using pg::cel::detail::Node;
  using pg::cel::detail::NodeKind;
  const std::vector<std::string_view> rules = {
      "(self.type in ['Exact','PathPrefix']) ? self.value.startsWith('/') : true",
      "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('//') : true",
      "self.type in ['Exact','PathPrefix'] || self.type == 'RegularExpression'",
      "self.items.all(i, has(i.port) && i.port > 1)",
      "self.items.exists(i, has(i.port) && i.port > 1)",
      "self.items.exists(i, has(i.port) && i.port > 1) || self.type == 'Exact'",
  };
  auto compiled = compileTogether(rules);
  REQUIRE(compiled.size() == rules.size());
  std::vector<const Program*> programs;
  for (const auto& c : compiled) {
    REQUIRE(std::holds_alternative<Program>(c));
    programs.push_back(&std::get<Program>(c));
  }
  // The guard of the first three is one subexpression; a conditional is not shared.
  const Node& first = Access::root(*programs[0]);
  const Node& second = Access::root(*programs[1]);
  REQUIRE(first.kind == NodeKind::Conditional);
  CHECK(first.shareId == 0);
  CHECK(first.children[0]->shareId != 0);
  CHECK(first.children[0]->shareId == second.children[0]->shareId);
  CHECK(first.children[0]->shareId == Access::root(*programs[2]).children[0]->shareId);
  CHECK(first.children[1]->shareId == 0);  // startsWith: in one rule only
  // A predicate reads its comprehension's variable: the same text is another value per item,
  // never shared; the whole exists() reads `self` alone and is.
  const Node& all = Access::root(*programs[3]);
  const Node& exists = Access::root(*programs[4]);
  REQUIRE(all.kind == NodeKind::Comprehension);
  CHECK(all.children[1]->shareId == 0);
  CHECK(exists.children[1]->shareId == 0);
  CHECK(exists.shareId != 0);
  CHECK(exists.shareId == Access::root(*programs[5]).children[0]->shareId);
  CHECK(all.shareId == 0);

  // One memo for every rule of a value, cleared between values, as the validator does: each
  // answer is the one of the rule compiled on its own.
  const std::vector<std::string_view> selves = {
      R"({"type": "PathPrefix", "value": "/shop", "items": [{"port": 2}, {"port": 1}]})",
      R"({"type": "RegularExpression", "value": "x//", "items": [{"port": 5}]})",
      R"({"type": "Exact", "value": "a//", "items": [{"name": "n"}]})",
  };
  ValueSource source;
  DirectMemo memo;
  int decided = 0;
  for (std::string_view self : selves) {
    Value s = literal(self);
    memo.clear();
    for (std::size_t i = 0; i < rules.size(); ++i) {
      auto alone = compile(rules[i]);
      REQUIRE(std::holds_alternative<Program>(alone));
      std::optional<bool> expected =
          evaluateDirect(std::get<Program>(alone), source, ValueSource::ref(&s));
      INFO(rules[i], " on ", self);
      CHECK(evaluateDirect(*programs[i], source, ValueSource::ref(&s), memo) == expected);
      if (expected) ++decided;
    }
  }
  CHECK(decided == static_cast<int>(rules.size() * selves.size()));
}

namespace {

// The reads of one expression, printed: "size", "whole", fields by name, items as "[]".
std::string printReads(const Reads& r) {
  std::string out;
  if (r.size) out += "size ";
  if (r.whole) out += "whole ";
  for (const auto& [name, sub] : r.fields) out += name + "{" + printReads(*sub) + "} ";
  if (r.items) out += "[]{" + printReads(*r.items) + "} ";
  if (!out.empty()) out.pop_back();
  return out;
}

std::string readsText(std::string_view expression) {
  auto compiled = compile(expression);
  REQUIRE(std::holds_alternative<Program>(compiled));
  Reads reads;
  if (!readsOf(std::get<Program>(compiled), reads)) return "unanalysed";
  return printReads(reads);
}

}  // namespace

TEST_CASE("readsOf: what a rule reads of self") {
  // has() reads presence only; a comparison reads the field's content.
  CHECK(readsText("!(has(self.urlRewrite) && self.type != 'URLRewrite')") ==
        "urlRewrite{} type{whole}");
  // size() reads a size; indexing and macros read the items, and a macro the size.
  CHECK(readsText("(self.size() > 0 ? self[0].matches.size() : 0) + "
                  "(self.size() > 1 ? self[1].matches.size() : 0) <= 128") ==
        "size []{matches{size}}");
  CHECK(readsText("self.all(f, !has(f.requestRedirect))") == "size []{requestRedirect{}}");
  CHECK(readsText("self.filter(f, f.type == 'CORS').size() <= 1") == "size []{type{whole}}");
  // Nested macros over one list: both variables are its items.
  CHECK(readsText("self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && "
                  "l1.name == l2.name))") == "size []{name{whole}}");
  // A string function reads the whole string; a value used as a whole stops there.
  CHECK(readsText("self.value.startsWith('/') && self == self") == "whole value{whole}");
  // Two-variable macros read the range whole; a variable of a non-self range is not self.
  CHECK(readsText("self.all(k, v, v > 0)") == "size whole");
  CHECK(readsText("[1, 2].all(x, x > 0)") == "");
  // oldSelf is not followed.
  CHECK(readsText("self == oldSelf") == "unanalysed");
}

TEST_CASE("readsOf: merging the reads of several rules") {
  Reads reads;
  for (std::string_view e : {"has(self.a)", "self.a.b == 1", "self.c.size() > 0"}) {
    auto compiled = compile(e);
    REQUIRE(std::holds_alternative<Program>(compiled));
    REQUIRE(readsOf(std::get<Program>(compiled), reads));
  }
  CHECK(printReads(reads) == "a{b{whole}} c{size}");
}

TEST_CASE("cel: syntaxError parses without resolving names") {
  // Names an environment declares at run time (Envoy's attributes) are no error here...
  CHECK_FALSE(pg::cel::syntaxError("response.code >= 400").has_value());
  CHECK_FALSE(pg::cel::syntaxError("'x-audit' in request.headers && connection.mtls").has_value());
  // ...while compile(), for the Kubernetes environment, knows only self and oldSelf.
  CHECK(std::holds_alternative<pg::cel::CompileError>(pg::cel::compile("response.code >= 400")));
  // Malformed expressions are errors for both.
  CHECK(pg::cel::syntaxError(")++++").has_value());
  CHECK(pg::cel::syntaxError("request.headers['x'] ==  && true").has_value());
  CHECK(pg::cel::syntaxError("").has_value());
  CHECK(pg::cel::syntaxError(std::string(pg::cel::kMaxExpressionBytes + 1, '1')).has_value());
}
