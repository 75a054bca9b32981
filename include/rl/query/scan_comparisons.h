// rl::ScanComparisons — the comparisons an index or primary-key scan is bounded by: equality
// comparisons on its leading columns, then inequalities (or one starts-with) on the next
// column; turned into the scan's TupleRange once parameters are bound (the Java Record
// Layer's ScanComparisons; docs/query.md, "Scan ranges").
//
//   rl::ScanComparisons byCustomer;
//   byCustomer.equalities.push_back(rl::Comparison::of(rl::ComparisonType::kEquals, "c-3"));
//   byCustomer.inequalities.push_back(rl::Comparison::of(rl::ComparisonType::kLessThan, 100));
//   byCustomer.toTupleRange({});   // ([c-3, null],[c-3, 100])
//   byCustomer.toString();         // "([c-3, null],[c-3, 100])" (a range: no parameters)
//
// Thread-safety: a value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rl/cursor/tuple_range.h"
#include "rl/query/bindings.h"
#include "rl/query/comparison.h"

namespace rl {

struct ScanComparisons {
  // One comparison per leading column: EQUALS or IS_NULL (or the record type).
  std::vector<Comparison> equalities;
  // Comparisons on the column after them: LESS_THAN(_OR_EQUALS), GREATER_THAN(_OR_EQUALS),
  // NOT_NULL, or a single STARTS_WITH.
  std::vector<Comparison> inequalities;

  bool empty() const { return equalities.empty() && inequalities.empty(); }
  bool isEquality() const { return inequalities.empty(); }
  size_t size() const { return equalities.size() + inequalities.size(); }
  bool hasParameters() const;

  // The range of keys the comparisons select under `bindings`: every key starting with the
  // equality comparands, narrowed by the inequalities (a bound below that leaves out nulls
  // when only an upper bound is given, as an index keeps nulls first).
  TupleRange toTupleRange(const Bindings& bindings) const;

  // The Java form: the range when no comparison needs a binding ("[[10],>", "([null],[100])",
  // "{[ab],[ab]}"), else the comparisons ("[EQUALS $p, [LESS_THAN 3]]"; the record-type
  // comparison always prints so: "[IS Order]").
  std::string toString() const;

  friend bool operator==(const ScanComparisons&, const ScanComparisons&) = default;
};

// A range in the Java Record Layer's printed form: "[" / "(" / "<" / "{", the low tuple, ",",
// the high tuple, "]" / ")" / ">" / "}" (docs/query.md, "Plans and explain").
std::string javaTupleRangeString(const TupleRange& range);

}  // namespace rl
