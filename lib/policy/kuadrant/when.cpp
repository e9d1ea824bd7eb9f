#include "lib/policy/kuadrant/when.h"

#include <cctype>
#include <charconv>
#include <compare>
#include <variant>
#include <vector>

namespace pg::policy::kuadrant {

namespace {

// A path step: a field name or a list index.
struct PathStep {
  std::string name;
  std::optional<std::size_t> index;
};

struct Null {
  auto operator<=>(const Null&) const = default;
};
using Scalar = std::variant<Null, bool, double, std::string>;

}  // namespace

struct WhenNode {
  enum class Op { Or, And, Not, Compare, Literal, Path, Size, Has };
  Op op = Op::Literal;
  std::string comparison;  // Compare: "<", "<=", ">", ">=", "==", "!="
  std::unique_ptr<WhenNode> left, right;
  Scalar literal;
  std::vector<PathStep> path;
};

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  std::unique_ptr<WhenNode> parseAll(std::string& error) {
    std::unique_ptr<WhenNode> node = orExpression();
    skipSpace();
    if (error_.empty() && pos_ < text_.size())
      fail("unexpected \"" + std::string(text_.substr(pos_)) + "\"");
    if (!error_.empty()) {
      error = error_;
      return nullptr;
    }
    return node;
  }

 private:
  void fail(std::string message) {
    if (error_.empty()) error_ = message + " at column " + std::to_string(pos_ + 1);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    // Words must not run on into a longer name (`self` in `selfish`).
    if (std::isalpha(static_cast<unsigned char>(token.back())) &&
        pos_ + token.size() < text_.size()) {
      char next = text_[pos_ + token.size()];
      if (std::isalnum(static_cast<unsigned char>(next)) || next == '_') return false;
    }
    pos_ += token.size();
    return true;
  }

  std::unique_ptr<WhenNode> binary(WhenNode::Op op, std::unique_ptr<WhenNode> l,
                                   std::unique_ptr<WhenNode> r) {
    auto n = std::make_unique<WhenNode>();
    n->op = op;
    n->left = std::move(l);
    n->right = std::move(r);
    return n;
  }

  std::unique_ptr<WhenNode> orExpression() {
    std::unique_ptr<WhenNode> left = andExpression();
    while (error_.empty() && accept("||"))
      left = binary(WhenNode::Op::Or, std::move(left), andExpression());
    return left;
  }

  std::unique_ptr<WhenNode> andExpression() {
    std::unique_ptr<WhenNode> left = unary();
    while (error_.empty() && accept("&&"))
      left = binary(WhenNode::Op::And, std::move(left), unary());
    return left;
  }

  std::unique_ptr<WhenNode> unary() {
    if (++depth_ > kMaxDepth) {
      fail("the expression nests too deeply");
      return nullptr;
    }
    std::unique_ptr<WhenNode> out;
    if (accept("!")) {
      out = binary(WhenNode::Op::Not, unary(), nullptr);
    } else {
      out = comparison();
    }
    --depth_;
    return out;
  }

  std::unique_ptr<WhenNode> comparison() {
    std::unique_ptr<WhenNode> left = operand();
    for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (accept(op)) {
        auto n = binary(WhenNode::Op::Compare, std::move(left), operand());
        n->comparison = std::string(op);
        return n;
      }
    }
    return left;
  }

  std::unique_ptr<WhenNode> operand() {
    if (!error_.empty()) return nullptr;
    skipSpace();
    auto n = std::make_unique<WhenNode>();
    if (accept("(")) {
      if (++depth_ > kMaxDepth) {
        fail("the expression nests too deeply");
        return nullptr;
      }
      n = orExpression();
      --depth_;
      if (!accept(")")) fail("expected \")\"");
      return n;
    }
    for (auto [word, op] :
         {std::pair{"size", WhenNode::Op::Size}, std::pair{"has", WhenNode::Op::Has}}) {
      if (accept(word)) {
        if (!accept("(")) fail("expected \"(\" after " + std::string(word));
        n->op = op;
        n->path = path();
        if (!accept(")")) fail("expected \")\"");
        return n;
      }
    }
    if (accept("true")) {
      n->literal = true;
      return n;
    }
    if (accept("false")) {
      n->literal = false;
      return n;
    }
    if (accept("null")) return n;
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      n->literal = string();
      return n;
    }
    if (pos_ < text_.size() &&
        (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-')) {
      double v = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
      if (ec != std::errc()) {
        fail("bad number");
        return nullptr;
      }
      pos_ = static_cast<std::size_t>(ptr - text_.data());
      n->literal = v;
      return n;
    }
    if (text_.substr(pos_, 4) == "self") {
      n->op = WhenNode::Op::Path;
      n->path = path();
      return n;
    }
    fail(
        "policygraph evaluates comparisons of self.<field> paths and literals, joined by && "
        "|| !, with size() and has(); found \"" +
        std::string(text_.substr(pos_)) + "\"");
    return nullptr;
  }

  std::string string() {
    char quote = text_[pos_++];
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  std::vector<PathStep> path() {
    std::vector<PathStep> steps;
    if (!accept("self")) {
      fail("a path starts with self");
      return steps;
    }
    while (error_.empty()) {
      if (accept(".")) {
        std::size_t start = pos_;
        while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                       text_[pos_] == '_' || text_[pos_] == '-'))
          ++pos_;
        if (start == pos_) fail("expected a field name after \".\"");
        steps.push_back({std::string(text_.substr(start, pos_ - start)), std::nullopt});
      } else if (accept("[")) {
        skipSpace();
        if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
          steps.push_back({string(), std::nullopt});
        } else {
          std::size_t index = 0;
          auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), index);
          if (ec != std::errc()) fail("expected an index or a quoted key");
          pos_ = static_cast<std::size_t>(ptr - text_.data());
          steps.push_back({{}, index});
        }
        if (!accept("]")) fail("expected \"]\"");
      } else {
        break;
      }
    }
    return steps;
  }

  static constexpr int kMaxDepth = 64;
  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
};

