// The CEL grammar (cel-spec langdef.md) by recursive descent, with the macros (has, all,
// exists, exists_one, map, filter) expanded into nodes of their own, then a pass that resolves
// identifiers and functions.

#include <re2/re2.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_set>

#include "lib/cel/ast.h"
#include "lib/cel/heap.h"

namespace pg::cel {

using detail::BinaryOp;
using detail::IdentKind;
using detail::Macro;
using detail::Node;
using detail::NodeKind;

namespace {

enum class Tok : std::uint8_t {
  End,
  Ident,
  Int,
  Uint,
  Double,
  String,
  Bytes,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Dot,
  Comma,
  Colon,
  Question,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Bang,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  AndAnd,
  OrOr,
  In,
  True,
  False,
  Null,
};

struct Token {
  Tok kind = Tok::End;
  std::size_t offset = 0;
  std::string text;  // Ident name; String/Bytes decoded value
  std::uint64_t u = 0;
  double d = 0;
};

struct Failure {
  CompileError error;
};

const std::unordered_set<std::string_view>& reservedWords() {
  static const std::unordered_set<std::string_view> words{
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return words;
}

// Kubernetes escapes property names that are not CEL identifiers: `__dash__` is '-', `__dot__`
// '.', `__slash__` '/', `__underscores__` "__", and `__in__` (any reserved word) the word.
std::string unescapeProperty(std::string_view name) {
  if (name.find("__") == std::string_view::npos) return std::string(name);
  static const std::unordered_set<std::string_view> keywords{
      "true",     "false",   "null",      "in",       "as",  "break",  "const",
      "continue", "else",    "for",       "function", "if",  "import", "let",
      "loop",     "package", "namespace", "return",   "var", "void",   "while"};
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__") &&
      keywords.count(name.substr(2, name.size() - 4))) {
    return std::string(name.substr(2, name.size() - 4));
  }
  static constexpr std::pair<std::string_view, std::string_view> kEscapes[] = {
      {"__underscores__", "__"}, {"__dot__", "."}, {"__dash__", "-"}, {"__slash__", "/"}};
  std::string out;
  for (std::size_t i = 0; i < name.size();) {
    bool replaced = false;
    for (const auto& [escape, text] : kEscapes) {
      if (name.substr(i, escape.size()) == escape) {
        out += text;
        i += escape.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += name[i++];
  }
  return out;
}

bool identStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  Token next(bool afterOperand) {
    skipSpace();
    Token t;
    t.offset = pos_;
    if (pos_ >= src_.size()) return t;
    char c = src_[pos_];
    // String prefixes: r, b, rb, br in any case.
    if (c == 'r' || c == 'R' || c == 'b' || c == 'B') {
      std::size_t p = pos_;
      bool raw = false, bytes = false;
      for (int i = 0; i < 2 && p < src_.size(); ++i) {
        char q = src_[p];
        if ((q == 'r' || q == 'R') && !raw) {
          raw = true;
          ++p;
        } else if ((q == 'b' || q == 'B') && !bytes) {
          bytes = true;
          ++p;
        } else {
          break;
        }
      }
      if (p < src_.size() && (src_[p] == '"' || src_[p] == '\'')) {
        pos_ = p;
        return lexString(t, raw, bytes);
      }
    }
    if (identStart(c)) {
      std::size_t start = pos_;
      while (pos_ < src_.size() && identChar(src_[pos_])) ++pos_;
      std::string_view word = src_.substr(start, pos_ - start);
      if (word == "true")
        t.kind = Tok::True;
      else if (word == "false")
        t.kind = Tok::False;
      else if (word == "null")
        t.kind = Tok::Null;
      else if (word == "in")
        t.kind = Tok::In;
      else {
        t.kind = Tok::Ident;
        t.text = std::string(word);
      }
      return t;
    }
    if (digit(c) ||
        (c == '.' && !afterOperand && pos_ + 1 < src_.size() && digit(src_[pos_ + 1]))) {
      return lexNumber(t);
    }
    if (c == '"' || c == '\'') return lexString(t, false, false);
    ++pos_;
    auto two = [&](char second, Tok yes, Tok no) {
      if (pos_ < src_.size() && src_[pos_] == second) {
        ++pos_;
        return yes;
      }
      return no;
    };
    switch (c) {
      case '(':
        t.kind = Tok::LParen;
        break;
      case ')':
        t.kind = Tok::RParen;
        break;
      case '[':
        t.kind = Tok::LBracket;
        break;
      case ']':
        t.kind = Tok::RBracket;
        break;
      case '{':
        t.kind = Tok::LBrace;
        break;
      case '}':
        t.kind = Tok::RBrace;
        break;
      case '.':
        t.kind = Tok::Dot;
        break;
      case ',':
        t.kind = Tok::Comma;
        break;
      case ':':
        t.kind = Tok::Colon;
        break;
      case '?':
        t.kind = Tok::Question;
        break;
      case '+':
        t.kind = Tok::Plus;
        break;
      case '-':
        t.kind = Tok::Minus;
        break;
      case '*':
        t.kind = Tok::Star;
        break;
      case '/':
        t.kind = Tok::Slash;
        break;
      case '%':
        t.kind = Tok::Percent;
        break;
      case '!':
        t.kind = two('=', Tok::NotEq, Tok::Bang);
        break;
      case '=':
        if (pos_ < src_.size() && src_[pos_] == '=') {
          ++pos_;
          t.kind = Tok::EqEq;
          break;
        }
        fail(t.offset, "unexpected '=' (use '==')");
      case '<':
        t.kind = two('=', Tok::LessEq, Tok::Less);
        break;
      case '>':
        t.kind = two('=', Tok::GreaterEq, Tok::Greater);
        break;
      case '&':
        if (pos_ < src_.size() && src_[pos_] == '&') {
          ++pos_;
          t.kind = Tok::AndAnd;
          break;
        }
        fail(t.offset, "unexpected '&' (use '&&')");
      case '|':
        if (pos_ < src_.size() && src_[pos_] == '|') {
          ++pos_;
          t.kind = Tok::OrOr;
          break;
        }
        fail(t.offset, "unexpected '|' (use '||')");
      default:
        fail(t.offset, "unexpected character");
    }
    return t;
  }

  [[noreturn]] static void fail(std::size_t offset, std::string message, bool unsupported = false) {
    throw Failure{CompileError{std::move(message), offset, unsupported}};
  }

 private:
  void skipSpace() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  Token lexNumber(Token& t) {
    std::size_t start = pos_;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size() &&
        (src_[pos_ + 1] == 'x' || src_[pos_ + 1] == 'X')) {
      pos_ += 2;
      std::size_t digits = pos_;
      while (pos_ < src_.size() && std::isxdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
      if (digits == pos_) fail(start, "hexadecimal literal without digits");
      auto r = std::from_chars(src_.data() + digits, src_.data() + pos_, t.u, 16);
      if (r.ec != std::errc()) fail(start, "integer literal out of range");
      return integerSuffix(t, start);
    }
    bool isDouble = false;
    while (pos_ < src_.size() && digit(src_[pos_])) ++pos_;
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && digit(src_[pos_ + 1])) {
      isDouble = true;
      ++pos_;
      while (pos_ < src_.size() && digit(src_[pos_])) ++pos_;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
      std::size_t p = pos_ + 1;
      if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
      if (p < src_.size() && digit(src_[p])) {
        isDouble = true;
        pos_ = p;
        while (pos_ < src_.size() && digit(src_[pos_])) ++pos_;
      }
    }
    if (isDouble) {
      std::string text(src_.substr(start, pos_ - start));
      if (text[0] == '.') text.insert(0, "0");
      auto r = std::from_chars(text.data(), text.data() + text.size(), t.d);
      if (r.ec == std::errc::result_out_of_range) {
        t.d = text.find("e-") != std::string::npos || text.find("E-") != std::string::npos
                  ? 0.0
                  : HUGE_VAL;
      } else if (r.ec != std::errc()) {
        fail(start, "malformed number");
      }
      t.kind = Tok::Double;
      return t;
    }
    auto r = std::from_chars(src_.data() + start, src_.data() + pos_, t.u, 10);
    if (r.ec != std::errc()) fail(start, "integer literal out of range");
    return integerSuffix(t, start);
  }

  Token integerSuffix(Token& t, std::size_t start) {
    if (pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
      ++pos_;
      t.kind = Tok::Uint;
    } else {
      t.kind = Tok::Int;  // range checked by the parser, which knows about a leading '-'
    }
    if (pos_ < src_.size() && identChar(src_[pos_])) fail(start, "malformed number");
    return t;
  }

  Token lexString(Token& t, bool raw, bool bytes) {
    char quote = src_[pos_];
    bool triple = pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote;
    pos_ += triple ? 3 : 1;
    std::string out;
    for (;;) {
      if (pos_ >= src_.size()) fail(t.offset, "unterminated string literal");
      char c = src_[pos_];
      if (c == quote) {
        if (!triple) {
          ++pos_;
          break;
        }
        if (pos_ + 2 < src_.size() && src_[pos_ + 1] == quote && src_[pos_ + 2] == quote) {
          pos_ += 3;
          break;
        }
      }
      if (!triple && (c == '\n' || c == '\r')) fail(pos_, "newline in a string literal");
      if (c == '\\' && !raw) {
        escape(out, bytes);
        continue;
      }
      out += c;
      ++pos_;
    }
    t.kind = bytes ? Tok::Bytes : Tok::String;
    t.text = std::move(out);
    return t;
  }

  void escape(std::string& out, bool bytes) {
    std::size_t at = pos_;
    ++pos_;
    if (pos_ >= src_.size()) fail(at, "unterminated escape sequence");
    char c = src_[pos_++];
    auto hex = [&](int n) {
      std::uint32_t v = 0;
      for (int i = 0; i < n; ++i) {
        if (pos_ >= src_.size() || !std::isxdigit(static_cast<unsigned char>(src_[pos_]))) {
          fail(at, "malformed escape sequence");
        }
        char h = src_[pos_++];
        v = v * 16 + static_cast<std::uint32_t>(digit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
      }
      return v;
    };
    switch (c) {
      case 'a':
        out += '\a';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'v':
        out += '\v';
        return;
      case '\\':
        out += '\\';
        return;
      case '\'':
        out += '\'';
        return;
      case '"':
        out += '"';
        return;
      case '`':
        out += '`';
        return;
      case '?':
        out += '?';
        return;
      case 'x':
      case 'X': {
        std::uint32_t v = hex(2);
        if (bytes)
          out += static_cast<char>(v);
        else
          appendUtf8(out, v);
        return;
      }
      case 'u':
      case 'U': {
        if (bytes) fail(at, "\\u escapes are not allowed in bytes literals");
        std::uint32_t v = hex(c == 'u' ? 4 : 8);
        if ((v >= 0xD800 && v < 0xE000) || v > 0x10FFFF) fail(at, "invalid code point in escape");
        appendUtf8(out, v);
        return;
      }
      default:
        if (c >= '0' && c <= '3') {
          std::uint32_t v = static_cast<std::uint32_t>(c - '0');
          for (int i = 0; i < 2; ++i) {
            if (pos_ >= src_.size() || src_[pos_] < '0' || src_[pos_] > '7') {
              fail(at, "malformed octal escape");
            }
            v = v * 8 + static_cast<std::uint32_t>(src_[pos_++] - '0');
          }
          if (bytes)
            out += static_cast<char>(v);
          else
            appendUtf8(out, v);
          return;
        }
        fail(at, "unknown escape sequence");
    }
  }

  std::string_view src_;
  std::size_t pos_ = 0;
};

std::unique_ptr<Node> makeNode(NodeKind kind, std::size_t offset) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->offset = offset;
  return n;
}

class Parser {
 public:
  explicit Parser(std::string_view src) : lexer_(src) { advance(); }

