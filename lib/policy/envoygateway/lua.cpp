// Compiling a Lua chunk with the reference implementation (liblua5.1): Envoy Gateway's
// controller runs gopher-lua, a Lua 5.1 implementation that adds `goto`. Only the compiler
// runs here; policygraph never executes a script from the repository.
#include "lib/policy/envoygateway/lua.h"

#include <cstdlib>
#include <lua.hpp>

namespace pg::policy::envoygateway {

namespace {

// A script's compiler state stays far below this; a hostile chunk gets a memory error.
constexpr std::size_t kMemoryCap = std::size_t{64} << 20;

struct Budget {
  std::size_t used = 0;
};

void* allocate(void* ud, void* ptr, std::size_t oldSize, std::size_t newSize) {
  auto* budget = static_cast<Budget*>(ud);
  if (newSize == 0) {
    std::free(ptr);
    budget->used -= oldSize;
    return nullptr;
  }
  if (newSize > oldSize && budget->used + (newSize - oldSize) > kMemoryCap) return nullptr;
  void* out = std::realloc(ptr, newSize);
  if (out) budget->used = budget->used - oldSize + newSize;
  return out;
}

bool isIdentifierByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `code` holds the word `goto` or a `::` (a label), outside nothing in particular:
// a mention in a string or comment only makes the answer more cautious.
bool mentionsGoto(std::string_view code) {
  if (code.find("::") != std::string_view::npos) return true;
  for (std::size_t at = code.find("goto"); at != std::string_view::npos;
       at = code.find("goto", at + 1)) {
    bool startsWord = at == 0 || !isIdentifierByte(code[at - 1]);
    bool endsWord = at + 4 == code.size() || !isIdentifierByte(code[at + 4]);
    if (startsWord && endsWord) return true;
  }
  return false;
}

}  // namespace

LuaCompile compileLua(std::string_view code) {
  LuaCompile out;
  Budget budget;
  lua_State* state = lua_newstate(allocate, &budget);
  if (!state) {
    out.error = "not enough memory";
    return out;
  }
  // luaL_loadbuffer compiles in protected mode: every compile error, memory ones included,
  // comes back as a status with the message on the stack.
  // Source only: Envoy Gateway's validator (gopher-lua) compiles Lua source and cannot load a
  // precompiled chunk, which starts with the byte ESC (LUA_SIGNATURE, "\033Lua").
  if (!code.empty() && code.front() == '\033') {
    out.error = "a precompiled Lua chunk, not Lua source";
    lua_close(state);
    return out;
  }
  if (luaL_loadbuffer(state, code.data(), code.size(), "=<string>") != 0) {
    std::size_t length = 0;
    const char* message = lua_tolstring(state, -1, &length);
    out.usesGoto = mentionsGoto(code);
    if (!out.usesGoto) out.error = message ? std::string(message, length) : "does not compile";
  }
  lua_close(state);
  return out;
}

}  // namespace pg::policy::envoygateway
