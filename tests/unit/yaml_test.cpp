#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "lib/yaml/parser.h"

using namespace pg::yaml;

namespace {

ParseResult parseText(std::string text, ParseLimits limits = {}) {
  bool ascii = true;
  for (unsigned char c : text) ascii = ascii && c < 0x80;
  return parse(std::move(text), limits, ascii);
}

}  // namespace

TEST_CASE("scalars, mappings and sequences keep their positions") {
  ParseResult r = parseText("a: 1\nb:\n  - x\n  - 'y z'\nc: {d: true}\n");
  REQUIRE(r.problems.empty());
  REQUIRE(r.tree->documents().size() == 1);
  NodeRef root = r.tree->root(0);
  CHECK(root.isMapping());
  CHECK(root.size() == 3);
  CHECK(root.get("a").asInt() == 1);
  CHECK(root.get("a").start().line == 1);
  CHECK(root.get("a").start().column == 4);
  NodeRef b = root.get("b");
  REQUIRE(b.isSequence());
  CHECK(b.size() == 2);
  CHECK(b.at(1).str() == "y z");
  CHECK(b.at(1).style() == ScalarStyle::Quoted);
  CHECK(b.at(1).start().line == 4);
  CHECK(b.at(1).start().column == 5);
  CHECK(root.get("c").get("d").asBool() == true);
  CHECK(root.keyNode("c").start().line == 5);
  CHECK(root.keyNode("c").start().column == 1);
  CHECK_FALSE(root.get("missing"));
  CHECK(root.get("missing").get("deeper").str().empty());
}

TEST_CASE("scalar types follow the YAML core schema") {
  ParseResult r = parseText("n: null\nt: ~\ne:\ns: 'null'\ni: 42\nf: 1.5\nw: word\nq: \"7\"\n");
  NodeRef root = r.tree->root(0);
  CHECK(root.get("n").isNull());
  CHECK(root.get("t").isNull());
  CHECK(root.get("e").isNull());
  CHECK_FALSE(root.get("s").isNull());
  CHECK(root.get("s").isString());
  CHECK_FALSE(root.get("i").isString());
  CHECK_FALSE(root.get("f").isString());
  CHECK(root.get("w").isString());
  CHECK(root.get("q").isString());
  CHECK_FALSE(root.get("q").asInt());
}

TEST_CASE("plain scalars are typed as kubectl types them (go-yaml v2, strconv base 0)") {
  ParseResult r = parseText(
      "hex: 0x1F\nHEX: 0X1f\noct: 0o17\nold: 017\nnine: 019\nbin: 0b101\nsep: 1_000\n"
      "neg: -0x10\nplus: +42\nbig: 9223372036854775807\nover: 9223372036854775808\n"
      "float: 0.5\nexp: 1e3\ninf: inf\nnan: nan\ninfinity: Infinity\ndotinf: .inf\n"
      "date: 2024-01-01\nzero: 0\nmode: 0755\n");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("hex").asInt() == 31);
  CHECK(root.get("HEX").asInt() == 31);
  CHECK(root.get("oct").asInt() == 15);
  CHECK(root.get("old").asInt() == 15);
  CHECK(root.get("nine").asInt() == 19);  // not octal: go-yaml reads the float 19
  CHECK(root.get("bin").asInt() == 5);
  CHECK(root.get("sep").asInt() == 1000);
  CHECK(root.get("neg").asInt() == -16);
  CHECK(root.get("plus").asInt() == 42);
  CHECK(root.get("big").asInt() == INT64_MAX);
  CHECK_FALSE(root.get("over").asInt());
  CHECK_FALSE(root.get("over").isString());  // a float
  CHECK(root.get("zero").asInt() == 0);
  CHECK(root.get("mode").asInt() == 493);
  CHECK_FALSE(root.get("float").isString());
  CHECK_FALSE(root.get("exp").isString());
  // Plain inf, nan and infinity are strings; only the YAML forms .inf and .nan are numbers.
  CHECK(root.get("inf").isString());
  CHECK(root.get("nan").isString());
  CHECK(root.get("infinity").isString());
  CHECK_FALSE(root.get("dotinf").isString());
  CHECK(root.get("date").isString());
}