  std::unique_ptr<Node> parse() {
    auto e = expr();
    if (tok_.kind != Tok::End) fail("unexpected text after the expression");
    return e;
  }

 private:
  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p(p) {
      if (++p.depth_ > kMaxNesting) {
        Lexer::fail(p.tok_.offset, "expression nests too deeply");
      }
    }
    ~DepthGuard() { --p.depth_; }
    Parser& p;
  };

  void advance() {
    bool afterOperand =
        tok_.kind == Tok::Ident || tok_.kind == Tok::RParen || tok_.kind == Tok::RBracket ||
        tok_.kind == Tok::RBrace || tok_.kind == Tok::Int || tok_.kind == Tok::Uint ||
        tok_.kind == Tok::Double || tok_.kind == Tok::String || tok_.kind == Tok::Bytes ||
        tok_.kind == Tok::True || tok_.kind == Tok::False || tok_.kind == Tok::Null;
    tok_ = lexer_.next(afterOperand);
  }

  [[noreturn]] void fail(std::string message) { Lexer::fail(tok_.offset, std::move(message)); }

  void expect(Tok kind, const char* what) {
    if (tok_.kind != kind) fail(std::string("expected ") + what);
    advance();
  }

  std::unique_ptr<Node> finish(std::unique_ptr<Node> n) {
    int h = 0;
    for (const auto& c : n->children) h = std::max(h, c->height);
    n->height = h + 1;
    if (n->height > kMaxNesting) Lexer::fail(n->offset, "expression nests too deeply");
    if (n->kind == NodeKind::Select || n->kind == NodeKind::Has)
      n->nameId = detail::fieldId(n->name);
    return n;
  }

