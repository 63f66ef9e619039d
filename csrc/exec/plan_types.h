/* A plan's handle and what each of its outputs is (exec/plan.h): value
 * types, readable above exec (the facade's compiled-graph calls). */
#ifndef TT_EXEC_PLAN_TYPES_H
#define TT_EXEC_PLAN_TYPES_H

#include "base/dtype.h"
#include "views/view_type.h"

typedef struct tt_plan_s tt_plan_t;

typedef enum tt_plan_out_kind_e {
  TT_PLAN_OUT_RESULT, /* a view of result `index`'s new storage */
  TT_PLAN_OUT_ARG,    /* a view of argument `index`'s storage */
} tt_plan_out_kind_t;

typedef struct tt_plan_out_s {
  tt_plan_out_kind_t kind;
  int index;
  tt_dtype_t dtype;
  tt_view_t view;
} tt_plan_out_t;

#endif
