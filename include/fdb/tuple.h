// fdb::Tuple — FoundationDB's tuple layer, exact to the byte.
//
// A tuple is an ordered list of typed elements that packs into a byte string whose
// bytewise order equals the tuple order. It is how every key of the record layer is
// built, and its encoding is the one the Java, Python and Go bindings read and write
// (docs/tuple.md describes it, type code by type code).
//
//   fdb::Tuple key{"orders", 42, nullptr};
//   fdb::Bytes packed = key.pack();                  // 02 6f 72 64 65 72 73 00 15 2a 00
//   fdb::Tuple back = fdb::Tuple::unpack(packed);    // == key
//   int64_t id = back.getInt(1);                     // 42
//
// Element types and their C++ forms:
//   null           std::nullptr_t          integer   int64_t, or BigInt beyond int64
//   byte string    fdb::ByteString         float     float      double   double
//   unicode string std::string (UTF-8)     boolean   bool       UUID     fdb::Uuid
//   nested tuple   fdb::Tuple              96-bit versionstamp        fdb::Versionstamp
//
// Integers are one type whatever their size: an element holds an int64_t when the value
// fits and a BigInt otherwise, so equal numbers are equal elements. Packing writes what
// the Java and Go bindings write (magnitudes up to 2^64-1 in at most eight bytes); unpacking
// also accepts the Python binding's 0x1d/0x0b form for them.
//
// Errors are fdb::Error: 2250 invalid_tuple_data_type for malformed bytes or an element of
// another type than asked, 2251 invalid_tuple_index for an index out of range, 2000
// client_invalid_operation for misuse of incomplete versionstamps.
//
// Thread-safety: a Tuple is a value; const access from many threads is safe.
#pragma once

#include <array>
#include <compare>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fdb/bytes.h"

namespace fdb {

// A byte-string element (type code 0x01), as opposed to a unicode string (0x02).
struct ByteString {
  Bytes bytes;

  friend auto operator<=>(const ByteString&, const ByteString&) = default;
};

// An integer of any size the tuple layer encodes: up to 255 bytes of magnitude.
class BigInt {
 public:
  BigInt() = default;     // zero
  BigInt(int64_t value);  // NOLINT(google-explicit-constructor): integers convert freely
  static BigInt fromUnsigned(uint64_t value);
  // `magnitude` is big-endian; leading zero bytes are ignored.
  static BigInt fromMagnitude(bool negative, std::string_view magnitude);
  // Decimal digits with an optional leading '-' or '+'. Throws std::invalid_argument.
  static BigInt parse(std::string_view decimal);

  bool isNegative() const { return negative_; }
  bool isZero() const { return magnitude_.empty(); }
  // Big-endian magnitude with no leading zero bytes (empty for zero).
  const Bytes& magnitude() const { return magnitude_; }
  std::optional<int64_t> toInt64() const;
  std::string toString() const;  // decimal

  friend std::strong_ordering operator<=>(const BigInt& a, const BigInt& b);
  friend bool operator==(const BigInt& a, const BigInt& b) = default;

 private:
  bool negative_ = false;  // never true for zero
  Bytes magnitude_;
};

// A 16-byte UUID in RFC 4122 network byte order (type code 0x30).
struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // 32 hex digits, with or without the four dashes of the canonical form.
  // Throws fdb::Error 2268 invalid_uuid_size when it is not sixteen bytes of hex.
  static Uuid parse(std::string_view text);
  std::string toString() const;  // canonical 8-4-4-4-12 lowercase form

  friend auto operator<=>(const Uuid&, const Uuid&) = default;
};

// A 96-bit versionstamp (type code 0x33): the 10-byte transaction version a commit
// assigns (commit version big-endian, then batch order big-endian) and a 2-byte user
// version. An incomplete versionstamp has ten 0xff bytes in place of the transaction
// version; the database fills them in at commit (SET_VERSIONSTAMPED_KEY/VALUE).
class Versionstamp {
 public:
  using TransactionVersion = std::array<uint8_t, 10>;

  static Versionstamp incomplete(uint16_t userVersion = 0);
  static Versionstamp complete(const TransactionVersion& transactionVersion,
                               uint16_t userVersion = 0);
  // The 12-byte encoding. Throws fdb::Error 2269 invalid_versionstamp_size.
  static Versionstamp fromBytes(std::string_view twelveBytes);

  bool isComplete() const;
  const TransactionVersion& transactionVersion() const { return transactionVersion_; }
  uint16_t userVersion() const { return userVersion_; }
  Bytes bytes() const;  // the 12-byte encoding

  friend auto operator<=>(const Versionstamp&, const Versionstamp&) = default;

 private:
  TransactionVersion transactionVersion_{};
  uint16_t userVersion_ = 0;
};

// The element types in tuple order (every integer is one type).
enum class TupleType {
  kNull,
  kBytes,
  kString,
  kTuple,
  kInteger,
  kFloat,
  kDouble,
  kBool,
  kUuid,
  kVersionstamp,
};
std::string_view tupleTypeName(TupleType type);

class TupleElement;

class Tuple {
 public:
  Tuple() = default;
  Tuple(std::initializer_list<TupleElement> elements);

  // Decodes a packed tuple. Throws fdb::Error 2250 naming the byte offset when `packed`
  // is not exactly one well-formed tuple; never reads outside `packed`.
  static Tuple unpack(std::string_view packed);

