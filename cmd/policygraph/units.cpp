#include "cmd/policygraph/units.h"

#include <iostream>
#include <memory>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "lib/report/report.h"

namespace pg::cli {

void addUnitsCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    std::string format = "text";
    bool files = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "units",
      "Print the units the input is analysed as (kustomize roots, Flux clusters, Argo CD "
      "Applications, alternatives), each with why");
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--format", o->format, "text or json (default: text)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--files", o->files, "Text: list each unit's files");
  cmd->callback([o, &exitCode] {
    std::vector<const analysis::Analysis*> units = analyzeUnits(o->inputs);
    if (o->format == "json")
      report::writeUnitsJson(std::cout, units);
    else
      report::writeUnitsText(std::cout, units, o->files);
    exitCode = kClean;
  });
}

}  // namespace pg::cli
