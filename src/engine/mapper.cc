#include "engine/mapper.h"

#include <charconv>

#include <fmt/format.h>

#include "fdb/error.h"

namespace fdb::engine {
namespace {

constexpr int kMapperBadIndex = 2030;
constexpr int kMapperBadRangeDescriptor = 2032;
constexpr int kKeyNotTuple = 2041;
constexpr int kValueNotTuple = 2042;
constexpr int kMapperNotTuple = 2043;

// Whether the element the server parser accepts: no nested tuples, UUIDs or integers
// beyond eight bytes of magnitude.
bool serverSupports(const TupleElement& element) {
  switch (element.type()) {
    case TupleType::kTuple:
    case TupleType::kUuid: return false;
    case TupleType::kInteger: return element.asBigInt().magnitude().size() <= 8;
    default: return true;
  }
}

// "{K[12]}" -> 12 for marker 'K'; nullopt when `text` is not of that shape at all.
// Throws 2030 when it is, but the index is not a number.
std::optional<size_t> indexReference(std::string_view text, char marker) {
  if (text.size() < 5 || text[0] != '{' || text[1] != marker || text[2] != '[' ||
      !text.ends_with("]}")) {
    return std::nullopt;
  }
  std::string_view digits = text.substr(3, text.size() - 5);
  size_t index = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    throw Error(kMapperBadIndex, fmt::format("'{}' does not name an element by number", text));
  }
  return index;
}

Bytes unescapeBraces(std::string_view text) {
  Bytes out;
  for (size_t i = 0; i < text.size(); ++i) {
    out.push_back(text[i]);
    if ((text[i] == '{' || text[i] == '}') && i + 1 < text.size() && text[i + 1] == text[i]) ++i;
  }
  return out;
}

}  // namespace

bool splitServerTuple(std::string_view packed, PackedElements& elements) {
  elements.clear();
  size_t i = 0;
  while (i < packed.size()) {
    const size_t start = i;
    const auto code = static_cast<uint8_t>(packed[i++]);
    switch (code) {
      case 0x00:  // null
      case 0x26:  // false
      case 0x27:  // true
        break;
      case 0x01:    // byte string
      case 0x02: {  // unicode string: up to a 0x00 that is not escaped as 0x00 0xff
        while (true) {
          if (i >= packed.size()) return false;
          if (packed[i] == '\0') {
            if (i + 1 < packed.size() && static_cast<uint8_t>(packed[i + 1]) == 0xff) {
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          ++i;
        }
        break;
      }
      case 0x20: i += 4; break;   // float
      case 0x21: i += 8; break;   // double
      case 0x33: i += 12; break;  // versionstamp
      default:
        if (code < 0x0c || code > 0x1c) return false;   // nested tuples, UUIDs, big integers
        i += code >= 0x14 ? code - 0x14 : 0x14 - code;  // integers: their byte count
    }
    if (i > packed.size()) return false;
    elements.push_back(packed.substr(start, i - start));
  }
  return true;
}

std::optional<Tuple> parseServerTuple(std::string_view packed) {
  try {
    Tuple tuple = Tuple::unpack(packed);
    for (const TupleElement& element : tuple) {
      if (!serverSupports(element)) return std::nullopt;
    }
    return tuple;
  } catch (const Error&) {
    return std::nullopt;
  }
}

Mapper Mapper::parse(std::string_view packed) {
  std::optional<Tuple> tuple = parseServerTuple(packed);
  if (!tuple) throw Error(kMapperNotTuple, "the mapper is not a tuple");
  Mapper mapper;
  for (size_t i = 0; i < tuple->size(); ++i) {
    const TupleElement& element = (*tuple)[i];
    const std::string* text = nullptr;
    if (element.type() == TupleType::kString) text = &element.asString();
    if (element.type() == TupleType::kBytes) text = &element.asBytes();
    if (text == nullptr) {
      mapper.elements_.emplace_back(Tuple{element}.pack());
      continue;
    }
    if (*text == "{...}") {
      if (i + 1 != tuple->size()) {
        throw Error(kMapperBadRangeDescriptor, "\"{...}\" must be the mapper's last element");
      }
      mapper.range_ = true;
    } else if (std::optional<size_t> index = indexReference(*text, 'K')) {
      mapper.elements_.emplace_back(FromKey{*index});
    } else if (std::optional<size_t> index = indexReference(*text, 'V')) {
      mapper.elements_.emplace_back(FromValue{*index});
      mapper.usesValue_ = true;
    } else if (text->find("{{") != std::string::npos || text->find("}}") != std::string::npos) {
      mapper.elements_.emplace_back(Tuple{ByteString{unescapeBraces(*text)}}.pack());
    } else {
      mapper.elements_.emplace_back(Tuple{element}.pack());
    }
  }
  return mapper;
}

Bytes Mapper::build(std::string_view indexKey, std::string_view indexValue) const {
  Bytes out;
  buildInto(indexKey, indexValue, out);
  return out;
}

void Mapper::buildInto(std::string_view indexKey, std::string_view indexValue, Bytes& out) const {
  PackedElements keyElements;
  if (!splitServerTuple(indexKey, keyElements))
    throw Error(kKeyNotTuple, fmt::format("index key '{}' is not a tuple", printable(indexKey)));
  PackedElements valueElements;
  if (usesValue_ && !splitServerTuple(indexValue, valueElements)) {
    throw Error(kValueNotTuple,
                fmt::format("index value '{}' is not a tuple", printable(indexValue)));
  }
  out.clear();
  for (const Element& element : elements_) {
    if (const auto* literal = std::get_if<Bytes>(&element)) {
      out += *literal;
      continue;
    }
    bool fromKey = std::holds_alternative<FromKey>(element);
    size_t index = fromKey ? std::get<FromKey>(element).index : std::get<FromValue>(element).index;
    const PackedElements& source = fromKey ? keyElements : valueElements;
    if (index >= source.size()) {
      throw Error(kMapperBadIndex,
                  fmt::format("{}[{}] is out of range: the {} has {} elements", fromKey ? 'K' : 'V',
                              index, fromKey ? "key" : "value", source.size()));
    }
    out += source[index];
  }
}

}  // namespace fdb::engine