  std::unique_ptr<Node> expr() {
    DepthGuard guard(*this);
    auto cond = logical(Tok::OrOr);
    if (tok_.kind != Tok::Question) return cond;
    auto n = makeNode(NodeKind::Conditional, tok_.offset);
    advance();
    auto yes = logical(Tok::OrOr);
    expect(Tok::Colon, "':' in a conditional");
    auto no = expr();
    n->children.push_back(std::move(cond));
    n->children.push_back(std::move(yes));
    n->children.push_back(std::move(no));
    return finish(std::move(n));
  }

  // `a || b || c` and `a && b && c` as balanced trees, as cel-go builds them: the operators
  // are commutative in CEL, and a long chain then stays shallow.
  std::unique_ptr<Node> logical(Tok op) {
    std::vector<std::unique_ptr<Node>> terms;
    std::vector<std::size_t> offsets;
    terms.push_back(op == Tok::OrOr ? logical(Tok::AndAnd) : relation());
    while (tok_.kind == op) {
      offsets.push_back(tok_.offset);
      advance();
      terms.push_back(op == Tok::OrOr ? logical(Tok::AndAnd) : relation());
    }
    if (terms.size() == 1) return std::move(terms.front());
    return balance(terms, offsets, 0, terms.size(), op == Tok::OrOr ? NodeKind::Or : NodeKind::And);
  }

