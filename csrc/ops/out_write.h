/* What writing an op's functional result into its out= tensor does, as CPU
 * PyTorch decides it before anything is written (the dtype rule is
 * ops/out_rules.h): resize_output's rule (ATen/native/Resize.cpp) and the
 * refusal of an out that partly overlaps an input. Pure rules over sizes
 * and views: no engine state, callable from any thread. */
#ifndef TT_OPS_OUT_WRITE_H
#define TT_OPS_OUT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "ops/args.h"

typedef enum {
  TT_OUT_KEEP = 0,        /* same sizes: the result is copied into out as out is laid out */
  TT_OUT_RESIZE = 1,      /* out had no elements: resized in place (its storage grows), then copied */
  TT_OUT_RESIZE_WARN = 2, /* out had elements and other sizes: the same, with CPU's deprecation warning */
} tt_out_resize_t;

/* The rule for a result of sizes res[0..res_rank) written into out of sizes
 * out[0..out_rank). For TT_OUT_RESIZE_WARN, CPU's warning text is written into
 * warn (cap bytes; may be NULL). */
tt_out_resize_t tt_op_out_resize(const int64_t *out, int out_rank, const int64_t *res, int res_rank, char *warn,
                                 size_t cap);

/* CPU's refusal (its message) when out and an input share some but not all
 * of their elements; NULL when they do not, fully coincide, or either is a
 * host scalar. */
tt_status_t tt_op_out_overlap(const tt_tensor_ref_t *out, const tt_tensor_ref_t *in);

#endif
