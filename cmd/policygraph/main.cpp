// policygraph: argument parsing and wiring. Everything else lives in lib/ and rules/.
#include <unistd.h>

#ifdef PG_MIMALLOC
#include <mimalloc.h>
#endif

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "cmd/policygraph/access.h"
#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/diff.h"
#include "cmd/policygraph/explain.h"
#include "cmd/policygraph/graph.h"
#include "cmd/policygraph/lint.h"
#include "cmd/policygraph/snapshot.h"
#include "cmd/policygraph/status.h"
#include "cmd/policygraph/units.h"
#include "lib/report/report.h"
#include "lib/schema/schema.h"
#include "rules/engine.h"
#include "rules/rule.h"

namespace pg::cli {

bool colorWanted(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* noColor = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) && !(noColor && *noColor) &&
         !(term && std::string(term) == "dumb");
}

namespace {

// Reports running out of memory and ends the process with kInternal. It cannot count on
// unwinding (the allocator's frames are C) or on allocating, so it writes and exits itself.
[[noreturn]] void outOfMemory() {
  static constexpr std::string_view kMessage = "policygraph: internal error: out of memory\n";
  [[maybe_unused]] ssize_t written = ::write(STDERR_FILENO, kMessage.data(), kMessage.size());
  std::_Exit(kInternal);
}

// How many CEL rules of the built-in schemas IN124 enforces, and the ones it does not.
void printCelRules() {
  schema::CelSummary cel = schema::builtinCelRules();
  std::cout << "\nCEL rules of the built-in schemas (IN124): " << cel.enforced << " of "
            << cel.total << " enforced";
  if (cel.transition > 0)
    std::cout << ", " << cel.transition
              << (cel.transition == 1 ? " transition rule (the API server checks it on update only)"
                                      : " transition rules (the API server checks them on update "
                                        "only)");
  std::cout << ", " << cel.unenforced.size() << " not enforced\n";
  for (const std::string& rule : cel.unenforced) std::cout << "  not enforced: " << rule << '\n';
}

void addRulesCommand(CLI::App& app, int& exitCode) {
  auto* cmd = app.add_subcommand("rules", "List the rules, or print one rule's documentation");
  auto id = std::make_shared<std::string>();
  cmd->add_option("ID", *id, "A rule ID, e.g. IN101");
  cmd->callback([id, &exitCode] {
    if (id->empty()) {
      for (const model::RuleInfo& r : rules::catalogue()) {
        std::cout << r.id << "  " << model::toString(r.severity);
        for (std::size_t pad = model::toString(r.severity).size(); pad < 8; ++pad) std::cout << ' ';
        std::cout << r.name << " - " << r.summary << '\n';
      }
      printCelRules();
      exitCode = kClean;
      return;
    }
    const rules::Rule* rule = rules::findRule(*id);
    if (!rule) throw UsageError("no rule " + *id + "; `policygraph rules` lists them all");
    std::cout << rule->info.markdown;
    exitCode = kClean;
  });
}

}  // namespace

}  // namespace pg::cli

int main(int argc, char** argv) {
  using namespace pg::cli;
  // Out of memory is an internal error in words and exit status, never a silent abort.
  std::set_new_handler(outOfMemory);
#ifdef PG_MIMALLOC
  // mimalloc's operator new aborts without asking the new-handler; it reports the failure
  // through its error callback first, which ends the process with the same words.
  mi_register_error(
      [](int error, void*) {
        if (error == ENOMEM || error == EOVERFLOW) outOfMemory();
      },
      nullptr);
#endif
  CLI::App app{"policygraph: offline linter and simulator for Gateway API and service-mesh policy"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("policygraph ") + std::string(pg::report::toolVersion()));
  int exitCode = kClean;
  addLintCommand(app, exitCode);
  addStatusCommand(app, exitCode);
  addUnitsCommand(app, exitCode);
  addExplainCommand(app, exitCode);
  addSnapshotCommand(app, exitCode);
  // `diff BASE -- PATH...`: the parser gives a subcommand no positionals after `--`, so the
  // split is taken here and the `--` dropped.
  std::optional<std::size_t> afterDashes;
  std::vector<char*> args(argv, argv + argc);
  std::optional<std::size_t> dashes;
  for (std::size_t i = 1; i < args.size(); ++i)
    if (std::string_view(args[i]) == "--") {
      dashes = i;
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  addDiffCommand(app, exitCode, afterDashes);
  if (dashes) {
    // How many PATHs follow `--`: options after it (`diff HEAD -- apps --format json`) and
    // their values are not PATHs.
    const CLI::App* diff = app.get_subcommand("diff");
    std::size_t paths = 0;
    for (std::size_t i = *dashes; i < args.size(); ++i) {
      std::string_view arg = args[i];
      if (arg.size() < 2 || arg.front() != '-') {
        ++paths;
        continue;
      }
      const std::string name(arg.substr(0, arg.find('=')));
      const CLI::Option* option = diff ? diff->get_option_no_throw(name) : nullptr;
      if (option && option->get_type_size() > 0 && arg.find('=') == std::string_view::npos) ++i;
    }
    afterDashes = paths;
  }
  addGraphCommand(app, exitCode);
  addAccessCommand(app, exitCode);
  addRulesCommand(app, exitCode);
  app.add_subcommand("version", "Print the version")->callback([] {
    std::cout << "policygraph " << pg::report::toolVersion() << '\n';
  });
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsage;
  } catch (const UsageError& e) {
    std::cerr << "policygraph: " << e.what() << '\n';
    return kUsage;
  } catch (const std::exception& e) {
    std::cerr << "policygraph: internal error: " << e.what() << '\n';
    return kInternal;
  }
  return exitCode;
}
