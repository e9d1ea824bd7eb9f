// `policygraph units`: what the run was cut into, and why.
#include <nlohmann/json.hpp>

#include "lib/report/report.h"

namespace pg::report {

void writeUnitsText(std::ostream& out, const std::vector<const analysis::Analysis*>& units,
                    bool files) {
  for (const analysis::Analysis* a : units) {
    out << (a->environment.empty() ? std::string("(the whole input)") : a->environment) << "  ["
        << units::kindName(a->unitKind) << "] " << a->files.size() << " file(s), "
        << a->store.size() << " object(s)\n  " << a->unitWhy << '\n';
    if (files)
      for (const model::SourceFile* f : a->files) out << "    " << f->path << '\n';
  }
}

void writeUnitsJson(std::ostream& out, const std::vector<const analysis::Analysis*>& units) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const analysis::Analysis* a : units) {
    nlohmann::ordered_json files = nlohmann::ordered_json::array();
    for (const model::SourceFile* f : a->files) files.push_back(f->path);
    list.push_back({{"name", a->environment},
                    {"kind", units::kindName(a->unitKind)},
                    {"why", a->unitWhy},
                    {"objects", a->store.size()},
                    {"files", std::move(files)}});
  }
  nlohmann::ordered_json doc = {{"units", std::move(list)}};
  out << doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace pg::report
