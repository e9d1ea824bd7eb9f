// Internal to lib/policy/envoygateway: whether a Lua script compiles, as Envoy Gateway's
// controller checks it before it accepts an EnvoyExtensionPolicy (luavalidator). The only
// file that sees the Lua library's types is lua.cpp.
#pragma once

#include <string>
#include <string_view>

namespace pg::policy::envoygateway {

// What compiling `code` as a Lua 5.1 chunk says.
struct LuaCompile {
  // The compiler's message ("<string>:5: 'then' expected near 'print'") when the chunk does
  // not compile; empty when it does.
  std::string error;
  // The chunk uses `goto` or a `::label::`, which the controller's Lua (5.1 with goto) knows
  // and Lua 5.1 does not: a failure then says nothing, and `error` is left empty.
  bool usesGoto = false;
};

// Compiles `code` without running it. Never throws; a chunk too large or too deep for the
// memory cap gets that as its error.
LuaCompile compileLua(std::string_view code);

}  // namespace pg::policy::envoygateway
