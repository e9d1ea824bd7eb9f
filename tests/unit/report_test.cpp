#include "lib/report/report.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/load/loader.h"
#include "lib/report/common.h"
#include "rules/engine.h"

using namespace pg;

namespace {

constexpr std::string_view kBrokenFilePage =
    "# IN901-broken-file\n\n## What it detects\n\nA file that cannot\nbe read at all.\n\n"
    "```yaml\nkey: [\n```\n\nMore text.\n";

// Three files' worth of objects, one of them defined twice, and a hand-made catalogue with
// one rule per kind of subject (files, every object, one kind) and one disabled rule.
struct Fixture {
  analysis::Analysis analysis;
  std::vector<model::RuleInfo> rules;
  std::vector<model::Finding> findings;

  Fixture() {
    analysis.root = "/repo/with space";
    std::vector<model::Resource> resources;
    auto add = [&](std::string path, std::string text) {
      load::FileResult loaded = load::loadText(std::move(path), std::move(text), {});
      REQUIRE(loaded.problems.empty());
      resources.insert(resources.end(), loaded.resources.begin(), loaded.resources.end());
      analysis::addFile(analysis, std::move(loaded.file));
    };
    add("routes/a b.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
        "metadata:\n  name: checkout\n  namespace: shop\n---\n"
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n");
    add("c.yaml",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\n"
        "metadata:\n  name: cart\n  namespace: shop\n---\n"
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n");
    analysis.store.build(std::move(resources));
    analysis.config.rules["GW902"].off = true;

    rules = {
        {"GW901", "orphan-route", "gateway", model::Severity::Warning, "A route attaches nowhere",
         "", "rules/gateway/GW901-orphan-route.md", "HTTPRoute"},
        {"GW902", "disabled-rule", "gateway", model::Severity::Error, "Never runs", "", "",
         "Service"},
        {"IN901", "broken-file", "input", model::Severity::Error, "A file is broken",
         kBrokenFilePage, "rules/input/IN901-broken-file.md", "file"},
        {"PA901", "any-object", "policy", model::Severity::Note, "Something about an object",
         "# PA901-any-object\n", "rules/policy/PA901-any-object.md", "*"},
    };

    // In report order: path, line, column.
    finding("PA901", model::Severity::Note, "100% done:\nnext, line", {"c.yaml", {4, 7}, {}},
            {"HTTPRoute/shop/cart"});
    finding("IN901", model::Severity::Error, "dangling symlink", {"link.yaml", {1, 1}, {1, 1}});
    finding("IN901", model::Severity::Error, "bad <tag> & \"quote\"",
            {"routes/a b.yaml", {3, 5}, {3, 9}});
    model::Finding& route =
        finding("GW901", model::Severity::Warning, "no parent accepts it",
                {"routes/a b.yaml", {10, 3}, {12, 1}}, {"HTTPRoute/shop/checkout"});
    route.related.push_back({{"c.yaml", {2, 1}, {2, 5}}, "the other route"});
    route.related.push_back({{"routes/a b.yaml", {1, 1}, {1, 11}}, "its file"});
  }

  model::Finding& finding(std::string rule, model::Severity severity, std::string message,
                          model::Location at, std::vector<std::string> objects = {}) {
    model::Finding& f = findings.emplace_back();
    f.ruleId = std::move(rule);
    f.severity = severity;
    f.message = std::move(message);
    f.location = std::move(at);
    f.objects = std::move(objects);
    f.fingerprint = model::fingerprintOf(f);
    return f;
  }

  report::ReportInput input() const { return {analysis, findings, rules}; }
};

std::string sarif(const report::ReportInput& input) {
  std::ostringstream out;
  report::writeSarif(out, input);
  return out.str();
}

std::string junit(const report::ReportInput& input) {
  std::ostringstream out;
  report::writeJunit(out, input);
  return out.str();
}

std::string github(const report::ReportInput& input) {
  std::ostringstream out;
  report::writeGithub(out, input);
  return out.str();
}

nlohmann::json region(int startLine, int startColumn, int endLine, int endColumn) {
  return {{"startLine", startLine},
          {"startColumn", startColumn},
          {"endLine", endLine},
          {"endColumn", endColumn}};
}

std::vector<std::string> names(pugi::xml_node parent, const char* child) {
  std::vector<std::string> out;
  for (pugi::xml_node node : parent.children(child)) out.push_back(node.attribute("name").value());
  return out;
}

}  // namespace

TEST_CASE("SARIF: one run describing the tool and the whole catalogue") {
  Fixture fx;
  const nlohmann::json log = nlohmann::json::parse(sarif(fx.input()));
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  CHECK(log["version"] == "2.1.0");
  REQUIRE(log["runs"].size() == 1);
  const nlohmann::json& run = log["runs"][0];
  const nlohmann::json& driver = run["tool"]["driver"];
  CHECK(driver["name"] == "policygraph");
  CHECK(driver["semanticVersion"] == std::string(report::toolVersion()));
  CHECK(driver["informationUri"] == std::string(report::informationUri()));
  CHECK(run["columnKind"] == "unicodeCodePoints");
  CHECK(run["invocations"] == nlohmann::json::parse(R"([{"executionSuccessful": true}])"));
  CHECK(run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///repo/with%20space/");
  CHECK_FALSE(run.contains("artifacts"));

  const nlohmann::json& rules = driver["rules"];
  REQUIRE(rules.size() == 4);
  std::vector<std::string> ids;
  for (const auto& rule : rules) ids.push_back(rule["id"]);
  CHECK(ids == std::vector<std::string>{"GW901", "GW902", "IN901", "PA901"});

  const nlohmann::json& broken = rules[2];
  CHECK(broken["name"] == "broken-file");
  CHECK(broken["shortDescription"]["text"] == "A file is broken");
  // The first paragraph after the title and section headings, its lines joined.
  CHECK(broken["fullDescription"]["text"] == "A file that cannot be read at all.");
  CHECK(broken["help"]["text"] == std::string(kBrokenFilePage));
  CHECK(broken["help"]["markdown"] == std::string(kBrokenFilePage));
  CHECK(broken["helpUri"] ==
        std::string(report::informationUri()) + "/blob/main/rules/input/IN901-broken-file.md");
  CHECK(broken["defaultConfiguration"]["level"] == "error");
  CHECK(broken["properties"]["tags"] == nlohmann::json::array({"input"}));

  // Pages without prose describe the rule by its summary.
  CHECK(rules[0]["fullDescription"]["text"] == "A route attaches nowhere");
  CHECK(rules[0]["help"]["text"] == "A route attaches nowhere");
  CHECK(rules[0]["defaultConfiguration"]["level"] == "warning");
  CHECK(rules[3]["fullDescription"]["text"] == "Something about an object");
  CHECK(rules[3]["defaultConfiguration"]["level"] == "note");
}

TEST_CASE("SARIF: results point at the rule, the file under SRCROOT and the exact span") {
  Fixture fx;
  const nlohmann::json run = nlohmann::json::parse(sarif(fx.input()))["runs"][0];
  const nlohmann::json& results = run["results"];
  REQUIRE(results.size() == 4);

  std::vector<std::pair<std::string, int>> ruleRefs;
  for (const auto& r : results) ruleRefs.emplace_back(r["ruleId"], r["ruleIndex"]);
  CHECK(ruleRefs == std::vector<std::pair<std::string, int>>{
                        {"PA901", 3}, {"IN901", 2}, {"IN901", 2}, {"GW901", 0}});

  const nlohmann::json& note = results[0];
  CHECK(note["level"] == "note");
  CHECK(note["message"]["text"] == "100% done:\nnext, line");
  REQUIRE(note["locations"].size() == 1);
  const nlohmann::json& notePlace = note["locations"][0]["physicalLocation"];
  CHECK(notePlace["artifactLocation"] ==
        nlohmann::json::parse(R"({"uri": "c.yaml", "uriBaseId": "SRCROOT"})"));
  // An unknown end collapses onto the start.
  CHECK(notePlace["region"] == region(4, 7, 4, 7));
  CHECK_FALSE(note.contains("relatedLocations"));

  const nlohmann::json& error = results[2];
  CHECK(error["level"] == "error");
  const nlohmann::json& errorPlace = error["locations"][0]["physicalLocation"];
  CHECK(errorPlace["artifactLocation"]["uri"] == "routes/a%20b.yaml");
  CHECK(errorPlace["region"] == region(3, 5, 3, 9));
  CHECK(error["partialFingerprints"] ==
        nlohmann::json{{"policygraph/v1", fx.findings[2].fingerprint}});
  CHECK(fx.findings[2].fingerprint.size() == 16);

  const nlohmann::json& warning = results[3];
  CHECK(warning["level"] == "warning");
  // The exclusive end at the start of line 12 is kept as it is.
  CHECK(warning["locations"][0]["physicalLocation"]["region"] == region(10, 3, 12, 1));
  const nlohmann::json& related = warning["relatedLocations"];
  REQUIRE(related.size() == 2);
  CHECK(related[0]["id"] == 1);
  CHECK(related[0]["message"]["text"] == "the other route");
  CHECK(related[0]["physicalLocation"]["artifactLocation"]["uri"] == "c.yaml");
  CHECK(related[0]["physicalLocation"]["region"] == region(2, 1, 2, 5));
  CHECK(related[1]["id"] == 2);
  CHECK(related[1]["physicalLocation"]["artifactLocation"]["uri"] == "routes/a%20b.yaml");
}

TEST_CASE("SARIF: odd paths become valid URI references") {
  Fixture fx;
  fx.findings.clear();
  fx.finding("IN901", model::Severity::Error, "from a pipe", {"<stdin>", {2, 1}, {2, 4}});
  fx.finding("IN901", model::Severity::Error, "outside", {"/elsewhere/x y.yaml", {1, 1}, {1, 2}});
  fx.finding("IN901", model::Severity::Error, "odd", {"a:b/100%#?é.yaml", {1, 1}, {1, 2}});
  // No position at all (a folder that cannot be read), and an end before the start.
  fx.finding("IN901", model::Severity::Error, "folder", {"deep", {}, {}});
  fx.finding("IN901", model::Severity::Error, "backwards", {"c.yaml", {5, 9}, {5, 2}});
  const nlohmann::json results = nlohmann::json::parse(sarif(fx.input()))["runs"][0]["results"];
  REQUIRE(results.size() == 5);
  auto place = [&](int i) { return results[i]["locations"][0]["physicalLocation"]; };
  CHECK(place(0)["artifactLocation"] ==
        nlohmann::json::parse(R"({"uri": "stdin", "uriBaseId": "SRCROOT"})"));
  CHECK(place(1)["artifactLocation"] ==
        nlohmann::json::parse(R"({"uri": "file:///elsewhere/x%20y.yaml"})"));
  CHECK(place(2)["artifactLocation"]["uri"] == "a%3Ab/100%25%23%3F%C3%A9.yaml");
  CHECK(place(3) ==
        nlohmann::json::parse(R"({"artifactLocation": {"uri": "deep", "uriBaseId": "SRCROOT"}})"));
  CHECK(place(4)["region"] == region(5, 9, 5, 9));
}

TEST_CASE("SARIF: paths from the repository root when the root is a folder inside it") {
  Fixture fx;
  fx.analysis.repositoryRoot = "/repo";  // the root is /repo/with space
  fx.finding("IN901", model::Severity::Error, "in the repository", {"/repo/x.yaml", {1, 1}, {}});
  fx.finding("IN901", model::Severity::Error, "outside", {"/elsewhere/y.yaml", {1, 1}, {}});
  fx.finding("IN901", model::Severity::Error, "from a pipe", {"<stdin>", {1, 1}, {}});
  fx.finding("IN901", model::Severity::Error, "the root", {".", {}, {}});
  const nlohmann::json run = nlohmann::json::parse(sarif(fx.input()))["runs"][0];
  CHECK(run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file:///repo/");
  const nlohmann::json& results = run["results"];
  REQUIRE(results.size() == 8);
  auto uri = [](const nlohmann::json& at) {
    return at["physicalLocation"]["artifactLocation"]["uri"].get<std::string>();
  };
  CHECK(uri(results[0]["locations"][0]) == "with%20space/c.yaml");
  CHECK(uri(results[3]["locations"][0]) == "with%20space/routes/a%20b.yaml");
  CHECK(uri(results[3]["relatedLocations"][0]) == "with%20space/c.yaml");
  CHECK(uri(results[3]["relatedLocations"][1]) == "with%20space/routes/a%20b.yaml");
  CHECK(uri(results[4]["locations"][0]) == "x.yaml");
  CHECK(uri(results[5]["locations"][0]) == "file:///elsewhere/y.yaml");
  CHECK(uri(results[6]["locations"][0]) == "stdin");
  CHECK(uri(results[7]["locations"][0]) == "with%20space");
  // The fingerprint does not move with the report's paths.
  CHECK(results[1]["partialFingerprints"]["policygraph/v1"] == fx.findings[1].fingerprint);
}

TEST_CASE("SARIF: a clean run has an empty results list, and output is deterministic") {
  Fixture fx;
  fx.findings.clear();
  const std::string text = sarif(fx.input());
  CHECK(text.find("\"results\": []") != std::string::npos);
  CHECK(nlohmann::json::parse(text)["runs"][0]["results"] == nlohmann::json::array());
  CHECK(text == sarif(fx.input()));
  Fixture dirty;
  CHECK(sarif(dirty.input()) == sarif(dirty.input()));
}

TEST_CASE("SARIF: bytes that are not UTF-8 do not stop the report") {
  Fixture fx;
  fx.findings.clear();
  fx.finding("IN901", model::Severity::Error, "name \xff\xfe here", {"bad\xff.yaml", {1, 1}, {}});
  const nlohmann::json result = nlohmann::json::parse(sarif(fx.input()))["runs"][0]["results"][0];
  CHECK(result["message"]["text"] == "name \xEF\xBF\xBD\xEF\xBF\xBD here");
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.yaml");
}

TEST_CASE("SARIF: the real catalogue and a real finding") {
  analysis::Analysis a;
  a.root = "/repo";
  load::FileResult loaded = load::loadText("broken.yaml", "a: [\n", {});
  a.problems = std::move(loaded.problems);
  analysis::addFile(a, std::move(loaded.file));
  rules::RuleRun run = rules::runRules(a);
  REQUIRE(run.findings.size() == 1);
  const std::vector<model::RuleInfo> catalogue = rules::catalogue();
  const nlohmann::json log = nlohmann::json::parse(sarif({a, run.findings, catalogue}))["runs"][0];
  CHECK(log["tool"]["driver"]["rules"].size() == catalogue.size());
  const nlohmann::json& result = log["results"][0];
  CHECK(result["ruleId"] == "IN101");
  const int index = result["ruleIndex"];
  CHECK(log["tool"]["driver"]["rules"][index]["id"] == "IN101");
  CHECK(result["partialFingerprints"]["policygraph/v1"] == run.findings[0].fingerprint);
}

TEST_CASE("JUnit: one suite per family, one case per checked subject, failures per error") {
  Fixture fx;
  const std::string text = junit(fx.input());
  CHECK(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(text.c_str()));
  pugi::xml_node suites = doc.child("testsuites");
  CHECK(std::string(suites.attribute("name").value()) == "policygraph");
  // 2 routes + 3 files (two read, one symlink) + 3 distinct objects; the two files with
  // errors fail, the warning and the note do not.
  CHECK(suites.attribute("tests").as_int() == 8);
  CHECK(suites.attribute("failures").as_int() == 2);
  CHECK(suites.attribute("errors").as_int() == 0);
  CHECK(names(suites, "testsuite") ==
        std::vector<std::string>{"policygraph.gateway", "policygraph.input", "policygraph.policy"});

  pugi::xml_node gateway =
      suites.find_child_by_attribute("testsuite", "name", "policygraph.gateway");
  // GW902 is off in the config: no test cases for it.
  CHECK(names(gateway, "testcase") ==
        std::vector<std::string>{"HTTPRoute/shop/checkout", "HTTPRoute/shop/cart"});
  CHECK(gateway.attribute("tests").as_int() == 2);
  CHECK(gateway.attribute("failures").as_int() == 0);
  pugi::xml_node checkout = gateway.child("testcase");
  CHECK(std::string(checkout.attribute("classname").value()) == "policygraph.gateway.GW901");
  CHECK_FALSE(checkout.child("failure"));
  CHECK(std::string(checkout.child("system-out").child_value()) ==
        "warning: routes/a b.yaml:10:3: no parent accepts it\n"
        "c.yaml:2:1: note: the other route\n"
        "routes/a b.yaml:1:1: note: its file\n");
  CHECK_FALSE(checkout.next_sibling("testcase").child("failure"));

  pugi::xml_node input = suites.find_child_by_attribute("testsuite", "name", "policygraph.input");
  // Files in the order they were read; the symlink nobody read comes after them.
  CHECK(names(input, "testcase") ==
        std::vector<std::string>{"routes/a b.yaml", "c.yaml", "link.yaml"});
  CHECK(input.attribute("tests").as_int() == 3);
  CHECK(input.attribute("failures").as_int() == 2);
  pugi::xml_node broken = input.child("testcase");
  pugi::xml_node brokenFailure = broken.child("failure");
  CHECK(std::string(brokenFailure.attribute("message").value()) == "bad <tag> & \"quote\"");
  CHECK(std::string(brokenFailure.attribute("type").value()) == "error");
  CHECK(std::string(brokenFailure.child_value()) == "routes/a b.yaml:3:5: bad <tag> & \"quote\"");
  // pugixml leaves ">" alone in attributes, which XML allows.
  CHECK(text.find("message=\"bad &lt;tag> &amp; &quot;quote&quot;\"") != std::string::npos);
  pugi::xml_node link = input.find_child_by_attribute("testcase", "name", "link.yaml");
  CHECK(std::string(link.attribute("classname").value()) == "policygraph.input.IN901");
  CHECK(std::string(link.child("failure").child_value()) == "link.yaml:1:1: dangling symlink");

  pugi::xml_node policy = suites.find_child_by_attribute("testsuite", "name", "policygraph.policy");
  // Service/shop/web is defined twice but checked once.
  CHECK(names(policy, "testcase") == std::vector<std::string>{"HTTPRoute/shop/checkout",
                                                              "Service/shop/web",
                                                              "HTTPRoute/shop/cart"});
  pugi::xml_node cart = policy.find_child_by_attribute("testcase", "name", "HTTPRoute/shop/cart");
  CHECK_FALSE(cart.child("failure"));
  CHECK(std::string(cart.child("system-out").child_value()) ==
        "note: c.yaml:4:7: 100% done:\nnext, line\n");
}

TEST_CASE("JUnit: several errors on one subject fail one test case") {
  Fixture fx;
  fx.finding("IN901", model::Severity::Warning, "second problem", {"c.yaml", {9, 1}, {9, 2}});
  fx.finding("IN901", model::Severity::Error, "third problem", {"c.yaml", {10, 1}, {10, 2}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(junit(fx.input()).c_str()));
  pugi::xml_node input =
      doc.child("testsuites").find_child_by_attribute("testsuite", "name", "policygraph.input");
  pugi::xml_node c = input.find_child_by_attribute("testcase", "name", "c.yaml");
  std::vector<std::string> types;
  for (pugi::xml_node failure : c.children("failure"))
    types.push_back(failure.attribute("type").value());
  CHECK(types == std::vector<std::string>{"error"});
  CHECK(std::string(c.child("system-out").child_value()) ==
        "warning: c.yaml:9:1: second problem\n");
  CHECK(input.attribute("tests").as_int() == 3);
  CHECK(input.attribute("failures").as_int() == 3);
  CHECK(doc.child("testsuites").attribute("failures").as_int() == 3);
}

TEST_CASE("JUnit: clean input lists every check, none failing; output is deterministic") {
  Fixture fx;
  fx.findings.clear();
  const std::string text = junit(fx.input());
  pugi::xml_document doc;
  REQUIRE(doc.load_string(text.c_str()));
  pugi::xml_node suites = doc.child("testsuites");
  CHECK(suites.attribute("tests").as_int() == 7);
  CHECK(suites.attribute("failures").as_int() == 0);
  CHECK(text.find("<failure") == std::string::npos);
  CHECK(text == junit(fx.input()));
  Fixture dirty;
  CHECK(junit(dirty.input()) == junit(dirty.input()));
}

TEST_CASE("JUnit: control characters and broken UTF-8 still make well-formed XML") {
  Fixture fx;
  fx.findings.clear();
  fx.finding("IN901", model::Severity::Error, "nul \x01 here \xC3 and \xC3\xA9",
             {"c.yaml", {1, 1}, {1, 2}});
  const std::string text = junit(fx.input());
  pugi::xml_document doc;
  REQUIRE(doc.load_string(text.c_str()));
  pugi::xml_node failure = doc.child("testsuites")
                               .find_child_by_attribute("testsuite", "name", "policygraph.input")
                               .find_child_by_attribute("testcase", "name", "c.yaml")
                               .child("failure");
  CHECK(std::string(failure.attribute("message").value()) ==
        "nul \xEF\xBF\xBD here \xEF\xBF\xBD and \xC3\xA9");
  CHECK(text.find("&#1;") == std::string::npos);
}

TEST_CASE("GitHub: one escaped workflow command per finding, nothing else") {
  Fixture fx;
  CHECK(github(fx.input()) ==
        "::notice file=c.yaml,line=4,col=7,endColumn=7,title=PA901 any-object::"
        "100%25 done:%0Anext, line\n"
        "::error file=link.yaml,line=1,col=1,endColumn=1,title=IN901 broken-file::"
        "dangling symlink\n"
        "::error file=routes/a b.yaml,line=3,col=5,endColumn=9,title=IN901 broken-file::"
        "bad <tag> & \"quote\"\n"
        // Columns only on one line; the end at the start of line 12 ends on line 11.
        "::warning file=routes/a b.yaml,line=10,endLine=11,title=GW901 orphan-route::"
        "no parent accepts it%0Ac.yaml:2:1: note: the other route"
        "%0Aroutes/a b.yaml:1:1: note: its file\n");
}

TEST_CASE("GitHub: files from the repository root, in the property and the notes") {
  Fixture fx;
  fx.analysis.repositoryRoot = "/repo/";
  fx.findings.erase(fx.findings.begin(), fx.findings.begin() + 3);
  fx.finding("IN901", model::Severity::Error, "piped", {"<stdin>", {2, 1}, {2, 4}});
  CHECK(github(fx.input()) ==
        "::warning file=with space/routes/a b.yaml,line=10,endLine=11,title=GW901 orphan-route::"
        "no parent accepts it%0Awith space/c.yaml:2:1: note: the other route"
        "%0Awith space/routes/a b.yaml:1:1: note: its file\n"
        "::error title=IN901 broken-file::piped\n");
}

TEST_CASE("GitHub: properties escape ':' and ','; odd locations") {
  Fixture fx;
  fx.findings.clear();
  fx.finding("IN901", model::Severity::Error, "a:b,c\r\n100%", {"x,y:z%.yaml", {2, 3}, {2, 8}});
  fx.finding("IN901", model::Severity::Error, "piped", {"<stdin>", {2, 1}, {2, 4}});
  fx.finding("IN901", model::Severity::Error, "folder", {"deep", {}, {}});
  fx.finding("XX999", model::Severity::Warning, "unknown rule", {"c.yaml", {3, 1}, {5, 4}});
  CHECK(github(fx.input()) ==
        "::error file=x%2Cy%3Az%25.yaml,line=2,col=3,endColumn=8,title=IN901 broken-file::"
        "a:b,c%0D%0A100%25\n"
        "::error title=IN901 broken-file::piped\n"
        "::error file=deep,title=IN901 broken-file::folder\n"
        "::warning file=c.yaml,line=3,endLine=5,title=XX999::unknown rule\n");
  fx.findings.clear();
  CHECK(github(fx.input()).empty());
}

TEST_CASE("text: control characters of file and object names are escaped, never written") {
  model::Finding f;
  f.ruleId = "GW203";
  f.severity = model::Severity::Error;
  f.location.path = "apps/a\x1b[2Jb.yaml";
  f.location.start = {3, 5};
  f.environment = "clusters/\nprod";
  // A bidirectional override (U+202E) and a C1 control (U+009B, CSI) in a quoted name.
  f.message =
      "HTTPRoute/shop/x\xe2\x80\xae names Service shop/y\xc2\x9b"
      "2J, which is missing";
  f.related.push_back({{"b\rc.yaml", {1, 1}, {1, 1}}, "line\nbreak"});
  std::ostringstream out;
  report::detail::writeFindingText(out, f, false, "");
  const std::string text = out.str();
  INFO(text);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\r') == std::string::npos);
  CHECK(text.find("\xe2\x80\xae") == std::string::npos);
  CHECK(text.find("\xc2\x9b") == std::string::npos);
  CHECK(text.find(
            "apps/a\\x1b[2Jb.yaml:3:5: error: [clusters/\\nprod] HTTPRoute/shop/x\\u{202e}") == 0);
  CHECK(text.find("shop/y\\u{009b}2J") != std::string::npos);
  CHECK(text.find("  b\\rc.yaml:1:1: note: line\\nbreak\n") != std::string::npos);
  // One finding, two lines: the lead and its one related note.
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}
