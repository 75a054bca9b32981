// The tuple encoding: docs/tuple.md describes every type code written and read here.
#include "fdb/tuple.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb {
namespace {

// Type codes (FoundationDB design/tuple.md).
constexpr uint8_t kNullCode = 0x00;
constexpr uint8_t kBytesCode = 0x01;
constexpr uint8_t kStringCode = 0x02;
constexpr uint8_t kNestedCode = 0x05;
constexpr uint8_t kNegativeBigIntCode = 0x0b;
constexpr uint8_t kIntZeroCode = 0x14;
constexpr uint8_t kPositiveBigIntCode = 0x1d;
constexpr uint8_t kFloatCode = 0x20;
constexpr uint8_t kDoubleCode = 0x21;
constexpr uint8_t kFalseCode = 0x26;
constexpr uint8_t kTrueCode = 0x27;
constexpr uint8_t kUuidCode = 0x30;
constexpr uint8_t kVersionstampCode = 0x33;
constexpr uint8_t kEscape = 0xff;  // 0x00 0xff: a zero byte inside a string, or a nested null

constexpr size_t kMaxIntegerBytes = 255;

// ---- BigInt magnitude arithmetic on big-endian byte strings -------------------------

Bytes trimLeadingZeros(std::string_view magnitude) {
  size_t first = magnitude.find_first_not_of('\0');
  return first == std::string_view::npos ? Bytes() : Bytes(magnitude.substr(first));
}

Bytes uint64Magnitude(uint64_t value) {
  Bytes out;
  for (; value != 0; value >>= 8) out.insert(out.begin(), static_cast<char>(value & 0xff));
  return out;
}

// Requires magnitude.size() <= 8.
uint64_t magnitudeToUint64(std::string_view magnitude) {
  uint64_t value = 0;
  for (unsigned char b : magnitude) value = value << 8 | b;
  return value;
}

// Divides the magnitude by `divisor` in place and returns the remainder.
unsigned divideInPlace(Bytes& magnitude, unsigned divisor) {
  unsigned remainder = 0;
  for (char& c : magnitude) {
    unsigned current = remainder << 8 | static_cast<unsigned char>(c);
    c = static_cast<char>(current / divisor);
    remainder = current % divisor;
  }
  magnitude = trimLeadingZeros(magnitude);
  return remainder;
}

// magnitude = magnitude * factor + addend.
void multiplyAdd(Bytes& magnitude, unsigned factor, unsigned addend) {
  unsigned carry = addend;
  for (auto it = magnitude.rbegin(); it != magnitude.rend(); ++it) {
    unsigned current = static_cast<unsigned char>(*it) * factor + carry;
    *it = static_cast<char>(current & 0xff);
    carry = current >> 8;
  }
  for (; carry != 0; carry >>= 8)
    magnitude.insert(magnitude.begin(), static_cast<char>(carry & 0xff));
}

// ---- Floating point ---------------------------------------------------------------

// The order-preserving transform of IEEE bits: flip every bit of a negative number,
// only the sign bit of a positive one. Unsigned comparison of the results is IEEE
// total order.
template <typename Bits>
Bits orderedBits(Bits bits) {
  constexpr Bits kSign = Bits{1} << (sizeof(Bits) * 8 - 1);
  return (bits & kSign) ? ~bits : bits ^ kSign;
}

template <typename Bits>
Bits unorderedBits(Bits ordered) {
  constexpr Bits kSign = Bits{1} << (sizeof(Bits) * 8 - 1);
  return (ordered & kSign) ? ordered ^ kSign : ~ordered;
}

template <typename Bits>
void appendBigEndian(Bytes& out, Bits value) {
  for (int shift = sizeof(Bits) * 8 - 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

// ---- Encoding ---------------------------------------------------------------------

class Encoder {
 public:
  explicit Encoder(Bytes& out) : out_(out) {}

  void encodeTuple(const Tuple& tuple, bool nested) {
    for (const TupleElement& element : tuple) encodeElement(element, nested);
  }

  int incompleteVersionstamps() const { return incompleteVersionstamps_; }
  // Offset in `out` of the last incomplete versionstamp's transaction version.
  size_t versionstampOffset() const { return versionstampOffset_; }

 private:
  void encodeElement(const TupleElement& element, bool nested) {
    std::visit([&](const auto& value) { encode(value, nested); }, element.value());
  }

  void encode(std::nullptr_t, bool nested) {
    out_.push_back(static_cast<char>(kNullCode));
    if (nested) out_.push_back(static_cast<char>(kEscape));
  }

  void encodeEscaped(uint8_t code, std::string_view bytes) {
    out_.push_back(static_cast<char>(code));
    for (char c : bytes) {
      out_.push_back(c);
      if (c == '\0') out_.push_back(static_cast<char>(kEscape));
    }
    out_.push_back('\0');
  }

  void encode(const ByteString& value, bool) { encodeEscaped(kBytesCode, value.bytes); }
  void encode(const std::string& value, bool) { encodeEscaped(kStringCode, value); }

  void encode(const Tuple& value, bool) {
    out_.push_back(static_cast<char>(kNestedCode));
    encodeTuple(value, /*nested=*/true);
    out_.push_back('\0');
  }

  void encode(int64_t value, bool) {
    if (value == 0) {
      out_.push_back(static_cast<char>(kIntZeroCode));
      return;
    }
    bool negative = value < 0;
    // Two's complement negation of the unsigned value gives the magnitude, INT64_MIN too.
    uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    encodeSmallInteger(negative, magnitude);
  }

  // A magnitude that fits in eight bytes: code 0x14 +/- n and n bytes, one's complement
  // of the magnitude for negative numbers.
  void encodeSmallInteger(bool negative, uint64_t magnitude) {
    int n = static_cast<int>((std::bit_width(magnitude) + 7) / 8);
    out_.push_back(static_cast<char>(negative ? kIntZeroCode - n : kIntZeroCode + n));
    uint64_t bits = negative ? ~magnitude : magnitude;
    for (int shift = (n - 1) * 8; shift >= 0; shift -= 8) {
      out_.push_back(static_cast<char>((bits >> shift) & 0xff));
    }
  }

  void encode(const BigInt& value, bool) {
    const Bytes& magnitude = value.magnitude();
    if (magnitude.size() <= 8) {
      encodeSmallInteger(value.isNegative(), magnitudeToUint64(magnitude));
      return;
    }
    if (magnitude.size() > kMaxIntegerBytes) {
      throw Error(errors::kInvalidTupleDataType,
                  fmt::format("integer of {} bytes is larger than the tuple layer's {}",
                              magnitude.size(), kMaxIntegerBytes));
    }
    auto length = static_cast<uint8_t>(magnitude.size());
    if (value.isNegative()) {
      out_.push_back(static_cast<char>(kNegativeBigIntCode));
      out_.push_back(static_cast<char>(length ^ 0xff));
      for (char c : magnitude) out_.push_back(static_cast<char>(~c));
    } else {
      out_.push_back(static_cast<char>(kPositiveBigIntCode));
      out_.push_back(static_cast<char>(length));
      out_ += magnitude;
    }
  }

  void encode(float value, bool) {
    out_.push_back(static_cast<char>(kFloatCode));
    appendBigEndian(out_, orderedBits(std::bit_cast<uint32_t>(value)));
  }

  void encode(double value, bool) {
    out_.push_back(static_cast<char>(kDoubleCode));
    appendBigEndian(out_, orderedBits(std::bit_cast<uint64_t>(value)));
  }

  void encode(bool value, bool) {
    out_.push_back(static_cast<char>(value ? kTrueCode : kFalseCode));
  }

  void encode(const Uuid& value, bool) {
    out_.push_back(static_cast<char>(kUuidCode));
    out_.append(reinterpret_cast<const char*>(value.bytes.data()), value.bytes.size());
  }

  void encode(const Versionstamp& value, bool) {
    out_.push_back(static_cast<char>(kVersionstampCode));
    if (!value.isComplete()) {
      ++incompleteVersionstamps_;
      versionstampOffset_ = out_.size();
    }
    out_ += value.bytes();
  }

  Bytes& out_;
  int incompleteVersionstamps_ = 0;
  size_t versionstampOffset_ = 0;
};

// ---- Decoding ---------------------------------------------------------------------

class Decoder {
 public:
  explicit Decoder(std::string_view data) : data_(data) {}

  Tuple decodeTopLevel() {
    Tuple tuple;
    while (pos_ < data_.size()) tuple.append(decodeElement(/*nested=*/false));
    return tuple;
  }

 private:
  [[noreturn]] void fail(size_t at, std::string_view what) const {
    throw Error(errors::kInvalidTupleDataType, fmt::format("{} at byte {}", what, at));
  }

  uint8_t byteAt(size_t i) const { return static_cast<uint8_t>(data_[i]); }

  // The next `n` bytes; fails naming the element that started at `start` if they are
  // not all there.
  std::string_view take(size_t n, size_t start, std::string_view what) {
    if (data_.size() - pos_ < n) fail(start, fmt::format("truncated {}", what));
    std::string_view bytes = data_.substr(pos_, n);
    pos_ += n;
    return bytes;
  }

  TupleElement decodeElement(bool nested) {
    size_t start = pos_;
    uint8_t code = byteAt(pos_++);
    switch (code) {
      case kNullCode:
        // Inside a nested tuple the caller has already seen the 0xff that follows.
        if (nested) ++pos_;
        return nullptr;
      case kBytesCode: return ByteString{decodeEscaped(start, "byte string")};
      case kStringCode: return decodeEscaped(start, "unicode string");
      case kNestedCode: return decodeNested(start);
      case kNegativeBigIntCode: {
        size_t length = static_cast<uint8_t>(take(1, start, "integer length")[0]) ^ 0xff;
        return decodeInteger(true, take(length, start, "integer"));
      }
      case kPositiveBigIntCode: {
        size_t length = static_cast<uint8_t>(take(1, start, "integer length")[0]);
        return decodeInteger(false, take(length, start, "integer"));
      }
      case kFloatCode:
        return std::bit_cast<float>(unorderedBits(readBigEndian<uint32_t>(start, "float")));
      case kDoubleCode:
        return std::bit_cast<double>(unorderedBits(readBigEndian<uint64_t>(start, "double")));
      case kFalseCode: return false;
      case kTrueCode: return true;
      case kUuidCode: {
        Uuid uuid;
        std::memcpy(uuid.bytes.data(), take(16, start, "UUID").data(), 16);
        return uuid;
      }
      case kVersionstampCode: return Versionstamp::fromBytes(take(12, start, "versionstamp"));
      default:
        if (code > kNegativeBigIntCode && code < kPositiveBigIntCode) {
          if (code == kIntZeroCode) return int64_t{0};
          bool negative = code < kIntZeroCode;
          size_t n = negative ? kIntZeroCode - code : code - kIntZeroCode;
          return decodeInteger(negative, take(n, start, "integer"));
        }
        fail(start, fmt::format("unknown type code 0x{:02x}", code));
    }
  }

  // A 0x00-terminated string with 0x00 0xff standing for a zero byte.
  Bytes decodeEscaped(size_t start, std::string_view what) {
    Bytes out;
    while (true) {
      size_t zero = data_.find('\0', pos_);
      if (zero == std::string_view::npos) fail(start, fmt::format("unterminated {}", what));
      out.append(data_.substr(pos_, zero - pos_));
      pos_ = zero + 1;
      if (pos_ < data_.size() && byteAt(pos_) == kEscape) {
        out.push_back('\0');
        ++pos_;
      } else {
        return out;
      }
    }
  }

  Tuple decodeNested(size_t start) {
    if (++depth_ > kMaxNestingDepth) fail(start, "nested tuples too deep");
    Tuple tuple;
    while (true) {
      if (pos_ >= data_.size()) fail(start, "unterminated nested tuple");
      if (byteAt(pos_) == kNullCode && (pos_ + 1 >= data_.size() || byteAt(pos_ + 1) != kEscape)) {
        ++pos_;  // the terminator
        --depth_;
        return tuple;
      }
      tuple.append(decodeElement(/*nested=*/true));
    }
  }

  // `encoded` is the magnitude, or its one's complement for a negative number.
  static TupleElement decodeInteger(bool negative, std::string_view encoded) {
    if (!negative) return BigInt::fromMagnitude(false, encoded);
    Bytes magnitude(encoded);
    for (char& c : magnitude) c = static_cast<char>(~c);
    return BigInt::fromMagnitude(true, magnitude);
  }

  template <typename Bits>
  Bits readBigEndian(size_t start, std::string_view what) {
    Bits value = 0;
    for (char c : take(sizeof(Bits), start, what)) value = value << 8 | static_cast<uint8_t>(c);
    return value;
  }

  // Bounds recursion on hostile input; real keys nest a handful of levels.
  static constexpr int kMaxNestingDepth = 1000;

  std::string_view data_;
  size_t pos_ = 0;
  int depth_ = 0;
};

[[noreturn]] void wrongType(const TupleElement& element, TupleType wanted) {
  throw Error(
      errors::kInvalidTupleDataType,
      fmt::format("element is {}, not {}", tupleTypeName(element.type()), tupleTypeName(wanted)));
}

template <typename T>
const T& getAs(const TupleElement& element, TupleType wanted) {
  const T* value = std::get_if<T>(&element.value());
  if (value == nullptr) wrongType(element, wanted);
  return *value;
}

template <typename Bits, typename Float>
std::strong_ordering compareFloating(Float a, Float b) {
  return orderedBits(std::bit_cast<Bits>(a)) <=> orderedBits(std::bit_cast<Bits>(b));
}

}  // namespace

// ---- BigInt -------------------------------------------------------------------------

BigInt::BigInt(int64_t value)
    : negative_(value < 0),
      magnitude_(uint64Magnitude(value < 0 ? 0 - static_cast<uint64_t>(value)
                                           : static_cast<uint64_t>(value))) {}

BigInt BigInt::fromUnsigned(uint64_t value) {
  BigInt out;
  out.magnitude_ = uint64Magnitude(value);
  return out;
}

BigInt BigInt::fromMagnitude(bool negative, std::string_view magnitude) {
  BigInt out;
  out.magnitude_ = trimLeadingZeros(magnitude);
  out.negative_ = negative && !out.magnitude_.empty();
  return out;
}

BigInt BigInt::parse(std::string_view decimal) {
  std::string_view digits = decimal;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) {
    throw std::invalid_argument(fmt::format("'{}' is not an integer: no digits", decimal));
  }
  Bytes magnitude;
  for (char c : digits) {
    if (c < '0' || c > '9') {
      throw std::invalid_argument(
          fmt::format("'{}' is not an integer: '{}' is not a digit", decimal, c));
    }
    multiplyAdd(magnitude, 10, static_cast<unsigned>(c - '0'));
  }
  return fromMagnitude(negative, magnitude);
}

std::optional<int64_t> BigInt::toInt64() const {
  if (magnitude_.size() > 8) return std::nullopt;
  uint64_t magnitude = magnitudeToUint64(magnitude_);
  constexpr uint64_t kMaxPositive = std::numeric_limits<int64_t>::max();
  if (!negative_) {
    if (magnitude > kMaxPositive) return std::nullopt;
    return static_cast<int64_t>(magnitude);
  }
  if (magnitude > kMaxPositive + 1) return std::nullopt;
  return static_cast<int64_t>(0 - magnitude);  // two's complement wrap gives INT64_MIN
}

std::string BigInt::toString() const {
  if (magnitude_.empty()) return "0";
  std::string digits;
  Bytes rest = magnitude_;
  while (!rest.empty()) digits.push_back(static_cast<char>('0' + divideInPlace(rest, 10)));
  if (negative_) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::strong_ordering operator<=>(const BigInt& a, const BigInt& b) {
  if (a.negative_ != b.negative_)
    return a.negative_ ? std::strong_ordering::less : std::strong_ordering::greater;
  // Same sign: compare magnitudes (length first: there are no leading zeros).
  std::strong_ordering byMagnitude = a.magnitude_.size() <=> b.magnitude_.size();
  if (byMagnitude == 0) byMagnitude = a.magnitude_ <=> b.magnitude_;
  return a.negative_ ? 0 <=> byMagnitude : byMagnitude;
}

// ---- Uuid ---------------------------------------------------------------------------

Uuid Uuid::parse(std::string_view text) {
  std::string hex;
  for (char c : text) {
    if (c != '-') hex.push_back(c);
  }
  Bytes bytes;
  try {
    bytes = fromHex(hex);
  } catch (const std::invalid_argument& e) {
    throw Error(errors::kInvalidUuidSize, fmt::format("'{}': {}", text, e.what()));
  }
  if (bytes.size() != 16) {
    throw Error(errors::kInvalidUuidSize,
                fmt::format("'{}' has {} bytes, a UUID has 16", text, bytes.size()));
  }
  Uuid uuid;
  std::memcpy(uuid.bytes.data(), bytes.data(), 16);
  return uuid;
}

std::string Uuid::toString() const {
  std::string hex =
      toHex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20));
}

