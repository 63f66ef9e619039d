/* The lowering context: what an op lowering sees and the helpers it uses to
 * read arguments, add runtime scalars, and declare results and writes. */
#ifndef TT_OPS_LOWER_H
#define TT_OPS_LOWER_H

#include "ir/builder.h"
#include "ops/args.h"
#include "ops/binding.h"
#include "ops/checks.h"

/* Per op. A foreach op or fused optimizer step over a model's parameters
 * takes, returns and writes a few tensors per parameter: room for models of
 * several thousand parameter tensors. */
#define TT_LOWER_MAX_PARAMS 16384
#define TT_LOWER_MAX_OUTS 4096
#define TT_LOWER_MAX_WRITES 8192
#define TT_LOWER_MAX_CHECKS 8
#define TT_LOWER_MAX_PADS 16

/* What a lowering reaches of the engine, implemented by the engine
 * (exec/lower_env.c): parameters of the open region, a storage's current
 * value there, and the next RNG draw. Lowerings never see the engine. */
typedef struct tt_lower_env_s {
  void *self;
  tt_val_t (*param)(void *self, const tt_type_t *type, tt_binding_t binding);
  tt_val_t (*storage_base)(void *self, tt_storage_t *s);
  /* A storage's element type and length. */
  void (*storage_meta)(void *self, const tt_storage_t *s, tt_dtype_t *out_dtype, int64_t *out_numel);
  /* The generator's seed and its offset before this draw (the offset advances). */
  void (*rng_draw)(void *self, uint64_t *out_seed, uint64_t *out_offset);
  /* The float32 matmul precision (tt_precision_t) of the call in progress,
   * asked only by the lowerings that contract float32 values. */
  int (*matmul_precision)(void *self);
  /* Whether the offsets of views into storage s are fixed for the program
   * being recorded, so that they can be constants the compiler folds
   * (static slices). NULL: never. */
  int (*fixed)(void *self, const tt_storage_t *s);
} tt_lower_env_t;

typedef struct tt_lower_s {
  const tt_lower_env_t *env;
  tt_dtype_t default_float; /* torch.get_default_dtype() for this call (ops/common.h) */
  tt_graph_t *g;
  const char *op; /* "aten::add.Tensor" */
  tt_arg_t *args;
  int nargs;
  int nparams; /* parameters this op added to the region */
  /* Results returned to the caller. */
  tt_val_t outs[TT_LOWER_MAX_OUTS];
  int nouts;
  /* Writes into argument tensors (in-place ops). */
  int write_arg[TT_LOWER_MAX_WRITES];
  int write_elem[TT_LOWER_MAX_WRITES]; /* index within a tensor list, else 0 */
  tt_val_t write_val[TT_LOWER_MAX_WRITES];
  int nwrites;
  /* Set by ops returning a host value (e.g. _local_scalar_dense): the index
   * of the output to download instead of wrapping. */
  int returns_arg; /* -1, or the argument returned as the result */
  /* Bounds checks computed inside the op's program (exec/async_errors.h). */
  tt_index_check_t checks[TT_LOWER_MAX_CHECKS];
  int nchecks;
  /* A deprecation warning CPU gives for these arguments (static text), or
   * NULL; the caller shows it as a UserWarning. */
  const char *warning;
  /* Set by an in-place op whose result is the same across the broadcast
   * (stride-0) dims of its target, like fill_'s: one alias is written. */
  int alias_write;
  /* The op is an in-place form (TT_OPF_INPLACE): its result goes into argument 0. */
  int inplace;
  /* Padded reads (ops/bucket.h): these refs are views widened to their
   * bucket's capacity along pad_dim, of logical length pad_len there. A
   * read masks what lies past pad_len with pad_fill when pad_mask is set
   * (1: zeros, 2: the dtype's lowest value); else the padding flows through
   * (elementwise ops: the result's padding is never read unmasked). */
  int npads;
  const tt_tensor_ref_t *pad_ref[TT_LOWER_MAX_PADS];
  int pad_dim[TT_LOWER_MAX_PADS];
  int64_t pad_len[TT_LOWER_MAX_PADS];
  int pad_mask;
  int64_t pad_cap; /* a bucketed cat's result capacity (ops/bucket.c) */
} tt_lower_t;

/* Argument readers. Each checks the kind and records a graph error naming
 * the op and argument on mismatch. `dflt` applies to NONE. */
tt_val_t tt_l_tensor(tt_lower_t *L, int i);
tt_val_t tt_l_tensor_elem(tt_lower_t *L, int i, int j);
/* Length of tensor-list argument i (an empty Python list arrives as an empty
 * int list: it is taken as an empty tensor list); -1 with an error otherwise. */
