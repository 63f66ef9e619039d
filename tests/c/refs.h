/* Building op arguments in the C tests: host storages, tensor refs (views of a
 * storage) and tensor arguments. Include after check.h. */
#ifndef TT_TESTS_REFS_H
#define TT_TESTS_REFS_H

#include <stdio.h>
#include <string.h>

#include "api/call.h"
#include "test_engine.h"

static inline tt_storage_t *host_f32(const float *v, int64_t n) {
  tt_storage_t *s = NULL;
  CHECK_OK(tt_storage_from_host(E, v, TT_F32, n, &s));
  return s;
}

/* An executable of the identity on f32[n], compiled on E's runtime (for
 * the tier-1 unit tests). */
static inline tt_pjrt_executable_t *compile_identity(int n) {
  char text[256];
  snprintf(text, sizeof text,
           "module @m { func.func public @main(%%a: tensor<%dxf32>) -> tensor<%dxf32> { return %%a : tensor<%dxf32> } }\n",
           n, n, n);
  tt_pjrt_executable_t *exe = NULL;
  CHECK_OK(tt_pjrt_compile(E->rt, text, strlen(text), 1, "identity", &exe));
  return exe;
}

/* A strided view of storage s with s's dtype. */
static inline tt_tensor_ref_t ref_of(tt_storage_t *s, int rank, const int64_t *sizes, const int64_t *strides,
                                     int64_t offset) {
  tt_tensor_ref_t r;
  memset(&r, 0, sizeof r);
  r.storage = s;
  r.dtype = s->dtype;
  r.view.rank = rank;
  memcpy(r.view.sizes, sizes, sizeof(int64_t) * (size_t)rank);
  memcpy(r.view.strides, strides, sizeof(int64_t) * (size_t)rank);
  r.view.offset = offset;
  return r;
}

/* The first n elements of s as a contiguous vector. */
static inline tt_tensor_ref_t vec(tt_storage_t *s, int64_t n) {
  const int64_t one = 1;
  return ref_of(s, 1, &n, &one, 0);
}

static inline tt_arg_t tensor_arg(tt_tensor_ref_t *r) {
  tt_arg_t a;
  memset(&a, 0, sizeof a);
  a.kind = TT_ARG_TENSOR;
  a.t = r;
  return a;
}

#endif