// ---- Versionstamp -------------------------------------------------------------------

Versionstamp Versionstamp::incomplete(uint16_t userVersion) {
  Versionstamp v;
  v.transactionVersion_.fill(0xff);
  v.userVersion_ = userVersion;
  return v;
}

Versionstamp Versionstamp::complete(const TransactionVersion& transactionVersion,
                                    uint16_t userVersion) {
  Versionstamp v;
  v.transactionVersion_ = transactionVersion;
  v.userVersion_ = userVersion;
  return v;
}

Versionstamp Versionstamp::fromBytes(std::string_view twelveBytes) {
  if (twelveBytes.size() != 12) {
    throw Error(errors::kInvalidVersionstampSize,
                fmt::format("{} bytes given, a versionstamp has 12", twelveBytes.size()));
  }
  Versionstamp v;
  std::memcpy(v.transactionVersion_.data(), twelveBytes.data(), 10);
  v.userVersion_ = static_cast<uint16_t>(static_cast<uint8_t>(twelveBytes[10]) << 8 |
                                         static_cast<uint8_t>(twelveBytes[11]));
  return v;
}

bool Versionstamp::isComplete() const {
  return std::any_of(transactionVersion_.begin(), transactionVersion_.end(),
                     [](uint8_t b) { return b != 0xff; });
}

