#pragma once

// What an expression reads of `self`: the fields it selects or tests, the lists whose size it
// takes or whose items it ranges over, and the values whose content it uses. Two values that
// agree on everything an expression reads give it the same result, so a caller can know a
// value it evaluated before by a hash of what the expression reads of it rather than of all of
// it (the schema validator's passed-value cache does).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/cel/cel.h"

namespace pg::cel {

// A tree of reads rooted at `self`. A node stands for one value inside `self` (a field of
// it, an item of a list, ...). Absence, the value's kind (map, list, scalar, null) are always
// considered read where a node exists.
struct Reads {
  bool size = false;   // its size: a list's or map's count, a string's text
  bool whole = false;  // all of its content (every key, item and scalar text below it)
  // `.name` selected or tested by has(); held by pointer so that a node never moves.
  std::vector<std::pair<std::string, std::unique_ptr<Reads>>> fields;
  std::unique_ptr<Reads> items;  // any item of a list (an index, a macro), any value of a map

  Reads& field(std::string_view name);  // the node of a field, made on first use
  Reads& item();                        // the node of the items, made on first use
  void merge(const Reads& other);
};

// What `program` reads of `self`, in `out` (merged into what is there); false when the
// expression uses `self` in a way this analysis does not follow (oldSelf, for one): the caller
// must then consider the whole value read.
bool readsOf(const Program& program, Reads& out);

}  // namespace pg::cel
