/* A plan's tables (exec/plan.h), shared by its capture and replay
 * (exec/plan.c) and its deferred replay (exec/plan_defer.c). Private to
 * exec/. */
#ifndef TT_EXEC_PLAN_INTERNAL_H
#define TT_EXEC_PLAN_INTERNAL_H

#include <stdint.h>

#include "exec/async_errors.h"
#include "exec/plan.h"
#include "exec/run.h"

typedef enum param_kind_e {
  P_ARG,   /* argument `arg`'s storage */
  P_CONST, /* `bind` as captured (its storage retained) */
  P_RNG,   /* a fresh draw of the engine's generator */
  P_ZEROS, /* a new storage of zeros (dtype, numel) */
} param_kind_t;

typedef struct param_s {
  param_kind_t kind;
  int arg;
  tt_binding_t bind;
  tt_dtype_t dtype;
  int64_t numel;
} param_t;

typedef enum result_kind_e {
  R_NEW,   /* a new storage each call */
  R_ARG,   /* written back into argument `arg`'s storage */
  R_CONST, /* written back into `storage` (retained) */
  R_DROP,  /* nothing returns it */
} result_kind_t;

typedef struct result_s {
  result_kind_t kind;
  int donated; /* R_ARG/R_CONST: the program also reads that storage (its buffer is donated) */
  int arg;
  tt_storage_t *storage;
  tt_dtype_t dtype;
  int64_t numel;
} result_t;

typedef struct arg_sig_s {
  tt_dtype_t dtype;
  tt_view_t view;
  int conj, neg;
  tt_dtype_t storage_dtype;
  int64_t storage_numel;
  int alias; /* the first earlier argument sharing this one's storage, or -1 */
} arg_sig_t;

struct tt_plan_s {
  tt_engine_t *engine;
  tt_tier1_exe_t *exe; /* NULL when the graph computes nothing on the device */
  int nargs, nparams, nresults, nouts, nchecks, nprog_outs;
  arg_sig_t *args;
  param_t *params;
  result_t *results;
  tt_plan_out_t *outs;
  tt_index_check_t *checks;
  /* What the ops were lowered and compiled under: a replay under other
   * settings would run another program than eager would. */
  int matmul_precision;
  tt_dtype_t default_float;
  uint64_t options_key;
  /* Deferred replay (exec/plan_defer.c): the program interned as a foreign
   * module (ir/foreign.h), so that a replay can be one call node of the
   * open region; fusable = 0 when the plan must launch on its own. */
  uint64_t foreign_key;
  int fusable;
  int followed; /* an op or a call followed a launch of it before a sync (region.h's follow_mark) */
  char what[128];
};

/* Hands out the graph outputs' storages after a replay (launched or
 * deferred): a new reference to argument storages or to the results made
 * (`made`, by result index); counts the replay. */
void tt_plan_hand_out(tt_plan_t *p, const tt_tensor_ref_t *args, tt_storage_t *const *made,
                      tt_storage_t **out_storages);

#endif
