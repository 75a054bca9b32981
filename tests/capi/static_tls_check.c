/* libfdb_c.so's thread-locals must fit glibc's static TLS reserve for libraries loaded with
 * dlopen (512 bytes by default, shared by every such library of a process): only then are
 * they reached with a couple of instructions (TLS descriptors resolved to the static block)
 * instead of a call into the dynamic TLS resolver on every access, which cost the C boundary
 * about 300 instructions a transaction when the library's TLS was 3 kB.
 *
 * Loads the library as a binding does (dlopen, RTLD_LOCAL), then, without calling into it,
 * looks from a thread started after the load: a thread's static TLS blocks are set up when
 * it starts, dynamic ones only on first access, so the library's block is already there in
 * that thread only when it is static. Also checks the block stays at most 256 bytes,
 * leaving room for other libraries in the reserve.
 *
 * Usage: static_tls_check PATH_TO_LIBFDB_C */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char* wanted;
static int found, tlsModule, tlsReady;
static size_t tlsBytes;

static int visit(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  const char* name = info->dlpi_name;
  size_t n = strlen(name), m = strlen(wanted);
  if (n < m || strcmp(name + n - m, wanted) != 0) return 0;
  found = 1;
  tlsModule = info->dlpi_tls_modid != 0;
  tlsReady = info->dlpi_tls_data != NULL;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_TLS) tlsBytes = info->dlpi_phdr[i].p_memsz;
  }
  return 1;
}

static void* look(void* unused) {
  (void)unused;
  dl_iterate_phdr(visit, NULL);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH_TO_LIBFDB_C\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  const char* slash = strrchr(argv[1], '/');
  wanted = slash != NULL ? slash + 1 : argv[1];
  pthread_t thread;
  if (pthread_create(&thread, NULL, look, NULL) != 0 || pthread_join(thread, NULL) != 0) {
    fprintf(stderr, "could not start a thread\n");
    return 1;
  }
  if (!found) {
    fprintf(stderr, "%s is not among the loaded objects\n", wanted);
    return 1;
  }
  printf("%s: %zu bytes of TLS, %s\n", wanted, tlsBytes,
         !tlsModule ? "no TLS" : tlsReady ? "in the static TLS block" : "in dynamic TLS");
  if (tlsModule && !tlsReady) {
    fprintf(stderr, "the library's thread-locals did not fit glibc's static TLS reserve\n");
    return 1;
  }
  if (tlsBytes > 256) {
    fprintf(stderr, "the library's thread-locals take %zu bytes (at most 256 expected)\n",
            tlsBytes);
    return 1;
  }
  return 0;
}
