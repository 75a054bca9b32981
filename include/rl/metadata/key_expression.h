// rl::KeyExpression — how a record becomes the tuples of its primary key and index entries.
//
// A key expression reads fields of a protobuf record (a generated message or a
// DynamicMessage, through reflection) and yields a list of keys, each a list of tuple
// elements: one key for a scalar expression, one per element when it fans out over a
// repeated field, none when it fans out over an empty one. It has the Java Record Layer's
// semantics and serialized form (record_key_expression.proto; docs/format.md, "Key
// expressions"), so an index defined by either writes the same entries.
//
//   rl::KeyExpression byCustomerAndPrice =
//       rl::concat(rl::field("customer").nest("id"), rl::field("price"));
//   std::vector<rl::EvaluatedKey> keys = byCustomerAndPrice.evaluate(order);
//   fdb::Bytes entry = keys[0].columns.pack();      // (customer.id, price)
//
// Kinds and their columns (columnSize()):
//   field(name)                   1; FanType says how a repeated field is read
//   field(p).nest(child)          child's columns, evaluated on the message field p holds
//   concat(a, b, ...)             a's columns then b's...; the cartesian product of their keys
//   list(a, b, ...)               one nested-tuple column per child
//   x.groupBy(g...), x.ungrouped()  g's then x's columns; x's are the aggregated ones
//   keyWithValue(inner, n)        n (the rest of inner's columns are an index entry's value)
//   version()                     1: the record's versionstamp, or null
//   recordType()                  1: the record type key
//   empty()                       0
//   value(x)                      1: the constant x
// Function, Split and Dimensions expressions are not supported: fromProto rejects them.
//
// How field values become tuple elements: string → unicode string, bytes → byte string,
// bool → bool, every integer type → integer, float → float, double → double, enum → its
// number, tuple_fields.proto's UUID → UUID and Nullable* → the wrapped scalar (an unset
// wrapper is null, a set one with no value is the type's default), a repeated field read
// with kConcatenate → a nested tuple. An unset field is null (proto3 fields without
// presence: when at their default) unless the field says NullInterpretation::kNotNull,
// which reads the type's default instead.
//
// Errors are rl::MetaDataException: fromProto on a malformed message, validate() on an
// expression that does not fit a record type, evaluate() on a record it does not fit
// (a message-typed field read as a scalar, a scalar field read as repeated).
//
// Thread-safety: a KeyExpression is an immutable value sharing its nodes; evaluating one
// expression from many threads at once is safe.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/tuple.h"
#include "record_key_expression.pb.h"

namespace google::protobuf {
class Descriptor;
class Message;
}  // namespace google::protobuf

namespace rl {

// The serialized form (record_key_expression.proto).
using KeyExpressionProto = ::com::apple::foundationdb::record::expressions::KeyExpression;
using KeyExpressionValueProto = ::com::apple::foundationdb::record::expressions::Value;

// How a field expression reads a repeated field.
enum class FanType {
  kScalar,       // the field is not repeated: one column
  kFanOut,       // one key per element; an empty field gives no key at all
  kConcatenate,  // one column holding every element as a nested tuple
};

// What an unset field reads as.
enum class NullInterpretation {
  kNotUnique,  // null; a key holding it is exempt from unique-index checks (the default)
  kUnique,     // null, and two nulls collide in a unique index
  kNotNull,    // the field type's default value (0, "", false, an empty list)
};

// What evaluation needs beyond the record message itself.
struct EvaluationContext {
  // What recordType() yields: the record type's key (RecordType::recordTypeKey()).
  fdb::TupleElement recordTypeKey;
  // What version() yields: the record's 12-byte version, or null when it has none.
  std::optional<fdb::Versionstamp> version;
};

// One key an expression yields for a record.
struct EvaluatedKey {
  fdb::Tuple columns;
  // A column is a null standing for an unset field read with NullInterpretation::kNotUnique:
  // a unique index does not check this key.
  bool containsNonUniqueNull = false;

  // Columns [begin, end) as a tuple (for example an index entry's key and value parts).
  fdb::Tuple subTuple(size_t begin, size_t end) const;

  friend bool operator==(const EvaluatedKey&, const EvaluatedKey&) = default;
};

class KeyExpression {
 public:
  enum class Kind {
    kField,
    kNesting,
    kThen,
    kList,
    kGrouping,
    kKeyWithValue,
    kVersion,
    kRecordTypeKey,
    kEmpty,
    kLiteral,
  };

  // The empty expression.
  KeyExpression();

  Kind kind() const;
  // How many columns every key it yields has.
  int columnSize() const;

  // The keys this expression yields for `record`, in the Java Record Layer's order.
  std::vector<EvaluatedKey> evaluate(const google::protobuf::Message& record,
                                     const EvaluationContext& context = {}) const;
  // The same, into `keys` (cleared first), so a caller can reuse its buffers.
  void evaluateInto(const google::protobuf::Message& record, const EvaluationContext& context,
                    std::vector<EvaluatedKey>& keys) const;
  // The one key this expression yields (a primary key). Throws MetaDataException when it
  // yields none or several.
  fdb::Tuple evaluateSingleton(const google::protobuf::Message& record,
                               const EvaluationContext& context = {}) const;

