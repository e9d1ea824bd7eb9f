#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lib/load/loader.h"
#include "lib/model/ascii.h"
#include "lib/model/cidr.h"
#include "lib/model/duration.h"
#include "lib/model/encoding.h"
#include "lib/model/parallel.h"
#include "lib/model/quote.h"
#include "lib/model/selector.h"
#include "lib/model/shared_list.h"
#include "lib/model/store.h"
#include "lib/yaml/parser.h"
#include "tests/unit/load_store.h"

using namespace pg;

namespace {

using testing::Loaded;
using testing::loadStore;

}  // namespace

TEST_CASE("object refs display and parse") {
  model::ObjectRef ref{"gateway.networking.k8s.io", "HTTPRoute", "shop", "checkout", ""};
  CHECK(ref.display() == "HTTPRoute/shop/checkout");
  ref.sectionName = "rule-1";
  CHECK(ref.display() == "HTTPRoute/shop/checkout#rule-1");
  model::ObjectRef cluster{"gateway.networking.k8s.io", "GatewayClass", "", "eg", ""};
  CHECK(cluster.display() == "GatewayClass/eg");
  std::string kind, ns, name;
  CHECK(model::parseDisplayRef("HTTPRoute/shop/checkout", kind, ns, name));
  CHECK((kind == "HTTPRoute" && ns == "shop" && name == "checkout"));
  CHECK(model::parseDisplayRef("GatewayClass/eg", kind, ns, name));
  CHECK((kind == "GatewayClass" && ns.empty() && name == "eg"));
  CHECK_FALSE(model::parseDisplayRef("HTTPRoute", kind, ns, name));
  CHECK_FALSE(model::parseDisplayRef("a/b/c/d", kind, ns, name));
  auto gv = model::splitApiVersion("gateway.networking.k8s.io/v1");
  CHECK(gv.group == "gateway.networking.k8s.io");
  CHECK(gv.version == "v1");
  CHECK(model::splitApiVersion("v1").group.empty());
}

TEST_CASE("label selectors: matchLabels and every operator") {
  auto parsed = yaml::parse(
      "labels: {app: web, tier: front}\n"
      "s1: {matchLabels: {app: web}}\n"
      "s2: {matchExpressions: [{key: tier, operator: In, values: [front, back]}]}\n"
      "s3: {matchExpressions: [{key: tier, operator: NotIn, values: [front]}]}\n"
      "s4: {matchExpressions: [{key: app, operator: Exists}]}\n"
      "s5: {matchExpressions: [{key: app, operator: DoesNotExist}]}\n"
      "s6: {}\n"
      "bad1: {matchExpressions: [{key: app, operator: Near}]}\n"
      "bad2: {matchExpressions: [{key: app, operator: In}]}\n"
      "bad3: {matchExpressions: [{key: app, operator: Exists, values: [x]}]}\n",
      {}, true);
  yaml::NodeRef root = parsed.tree->root(0);
  yaml::NodeRef labels = root.get("labels");
  auto sel = [&](const char* key) {
    model::LabelSelector::Error error;
    auto s = model::LabelSelector::parse(root.get(key), &error);
    REQUIRE(s);
    return *s;
  };
  CHECK(sel("s1").matches(labels));
  CHECK(sel("s2").matches(labels));
  CHECK_FALSE(sel("s3").matches(labels));
  CHECK(sel("s4").matches(labels));
  CHECK_FALSE(sel("s5").matches(labels));
  CHECK(sel("s6").matchesEverything());
  for (const char* bad : {"bad1", "bad2", "bad3"}) {
    CAPTURE(bad);
    model::LabelSelector::Error error;
    CHECK_FALSE(model::LabelSelector::parse(root.get(bad), &error));
    CHECK(!error.message.empty());
    CHECK(error.at);
  }
}

