#include "lib/yaml/parser.h"

#include <yaml.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "lib/yaml/bytes.h"

namespace pg::yaml {

namespace {

constexpr std::uint64_t kSaturated = ~std::uint64_t{0} >> 1;

std::uint64_t addSaturating(std::uint64_t a, std::uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

// Where the next document starts at or after the line holding byte `from`, and after byte
// `after`: a line beginning with `---` followed by white space or the end of the text. npos
// when there is none.
std::size_t nextDocumentStart(std::string_view text, std::size_t from, std::size_t after) {
  std::size_t pos = from == 0 ? 0 : text.rfind('\n', from - 1);
  pos = pos == std::string_view::npos ? 0 : pos + 1;
  while (pos < text.size()) {
    if (pos > after && text.compare(pos, 3, "---") == 0) {
      std::size_t end = pos + 3;
      if (end >= text.size() || text[end] == ' ' || text[end] == '\t' || text[end] == '\n' ||
          text[end] == '\r')
        return pos;
    }
    pos = text.find('\n', pos);
    if (pos == std::string_view::npos) break;
    ++pos;
  }
  return std::string_view::npos;
}

// Per-byte flags (bit 7 of each byte) of an 8-byte word, exact for every byte: no carry
// crosses from one byte into the next. Every file is scanned and almost none holds a control
// character, so the scan reads a word at a time.
constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7FULL;
constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
constexpr std::uint64_t repeated(unsigned char c) {
  return 0x0101010101010101ULL * c;
}
// Bytes equal to `c`.
std::uint64_t bytesEqual(std::uint64_t word, unsigned char c) {
  const std::uint64_t x = word ^ repeated(c);
  return ~(((x & kLow7) + kLow7) | x) & kHigh;
}
// Bytes below 0x20.
std::uint64_t bytesBelowSpace(std::uint64_t word) {
  return ~(((word & kLow7) + repeated(0x60)) | word) & kHigh;
}

// Whether `text` holds a control character blankControlCharacters replaces, or a byte 0xC2
// (which may start a C1 control).
bool mayHoldControlCharacters(std::string_view text) {
  auto flagged = [](std::uint64_t w) {
    const std::uint64_t control =
        bytesBelowSpace(w) & ~bytesEqual(w, '\t') & ~bytesEqual(w, '\n') & ~bytesEqual(w, '\r');
    return (control | bytesEqual(w, 0x7F) | bytesEqual(w, 0xC2)) != 0;
  };
  const char* p = text.data();
  const std::size_t n = text.size();
  std::size_t i = 0;
#if defined(__SSE2__)
  // Sixteen bytes at a time where the machine has SSE2 (every x86-64 does): a quarter of the
  // word loop's instructions, and the scan reads every byte of the repository.
  const __m128i lastControl = _mm_set1_epi8(0x1F);
  const __m128i tab = _mm_set1_epi8('\t');
  const __m128i lineFeed = _mm_set1_epi8('\n');
  const __m128i carriageReturn = _mm_set1_epi8('\r');
  const __m128i del = _mm_set1_epi8(0x7F);
  const __m128i c2 = _mm_set1_epi8(static_cast<char>(0xC2));
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i below = _mm_cmpeq_epi8(_mm_min_epu8(v, lastControl), v);  // v <= 0x1F
    const __m128i breaks =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, lineFeed)),
                     _mm_cmpeq_epi8(v, carriageReturn));
    const __m128i flagged =
        _mm_or_si128(_mm_andnot_si128(breaks, below),
                     _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmpeq_epi8(v, c2)));
    if (_mm_movemask_epi8(flagged) != 0) return true;
  }
#endif
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (flagged(w)) return true;
  }
  // The last bytes in a word padded with spaces, which are never flagged.
  std::uint64_t tail = repeated(' ');
  std::memcpy(&tail, p + i, n - i);
  return flagged(tail);
}