TEST_CASE("key lookups compare whole keys, whatever their length and first byte") {
  ParseResult r = parseText(
      "name: 1\nnope: 2\nnape: 3\n\"\": 4\nx: 5\ny: 6\n? [name]\n: 7\n"
      "\"n\\x61me2\": 8\nlong-key-of-more-than-sixteen-bytes: 9\n"
      "long-key-of-more-than-sixteen-bytez: 10\nbase: &b {k: 11, kk: 12}\n"
      "merged: {<<: *b, kk: 13}\n");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("name").asInt() == 1);
  CHECK(root.get("nope").asInt() == 2);
  CHECK(root.get("nape").asInt() == 3);
  CHECK_FALSE(root.get("nabe"));
  CHECK(root.get("").asInt() == 4);
  CHECK(root.get("x").asInt() == 5);
  CHECK(root.get("y").asInt() == 6);
  CHECK_FALSE(root.get("z"));
  CHECK(root.get("name2").asInt() == 8);  // an escaped key, by its value
  CHECK(root.get("long-key-of-more-than-sixteen-bytes").asInt() == 9);
  CHECK(root.get("long-key-of-more-than-sixteen-bytez").asInt() == 10);
  CHECK_FALSE(root.get("long-key-of-more-than-sixteen-byte"));
  CHECK(root.get("merged").get("k").asInt() == 11);
  CHECK(root.get("merged").get("kk").asInt() == 13);
  CHECK(root.keyNode("y").str() == "y");
  // A key that is not a scalar is never found by text.
  CHECK(root.size() == 12);
}

TEST_CASE("entries added after parsing are found, in mappings that move and values that repeat") {
  ParseResult object = parseText("a: {b: 1}\nc: {d: 2}\n");
  ParseResult values = parseText("p: PathPrefix\nq: PathSuffix\nr: ''\n");
  NodeRef root = object.tree->root(0);
  NodeRef v = values.tree->root(0);
  // `a`'s children are not the last: adding moves them to the end.
  object.tree->addEntry(root.get("a"), "type", v.get("p"));
  object.tree->addEntry(root.get("c"), "type", v.get("q"));
  object.tree->addEntry(root.get("a"), "tyqe", v.get("p"));
  object.tree->addEntry(root.get("a"), "", v.get("r"));
  object.tree->addEntry(root.get("c"), "kind", v.get("p"));
  CHECK(root.get("a").get("b").asInt() == 1);
  CHECK(root.get("a").get("type").str() == "PathPrefix");
  CHECK(root.get("a").get("tyqe").str() == "PathPrefix");
  CHECK(root.get("a").get("").str().empty());
  CHECK(root.get("a").get("").synthesized());
  CHECK(root.get("c").get("d").asInt() == 2);
  CHECK(root.get("c").get("type").str() == "PathSuffix");
  CHECK(root.get("c").get("kind").str() == "PathPrefix");
  CHECK(root.get("a").size() == 4);
  CHECK(root.get("c").size() == 3);
}

TEST_CASE("plain scalars are strings unless a null, a boolean or a number, by any first byte") {
  ParseResult r = parseText(
      "a: tea\nb: TRUE\nc: ~x\nd: ~\ne: Falsey\ng: name\nh: .5\n"
      "j: -.inf\nk: +12\nl: 0x1F\nm: x1\nn: fAlse\n");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  for (const char* key : {"a", "c", "e", "g", "m", "n"}) {
    INFO(key);
    CHECK(root.get(key).isString());
  }
  for (const char* key : {"b", "d", "h", "j", "k", "l"}) {  // l: 0x1F, hex as kubectl reads it
    INFO(key);
    CHECK_FALSE(root.get(key).isString());
  }
}

TEST_CASE("integers read as kubectl reads them, at every length") {
  ParseResult r = parseText(
      "neg: -17\nplus: +5\nzeros: '0042'\nlead: 0042\nmixed: 12a\nsign: -x\n"
      "d18: 123456789012345678\nd19: 1234567890123456789\nmin: -9223372036854775808\n"
      "over: 99999999999999999999\nsep: 1_000\nspace: 1 2\n");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("neg").asInt() == -17);
  CHECK(root.get("plus").asInt() == 5);
  CHECK_FALSE(root.get("zeros").asInt());  // quoted: a string
  CHECK(root.get("lead").asInt() == 34);  // a leading zero is octal to go-yaml
  CHECK_FALSE(root.get("mixed").asInt());
  CHECK(root.get("mixed").isString());
  CHECK_FALSE(root.get("sign").asInt());
  CHECK(root.get("sign").isString());
  CHECK(root.get("d18").asInt() == 123456789012345678);
  CHECK(root.get("d19").asInt() == 1234567890123456789);
  CHECK(root.get("min").asInt() == std::numeric_limits<std::int64_t>::min());
  CHECK_FALSE(root.get("over").asInt());     // past int64
  CHECK_FALSE(root.get("over").isString());  // but a number still
  CHECK(root.get("sep").asInt() == 1000);  // go-yaml drops the underscores
  CHECK(root.get("space").isString());
}

