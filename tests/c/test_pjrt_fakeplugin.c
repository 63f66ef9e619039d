/* A stand-in "plugin" for test_pjrt: exports GetPjrtApi with a version and
 * table size taken from the environment, and nothing callable. The loader
 * must refuse it before calling anything. Build as a shared library:
 *   gcc -std=c11 -shared -fPIC -Icsrc tests/c/test_pjrt_fakeplugin.c -o fake.so */
#include <stdlib.h>
#include <string.h>

#include "pjrt/pjrt_api.h"

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && v[0] ? atoi(v) : dflt;
}

/* Room for a full table; only its header is ever filled. */
static union {
  PJRT_Api api;
  unsigned char bytes[sizeof(PJRT_Api) + 256 * sizeof(tt_pjrt_fn_t)];
} g_table;

const PJRT_Api *GetPjrtApi(void);
const PJRT_Api *GetPjrtApi(void) {
  memset(&g_table, 0, sizeof g_table);
  size_t slots = (size_t)env_int("TT_FAKE_PJRT_SLOTS", 200);
  g_table.api.struct_size = offsetof(PJRT_Api, fn) + slots * sizeof(tt_pjrt_fn_t);
  g_table.api.pjrt_api_version.struct_size = sizeof(PJRT_Api_Version);
  g_table.api.pjrt_api_version.major_version = env_int("TT_FAKE_PJRT_MAJOR", 0);
  g_table.api.pjrt_api_version.minor_version = env_int("TT_FAKE_PJRT_MINOR", 50);
  return &g_table.api;
}
