// How the Java Record Layer prints the values, ranges and key expressions inside a plan
// (its objects' toString), so that explain() reads as the Java Record Layer's plans do
// (docs/query.md, "Plans and explain"). Private to src/rl/query.
#pragma once

#include <string>
#include <vector>

#include "fdb/tuple.h"
#include "rl/metadata/key_expression.h"

namespace rl::query {

// A value as a Java tuple range prints it: strings unquoted, numbers as Java prints them
// (1.0, 1.0E10), byte strings as a Java byte array ([1, -2]), null as "null".
std::string javaTupleItemString(const fdb::TupleElement& value);
// A comparand as a Java comparison prints it: as above, but byte strings in FoundationDB's
// printable form (\x01\x02).
std::string javaComparandString(const fdb::TupleElement& value);
// A list of comparands: "[a, b]".
std::string javaListString(const std::vector<fdb::TupleElement>& values);
// A tuple as a Java range endpoint: "[a, 1]".
std::string javaTupleString(const fdb::Tuple& tuple);
// A key expression: "Field { 'price' None}", "Field { 'a' None}/Field { 'b' None}",
// "[Field { 'a' None}, Field { 'b' None}]", "RecordTypeKey", "Version", "Empty".
std::string javaKeyExpressionString(const KeyExpression& expression);

}  // namespace rl::query