Bytes Versionstamp::bytes() const {
  Bytes out(reinterpret_cast<const char*>(transactionVersion_.data()), transactionVersion_.size());
  out.push_back(static_cast<char>(userVersion_ >> 8));
  out.push_back(static_cast<char>(userVersion_ & 0xff));
  return out;
}

// ---- TupleElement -------------------------------------------------------------------

std::string_view tupleTypeName(TupleType type) {
  switch (type) {
    case TupleType::kNull: return "null";
    case TupleType::kBytes: return "a byte string";
    case TupleType::kString: return "a unicode string";
    case TupleType::kTuple: return "a nested tuple";
    case TupleType::kInteger: return "an integer";
    case TupleType::kFloat: return "a float";
    case TupleType::kDouble: return "a double";
    case TupleType::kBool: return "a boolean";
    case TupleType::kUuid: return "a UUID";
    case TupleType::kVersionstamp: return "a versionstamp";
  }
  return "an unknown type";
}

TupleElement::TupleElement(BigInt value) {
  if (std::optional<int64_t> small = value.toInt64()) {
    value_ = *small;
  } else {
    value_ = std::move(value);
  }
}

TupleType TupleElement::type() const {
  // Variant alternatives in declaration order; int64_t and BigInt are both integers.
  static constexpr TupleType kTypes[] = {
      TupleType::kNull,    TupleType::kBytes,   TupleType::kString,      TupleType::kTuple,
      TupleType::kInteger, TupleType::kInteger, TupleType::kFloat,       TupleType::kDouble,
      TupleType::kBool,    TupleType::kUuid,    TupleType::kVersionstamp};
  static_assert(std::size(kTypes) == std::variant_size_v<Value>);
  return kTypes[value_.index()];
}

