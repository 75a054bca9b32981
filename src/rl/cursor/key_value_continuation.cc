#include "rl/cursor/key_value_continuation.h"

#include "record_cursor.pb.h"

namespace rl {

using com::apple::foundationdb::record::KeyValueCursorContinuation;

fdb::Bytes wrapKeyValueContinuation(std::string_view keySuffix) {
  KeyValueCursorContinuation proto;
  proto.set_inner_continuation(keySuffix.data(), keySuffix.size());
  proto.set_magic_number(kKeyValueContinuationMagic);
  return proto.SerializeAsString();
}

fdb::Bytes unwrapKeyValueContinuation(std::string_view continuation) {
  KeyValueCursorContinuation proto;
  if (proto.ParseFromArray(continuation.data(), static_cast<int>(continuation.size())) &&
      proto.has_magic_number() && proto.magic_number() == kKeyValueContinuationMagic) {
    return proto.inner_continuation();
  }
  return fdb::Bytes(continuation);
}

}  // namespace rl
