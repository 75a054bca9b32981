#include "rl/query/query_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>
#include <variant>

#include "fdb/tuple_text.h"
#include "rl/query/query_validation.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

// Parentheses, NOTs and groups nested deeper than this are refused, so that the recursion is
// bounded whatever the input.
constexpr size_t kMaxDepth = 200;
constexpr size_t kMaxExcerpt = 30;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c); }

bool equalsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

// The words of the grammar, in any case; a field with such a name is written `name`.
constexpr std::array<std::string_view, 9> kKeywords = {"AND",  "OR",     "NOT",  "IN", "IS",
                                                       "NULL", "STARTS", "WITH", "ANY"};

bool isKeyword(std::string_view word) {
  return std::any_of(kKeywords.begin(), kKeywords.end(),
                     [&](std::string_view k) { return equalsIgnoringCase(word, k); });
}

// One field of a path: its name, and whether the path goes into any one of its elements
// (ANY(...), a repeated field).
struct Step {
  std::string name;
  bool anyElement = false;
};

// A comparison as written: where it is in the text, and the component it makes on its own
// (inside the fields of the groups around it), to check it against the metadata alone.
struct Leaf {
  QueryComponent standalone;
  size_t start = 0;
  size_t end = 0;
};

// `steps` leading to `comparison` (on the last step's field), or to `inner` (a condition
// inside the last step's message).
QueryComponent onPath(const std::vector<Step>& steps, const Comparison& comparison) {
  QueryComponent component =
      Query::Field(steps.back().name, steps.back().anyElement).withComparison(comparison);
  for (size_t i = steps.size() - 1; i-- > 0;) {
    component = Query::Field(steps[i].name, steps[i].anyElement).matches(component);
  }
  return component;
}

QueryComponent onPath(const std::vector<Step>& steps, QueryComponent inner) {
  for (size_t i = steps.size(); i-- > 0;) {
    inner = Query::Field(steps[i].name, steps[i].anyElement).matches(inner);
  }
  return inner;
}

std::string pathText(const std::vector<Step>& steps) {
  std::string out;
  for (const Step& step : steps) {
    if (!out.empty()) out += '.';
    out += step.anyElement ? "ANY(" + step.name + ")" : step.name;
  }
  return out;
}