TEST_CASE("escaped and folded scalars are decoded; plain ones point into the text") {
  ParseResult r = parseText("a: \"x\\ty\"\nb: |\n  line1\n  line2\nc: plain\n");
  NodeRef root = r.tree->root(0);
  CHECK(root.get("a").str() == "x\ty");
  CHECK(root.get("b").str() == "line1\nline2\n");
  std::string_view c = root.get("c").str();
  CHECK(c == "plain");
  CHECK(c.data() >= r.tree->text().data());
  CHECK(c.data() < r.tree->text().data() + r.tree->text().size());
}

TEST_CASE("columns count code points, not bytes") {
  ParseResult r = parseText("name: \xc3\xa9t\xc3\xa9\nnext: x\n");
  NodeRef root = r.tree->root(0);
  CHECK(root.get("name").str() == "\xc3\xa9t\xc3\xa9");
  CHECK(root.get("next").start().column == 7);
}

TEST_CASE("several documents, empty ones included") {
  ParseResult r = parseText("---\na: 1\n---\n---\nb: 2\n...\n");
  REQUIRE(r.problems.empty());
  REQUIRE(r.tree->documents().size() == 3);
  CHECK(r.tree->root(0).get("a").asInt() == 1);
  CHECK(r.tree->root(1).isNull());
  CHECK(r.tree->root(2).get("b").asInt() == 2);
  CHECK(r.tree->documents()[2].start.line == 4);
}

TEST_CASE("a syntax error drops its document and parsing resumes at the next ---") {
  ParseResult r = parseText("a: 1\n---\nb: [1, 2\n---\nc: 3\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::Syntax);
  CHECK(r.problems[0].start.line == 4);
  REQUIRE(r.tree->documents().size() == 2);
  CHECK(r.tree->root(0).get("a").asInt() == 1);
  CHECK(r.tree->root(1).get("c").asInt() == 3);
  CHECK(r.tree->root(1).get("c").start().line == 5);
}

TEST_CASE("duplicate keys are reported at the repeated key, first value wins") {
  ParseResult r = parseText("a: 1\nb:\n  x: 1\n  x: 2\na: 3\n");
  REQUIRE(r.problems.size() == 2);
  CHECK(r.problems[0].kind == ProblemKind::DuplicateKey);
  CHECK(r.problems[0].start.line == 4);
  CHECK(r.problems[0].start.column == 3);
  CHECK(r.problems[1].start.line == 5);
  CHECK(r.tree->root(0).get("a").asInt() == 1);
}

TEST_CASE("duplicate keys: merge keys may repeat, empty keys may not") {
  ParseResult r = parseText("b: &b {x: 1}\nc: &c {y: 2}\nm:\n  <<: *b\n  <<: *c\n  \"\": 1\n  '': 2\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::DuplicateKey);
  CHECK(r.problems[0].start.line == 7);
  CHECK(r.tree->root(0).get("m").get("x").asInt() == 1);
  CHECK(r.tree->root(0).get("m").get("y").asInt() == 2);
}

TEST_CASE("duplicate keys: alike keys are told apart, escaped keys compare by their value") {
  // Same length and same first and last bytes: the quick filter lets them through to a full
  // comparison, which tells them apart.
  ParseResult alike = parseText("name: 1\nnape: 2\nnope: 3\n");
  CHECK(alike.problems.empty());
  // A key with an escape is held as its value, not its bytes in the file: "a\x62" is `ab`.
  ParseResult escaped = parseText("ab: 1\n\"a\\x62\": 2\n\"x\\ty\": 3\n\"x\\ty\": 4\n");
  REQUIRE(escaped.problems.size() == 2);
  CHECK(escaped.problems[0].start.line == 2);
  CHECK(escaped.problems[1].start.line == 4);
  CHECK(escaped.problems[1].message == "key \"x\ty\" is repeated in this mapping");
}

TEST_CASE("duplicate keys in large mappings are found too") {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "k" + std::to_string(i) + ": " + std::to_string(i) + "\n";
  text += "k7: again\n";
  ParseResult r = parseText(text);
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].start.line == 41);
}