int64_t TupleElement::asInt() const {
  if (const int64_t* small = std::get_if<int64_t>(&value_)) return *small;
  if (const BigInt* big = std::get_if<BigInt>(&value_)) {
    throw Error(errors::kInvalidTupleDataType,
                fmt::format("integer {} does not fit in 64 bits", big->toString()));
  }
  wrongType(*this, TupleType::kInteger);
}

BigInt TupleElement::asBigInt() const {
  if (const int64_t* small = std::get_if<int64_t>(&value_)) return BigInt(*small);
  return getAs<BigInt>(*this, TupleType::kInteger);
}

const std::string& TupleElement::asString() const {
  return getAs<std::string>(*this, TupleType::kString);
}
const Bytes& TupleElement::asBytes() const {
  return getAs<ByteString>(*this, TupleType::kBytes).bytes;
}
const Tuple& TupleElement::asTuple() const { return getAs<Tuple>(*this, TupleType::kTuple); }
float TupleElement::asFloat() const { return getAs<float>(*this, TupleType::kFloat); }
double TupleElement::asDouble() const { return getAs<double>(*this, TupleType::kDouble); }
bool TupleElement::asBool() const { return getAs<bool>(*this, TupleType::kBool); }
const Uuid& TupleElement::asUuid() const { return getAs<Uuid>(*this, TupleType::kUuid); }
const Versionstamp& TupleElement::asVersionstamp() const {
  return getAs<Versionstamp>(*this, TupleType::kVersionstamp);
}