  // Building on a field: the field must hold a message (or repeated messages, with
  // kFanOut); `child` is evaluated on it. Throws MetaDataException on other kinds.
  KeyExpression nest(const KeyExpression& child) const;
  KeyExpression nest(std::string_view fieldName, FanType fanType = FanType::kScalar) const;
  // An aggregate index's key: `groupingKeys` then this; this expression's columns are
  // the aggregated ones.
  template <std::same_as<KeyExpression>... Rest>
  KeyExpression groupBy(const KeyExpression& first, const Rest&... rest) const {
    return groupByAll({first, rest...});
  }
  KeyExpression groupByAll(const std::vector<KeyExpression>& groupingKeys) const;
  // Every column aggregated, no group.
  KeyExpression ungrouped() const;

  // Inspection. Each accessor is valid on the kinds it names and throws
  // MetaDataException on others.
  const std::string& fieldName() const;                // kField; kNesting: the parent field
  FanType fanType() const;                             // kField, kNesting (the parent's)
  NullInterpretation nullInterpretation() const;       // kField, kNesting (the parent's)
  const std::vector<KeyExpression>& children() const;  // kThen, kList; kNesting: {child};
                                                       // kGrouping, kKeyWithValue: {inner}
  int groupedCount() const;                            // kGrouping: aggregated columns
  int groupingCount() const;                           // kGrouping: group columns
  int splitPoint() const;                              // kKeyWithValue
  const fdb::TupleElement& literalValue() const;       // kLiteral

  // Whether a record may yield more than one key (a fan-out somewhere).
  bool createsDuplicates() const;
  // Whether recordType() appears in it; how many version() columns it has.
  bool hasRecordTypeKey() const;
  int versionColumns() const;

  // Checks that every field it names exists in `recordType` with a matching shape.
  // Throws MetaDataException naming the field otherwise.
  void validate(const google::protobuf::Descriptor& recordType) const;

  // One single-column expression per column (Java's normalizeKeyForPositions), the unit
  // in which an index's columns are matched against the primary key's.
  std::vector<KeyExpression> normalizeKeyForPositions() const;
  // Equality as the Java Record Layer matches columns: like ==, but fields compare by name
  // and fan type only (null interpretation ignored).
  bool matchesColumn(const KeyExpression& other) const;

  KeyExpressionProto toProto() const;
  // Throws MetaDataException when `proto` sets no kind, several, or an unsupported one.
  static KeyExpression fromProto(const KeyExpressionProto& proto);

  // A readable form, e.g. "concat(field(customer).nest(field(id)), field(price))".
  std::string toString() const;

  friend bool operator==(const KeyExpression& a, const KeyExpression& b);

  struct Node;  // (implementation)

 private:
  explicit KeyExpression(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  friend class KeyExpressionFactory;
  const Node& node() const { return *node_; }

  std::shared_ptr<const Node> node_;
};

// The builders.
KeyExpression field(std::string_view name, FanType fanType = FanType::kScalar,
                    NullInterpretation nulls = NullInterpretation::kNotUnique);
// The children's columns side by side; a child that is itself a concat is flattened.
// Throws MetaDataException for fewer than two children.
KeyExpression concatAll(const std::vector<KeyExpression>& children);
template <std::same_as<KeyExpression>... Rest>
KeyExpression concat(const KeyExpression& first, const KeyExpression& second, const Rest&... rest) {
  return concatAll({first, second, rest...});
}
// concat(field(a), field(b), ...)
template <std::convertible_to<std::string_view>... Rest>
KeyExpression concatenateFields(std::string_view first, std::string_view second,
                                const Rest&... rest) {
  return concatAll({field(first), field(second), field(std::string_view(rest))...});
}
KeyExpression listAll(const std::vector<KeyExpression>& children);
template <std::same_as<KeyExpression>... Rest>
KeyExpression list(const KeyExpression& first, const Rest&... rest) {
  return listAll({first, rest...});
}
// `wholeKey` with its last `groupedCount` columns aggregated.
KeyExpression grouping(const KeyExpression& wholeKey, int groupedCount);
// `inner`'s first `splitPoint` columns are an index entry's key, the rest its value.
KeyExpression keyWithValue(const KeyExpression& inner, int splitPoint);
KeyExpression version();
KeyExpression recordType();
KeyExpression empty();

// Constants. Integers of at most 32 bits are stored as the proto's int_value, wider ones
// as long_value (as Java stores Integer and Long); both yield the same tuple integer.
KeyExpression value(std::nullptr_t);
KeyExpression value(bool v);
KeyExpression value(int32_t v);
KeyExpression value(int64_t v);
KeyExpression value(float v);
KeyExpression value(double v);
KeyExpression value(std::string_view v);
inline KeyExpression value(const char* v) { return value(std::string_view(v)); }
KeyExpression value(const fdb::ByteString& v);
template <std::integral I>
requires(!std::same_as<I, bool> && !std::same_as<I, int32_t> &&
         !std::same_as<I, int64_t>) KeyExpression value(I v) {
  if constexpr (sizeof(I) <= 4 && std::is_signed_v<I>) {
    return value(static_cast<int32_t>(v));
  } else {
    return value(static_cast<int64_t>(v));
  }
}
// A constant from its serialized form; Throws MetaDataException when several fields are set.
KeyExpression valueFromProto(const KeyExpressionValueProto& proto);
// The tuple element a serialized constant stands for.
fdb::TupleElement tupleElementFromValueProto(const KeyExpressionValueProto& proto);

}  // namespace rl
