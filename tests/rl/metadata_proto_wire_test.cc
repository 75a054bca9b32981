// The metadata protos encode as the Java Record Layer's do: same field and extension
// numbers. Expected bytes are written out from the protobuf wire format (tag = field
// number << 3 | wire type; 0 varint, 2 length-delimited).
#include <google/protobuf/descriptor.pb.h>
#include <gtest/gtest.h>

#include <string>

#include "fdb/bytes.h"
#include "record_metadata.pb.h"
#include "record_metadata_options.pb.h"

namespace {

namespace record = ::com::apple::foundationdb::record;

TEST(MetaDataProtoWire, StoreHeaderFieldNumbers) {
  record::DataStoreInfo info;
  info.set_formatversion(7);                                     // 1: 08 07
  info.set_metadataversion(3);                                   // 2: 10 03
  info.set_cacheable(true);                                      // 7: 38 01
  auto* entry = info.add_user_field();                           // 8: 42 len
  entry->set_key("k");                                           //    0a 01 6b
  entry->set_value("v");                                         //    12 01 76
  info.set_record_count_state(record::DataStoreInfo::DISABLED);  // 9: 48 03
  info.mutable_store_lock_state()->set_lock_state(
      record::DataStoreInfo::StoreLockState::FULL_STORE);  // 10: 52 02 08 02
  info.set_incarnation(2);                                 // 11: 58 02
  EXPECT_EQ(fdb::toHex(info.SerializeAsString()),
            "0807"
            "1003"
            "3801"
            "42060a016b120176"
            "4803"
            "52020802"
            "5802");
}

TEST(MetaDataProtoWire, OptionsUseExtension1233) {
  // Field 1233, wire type 2: tag 9866 = varint 8a 4d.
  google::protobuf::FieldOptions fieldOptions;
  fieldOptions.MutableExtension(record::field)->set_primary_key(true);  // primary_key = 2
  EXPECT_EQ(fdb::toHex(fieldOptions.SerializeAsString()),
            "8a4d"
            "02"
            "1001");

  google::protobuf::MessageOptions messageOptions;
  messageOptions.MutableExtension(record::record)->set_usage(record::RecordTypeOptions::UNION);
  EXPECT_EQ(fdb::toHex(messageOptions.SerializeAsString()),
            "8a4d"
            "02"
            "0802");

  google::protobuf::FileOptions fileOptions;
  fileOptions.MutableExtension(record::schema)->set_store_record_versions(true);  // field 4
  EXPECT_EQ(fdb::toHex(fileOptions.SerializeAsString()),
            "8a4d"
            "02"
            "2001");
}

TEST(MetaDataProtoWire, IndexAndMetaDataFieldNumbers) {
  record::Index index;
  index.set_name("i");         // 3: 1a 01 69
  index.set_type("value");     // 8: 42 05 76616c7565
  index.set_added_version(1);  // 10: 50 01
  EXPECT_EQ(fdb::toHex(index.SerializeAsString()),
            "1a0169"
            "420576616c7565"
            "5001");

  record::MetaData metaData;
  metaData.set_version(4);                       // 5: 28 04
  metaData.set_store_record_versions(true);      // 8: 40 01
  metaData.set_uses_subspace_key_counter(true);  // 11: 58 01
  EXPECT_EQ(fdb::toHex(metaData.SerializeAsString()),
            "2804"
            "4001"
            "5801");
}

}  // namespace
