// The metadata evolution rules (rl::MetaDataEvolutionValidator): for each rule a change it
// accepts and one it refuses (the message starting with the rule and naming the record type,
// field or index), and each option turning a refusal into an acceptance; then
// RecordMetaDataBuilder::evolveFrom, and the metadata store refusing a change and keeping the
// stored metadata and a store's records.
#include "rl/metadata/metadata_evolution_validator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "evolution_test_records.pb.h"
#include "fdb/database.h"
#include "rl/metadata/metadata_builder.h"
#include "rl/metadata/metadata_exception.h"
#include "rl/store/metadata_store.h"
#include "rl/store/record_store.h"
#include "rl/store/store_checker.h"
#include "test_database.h"

namespace rl {
namespace {

using google::protobuf::DescriptorProto;
using google::protobuf::FieldDescriptorProto;
using Change = std::function<void(MetaDataProto&)>;

// The test schema's metadata: indexes Order$price (version 1) and Order$customer (version 2),
// metadata version 2.
RecordMetaData base() { return RecordMetaData::build(evolution_test::Order::descriptor()->file()); }

// `from` with `change` applied to its serialized form, one version up.
RecordMetaData changed(const RecordMetaData& from, const Change& change) {
  MetaDataProto proto = from.toProto();
  proto.set_version(proto.version() + 1);
  change(proto);
  return RecordMetaData::fromProto(proto);
}

DescriptorProto& message(MetaDataProto& proto, const std::string& name) {
  for (DescriptorProto& type : *proto.mutable_records()->mutable_message_type()) {
    if (type.name() == name) return type;
  }
  throw std::logic_error("no message " + name);
}

FieldDescriptorProto& field(MetaDataProto& proto, const std::string& type,
                            const std::string& name) {
  for (FieldDescriptorProto& f : *message(proto, type).mutable_field()) {
    if (f.name() == name) return f;
  }
  throw std::logic_error("no field " + name);
}

FieldDescriptorProto& addField(
    MetaDataProto& proto, const std::string& type, const std::string& name, int number,
    FieldDescriptorProto::Type fieldType,
    FieldDescriptorProto::Label label = FieldDescriptorProto::LABEL_OPTIONAL) {
  FieldDescriptorProto& f = *message(proto, type).add_field();
  f.set_name(name);
  f.set_number(number);
  f.set_type(fieldType);
  f.set_label(label);
  return f;
}

void removeField(MetaDataProto& proto, const std::string& type, const std::string& name) {
  auto* fields = message(proto, type).mutable_field();
  for (int i = 0; i < fields->size(); ++i) {
    if (fields->Get(i).name() == name) {
      fields->DeleteSubrange(i, 1);
      return;
    }
  }
  throw std::logic_error("no field " + name);
}

IndexProto& index(MetaDataProto& proto, const std::string& name) {
  for (IndexProto& i : *proto.mutable_indexes()) {
    if (i.name() == name) return i;
  }
  throw std::logic_error("no index " + name);
}

void removeIndex(MetaDataProto& proto, const std::string& name) {
  auto* indexes = proto.mutable_indexes();
  for (int i = 0; i < indexes->size(); ++i) {
    if (indexes->Get(i).name() == name) {
      indexes->DeleteSubrange(i, 1);
      return;
    }
  }
  throw std::logic_error("no index " + name);
}

::com::apple::foundationdb::record::RecordType& recordTypeProto(MetaDataProto& proto,
                                                                const std::string& name) {
  for (auto& type : *proto.mutable_record_types()) {
    if (type.name() == name) return type;
  }
  throw std::logic_error("no record type " + name);
}

FormerIndexProto former(const std::string& name, int added, int removed) {
  FormerIndex f{fdb::TupleElement(name), added, removed, name};
  return f.toProto();
}

// Adds record type Payment (union field 3), since `since` unless it is 0.
void addPayment(MetaDataProto& proto, int since) {
  DescriptorProto& payment = *proto.mutable_records()->add_message_type();
  payment.set_name("Payment");
  FieldDescriptorProto& id = *payment.add_field();
  id.set_name("id");
  id.set_number(1);
  id.set_type(FieldDescriptorProto::TYPE_INT64);
  id.set_label(FieldDescriptorProto::LABEL_OPTIONAL);
  FieldDescriptorProto& unionField =
      addField(proto, "RecordTypeUnion", "_Payment", 3, FieldDescriptorProto::TYPE_MESSAGE);
  unionField.set_type_name(".rl.evolution_test.Payment");
  auto& type = *proto.add_record_types();
  type.set_name("Payment");
  *type.mutable_primary_key() = rl::field("id").toProto();
  if (since != 0) type.set_since_version(since);
}

class MetaDataEvolution : public ::testing::Test {
 protected:
  // `newMetaData` refused by the rule `rule`, the message naming `element`.
  static void expectRefused(const RecordMetaData& oldMetaData, const RecordMetaData& newMetaData,
                            const std::string& rule, const std::string& element,
                            MetaDataEvolutionOptions options = {}) {
    try {
      MetaDataEvolutionValidator(options).validate(oldMetaData, newMetaData);
      ADD_FAILURE() << "accepted; expected: " << rule;
    } catch (const MetaDataException& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.substr(0, rule.size() + 2), rule + ": ") << message;
      EXPECT_NE(message.find(element), std::string::npos) << message << " / " << element;
    }
  }
  static void expectAccepted(const RecordMetaData& oldMetaData, const RecordMetaData& newMetaData,
                             MetaDataEvolutionOptions options = {}) {
    EXPECT_NO_THROW(MetaDataEvolutionValidator(options).validate(oldMetaData, newMetaData));
  }
  // Refused by default with `rule`, accepted with `options`.
  static void expectAllowedBy(const RecordMetaData& oldMetaData, const RecordMetaData& newMetaData,
                              const std::string& rule, const std::string& element,
                              MetaDataEvolutionOptions options) {
    expectRefused(oldMetaData, newMetaData, rule, element);
    expectAccepted(oldMetaData, newMetaData, options);
  }