TEST_CASE("aliases share the anchored node; merge keys merge, written keys win") {
  ParseResult r = parseText("base: &b {x: 1, y: 2}\nuse: *b\nmerged:\n  <<: *b\n  y: 3\n  z: 4\n");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("use").get("y").asInt() == 2);
  CHECK(root.get("use") == root.get("base"));
  NodeRef merged = root.get("merged");
  CHECK(merged.size() == 3);
  CHECK(merged.get("x").asInt() == 1);
  CHECK(merged.get("y").asInt() == 3);
  CHECK(merged.get("z").asInt() == 4);
}

TEST_CASE("an alias bomb is bounded and reported") {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) text += std::string(i ? ", " : "") + "*" + char(c - 1);
    text += "]\n";
  }
  text += "---\nok: 1\n";
  ParseResult r = parseText(text, {128, 1000});
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::AliasExpansion);
  REQUIRE(r.tree->documents().size() == 1);
  CHECK(r.tree->root(0).get("ok").asInt() == 1);
}

TEST_CASE("an alias inside the node it names is reported, not followed") {
  ParseResult r = parseText("a: &a [1, *a]\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::AliasExpansion);
  CHECK(r.tree->documents().empty());
}

TEST_CASE("an undefined alias is a syntax problem") {
  ParseResult r = parseText("a: *nothing\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::Syntax);
}

TEST_CASE("nesting deeper than the limit drops the document") {
  std::string deep(200, '[');
  deep += std::string(200, ']') + "\n---\nok: 1\n";
  ParseResult r = parseText(deep, {64, 1000});
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::Depth);
  CHECK(r.problems[0].start.column == 65);
  REQUIRE(r.tree->documents().size() == 1);
  CHECK(r.tree->root(0).get("ok").asInt() == 1);
}

TEST_CASE("JSON is read as YAML") {
  ParseResult r = parseText("{\"kind\": \"Service\", \"spec\": {\"ports\": [{\"port\": 80}]}}");
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("kind").str() == "Service");
  CHECK(root.get("spec").get("ports").at(0).get("port").asInt() == 80);
}

TEST_CASE("iteration over entries and items") {
  ParseResult r = parseText("m: {a: 1, b: 2}\ns: [x, y, z]\n");
  NodeRef root = r.tree->root(0);
  std::string keys;
  for (auto [k, v] : root.get("m").entries()) keys += std::string(k.str()) + std::string(v.str());
  CHECK(keys == "a1b2");
  std::string items;
  for (NodeRef item : root.get("s").items()) items += std::string(item.str());
  CHECK(items == "xyz");
  int none = 0;
  for (NodeRef item : root.get("m").items()) none += item ? 1 : 1;
  CHECK(none == 0);
}

TEST_CASE("control characters drop their document only, reported once a line") {
  ParseResult r = parseText("a: 1\n---\nb: \"x\x1b[1my\x1b[0m\"\n---\nc: 3\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::Syntax);
  CHECK(r.problems[0].start.line == 3);
  CHECK(r.problems[0].start.column == 6);
  REQUIRE(r.tree->documents().size() == 2);
  CHECK(r.tree->root(0).get("a").asInt() == 1);
  CHECK(r.tree->root(1).get("c").asInt() == 3);
}

// The scan for forbidden characters reads sixteen bytes at a time (SSE2), then eight: every
// forbidden byte is found at every offset within a block and a word, and the allowed ones
// nearest to them never are.
TEST_CASE("every forbidden character is found wherever it falls in a word") {
  std::vector<std::string> forbidden = {"\x7F", "\xC2\x80", "\xC2\x9F"};
  for (int c = 1; c < 0x20; ++c)
    if (c != '\t' && c != '\n' && c != '\r') forbidden.push_back(std::string(1, char(c)));
  for (const std::string& bad : forbidden) {
    for (std::size_t pad = 0; pad < 41; ++pad) {
      std::string text = "k: \"" + std::string(pad, 'x') + bad + "\"\n";
      ParseResult r = parseText(text);
      INFO("byte 0x" << std::hex << int(static_cast<unsigned char>(bad[0])) << " after " << std::dec
                     << pad);
      REQUIRE(r.problems.size() == 1);
      CHECK(r.problems[0].start.column == 5 + pad);
      CHECK(r.tree->documents().empty());
    }
  }
  // Allowed: tab, CR, LF, space, and non-ASCII text (including 0xC2 0x85 and 0xC2 0xA0:
  // NEL and no-break space) at every offset.
  for (std::size_t pad = 0; pad < 41; ++pad) {
    std::string text = "k: \"" + std::string(pad, 'x') + "\t \xC3\xA9\xC2\xA0\xC2\x85~\"\r\n";
    ParseResult r = parseText(text);
    INFO("after " << pad);
    CHECK(r.problems.empty());
    CHECK(r.tree->documents().size() == 1);
  }
}

TEST_CASE("an error on a document's own --- line is reported once") {
  ParseResult r = parseText("a: 1\n--- {b: 2]\n---\nc: 3\n");
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].start.line == 2);
  REQUIRE(r.tree->documents().size() == 2);
  CHECK(r.tree->root(1).get("c").asInt() == 3);
}

