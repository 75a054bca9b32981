#include "fdb/tuple_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>

#include <fmt/format.h>

#include "fdb/bytes.h"

namespace fdb {
namespace {

// At most this many tuples nest inside the outermost one, as in Tuple::unpack; deeper
// nesting is refused so that the recursive parser cannot overflow the stack.
constexpr size_t kMaxNestingDepth = 1000;

// The largest integer magnitude the tuple layer encodes, in bytes (codes 0x0b and 0x1d);
// 2^(8*255) - 1 has 615 decimal digits.
constexpr size_t kMaxIntegerBytes = 255;
constexpr size_t kMaxIntegerDigits = 615;

// Quoted excerpts of the input in error messages are cut to this many characters.
constexpr size_t kMaxExcerpt = 40;

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isWordChar(char c) { return isLetter(c) || isDigit(c); }
bool isWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void appendHexEscape(std::string& out, unsigned char byte) {
  out += fmt::format("\\x{:02x}", byte);
}

// ---------------------------------------------------------------------------------------------
// Formatting

struct Utf8Sequence {
  size_t length;  // 0 when no well-formed sequence starts at the position
  uint32_t codePoint;
};

// The well-formed UTF-8 sequence starting at text[i] (no overlong forms, no surrogates,
// nothing beyond U+10FFFF). REQUIRES: i < text.size().
Utf8Sequence decodeUtf8(std::string_view text, size_t i) {
  auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return {1, lead};
  size_t length;
  if ((lead & 0xe0) == 0xc0) {
    length = 2;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4;
  } else {
    return {0, 0};
  }
  static constexpr uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  uint32_t codePoint = lead & (0x7f >> length);
  if (text.size() - i < length) return {0, 0};
  for (size_t k = 1; k < length; ++k) {
    auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xc0) != 0x80) return {0, 0};
    codePoint = codePoint << 6 | (next & 0x3f);
  }
  if (codePoint < kSmallest[length] || codePoint > 0x10ffff ||
      (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
    return {0, 0};
  }
  return {length, codePoint};
}

// A unicode string: printable ASCII and well-formed multi-byte UTF-8 as is; control
// characters, C1 controls and bytes outside well-formed UTF-8 escaped.
void formatString(std::string& out, std::string_view text) {
  out.push_back('"');
  size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<unsigned char>(text[i]);
    switch (byte) {
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '"':
        out += "\\\"";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      default: break;
    }
    if (byte < 0x20 || byte == 0x7f) {
      appendHexEscape(out, byte);
      ++i;
      continue;
    }
    Utf8Sequence sequence = decodeUtf8(text, i);
    if (sequence.length == 0) {
      appendHexEscape(out, byte);
      ++i;
    } else if (sequence.codePoint >= 0x80 && sequence.codePoint <= 0x9f) {
      // C1 control characters can drive terminals; show them, do not send them.
      out += fmt::format("\\u{:04x}", sequence.codePoint);
      i += sequence.length;
    } else {
      out.append(text.substr(i, sequence.length));
      i += sequence.length;
    }
  }
  out.push_back('"');
}

// A byte string: printable ASCII as is, every other byte as \xNN.
void formatBytes(std::string& out, std::string_view bytes) {
  out += "b\"";
  for (unsigned char byte : bytes) {
    if (byte == '\\' || byte == '"') {
      out.push_back('\\');
      out.push_back(static_cast<char>(byte));
    } else if (byte >= 0x20 && byte < 0x7f) {
      out.push_back(static_cast<char>(byte));
    } else {
      appendHexEscape(out, byte);
    }
  }
  out.push_back('"');
}

