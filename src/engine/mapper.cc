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
      mapper.elements_.emplace_back(element);
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
      mapper.elements_.emplace_back(ByteString{unescapeBraces(*text)});
    } else {
      mapper.elements_.emplace_back(element);
    }
  }
  return mapper;
}

Bytes Mapper::build(std::string_view indexKey, std::string_view indexValue) const {
  std::optional<Tuple> keyTuple = parseServerTuple(indexKey);
  if (!keyTuple)
    throw Error(kKeyNotTuple, fmt::format("index key '{}' is not a tuple", printable(indexKey)));
  std::optional<Tuple> valueTuple;
  if (usesValue_) {
    valueTuple = parseServerTuple(indexValue);
    if (!valueTuple) {
      throw Error(kValueNotTuple,
                  fmt::format("index value '{}' is not a tuple", printable(indexValue)));
    }
  }
  Tuple out;
  for (const Element& element : elements_) {
    if (const auto* literal = std::get_if<TupleElement>(&element)) {
      out.append(*literal);
      continue;
    }
    bool fromKey = std::holds_alternative<FromKey>(element);
    size_t index = fromKey ? std::get<FromKey>(element).index : std::get<FromValue>(element).index;
    const Tuple& source = fromKey ? *keyTuple : *valueTuple;
    if (index >= source.size()) {
      throw Error(kMapperBadIndex,
                  fmt::format("{}[{}] is out of range: the {} has {} elements", fromKey ? 'K' : 'V',
                              index, fromKey ? "key" : "value", source.size()));
    }
    out.append(source[index]);
  }
  return out.pack();
}

}  // namespace fdb::engine
