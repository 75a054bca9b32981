// The record store's errors: each names what went wrong when opening a store, saving,
// loading or scanning records and indexes. All are rl::RecordCoreException subclasses
// (FoundationDB's own failures stay fdb::Error so retry loops see them).
//
//   try {
//     store.saveRecord(order, rl::SaveMode::kInsert);
//   } catch (const rl::RecordAlreadyExistsException& e) {
//     log(e.what());   // "record already exists: primary key (42,)"
//   }
//
// Thread-safety: immutable once constructed.
#pragma once

#include <string>

#include "fdb/tuple.h"
#include "rl/record_core_exception.h"

namespace rl {

// --- Opening a store ---

// Opened with StoreExistenceCheck::kErrorIfExists and the store has a header.
class RecordStoreAlreadyExistsException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// Opened with StoreExistenceCheck::kErrorIfNotExists and the store has no header.
class RecordStoreDoesNotExistException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// The store's keyspace holds keys but no header (docs/format.md, "Store header").
class RecordStoreNoInfoAndNotEmptyException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// The stored (or requested) format version is outside 1..15.
class UnsupportedFormatVersionException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// The store was last used with a newer metadata version than the one opening it.
class RecordStoreStaleMetaDataVersionException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// The user version checker returned a version older than the stored one.
class RecordStoreStaleUserVersionException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// The header's store lock refuses the operation (a FULL_STORE lock refuses opening, a
// FORBID_RECORD_UPDATE lock refuses saving and deleting records).
class StoreIsLockedException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// --- Records ---

// SaveMode::kInsert of a primary key that already has a record.
class RecordAlreadyExistsException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// SaveMode::kUpdate of a primary key that has no record.
class RecordDoesNotExistException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// SaveMode::kUpdate with a record of another type than the stored one.
class RecordTypeChangedException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// Stored bytes that are not a union message with exactly one known record field, or a
// record message of another type than the one asked for.
class RecordDeserializationException : public RecordSerializationException {
 public:
  using RecordSerializationException::RecordSerializationException;
};

// --- Indexes ---

// A unique index already has an entry with the same value for another record.
class RecordIndexUniquenessViolation : public RecordCoreException {
 public:
  RecordIndexUniquenessViolation(const std::string& message, std::string indexName,
                                 fdb::Tuple valueKey, fdb::Tuple primaryKey,
                                 fdb::Tuple existingPrimaryKey)
      : RecordCoreException(message),
        indexName(std::move(indexName)),
        valueKey(std::move(valueKey)),
        primaryKey(std::move(primaryKey)),
        existingPrimaryKey(std::move(existingPrimaryKey)) {}

  std::string indexName;
  fdb::Tuple valueKey;            // the indexed value both records have
  fdb::Tuple primaryKey;          // the record being saved
  fdb::Tuple existingPrimaryKey;  // the record that already had it
};

// An index entry key over 10,000 bytes or value over 100,000 bytes (the store's limits).
class IndexEntryTooLargeException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// A scan of an index that is not READABLE (or READABLE_UNIQUE_PENDING).
class ScanNonReadableIndexException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// An index cannot be marked readable: it still has uniqueness violations.
class IndexNotBuiltException : public RecordCoreException {
 public:
  using RecordCoreException::RecordCoreException;
};

// deleteRecordsWhere on a prefix some index cannot delete by range (its key does not
// start with the same columns as the primary key).
class DeleteRecordsWhereException : public RecordCoreArgumentException {
 public:
  using RecordCoreArgumentException::RecordCoreArgumentException;
};

}  // namespace rl
