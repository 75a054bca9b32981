// Packs a key with the installed tuple layer and checks that it unpacks to the same tuple.
#include <cstdio>

#include <fdb/subspace.h>
#include <fdb/tuple.h>
#include <fdb/tuple_text.h>

int main() {
  fdb::Subspace orders(fdb::Tuple{"shop", "orders"});
  fdb::Tuple key{42, "pending"};
  fdb::Bytes packed = orders.pack(key);
  bool roundTrips = orders.unpack(packed) == key;
  std::printf("%s -> %s (%s)\n", fdb::formatTuple(key).c_str(), fdb::toHex(packed).c_str(),
              roundTrips ? "round trip ok" : "ROUND TRIP FAILED");
  return roundTrips ? 0 : 1;
}
