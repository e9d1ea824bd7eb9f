// libFuzzer target for lib/cel: compiles the input as an expression and evaluates it. An input
// holding a line "---" is two expressions: the part after it is evaluated first (with nothing
// bound) and becomes `self` and `oldSelf` for the part before it.
//
// Checks besides the sanitizers: compile() and evaluate() never throw; a CompileError's offset
// lies within the input; an error outcome says why; evaluating twice gives the same outcome
// (a Program is immutable); every value renders.

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "lib/cel/cel.h"

namespace {

// Small enough that no input runs for long: each unit is one step of an expression.
constexpr std::uint64_t kCostLimit = 200'000;

void require(bool ok) {
  if (!ok) std::abort();
}

// The outcome of one expression, or nothing when it does not compile.
std::optional<pg::cel::Outcome> run(std::string_view text, const pg::cel::Bindings& bindings) {
  auto compiled = pg::cel::compile(text);
  if (auto* error = std::get_if<pg::cel::CompileError>(&compiled)) {
    require(error->offset <= text.size());
    require(!error->message.empty());
    return std::nullopt;
  }
  const auto& program = std::get<pg::cel::Program>(compiled);
  (void)pg::cel::referencesOldSelf(program);
  pg::cel::Outcome first = pg::cel::evaluate(program, bindings, kCostLimit);
  pg::cel::Outcome second = pg::cel::evaluate(program, bindings, kCostLimit);
  require(first.kind == second.kind);
  if (first.kind == pg::cel::Outcome::Error) {
    require(!first.error.empty());
    require(first.error == second.error);
  } else {
    require(first.value.debugString() == second.value.debugString());
  }
  return first;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view expression = input, selfText;
  if (std::size_t split = input.find("\n---\n"); split != std::string_view::npos) {
    expression = input.substr(0, split);
    selfText = input.substr(split + 5);
  }
  pg::cel::Value self;
  if (!selfText.empty()) {
    auto built = run(selfText, {});
    if (built && built->kind == pg::cel::Outcome::Value_) self = built->value;
  }
  run(expression, {&self, &self});
  return 0;
}