// Where a path leads in a merged value: a merged mapping, or a source node.
struct Place {
  const Value* value = nullptr;
  yaml::NodeRef node;
  bool exists() const { return value || node; }
};

Place follow(const Value& self, const std::vector<PathStep>& path) {
  Place at{&self, {}};
  for (const PathStep& step : path) {
    if (at.value && at.value->isNode()) at = {nullptr, at.value->node};
    if (at.value) {
      if (step.index) return {};
      const Value* next = at.value->find(step.name);
      if (!next) return {};
      at = {next, {}};
    } else if (step.index) {
      if (!at.node.isSequence() || *step.index >= at.node.size()) return {};
      at.node = at.node.at(*step.index);
    } else {
      if (!at.node.isMapping()) return {};
      at.node = at.node.get(step.name);
      if (!at.node) return {};
    }
  }
  if (at.value && at.value->isNode()) at = {nullptr, at.value->node};
  return at;
}

std::optional<Scalar> scalarOf(yaml::NodeRef node) {
  if (!node.isScalar()) return std::nullopt;
  if (node.isNull()) return Scalar{Null{}};
  if (node.isString()) return Scalar{std::string(node.str())};
  if (auto b = node.asBool()) return Scalar{*b};
  double d = 0;
  std::string_view t = node.str();
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec == std::errc() && ptr == t.data() + t.size()) return Scalar{d};
  return Scalar{std::string(t)};
}

// The value of an operand; nothing when a path does not lead to a scalar.
std::optional<Scalar> valueOf(const WhenNode& n, const Value& self);

bool truth(const WhenNode& n, const Value& self) {
  switch (n.op) {
    case WhenNode::Op::Or:
      return truth(*n.left, self) || truth(*n.right, self);
    case WhenNode::Op::And:
      return truth(*n.left, self) && truth(*n.right, self);
    case WhenNode::Op::Not:
      return !truth(*n.left, self);
    case WhenNode::Op::Has:
      return follow(self, n.path).exists();
    case WhenNode::Op::Compare: {
      std::optional<Scalar> a = valueOf(*n.left, self), b = valueOf(*n.right, self);
      if (!a || !b) return false;
      if (n.comparison == "==") return *a == *b;
      if (n.comparison == "!=") return *a != *b;
      if (a->index() != b->index()) return false;  // CEL does not order across types
      if (n.comparison == "<") return *a < *b;
      if (n.comparison == "<=") return *a <= *b;
      if (n.comparison == ">") return *a > *b;
      return *a >= *b;
    }
    default: {
      std::optional<Scalar> v = valueOf(n, self);
      return v && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
    }
  }
}

std::optional<Scalar> valueOf(const WhenNode& n, const Value& self) {
  switch (n.op) {
    case WhenNode::Op::Literal:
      return n.literal;
    case WhenNode::Op::Path: {
      Place at = follow(self, n.path);
      return at.node ? scalarOf(at.node) : std::nullopt;
    }
    case WhenNode::Op::Size: {
      Place at = follow(self, n.path);
      if (at.value) return Scalar{static_cast<double>(at.value->entries.size())};
      if (at.node.isScalar() && at.node.isString())
        return Scalar{static_cast<double>(at.node.str().size())};
      if (at.node.isMapping() || at.node.isSequence())
        return Scalar{static_cast<double>(at.node.size())};
      return std::nullopt;
    }
    default:
      return Scalar{truth(n, self)};
  }
}

}  // namespace

WhenExpression::WhenExpression() = default;
WhenExpression::~WhenExpression() = default;
WhenExpression::WhenExpression(WhenExpression&&) noexcept = default;
WhenExpression& WhenExpression::operator=(WhenExpression&&) noexcept = default;

std::optional<WhenExpression> WhenExpression::parse(std::string_view text, std::string& error) {
  Parser parser(text);
  std::unique_ptr<WhenNode> root = parser.parseAll(error);
  if (!root) return std::nullopt;
  WhenExpression e;
  e.root_ = std::move(root);
  return e;
}

bool WhenExpression::holds(const Value& self) const {
  return root_ && truth(*root_, self);
}

}  // namespace pg::policy::kuadrant
