// The Record Layer's own errors: what went wrong above FoundationDB.
//
// FoundationDB's failures stay fdb::Error (code + name) so that retry loops see them; a
// failure of the Record Layer itself (a malformed stored record, a misuse of the API, a
// scan limit that was asked to fail) is an rl::RecordCoreException or one of its
// subclasses, each named for what it means:
//
//   try {
//     auto record = rl::loadWithSplit(context, records, fdb::Tuple{42});
//   } catch (const rl::FoundSplitOutOfOrderException& e) {
//     log(e.what());  // "Split record segments out of order: expected 3, found 4 ..."
//   }
//
// Thread-safety: immutable once constructed.
#pragma once

#include <stdexcept>
#include <string>

namespace rl {

class RecordCoreException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller passed something the operation cannot accept.
class RecordCoreArgumentException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// What is stored is not what the Record Layer writes (corrupt or foreign data).
class RecordCoreStorageException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// A split record whose chunks are not consecutive.
class FoundSplitOutOfOrderException : public RecordCoreStorageException {
 public:
  using RecordCoreStorageException::RecordCoreStorageException;
};

// Part of a split record (or a version) without the record's first chunk.
class FoundSplitWithoutStartException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// A scan reached its scanned-records/bytes/time limit and was told to fail rather than stop
// (ExecuteProperties::failOnScanLimitReached).
class ScanLimitReachedException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// Stored record bytes that the serializer cannot turn back into a record's bytes.
class RecordSerializationException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

}  // namespace rl
