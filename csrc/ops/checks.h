/* Device-side checks a lowering adds to its op's program (index bounds,
 * ldl pivots): the flag value it computes and the PyTorch error it stands for.
 * The engine reads the flags (exec/async_errors.h) and raises tt_index_check_status. */
#ifndef TT_OPS_CHECKS_H
#define TT_OPS_CHECKS_H

#include <stdint.h>

#include "base/status.h"
#include "ir/graph.h"

/* Which error PyTorch's CPU kernel raises for an out-of-range index. */
typedef enum tt_check_kind_e {
  TT_CHECK_INDEX,  /* IndexError "index 7 is out of bounds for dimension 0 with size 5" (index, index_put) */
  TT_CHECK_DIM,    /* RuntimeError, same words (gather, scatter) */
  TT_CHECK_SELF,   /* IndexError "index out of range in self" (index_select, embedding, index_add) */
  TT_CHECK_TARGET, /* IndexError "Target 7 is out of bounds." (nll_loss) */
  TT_CHECK_LDL_PIVOT, /* RuntimeError "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2)..." (or >= 1) */
  TT_CHECK_ZERO_DIV,  /* RuntimeError "ZeroDivisionError" (integer div, floor_divide, remainder, fmod by a zero element) */
  TT_CHECK_VALUE_FITS, /* RuntimeError "value cannot be converted to type int8_t without overflow" (a device value tensor) */
  TT_CHECK_ASSERT,     /* RuntimeError with the caller's message (_assert_async: a zero value) */
  TT_CHECK_INDICES,    /* RuntimeError "INDICES element is out of DATA bounds, id=-1 axis_dim=3" (index_select along dim 1 of a matrix or more) */
  TT_CHECK_FLAT,       /* IndexError "out of range: tried to access index 5 on a tensor of 5 elements." (take, put_) */
} tt_check_kind_t;

/* Room for a TT_CHECK_ASSERT message, kept inside the check (checks are
 * copied by value into regions, launches, plans and the pending ring); a
 * longer message is cut to this many bytes less one. */
#define TT_CHECK_MSG_MAX 256

/* The length of a check's flag: {number of bad indices, the first bad index,
 * the size it was checked against} (the size is a run-time value where the
 * bound is one: a padded graph's real length). */
#define TT_CHECK_FLAG_LEN 3

/* One check: `flag` is an i64[TT_CHECK_FLAG_LEN] value of the op's graph;
 * the rest goes into the message. */
typedef struct tt_index_check_s {
  tt_val_t flag;
  tt_check_kind_t kind;
  int dim;
  const char *op; /* the op's static name, e.g. "index_select" */
  const char *type_name; /* TT_CHECK_VALUE_FITS: the C type named in the message (static), else NULL */
  char msg[TT_CHECK_MSG_MAX]; /* TT_CHECK_ASSERT: the message raised, else empty */
} tt_index_check_t;

/* The error PyTorch raises for a failed check (OK when flag[0], the count, is
 * 0); flag holds TT_CHECK_FLAG_LEN values. `async` adds the note that an
 * earlier launch raised it, else the debug-mode note. */
tt_status_t tt_index_check_status(const tt_index_check_t *k, const int64_t *flag, int async);

#endif