  std::unique_ptr<Node> balance(std::vector<std::unique_ptr<Node>>& terms,
                                const std::vector<std::size_t>& offsets, std::size_t lo,
                                std::size_t hi, NodeKind kind) {
    if (hi - lo == 1) return std::move(terms[lo]);
    std::size_t mid = lo + (hi - lo) / 2;
    auto n = makeNode(kind, offsets[mid - 1]);
    n->children.push_back(balance(terms, offsets, lo, mid, kind));
    n->children.push_back(balance(terms, offsets, mid, hi, kind));
    return finish(std::move(n));
  }

  std::unique_ptr<Node> binary(BinaryOp op, std::size_t offset, std::unique_ptr<Node> l,
                               std::unique_ptr<Node> r) {
    auto n = makeNode(NodeKind::Binary, offset);
    n->op = op;
    n->children.push_back(std::move(l));
    n->children.push_back(std::move(r));
    return finish(std::move(n));
  }

  std::unique_ptr<Node> relation() {
    auto l = addition();
    for (;;) {
      BinaryOp op;
      switch (tok_.kind) {
        case Tok::EqEq:
          op = BinaryOp::Eq;
          break;
        case Tok::NotEq:
          op = BinaryOp::Ne;
          break;
        case Tok::Less:
          op = BinaryOp::Lt;
          break;
        case Tok::LessEq:
          op = BinaryOp::Le;
          break;
        case Tok::Greater:
          op = BinaryOp::Gt;
          break;
        case Tok::GreaterEq:
          op = BinaryOp::Ge;
          break;
        case Tok::In:
          op = BinaryOp::In;
          break;
        default:
          return l;
      }
      std::size_t at = tok_.offset;
      advance();
      l = binary(op, at, std::move(l), addition());
    }
  }

