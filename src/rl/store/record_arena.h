// Where the messages of loaded records live: protobuf arenas shared by the records made on
// them. A LoadedRecord's `record` is a std::shared_ptr<const Message> that aliases the
// arena's holder, so a record costs no allocation of its own (only string fields too long
// for std::string's inline buffer allocate), and it keeps its arena (and the records beside
// it) alive as long as it is held.
//
// A cursor makes its records on a RecordArenas; a single load makes its one record on a
// small arena of its own whose first block is inline (SingleRecordArena).
//
//   store::RecordArenas arenas;
//   std::shared_ptr<google::protobuf::Message> message = arenas.newMessage(*prototype);
//
// Thread-safety: one thread at a time (a cursor's); the records handed out may be read
// from any thread, and released from any thread.
#pragma once

#include <cstddef>
#include <memory>

#include <google/protobuf/arena.h>
#include <google/protobuf/message.h>

namespace rl::store {

// The messages of one cursor's records. Records are made on the current arena until it has
// allocated kMaxArenaBytes; then a new one starts, so that a long scan whose caller lets go
// of its records does not keep them all in memory.
class RecordArenas {
 public:
  // The first block of an arena; blocks grow from it (doubling) up to kMaxBlockBytes.
  static constexpr size_t kStartBlockBytes = size_t{4} << 10;
  static constexpr size_t kMaxBlockBytes = size_t{256} << 10;
  static constexpr size_t kMaxArenaBytes = size_t{1} << 20;

  // A new empty message of `prototype`'s type, on the current arena (made at the first call).
  std::shared_ptr<google::protobuf::Message> newMessage(const google::protobuf::Message& prototype);

 private:
  struct Holder {
    Holder();
    google::protobuf::Arena arena;
  };
  std::shared_ptr<Holder> current_;
};

// A new empty message of `prototype`'s type on an arena of its own, allocated together with
// the arena's first block (one allocation for a small record).
std::shared_ptr<google::protobuf::Message> newMessageOnOwnArena(
    const google::protobuf::Message& prototype);

}  // namespace rl::store
