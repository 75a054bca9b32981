// rl::MetaDataException — what the Record Layer throws when metadata or a key expression
// is not valid: a schema without a union message, a record type without a primary key,
// an expression naming a field its record type does not have, two indexes of one name,
// a .proto file that does not parse.
//
//   try {
//     rl::RecordMetaData metaData = rl::RecordMetaData::build(Order::descriptor()->file());
//   } catch (const rl::MetaDataException& e) {
//     std::cerr << e.what() << "\n";   // "record type Order must have a primary key"
//   }
//
// Thread-safety: a value; const access from many threads is safe.
#pragma once

#include <stdexcept>

namespace rl {

class MetaDataException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rl