  std::unique_ptr<Node> addition() {
    auto l = multiplication();
    while (tok_.kind == Tok::Plus || tok_.kind == Tok::Minus) {
      BinaryOp op = tok_.kind == Tok::Plus ? BinaryOp::Add : BinaryOp::Sub;
      std::size_t at = tok_.offset;
      advance();
      l = binary(op, at, std::move(l), multiplication());
    }
    return l;
  }

  std::unique_ptr<Node> multiplication() {
    auto l = unary();
    for (;;) {
      BinaryOp op;
      switch (tok_.kind) {
        case Tok::Star:
          op = BinaryOp::Mul;
          break;
        case Tok::Slash:
          op = BinaryOp::Div;
          break;
        case Tok::Percent:
          op = BinaryOp::Mod;
          break;
        default:
          return l;
      }
      std::size_t at = tok_.offset;
      advance();
      l = binary(op, at, std::move(l), unary());
    }
  }

  std::unique_ptr<Node> unary() {
    DepthGuard guard(*this);
    if (tok_.kind == Tok::Bang) {
      auto n = makeNode(NodeKind::Not, tok_.offset);
      advance();
      n->children.push_back(unary());
      return finish(std::move(n));
    }
    if (tok_.kind == Tok::Minus) {
      std::size_t at = tok_.offset;
      advance();
      // A negative literal is one literal: -9223372036854775808 is a valid int.
      if (tok_.kind == Tok::Int || tok_.kind == Tok::Double) {
        Token lit = tok_;
        advance();
        auto n = makeNode(NodeKind::Literal, at);
        if (lit.kind == Tok::Int) {
          if (lit.u > 9223372036854775808ull) Lexer::fail(at, "integer literal out of range");
          n->value = Value::integer(static_cast<std::int64_t>(0 - lit.u));
        } else {
          n->value = Value::real(-lit.d);
        }
        return member(std::move(n));
      }
      auto n = makeNode(NodeKind::Neg, at);
      n->children.push_back(unary());
      return finish(std::move(n));
    }
    return member(primary());
  }

  std::vector<std::unique_ptr<Node>> arguments(Tok close) {
    std::vector<std::unique_ptr<Node>> args;
    if (tok_.kind == close) {
      advance();
      return args;
    }
    for (;;) {
      args.push_back(expr());
      if (tok_.kind == Tok::Comma) {
        advance();
        if (close == Tok::RBracket && tok_.kind == close) break;  // trailing comma in a list
        continue;
      }
      break;
    }
    expect(close, close == Tok::RParen ? "')'" : "']'");
    return args;
  }

  std::unique_ptr<Node> member(std::unique_ptr<Node> operand) {
    for (;;) {
      if (tok_.kind == Tok::Dot) {
        std::size_t at = tok_.offset;
        advance();
        bool optional = false;
        if (tok_.kind == Tok::Question) {
          optional = true;
          advance();
        }
        if (tok_.kind != Tok::Ident) fail("expected a field or method name after '.'");
        std::string name = tok_.text;
        std::size_t nameAt = tok_.offset;
        advance();
        if (tok_.kind == Tok::LParen && !optional) {
          advance();
          operand = call(std::move(name), nameAt, std::move(operand), arguments(Tok::RParen));
          continue;
        }
        // Reserved words are fine as field names (`self.namespace`), as in cel-go.
        auto n = makeNode(NodeKind::Select, at);
        n->name = unescapeProperty(name);
        n->optional = optional;
        n->children.push_back(std::move(operand));
        operand = finish(std::move(n));
      } else if (tok_.kind == Tok::LBracket) {
        auto n = makeNode(NodeKind::Index, tok_.offset);
        advance();
        if (tok_.kind == Tok::Question) {
          n->optional = true;
          advance();
        }
        n->children.push_back(std::move(operand));
        n->children.push_back(expr());
        expect(Tok::RBracket, "']'");
        operand = finish(std::move(n));
      } else if (tok_.kind == Tok::LBrace && operand->kind == NodeKind::Ident) {
        Lexer::fail(tok_.offset, "message construction is not supported", true);
      } else {
        return operand;
      }
    }
  }

