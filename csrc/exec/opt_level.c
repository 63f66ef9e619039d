/* The engine's XLA optimization level and small-program bound (exec/opt_level.h). */
#include "exec/opt_level.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define CPU_DEFAULT 1

int tt_opt_level_from_env(const tt_env_t *env, const char *platform) {
  int dflt = platform && strcmp(platform, "cpu") == 0 ? CPU_DEFAULT : -1;
  int64_t v = tt_env_count(env, TT_ENV_XLA_OPT_LEVEL, dflt);
  if (v > TT_OPT_LEVEL_MAX) {
    fprintf(stderr, "torchtpu: warning: TORCH_TPU_XLA_OPTIMIZATION_LEVEL=%lld is above %d; using the default\n",
            (long long)v, TT_OPT_LEVEL_MAX);
    return dflt;
  }
  return (int)v;
}

int64_t tt_small_program_bound_from_env(const tt_env_t *env, const char *platform) {
  int64_t dflt = platform && strcmp(platform, "cpu") == 0 ? TT_SMALL_PROGRAM_CPU_DEFAULT : 0;
  return tt_env_count(env, TT_ENV_SMALL_PROGRAM_ELEMENTS, dflt);
}

/* The element count of the tensor type whose dims start at p ("4x8xf32>",
 * "f32>": 1), saturated at bound + 1; -1 when a dimension is dynamic. */
static int64_t type_elements(const char *p, const char *end, int64_t bound) {
  int64_t n = 1;
  while (p < end && isdigit((unsigned char)*p)) {
    int64_t d = 0;
    const char *q = p;
    while (q < end && isdigit((unsigned char)*q)) {
      if (d <= bound) d = d * 10 + (*q - '0');
      q++;
    }
    if (q >= end || *q != 'x') break; /* digits not followed by 'x' belong to the element type (i32) */
    p = q + 1;
    if (d > bound) d = bound + 1;
    n = n > bound / (d ? d : 1) + 1 ? bound + 1 : n * d;
    if (n > bound) n = bound + 1;
  }
  return p < end && *p == '?' ? -1 : n;
}

int tt_module_is_small(const char *text, size_t len, int64_t bound) {
  if (bound <= 0 || !text) return 0;
  static const char kTensor[] = "tensor<";
  const char *end = text + len;
  /* Matrix products and convolutions run slower on the classic emitters at
   * every size measured (a 64x64 product 1.2-1.5x): never small. */
  static const char *const kHeavy[] = {"dot_general", "convolution"};
  for (size_t i = 0; i < sizeof kHeavy / sizeof *kHeavy; i++)
    if (memmem(text, len, kHeavy[i], strlen(kHeavy[i]))) return 0;
  for (const char *p = text; (p = memmem(p, (size_t)(end - p), kTensor, sizeof kTensor - 1)) != NULL;) {
    p += sizeof kTensor - 1;
    int64_t n = type_elements(p, end, bound);
    if (n < 0 || n > bound) return 0;
  }
  return 1;
}
