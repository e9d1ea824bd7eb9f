// pg_bench: times the stages of `policygraph lint` on a repository, each the way the CLI runs
// it, against the floor set by libyaml itself (reading the files and pulling every event).
// Each figure is the best of --repeat runs: the minimum is the run least disturbed by the
// rest of the machine, which is what tells two builds apart.
#include <malloc.h>
#include <sys/resource.h>
#include <yaml.h>
#ifdef PG_MIMALLOC
#include <mimalloc.h>
#endif

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/analysis/analysis.h"
#include "lib/config/config.h"
#include "lib/graph/kuma.h"
#include "lib/graph/topology.h"
#include "lib/load/loader.h"
#include "lib/load/sources.h"
#include "lib/model/store.h"
#include "lib/policy/engine.h"
#include "lib/policy/linkerd/inbound.h"
#include "lib/report/report.h"
#include "rules/engine.h"
#include "rules/rule.h"

namespace {

namespace fs = std::filesystem;
namespace analysis = pg::analysis;
namespace config = pg::config;
namespace graph = pg::graph;
namespace load = pg::load;
namespace model = pg::model;
namespace policy = pg::policy;
namespace report = pg::report;
namespace rules = pg::rules;
using Clock = std::chrono::steady_clock;

// Counts what the report writers produce and keeps none of it: the stage measures
// formatting, not the terminal or pipe the CLI would write to.
class DiscardBuffer : public std::streambuf {
 public:
  std::size_t written() const { return written_; }

 protected:
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) ++written_;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    written_ += static_cast<std::size_t>(n);
    return n;
  }

 private:
  std::size_t written_ = 0;
};

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// User and system time of every thread of the process. On a shared machine the wall time
// of a single-threaded stage includes waiting for a core; its CPU time does not.
double cpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Timing {
  double wall = std::numeric_limits<double>::infinity();
  double cpu = std::numeric_limits<double>::infinity();
  Timing& operator+=(const Timing& other) {
    wall += other.wall;
    cpu += other.cpu;
    return *this;
  }
};

// Gives the memory freed so far back to the system, from whichever allocator the binary uses
// (CMakeLists.txt: pg_bench links the allocator policygraph links).
void returnFreedMemory() {
#ifdef PG_MIMALLOC
  // mimalloc keeps freed pages committed for a while (its decommit delays) to reuse them; a
  // fresh process has none, so they go back now.
  const long pages = mi_option_get(mi_option_decommit_delay);
  const long segments = mi_option_get(mi_option_segment_decommit_delay);
  mi_option_set(mi_option_decommit_delay, 0);
  mi_option_set(mi_option_segment_decommit_delay, 0);
  mi_collect(true);
  mi_option_set(mi_option_decommit_delay, pages);
  mi_option_set(mi_option_segment_decommit_delay, segments);
#endif
  ::malloc_trim(0);
}

// Runs `setup` (untimed), then `body` (timed), `repeat` times; the best wall and CPU times.
// Memory freed by the previous run goes back to the system first: otherwise later runs reuse
// pages already mapped and skip the page faults that a fresh `policygraph` process pays for.
Timing bestOf(int repeat, const std::function<void()>& setup, const std::function<void()>& body) {
  Timing best;
  for (int r = 0; r < repeat; ++r) {
    setup();
    returnFreedMemory();
    double cpuStart = cpuSeconds();
    Clock::time_point start = Clock::now();
    body();
    best.wall = std::min(best.wall, secondsSince(start));
    best.cpu = std::min(best.cpu, cpuSeconds() - cpuStart);
  }
  return best;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  in.seekg(0, std::ios::end);
  std::string text(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return text;
}

// The floor: libyaml's own cost for these files, with no tree, no objects and no checks.
// Reads the file into memory and parses from the string, as the loader does. Returns the
// number of events, so the work cannot be optimised away.
std::size_t bareParse(const std::vector<std::string>& paths) {
  std::size_t events = 0;
  for (const std::string& path : paths) {
    std::string text = readWhole(path);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser, &event)) break;  // a syntax error ends the file
      ++events;
      const bool end = event.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&event);
      if (end) break;
    }
    yaml_parser_delete(&parser);
  }
  return events;
}

