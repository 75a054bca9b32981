#include "rl/store/record_arena.h"

namespace rl::store {
namespace {

google::protobuf::ArenaOptions cursorArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = RecordArenas::kStartBlockBytes;
  options.max_block_size = RecordArenas::kMaxBlockBytes;
  return options;
}

// An arena whose first block sits in the same allocation (declared before the arena, so it
// outlives it).
struct InlineBlockArena {
  static constexpr size_t kInlineBlockBytes = 1024;

  InlineBlockArena() : arena(options(block)) {}
  static google::protobuf::ArenaOptions options(char* block) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = kInlineBlockBytes;
    options.start_block_size = RecordArenas::kStartBlockBytes;
    options.max_block_size = RecordArenas::kMaxBlockBytes;
    return options;
  }

  alignas(std::max_align_t) char block[kInlineBlockBytes];
  google::protobuf::Arena arena;
};

}  // namespace

RecordArenas::Holder::Holder() : arena(cursorArenaOptions()) {}

std::shared_ptr<google::protobuf::Message> RecordArenas::newMessage(
    const google::protobuf::Message& prototype) {
  if (current_ == nullptr || current_->arena.SpaceAllocated() >= kMaxArenaBytes) {
    current_ = std::make_shared<Holder>();
  }
  google::protobuf::Message* message = prototype.New(&current_->arena);
  // Owned by the arena: the pointer shares the holder's ownership (aliasing, no allocation).
  return std::shared_ptr<google::protobuf::Message>(current_, message);
}

std::shared_ptr<google::protobuf::Message> newMessageOnOwnArena(
    const google::protobuf::Message& prototype) {
  auto holder = std::make_shared<InlineBlockArena>();
  google::protobuf::Message* message = prototype.New(&holder->arena);
  return std::shared_ptr<google::protobuf::Message>(std::move(holder), message);
}

}  // namespace rl::store
