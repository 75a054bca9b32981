#include "rl/cursor/tuple_range.h"

#include <fmt/format.h>

#include "rl/record_core_exception.h"

namespace rl {
namespace {

bool sharesPrefix(std::string_view bytes, std::string_view prefixSource, size_t length) {
  return bytes.size() >= length && prefixSource.size() >= length &&
         bytes.substr(0, length) == prefixSource.substr(0, length);
}

// PREFIX_STRING endpoints must come in pairs (or with a continuation) and name the same
// packed string, whose terminating 0x00 toRange drops.
void checkPrefixString(const std::optional<fdb::Bytes>& low, const std::optional<fdb::Bytes>& high,
                       EndpointType lowEndpoint, EndpointType highEndpoint) {
  if (!low || !high) throw RecordCoreArgumentException("PREFIX_STRING needs both endpoints");
  const bool lowOk =
      lowEndpoint == EndpointType::kPrefixString || lowEndpoint == EndpointType::kContinuation;
  const bool highOk =
      highEndpoint == EndpointType::kPrefixString || highEndpoint == EndpointType::kContinuation;
  if (!lowOk || !highOk) {
    throw RecordCoreArgumentException("PREFIX_STRING must be the type of both endpoints");
  }
  auto endsInZero = [](const fdb::Bytes& b) { return !b.empty() && b.back() == '\0'; };
  if (lowEndpoint == EndpointType::kContinuation) {
    if (high->empty() || !sharesPrefix(*low, *high, high->size() - 1)) {
      throw RecordCoreArgumentException("PREFIX_STRING continuation is outside the prefix");
    }
    if (!endsInZero(*high)) throw RecordCoreArgumentException("expected a string bound");
  } else if (highEndpoint == EndpointType::kContinuation) {
    if (low->empty() || !sharesPrefix(*high, *low, low->size() - 1)) {
      throw RecordCoreArgumentException("PREFIX_STRING continuation is outside the prefix");
    }
    if (!endsInZero(*low)) throw RecordCoreArgumentException("expected a string bound");
  } else {
    if (*low != *high) {
      throw RecordCoreArgumentException("PREFIX_STRING endpoints must name the same prefix");
    }
    if (!endsInZero(*low)) throw RecordCoreArgumentException("expected a string bound");
  }
}

}  // namespace

TupleRange TupleRange::allOf(const fdb::Tuple& prefix) {
  return TupleRange{prefix, prefix, EndpointType::kRangeInclusive, EndpointType::kRangeInclusive};
}

TupleRange TupleRange::between(std::optional<fdb::Tuple> low, std::optional<fdb::Tuple> high) {
  const EndpointType lowType = low ? EndpointType::kRangeInclusive : EndpointType::kTreeStart;
  const EndpointType highType = high ? EndpointType::kRangeExclusive : EndpointType::kTreeEnd;
  return TupleRange{std::move(low), std::move(high), lowType, highType};
}

TupleRange TupleRange::betweenInclusive(std::optional<fdb::Tuple> low,
                                        std::optional<fdb::Tuple> high) {
  const EndpointType lowType = low ? EndpointType::kRangeInclusive : EndpointType::kTreeStart;
  const EndpointType highType = high ? EndpointType::kRangeInclusive : EndpointType::kTreeEnd;
  return TupleRange{std::move(low), std::move(high), lowType, highType};
}

TupleRange TupleRange::prefixedBy(std::string_view prefix) {
  fdb::Tuple t{std::string(prefix)};
  return TupleRange{t, t, EndpointType::kPrefixString, EndpointType::kPrefixString};
}

fdb::KeyRange TupleRange::toRange(const fdb::Subspace& subspace) const {
  return toRange(low ? subspace.pack(*low) : subspace.pack(),
                 high ? subspace.pack(*high) : subspace.pack(), lowEndpoint, highEndpoint);
}

fdb::KeyRange TupleRange::toRange(const std::optional<fdb::Bytes>& lowBytes,
                                  const std::optional<fdb::Bytes>& highBytes,
                                  EndpointType lowEndpoint, EndpointType highEndpoint) {
  if (lowEndpoint == EndpointType::kPrefixString || highEndpoint == EndpointType::kPrefixString) {
    checkPrefixString(lowBytes, highBytes, lowEndpoint, highEndpoint);
  }
  fdb::KeyRange range{lowBytes.value_or(fdb::Bytes()), highBytes.value_or(fdb::Bytes("\xff"))};
  switch (lowEndpoint) {
    case EndpointType::kTreeStart:
    case EndpointType::kRangeInclusive: break;
    case EndpointType::kRangeExclusive:
      if (!lowBytes) throw RecordCoreArgumentException("an exclusive low endpoint needs a key");
      range.begin = fdb::strinc(*lowBytes);
      break;
    case EndpointType::kContinuation:
      range.begin.push_back('\0');  // the first key after it, keys it prefixes included
      break;
    case EndpointType::kPrefixString:
      range.begin.pop_back();  // drop the string's terminating 0x00
      break;
    case EndpointType::kTreeEnd:
      throw RecordCoreArgumentException("TREE_END is not a low endpoint");
  }
  switch (highEndpoint) {
    case EndpointType::kRangeExclusive:
    case EndpointType::kContinuation: break;
    case EndpointType::kTreeEnd:
    case EndpointType::kRangeInclusive:
      if (highBytes) {
        // 0xff is no tuple type code, so every tuple the high one prefixes sorts before it,
        // while strings and byte strings that merely extend it (escaped 00 ff) do not.
        range.end.push_back('\xff');
      } else if (highEndpoint == EndpointType::kRangeInclusive) {
        throw RecordCoreArgumentException("an inclusive high endpoint needs a key");
      }
      break;
    case EndpointType::kPrefixString: {
      // The first key after every key that starts with the string without its 0x00.
      fdb::Bytes prefix = *highBytes;
      prefix.pop_back();
      while (!prefix.empty() && static_cast<uint8_t>(prefix.back()) == 0xff) prefix.pop_back();
      if (prefix.empty()) {
        range.end = fdb::Bytes("\xff");
      } else {
        prefix.back() = static_cast<char>(static_cast<uint8_t>(prefix.back()) + 1);
        range.end = std::move(prefix);
      }
      break;
    }
    case EndpointType::kTreeStart:
      throw RecordCoreArgumentException("TREE_START is not a high endpoint");
  }
  return range;
}

std::string_view endpointTypeName(EndpointType type) {
  switch (type) {
    case EndpointType::kTreeStart: return "TREE_START";
    case EndpointType::kTreeEnd: return "TREE_END";
    case EndpointType::kRangeInclusive: return "RANGE_INCLUSIVE";
    case EndpointType::kRangeExclusive: return "RANGE_EXCLUSIVE";
    case EndpointType::kPrefixString: return "PREFIX_STRING";
    case EndpointType::kContinuation: return "CONTINUATION";
  }
  return "UNKNOWN";
}

}  // namespace rl