std::strong_ordering operator<=>(const TupleElement& a, const TupleElement& b) {
  if (auto byType = a.type() <=> b.type(); byType != 0) return byType;
  switch (a.type()) {
    case TupleType::kNull: return std::strong_ordering::equal;
    case TupleType::kInteger: {
      // An int64_t is never equal to a BigInt, which only holds values beyond int64_t.
      const int64_t* smallA = std::get_if<int64_t>(&a.value());
      const int64_t* smallB = std::get_if<int64_t>(&b.value());
      if (smallA && smallB) return *smallA <=> *smallB;
      if (!smallA && !smallB) return std::get<BigInt>(a.value()) <=> std::get<BigInt>(b.value());
      const BigInt& big = std::get<BigInt>(smallA ? b.value() : a.value());
      bool aIsLess = smallA ? !big.isNegative() : big.isNegative();
      return aIsLess ? std::strong_ordering::less : std::strong_ordering::greater;
    }
    case TupleType::kFloat: return compareFloating<uint32_t>(a.asFloat(), b.asFloat());
    case TupleType::kDouble: return compareFloating<uint64_t>(a.asDouble(), b.asDouble());
    case TupleType::kBytes: return a.asBytes() <=> b.asBytes();
    case TupleType::kString: return a.asString() <=> b.asString();
    case TupleType::kTuple: return a.asTuple() <=> b.asTuple();
    case TupleType::kBool: return a.asBool() <=> b.asBool();
    case TupleType::kUuid: return a.asUuid() <=> b.asUuid();
    case TupleType::kVersionstamp: return a.asVersionstamp() <=> b.asVersionstamp();
  }
  return std::strong_ordering::equal;
}