int tt_l_list_len(tt_lower_t *L, int i);
int tt_l_is_none(tt_lower_t *L, int i);
int64_t tt_l_int(tt_lower_t *L, int i, int64_t dflt);
double tt_l_float(tt_lower_t *L, int i, double dflt);
int tt_l_bool(tt_lower_t *L, int i, int dflt);
/* INTS (or a single INT promoted to a list of one); returns the count. */
int tt_l_ints(tt_lower_t *L, int i, int64_t *out, int max);
const char *tt_l_str(tt_lower_t *L, int i, const char *dflt);
/* dtype argument (TT_DTYPE_INVALID for None). */
tt_dtype_t tt_l_dtype(tt_lower_t *L, int i);
const tt_tensor_ref_t *tt_l_ref(tt_lower_t *L, int i);
/* Type of a tensor argument without reading it. */
tt_dtype_t tt_l_arg_dtype(tt_lower_t *L, int i);
int tt_l_arg_rank(tt_lower_t *L, int i);
const int64_t *tt_l_arg_sizes(tt_lower_t *L, int i);

/* The storage's flat base in the region: a parameter bound to its buffer
 * (added once) or the value an earlier deferred op wrote. */
tt_val_t tt_l_storage_base(tt_lower_t *L, tt_storage_t *s);
/* The storage's element type and its length in elements. */
tt_dtype_t tt_l_storage_dtype(tt_lower_t *L, const tt_storage_t *s);
int64_t tt_l_storage_numel(tt_lower_t *L, const tt_storage_t *s);
/* A Python number as a runtime rank-0 parameter of dtype (not baked in: a
 * new value compiles nothing new, and XLA cannot fold it: a division by a
 * constant would become a product with its rounded reciprocal, 1 ulp off
 * CPU's division for a third of the values of x / 3). */
tt_val_t tt_l_scalar(tt_lower_t *L, tt_dtype_t dtype, double f, int64_t iv, int is_float);
/* A complex number re + im*1j as a runtime scalar of complex dtype (of its
 * real part type when dtype is real). */
tt_val_t tt_l_scalar_c(tt_lower_t *L, tt_dtype_t dtype, double re, double im);
/* A value read through ref r with r's conj/neg bits applied (reads of
 * arguments do this already; for code that reads storages itself). */
tt_val_t tt_l_apply_math_bits(tt_graph_t *g, const tt_tensor_ref_t *r, tt_val_t v);
/* The offset of view v into storage s as a runtime scalar (rank-0 i64)
 * when other views of its shape fit elsewhere in a base of base_numel
 * elements (x[i] in a loop: one program for every i) and the environment
 * does not call it fixed, else -1: the offset is baked in. */
tt_val_t tt_l_view_offset(tt_lower_t *L, const tt_storage_t *s, const tt_view_t *v, int64_t base_numel);
/* Scalar argument i (INT/FLOAT/BOOL) converted to dtype as a runtime parameter. */
tt_val_t tt_l_scalar_arg(tt_lower_t *L, int i, tt_dtype_t dtype);
/* The next RNG state (ui64[2]) as a parameter; advances the generator. */
tt_val_t tt_l_rng_state(tt_lower_t *L);

void tt_l_output(tt_lower_t *L, tt_val_t v);
/* Records that tensor argument i (element j of a list) takes value v. */
void tt_l_write(tt_lower_t *L, int i, int j, tt_val_t v);

/* Checks integer indices idx (any shape) against [lo, size) on device
 * (lo = -size where negatives wrap); `dim` and `size` go in the message.
 * Debug mode (TORCH_TPU_LAUNCH_BLOCKING=1) raises at this op; Strict and
 * DeferAndFuse raise at the next synchronization point (exec/async_errors.h),
 * the op itself clamping (gathers) or dropping (scatters) bad indices.
 * The _mask form takes the "bad" predicate (idx's shape) computed by the op. */
void tt_l_check_index(tt_lower_t *L, tt_val_t idx, int64_t lo, int64_t size, int dim, tt_check_kind_t kind);
void tt_l_check_index_mask(tt_lower_t *L, tt_val_t idx, tt_val_t bad, int64_t size, int dim, tt_check_kind_t kind);
/* tt_l_check_index against a size known at run time (`size`, a 0-d i64
 * value: a bucketed tensor's logical length, ops/bucket.h): indices in
 * [-size, size), or [0, size) when nonneg; the message names the size
 * the launch ran with. */
void tt_l_check_index_rt(tt_lower_t *L, tt_val_t idx, tt_val_t size, int nonneg, int dim, tt_check_kind_t kind);
/* Checks a device-side condition as _assert_async does: `bad` (a bool of
 * any shape) true anywhere raises RuntimeError `msg` (copied; see
 * TT_CHECK_MSG_MAX), at this op in Debug mode, else at the next
 * synchronization point. */
void tt_l_check_assert(tt_lower_t *L, tt_val_t bad, const char *msg);
/* Turns the downloaded flags of a launch's checks into the error PyTorch
 * raises, naming the op, the index and the size; OK when all passed. */
tt_status_t tt_l_check_result(const tt_lower_t *L, const int64_t *flags /* TT_CHECK_FLAG_LEN per check */);

/* Records an error naming the op; returns -1. */
tt_val_t tt_l_fail(tt_lower_t *L, tt_code_t code, const char *fmt, ...) TT_PRINTF(3, 4);

typedef tt_status_t (*tt_lower_fn)(tt_lower_t *L);

#endif
