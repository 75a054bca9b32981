// A libfdb_c too old for the backend: it supports API versions up to 710 only. Every other
// function comes from this build's libfdb_c.so, a dependency of this library, which dlsym
// searches after this library itself (client_library_test.cc loads it).
extern "C" {

int fdb_get_max_api_version() { return 710; }

const char* fdb_get_client_version() { return "7.1.0-old-api-test,rl-fdbc-test,fdb00b071000000"; }

}  // extern "C"