TEST_CASE("JSON surrogate pairs are read, and later columns stay right") {
  std::string text = "{\"wave\": \"\\uD83D\\uDC4B\", \"next\": 1}";
  ParseResult r = parse(text, {}, true, true);
  REQUIRE(r.problems.empty());
  NodeRef root = r.tree->root(0);
  CHECK(root.get("wave").str() == "\xF0\x9F\x91\x8B");
  CHECK(root.get("next").start().column == 34);
  CHECK(root.keyNode("next").start().column == 26);
  // An escaped backslash before `u` is not an escape; a lone surrogate stays an error.
  ParseResult literal = parse("{\"a\": \"\\\\uD83D\\\\uDC4B\"}", {}, true, true);
  REQUIRE(literal.problems.empty());
  CHECK(literal.tree->root(0).get("a").str() == "\\uD83D\\uDC4B");
  CHECK(parse("{\"a\": \"\\uD83D\"}", {}, true, true).problems.size() == 1);
  // YAML files keep YAML's rules.
  CHECK(parse(text, {}, true, false).problems.size() == 1);
}

TEST_CASE("very deep flow nesting stops at the limit and resumes at the next document") {
  std::string text(100000, '[');
  text += "\n---\nok: 1\n";
  ParseResult r = parseText(text);
  REQUIRE(r.problems.size() >= 1);
  CHECK(r.problems[0].kind == ProblemKind::Depth);
  REQUIRE(r.tree->documents().size() == 1);
  CHECK(r.tree->root(0).get("ok").asInt() == 1);
}

TEST_CASE("merge keys count the entries they copy; the finding names the merge") {
  std::string text = "base: &b {k1: 1, k2: 2, k3: 3, k4: 4}\n";
  for (int i = 0; i < 4; ++i) text += "m" + std::to_string(i) + ": {<<: *b, own: 1}\n";
  ParseResult r = parseText(text, {128, 10});
  REQUIRE(r.problems.size() == 1);
  CHECK(r.problems[0].kind == ProblemKind::AliasExpansion);
  CHECK(r.problems[0].start.line == 4);  // the third merge: 12 entries > 10
  CHECK(r.problems[0].start.column == 6);
  CHECK(parseText(text, {128, 16}).problems.empty());
}

TEST_CASE("NodeRef::get tells apart keys that differ in one byte, at any length") {
  // Keys of 1 to 24 bytes, each beside twins that differ only in the first, a middle or the
  // last byte: a lookup compares whole keys whatever their length.
  std::string text;
  std::vector<std::string> keys;
  for (std::size_t n = 1; n <= 24; ++n) {
    std::string key(n, 'k');
    for (std::size_t i = 0; i < n; ++i) key[i] = static_cast<char>('a' + (i * 7 + n) % 26);
    for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
      if ((at == n / 2 && at == 0) || (at == n - 1 && (at == 0 || at == n / 2))) continue;
      std::string twin = key;
      twin[at] = twin[at] == 'z' ? 'y' : 'z';
      text += twin + ": twin\n";
    }
    text += key + ": " + std::to_string(n) + "\n";
    keys.push_back(key);
  }
  auto parsed = pg::yaml::parse(text, {}, false);
  REQUIRE(parsed.problems.empty());
  pg::yaml::NodeRef root = parsed.tree->root(0);
  for (const std::string& key : keys) {
    INFO(key);
    CHECK(root.get(key).str() == std::to_string(key.size()));
    CHECK(!root.get(key + "x"));
    CHECK(!root.get(key.substr(1)).isMapping());
  }
}