TEST_CASE("the store indexes by kind, key, namespace and label, and finds duplicates") {
  Loaded l = loadStore(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop, labels: {app: "
      "web}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\n"
      "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg, "
      "namespace: ignored}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n");
  const model::Store& s = l.store;
  CHECK(s.size() == 5);
  CHECK(s.ofKind("Service").size() == 2);
  const model::Resource* web = s.find("", "Service", "shop", "web");
  REQUIRE(web);
  CHECK(web->namespace_ == "shop");
  const model::Resource* defaulted = s.find("", "Service", "default", "web");
  REQUIRE(defaulted);
  CHECK_FALSE(defaulted->namespaceWritten);
  const model::Resource* gc = s.find("gateway.networking.k8s.io", "GatewayClass", "", "eg");
  REQUIRE(gc);
  CHECK(gc->clusterScoped());
  CHECK(gc->display() == "GatewayClass/eg");
  CHECK(s.inNamespace("shop").size() == 1);
  CHECK(s.withLabel("team", "a").size() == 1);
  // The later definition replaces the earlier, as `kubectl apply -f` would apply them.
  REQUIRE(s.duplicates().size() == 1);
  CHECK(s.duplicates()[0].second == web);
  CHECK(web->node.start().line == 17);
  CHECK(s.duplicates()[0].first->node.start().line == 5);
  CHECK(s.objects().size() == 4);
  CHECK(std::find(s.objects().begin(), s.objects().end(), s.duplicates()[0].first) ==
        s.objects().end());
  CHECK(s.findByKind("Service", "shop", "web").size() == 1);
  auto selected = s.select("Service", "shop", model::LabelSelector::fromMatchLabels(web->labels()));
  CHECK(selected.size() == 1);
}

TEST_CASE("the store tells apart identities that only split their bytes differently") {
  // Namespace and name "ab"/"c" against "a"/"bc"; a NUL byte inside a name is found too.
  Loaded l = loadStore(
      "apiVersion: v1\nkind: Service\nmetadata: {name: c, namespace: ab}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: bc, namespace: a}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: \"b\\0c\", namespace: \"x\"}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: abcdefghijklmnop, namespace: q}\n");
  const model::Store& s = l.store;
  CHECK(s.duplicates().empty());
  CHECK(s.objects().size() == 4);
  using namespace std::string_view_literals;
  const model::Resource* abC = s.find("", "Service", "ab", "c");
  const model::Resource* aBc = s.find("", "Service", "a", "bc");
  const model::Resource* nulName = s.find("", "Service", "x", "b\0c"sv);
  REQUIRE(abC);
  REQUIRE(aBc);
  REQUIRE(nulName);
  CHECK(abC != aBc);
  CHECK(nulName->name == "b\0c"sv);
  CHECK_FALSE(s.find("", "Service", "x", "b"));
  CHECK(s.find("", "Service", "q", "abcdefghijklmnop"));
  CHECK_FALSE(s.find("", "Service", "q", "abcdefghijklmnoq"));
  CHECK_FALSE(s.find("", "Service", "a", "b"));
}

TEST_CASE("of three definitions of one object the last is indexed, in its own place") {
  Loaded l = loadStore(
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {v: '1'}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: api}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {v: '2'}}\n---\n"
      "apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: {v: '3'}}\n");
  const model::Store& s = l.store;
  const model::Resource* web = s.find("", "Service", "default", "web");
  REQUIRE(web);
  CHECK(web->label("v") == "3");
  REQUIRE(s.duplicates().size() == 2);
  CHECK(s.duplicates()[0].first->label("v") == "1");
  CHECK(s.duplicates()[0].second->label("v") == "2");
  CHECK(s.duplicates()[1].first->label("v") == "2");
  CHECK(s.duplicates()[1].second == web);
  // Each object once, in file order of the definition that counts.
  REQUIRE(s.ofKind("Service").size() == 2);
  CHECK(s.ofKind("Service")[0]->name == "api");
  CHECK(s.ofKind("Service")[1] == web);
  CHECK(s.withLabel("v", "1").empty());
  CHECK(s.withLabel("v", "3").size() == 1);
  CHECK(s.all().size() == 4);
  CHECK(s.objects().size() == 2);
}