struct Options {
  fs::path repo;
  unsigned jobs = 1;
  int repeat = 5;
  bool bareOnly = false;
  bool expectClean = false;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "pg_bench: " << problem << "\n"
            << "usage: pg_bench REPO_DIR [--jobs N] [--repeat R] [--bare-only] [--expect-clean]\n"
            << "  Times load, index, rules and report as `policygraph lint` runs them (with one\n"
            << "  job, and also with N when --jobs N > 1), and a bare libyaml parse of the same\n"
            << "  files. --bare-only times the bare parse alone; --expect-clean exits 1 when\n"
            << "  the repository has findings.\n";
  std::exit(2);
}

unsigned positive(std::string_view option, const char* text) {
  if (!text) usage(std::string(option) + " needs a value");
  std::string_view s(text);
  unsigned value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size() || value == 0 || value > 1024)
    usage(std::string(option) + " takes a number from 1 to 1024, not " + std::string(s));
  return value;
}

Options parseArguments(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--jobs" || arg == "-j") {
      o.jobs = positive(arg, value);
      ++i;
    } else if (arg == "--repeat") {
      o.repeat = static_cast<int>(positive(arg, value));
      ++i;
    } else if (arg == "--bare-only") {
      o.bareOnly = true;
    } else if (arg == "--expect-clean") {
      o.expectClean = true;
    } else if (arg == "-h" || arg == "--help") {
      usage("times policygraph's stages");
    } else if (!arg.empty() && arg.front() == '-') {
      usage("unknown option " + std::string(arg));
    } else if (o.repo.empty()) {
      o.repo = arg;
    } else {
      usage("one REPO_DIR only");
    }
  }
  if (o.repo.empty()) usage("REPO_DIR is missing");
  if (!fs::is_directory(o.repo)) usage(o.repo.string() + " is not a folder");
  return o;
}

// One run of the lint pipeline at a given job count, stage by stage.
struct StageTimes {
  Timing load;
  Timing index;
  Timing graph;
  Timing policy;
  Timing analyze;  // analysis::analyze() whole, as the CLI calls it
  Timing rules;
  Timing report;
  Timing teardown;
  std::vector<std::pair<double, std::string_view>> slowestRules;  // wall seconds, rule ID
  Timing total() const {
    Timing sum{0, 0};
    for (const Timing* t : {&analyze, &rules, &report, &teardown}) sum += *t;
    return sum;
  }
  // What analyze() spends beyond the stages timed one by one: a stage added to it that
  // this harness does not know yet shows up here. In CPU time, which waiting for a busy
  // machine does not inflate.
  double untimedAnalysis() const {
    return analyze.cpu - load.cpu - index.cpu - graph.cpu - policy.cpu;
  }
};

struct RepositoryFacts {
  std::size_t files = 0;
  std::size_t bytes = 0;
  std::size_t objects = 0;
  std::size_t findings = 0;
  std::size_t reportBytes = 0;
};

class Bench {
 public:
  explicit Bench(const Options& o) : options_(o) {
    root_ = fs::absolute(o.repo).lexically_normal();
    inputs_.paths = {root_.string()};
    inputs_.root = root_;
  }

  std::vector<std::string> manifestPaths() {
    std::vector<load::Problem> problems;
    std::vector<std::string> paths;
    for (const load::SourceEntry& s :
         load::collectSources(inputs_.paths, inputs_.root, config_, problems))
      paths.push_back(s.absolutePath.string());
    return paths;
  }