// Characters YAML does not allow anywhere in a stream (outside c-printable): C0 controls but
// tab and line breaks, DEL, and C1 controls but NEL. libyaml stops at the first one without a
// usable position and before returning any document, so they are found here first, replaced
// by spaces, and the documents holding them are dropped after parsing.
std::vector<Mark> blankControlCharacters(std::string& text) {
  std::vector<Mark> found;
  if (!mayHoldControlCharacters(text)) return found;
  Mark at{1, 1};
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++at.line;
      at.column = 1;
      continue;
    }
    bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
              static_cast<unsigned char>(text[i + 1]) <= 0x9F &&
              static_cast<unsigned char>(text[i + 1]) != 0x85;
    if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F || c1) {
      if (found.empty() || found.back().line != at.line) found.push_back(at);  // one a line
      text[i] = ' ';
      if (c1) text[++i] = ' ';
    }
    if ((c & 0xC0) != 0x80) ++at.column;
  }
  return found;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int hex4(std::string_view text, std::size_t at) {
  if (at + 4 > text.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + 4; ++i) {
    int h = hexValue(text[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

}  // namespace

// JSON writes characters outside the Basic Multilingual Plane as a surrogate pair
// (`\uD83D\uDC4B`), which YAML, and so libyaml, rejects. Inside JSON strings each pair becomes
// the equivalent `\U0001F44B`, two characters shorter; positions after it on the line are
// shifted back by `columnFixes`.
void rewriteSurrogatePairs(std::string& text, std::vector<ColumnFix>& columnFixes) {
  if (text.find("\\u") == std::string::npos) return;
  std::string out;
  out.reserve(text.size());
  bool inString = false;
  std::uint32_t line = 1, column = 1;  // of `out`
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString && c == '\\' && i + 1 < text.size()) {
      int high = text[i + 1] == 'u' ? hex4(text, i + 2) : -1;
      int low = high >= 0xD800 && high <= 0xDBFF && i + 7 < text.size() && text[i + 6] == '\\' &&
                        text[i + 7] == 'u'
                    ? hex4(text, i + 8)
                    : -1;
      if (low >= 0xDC00 && low <= 0xDFFF) {
        unsigned code = 0x10000u + ((static_cast<unsigned>(high) - 0xD800u) << 10) +
                        (static_cast<unsigned>(low) - 0xDC00u);
        char escaped[11];
        std::snprintf(escaped, sizeof escaped, "\\U%08X", code);
        out.append(escaped, 10);
        column += 10;
        columnFixes.push_back({line, column, 2});
        i += 11;
        continue;
      }
      out += c;
      out += text[++i];
      column += 2;
      continue;
    }
    if (c == '"') inString = !inString;
    out += c;
    if (c == '\n') {
      ++line;
      column = 1;
      inString = false;  // JSON strings never span lines; do not let a broken one spread
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++column;
    }
  }
  text = std::move(out);
}

namespace {

std::uint32_t countLines(std::string_view text, std::size_t end) {
  return static_cast<std::uint32_t>(std::count(text.begin(), text.begin() + end, '\n'));
}

class Parser {
 public:
  explicit Parser(yaml_parser_t* p) : p_(p) {}
  ~Parser() { yaml_parser_delete(p_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

 private:
  yaml_parser_t* p_;
};

class Event {
 public:
  Event() = default;
  ~Event() {
    if (filled_) yaml_event_delete(&event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  yaml_event_t* fill() {
    if (filled_) yaml_event_delete(&event_);
    filled_ = true;
    return &event_;
  }
  const yaml_event_t& operator*() const { return event_; }
  const yaml_event_t* operator->() const { return &event_; }
  void release() {
    if (filled_) yaml_event_delete(&event_);
    filled_ = false;
  }

 private:
  yaml_event_t event_{};
  bool filled_ = false;
};

// A growable array of trivially copyable values whose append is one compare and one store:
// the builder appends to its stacks once for every event of every file, and std::vector's
// append was not inlined there.
template <class T>
class PodStack {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  PodStack() = default;
  PodStack(const PodStack&) = delete;
  PodStack& operator=(const PodStack&) = delete;

  [[gnu::always_inline]] void push(T v) {
    if (size_ == capacity_) [[unlikely]]
      grow(size_ + 1);
    data_[size_++] = v;
  }
  void append(const T* first, const T* last) {
    const auto n = static_cast<std::size_t>(last - first);
    if (size_ + n > capacity_) grow(size_ + n);
    if (n != 0) std::memcpy(data_.get() + size_, first, n * sizeof(T));
    size_ += n;
  }
  void shrink(std::size_t n) { size_ = std::min(size_, n); }
  void clear() { size_ = 0; }
  void pop() { --size_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  const T* begin() const { return data_.get(); }
  const T* end() const { return data_.get() + size_; }

 private:
  [[gnu::noinline]] void grow(std::size_t needed) {
    const std::size_t capacity = std::max<std::size_t>({needed, capacity_ * 2, 64});
    auto bigger = std::make_unique_for_overwrite<T[]>(capacity);
    if (size_ != 0) std::memcpy(bigger.get(), data_.get(), size_ * sizeof(T));
    data_ = std::move(bigger);
    capacity_ = capacity;
  }

  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace

// Turns libyaml events into Tree nodes, one document at a time; a document that breaks a
// limit is dropped whole and reported.
class TreeBuilder {
 public:
  TreeBuilder(Tree& tree, const ParseLimits& limits, bool asciiOnly,
              std::vector<ParseProblem>& problems, std::vector<ColumnFix> columnFixes)
      : tree_(tree),
        limits_(limits),
        asciiOnly_(asciiOnly),
        problems_(problems),
        columnFixes_(std::move(columnFixes)) {}

  void run();
  // Drops the documents that hold any of these positions (characters YAML forbids).
  void dropDocumentsAt(const std::vector<Mark>& forbidden);

 private:
  struct Open {
    std::uint32_t node;
    std::size_t firstPending;
  };

  // One libyaml parser pass over text[base..]; returns the byte offset where it failed, or
  // npos when it reached the end of the stream.
  std::size_t pass(std::size_t base);
  void handle(const yaml_event_t& e);
  void addScalar(const yaml_event_t& e);
  void openContainer(const yaml_event_t& e);
  void addAlias(const yaml_event_t& e);
  Mark mark(const yaml_mark_t& m) const {
    Mark out{static_cast<std::uint32_t>(m.line) + lineOffset_ + 1,
             static_cast<std::uint32_t>(m.column) + 1};
    if (hasColumnFixes_) [[unlikely]]
      out.column += columnShift(out);
    return out;
  }
  // How far the rewrite of surrogate pairs moved the text at `at` back on its line.
  std::uint32_t columnShift(Mark at) const {
    auto it =
        std::lower_bound(columnFixes_.begin(), columnFixes_.end(), at.line,
                         [](const ColumnFix& f, std::uint32_t line) { return f.line < line; });
    std::uint32_t shift = 0;
    for (; it != columnFixes_.end() && it->line == at.line && it->column <= at.column; ++it)
      shift += it->delta;
    return shift;
  }
  std::size_t byteOffset(const yaml_mark_t& m) {
    std::string_view text = tree_.text().substr(base_);
    std::size_t offset = asciiOnly_ ? m.index : byteOffsetOfChar(text, m.index);
    return base_ + std::min(offset, text.size());
  }
  // Byte offset of the `chars`-th character of UTF-8 `text` (libyaml counts characters).
  std::size_t byteOffsetOfChar(std::string_view text, std::size_t chars);
  [[gnu::always_inline]] std::uint32_t appendNode(const Node& n);
  std::uint64_t weight(std::uint32_t node);
  [[gnu::always_inline]] void registerAnchor(const yaml_char_t* anchor, std::uint32_t node);
  [[gnu::always_inline]] void addChild(std::uint32_t node);
  void closeContainer(const yaml_event_t& e);
  // Reports keys repeated in the mapping whose entries start at pending_[first]; true when
  // one of its keys is a merge key (`<<`).
  bool reportDuplicateKeys(std::size_t first);
  // Rewrites a mapping with merge keys; false when its document failed.
  bool applyMergeKeys(std::size_t first);
  void startDocument(const yaml_event_t& e);
  void endDocument(const yaml_event_t& e);
  bool isMergeKey(const Node& k) const {
    return k.kind == NodeKind::Scalar && k.style == ScalarStyle::Plain && scalarText(k) == "<<";
  }
  bool isMergeKey(std::uint32_t node) const { return isMergeKey(tree_.nodes_[node]); }
  // Whether the next child is the value of a `<<` key, or an item of a list that is.
  bool isMergeValue() const {
    auto valueOfMergeKey = [&](std::size_t level) {
      const Open& open = stack_[level];
      std::size_t written =
          (level + 1 < stack_.size() ? stack_[level + 1].firstPending : pending_.size()) -
          open.firstPending;
      if (level + 1 < stack_.size()) --written;  // the open child itself is pending already
      return tree_.nodes_[open.node].kind == NodeKind::Mapping && written % 2 == 1 &&
             isMergeKey(pending_[open.firstPending + written - 1]);
    };
    if (stack_.empty()) return false;
    if (valueOfMergeKey(stack_.size() - 1)) return true;
    return stack_.size() >= 2 && tree_.nodes_[stack_.back().node].kind == NodeKind::Sequence &&
           valueOfMergeKey(stack_.size() - 2);
  }
  void failDocument(ProblemKind kind, Mark start, Mark end, std::string message);
  [[gnu::always_inline]] void setScalarValue(Node& n, const yaml_event_t& e);
  std::string_view scalarText(const Node& n) const { return tree_.value(n); }

  Tree& tree_;
  const ParseLimits& limits_;
  const bool asciiOnly_;
  std::vector<ParseProblem>& problems_;

  std::size_t base_ = 0;          // byte offset of the current pass in the text
  std::size_t resumeAfter_ = 0;   // the next pass starts after this byte
  std::uint32_t lineOffset_ = 0;  // lines before the current pass
  PodStack<Open> stack_;
  PodStack<std::uint32_t> pending_;  // children of open containers
  // Expanded sizes of the containers aliases have needed so far in this document.
  std::unordered_map<std::uint32_t, std::uint64_t> weights_;
  std::unordered_map<std::string, std::uint32_t> anchors_;
  // The character index (from base_) and byte offset byteOffsetOfChar reached last: libyaml's
  // positions grow through a pass, so converting them from the start each time would make
  // files that are not ASCII quadratic.
  std::size_t cursorChars_ = 0;
  std::size_t cursorBytes_ = 0;
  const std::vector<ColumnFix> columnFixes_;      // sorted by line, then column
  const bool hasColumnFixes_ = !columnFixes_.empty();  // asked for every mark
  std::size_t abortAt_ = std::string_view::npos;  // end the pass here (a limit was hit)
  std::vector<std::pair<std::uint32_t, std::uint32_t>> documentLines_;  // kept: first, last

  bool inDocument_ = false;
  bool documentFailed_ = false;
  std::uint32_t documentRoot_ = 0;
  bool documentHasRoot_ = false;
  Mark documentStart_;
  std::size_t documentStartOffset_ = 0;
  std::uint64_t aliasExpansion_ = 0;  // nodes the document's aliases stand for
  std::size_t documentFirstNode_ = 0;
  std::size_t documentFirstChild_ = 0;
};

void TreeBuilder::run() {
  std::string_view text = tree_.text();
  std::size_t base = 0;
  while (true) {
    std::size_t failedAt = pass(base);
    if (failedAt == std::string_view::npos) return;
    std::size_t next = nextDocumentStart(text, failedAt, resumeAfter_);
    if (next == std::string_view::npos) return;
    base = next;
  }
}

std::size_t TreeBuilder::pass(std::size_t base) {
  std::string_view text = tree_.text().substr(base);
  base_ = base;
  abortAt_ = std::string_view::npos;
  lineOffset_ = countLines(tree_.text(), base);
  cursorChars_ = cursorBytes_ = 0;
  stack_.clear();
  pending_.clear();
  inDocument_ = false;

  yaml_parser_t raw;
  if (!yaml_parser_initialize(&raw)) throw std::bad_alloc();
  Parser guard(&raw);
  if (tree_.nodes_.capacity() == 0) {
    // About one node every 6 or 7 bytes in Kubernetes manifests: reserving for one every 4
    // spares copying the largest vectors of the load as they grow, and pages never touched
    // cost nothing. After libyaml's buffers, so that these take the memory the previous
    // file's parser freed (already mapped) rather than these vectors, which keep theirs.
    const std::size_t expected = tree_.text().size() / 4 + 16;
    tree_.nodes_.reserve(expected);
    tree_.children_.reserve(expected);
  }
  yaml_parser_set_input_string(&raw, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  Event event;
  while (true) {
    if (!yaml_parser_parse(&raw, event.fill())) {
      event.release();
      std::string message = raw.problem ? raw.problem : "invalid YAML";
      if (raw.context) message = std::string(raw.context) + ": " + message;
      yaml_mark_t problem = raw.problem_mark;
      if (raw.error == YAML_READER_ERROR) {
        // The reader reports a byte offset only.
        std::size_t bytes = std::min(raw.problem_offset, text.size());
        problem.line = std::count(text.begin(), text.begin() + bytes, '\n');
        std::size_t lineStart = text.rfind('\n', bytes == 0 ? 0 : bytes - 1);
        lineStart = bytes == 0 || lineStart == std::string_view::npos ? 0 : lineStart + 1;
        problem.column = bytes - lineStart;
        problem.index = asciiOnly_ ? bytes : 0;
        if (raw.problem_value != -1)
          message += " (byte 0x" + [&] {
            char hex[9];
            std::snprintf(hex, sizeof hex, "%02X", raw.problem_value);
            return std::string(hex);
          }() + ")";
      }
      Mark at = mark(problem);
      // Resume after the failed document's own start, or the same document is read again.
      std::size_t resumeAfter = inDocument_ ? std::max(base, documentStartOffset_) : base;
      if (inDocument_ && !documentFailed_) {
        failDocument(ProblemKind::Syntax, at, at, std::move(message));
      } else if (!documentFailed_) {
        problems_.push_back({ProblemKind::Syntax, at, at, std::move(message)});
      }
      inDocument_ = false;
      documentFailed_ = false;
      resumeAfter_ = resumeAfter;
      return raw.error == YAML_READER_ERROR ? base + std::min(raw.problem_offset, text.size())
                                            : byteOffset(problem);
    }
    if (event->type == YAML_STREAM_END_EVENT) return std::string_view::npos;
    handle(*event);
    if (abortAt_ != std::string_view::npos) {
      resumeAfter_ = std::max(base, documentStartOffset_);
      inDocument_ = false;
      documentFailed_ = false;
      return abortAt_;
    }
  }
}

inline std::uint32_t TreeBuilder::appendNode(const Node& n) {
  if (tree_.nodes_.size() >= 0xFFFFFFF0u) [[unlikely]]
    throw std::length_error("too many YAML nodes");
  tree_.nodes_.push_back(n);
  return static_cast<std::uint32_t>(tree_.nodes_.size() - 1);
}

inline void TreeBuilder::registerAnchor(const yaml_char_t* anchor, std::uint32_t node) {
  if (anchor) anchors_[reinterpret_cast<const char*>(anchor)] = node;
}

inline void TreeBuilder::addChild(std::uint32_t node) {
  if (stack_.empty()) {
    documentRoot_ = node;
    documentHasRoot_ = true;
  } else {
    pending_.push(node);
  }
}

// libyaml hands out a copy of every scalar; the node points into the file instead when the
// bytes there are the value (most scalars: plain or quoted without escapes, on one line).
inline void TreeBuilder::setScalarValue(Node& n, const yaml_event_t& e) {
  std::string_view value(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
  std::string_view text = tree_.text();
  std::size_t at = base_ + (asciiOnly_ ? e.start_mark.index
                                       : byteOffsetOfChar(text.substr(base_), e.start_mark.index));
  if (e.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
      e.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
    ++at;
  if (at + value.size() <= text.size() &&
      detail::sameShortBytes(text.data() + at, value.data(), value.size())) {
    n.first = static_cast<std::uint32_t>(at);
    n.count = static_cast<std::uint32_t>(value.size());
    return;
  }
  n.first = static_cast<std::uint32_t>(tree_.owned_.size());
  n.count = static_cast<std::uint32_t>(value.size());
  n.flags |= Node::kOwned;
  tree_.owned_.append(value);
}

void TreeBuilder::handle(const yaml_event_t& e) {
  // One switch, the common events first and each in a few stores: every event of every file
  // comes here, and the bare libyaml parse this is measured against does nothing with them.
  switch (e.type) {
    case YAML_SCALAR_EVENT:
      if (!documentFailed_) addScalar(e);
      return;
    case YAML_MAPPING_START_EVENT:
    case YAML_SEQUENCE_START_EVENT:
      if (!documentFailed_) openContainer(e);
      return;
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
      if (!documentFailed_) closeContainer(e);
      return;
    case YAML_ALIAS_EVENT:
      if (!documentFailed_) addAlias(e);
      return;
    case YAML_DOCUMENT_START_EVENT:
      startDocument(e);
      return;
    case YAML_DOCUMENT_END_EVENT:
      endDocument(e);
      return;
    default:
      return;
  }
}

void TreeBuilder::addScalar(const yaml_event_t& e) {
  Node n;
  n.kind = NodeKind::Scalar;
  n.start = mark(e.start_mark);
  n.end = mark(e.end_mark);
  switch (e.data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
      n.style = ScalarStyle::Plain;
      break;
    case YAML_LITERAL_SCALAR_STYLE:
    case YAML_FOLDED_SCALAR_STYLE:
      n.style = ScalarStyle::Block;
      break;
    default:
      n.style = ScalarStyle::Quoted;
  }
  if (e.data.scalar.tag &&
      std::strcmp(reinterpret_cast<const char*>(e.data.scalar.tag), YAML_STR_TAG) == 0)
    n.style = ScalarStyle::Quoted;
  setScalarValue(n, e);
  const std::uint32_t node = appendNode(n);
  registerAnchor(e.data.scalar.anchor, node);
  addChild(node);
}

void TreeBuilder::openContainer(const yaml_event_t& e) {
  if (stack_.size() >= limits_.maxDepth) [[unlikely]] {
    Mark at = mark(e.start_mark);
    failDocument(ProblemKind::Depth, at, at,
                 "nesting is deeper than " + std::to_string(limits_.maxDepth) + " levels");
    // libyaml slows down with depth (quadratically in flow style): stop reading this
    // document now and resume at the next one.
    abortAt_ = byteOffset(e.start_mark);
    return;
  }
  const bool isMap = e.type == YAML_MAPPING_START_EVENT;
  Node n;
  n.kind = isMap ? NodeKind::Mapping : NodeKind::Sequence;
  n.start = mark(e.start_mark);
  n.end = mark(e.end_mark);
  n.flags = Node::kOpen;
  const std::uint32_t node = appendNode(n);
  registerAnchor(isMap ? e.data.mapping_start.anchor : e.data.sequence_start.anchor, node);
  addChild(node);
  stack_.push({node, pending_.size()});
}

void TreeBuilder::addAlias(const yaml_event_t& e) {
  Mark start = mark(e.start_mark);
  Mark end = mark(e.end_mark);
  const char* name = reinterpret_cast<const char*>(e.data.alias.anchor);
  auto it = anchors_.find(name);
  if (it == anchors_.end()) {
    failDocument(ProblemKind::Syntax, start, end,
                 std::string("alias *") + name + " refers to no anchor before it");
    return;
  }
  if (tree_.nodes_[it->second].flags & Node::kOpen) {
    failDocument(ProblemKind::AliasExpansion, start, end,
                 std::string("alias *") + name + " refers to a node that contains it");
    return;
  }
  // A merge source is not expanded where it stands: the merge copies its entries, and
  // counts them.
  if (!isMergeValue()) aliasExpansion_ += weight(it->second);
  if (aliasExpansion_ > limits_.maxAliasExpansion) {
    failDocument(ProblemKind::AliasExpansion, start, end,
                 std::string("alias *") + name + " takes this document's aliases past " +
                     std::to_string(limits_.maxAliasExpansion) + " nodes");
    return;
  }
  addChild(it->second);
}

std::size_t TreeBuilder::byteOffsetOfChar(std::string_view text, std::size_t chars) {
  if (chars < cursorChars_) cursorChars_ = cursorBytes_ = 0;
  std::size_t i = cursorBytes_;
  for (std::size_t n = cursorChars_; n < chars && i < text.size(); ++n) {
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
  }
  // Past the end, how many characters were asked for is not the position reached.
  if (i < text.size()) {
    cursorChars_ = chars;
    cursorBytes_ = i;
  }
  return i;
}

// How many nodes `node` stands for once aliases are expanded (saturating): what an alias to
// it adds to the document. Only aliases ask, so only their targets (and the containers in
// them) are counted, once each.
std::uint64_t TreeBuilder::weight(std::uint32_t node) {
  const Node& n = tree_.nodes_[node];
  if (n.kind == NodeKind::Scalar) return 1;
  if (auto it = weights_.find(node); it != weights_.end()) return it->second;
  std::uint64_t total = 1;
  for (std::uint32_t c = 0; c < n.count; ++c)
    total = addSaturating(total, weight(tree_.children_[n.first + c]));
  weights_.emplace(node, total);
  return total;
}

void TreeBuilder::closeContainer(const yaml_event_t& e) {
  if (stack_.empty()) return;
  Open open = stack_.back();
  stack_.pop();
  Node& node = tree_.nodes_[open.node];
  node.end = mark(e.end_mark);
  node.flags &= static_cast<std::uint8_t>(~Node::kOpen);

  if (node.kind == NodeKind::Mapping) {
    // Merge keys are rare: only a mapping that has one is rewritten.
    if (reportDuplicateKeys(open.firstPending) && !applyMergeKeys(open.firstPending)) return;
  }
  Node& n = tree_.nodes_[open.node];  // applyMergeKeys may not reallocate nodes, but be safe
  n.first = static_cast<std::uint32_t>(tree_.children_.size());
  n.count = static_cast<std::uint32_t>(pending_.size() - open.firstPending);
  tree_.children_.insert(tree_.children_.end(), pending_.begin() + open.firstPending,
                         pending_.end());
  pending_.shrink(open.firstPending);
}

bool TreeBuilder::reportDuplicateKeys(std::size_t first) {
  const std::size_t pairs = (pending_.size() - first) / 2;
  // The keys' texts, read once. A merge key (`<<`) or a key that is not a scalar is left out
  // with a null pointer: a scalar's text points into the tree's buffers, never at null. A
  // plain pointer and size, so that the array for a small mapping is not initialised first:
  // every mapping of every file comes here.
  struct Key {
    const char* data;
    std::size_t size;
    bool operator==(const Key& o) const {
      return size == o.size &&
             (size == 0 || (data[0] == o.data[0] && detail::sameShortBytes(data, o.data, size)));
    }
  };
  constexpr std::size_t kSmall = 16;
  std::array<Key, kSmall> small;
  std::vector<Key> large;
  if (pairs > kSmall) large.resize(pairs);
  Key* keys = pairs > kSmall ? large.data() : small.data();
  bool hasMerge = false;
  // One bit for each key's length and end bytes: keys that are all different (nearly every
  // mapping) almost always set different bits, and then none is compared with another.
  std::uint64_t seen = 0;
  bool maybeRepeated = false;
  for (std::size_t i = 0; i < pairs; ++i) {
    const Node& k = tree_.nodes_[pending_[first + i * 2]];
    keys[i] = {nullptr, 0};
    if (isMergeKey(k)) {
      hasMerge = true;
      continue;
    }
    if (k.kind != NodeKind::Scalar) continue;
    const std::string_view text = scalarText(k);
    keys[i] = {text.data(), text.size()};
    const unsigned ends = text.empty() ? 0u
                                       : static_cast<unsigned char>(text.front()) * 3u +
                                             static_cast<unsigned char>(text.back());
    const std::uint64_t bit = std::uint64_t{1} << ((ends + text.size()) & 63u);
    maybeRepeated |= (seen & bit) != 0;
    seen |= bit;
  }
  if (!maybeRepeated) return hasMerge;
  auto report = [&](std::size_t pair) {
    const Node& dup = tree_.nodes_[pending_[first + pair * 2]];
    problems_.push_back(
        {ProblemKind::DuplicateKey, dup.start, dup.end,
         "key \"" + std::string(scalarText(dup)) + "\" is repeated in this mapping"});
  };
  if (pairs <= kSmall) {
    for (std::size_t i = 1; i < pairs; ++i) {
      if (keys[i].data == nullptr) continue;
      for (std::size_t j = 0; j < i; ++j) {
        if (keys[j].data != nullptr && keys[j] == keys[i]) {
          report(i);
          break;
        }
      }
    }
    return hasMerge;
  }
  std::vector<std::pair<std::string_view, std::size_t>> sorted;
  sorted.reserve(pairs);
  for (std::size_t i = 0; i < pairs; ++i)
    if (keys[i].data != nullptr)
      sorted.emplace_back(std::string_view(keys[i].data, keys[i].size), i);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> repeated;
  for (std::size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i].first == sorted[i - 1].first) repeated.push_back(sorted[i].second);
  std::sort(repeated.begin(), repeated.end());
  for (std::size_t pair : repeated) report(pair);
  return hasMerge;
}

// YAML 1.1 merge keys (`<<: *defaults`), which Kubernetes' YAML reader honours: keys written
// in the mapping win over merged ones, and earlier merge sources over later ones.
bool TreeBuilder::applyMergeKeys(std::size_t first) {
  const std::size_t pairs = (pending_.size() - first) / 2;
  std::vector<std::uint32_t> merged;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sources;  // mapping, its `<<` key
  for (std::size_t i = 0; i < pairs; ++i) {
    std::uint32_t key = pending_[first + i * 2];
    std::uint32_t value = pending_[first + i * 2 + 1];
    if (isMergeKey(key)) {
      const Node& v = tree_.nodes_[value];
      if (v.kind == NodeKind::Mapping) {
        sources.emplace_back(value, key);
      } else if (v.kind == NodeKind::Sequence) {
        for (std::uint32_t c = 0; c < v.count; ++c)
          sources.emplace_back(tree_.children_[v.first + c], key);
      }
      continue;
    }
    merged.push_back(key);
    merged.push_back(value);
  }
  auto present = [&](std::string_view name) {
    for (std::size_t i = 0; i < merged.size(); i += 2) {
      const Node& k = tree_.nodes_[merged[i]];
      if (k.kind == NodeKind::Scalar && scalarText(k) == name) return true;
    }
    return false;
  };
  for (auto [source, mergeKey] : sources) {
    const Node& s = tree_.nodes_[source];
    if (s.kind != NodeKind::Mapping) continue;
    aliasExpansion_ += s.count / 2;
    if (aliasExpansion_ > limits_.maxAliasExpansion) {
      const Node& k = tree_.nodes_[mergeKey];
      failDocument(ProblemKind::AliasExpansion, k.start, k.end,
                   "this merge key takes the entries aliases and merge keys add past " +
                       std::to_string(limits_.maxAliasExpansion) + " nodes");
      return false;
    }
    for (std::uint32_t c = 0; c + 1 < s.count; c += 2) {
      std::uint32_t key = tree_.children_[s.first + c];
      const Node& k = tree_.nodes_[key];
      if (k.kind == NodeKind::Scalar && present(scalarText(k))) continue;
      merged.push_back(key);
      merged.push_back(tree_.children_[s.first + c + 1]);
    }
  }
  pending_.shrink(first);
  pending_.append(merged.data(), merged.data() + merged.size());
  return true;
}

void TreeBuilder::startDocument(const yaml_event_t& e) {
  inDocument_ = true;
  documentFailed_ = false;
  documentHasRoot_ = false;
  aliasExpansion_ = 0;
  anchors_.clear();
  weights_.clear();
  stack_.clear();
  pending_.clear();
  documentStart_ = mark(e.start_mark);
  documentStartOffset_ = byteOffset(e.start_mark);
  documentFirstNode_ = tree_.nodes_.size();
  documentFirstChild_ = tree_.children_.size();
}

void TreeBuilder::endDocument(const yaml_event_t& e) {
  inDocument_ = false;
  if (documentFailed_) {
    documentFailed_ = false;
    return;
  }
  if (!documentHasRoot_) return;
  tree_.documents_.push_back({documentRoot_, documentStart_});
  documentLines_.emplace_back(documentStart_.line, mark(e.end_mark).line);
}

void TreeBuilder::dropDocumentsAt(const std::vector<Mark>& forbidden) {
  std::vector<Document> kept;
  for (std::size_t d = 0; d < tree_.documents_.size(); ++d) {
    // Not a structured binding: clang before 16 cannot capture one in a lambda.
    const auto first = documentLines_[d].first;
    const auto last = documentLines_[d].second;
    bool holds = std::any_of(forbidden.begin(), forbidden.end(),
                             [&](const Mark& m) { return m.line >= first && m.line <= last; });
    if (!holds) kept.push_back(tree_.documents_[d]);
  }
  tree_.documents_ = std::move(kept);
}

void TreeBuilder::failDocument(ProblemKind kind, Mark start, Mark end, std::string message) {
  problems_.push_back({kind, start, end, std::move(message)});
  documentFailed_ = true;
  tree_.nodes_.resize(documentFirstNode_);
  tree_.children_.resize(documentFirstChild_);
  weights_.clear();
  stack_.clear();
  pending_.clear();
}

ParseResult parse(std::string text, const ParseLimits& limits, bool asciiOnly, bool json) {
  ParseResult result;
  std::vector<Mark> forbidden = blankControlCharacters(text);
  std::vector<ColumnFix> columnFixes;
  if (json) rewriteSurrogatePairs(text, columnFixes);
  // Nodes hold 32-bit offsets into the text.
  if (text.size() >= 0xFFFFFFF0u) throw std::length_error("a YAML text of 4 GB or more");
  result.tree = std::make_unique<Tree>(std::move(text));
  TreeBuilder builder(*result.tree, limits, asciiOnly, result.problems, std::move(columnFixes));
  builder.run();
  if (!forbidden.empty()) {
    builder.dropDocumentsAt(forbidden);
    for (const Mark& at : forbidden)
      result.problems.push_back(
          {ProblemKind::Syntax, at, at, "a control character YAML does not allow in a document"});
    std::stable_sort(result.problems.begin(), result.problems.end(),
                     [](const ParseProblem& a, const ParseProblem& b) {
                       return a.start.line != b.start.line ? a.start.line < b.start.line
                                                           : a.start.column < b.start.column;
                     });
  }
  return result;
}

}  // namespace pg::yaml