// The shortest text that reads back as the same value, always recognisable as a
// floating-point literal ("1.0", not "1").
template <typename F>
std::string formatFloatingPoint(F value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

void formatTupleInto(std::string& out, const Tuple& tuple);

void formatElementInto(std::string& out, const TupleElement& element) {
  std::visit(
      [&out](const auto& value) {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          out += "null";
        } else if constexpr (std::is_same_v<T, ByteString>) {
          formatBytes(out, value.bytes);
        } else if constexpr (std::is_same_v<T, std::string>) {
          formatString(out, value);
        } else if constexpr (std::is_same_v<T, Tuple>) {
          formatTupleInto(out, value);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out += fmt::format("{}", value);
        } else if constexpr (std::is_same_v<T, BigInt>) {
          out += value.toString();
        } else if constexpr (std::is_same_v<T, float>) {
          out += "f32(" + formatFloatingPoint(value) + ")";
        } else if constexpr (std::is_same_v<T, double>) {
          out += formatFloatingPoint(value);
        } else if constexpr (std::is_same_v<T, bool>) {
          out += value ? "true" : "false";
        } else if constexpr (std::is_same_v<T, Uuid>) {
          out += "uuid(" + value.toString() + ")";
        } else {
          static_assert(std::is_same_v<T, Versionstamp>);
          if (!value.isComplete() && value.userVersion() == 0) {
            out += "vs()";
          } else {
            const auto& version = value.transactionVersion();
            out += fmt::format("vs({}, {})",
                               toHex(std::string_view(reinterpret_cast<const char*>(version.data()),
                                                      version.size())),
                               value.userVersion());
          }
        }
      },
      element.value());
}

void formatTupleInto(std::string& out, const Tuple& tuple) {
  out.push_back('(');
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (i > 0) out += ", ";
    formatElementInto(out, tuple[i]);
  }
  if (tuple.size() == 1) out.push_back(',');
  out.push_back(')');
}

// ---------------------------------------------------------------------------------------------
// Parsing

// A number as written: an optional sign, then digits (with '.' or an exponent for a
// floating-point literal), or one of the words nan and inf.
struct NumberToken {
  enum class Kind { kInteger, kDecimal, kNan, kInf };

  size_t start = 0;  // offset of the sign or first character
  bool negative = false;
  std::string_view text;  // the whole token, sign included
  std::string_view body;  // the token without its sign
  Kind kind = Kind::kInteger;
};

