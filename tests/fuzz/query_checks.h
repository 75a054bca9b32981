// The property the query fuzz target checks on any input, shared with the unit test that
// replays its committed corpus under GCC. Returns "" when the property holds and a
// description of the failure otherwise.
//
// The input is a query as a front end receives it: a flags byte (row limit, reverse sort),
// the filter text, a NUL, the sort text, a NUL, then continuation bytes. It runs against one
// store of 40 fixed records (a schema compiled at run time, indexes on name and price). The
// property: the texts either parse or fail with QueryTextException (with a position inside
// the text); a parsed query either plans or fails with the Record Layer's error (a
// RecordCoreException, or MetaDataException for a sort the record type cannot give); a plan's
// rows are exactly the records the filter passes, brute force, in the sort's order; the plan
// resumed from the continuation after any row returns the rest of its rows; resumed from the
// arbitrary bytes, it fails with the Record Layer's or FoundationDB's error or returns rows
// the filter passes; nothing else is ever thrown.
#pragma once

#include <unistd.h>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "rl/context/record_context.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/metadata/proto_schema_loader.h"
#include "rl/query/query_text.h"
#include "rl/query/record_query.h"
#include "rl/query/record_query_planner.h"
#include "rl/record_core_exception.h"
#include "rl/store/record_store.h"

namespace rl::fuzz {

namespace detail {

inline constexpr int kQueryRecords = 40;

// The schema, compiled at run time from this text (the library supplies the import).
inline constexpr std::string_view kQuerySchema = R"(syntax = "proto2";
package fz;
import "record_metadata_options.proto";
message Order {
  optional int64 id = 1 [(com.apple.foundationdb.record.field).primary_key = true];
  optional string name = 2 [(com.apple.foundationdb.record.field).index = {}];
  optional int64 price = 3 [(com.apple.foundationdb.record.field).index = {}];
  repeated string tags = 4;
  optional double rating = 5;
  optional bool gift = 6;
}
message RecordTypeUnion {
  optional Order _Order = 1;
}
)";

// One store with the fixed records, made once per process.
struct QueryWorld {
  LoadedSchema schema;
  std::optional<RecordMetaData> metaData;
  fdb::Database db = fdb::Database::open("memory:");
  StoreLocation location = StoreLocation::rawPrefix("q");
  std::vector<std::unique_ptr<google::protobuf::Message>> records;  // by id

  QueryWorld() {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("rl-query-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "fz.proto") << kQuerySchema;
    schema = ProtoSchemaLoader({dir.string()}).load("fz.proto");
    std::filesystem::remove_all(dir);
    metaData.emplace(RecordMetaData::build(schema.file, schema.owner));
    for (int id = 0; id < kQueryRecords; ++id) {
      std::unique_ptr<google::protobuf::Message> order = schema.newMessage("fz.Order");
      const google::protobuf::Descriptor* type = order->GetDescriptor();
      const google::protobuf::Reflection* fields = order->GetReflection();
      fields->SetInt64(order.get(), type->FindFieldByName("id"), id);
      if (id % 9 != 4) {
        fields->SetString(order.get(), type->FindFieldByName("name"), "n" + std::to_string(id % 7));
      }
      if (id % 11 != 3) {
        fields->SetInt64(order.get(), type->FindFieldByName("price"), (id * 37) % 50 - 10);
      }
      for (int t = 0; t < id % 4; ++t) {
        fields->AddString(order.get(), type->FindFieldByName("tags"),
                          "t" + std::to_string((id + t) % 5));
      }
      if (id % 3 == 0) fields->SetDouble(order.get(), type->FindFieldByName("rating"), id / 4.0);
      if (id % 5 != 0) fields->SetBool(order.get(), type->FindFieldByName("gift"), id % 2 == 0);
      records.push_back(std::move(order));
    }
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, location, *metaData);
      for (const auto& record : records) store.saveRecord(*record);
    });
  }
};

inline QueryWorld& queryWorld() {
  static QueryWorld* world = new QueryWorld();  // kept for the process (the fuzzer's loop)
  return *world;
}

// The text up to the next NUL (or the end), advancing `input` past the NUL.
inline std::string_view takeField(std::string_view& input) {
  const size_t end = input.find('\0');
  std::string_view field = input.substr(0, end);
  input = end == std::string_view::npos ? std::string_view() : input.substr(end + 1);
  return field;
}

struct QueryRun {
  std::vector<int64_t> ids;
  std::vector<std::optional<fdb::Bytes>> continuations;  // after each row
  std::string error;                                     // an allowed error, if one ended it
};

}  // namespace detail