// A recursive-descent parser over the grammar of docs/query.md ("Query text"). Every read
// is guarded by atEnd(); every error is a QueryTextException at the offset of what is wrong.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  QueryComponent parseFilter() {
    skipSpace();
    if (atEnd()) fail("the query is empty: write a condition, e.g. price >= 10");
    QueryComponent filter = parseOr(0);
    skipSpace();
    if (!atEnd()) {
      fail(fmt::format("expected AND, OR or the end of the query, found {}", describeHere()));
    }
    return filter;
  }

  KeyExpression parseSort() {
    std::vector<KeyExpression> columns;
    while (true) {
      skipSpace();
      if (atEnd()) fail("expected a field to sort by, found the end of the text");
      if (acceptVersionCall()) {
        columns.push_back(version());
        skipSpace();
        if (atEnd()) break;
        if (!accept(','))
          fail(fmt::format("expected ',' or the end of the sort, found {}", describeHere()));
        continue;
      }
      std::vector<Step> steps;
      do {
        skipSpace();
        steps.push_back(Step{parseName("a field to sort by")});
        skipSpace();
      } while (accept('.'));
      KeyExpression column = field(steps.back().name);
      for (size_t i = steps.size() - 1; i-- > 0;) column = field(steps[i].name).nest(column);
      columns.push_back(std::move(column));
      if (atEnd()) break;
      if (!accept(','))
        fail(fmt::format("expected ',' or the end of the sort, found {}", describeHere()));
    }
    return columns.size() == 1 ? columns[0] : concatAll(columns);
  }

  const std::vector<Leaf>& leaves() const { return leaves_; }

 private:
  [[noreturn]] void failAt(size_t position, const std::string& message, size_t length = 0) const {
    throw QueryTextException(message, position, length);
  }
  [[noreturn]] void fail(const std::string& message) const { failAt(pos_, message); }

  bool atEnd() const { return pos_ >= text_.size(); }
  bool lookingAt(char c) const { return !atEnd() && text_[pos_] == c; }
  void skipSpace() {
    while (!atEnd() && isSpace(text_[pos_])) ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (!lookingAt(c)) return false;
    ++pos_;
    return true;
  }

  // The word at the current position (letters, digits, '_'), or empty.
  std::string_view wordHere() const {
    size_t end = pos_;
    if (end < text_.size() && isNameStart(text_[end])) {
      while (end < text_.size() && isNameChar(text_[end])) ++end;
    }
    return text_.substr(pos_, end - pos_);
  }

  // Consumes version() (any case, spaces allowed inside): the record's version, not a field
  // (a field named version is read without the parentheses).
  bool acceptVersionCall() {
    skipSpace();
    if (!equalsIgnoringCase(wordHere(), "version")) return false;
    size_t i = pos_ + 7;
    while (i < text_.size() && isSpace(text_[i])) ++i;
    if (i >= text_.size() || text_[i] != '(') return false;
    ++i;
    while (i < text_.size() && isSpace(text_[i])) ++i;
    if (i >= text_.size() || text_[i] != ')') return false;
    pos_ = i + 1;
    return true;
  }

  // Consumes `keyword` (any case) when it is the next word.
  bool acceptKeyword(std::string_view keyword) {
    skipSpace();
    if (!equalsIgnoringCase(wordHere(), keyword)) return false;
    pos_ += keyword.size();
    return true;
  }

  // What is at the current position, for messages.
  std::string describeHere() const {
    if (atEnd()) return "the end of the query";
    const std::string_view word = wordHere();
    if (!word.empty()) return isKeyword(word) ? std::string(word) : quote(word);
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c > 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  static std::string quote(std::string_view excerpt) {
    if (excerpt.size() <= kMaxExcerpt) return fmt::format("'{}'", excerpt);
    return fmt::format("'{}...'", excerpt.substr(0, kMaxExcerpt));
  }

  void checkDepth(size_t depth) const {
    if (depth > kMaxDepth) fail(fmt::format("the query nests more than {} deep", kMaxDepth));
  }

  // AND and OR chains are flattened: (a AND b) AND c is And([a, b, c]).
  static void appendFlattened(std::vector<QueryComponent>& out, QueryComponent child,
                              QueryComponent::Kind kind) {
    if (child.kind() == kind) {
      for (const QueryComponent& grandchild : child.children()) out.push_back(grandchild);
    } else {
      out.push_back(std::move(child));
    }
  }

  QueryComponent parseOr(size_t depth) {
    std::vector<QueryComponent> children;
    appendFlattened(children, parseAnd(depth), QueryComponent::Kind::kOr);
    while (acceptKeyword("OR")) {
      appendFlattened(children, parseAnd(depth), QueryComponent::Kind::kOr);
    }
    return children.size() == 1 ? children[0] : Query::anyOf(std::move(children));
  }

  QueryComponent parseAnd(size_t depth) {
    std::vector<QueryComponent> children;
    appendFlattened(children, parseUnary(depth), QueryComponent::Kind::kAnd);
    while (acceptKeyword("AND")) {
      appendFlattened(children, parseUnary(depth), QueryComponent::Kind::kAnd);
    }
    return children.size() == 1 ? children[0] : Query::allOf(std::move(children));
  }

  QueryComponent parseUnary(size_t depth) {
    skipSpace();
    checkDepth(depth);
    if (acceptKeyword("NOT")) return Query::negate(parseUnary(depth + 1));
    if (accept('(')) {
      QueryComponent inner = parseOr(depth + 1);
      if (!accept(')')) fail(fmt::format("expected ')' or AND, OR, found {}", describeHere()));
      return inner;
    }
    return parseCondition(depth);
  }

  // A field name: letters, digits and '_' not starting with a digit, or anything but a
  // backquote between backquotes.
  std::string parseName(std::string_view what) {
    skipSpace();
    if (lookingAt('`')) {
      const size_t open = pos_;
      const size_t close = text_.find('`', open + 1);
      if (close == std::string_view::npos) failAt(open, "unterminated `name`");
      if (close == open + 1) failAt(open, "an empty `` is not a field name");
      pos_ = close + 1;
      return std::string(text_.substr(open + 1, close - open - 1));
    }
    const std::string_view word = wordHere();
    if (word.empty()) fail(fmt::format("expected {}, found {}", what, describeHere()));
    if (isKeyword(word)) {
      fail(fmt::format("expected {}, found {} (a field of that name is written `{}`)", what, word,
                       word));
    }
    pos_ += word.size();
    return std::string(word);
  }

  // One step of a path: a name, or ANY(a.b.c): the steps a, b, and any element of c.
  void parseStep(std::vector<Step>& steps) {
    skipSpace();
    if (!equalsIgnoringCase(wordHere(), "ANY")) {
      steps.push_back(Step{parseName("a field name")});
      return;
    }
    pos_ += 3;
    if (!accept('(')) {
      fail(
          fmt::format("expected '(' after ANY, as in ANY(tags) = \"x\"; found {}", describeHere()));
    }
    do {
      steps.push_back(Step{parseName("the repeated field in ANY(...)")});
    } while (accept('.'));
    if (!accept(')')) fail(fmt::format("expected ')' to close ANY(, found {}", describeHere()));
    steps.back().anyElement = true;
  }

  // After a '.': whether a group "(...)" follows.
  bool groupFollows() const {
    size_t i = pos_;
    while (i < text_.size() && isSpace(text_[i])) ++i;
    return i < text_.size() && text_[i] == '(';
  }

  // path test, or path.(filter): a condition inside the message the path leads to.
  QueryComponent parseCondition(size_t depth) {
    skipSpace();
    if (atEnd()) fail("expected a condition, found the end of the query");
    const std::string_view word = wordHere();
    if (word.empty() && !lookingAt('`')) {
      fail(fmt::format("expected a condition (a field, NOT or '('), found {}", describeHere()));
    }
    if (isKeyword(word) && !equalsIgnoringCase(word, "ANY")) {
      fail(fmt::format("expected a condition (a field, NOT or '('), found {}", word));
    }
    if (equalsIgnoringCase(word, "RANK") && outer_.empty() && parenthesisAfterWord(word)) {
      return parseRank(word);
    }
    const size_t start = pos_;
    if (acceptVersionCall()) {
      bool negated = false;
      const Comparison comparison = parseTest({Step{"version()"}}, negated);
      if (comparison.type() == ComparisonType::kIn ||
          comparison.type() == ComparisonType::kStartsWith) {
        failAt(start,
               "version() takes =, !=, <, <=, >, >=, IS NULL or IS NOT NULL, with a versionstamp "
               "such as vs(0000000005f799630000, 2)",
               pos_ - start);
      }
      QueryComponent component = Query::version().withComparison(comparison);
      leaves_.push_back(Leaf{onPath(outer_, component), start, pos_});
      return negated ? Query::negate(std::move(component)) : component;
    }
    std::vector<Step> steps;
    parseStep(steps);
    while (true) {
      skipSpace();
      if (!lookingAt('.')) break;
      ++pos_;
      if (groupFollows()) {
        accept('(');
        const size_t outerSize = outer_.size();
        outer_.insert(outer_.end(), steps.begin(), steps.end());
        QueryComponent inner = parseOr(depth + 1);
        outer_.resize(outerSize);
        if (!accept(')')) fail(fmt::format("expected ')' or AND, OR, found {}", describeHere()));
        return onPath(steps, std::move(inner));
      }
      parseStep(steps);
    }
    bool negated = false;
    const Comparison comparison = parseTest(steps, negated);
    std::vector<Step> full = outer_;
    full.insert(full.end(), steps.begin(), steps.end());
    leaves_.push_back(Leaf{onPath(full, comparison), start, pos_});
    QueryComponent component = onPath(steps, comparison);
    return negated ? Query::negate(std::move(component)) : component;
  }

  // Whether '(' follows `word` (at the current position), spaces allowed: rank(...) is a
  // rank, a field named rank is compared as any field.
  bool parenthesisAfterWord(std::string_view word) const {
    size_t i = pos_ + word.size();
    while (i < text_.size() && isSpace(text_[i])) ++i;
    return i < text_.size() && text_[i] == '(';
  }

  // RANK(score [BY group, ...]) test: the record's rank (Query::rank) of `score` within its
  // group. Its fields are checked when the query is planned.
  QueryComponent parseRank(std::string_view word) {
    const size_t start = pos_;
    pos_ += word.size();
    accept('(');
    const std::string score = parseName("the ranked field in RANK(...)");
    std::vector<KeyExpression> groups;
    if (acceptKeyword("BY")) {
      do {
        groups.push_back(field(parseName("a group field in RANK(... BY ...)")));
      } while (accept(','));
    }
    if (!accept(')')) fail(fmt::format("expected ')' to close RANK(, found {}", describeHere()));
    const std::vector<Step> steps = {Step{"rank(" + score + ")"}};
    skipSpace();
    const size_t testStart = pos_;
    bool negated = false;
    const Comparison comparison = parseTest(steps, negated);
    if (negated) failAt(testStart, "a rank is compared by =, <, <=, > or >=");
    const KeyExpression operand = groups.empty() ? field(score) : field(score).groupByAll(groups);
    Query::Rank rank(operand);
    switch (comparison.type()) {
      case ComparisonType::kEquals:
      case ComparisonType::kLessThan:
      case ComparisonType::kLessThanOrEquals:
      case ComparisonType::kGreaterThan:
      case ComparisonType::kGreaterThanOrEquals: break;
      default: failAt(testStart, "a rank is compared by =, <, <=, > or >=");
    }
    QueryComponent component = rank.withComparison(comparison);
    leaves_.push_back(Leaf{component, start, pos_});
    return component;
  }

  // The comparison after a path; `negated` for NOT IN and NOT STARTS WITH.
  Comparison parseTest(const std::vector<Step>& steps, bool& negated) {
    skipSpace();
    static constexpr std::pair<std::string_view, ComparisonType> kOperators[] = {
        {"<=", ComparisonType::kLessThanOrEquals},
        {">=", ComparisonType::kGreaterThanOrEquals},
        {"!=", ComparisonType::kNotEquals},
        {"<>", ComparisonType::kNotEquals},
        {"=", ComparisonType::kEquals},
        {"<", ComparisonType::kLessThan},
        {">", ComparisonType::kGreaterThan},
    };
    for (const auto& [symbol, type] : kOperators) {
      if (text_.substr(pos_).starts_with(symbol)) {
        pos_ += symbol.size();
        return compareWith(type, symbol);
      }
    }
    if (acceptKeyword("IS")) {
      const bool isNot = acceptKeyword("NOT");
      if (!acceptKeyword("NULL")) {
        fail(
            fmt::format("expected NULL after IS{}, found {}", isNot ? " NOT" : "", describeHere()));
      }
      return isNot ? Comparison::notNull() : Comparison::isNull();
    }
    negated = acceptKeyword("NOT");
    if (acceptKeyword("IN")) return parseIn();
    if (acceptKeyword("STARTS")) {
      if (!acceptKeyword("WITH"))
        fail(fmt::format("expected WITH after STARTS, found {}", describeHere()));
      return compareWith(ComparisonType::kStartsWith, "STARTS WITH");
    }
    fail(
        fmt::format("expected {} after {}: =, !=, <, <=, >, >=, IN, STARTS WITH, IS NULL or IS "
                    "NOT NULL; found {}",
                    negated ? "IN or STARTS WITH" : "a comparison",
                    pathText(steps) + (negated ? " NOT" : ""), describeHere()));
  }

  Comparison compareWith(ComparisonType type, std::string_view after) {
    skipSpace();
    if (lookingAt('$')) return Comparison::ofParameter(type, parseParameter());
    const size_t literalAt = pos_;
    auto literal = parseLiteral(after);
    try {
      return Comparison::of(type, std::move(literal));
    } catch (const RecordCoreArgumentException& e) {
      // A literal the comparison cannot take (STARTS WITH 42): an error at the literal.
      failAt(literalAt, e.what(), pos_ - literalAt);
    }
  }

  std::string parseParameter() {
    const size_t dollar = pos_;
    ++pos_;
    const std::string_view word = wordHere();
    if (word.empty()) failAt(dollar, "expected a parameter name after '$', as in $max");
    pos_ += word.size();
    return std::string(word);
  }

  Comparison parseIn() {
    skipSpace();
    if (lookingAt('$')) return Comparison::ofParameter(ComparisonType::kIn, parseParameter());
    if (!accept('(')) {
      fail(fmt::format("expected '(' and a list of values, or a $parameter, after IN; found {}",
                       describeHere()));
    }
    std::vector<fdb::TupleElement> values;
    skipSpace();
    if (lookingAt(')')) fail("IN () has no values: give at least one");
    do {
      skipSpace();
      if (lookingAt('$')) {
        fail("a parameter inside an IN list: a list parameter is written IN $name");
      }
      values.push_back(parseLiteral("IN ("));
    } while (accept(','));
    if (!accept(')'))
      fail(fmt::format("expected ',' or ')' in the IN list, found {}", describeHere()));
    return Comparison::in(std::move(values));
  }

  // Where the literal starting at `start` ends: its extent, for fdb::parseTuple to read.
  size_t literalEnd(size_t start) const {
    const char c = text_[start];
    auto quoted = [&](size_t open) {
      const char quote = text_[open];
      size_t i = open + 1;
      while (i < text_.size() && text_[i] != quote) i += text_[i] == '\\' ? 2 : 1;
      return std::min(i + 1, text_.size());
    };
    if (c == '"' || c == '\'') return quoted(start);
    if (c == 'b' && start + 1 < text_.size() &&
        (text_[start + 1] == '"' || text_[start + 1] == '\''))
      return quoted(start + 1);
    if (isNameStart(c)) {
      size_t i = start;
      while (i < text_.size() && isNameChar(text_[i])) ++i;
      const std::string_view word = text_.substr(start, i - start);
      if (word == "f32" || word == "uuid" || word == "vs") {
        size_t j = i;
        while (j < text_.size() && isSpace(text_[j])) ++j;
        if (j < text_.size() && text_[j] == '(') {
          size_t k = j + 1;
          while (k < text_.size() && text_[k] != ')') {
            k = (text_[k] == '"' || text_[k] == '\'') ? quoted(k) : k + 1;
          }
          return std::min(k + 1, text_.size());
        }
      }
      return i;
    }
    // A number: a sign, then digits, letters, '.', and a sign right after an exponent's e.
    size_t i = start;
    if (c == '+' || c == '-') ++i;
    while (i < text_.size()) {
      const char d = text_[i];
      if (isNameChar(d) || d == '.') {
        ++i;
      } else if ((d == '+' || d == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E') &&
                 i - 1 > start && (isDigit(text_[i - 2]) || text_[i - 2] == '.')) {
        ++i;
      } else {
        break;
      }
    }
    return i;
  }

  // A value in the tuple text syntax of docs/tuple.md.
  fdb::TupleElement parseLiteral(std::string_view after) {
    skipSpace();
    if (atEnd()) fail(fmt::format("expected a value after {}, found the end of the query", after));
    const size_t start = pos_;
    const char c = text_[start];
    const bool quoted = c == '"' || c == '\'' ||
                        (c == 'b' && start + 1 < text_.size() &&
                         (text_[start + 1] == '"' || text_[start + 1] == '\''));
    if (!quoted && !isNameStart(c) && !isDigit(c) && c != '+' && c != '-' && c != '.') {
      fail(fmt::format("expected a value after {}, found {}", after, describeHere()));
    }
    const size_t end = literalEnd(start);
    const std::string_view written = text_.substr(start, end - start);
    static constexpr std::string_view kNames[] = {"true", "false", "True", "False", "null", "None",
                                                  "nan",  "inf",   "f32",  "uuid",  "vs"};
    if (!quoted && isNameStart(c)) {
      const std::string_view word = wordHere();
      // SQL's TRUE and FALSE too, in any case.
      if (equalsIgnoringCase(word, "true") || equalsIgnoringCase(word, "false")) {
        pos_ += word.size();
        return fdb::TupleElement(equalsIgnoringCase(word, "true"));
      }
      if (equalsIgnoringCase(word, "NULL") && word != "null") failNull(start);
      if (std::find(std::begin(kNames), std::end(kNames), word) == std::end(kNames)) {
        if (isKeyword(word)) fail(fmt::format("expected a value after {}, found {}", after, word));
        failAt(start, fmt::format("expected a value after {}, found {}: a string is quoted, \"{}\"",
                                  after, quote(word), word));
      }
    }
    fdb::Tuple tuple;
    try {
      tuple = fdb::parseTuple("(" + std::string(written) + ",)");
    } catch (const fdb::TupleSyntaxError& e) {
      // The position counts the '(' put before the literal.
      const size_t offset = std::min(e.position() == 0 ? 0 : e.position() - 1, written.size());
      failAt(start + offset, e.what());
    }
    if (tuple[0].isNull()) failNull(start);
    pos_ = end;
    return tuple[0];
  }

  [[noreturn]] void failNull(size_t start) const {
    failAt(start, "a value is never null: test for null with IS NULL or IS NOT NULL");
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Step> outer_;  // the paths of the groups around the current position
  std::vector<Leaf> leaves_;
};

// A checking error in the words of the text: the builder names in the validator's hints
// become ANY(...).
std::string inTextTerms(std::string message) {
  static constexpr std::pair<std::string_view, std::string_view> kHints[] = {
      {"(oneOfThem().matches)", "with ANY(...).field"},
      {"(oneOfThem)", "with ANY(...)"},
  };
  for (const auto& [api, text] : kHints) {
    if (const size_t at = message.find(api); at != std::string::npos) {
      message.replace(at, api.size(), text);
    }
  }
  return message;
}

}  // namespace

QueryComponent parseQueryFilter(std::string_view text) { return Parser(text).parseFilter(); }

QueryComponent parseQueryFilter(std::string_view text, const RecordMetaData& metaData,
                                const std::vector<std::string>& recordTypes) {
  Parser parser(text);
  QueryComponent filter = parser.parseFilter();
  query::validateQuery(metaData, RecordQuery{.recordTypes = recordTypes});
  // Each comparison alone first, so that an error names the one at fault.
  for (const Leaf& leaf : parser.leaves()) {
    try {
      query::validateQuery(metaData,
                           RecordQuery{.recordTypes = recordTypes, .filter = leaf.standalone});
    } catch (const InvalidQueryException& e) {
      throw QueryTextException(inTextTerms(e.what()), leaf.start, leaf.end - leaf.start);
    }
  }
  query::validateQuery(metaData, RecordQuery{.recordTypes = recordTypes, .filter = filter});
  return filter;
}

KeyExpression parseQuerySort(std::string_view text) { return Parser(text).parseSort(); }

}  // namespace rl