  void checkReserved(const std::string& name, std::size_t at) {
    if (reservedWords().count(name)) Lexer::fail(at, "'" + name + "' is a reserved word");
  }

  std::unique_ptr<Node> primary() {
    Token t = tok_;
    switch (t.kind) {
      case Tok::Int: {
        advance();
        if (t.u > 9223372036854775807ull) Lexer::fail(t.offset, "integer literal out of range");
        auto n = makeNode(NodeKind::Literal, t.offset);
        n->value = Value::integer(static_cast<std::int64_t>(t.u));
        return n;
      }
      case Tok::Uint: {
        advance();
        auto n = makeNode(NodeKind::Literal, t.offset);
        n->value = Value::uinteger(t.u);
        return n;
      }
      case Tok::Double: {
        advance();
        auto n = makeNode(NodeKind::Literal, t.offset);
        n->value = Value::real(t.d);
        return n;
      }
      case Tok::String:
      case Tok::Bytes: {
        advance();
        auto n = makeNode(NodeKind::Literal, t.offset);
        n->value = t.kind == Tok::String ? Value::string(std::move(t.text))
                                         : Value::bytes(std::move(t.text));
        return n;
      }
      case Tok::True:
      case Tok::False: {
        advance();
        auto n = makeNode(NodeKind::Literal, t.offset);
        n->value = Value::boolean(t.kind == Tok::True);
        return n;
      }
      case Tok::Null: {
        advance();
        return makeNode(NodeKind::Literal, t.offset);
      }
      case Tok::LParen: {
        advance();
        auto e = expr();
        expect(Tok::RParen, "')'");
        return e;
      }
      case Tok::LBracket:
        advance();
        return aggregate(NodeKind::List, t.offset);
      case Tok::LBrace:
        advance();
        return aggregate(NodeKind::Map, t.offset);
      case Tok::Dot: {
        Lexer::fail(t.offset, "leading-dot identifiers are not supported", true);
      }
      case Tok::Ident: {
        advance();
        if (tok_.kind == Tok::LParen) {
          advance();
          return call(t.text, t.offset, nullptr, arguments(Tok::RParen));
        }
        checkReserved(t.text, t.offset);
        auto n = makeNode(NodeKind::Ident, t.offset);
        n->name = std::move(t.text);
        return n;
      }
      case Tok::End:
        fail("unexpected end of the expression");
      default:
        fail("expected an operand");
    }
  }

  // A list `[a, ?b]` or map `{k: v, ?k2: v2}` literal after its opening bracket; a trailing
  // comma is allowed.
  std::unique_ptr<Node> aggregate(NodeKind kind, std::size_t at) {
    Tok close = kind == NodeKind::List ? Tok::RBracket : Tok::RBrace;
    auto n = makeNode(kind, at);
    while (tok_.kind != close) {
      bool optional = tok_.kind == Tok::Question;
      if (optional) advance();
      n->optionalItems.push_back(optional);
      n->children.push_back(expr());
      if (kind == NodeKind::Map) {
        expect(Tok::Colon, "':' in a map entry");
        n->children.push_back(expr());
      }
      if (tok_.kind != Tok::Comma) break;
      advance();
    }
    expect(close, kind == NodeKind::List ? "']' or ','" : "'}' or ','");
    // A list of literals (`x in ['A', 'B']`) is one literal, built once here.
    bool constant = kind == NodeKind::List;
    for (std::size_t i = 0; constant && i < n->children.size(); ++i) {
      constant = !n->optionalItems[i] && n->children[i]->kind == NodeKind::Literal;
    }
    if (constant) {
      std::vector<Value> items;
      items.reserve(n->children.size());
      for (const auto& c : n->children) items.push_back(c->value);
      auto lit = makeNode(NodeKind::Literal, at);
      lit->value = Value::list(std::move(items));
      return lit;
    }
    return finish(std::move(n));
  }