// ---- Tuple --------------------------------------------------------------------------

Tuple::Tuple(std::initializer_list<TupleElement> elements) : elements_(elements) {}

Tuple Tuple::unpack(std::string_view packed) { return Decoder(packed).decodeTopLevel(); }

Tuple& Tuple::append(TupleElement element) {
  elements_.push_back(std::move(element));
  return *this;
}

Tuple& Tuple::appendAll(const Tuple& other) {
  elements_.insert(elements_.end(), other.elements_.begin(), other.elements_.end());
  return *this;
}

const TupleElement& Tuple::at(size_t index) const {
  if (index >= elements_.size()) {
    throw Error(errors::kInvalidTupleIndex,
                fmt::format("index {} of a tuple of {} elements", index, elements_.size()));
  }
  return elements_[index];
}

bool Tuple::isNull(size_t index) const { return at(index).isNull(); }
int64_t Tuple::getInt(size_t index) const { return at(index).asInt(); }
BigInt Tuple::getBigInt(size_t index) const { return at(index).asBigInt(); }
const std::string& Tuple::getString(size_t index) const { return at(index).asString(); }
const Bytes& Tuple::getBytes(size_t index) const { return at(index).asBytes(); }
const Tuple& Tuple::getTuple(size_t index) const { return at(index).asTuple(); }
float Tuple::getFloat(size_t index) const { return at(index).asFloat(); }
double Tuple::getDouble(size_t index) const { return at(index).asDouble(); }
bool Tuple::getBool(size_t index) const { return at(index).asBool(); }
const Uuid& Tuple::getUuid(size_t index) const { return at(index).asUuid(); }
const Versionstamp& Tuple::getVersionstamp(size_t index) const {
  return at(index).asVersionstamp();
}