  StageTimes run(unsigned jobs, RepositoryFacts& facts) {
    const int repeat = options_.repeat;
    StageTimes t;
    inputs_.jobs = jobs;
    inputs_.topology.jobs = jobs;  // analyze() sets it from inputs_.jobs; the stages below need it
    inputs_.policy.enforcementStatus = false;  // as `lint` runs it

    // collect + load + parse, as analysis::analyze does before it builds the Store.
    std::optional<load::LoadResult> loaded;
    std::vector<load::Problem> problems;
    t.load = bestOf(
        repeat,
        [&] {
          loaded.reset();
          problems.clear();
        },
        [&] {
          std::vector<load::SourceEntry> sources =
              load::collectSources(inputs_.paths, inputs_.root, config_, problems);
          loaded = load::loadSources(sources, config_.limits, {jobs, {}});
        });
    for (load::Problem& p : loaded->problems) problems.push_back(std::move(p));
    facts.files = loaded->files.size();
    facts.bytes = 0;
    for (const auto& f : loaded->files)
      if (f->tree) facts.bytes += f->tree->text().size();

    // index: Store::build takes the resources by value, so each run gets a fresh copy.
    std::vector<model::Resource> resources;
    std::optional<model::Store> store;
    t.index = bestOf(
        repeat,
        [&] {
          store.reset();
          store.emplace(config_.defaultNamespace);
          resources = loaded->resources;
        },
        [&] { store->build(std::move(resources), jobs); });
    facts.objects = store->size();

    analysis::Analysis analysis;
    analysis.config = config_;
    analysis.root = root_;
    auto input = std::make_shared<analysis::Input>();
    input->files = std::move(loaded->files);
    for (const auto& f : input->files) analysis.files.push_back(f.get());
    analysis.input = input;
    analysis.problems = std::move(problems);
    analysis.store = std::move(*store);
    analysis.jobs = jobs;
    loaded.reset();

    // The topology points into the Store, so it is built where the Analysis keeps it.
    t.graph = bestOf(
        repeat, [&] { analysis.topology = {}; },
        [&] { analysis.topology = graph::buildTopology(analysis.store, inputs_.topology); });

    // policy::simulate() folds route conditions into the topology it reads, so each run gets
    // a fresh topology, built outside the timing.
    policy::PolicyOptions policyOptions = inputs_.policy;
    policyOptions.jobs = jobs;
    t.policy = bestOf(
        repeat,
        [&] {
          analysis.policies = {};
          analysis.topology = graph::buildTopology(analysis.store, inputs_.topology);
        },
        [&] {
          analysis.policies =
              policy::simulate(analysis.store, analysis.topology, config_, policyOptions);
        });

    // The mesh families' models, which analyze() builds after the policy stage and the LD and
    // Kuma rules read: timed within analyze() below, built here so the rules see them.
    analysis.kuma = graph::kuma::build(analysis.store, config_.kumaSystemNamespace);
    analysis.linkerd = policy::linkerd::buildLinkerd(analysis.store, config_.linkerd,
                                                     analysis.topology.linkerd, jobs);

    // The whole of analyze(), for the ratio: it is what the CLI runs.
    std::optional<analysis::Analysis> whole;
    t.analyze = bestOf(
        repeat, [&] { whole.reset(); }, [&] { whole = analysis::analyze(config_, inputs_); });
    whole.reset();

    std::optional<rules::RuleRun> ruleRun;
    t.rules = bestOf(
        repeat, [&] { ruleRun.reset(); }, [&] { ruleRun = rules::runRules(analysis, {}); });
    facts.findings = ruleRun->findings.size();

    // Each rule alone, to tell which one a slow rules stage is about.
    for (const rules::Rule& rule : rules::registry()) {
      std::vector<model::Finding> found;
      Timing alone = bestOf(
          repeat, [&] { found.clear(); },
          [&] {
            rules::Context context(analysis, rule.info, found);
            rule.check(context);
          });
      t.slowestRules.emplace_back(alone.wall, rule.info.id);
    }
    std::sort(t.slowestRules.rbegin(), t.slowestRules.rend());
    if (t.slowestRules.size() > 5) t.slowestRules.resize(5);

    DiscardBuffer sink;
    std::ostream out(&sink);
    t.report = bestOf(
        repeat, [] {},
        [&] {
          std::vector<model::RuleInfo> catalogue = rules::catalogue();
          report::ReportInput input{analysis, ruleRun->findings, catalogue, ruleRun->suppressed,
                                    ruleRun->baselined};
          report::writeJson(out, input);
          report::writeText(out, input, {false});
          out.flush();
        });
    facts.reportBytes = sink.written() / static_cast<std::size_t>(repeat);

    // The CLI frees the analysis before it exits; time that once (it is consumed).
    t.teardown = bestOf(
        1, [] {},
        [&] {
          ruleRun.reset();
          analysis::Analysis gone = std::move(analysis);
        });
    return t;
  }