  // Appends one element (a Tuple argument becomes a nested tuple).
  Tuple& append(TupleElement element);
  // Appends every element of `other` (concatenation, not nesting).
  Tuple& appendAll(const Tuple& other);

  // (Bodies after TupleElement: vector members need the complete element type.)
  size_t size() const;
  bool empty() const;
  // Throws fdb::Error 2251 invalid_tuple_index when `index` is out of range.
  const TupleElement& at(size_t index) const;
  const TupleElement& operator[](size_t index) const;
  std::vector<TupleElement>::const_iterator begin() const;
  std::vector<TupleElement>::const_iterator end() const;
  const std::vector<TupleElement>& elements() const { return elements_; }

  // Typed access by index: at(index).asX().
  bool isNull(size_t index) const;
  int64_t getInt(size_t index) const;
  BigInt getBigInt(size_t index) const;
  const std::string& getString(size_t index) const;
  const Bytes& getBytes(size_t index) const;
  const Tuple& getTuple(size_t index) const;
  float getFloat(size_t index) const;
  double getDouble(size_t index) const;
  bool getBool(size_t index) const;
  const Uuid& getUuid(size_t index) const;
  const Versionstamp& getVersionstamp(size_t index) const;

  // The packed encoding. Throws fdb::Error 2000 when the tuple holds an incomplete
  // versionstamp (use packWithVersionstamp), and 2250 for an integer over 255 bytes.
  Bytes pack() const;
  // Appends the packed encoding to `out`.
  void packInto(Bytes& out) const;
  // `prefix` + the packed encoding + the 4-byte little-endian offset of the one
  // incomplete versionstamp's transaction version within that key: the operand of
  // SET_VERSIONSTAMPED_KEY / SET_VERSIONSTAMPED_VALUE. Throws fdb::Error 2000 unless the
  // tuple (nested tuples included) holds exactly one incomplete versionstamp.
  Bytes packWithVersionstamp(std::string_view prefix = {}) const;
  bool hasIncompleteVersionstamp() const;

  // Every key that packs a tuple strictly extending this one:
  // [pack() + 0x00, pack() + 0xff).
  KeyRange range() const;

  friend std::strong_ordering operator<=>(const Tuple& a, const Tuple& b);
  friend bool operator==(const Tuple& a, const Tuple& b);

 private:
  std::vector<TupleElement> elements_;
};

class TupleElement {
 public:
  using Value = std::variant<std::nullptr_t, ByteString, std::string, Tuple, int64_t, BigInt, float,
                             double, bool, Uuid, Versionstamp>;

  TupleElement(std::nullptr_t = nullptr) : value_(nullptr) {}         // NOLINT
  TupleElement(ByteString bytes) : value_(std::move(bytes)) {}        // NOLINT
  TupleElement(std::string text) : value_(std::move(text)) {}         // NOLINT
  TupleElement(std::string_view text) : value_(std::string(text)) {}  // NOLINT
  TupleElement(const char* text) : value_(std::string(text)) {}       // NOLINT
  TupleElement(Tuple nested) : value_(std::move(nested)) {}           // NOLINT
  TupleElement(BigInt value);                                         // NOLINT
  template <std::integral I>
  requires(!std::same_as<I, bool> && !std::same_as<I, char>) TupleElement(I value) {  // NOLINT
    if constexpr (std::is_signed_v<I>) {
      value_ = static_cast<int64_t>(value);
    } else if (static_cast<uint64_t>(value) <= static_cast<uint64_t>(INT64_MAX)) {
      value_ = static_cast<int64_t>(value);
    } else {
      value_ = BigInt::fromUnsigned(static_cast<uint64_t>(value));
    }
  }
  TupleElement(float value) : value_(value) {}                       // NOLINT
  TupleElement(double value) : value_(value) {}                      // NOLINT
  TupleElement(bool value) : value_(value) {}                        // NOLINT
  TupleElement(Uuid uuid) : value_(uuid) {}                          // NOLINT
  TupleElement(Versionstamp versionstamp) : value_(versionstamp) {}  // NOLINT

  TupleType type() const;
  const Value& value() const { return value_; }

  bool isNull() const { return std::holds_alternative<std::nullptr_t>(value_); }
  // Throws fdb::Error 2250 when the element is not of the type asked for, or (asInt)
  // is an integer outside int64_t.
  int64_t asInt() const;
  BigInt asBigInt() const;
  const std::string& asString() const;
  const Bytes& asBytes() const;
  const Tuple& asTuple() const;
  float asFloat() const;
  double asDouble() const;
  bool asBool() const;
  const Uuid& asUuid() const;
  const Versionstamp& asVersionstamp() const;

  // Tuple order: by type (TupleType order), then by value; floating-point values by
  // IEEE total order (-NaN < -inf < -0.0 < 0.0 < inf < NaN), so -0.0 != 0.0.
  friend std::strong_ordering operator<=>(const TupleElement& a, const TupleElement& b);
  friend bool operator==(const TupleElement& a, const TupleElement& b) {
    return (a <=> b) == std::strong_ordering::equal;
  }

 private:
  Value value_;  // an integer is int64_t when it fits, BigInt only when it does not
};

inline size_t Tuple::size() const { return elements_.size(); }
inline bool Tuple::empty() const { return elements_.empty(); }
inline const TupleElement& Tuple::operator[](size_t index) const { return elements_[index]; }
inline std::vector<TupleElement>::const_iterator Tuple::begin() const { return elements_.begin(); }
inline std::vector<TupleElement>::const_iterator Tuple::end() const { return elements_.end(); }

}  // namespace fdb