void Tuple::packInto(Bytes& out) const {
  size_t start = out.size();
  Encoder encoder(out);
  encoder.encodeTuple(*this, /*nested=*/false);
  if (encoder.incompleteVersionstamps() > 0) {
    out.resize(start);
    throw Error(errors::kClientInvalidOperation,
                "tuple holds an incomplete versionstamp: use packWithVersionstamp");
  }
}

Bytes Tuple::pack() const {
  Bytes out;
  packInto(out);
  return out;
}

Bytes Tuple::packWithVersionstamp(std::string_view prefix) const {
  Bytes out(prefix);
  Encoder encoder(out);
  encoder.encodeTuple(*this, /*nested=*/false);
  if (encoder.incompleteVersionstamps() != 1) {
    throw Error(errors::kClientInvalidOperation,
                fmt::format("packWithVersionstamp needs exactly one incomplete versionstamp; "
                            "the tuple has {}",
                            encoder.incompleteVersionstamps()));
  }
  auto offset = static_cast<uint32_t>(encoder.versionstampOffset());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((offset >> (8 * i)) & 0xff));
  return out;
}

bool Tuple::hasIncompleteVersionstamp() const {
  return std::any_of(elements_.begin(), elements_.end(), [](const TupleElement& e) {
    if (const auto* v = std::get_if<Versionstamp>(&e.value())) return !v->isComplete();
    if (const auto* t = std::get_if<Tuple>(&e.value())) return t->hasIncompleteVersionstamp();
    return false;
  });
}

KeyRange Tuple::range() const {
  Bytes packed = pack();
  return KeyRange{packed + '\x00', packed + '\xff'};
}

std::strong_ordering operator<=>(const Tuple& a, const Tuple& b) {
  // Element by element; a proper prefix sorts first.
  return std::lexicographical_compare_three_way(a.elements_.begin(), a.elements_.end(),
                                                b.elements_.begin(), b.elements_.end());
}

bool operator==(const Tuple& a, const Tuple& b) { return (a <=> b) == 0; }

}  // namespace fdb
