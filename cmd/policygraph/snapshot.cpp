#include "cmd/policygraph/snapshot.h"

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include "cmd/policygraph/cli.h"
#include "cmd/policygraph/common.h"
#include "cmd/policygraph/lint.h"
#include "lib/load/sources.h"
#include "lib/snapshot/snapshot.h"

namespace pg::cli {

void addSnapshotCommand(CLI::App& app, int& exitCode) {
  struct Options {
    InputOptions inputs;
    ReportOptions report;
    bool update = false;
    bool check = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "snapshot", "Write (--update) or compare (--check) the golden effective-policy files");
  addInputOptions(*cmd, o->inputs);
  cmd->add_option("--dir", o->inputs.snapshotDir,
                  "Snapshot folder (default: snapshots.dir of the config file, else "
                  ".policygraph/snapshots under the repository root)");
  CLI::Option* update =
      cmd->add_flag("--update", o->update,
                    "Write one file per object with effective policies; delete the others");
  CLI::Option* check =
      cmd->add_flag("--check", o->check,
                    "Report drift as SN701-SN703 findings with lint's formats; exit 1 on drift");
  update->excludes(check);
  addReportOptions(*cmd, o->report);
  cmd->callback([o, cmd, &exitCode] {
    if (!o->update && !o->check) throw UsageError("snapshot wants --update or --check");
    if (o->check) {
      // The lint pipeline, with the snapshot rules on even when there is no folder yet: every
      // object with policies is then a missing snapshot, which is what CI should say.
      o->inputs.snapshotsRequired = true;
      exitCode = runReport(*cmd, o->report, analyzeUnits(o->inputs));
      return;
    }
    // One folder per environment (snapshot::folderOf), each written from its own analysis.
    for (const analysis::Analysis* a : analyzeUnits(o->inputs)) {
      std::filesystem::path folder = snapshot::folderOf(*a);
      snapshot::UpdateResult r;
      try {
        r = snapshot::update(*a, folder);
      } catch (const std::runtime_error& e) {
        throw UsageError(e.what());
      }
      std::string shown = load::displayPath(folder, a->root);
      for (const std::string& f : r.written) std::cout << "wrote " << shown << "/" << f << '\n';
      for (const std::string& f : r.deleted) std::cout << "deleted " << shown << "/" << f << '\n';
      std::cout << r.written.size() << " written, " << r.deleted.size() << " deleted, "
                << r.unchanged << " unchanged in " << shown << '\n';
    }
    exitCode = kClean;
  });
}

}  // namespace pg::cli