// A recursive-descent parser over the grammar of docs/tuple.md. Every read is guarded by
// atEnd(); every error is a TupleSyntaxError at the offset of what is wrong.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Tuple parseInput() {
    skipWhitespace();
    if (!lookingAt('(')) {
      fail(fmt::format("expected '(' to start a tuple, found {}", describeHere()));
    }
    Tuple tuple = parseTupleLiteral(/*depth=*/0);
    skipWhitespace();
    if (!atEnd()) fail("unexpected text after the tuple");
    return tuple;
  }

 private:
  [[noreturn]] void failAt(size_t position, const std::string& message) const {
    throw TupleSyntaxError(message, position);
  }
  [[noreturn]] void fail(const std::string& message) const { failAt(pos_, message); }

  bool atEnd() const { return pos_ >= text_.size(); }
  bool lookingAt(char c) const { return !atEnd() && text_[pos_] == c; }

  // What is at the current position, for messages: 'x', byte 0xNN or the end of the input.
  std::string describeHere() const {
    if (atEnd()) return "the end of the input";
    auto c = static_cast<unsigned char>(text_[pos_]);
    if (c > 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  // `excerpt` quoted, shortened when long.
  static std::string quote(std::string_view excerpt) {
    if (excerpt.size() <= kMaxExcerpt) return fmt::format("'{}'", excerpt);
    return fmt::format("'{}...'", excerpt.substr(0, kMaxExcerpt));
  }

  void skipWhitespace() {
    while (!atEnd() && isWhitespace(text_[pos_])) ++pos_;
  }

  size_t skipDigits() {
    size_t start = pos_;
    while (!atEnd() && isDigit(text_[pos_])) ++pos_;
    return pos_ - start;
  }

  // REQUIRES: isLetter at the current position.
  std::string_view scanWord() {
    size_t start = pos_;
    while (!atEnd() && isWordChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // Skips whitespace, then requires `c`.
  void expect(char c, std::string_view what) {
    skipWhitespace();
    if (!lookingAt(c)) fail(fmt::format("expected {}, found {}", what, describeHere()));
    ++pos_;
  }

  // REQUIRES: the current character is '('. `depth` counts the tuples around this one.
  Tuple parseTupleLiteral(size_t depth) {
    size_t open = pos_;
    if (depth > kMaxNestingDepth) {
      fail(fmt::format("tuples are nested more than {} deep", kMaxNestingDepth));
    }
    ++pos_;
    Tuple tuple;
    skipWhitespace();
    if (lookingAt(')')) {
      ++pos_;
      return tuple;
    }
    bool sawComma = false;
    while (true) {
      tuple.append(parseElement(depth));
      size_t elementEnd = pos_;
      skipWhitespace();
      if (lookingAt(',')) {
        ++pos_;
        sawComma = true;
        skipWhitespace();
        if (lookingAt(')')) break;
        continue;
      }
      if (lookingAt(')')) {
        if (!sawComma) failParenthesizedElement(open, elementEnd);
        break;
      }
      fail(fmt::format("expected ',' or ')' after a tuple element, found {}", describeHere()));
    }
    ++pos_;  // ')'
    return tuple;
  }

  // `(x)` is x in Python; here it is refused so that nobody loses a level of nesting.
  [[noreturn]] void failParenthesizedElement(size_t open, size_t elementEnd) const {
    std::string_view written = text_.substr(open, pos_ + 1 - open);
    if (written.size() <= kMaxExcerpt) {
      failAt(pos_, fmt::format("'{}' is not a tuple: write {},) for a one-element tuple", written,
                               text_.substr(open, elementEnd - open)));
    }
    failAt(pos_, "a parenthesized element is not a tuple: write (x,) for a one-element tuple");
  }

  TupleElement parseElement(size_t depth) {
    if (atEnd()) fail("expected a tuple element, found the end of the input");
    char c = text_[pos_];
    if (c == '(') return parseTupleLiteral(depth + 1);
    if (c == '"' || c == '\'') return parseQuoted(/*bytes=*/false);
    if (isDigit(c) || c == '+' || c == '-' || c == '.') return parseNumber();
    if (!isLetter(c)) fail(fmt::format("expected a tuple element, found {}", describeHere()));

    size_t start = pos_;
    std::string_view word = scanWord();
    if (word == "b" && (lookingAt('"') || lookingAt('\''))) {
      return ByteString{parseQuoted(/*bytes=*/true)};
    }
    if (word == "null" || word == "None") return nullptr;
    if (word == "true" || word == "True") return true;
    if (word == "false" || word == "False") return false;
    if (word == "nan" || word == "inf") {
      pos_ = start;
      return parseNumber();
    }
    if (word == "f32") return parseF32();
    if (word == "uuid") return parseUuid();
    if (word == "vs") return parseVersionstamp();
    failAt(start, fmt::format("unknown name {}", quote(word)));
  }

  // ---- Numbers ----

  NumberToken scanNumber() {
    NumberToken token;
    token.start = pos_;
    if (lookingAt('+') || lookingAt('-')) {
      token.negative = text_[pos_] == '-';
      ++pos_;
    }
    size_t bodyStart = pos_;
    if (!atEnd() && isLetter(text_[pos_])) {
      std::string_view word = scanWord();
      if (word == "nan") {
        token.kind = NumberToken::Kind::kNan;
      } else if (word == "inf") {
        token.kind = NumberToken::Kind::kInf;
      } else {
        failAt(bodyStart, fmt::format("expected a number, found {}", quote(word)));
      }
    } else {
      size_t digits = skipDigits();
      bool decimal = false;
      if (lookingAt('.')) {
        decimal = true;
        ++pos_;
        digits += skipDigits();
      }
      if (digits == 0) {
        pos_ = bodyStart;
        fail(fmt::format("expected a number, found {}", describeHere()));
      }
      if (lookingAt('e') || lookingAt('E')) {
        decimal = true;
        ++pos_;
        if (lookingAt('+') || lookingAt('-')) ++pos_;
        if (skipDigits() == 0) {
          fail(fmt::format("expected the digits of an exponent, found {}", describeHere()));
        }
      }
      if (!atEnd() && (isWordChar(text_[pos_]) || text_[pos_] == '.')) {
        fail(fmt::format("unexpected {} in a number", describeHere()));
      }
      token.kind = decimal ? NumberToken::Kind::kDecimal : NumberToken::Kind::kInteger;
    }
    token.text = text_.substr(token.start, pos_ - token.start);
    token.body = text_.substr(bodyStart, pos_ - bodyStart);
    return token;
  }

  template <typename F>
  F toFloatingPoint(const NumberToken& token, std::string_view typeName) const {
    F value;
    if (token.kind == NumberToken::Kind::kNan) {
      value = std::numeric_limits<F>::quiet_NaN();
    } else if (token.kind == NumberToken::Kind::kInf) {
      value = std::numeric_limits<F>::infinity();
    } else {
      const char* end = token.body.data() + token.body.size();
      auto result = std::from_chars(token.body.data(), end, value);
      if (result.ec == std::errc::result_out_of_range) {
        failAt(token.start, fmt::format("{} is outside the range of a {} (overflow or underflow)",
                                        quote(token.text), typeName));
      }
      if (result.ec != std::errc() || result.ptr != end) {
        failAt(token.start, fmt::format("{} is not a number", quote(token.text)));
      }
    }
    return token.negative ? std::copysign(value, F(-1)) : value;
  }

  TupleElement parseNumber() {
    NumberToken token = scanNumber();
    if (token.kind != NumberToken::Kind::kInteger) return toFloatingPoint<double>(token, "double");

    // The sign and digits of the integer; std::from_chars takes no '+'.
    std::string decimal = (token.negative ? "-" : "") + std::string(token.body);
    int64_t value = 0;
    const char* end = decimal.data() + decimal.size();
    auto result = std::from_chars(decimal.data(), end, value);
    if (result.ec == std::errc() && result.ptr == end) return value;

    // Beyond int64_t. The digit count check keeps BigInt::parse (quadratic) away from
    // absurdly long inputs; the tuple layer cannot encode those anyway.
    size_t significantDigits =
        token.body.size() - std::min(token.body.find_first_not_of('0'), token.body.size());
    std::optional<BigInt> big;
    if (significantDigits <= kMaxIntegerDigits) {
      try {
        big = BigInt::parse(decimal);
      } catch (const std::exception& e) {
        failAt(token.start, fmt::format("{} is not an integer: {}", quote(token.text), e.what()));
      }
    }
    if (!big || big->magnitude().size() > kMaxIntegerBytes) {
      failAt(token.start, fmt::format("integer {} is too large for the tuple layer, which encodes "
                                      "magnitudes of up to {} bytes",
                                      quote(token.text), kMaxIntegerBytes));
    }
    return *std::move(big);
  }

  float parseF32() {
    expect('(', "'(' after f32");
    skipWhitespace();
    if (atEnd() || !(isDigit(text_[pos_]) || isLetter(text_[pos_]) || text_[pos_] == '+' ||
                     text_[pos_] == '-' || text_[pos_] == '.')) {
      fail(fmt::format("f32() needs a number, found {}", describeHere()));
    }
    float value = toFloatingPoint<float>(scanNumber(), "float");
    expect(')', "')' to close f32(");
    return value;
  }

  // ---- UUIDs and versionstamps ----

  // Reads a run of hex digits (and dashes when `allowDashes`); returns the digits. Fails
  // unless there are exactly `wanted` of them.
  std::string scanHexDigits(size_t wanted, bool allowDashes, std::string_view what) {
    size_t start = pos_;
    std::string digits;
    while (!atEnd() && (hexDigitValue(text_[pos_]) >= 0 || (allowDashes && text_[pos_] == '-'))) {
      if (text_[pos_] != '-') digits.push_back(text_[pos_]);
      ++pos_;
    }
    if (digits.size() == wanted) return digits;
    if (!atEnd() && isWordChar(text_[pos_])) {
      fail(fmt::format("{} is not a hex digit", describeHere()));
    }
    failAt(start, fmt::format("{} needs {} hex digits, found {}", what, wanted, digits.size()));
  }

  // uuid(01234567-89ab-cdef-0123-456789abcdef), the digits bare or quoted as a string (the
  // form UUIDs are usually written in: uuid("01234567-89ab-...")).
  Uuid parseUuid() {
    expect('(', "'(' after uuid");
    skipWhitespace();
    size_t start = pos_;
    std::string digits;
    if (!atEnd() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      const std::string quoted = parseQuoted(/*bytes=*/false);
      for (char c : quoted) {
        if (c == '-') continue;
        if (hexDigitValue(c) < 0) {
          failAt(start, fmt::format("not a UUID: '{}' is not a hex digit", c));
        }
        digits.push_back(c);
      }
      if (digits.size() != 32) {
        failAt(start, fmt::format("uuid() needs 32 hex digits, found {}", digits.size()));
      }
    } else {
      digits = scanHexDigits(32, /*allowDashes=*/true, "uuid()");
    }
    expect(')', "')' to close uuid(");
    try {
      return Uuid::parse(digits);
    } catch (const std::exception& e) {
      failAt(start, fmt::format("not a UUID: {}", e.what()));
    }
  }

  Versionstamp parseVersionstamp() {
    expect('(', "'(' after vs");
    skipWhitespace();
    if (lookingAt(')')) {
      ++pos_;
      return Versionstamp::incomplete();
    }
    Bytes bytes = fromHex(scanHexDigits(20, /*allowDashes=*/false, "vs()"));
    Versionstamp::TransactionVersion transactionVersion;
    for (size_t i = 0; i < transactionVersion.size(); ++i) {
      transactionVersion[i] = static_cast<uint8_t>(bytes[i]);
    }
    uint16_t userVersion = 0;
    skipWhitespace();
    if (lookingAt(',')) {
      ++pos_;
      skipWhitespace();
      userVersion = parseUserVersion();
    }
    expect(')', "',' or ')' in vs(...)");
    if (bytes == Bytes(10, '\xff')) return Versionstamp::incomplete(userVersion);
    return Versionstamp::complete(transactionVersion, userVersion);
  }

  uint16_t parseUserVersion() {
    size_t start = pos_;
    bool signed_ = lookingAt('-') || lookingAt('+');
    if (signed_) ++pos_;
    size_t digitsStart = pos_;
    if (skipDigits() == 0) {
      fail(fmt::format("expected a user version (0..65535), found {}", describeHere()));
    }
    std::string_view written = text_.substr(start, pos_ - start);
    std::string_view digits = text_.substr(digitsStart, pos_ - digitsStart);
    unsigned value = 0;
    auto result = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    bool negative = text_[start] == '-' && value != 0;
    if (result.ec != std::errc() || negative || value > 0xffff) {
      failAt(start, fmt::format("user version {} is out of range 0..65535",
                                written.size() <= kMaxExcerpt ? written : "(a long number)"));
    }
    return static_cast<uint16_t>(value);
  }

  // ---- Strings ----

  // A quoted literal at the current position: a unicode string's UTF-8 bytes, or the bytes
  // of a byte string.
  std::string parseQuoted(bool bytes) {
    size_t open = pos_;
    char quoteChar = text_[pos_++];
    std::string out;
    while (true) {
      if (atEnd()) failAt(open, "unterminated string literal");
      char c = text_[pos_];
      if (c == quoteChar) {
        ++pos_;
        return out;
      }
      if (c == '\n' || c == '\r') {
        failAt(open,
               "unterminated string literal: it reaches the end of the line "
               "(write a line break as \\n)");
      }
      if (c == '\\') {
        parseEscape(out, bytes, open);
        continue;
      }
      if (bytes && static_cast<unsigned char>(c) >= 0x80) {
        fail("a byte string literal holds only ASCII characters: write other bytes as \\xNN");
      }
      out.push_back(c);
      ++pos_;
    }
  }

  // REQUIRES: the current character is the backslash of an escape.
  void parseEscape(std::string& out, bool bytes, size_t open) {
    size_t start = pos_++;
    if (atEnd()) failAt(open, "unterminated string literal");
    char c = text_[pos_++];
    switch (c) {
      case '\\':
      case '"':
      case '\'': out.push_back(c); return;
      case 'n': out.push_back('\n'); return;
      case 't': out.push_back('\t'); return;
      case 'r': out.push_back('\r'); return;
      case '0':
        if (!atEnd() && text_[pos_] >= '0' && text_[pos_] <= '7') {
          failAt(start, "octal escapes are not supported: write \\xNN (\\0 alone is a zero byte)");
        }
        out.push_back('\0');
        return;
      case 'x': out.push_back(static_cast<char>(parseHexEscapeDigits(2, start))); return;
      case 'u':
      case 'U':
        if (!bytes) {
          appendCodePoint(out, parseHexEscapeDigits(c == 'u' ? 4 : 8, start), start);
          return;
        }
        failAt(start, fmt::format("'\\{}' is not a valid escape in a byte string: write the "
                                  "UTF-8 bytes as \\xNN",
                                  c));
      default: break;
    }
    auto byte = static_cast<unsigned char>(c);
    if (byte > 0x20 && byte < 0x7f) {
      failAt(start, fmt::format("'\\{}' is not a valid escape", c));
    }
    failAt(start, fmt::format("a backslash followed by byte 0x{:02x} is not a valid escape", byte));
  }

  // The `count` hex digits after \x, \u or \U (the escape starts at `start`).
  uint32_t parseHexEscapeDigits(size_t count, size_t start) {
    uint32_t value = 0;
    for (size_t i = 0; i < count; ++i) {
      int digit = atEnd() ? -1 : hexDigitValue(text_[pos_]);
      if (digit < 0) {
        failAt(start, fmt::format("'\\{}' needs {} hex digits", text_[start + 1], count));
      }
      value = value << 4 | static_cast<uint32_t>(digit);
      ++pos_;
    }
    return value;
  }

  void appendCodePoint(std::string& out, uint32_t codePoint, size_t start) const {
    std::string_view written = text_.substr(start, pos_ - start);
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
      failAt(start, fmt::format("'{}' is a surrogate, which is not a character", written));
    }
    if (codePoint > 0x10ffff) {
      failAt(start, fmt::format("'{}' is beyond U+10FFFF, the last code point", written));
    }
    if (codePoint < 0x80) {
      out.push_back(static_cast<char>(codePoint));
    } else if (codePoint < 0x800) {
      out.push_back(static_cast<char>(0xc0 | codePoint >> 6));
      out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    } else if (codePoint < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | codePoint >> 12));
      out.push_back(static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | codePoint >> 18));
      out.push_back(static_cast<char>(0x80 | ((codePoint >> 12) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | ((codePoint >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (codePoint & 0x3f)));
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string formatTuple(const Tuple& tuple) {
  std::string out;
  formatTupleInto(out, tuple);
  return out;
}

std::string formatElement(const TupleElement& element) {
  std::string out;
  formatElementInto(out, element);
  return out;
}

Tuple parseTuple(std::string_view text) { return Parser(text).parseInput(); }

}  // namespace fdb