TEST_CASE("CustomResourceDefinitions in the input declare cluster-scoped kinds") {
  Loaded l = loadStore(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: "
      "widgets.example.com}\nspec: {group: example.com, scope: Cluster, names: {kind: "
      "Widget}}\n---\n"
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
  const model::Resource* w = l.store.find("example.com", "Widget", "", "w");
  REQUIRE(w);
  CHECK(w->clusterScoped());
}

TEST_CASE("locations point at fields: the key to the end of the value") {
  Loaded l = loadStore("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n");
  const model::Resource& r = l.store.all().at(0);
  model::Location at = r.locateField(r.metadata(), "name");
  CHECK(at.path == "test.yaml");
  CHECK(at.start.line == 4);
  CHECK(at.start.column == 3);
  CHECK(at.end.column == 12);
  model::Location missing = r.locateField(r.metadata(), "namespace");
  CHECK(missing.start.line == 4);  // the mapping itself
}

TEST_CASE("parallelFor: every item once, on at most the threads asked for") {
  CHECK(model::workersFor(4, 1000) == 4);
  CHECK(model::workersFor(4, 3) == 3);
  CHECK(model::workersFor(0, 1000) == 1);
  CHECK(model::workersFor(4, 1) == 1);
  CHECK(model::workersFor(4, 63, 64) == 1);
  CHECK(model::workersFor(4, 64, 64) == 4);
  for (unsigned workers : {1u, 2u, 7u}) {
    CAPTURE(workers);
    std::vector<int> seen(5000, 0);
    std::vector<std::vector<std::size_t>> byWorker(workers);
    model::parallelFor(workers, seen.size(), [&](std::size_t i, unsigned worker) {
      ++seen[i];
      byWorker.at(worker).push_back(i);
    });
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    std::size_t total = 0;
    for (const auto& items : byWorker) {
      total += items.size();
      CHECK(std::is_sorted(items.begin(), items.end()));  // handed out in index order
    }
    CHECK(total == seen.size());
  }
}

TEST_CASE("parallelFor: the lowest failing item's exception, whatever the threads") {
  for (unsigned workers : {1u, 2u, 5u}) {
    CAPTURE(workers);
    std::string message;
    try {
      model::parallelFor(workers, 3000, [](std::size_t i, unsigned) {
        if (i == 1234 || i == 2900) throw std::runtime_error("item " + std::to_string(i));
      });
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message == "item 1234");
  }
}

TEST_CASE("parallelCollect: the values given, in item order, whatever the threads") {
  for (unsigned workers : {1u, 2u, 3u, 8u}) {
    CAPTURE(workers);
    auto found = model::parallelCollect(workers, 10000, [](std::size_t i) -> std::optional<int> {
      if (i % 7 != 3) return std::nullopt;
      return static_cast<int>(i * 2);
    });
    REQUIRE(found.size() == 1429);
    for (std::size_t k = 0; k < found.size(); ++k) {
      CHECK(found[k].first == k * 7 + 3);
      CHECK(found[k].second == static_cast<int>(found[k].first * 2));
    }
  }
}

TEST_CASE("SharedList: copies share items; edit copies only the item it changes") {
  model::SharedList<std::string> a{"one", "two"};
  a.push_back(std::string("three"));
  model::SharedList<std::string> b = a;  // shares all three
  CHECK(&a[0] == &b[0]);
  b.edit(1) = "TWO";
  CHECK(a[1] == "two");
  CHECK(b[1] == "TWO");
  CHECK(&a[2] == &b[2]);
  b.append(a);
  CHECK(b.size() == 6);
  CHECK(&b[3] == &a[0]);
  b.sort([](const std::string& x, const std::string& y) { return x < y; });
  std::vector<std::string> sorted(b.begin(), b.end());
  CHECK(sorted == std::vector<std::string>{"TWO", "one", "one", "three", "three", "two"});
  b.swap(0, 5);
  CHECK(b.front() == "two");
  CHECK(b.back() == "TWO");
  CHECK(std::count(a.begin(), a.end(), "two") == 1);
  b.clear();
  CHECK(b.empty());
  CHECK(a.size() == 3);
}

TEST_CASE("parseGoDuration reads durations as Go's time.ParseDuration does") {
  using pg::model::parseGoDuration;
  CHECK(*parseGoDuration("0") == 0.0L);
  CHECK(*parseGoDuration("-0") == 0.0L);
  CHECK(*parseGoDuration("300ms") == 300e6L);
  CHECK(*parseGoDuration("2h45m") == (2 * 3600 + 45 * 60) * 1e9L);
  CHECK(*parseGoDuration("-1.5h") == -1.5L * 3600e9L);
  CHECK(*parseGoDuration("+.5s") == 0.5e9L);
  CHECK(*parseGoDuration("1.s") == 1e9L);
  CHECK(*parseGoDuration("3\u00b5s") == 3e3L);
  CHECK(*parseGoDuration("3\u03bcs") == 3e3L);
  CHECK(*parseGoDuration("1h1m1s1ms1us1ns") == 3661001001001.0L);
  for (const char* bad : {"", "-", "s", "10", "1x", "1.2.3s", ".s", "1 s", "1s-2s"})
    CHECK_MESSAGE(!parseGoDuration(bad), bad);
}

TEST_CASE("quoted writes a string as Go's strconv.Quote does") {
  using pg::model::quoted;
  CHECK(quoted("") == R"("")");
  CHECK(quoted("Prefixx") == R"("Prefixx")");
  CHECK(quoted(R"(say "hi" \ bye)") == R"("say \"hi\" \\ bye")");
  CHECK(quoted("a\tb\nc\rd") == R"("a\tb\nc\rd")");
  CHECK(quoted("\a\b\f\v") == R"("\a\b\f\v")");
  CHECK(quoted(std::string_view("\0\x1b\x7f", 3)) == R"("\x00\x1b\x7f")");
  // Printable UTF-8 stays as it is; C1 controls and bytes that are not UTF-8 are escaped.
  CHECK(quoted("caf\u00e9 \u00b5s \U0001F600") == "\"caf\u00e9 \u00b5s \U0001F600\"");
  CHECK(quoted("\u0085") == R"("\u0085")");
  CHECK(quoted("\xff\xc3") == R"("\xff\xc3")");
  CHECK(quoted("\xc0\xaf") == R"("\xc0\xaf")");          // overlong "/"
  CHECK(quoted("\xed\xa0\x80") == R"("\xed\xa0\x80")");  // a surrogate
  std::string out = "x=";
  pg::model::appendQuoted(out, "y");
  CHECK(out == R"(x="y")");
}

TEST_CASE("base64 decodes as Go's StdEncoding decodes a Secret's data") {
  CHECK(pg::model::decodeBase64("aGVsbG8=") == "hello");
  CHECK(pg::model::decodeBase64("aGVs\nbG8h") ==
        "hell"
        "o!");
  CHECK(pg::model::decodeBase64("aGVsbA==\r\n") == "hell");
  CHECK(pg::model::decodeBase64(pg::model::base64(std::string("\0\xff\x10", 3))) ==
        std::string("\0\xff\x10", 3));
  CHECK(pg::model::decodeBase64("").empty());
  CHECK(pg::model::decodeBase64("aGVsbG8").empty());    // padding missing
  CHECK(pg::model::decodeBase64("aGV sbG8=").empty());  // a space is not base64
  CHECK(pg::model::decodeBase64("aG=sbG8=").empty());   // padding only at the end
  CHECK(pg::model::decodeBase64("aGVsbG8*").empty());
}

TEST_CASE("ASCII case folding ignores the locale") {
  CHECK(pg::model::equalsIgnoringCase("HTTPRoute", "httproute"));
  CHECK_FALSE(pg::model::equalsIgnoringCase("HTTPRoute", "httproutes"));
  CHECK(pg::model::lowerAscii("Kuma.IO/Protocol") == "kuma.io/protocol");
  CHECK(pg::model::lowerAscii(std::string_view("\xc3\x89")) == "\xc3\x89");  // not ASCII: kept
}

TEST_CASE("one IP address parser: Go's netip rules, zones only when asked") {
  using pg::model::IpAddress;
  CHECK(IpAddress::parse("10.1.2.3"));
  CHECK_FALSE(IpAddress::parse("010.1.2.3"));  // no leading zeros
  CHECK_FALSE(IpAddress::parse("10.1.2"));
  CHECK(IpAddress::parse("fe80::1")->v6);
  CHECK_FALSE(IpAddress::parse("fe80::1%eth0"));
  CHECK(IpAddress::parse("fe80::1%eth0", true)->zoned);
  CHECK_FALSE(IpAddress::parse("fe80::1%", true));
  CHECK(IpAddress::parse("::ffff:127.0.0.1")->mappedV4());
  CHECK(IpAddress::parse("::ffff:127.0.0.1")->loopback());
  CHECK(IpAddress::parse("::1")->loopback());
  CHECK(IpAddress::parse("127.9.9.9")->loopback());
  CHECK_FALSE(IpAddress::parse("::2")->loopback());
  CHECK(pg::model::Cidr::parse("10.0.0.0/8")->length == 8);
  CHECK_FALSE(pg::model::Cidr::parse("10.0.0.0/33"));
}
