#include "cmd/policygraph/status.h"

#include <iostream>
#include <memory>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "lib/report/report.h"

namespace pg::cli {

void addStatusCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string format = "yaml";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "status", "Print the status a controller would write on every Gateway, route and policy");
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format, "yaml or json (default: yaml)")
      ->check(CLI::IsMember({"yaml", "json"}));
  cmd->callback([o, &exitCode] {
    o->inputs.enforcementStatus = true;  // Kuadrant's Enforced and Affected conditions
    std::vector<const analysis::Analysis*> analyses = analyzeUnits(o->inputs);
    if (o->format == "json")
      report::writeStatusJson(std::cout, analyses);
    else
      report::writeStatusYaml(std::cout, analyses);
    exitCode = kClean;
  });
}

}  // namespace pg::cli
