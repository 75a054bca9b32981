/* A C client that exits without stopping the network (capi.CapiExit.* in
 * exit_test.cc): it starts fdb_run_network on a thread of its own, waits for one read whose
 * callback runs on that thread, gives the thread time to go back to waiting for work, and
 * calls exit(0) while fdb_run_network still runs. Exit codes other than 0 name the step that
 * failed. */
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int readDone = 0;

static void* runNetwork(void* unused) {
  (void)unused;
  fdb_run_network();
  return NULL;
}

static void onRead(FDBFuture* future, void* unused) {
  (void)future;
  (void)unused;
  pthread_mutex_lock(&mutex);
  readDone = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&mutex);
}

int main(void) {
  pthread_t network;
  FDBDatabase* db = NULL;
  FDBTransaction* tr = NULL;
  FDBFuture* read = NULL;
  struct timespec settle = {0, 200 * 1000 * 1000};

  if (fdb_select_api_version(FDB_API_VERSION) != 0) return 2;
  if (fdb_setup_network() != 0) return 3;
  if (pthread_create(&network, NULL, runNetwork, NULL) != 0) return 4;
  if (fdb_create_database_from_connection_string("memory:exit-worker", &db) != 0) return 5;
  if (fdb_database_create_transaction(db, &tr) != 0) return 6;
  read = fdb_transaction_get(tr, (const uint8_t*)"k", 1, 0);
  if (fdb_future_set_callback(read, onRead, NULL) != 0) return 7;
  pthread_mutex_lock(&mutex);
  while (!readDone) pthread_cond_wait(&changed, &mutex);
  pthread_mutex_unlock(&mutex);
  /* The callback may have run on this thread (a future born ready) or on the network thread;
   * either way the network thread is back to waiting for work well within this pause. */
  nanosleep(&settle, NULL);
  exit(0);
}