  std::unique_ptr<Node> call(std::string name, std::size_t at, std::unique_ptr<Node> target,
                             std::vector<std::unique_ptr<Node>> args) {
    if (!target && name == "has") {
      if (args.size() != 1 || args[0]->kind != NodeKind::Select || args[0]->optional) {
        Lexer::fail(at, "has() takes one field selection, as in has(self.field)");
      }
      auto n = makeNode(NodeKind::Has, at);
      n->name = args[0]->name;
      n->children.push_back(std::move(args[0]->children[0]));
      return finish(std::move(n));
    }
    if (target) {
      std::optional<Macro> macro;
      if (name == "all" && (args.size() == 2 || args.size() == 3))
        macro = Macro::All;
      else if (name == "exists" && (args.size() == 2 || args.size() == 3))
        macro = Macro::Exists;
      else if (name == "exists_one" && (args.size() == 2 || args.size() == 3))
        macro = Macro::ExistsOne;
      else if (name == "filter" && args.size() == 2)
        macro = Macro::Filter;
      else if (name == "map" && args.size() == 2)
        macro = Macro::Map;
      else if (name == "map" && args.size() == 3)
        macro = Macro::MapFilter;
      if (macro) {
        // all/exists/exists_one with three arguments take two variables (index or key, value).
        bool twoVars = args.size() == 3 && *macro != Macro::MapFilter;
        auto variable = [&](std::size_t i) {
          if (args[i]->kind != NodeKind::Ident) {
            Lexer::fail(args[i]->offset,
                        name + "() needs a variable name as argument " + std::to_string(i + 1));
          }
          return args[i]->name;
        };
        auto n = makeNode(NodeKind::Comprehension, at);
        n->macro = *macro;
        n->name = variable(0);
        if (twoVars) {
          n->name2 = variable(1);
          if (n->name2 == n->name) Lexer::fail(args[1]->offset, "the two variables must differ");
        }
        n->children.push_back(std::move(target));
        for (std::size_t i = twoVars ? 2 : 1; i < args.size(); ++i) {
          n->children.push_back(std::move(args[i]));
        }
        return finish(std::move(n));
      }
    }
    auto n = makeNode(NodeKind::Call, at);
    n->name = std::move(name);
    n->receiver = target != nullptr;
    if (target) n->children.push_back(std::move(target));
    for (auto& a : args) n->children.push_back(std::move(a));
    return finish(std::move(n));
  }

  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
};

// Resolves identifiers (self, oldSelf, comprehension variables, type names) and functions, and
// precompiles literal regular expressions.
class Resolver {
 public:
  bool oldSelf = false;

  void resolve(Node& n) {
    switch (n.kind) {
      case NodeKind::Ident:
        ident(n);
        return;
      case NodeKind::Comprehension: {
        resolve(*n.children[0]);
        std::size_t mark = scope_.size();
        n.slot = static_cast<int>(scope_.size());
        scope_.push_back(n.name);
        if (!n.name2.empty()) scope_.push_back(n.name2);
        for (std::size_t i = 1; i < n.children.size(); ++i) resolve(*n.children[i]);
        scope_.resize(mark);
        return;
      }
      case NodeKind::Call:
        call(n);
        return;
      default:
        for (auto& c : n.children) resolve(*c);
    }
  }

 private:
  std::optional<int> lookup(const std::string& name) const {
    for (std::size_t i = scope_.size(); i-- > 0;) {
      if (scope_[i] == name) return static_cast<int>(i);
    }
    return std::nullopt;
  }

  void ident(Node& n) {
    if (auto slot = lookup(n.name)) {
      n.ident = IdentKind::Var;
      n.slot = *slot;
      return;
    }
    if (n.name == "self") {
      n.ident = IdentKind::Self;
      return;
    }
    if (n.name == "oldSelf") {
      n.ident = IdentKind::OldSelf;
      oldSelf = true;
      return;
    }
    static const std::unordered_set<std::string_view> types{
        "bool", "int", "uint", "double", "string", "bytes", "list", "map", "null_type", "type"};
    if (types.count(n.name)) {
      n.ident = IdentKind::Type;
      n.value = Value::type(n.name);
      return;
    }
    Lexer::fail(n.offset, "undeclared reference to '" + n.name + "'");
  }

