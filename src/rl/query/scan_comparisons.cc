#include "rl/query/scan_comparisons.h"

#include <algorithm>

#include "rl/query/java_format.h"
#include "rl/record_core_exception.h"

namespace rl {
namespace {

std::string_view endpointString(EndpointType type, bool high) {
  switch (type) {
    case EndpointType::kTreeStart: return "<";
    case EndpointType::kTreeEnd: return ">";
    case EndpointType::kRangeInclusive: return high ? "]" : "[";
    case EndpointType::kRangeExclusive: return high ? ")" : "(";
    case EndpointType::kPrefixString: return high ? "}" : "{";
    case EndpointType::kContinuation: return "?";
  }
  return "?";
}

// Combines the inequalities on one column into a range's ends (docs/query.md, "Scan ranges"):
// the tightest bound on each side; an upper bound alone also leaves out nulls (they sort
// first in an index).
class InequalityRange {
 public:
  InequalityRange(const fdb::Tuple& base) : base_(base) {
    if (base.empty()) {
      lowEndpoint_ = EndpointType::kTreeStart;
      highEndpoint_ = EndpointType::kTreeEnd;
    } else {
      lowEndpoint_ = highEndpoint_ = EndpointType::kRangeInclusive;
    }
  }

  void add(ComparisonType type, const fdb::TupleElement& comparand) {
    switch (type) {
      case ComparisonType::kGreaterThan:
        if (!lowItem_ || *lowItem_ <= comparand) setLow(comparand, EndpointType::kRangeExclusive);
        break;
      case ComparisonType::kGreaterThanOrEquals:
        if (!lowItem_ || *lowItem_ < comparand) setLow(comparand, EndpointType::kRangeInclusive);
        break;
      case ComparisonType::kNotNull:
        if (!lowItem_) excludeNulls();
        break;
      case ComparisonType::kLessThan:
        if (!highItem_ || *highItem_ >= comparand)
          setHigh(comparand, EndpointType::kRangeExclusive);
        if (!lowItem_) excludeNulls();
        break;
      case ComparisonType::kLessThanOrEquals:
        if (!highItem_ || *highItem_ > comparand) setHigh(comparand, EndpointType::kRangeInclusive);
        if (!lowItem_) excludeNulls();
        break;
      default:
        throw RecordCoreArgumentException(std::string("not a range comparison: ") +
                                          std::string(comparisonTypeName(type)));
    }
  }

  TupleRange range() const {
    return TupleRange{endpoint(hasLow_, lowItem_), endpoint(hasHigh_, highItem_), lowEndpoint_,
                      highEndpoint_};
  }

 private:
  void setLow(const fdb::TupleElement& item, EndpointType type) {
    lowItem_ = item;
    lowEndpoint_ = type;
    hasLow_ = true;
  }
  void setHigh(const fdb::TupleElement& item, EndpointType type) {
    highItem_ = item;
    highEndpoint_ = type;
    hasHigh_ = true;
  }
  void excludeNulls() {
    lowEndpoint_ = EndpointType::kRangeExclusive;
    hasLow_ = true;
  }
  std::optional<fdb::Tuple> endpoint(bool has, const std::optional<fdb::TupleElement>& item) const {
    if (has) {
      fdb::Tuple tuple = base_;
      tuple.append(item ? *item : fdb::TupleElement(nullptr));
      return tuple;
    }
    if (base_.empty()) return std::nullopt;
    return base_;
  }

  const fdb::Tuple& base_;
  std::optional<fdb::TupleElement> lowItem_;
  std::optional<fdb::TupleElement> highItem_;
  EndpointType lowEndpoint_;
  EndpointType highEndpoint_;
  bool hasLow_ = false;
  bool hasHigh_ = false;
};

}  // namespace

bool ScanComparisons::hasParameters() const {
  auto needsBinding = [](const Comparison& c) {
    return c.hasParameter() || c.isRecordTypeComparison();
  };
  return std::any_of(equalities.begin(), equalities.end(), needsBinding) ||
         std::any_of(inequalities.begin(), inequalities.end(), needsBinding);
}

TupleRange ScanComparisons::toTupleRange(const Bindings& bindings) const {
  if (empty()) return TupleRange::all();
  fdb::Tuple base;
  for (const Comparison& equality : equalities) {
    if (equality.type() == ComparisonType::kIsNull) {
      base.append(nullptr);
    } else {
      base.append(equality.comparandValue(bindings));
    }
  }
  if (inequalities.empty()) return TupleRange::allOf(base);
  if (inequalities.size() == 1 && inequalities[0].type() == ComparisonType::kStartsWith) {
    fdb::Tuple prefix = base;
    prefix.append(inequalities[0].comparandValue(bindings));
    return TupleRange{prefix, prefix, EndpointType::kPrefixString, EndpointType::kPrefixString};
  }
  InequalityRange range(base);
  for (const Comparison& inequality : inequalities) {
    if (inequality.type() == ComparisonType::kNotNull) {
      range.add(inequality.type(), nullptr);
    } else {
      range.add(inequality.type(), inequality.comparandValue(bindings));
    }
  }
  return range.range();
}

std::string ScanComparisons::toString() const {
  if (!hasParameters()) return javaTupleRangeString(toTupleRange(Bindings()));
  std::string out = "[";
  for (size_t i = 0; i < equalities.size(); ++i) {
    if (i > 0) out += ", ";
    out += equalities[i].toString();
  }
  if (!inequalities.empty()) {
    std::vector<std::string> parts;
    for (const Comparison& inequality : inequalities) parts.push_back(inequality.toString());
    std::sort(parts.begin(), parts.end());
    if (!equalities.empty()) out += ", ";
    out += "[";
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) out += " && ";
      out += parts[i];
    }
    out += "]";
  }
  return out + "]";
}

std::string javaTupleRangeString(const TupleRange& range) {
  std::string out(endpointString(range.lowEndpoint, false));
  if (range.low) out += query::javaTupleString(*range.low);
  out += ",";
  if (range.high) out += query::javaTupleString(*range.high);
  out += endpointString(range.highEndpoint, true);
  return out;
}

}  // namespace rl
