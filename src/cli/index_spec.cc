#include "index_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <stdexcept>

#include "rl/metadata/key_expression.h"

namespace rl::cli {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

KeyExpression fieldsKey(const std::vector<std::string>& fields) {
  std::vector<KeyExpression> columns;
  for (const std::string& name : fields) {
    columns.push_back(name == "version()" ? version() : field(name));
  }
  return columns.size() == 1 ? columns.front() : concatAll(columns);
}

bool groupsEveryField(std::string_view type) { return type == "count" || type == "count_updates"; }

bool aggregatesLastField(std::string_view type) {
  static const std::vector<std::string_view> types = {
      "count_not_null",   "sum",           "min_ever",       "max_ever",
      "min_ever_long",    "max_ever_long", "min_ever_tuple", "max_ever_tuple",
      "max_ever_version", "rank"};
  return std::find(types.begin(), types.end(), type) != types.end();
}

}  // namespace

IndexSpec parseIndexSpec(std::string_view option, const std::string& text) {
  std::vector<std::string> parts = split(text, ':');
  IndexSpec spec;
  if (parts.size() == 3) {
    spec.type = parts[0];
    parts.erase(parts.begin());
  } else {
    spec.type = std::string(Index::kValue);
  }
  if (parts.size() == 2) {
    spec.recordType = parts[0];
    spec.fields = split(parts[1], ',');
  }
  if (spec.type.empty() || spec.recordType.empty() || spec.fields.empty() ||
      std::any_of(spec.fields.begin(), spec.fields.end(),
                  [](const std::string& f) { return f.empty(); })) {
    throw std::invalid_argument(
        fmt::format("{} {}: an index is [TYPE:]RecordType:field[,field...], e.g. Order:customer or "
                    "count:Order:customer",
                    option, text));
  }
  return spec;
}

Index indexFromSpec(const IndexSpec& spec, bool unique) {
  const bool value = spec.type == Index::kValue;
  if (unique && !value) {
    throw std::invalid_argument(
        fmt::format("--unique-index {}:{}:{}: only a value index can be unique", spec.type,
                    spec.recordType, fmt::join(spec.fields, ",")));
  }
  // version() is named "version"; a VERSION index's name shows it already.
  std::vector<std::string> names;
  for (const std::string& f : spec.fields) names.push_back(f == "version()" ? "version" : f);
  std::string name = fmt::format("{}${}", spec.recordType, fmt::join(names, "-"));
  if (!value && spec.type != Index::kVersion) name += "$" + spec.type;
  KeyExpression key = fieldsKey(spec.fields);
  if (groupsEveryField(spec.type)) key = grouping(key, 0);
  if (aggregatesLastField(spec.type)) key = grouping(key, 1);
  std::map<std::string, std::string> options;
  if (unique) options.emplace(std::string(Index::kUniqueOption), "true");
  return Index(std::move(name), std::move(key), spec.type, std::move(options));
}

}  // namespace rl::cli