inline std::string checkQuery(std::string_view input) {
  detail::QueryWorld& world = detail::queryWorld();
  const uint8_t flags = input.empty() ? 0 : static_cast<uint8_t>(input[0]);
  std::string_view rest = input.empty() ? input : input.substr(1);
  const std::string_view filterText = detail::takeField(rest);
  const std::string_view sortText = detail::takeField(rest);
  const std::optional<fdb::Bytes> foreign =
      rest.empty() ? std::nullopt : std::optional<fdb::Bytes>(fdb::Bytes(rest));

  RecordQuery query{.recordTypes = {"Order"}};
  try {
    if (!filterText.empty()) {
      (void)parseQueryFilter(filterText);  // the grammar alone
      query.filter = parseQueryFilter(filterText, *world.metaData, {"Order"});
    }
    if (!sortText.empty()) query.sort = parseQuerySort(sortText);
  } catch (const QueryTextException& e) {
    const size_t textSize = std::max(filterText.size(), sortText.size());
    if (e.position() > textSize) {
      return "a syntax error at " + std::to_string(e.position()) + ", past the text's " +
             std::to_string(textSize) + " bytes: " + e.what();
    }
    return "";
  } catch (const std::exception& e) {
    return std::string("parsing threw an unexpected error: ") + e.what();
  }
  query.sortReverse = (flags & 1) != 0;
  ExecuteProperties properties;
  properties.returnedRowLimit = (flags >> 1) % 8;  // 0: none

  // What the filter passes, brute force (an unknown counts as not passing).
  std::set<int64_t> passing;
  try {
    for (const auto& record : world.records) {
      if (!query.filter || query.filter->passes(*record, Bindings{})) {
        passing.insert(record->GetReflection()->GetInt64(
            *record, record->GetDescriptor()->FindFieldByName("id")));
      }
    }
  } catch (const RecordCoreException&) {
    passing.clear();  // e.g. an unbound parameter: the plan must fail as well
  } catch (const std::exception& e) {
    return std::string("evaluating the filter threw an unexpected error: ") + e.what();
  }

  // Runs the plan from `continuation` to its end, page by page under the row limit.
  std::shared_ptr<const RecordQueryPlan> plan;
  auto run = [&](const std::optional<fdb::Bytes>& continuation, bool onePage,
                 detail::QueryRun& out) -> std::string {
    try {
      runInContext(world.db, [&](RecordContext& context) {
        out = detail::QueryRun{};
        RecordStore store = RecordStore::open(context, world.location, *world.metaData);
        if (!plan) plan = store.planQuery(query);
        std::optional<fdb::Bytes> at = continuation;
        for (int page = 0; page < 64; ++page) {
          CursorPtr<QueriedRecord> cursor = store.executeQuery(*plan, at, properties);
          CursorResult<QueriedRecord> result = cursor->next();
          for (; result.hasValue(); result = cursor->next()) {
            out.ids.push_back(result.value().primaryKey.getInt(0));
            out.continuations.push_back(result.continuation().toBytes());
            if (out.ids.size() > 4 * detail::kQueryRecords) return;  // checked below
          }
          at = result.continuation().toBytes();
          if (onePage || !at) return;
        }
      });
    } catch (const RecordCoreException& e) {
      out.error = e.what();
      if (out.error.empty()) return "an error without a message";
    } catch (const fdb::Error& e) {
      out.error = e.what();
    } catch (const MetaDataException& e) {
      out.error = e.what();  // a sort or filter the record type cannot evaluate
    } catch (const std::exception& e) {
      return std::string("running the plan threw an unexpected error: ") + e.what();
    }
    return "";
  };

  detail::QueryRun whole;
  if (std::string failure = run(std::nullopt, false, whole); !failure.empty()) return failure;
  if (!plan) return "";  // the query did not plan (an allowed error)
  const std::string planText = " (plan " + plan->explain() + ")";
  if (!whole.error.empty()) {
    if (!passing.empty()) return "the plan failed where the filter did not: " + whole.error;
    return "";
  }
  const std::set<int64_t> returned(whole.ids.begin(), whole.ids.end());
  if (returned != passing || returned.size() != whole.ids.size()) {
    return "the plan returned " + std::to_string(whole.ids.size()) + " rows (" +
           std::to_string(returned.size()) + " distinct), the filter passes " +
           std::to_string(passing.size()) + planText;
  }
  if (query.sort) {
    // In the sort's order (of packed keys, as indexes order them): each row's sort key no
    // greater (reverse: no less) than the next's.
    std::vector<fdb::Bytes> keys;
    try {
      for (int64_t id : whole.ids) {
        keys.push_back(
            query.sort->evaluateSingleton(*world.records[static_cast<size_t>(id)]).pack());
      }
    } catch (const RecordCoreException&) {
      keys.clear();  // not a single key per record: nothing to compare
    } catch (const MetaDataException&) {
      keys.clear();
    }
    for (size_t i = 1; i < keys.size(); ++i) {
      if (query.sortReverse ? keys[i] > keys[i - 1] : keys[i - 1] > keys[i]) {
        return "rows out of the sort's order" + planText;
      }
    }
  }
  // Resumed after each of the first rows: the rest of the same rows, in the same order.
  for (size_t k = 0; k < whole.ids.size() && k < 6; ++k) {
    if (!whole.continuations[k]) continue;
    detail::QueryRun resumed;
    if (std::string failure = run(whole.continuations[k], false, resumed); !failure.empty()) {
      return failure;
    }
    const std::vector<int64_t> expected(whole.ids.begin() + static_cast<long>(k) + 1,
                                        whole.ids.end());
    if (!resumed.error.empty()) return "resuming failed: " + resumed.error + planText;
    if (resumed.ids != expected) {
      return "resumed after row " + std::to_string(k) + ": " + std::to_string(resumed.ids.size()) +
             " rows, not the " + std::to_string(expected.size()) + " that followed" + planText;
    }
  }
  if (foreign) {
    detail::QueryRun resumed;
    if (std::string failure = run(foreign, true, resumed); !failure.empty()) {
      return "resumed from arbitrary bytes: " + failure;
    }
    for (int64_t id : resumed.ids) {
      if (passing.count(id) == 0) {
        return "resumed from arbitrary bytes, the plan returned a record the filter does not "
               "pass" +
               planText;
      }
    }
  }
  return "";
}

}  // namespace rl::fuzz