  const RecordMetaData old_ = base();
};

TEST_F(MetaDataEvolution, TheBaseSchema) {
  EXPECT_EQ(old_.version(), 2);
  EXPECT_EQ(old_.index("Order$price").lastModifiedVersion(), 1);
  EXPECT_EQ(old_.index("Order$customer").lastModifiedVersion(), 2);
}

TEST_F(MetaDataEvolution, VersionMustGoUp) {
  expectAccepted(old_, changed(old_, [](MetaDataProto&) {}));
  const std::string rule = "new meta-data does not have newer version than old meta-data";
  expectRefused(old_, old_, rule, "old version 2, new version 2");
  const RecordMetaData lower = changed(old_, [](MetaDataProto& p) { p.set_version(2); });
  expectAllowedBy(old_, lower, rule, "new version 2", {.allowNoVersionChange = true});
  // Lower is refused even then.
  const RecordMetaData older = changed(old_, [](MetaDataProto& p) {
    p.set_version(1);
    removeIndex(p, "Order$customer");
    p.add_former_indexes()->CopyFrom(former("Order$customer", 2, 1));
  });
  expectRefused(old_, older, rule, "new version 1", {.allowNoVersionChange = true});
  // The same version is still checked for everything else.
  const RecordMetaData removedField = changed(old_, [](MetaDataProto& p) {
    p.set_version(2);
    removeField(p, "Order", "code");
  });
  expectRefused(old_, removedField, "field removed from message descriptor",
                "field code (= 9) of Order", {.allowNoVersionChange = true});
}

TEST_F(MetaDataEvolution, SplitLongRecords) {
  const RecordMetaData split =
      changed(old_, [](MetaDataProto& p) { p.set_split_long_records(true); });
  expectAllowedBy(old_, split, "new meta-data splits long records", "split_long_records",
                  {.allowUnsplitToSplit = true});
  const RecordMetaData unsplit =
      changed(split, [](MetaDataProto& p) { p.set_split_long_records(false); });
  expectRefused(split, unsplit, "new meta-data no longer splits long records",
                "split_long_records turned off", {.allowUnsplitToSplit = true});
  expectAccepted(split, changed(split, [](MetaDataProto&) {}));
}

// "field in union is not a message type" / "field in new union is not a message type": metadata
// with such a union does not build, so the validator never sees one.
TEST_F(MetaDataEvolution, UnionFieldsStayMessages) {
  auto scalar = [&] {
    return changed(old_, [](MetaDataProto& p) {
      FieldDescriptorProto& f = field(p, "RecordTypeUnion", "_Customer");
      f.clear_type_name();
      f.set_type(FieldDescriptorProto::TYPE_INT64);
      auto* types = p.mutable_record_types();
      for (int i = 0; i < types->size(); ++i) {
        if (types->Get(i).name() == "Customer") types->DeleteSubrange(i--, 1);
      }
    });
  };
  EXPECT_THROW(scalar(), MetaDataException);
}

TEST_F(MetaDataEvolution, RecordTypesAreNotRemovedSplitOrMerged) {
  const RecordMetaData removed = changed(old_, [](MetaDataProto& p) {
    removeField(p, "RecordTypeUnion", "_Customer");
    auto* types = p.mutable_record_types();
    for (int i = 0; i < types->size(); ++i) {
      if (types->Get(i).name() == "Customer") types->DeleteSubrange(i--, 1);
    }
  });
  expectRefused(old_, removed, "record type removed from union", "record type Customer");

  // Old: Order at union fields 1 and 3. New: field 3 holds Customer.
  const RecordMetaData twice = changed(old_, [](MetaDataProto& p) {
    addField(p, "RecordTypeUnion", "_OrderAgain", 3, FieldDescriptorProto::TYPE_MESSAGE)
        .set_type_name(".rl.evolution_test.Order");
  });
  const RecordMetaData splitType = changed(twice, [](MetaDataProto& p) {
    field(p, "RecordTypeUnion", "_OrderAgain").set_type_name(".rl.evolution_test.Customer");
  });
  expectRefused(twice, splitType, "record type corresponds to multiple types in new meta-data",
                "record type Order");
  expectAccepted(old_, twice);

  // Old: Order and Customer. New: field 2 holds Order too.
  const RecordMetaData merged = changed(old_, [](MetaDataProto& p) {
    field(p, "RecordTypeUnion", "_Customer").set_type_name(".rl.evolution_test.Order");
    auto* types = p.mutable_record_types();
    for (int i = 0; i < types->size(); ++i) {
      if (types->Get(i).name() == "Customer") types->DeleteSubrange(i--, 1);
    }
  });
  expectRefused(old_, merged, "record type corresponds to multiple types in old meta-data",
                "Customer");
}

TEST_F(MetaDataEvolution, RecordTypeRenames) {
  const RecordMetaData renamed = changed(old_, [](MetaDataProto& p) {
    message(p, "Customer").set_name("Client");
    field(p, "RecordTypeUnion", "_Customer").set_type_name(".rl.evolution_test.Client");
    recordTypeProto(p, "Customer").set_name("Client");
  });
  EXPECT_NE(renamed.findRecordType("Client"), nullptr);
  expectAccepted(old_, renamed);
  expectRefused(old_, renamed, "record type name changed", "record type Customer is now Client",
                {.disallowTypeRenames = true});
}

TEST_F(MetaDataEvolution, FieldsAreNotRemovedAndNewOnesAreNotRequired) {
  expectRefused(old_, changed(old_, [](MetaDataProto& p) { removeField(p, "Order", "code"); }),
                "field removed from message descriptor", "field code (= 9) of Order");
  expectAccepted(old_, changed(old_, [](MetaDataProto& p) {
                   addField(p, "Order", "discount", 10, FieldDescriptorProto::TYPE_INT64);
                 }));
  expectRefused(old_,
                changed(old_,
                        [](MetaDataProto& p) {
                          addField(p, "Order", "discount", 10, FieldDescriptorProto::TYPE_INT64,
                                   FieldDescriptorProto::LABEL_REQUIRED);
                        }),
                "required field added to record type", "field discount of Order");
  // In a nested message too.
  expectRefused(old_, changed(old_, [](MetaDataProto& p) { removeField(p, "Item", "count"); }),
                "field removed from message descriptor", "field count (= 2) of Item");
}

TEST_F(MetaDataEvolution, FieldRenames) {
  const RecordMetaData renamed =
      changed(old_, [](MetaDataProto& p) { field(p, "Order", "quantity").set_name("amount"); });
  expectAllowedBy(old_, renamed, "field renamed", "field quantity of Order is now named amount",
                  {.allowFieldRenames = true});
  // Renaming a field that is not deprecated is not a deprecated field's rename.
  expectRefused(old_, renamed, "field renamed", "field quantity of Order",
                {.allowDeprecatedFieldRenames = true});
  // A deprecated field (note), or one deprecated by this change.
  const RecordMetaData deprecatedRenamed =
      changed(old_, [](MetaDataProto& p) { field(p, "Order", "note").set_name("old_note"); });
  expectAllowedBy(old_, deprecatedRenamed, "field renamed", "field note of Order",
                  {.allowDeprecatedFieldRenames = true});
  const RecordMetaData renamedAsDeprecated = changed(old_, [](MetaDataProto& p) {
    FieldDescriptorProto& f = field(p, "Order", "quantity");
    f.set_name("old_quantity");
    f.mutable_options()->set_deprecated(true);
  });
  expectAllowedBy(old_, renamedAsDeprecated, "field renamed", "field quantity of Order",
                  {.allowDeprecatedFieldRenames = true});
}

TEST_F(MetaDataEvolution, FieldsStayDeprecated) {
  const RecordMetaData undeprecated = changed(old_, [](MetaDataProto& p) {
    field(p, "Order", "note").mutable_options()->clear_deprecated();
  });
  expectAllowedBy(old_, undeprecated, "field is no longer deprecated", "field note of Order",
                  {.allowUndeprecatingFields = true});
  // Renamed while undeprecated: both options needed.
  const RecordMetaData both = changed(old_, [](MetaDataProto& p) {
    FieldDescriptorProto& f = field(p, "Order", "note");
    f.mutable_options()->clear_deprecated();
    f.set_name("remark");
  });
  expectRefused(old_, both, "field is no longer deprecated", "field note of Order",
                {.allowDeprecatedFieldRenames = true});
  expectAccepted(old_, both,
                 {.allowDeprecatedFieldRenames = true, .allowUndeprecatingFields = true});
  // Deprecating is fine.
  expectAccepted(old_, changed(old_, [](MetaDataProto& p) {
                   field(p, "Order", "tags").mutable_options()->set_deprecated(true);
                 }));
}

TEST_F(MetaDataEvolution, FieldTypesOnlyWiden) {
  auto retyped = [&](const std::string& type, const std::string& name,
                     FieldDescriptorProto::Type to) {
    return changed(old_, [&](MetaDataProto& p) { field(p, type, name).set_type(to); });
  };
  // int32 -> int64 (an indexed field) and sint32 -> sint64 keep their bytes.
  expectAccepted(old_, retyped("Order", "price", FieldDescriptorProto::TYPE_INT64));
  expectAccepted(old_, retyped("Order", "quantity", FieldDescriptorProto::TYPE_SINT64));
  expectAccepted(old_, retyped("Item", "count", FieldDescriptorProto::TYPE_INT64));
  const std::string rule = "field type changed";
  expectRefused(old_, retyped("Order", "code", FieldDescriptorProto::TYPE_SFIXED64), rule,
                "field code of Order: sfixed32 is now sfixed64");
  expectRefused(old_, retyped("Order", "id", FieldDescriptorProto::TYPE_INT32), rule,
                "field id of Order: int64 is now int32");
  expectRefused(old_, retyped("Order", "quantity", FieldDescriptorProto::TYPE_INT32), rule,
                "field quantity of Order: sint32 is now int32");
  expectRefused(old_, retyped("Order", "customer", FieldDescriptorProto::TYPE_BYTES), rule,
                "field customer of Order: string is now bytes");
  expectRefused(old_, retyped("Item", "count", FieldDescriptorProto::TYPE_SFIXED32), rule,
                "field count of Item");
}

TEST_F(MetaDataEvolution, FieldLabels) {
  auto relabelled = [&](const std::string& type, const std::string& name,
                        FieldDescriptorProto::Label to) {
    return changed(old_, [&](MetaDataProto& p) { field(p, type, name).set_label(to); });
  };
  expectRefused(old_, relabelled("Item", "sku", FieldDescriptorProto::LABEL_OPTIONAL),
                "required field is no longer required", "field sku of Item");
  expectRefused(old_, relabelled("Order", "tags", FieldDescriptorProto::LABEL_OPTIONAL),
                "repeated field is no longer repeated", "field tags of Order");
  expectRefused(old_, relabelled("Order", "code", FieldDescriptorProto::LABEL_REPEATED),
                "field changed whether default values are stored if set explicitly",
                "field code of Order");
  // Optional to required keeps the bytes (as Java admits it).
  expectAccepted(old_, relabelled("Order", "code", FieldDescriptorProto::LABEL_REQUIRED));
}

TEST_F(MetaDataEvolution, EnumValuesStay) {
  auto enumType = [](MetaDataProto& p) -> google::protobuf::EnumDescriptorProto& {
    return *p.mutable_records()->mutable_enum_type(0);
  };
  expectRefused(old_,
                changed(old_, [&](MetaDataProto& p) { enumType(p).mutable_value()->RemoveLast(); }),
                "enum removes value", "field status of Order: enum Status has no value 2");
  expectAccepted(old_, changed(old_, [&](MetaDataProto& p) {
                   auto* value = enumType(p).add_value();
                   value->set_name("STATUS_LOST");
                   value->set_number(3);
                   enumType(p).mutable_value(1)->set_name("STATUS_SETTLED");  // same number
                 }));
}

TEST_F(MetaDataEvolution, ProtoSyntaxStays) {
  // A schema of one record type in proto2, then the same in proto3.
  auto schema = [](const std::string& syntax) {
    google::protobuf::FileDescriptorProto file;
    file.set_name("plain.proto");
    file.set_package("plain");
    if (!syntax.empty()) file.set_syntax(syntax);
    DescriptorProto& plain = *file.add_message_type();
    plain.set_name("Plain");
    FieldDescriptorProto& id = *plain.add_field();
    id.set_name("id");
    id.set_number(1);
    id.set_type(FieldDescriptorProto::TYPE_INT64);
    id.set_label(FieldDescriptorProto::LABEL_REPEATED);  // no presence either way
    DescriptorProto& unionType = *file.add_message_type();
    unionType.set_name("RecordTypeUnion");
    FieldDescriptorProto& f = *unionType.add_field();
    f.set_name("_Plain");
    f.set_number(1);
    f.set_type(FieldDescriptorProto::TYPE_MESSAGE);
    f.set_type_name(".plain.Plain");
    f.set_label(FieldDescriptorProto::LABEL_OPTIONAL);
    MetaDataProto proto;
    *proto.mutable_records() = file;
    auto& type = *proto.add_record_types();
    type.set_name("Plain");
    *type.mutable_primary_key() = rl::field("id", FanType::kConcatenate).toProto();
    proto.set_version(syntax.empty() ? 1 : 2);
    return RecordMetaData::fromProto(proto);
  };
  const RecordMetaData proto2 = schema("");
  const RecordMetaData proto3 = schema("proto3");
  expectRefused(proto2, proto3, "message descriptor proto syntax changed",
                "message Plain: proto2 is now proto3");
  expectAccepted(proto2, changed(proto2, [](MetaDataProto&) {}));
}

TEST_F(MetaDataEvolution, RecordTypesKeepSinceVersionPrimaryKeyAndTypeKey) {
  expectRefused(
      old_,
      changed(old_, [](MetaDataProto& p) { recordTypeProto(p, "Customer").set_since_version(3); }),
      "record type since version changed", "record type Customer: none is now 3");
  expectRefused(old_,
                changed(old_,
                        [](MetaDataProto& p) {
                          *recordTypeProto(p, "Customer").mutable_primary_key() =
                              concat(recordType(), rl::field("id")).toProto();
                        }),
                "record type primary key changed", "record type Customer");
  expectRefused(
      old_,
      changed(old_,
              [](MetaDataProto& p) {
                recordTypeProto(p, "Customer").mutable_explicit_key()->set_string_value("c");
              }),
      "record type key changed", "record type Customer: 2 is now \"c\"");
}

TEST_F(MetaDataEvolution, KeyExpressionsFollowFieldRenames) {
  // Order.id becomes order_id and a new field takes the name id: the primary key must follow
  // the rename.
  auto renameId = [](MetaDataProto& p) {
    field(p, "Order", "id").set_name("order_id");
    addField(p, "Order", "id", 11, FieldDescriptorProto::TYPE_INT64);
  };
  const RecordMetaData stale = changed(old_, renameId);
  expectRefused(old_, stale, "record type primary key does not match required",
                "record type Order: field(id) must be field(order_id)",
                {.allowFieldRenames = true});
  const RecordMetaData followed = changed(old_, [&](MetaDataProto& p) {
    renameId(p);
    *recordTypeProto(p, "Order").mutable_primary_key() = rl::field("order_id").toProto();
  });
  expectAccepted(old_, followed, {.allowFieldRenames = true});

  // The same for an index: customer becomes buyer, a new field is named customer.
  auto renameCustomer = [](MetaDataProto& p) {
    field(p, "Order", "customer").set_name("buyer");
    addField(p, "Order", "customer", 11, FieldDescriptorProto::TYPE_STRING);
  };
  expectRefused(old_, changed(old_, renameCustomer), "index key expression does not match required",
                "index Order$customer: field(customer) must be field(buyer)",
                {.allowFieldRenames = true});
  const RecordMetaData indexFollowed = changed(old_, [&](MetaDataProto& p) {
    renameCustomer(p);
    *index(p, "Order$customer").mutable_root_expression() = rl::field("buyer").toProto();
  });
  expectAccepted(old_, indexFollowed, {.allowFieldRenames = true});
  expectRefused(old_, indexFollowed, "field renamed", "field customer of Order is now named buyer");
}

TEST_F(MetaDataEvolution, MultiTypeIndexesNeedTheSameRenameOnEveryType) {
  // by_note on Order and Customer; Order's note is renamed (it is deprecated) and a new field
  // takes its name, so the index would read remark on Order and note on Customer.
  const RecordMetaData multiType = changed(old_, [](MetaDataProto& p) {
    IndexProto& byNote = *p.add_indexes();
    byNote.set_name("by_note");
    byNote.add_record_type("Order");
    byNote.add_record_type("Customer");
    *byNote.mutable_root_expression() = rl::field("note").toProto();
    byNote.set_added_version(3);
    byNote.set_last_modified_version(3);
  });
  auto renameNote = [](MetaDataProto& p) {
    field(p, "Order", "note").set_name("remark");
    addField(p, "Order", "note", 11, FieldDescriptorProto::TYPE_STRING);
  };
  expectRefused(multiType, changed(multiType, renameNote),
                "field renames result in inconsistent index definition for multi-type index",
                "index by_note", {.allowDeprecatedFieldRenames = true});
  // Renamed on both types, with the index following: accepted.
  const RecordMetaData both = changed(multiType, [&](MetaDataProto& p) {
    renameNote(p);
    field(p, "Customer", "note").set_name("remark");
    *index(p, "by_note").mutable_root_expression() = rl::field("remark").toProto();
  });
  expectAccepted(multiType, both, {.allowFieldRenames = true});
}

TEST_F(MetaDataEvolution, NewRecordTypesNeedANewerSinceVersion) {
  expectAccepted(old_, changed(old_, [](MetaDataProto& p) { addPayment(p, 3); }));
  const RecordMetaData noSince = changed(old_, [](MetaDataProto& p) { addPayment(p, 0); });
  expectAllowedBy(old_, noSince, "new record type is missing since version", "record type Payment",
                  {.allowNoSinceVersion = true});
  expectRefused(old_, changed(old_, [](MetaDataProto& p) { addPayment(p, 2); }),
                "new record type has since version older than old meta-data",
                "record type Payment: since version 2, old meta-data version 2",
                {.allowNoSinceVersion = true});
}

TEST_F(MetaDataEvolution, RemovedIndexesBecomeFormerIndexes) {
  const std::string name = "Order$customer";
  expectRefused(old_, changed(old_, [&](MetaDataProto& p) { removeIndex(p, name); }),
                "index missing in new meta-data", "index Order$customer");
  auto removedAs = [&](FormerIndexProto formerIndex) {
    return changed(old_, [&](MetaDataProto& p) {
      removeIndex(p, name);
      *p.add_former_indexes() = formerIndex;
    });
  };
  expectAccepted(old_, removedAs(former(name, 2, 3)));

  FormerIndexProto renamed = former(name, 2, 3);
  renamed.set_former_name("by_customer");
  expectRefused(old_, removedAs(renamed), "former index has different name than old index",
                "former index by_customer (subspace key \"Order$customer\") replaces index "
                "Order$customer",
                {.allowMissingFormerIndexNames = true});
  FormerIndexProto nameless = former(name, 2, 3);
  nameless.clear_former_name();
  expectAllowedBy(old_, removedAs(nameless), "former index has different name than old index",
                  "replaces index Order$customer", {.allowMissingFormerIndexNames = true});

  expectRefused(old_, removedAs(former(name, 3, 3)), "former index added after old index",
                "added version 3, index Order$customer added at 2",
                {.allowOlderFormerIndexAddedVersions = true});
  expectAllowedBy(old_, removedAs(former(name, 1, 3)),
                  "former index reports added version older than replacing index",
                  "added version 1, index Order$customer added at 2",
                  {.allowOlderFormerIndexAddedVersions = true});
  expectRefused(old_, removedAs(former(name, 2, 2)),
                "new former index has removed version that is not newer than the old meta-data "
                "version",
                "former index Order$customer");
}

TEST_F(MetaDataEvolution, FormerIndexesOfIndexesAddedSinceTheOldMetaData) {
  // An index added and removed between the two versions leaves a former index of its own.
  auto withFormer = [&](int added) {
    return changed(old_, [&](MetaDataProto& p) {
      p.set_version(4);
      *p.add_former_indexes() = former("Order$tags", added, 4);
    });
  };
  expectAccepted(old_, withFormer(3));
  expectAllowedBy(old_, withFormer(2),
                  "former index without existing index has added version prior to old meta-data "
                  "version",
                  "former index Order$tags", {.allowOlderFormerIndexAddedVersions = true});
}

TEST_F(MetaDataEvolution, FormerIndexesStayAsTheyWere) {
  const RecordMetaData dropped = changed(old_, [](MetaDataProto& p) {
    removeIndex(p, "Order$customer");
    *p.add_former_indexes() = former("Order$customer", 2, 3);
  });
  expectAccepted(dropped, changed(dropped, [](MetaDataProto&) {}));
  auto changedFormer = [&](const std::function<void(FormerIndexProto&)>& change) {
    return changed(dropped, [&](MetaDataProto& p) { change(*p.mutable_former_indexes(0)); });
  };
  expectRefused(dropped, changedFormer([](FormerIndexProto& f) { f.set_removed_version(4); }),
                "removed version of former index differs from prior version",
                "former index Order$customer (subspace key \"Order$customer\"): 3 is now 4");
  expectRefused(dropped, changedFormer([](FormerIndexProto& f) { f.set_added_version(1); }),
                "added version of former index differs from prior version",
                "former index Order$customer");
  expectRefused(dropped, changedFormer([](FormerIndexProto& f) { f.set_former_name("c"); }),
                "name of former index differs from prior version", "Order$customer is now c");
  expectRefused(dropped, changed(dropped, [](MetaDataProto& p) { p.clear_former_indexes(); }),
                "former index removed from meta-data", "former index Order$customer");
  // Its subspace key is not taken again (the same name, without the former index).
  const RecordMetaData reused = changed(dropped, [](MetaDataProto& p) {
    p.clear_former_indexes();
    IndexProto& again = *p.add_indexes();
    again.CopyFrom(index(p, "Order$price"));
    again.set_name("Order$customer");
    again.clear_subspace_key();
    *again.mutable_root_expression() = rl::field("customer").toProto();
    again.set_added_version(4);
    again.set_last_modified_version(4);
  });
  expectRefused(dropped, reused, "former index key used for new index in meta-data",
                "index Order$customer has the subspace key \"Order$customer\" of former index "
                "Order$customer");
}

TEST_F(MetaDataEvolution, NewIndexesHaveNewerVersions) {
  auto withIndex = [&](int version) {
    return changed(old_, [&](MetaDataProto& p) {
      IndexProto& tags = *p.add_indexes();
      tags.set_name("Order$tags");
      tags.add_record_type("Order");
      *tags.mutable_root_expression() = rl::field("tags", FanType::kFanOut).toProto();
      tags.set_added_version(version);
      tags.set_last_modified_version(version);
    });
  };
  expectAccepted(old_, withIndex(3));
  expectRefused(old_, withIndex(2),
                "new index has version that is not newer than the old meta-data version",
                "index Order$tags: last-modified version 2, old meta-data version 2",
                {.allowIndexRebuilds = true});
}

TEST_F(MetaDataEvolution, IndexesKeepNameAndVersions) {
  // Another name on the same subspace key.
  expectRefused(old_,
                changed(old_,
                        [](MetaDataProto& p) {
                          IndexProto& i = index(p, "Order$customer");
                          i.set_name("by_customer");
                          i.set_subspace_key(packSubspaceKey(fdb::TupleElement("Order$customer")));
                        }),
                "index name changed", "index Order$customer is now named by_customer");
  expectRefused(
      old_,
      changed(old_, [](MetaDataProto& p) { index(p, "Order$customer").set_added_version(1); }),
      "new index added version does not match old index added version",
      "index Order$customer: 2 is now 1", {.allowIndexRebuilds = true});
  expectRefused(old_,
                changed(old_,
                        [](MetaDataProto& p) {
                          IndexProto& i = index(p, "Order$customer");
                          i.set_added_version(1);
                          i.set_last_modified_version(1);
                          index(p, "Order$price").set_last_modified_version(1);
                        }),
                "new index added version does not match old index added version",
                "index Order$customer");
  const RecordMetaData earlier = changed(
      old_, [](MetaDataProto& p) { index(p, "Order$customer").set_last_modified_version(3); });
  expectRefused(
      earlier,
      changed(earlier,
              [](MetaDataProto& p) { index(p, "Order$customer").set_last_modified_version(2); }),
      "old index has last-modified version newer than new index",
      "index Order$customer: 3 is now 2", {.allowIndexRebuilds = true});
}

TEST_F(MetaDataEvolution, IndexChangesNeedARebuild) {
  // A change to an index with its last-modified version raised: a rebuild.
  auto rebuilt = [&](const std::function<void(IndexProto&)>& change) {
    return changed(old_, [&](MetaDataProto& p) {
      IndexProto& i = index(p, "Order$customer");
      change(i);
      i.set_last_modified_version(3);
    });
  };
  const RecordMetaData retyped = rebuilt([](IndexProto& i) { i.set_type("rank"); });
  expectAllowedBy(old_, retyped, "last modified version of index changed",
                  "index Order$customer: 2 is now 3", {.allowIndexRebuilds = true});
  expectAccepted(old_, rebuilt([](IndexProto&) {}), {.allowIndexRebuilds = true});
  expectAccepted(old_, rebuilt([](IndexProto& i) {
                   *i.mutable_root_expression() = concatenateFields("customer", "price").toProto();
                 }),
                 {.allowIndexRebuilds = true});
}

TEST_F(MetaDataEvolution, IndexDefinitionsStayWithoutARebuild) {
  auto redefined = [&](const std::function<void(MetaDataProto&, IndexProto&)>& change) {
    return changed(old_, [&](MetaDataProto& p) { change(p, index(p, "Order$customer")); });
  };
  expectRefused(old_, redefined([](MetaDataProto&, IndexProto& i) { i.set_type("rank"); }),
                "index type changed", "index Order$customer: value is now rank");
  expectRefused(old_, redefined([](MetaDataProto&, IndexProto& i) {
                  *i.mutable_root_expression() = concatenateFields("customer", "price").toProto();
                }),
                "index key expression changed",
                "index Order$customer: field(customer) is now concat(field(customer), "
                "field(price))");
  // Record types: none removed; an added one must be newer than the old metadata.
  expectRefused(old_, redefined([](MetaDataProto&, IndexProto& i) {
                  i.add_record_type("Customer");
                  *i.mutable_root_expression() = rl::field("id").toProto();
                }),
                "new index adds record type that is not newer than old meta-data",
                "index Order$customer now covers record type Customer");
  const RecordMetaData multiType = changed(old_, [](MetaDataProto& p) {
    IndexProto& byId = *p.add_indexes();
    byId.set_name("by_id");
    byId.add_record_type("Order");
    byId.add_record_type("Customer");
    *byId.mutable_root_expression() = rl::field("id").toProto();
    byId.set_added_version(3);
    byId.set_last_modified_version(3);
  });
  const RecordMetaData fewerTypes = changed(multiType, [](MetaDataProto& p) {
    index(p, "by_id").clear_record_type();
    index(p, "by_id").add_record_type("Order");
  });
  expectRefused(multiType, fewerTypes, "new index removes record type",
                "index by_id no longer covers record type Customer");
  const RecordMetaData moreTypes = changed(multiType, [](MetaDataProto& p) {
    addPayment(p, 4);
    index(p, "by_id").add_record_type("Payment");
  });
  expectAccepted(multiType, moreTypes);
}

// An index on one record type knows which of its columns hold the primary key; on several it
// does not. "new index adds primary key component positions" and "new index changes primary key
// component positions" need a changed key or primary key, refused before.
TEST_F(MetaDataEvolution, PrimaryKeyComponentPositionsStay) {
  const RecordMetaData byId = changed(old_, [](MetaDataProto& p) {
    IndexProto& i = *p.add_indexes();
    i.set_name("by_id");
    i.add_record_type("Order");
    *i.mutable_root_expression() = rl::field("id").toProto();
    i.set_added_version(3);
    i.set_last_modified_version(3);
  });
  ASSERT_TRUE(byId.index("by_id").primaryKeyComponentPositions());
  // On a new record type too: allowed as such, but the positions are gone.
  const RecordMetaData onPayment = changed(byId, [](MetaDataProto& p) {
    addPayment(p, 4);
    index(p, "by_id").add_record_type("Payment");
  });
  ASSERT_FALSE(onPayment.index("by_id").primaryKeyComponentPositions());
  expectRefused(byId, onPayment, "new index drops primary key component positions", "index by_id");
  // Kept as it was, with the same positions: accepted.
  expectAccepted(byId, changed(byId, [](MetaDataProto&) {}));
}

TEST_F(MetaDataEvolution, IndexOptions) {
  auto withOption = [&](const RecordMetaData& from, const std::string& key,
                        const std::string& value) {
    return changed(from, [&](MetaDataProto& p) {
      auto* option = index(p, "Order$customer").add_options();
      option->set_key(key);
      option->set_value(value);
    });
  };
  const RecordMetaData unique = withOption(old_, "unique", "true");
  expectRefused(old_, unique, "index adds uniqueness constraint", "index Order$customer");
  expectRefused(old_, unique, "index adds uniqueness constraint", "index Order$customer",
                {.allowIndexRebuilds = true});
  // Accepted as a rebuild: with the index's last-modified version raised.
  const RecordMetaData uniqueRebuilt = changed(unique, [](MetaDataProto& p) {
    p.set_version(3);
    index(p, "Order$customer").set_last_modified_version(3);
  });
  expectAccepted(old_, uniqueRebuilt, {.allowIndexRebuilds = true});
  // Dropping uniqueness is fine.
  expectAccepted(unique, changed(unique, [](MetaDataProto& p) {
                   index(p, "Order$customer").clear_options();
                 }));
  expectAccepted(old_, withOption(old_, "allowedForQuery", "false"));
  expectAccepted(old_, withOption(old_, "replacedBy1", "Order$price"));
  expectRefused(old_, withOption(old_, "rankLevels", "4"), "index option changed",
                "index Order$customer: option rankLevels was (none), is now 4");
}

// RecordMetaDataBuilder::evolveFrom: what a changed schema file becomes.
TEST(MetaDataEvolveFrom, KeepsVersionsAndMakesFormerIndexes) {
  const RecordMetaData previous = base();  // Order$price 1, Order$customer 2
  RecordMetaDataBuilder builder(evolution_test::Order::descriptor()->file());
  builder.addIndex("Order", Index("Order$tags", field("tags", FanType::kFanOut)));
  builder.setVersion(5);
  builder.evolveFrom(previous);
  const RecordMetaData next = builder.build();
  EXPECT_EQ(next.index("Order$price").addedVersion(), 1);
  EXPECT_EQ(next.index("Order$price").lastModifiedVersion(), 1);
  EXPECT_EQ(next.index("Order$customer").lastModifiedVersion(), 2);
  EXPECT_EQ(next.index("Order$tags").addedVersion(), 5);
  EXPECT_EQ(next.index("Order$tags").lastModifiedVersion(), 5);
  EXPECT_NO_THROW(MetaDataEvolutionValidator().validate(previous, next));

  // Order$customer removed, Order$price made unique.
  const MetaDataProto nextProto = next.toProto();
  MetaDataProto proto = nextProto;
  proto.clear_indexes();
  proto.clear_former_indexes();
  for (const IndexProto& i : nextProto.indexes()) {
    if (i.name() == "Order$customer") continue;
    IndexProto& kept = *proto.add_indexes();
    kept = i;
    if (i.name() == "Order$price") {
      auto* option = kept.add_options();
      option->set_key("unique");
      option->set_value("true");
    }
  }
  proto.set_version(6);
  RecordMetaDataBuilder third = RecordMetaDataBuilder::fromProto(proto);
  third.evolveFrom(next);
  const RecordMetaData last = third.build();
  ASSERT_EQ(last.formerIndexes().size(), 1u);
  EXPECT_EQ(last.formerIndexes()[0],
            (FormerIndex{fdb::TupleElement("Order$customer"), 2, 6, "Order$customer"}));
  EXPECT_EQ(last.index("Order$price").addedVersion(), 1);
  EXPECT_EQ(last.index("Order$price").lastModifiedVersion(), 6);
  try {
    MetaDataEvolutionValidator().validate(next, last);
    ADD_FAILURE() << "a changed index was accepted without a rebuild";
  } catch (const MetaDataException& e) {
    EXPECT_EQ(std::string(e.what()),
              "last modified version of index changed: index Order$price: 1 is now 6 (a rebuild; "
              "allowIndexRebuilds allows it)");
  }
  EXPECT_NO_THROW(MetaDataEvolutionValidator({.allowIndexRebuilds = true}).validate(next, last));
}

TEST(MetaDataEvolveFrom, AnIndexAddedAgainTakesANewSubspaceKey) {
  const RecordMetaData previous = base();
  RecordMetaDataBuilder without(evolution_test::Order::descriptor()->file(), false);
  without.recordType("Order").setPrimaryKey(rl::field("id"));
  without.recordType("Customer").setPrimaryKey(rl::field("id"));
  without.addIndex("Order", Index("Order$price", rl::field("price")));
  without.setVersion(3);
  without.evolveFrom(previous);
  const RecordMetaData dropped = without.build();
  ASSERT_EQ(dropped.formerIndexes().size(), 1u);
  EXPECT_NO_THROW(MetaDataEvolutionValidator().validate(previous, dropped));

  RecordMetaDataBuilder again(evolution_test::Order::descriptor()->file());  // both indexes
  again.setVersion(4);
  again.evolveFrom(dropped);
  const RecordMetaData readded = again.build();
  EXPECT_EQ(readded.index("Order$customer").subspaceKey(), fdb::TupleElement("Order$customer@4"));
  EXPECT_EQ(readded.index("Order$customer").addedVersion(), 4);
  EXPECT_EQ(readded.index("Order$price").subspaceKey(), fdb::TupleElement("Order$price"));
  EXPECT_EQ(readded.formerIndexes(), dropped.formerIndexes());
  EXPECT_NO_THROW(MetaDataEvolutionValidator().validate(dropped, readded));
}

TEST(MetaDataEvolveFrom, NewRecordTypesTakeTheVersion) {
  // The previous metadata without Customer (its union field removed).
  MetaDataProto proto = base().toProto();
  removeField(proto, "RecordTypeUnion", "_Customer");
  auto* types = proto.mutable_record_types();
  for (int i = 0; i < types->size(); ++i) {
    if (types->Get(i).name() == "Customer") types->DeleteSubrange(i--, 1);
  }
  const RecordMetaData previous = RecordMetaData::fromProto(proto);
  RecordMetaDataBuilder builder(evolution_test::Order::descriptor()->file());
  builder.setVersion(3);
  builder.evolveFrom(previous);
  const RecordMetaData next = builder.build();
  EXPECT_EQ(next.recordType("Customer").sinceVersion(), std::optional<int>(3));
  EXPECT_EQ(next.recordType("Order").sinceVersion(), std::nullopt);
  EXPECT_NO_THROW(MetaDataEvolutionValidator().validate(previous, next));
}

// Randomized: a schema whose indexes come and go and change definition, version after version,
// each made a successor of the last with evolveFrom and saved through the metadata store, which
// must accept it exactly when no kept index changed (the model) unless rebuilds are allowed;
// the store, opened with each accepted version, always checks clean.
TEST(MetaDataEvolutionRandomized, EvolvedSchemasAreAcceptedExactlyWhenTheModelSays) {
  // For each index name, the definitions it may take.
  const std::map<std::string, std::vector<std::pair<KeyExpression, bool>>> pool = {
      {"a", {{rl::field("price"), false}, {concatenateFields("price", "customer"), false}}},
      {"b", {{rl::field("customer"), false}, {rl::field("customer"), true}}},
      {"c", {{rl::field("tags", FanType::kFanOut), false}, {rl::field("quantity"), false}}},
      {"d", {{rl::field("status"), false}}},
  };
  std::mt19937 random(20261205);
  fdb::Database db = rl::tests::openTestDatabase();
  const StoreLocation metaLocation = StoreLocation::rawPrefix("M");
  const StoreLocation storeLocation = StoreLocation::rawPrefix("S");
  std::map<std::string, size_t> current;  // the model: each index's definition
  std::optional<RecordMetaData> stored;
  int version = 0;
  int accepted = 0;
  int refused = 0;
  for (int step = 0; step < 150; ++step) {
    std::map<std::string, size_t> next;
    for (const auto& [name, definitions] : pool) {
      if (random() % 3 == 0) continue;  // absent this version
      auto kept = current.find(name);
      next[name] =
          kept != current.end() && random() % 2 == 0 ? kept->second : random() % definitions.size();
    }
    bool changesAnIndex = false;
    for (const auto& [name, definition] : next) {
      auto kept = current.find(name);
      changesAnIndex |= kept != current.end() && kept->second != definition;
    }
    const bool allowRebuilds = random() % 2 == 0;

    RecordMetaDataBuilder builder(evolution_test::Order::descriptor()->file(), false);
    builder.recordType("Order").setPrimaryKey(rl::field("id"));
    builder.recordType("Customer").setPrimaryKey(rl::field("id"));
    for (const auto& [name, definition] : next) {
      const auto& [key, unique] = pool.at(name)[definition];
      std::map<std::string, std::string> options;
      if (unique) options.emplace(std::string(Index::kUniqueOption), "true");
      builder.addIndex("Order", Index(name, key, Index::kValue, options));
    }
    builder.setVersion(std::max(version + 1, builder.version()));
    if (stored) builder.evolveFrom(*stored);
    const RecordMetaData metaData = builder.build();

    bool saved = true;
    try {
      runInContext(db, [&](RecordContext& context) {
        MetaDataStore metaDataStore(context, metaLocation);
        metaDataStore.setEvolutionValidator(
            MetaDataEvolutionValidator({.allowIndexRebuilds = allowRebuilds}));
        metaDataStore.save(metaData);
      });
    } catch (const MetaDataException& e) {
      saved = false;
      EXPECT_EQ(std::string(e.what()).rfind("last modified version of index changed: index ", 0),
                0u)
          << e.what();
    }
    ASSERT_EQ(saved, !changesAnIndex || allowRebuilds) << "step " << step;
    if (!saved) {
      ++refused;
      continue;
    }
    ++accepted;
    version = metaData.version();
    current = next;
    stored = metaData;
    // The store with this version, and a few records of distinct customers (for the unique
    // index), then the check.
    runInContext(db, [&](RecordContext& context) {
      RecordStore store = RecordStore::open(context, storeLocation, metaData);
      evolution_test::Order order;
      order.set_id(step);
      order.set_price(static_cast<int32_t>(random() % 100));
      order.set_customer("c" + std::to_string(step));
      order.add_tags(random() % 2 ? "x" : "y");
      store.saveRecord(order);
    });
    const CheckReport report = StoreChecker(db, storeLocation, metaData).run();
    ASSERT_TRUE(report.ok()) << "step " << step << ": " << report.problems.front().toString();
  }
  EXPECT_GT(accepted, 50);
  EXPECT_GT(refused, 10);
}

// The metadata store checks every save against the stored metadata; a refused change leaves
// the stored metadata and the store's records as they were.
TEST(MetaDataStoreEvolution, ARefusedChangeKeepsTheMetaDataAndTheRecords) {
  fdb::Database db = rl::tests::openTestDatabase();
  const StoreLocation metaLocation = StoreLocation::rawPrefix("M");
  const StoreLocation storeLocation = StoreLocation::rawPrefix("S");
  const RecordMetaData first = base();
  runInContext(db, [&](RecordContext& context) {
    MetaDataStore(context, metaLocation).save(first);
    RecordStore store = RecordStore::open(context, storeLocation, first);
    evolution_test::Order order;
    order.set_id(7);
    order.set_price(120);
    order.set_customer("ann");
    store.saveRecord(order);
  });
  // A field removed: refused, nothing written.
  const RecordMetaData removedField =
      changed(first, [](MetaDataProto& p) { removeField(p, "Order", "code"); });
  try {
    runInContext(db, [&](RecordContext& context) {
      MetaDataStore(context, metaLocation).save(removedField);
    });
    ADD_FAILURE() << "saved";
  } catch (const MetaDataException& e) {
    EXPECT_EQ(std::string(e.what()),
              "field removed from message descriptor: field code (= 9) of Order");
  }
  // An index changed without a rebuild: refused by default, saved with allowIndexRebuilds.
  const RecordMetaData rebuilt = changed(first, [](MetaDataProto& p) {
    IndexProto& i = index(p, "Order$customer");
    *i.mutable_root_expression() = concatenateFields("customer", "price").toProto();
    i.set_last_modified_version(3);
  });
  EXPECT_THROW(
      runInContext(
          db, [&](RecordContext& context) { MetaDataStore(context, metaLocation).save(rebuilt); }),
      MetaDataException);
  const std::optional<RecordMetaData> stored = runInContext(
      db, [&](RecordContext& context) { return MetaDataStore(context, metaLocation).load(); });
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->toProto().SerializeAsString(), first.toProto().SerializeAsString());
  runInContext(db, [&](RecordContext& context) {
    RecordStore store = RecordStore::open(context, storeLocation, *stored);
    auto loaded = store.loadRecord<evolution_test::Order>(fdb::Tuple{int64_t{7}});
    ASSERT_TRUE(loaded);
    EXPECT_EQ(loaded->record.customer(), "ann");
    EXPECT_EQ(store.header().metadataversion(), 2);
  });

  runInContext(db, [&](RecordContext& context) {
    MetaDataStore metaDataStore(context, metaLocation);
    metaDataStore.setEvolutionValidator(MetaDataEvolutionValidator({.allowIndexRebuilds = true}));
    metaDataStore.save(rebuilt);
  });
  runInContext(db, [&](RecordContext& context) {
    const std::optional<RecordMetaData> now = MetaDataStore(context, metaLocation).load();
    ASSERT_TRUE(now);
    EXPECT_EQ(now->version(), 3);
    // The store opens with it and rebuilds the index (a store this small: at once).
    RecordStore store = RecordStore::open(context, storeLocation, *now);
    EXPECT_EQ(store.indexState("Order$customer"), IndexState::kReadable);
  });
}

}  // namespace
}  // namespace rl