  void call(Node& n) {
    // A call on a namespace (optional.of, ...) whose name is no variable is a global function;
    // Kubernetes' format library (format.dns1123Label()...) is one this library does not
    // implement, reported as unsupported.
    if (n.receiver && n.children[0]->kind == NodeKind::Ident && !lookup(n.children[0]->name) &&
        n.children[0]->name != "self" && n.children[0]->name != "oldSelf") {
      std::string qualified = n.children[0]->name + "." + n.name;
      if (detail::lookupFunction(qualified, false, n.children.size() - 1) ||
          n.children[0]->name == "optional" || n.children[0]->name == "math" ||
          n.children[0]->name == "strings" || n.children[0]->name == "base64" ||
          n.children[0]->name == "sets" || n.children[0]->name == "lists" ||
          n.children[0]->name == "format") {
        n.name = std::move(qualified);
        n.receiver = false;
        n.children.erase(n.children.begin());
      }
    }
    for (auto& c : n.children) resolve(*c);
    std::size_t arity = n.children.size() - (n.receiver ? 1 : 0);
    auto fn = detail::lookupFunction(n.name, n.receiver, arity);
    if (!fn) {
      Lexer::fail(n.offset,
                  "function '" + n.name + "' with " + std::to_string(arity) +
                      (arity == 1 ? " argument" : " arguments") +
                      (n.receiver ? " on a receiver" : "") + " is not supported",
                  true);
    }
    n.fn = *fn;
    if (n.fn == detail::Fn::Matches) {
      const Node& pattern = *n.children.back();
      if (pattern.kind == NodeKind::Literal && pattern.value.kind() == Value::Kind::String) {
        RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_shared<RE2>(std::string(pattern.value.asString()), options);
        if (!re->ok()) {
          Lexer::fail(pattern.offset, "invalid regular expression: " + re->error());
        }
        n.regex = std::move(re);
      }
    }
  }

  std::vector<std::string> scope_;
};

}  // namespace

namespace {

// The parsed and resolved tree of an expression, still open to markShared().
struct Parsed {
  std::unique_ptr<Node> root;
  bool oldSelf = false;
};

std::variant<Parsed, CompileError> parseAndResolve(std::string_view expression) {
  if (expression.size() > kMaxExpressionBytes) {
    return CompileError{"expression longer than " + std::to_string(kMaxExpressionBytes) + " bytes",
                        0, false};
  }
  try {
    Parser parser(expression);
    Parsed parsed{parser.parse()};
    Resolver resolver;
    resolver.resolve(*parsed.root);
    parsed.oldSelf = resolver.oldSelf;
    return parsed;
  } catch (const Failure& f) {
    return f.error;
  }
}

}  // namespace

std::variant<Program, CompileError> compile(std::string_view expression) {
  return std::move(compileTogether({&expression, 1}).front());
}

std::optional<CompileError> syntaxError(std::string_view expression) {
  if (expression.size() > kMaxExpressionBytes)
    return CompileError{"expression longer than " + std::to_string(kMaxExpressionBytes) + " bytes",
                        0, false};
  try {
    Parser parser(expression);
    parser.parse();
    return std::nullopt;
  } catch (const Failure& f) {
    return f.error;
  }
}

std::vector<std::variant<Program, CompileError>> compileTogether(
    std::span<const std::string_view> expressions) {
  std::vector<std::variant<Parsed, CompileError>> parsed;
  parsed.reserve(expressions.size());
  std::vector<Node*> roots;
  for (std::string_view e : expressions) {
    parsed.push_back(parseAndResolve(e));
    if (auto* tree = std::get_if<Parsed>(&parsed.back())) roots.push_back(tree->root.get());
  }
  detail::markShared(roots);
  std::vector<std::variant<Program, CompileError>> out;
  out.reserve(parsed.size());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    if (auto* error = std::get_if<CompileError>(&parsed[i])) {
      out.emplace_back(std::move(*error));
      continue;
    }
    Parsed& tree = std::get<Parsed>(parsed[i]);
    Program p;
    p.source_ = std::string(expressions[i]);
    p.root_ = std::shared_ptr<const Node>(std::move(tree.root));
    p.oldSelf_ = tree.oldSelf;
    out.emplace_back(std::move(p));
  }
  return out;
}

bool referencesOldSelf(const Program& program) {
  return program.oldSelf_;
}

}  // namespace pg::cel
