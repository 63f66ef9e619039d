/* Status objects: how every fallible function in the core reports failure. */
#ifndef TT_BASE_STATUS_H
#define TT_BASE_STATUS_H

#include <stdarg.h>

/* Error classes. The Python binding maps each to the exception type PyTorch
 * raises for the same mistake on CPU. */
typedef enum tt_code_e {
  TT_OK = 0,
  TT_INVALID_ARGUMENT,  /* RuntimeError: bad shapes, sizes, values */
  TT_TYPE_ERROR,        /* TypeError */
  TT_VALUE_ERROR,       /* ValueError */
  TT_INDEX_ERROR,       /* IndexError */
  TT_NOT_IMPLEMENTED,   /* NotImplementedError */
  TT_OUT_OF_MEMORY,     /* torch.OutOfMemoryError (a RuntimeError) */
  TT_UNAVAILABLE,       /* plugin missing or broken */
  TT_INTERNAL,          /* a bug in torchtpu or the plugin */
} tt_code_t;

/* NULL is success; otherwise an owned object the caller must free or return. */
typedef struct tt_status_s *tt_status_t;

#define TT_OK_STATUS ((tt_status_t)0)

#if defined(__GNUC__)
#define TT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TT_PRINTF(a, b)
#endif

tt_status_t tt_status_make(tt_code_t code, const char *fmt, ...) TT_PRINTF(2, 3);
tt_status_t tt_status_makev(tt_code_t code, const char *fmt, va_list ap);
/* Prefixes context ("while lowering aten::add: ") to an error; OK passes through. */
tt_status_t tt_status_annotate(tt_status_t status, const char *fmt, ...) TT_PRINTF(2, 3);
tt_code_t tt_status_code(tt_status_t status);
const char *tt_status_message(tt_status_t status);
void tt_status_free(tt_status_t status);
const char *tt_code_name(tt_code_t code);

#define TT_RETURN_IF_ERROR(expr)        \
  do {                                  \
    tt_status_t tt_s_ = (expr);         \
    if (tt_s_) return tt_s_;            \
  } while (0)

#endif