 private:
  const Options& options_;
  fs::path root_;
  config::Config config_;
  analysis::Inputs inputs_;
};

double megabytes(std::size_t bytes) {
  return static_cast<double>(bytes) / 1e6;
}

void row(const char* stage, unsigned jobs, const Timing& t, std::size_t bytes = 0) {
  std::printf("  %-34s %4u %10.1f %10.1f", stage, jobs, t.wall * 1e3, t.cpu * 1e3);
  if (bytes) std::printf(" %8.1f", megabytes(bytes) / t.wall);
  std::printf("\n");
}

void stageRows(const StageTimes& t, unsigned jobs, std::size_t bytes) {
  row("collect + load + parse", jobs, t.load, bytes);
  row("index (Store::build)", jobs, t.index);
  row("graph (buildTopology)", jobs, t.graph);
  row("policy (simulate)", jobs, t.policy);
  row("analyze() whole", jobs, t.analyze, bytes);
  row("rules (runRules)", jobs, t.rules);
  row("report (json + text)", jobs, t.report);
  row("teardown (free, once)", jobs, t.teardown);
  row("lint = analyze+rules+report+free", jobs, t.total(), bytes);
  // Best-of times of separate runs do not add up exactly; only a large gap means something.
  if (jobs == 1 && t.untimedAnalysis() > 0.1 * t.analyze.cpu)
    std::printf(
        "  note: analyze() takes %.1f CPU ms more than load + index + graph: a stage\n"
        "  this harness does not time separately\n",
        t.untimedAnalysis() * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parseArguments(argc, argv);
  try {
    Bench bench(o);
    std::vector<std::string> paths = bench.manifestPaths();
    std::size_t events = 0;
    Timing bare = bestOf(
        o.repeat, [] {}, [&] { events = bareParse(paths); });
    if (o.bareOnly) {
      std::printf("bare libyaml parse: %zu files, %zu events, best of %d: %.1f ms (CPU %.1f ms)\n",
                  paths.size(), events, o.repeat, bare.wall * 1e3, bare.cpu * 1e3);
      return 0;
    }

    RepositoryFacts facts;
    StageTimes one = bench.run(1, facts);
    std::optional<StageTimes> many;
    if (o.jobs > 1) many = bench.run(o.jobs, facts);

    std::printf("repository %s: %zu files, %.2f MB, %zu objects, %zu findings\n",
                o.repo.string().c_str(), facts.files, megabytes(facts.bytes), facts.objects,
                facts.findings);
    std::printf("best of %d runs (teardown: one run); report wrote %zu bytes a run\n\n", o.repeat,
                facts.reportBytes);
    std::printf("  %-34s %4s %10s %10s %8s\n", "stage", "jobs", "wall ms", "CPU ms", "MB/s");
    row("bare libyaml parse", 1, bare, facts.bytes);
    stageRows(one, 1, facts.bytes);
    if (many) stageRows(*many, o.jobs, facts.bytes);
    std::printf("\n  slowest rules (each alone, jobs=1):");
    for (const auto& [seconds, id] : one.slowestRules)
      std::printf(" %.*s %.1f ms;", static_cast<int>(id.size()), id.data(), seconds * 1e3);
    std::printf("\n");
    std::printf(
        "\nlint(jobs=1) / bare libyaml: %.2f wall, %.2f CPU (budget: wall at most 2.50; "
        "instructions at most 1.80, measured with callgrind)\n",
        one.total().wall / bare.wall, one.total().cpu / bare.cpu);
    if (many) {
      std::printf("load speed-up, jobs=%u over jobs=1: %.2fx\n", o.jobs,
                  one.load.wall / many->load.wall);
      std::printf("lint speed-up, jobs=%u over jobs=1: %.2fx (target at least 1.60 for 2)\n",
                  o.jobs, one.total().wall / many->total().wall);
    }
    if (o.expectClean && facts.findings != 0) {
      std::fprintf(stderr, "pg_bench: the repository has %zu findings, expected none\n",
                   facts.findings);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pg_bench: %s\n", e.what());
    return 3;
  }
  return 0;
}
