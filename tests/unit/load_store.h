// A store built from YAML text, for the unit tests that read objects as the loader does.
#pragma once

#include <string>

#include "lib/load/loader.h"
#include "lib/model/store.h"

namespace pg::testing {

struct Loaded {
  load::FileResult file;
  model::Store store;
};

inline Loaded loadStore(std::string text) {
  Loaded l{load::loadText("test.yaml", std::move(text), {}), model::Store("default")};
  l.store.build(l.file.resources);
  return l;
}

}  // namespace pg::testing
