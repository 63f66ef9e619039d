/* Helpers shared by op lowerings: PyTorch's type promotion and broadcasting,
 * operand preparation, dimension wrapping. */
#ifndef TT_OPS_COMMON_H
#define TT_OPS_COMMON_H

#include "ops/lower.h"

/* PyTorch's result_type over the given arguments (tensors, 0-dim tensors and
 * Python numbers, each in its priority category). Skips NONE arguments. */
tt_dtype_t tt_op_result_type(tt_lower_t *L, const int *argi, int n);
/* The same over arguments outside a lowering (default_float: the call's
 * default dtype); where the result is complex32, which has no dtype here,
 * sets *complex32 and returns TT_C64 (tt_op_result_type refuses it). */
tt_dtype_t tt_op_result_type_of(const tt_arg_t *args, int nargs, const int *argi, int n, tt_dtype_t default_float,
                                int *complex32);
/* The broadcast shape of the given arguments (scalars count as rank 0).
 * Records PyTorch's error on mismatch. Returns the rank. */
int tt_op_broadcast_shape(tt_lower_t *L, const int *argi, int n, int64_t *out_dims);
/* A value converted and broadcast to the dtype and shape of value `like`. */
tt_val_t tt_op_fit_like(tt_lower_t *L, tt_val_t v, tt_val_t like);
/* One-element tensor argument i (a 0-dim host tensor too) as a rank-0 value;
 * PyTorch's "<name> must be a 1-element tensor." otherwise. */
tt_val_t tt_op_one_element(tt_lower_t *L, int i, const char *name);
/* Argument i (tensor or number) converted to dtype and broadcast to dims. */
tt_val_t tt_op_operand(tt_lower_t *L, int i, tt_dtype_t dtype, int rank, const int64_t *dims);
/* Argument i as CPU's TensorIterator gives it to a kernel that computes in
 * `compute` (a wider math type): first cast to the op's common dtype `via`
 * (an int32 70000 beside float16 is inf, 2049 is 2048), then widened. The
 * same as tt_op_operand when compute is via or via is not floating. */
tt_val_t tt_op_operand_via(tt_lower_t *L, int i, tt_dtype_t via, tt_dtype_t compute, int rank, const int64_t *dims);
/* A value converted and broadcast (NumPy rules) to (dtype, rank, dims). */
tt_val_t tt_op_fit(tt_lower_t *L, tt_val_t v, tt_dtype_t dtype, int rank, const int64_t *dims);
/* Wraps a possibly negative dim into [0, rank) (rank 0 accepts -1 and 0);
 * records PyTorch's IndexError on a bad dim. */
int tt_op_wrap_dim(tt_lower_t *L, int64_t dim, int rank);
/* The dtype a tensor argument or number has on its own (Python float ->
 * the default dtype, Python complex -> the default complex type). */
tt_dtype_t tt_op_arg_dtype(tt_lower_t *L, int i);
/* PyTorch's type names in messages ("Float", "Long"). */
const char *tt_op_type_name(tt_dtype_t dt);
/* The legacy tensor type names of checkScalarType(s) ("torch.FloatTensor";
 * the types without a legacy class print as "CPUBoolType"). */
void tt_op_legacy_type_name(tt_dtype_t dt, char *buf, size_t n);
/* Sizes as c10 prints them in messages ("[4, 2]", "[]"), into buf. */
void tt_op_sizes_text(char *buf, size_t n, int rank, const int64_t *sizes);
/* PyTorch's opmath type: the type CPU kernels compute in (float32 for
 * bfloat16 and float16, the type itself otherwise). */
tt_dtype_t tt_op_math_type(tt_dtype_t dt);
/* Float type for integer inputs of ops that compute in floating point:
 * the default dtype; floating and complex types stay. */
tt_dtype_t tt_op_float_type(const tt_lower_t *L, tt_dtype_t dt);
/* torch.get_default_dtype() (float32, float64, float16 or bfloat16) for the
 * op being lowered, and the default complex type that follows it (INVALID
 * for complex32). The caller sets it before lowering (api/call.h). */
tt_dtype_t tt_op_default_float(const tt_lower_t *L);
tt_dtype_t tt_op_default_complex(const tt_lower_t *L);
/* The float32 matmul precision (tt_precision_t, ir/graph.h) a contraction of
 * tensors of dtype dt uses in the op being lowered: the call's mode for
 * float32, HIGHEST (the dtype's own arithmetic) for every other dtype. */
int tt_op_matmul_precision_for(const tt_lower_t *L, tt_dtype_t dt);
/* PyTorch's checked Scalar conversion (Scalar::to<T>, as fill_, full,
 * masked_fill, clamp and index_fill use it): a Python number (or 0-dim host
 * tensor) argument i that does not fit dt records CPU's "value cannot be
 * converted to type int8_t without overflow"; returns 0 then. */
int tt_op_check_scalar_fits(tt_lower_t *L, int i, tt_dtype_t dt);
/* The same check as fill_ (and full, an empty tensor filled) makes it on a
 * tensor of numel elements: a float16/bfloat16 one of one element takes
 * CPU's scalar_fill path, which converts a real number unchecked
 * (full((1,), 1e5, dtype=float16) is inf; (2,) raises). */
int tt_op_check_fill_fits(tt_lower_t *L, int i, tt_dtype_t dt, int64_t numel);
/* A complex number argument i filling a real dt (fill_, full, masked_fill:
 * CPU's value.to<scalar_t>()): a bool is true where either part is nonzero,
 * another type takes the real part of a number with a zero imaginary part
 * and raises CPU's overflow error otherwise. Returns the rank-0 value, or -1
 * when argument i is no complex number or dt is complex (the caller's usual
 * path), or on the error (tt_graph_failed). */
tt_val_t tt_op_complex_fill(tt_lower_t *L, int i, tt_dtype_t dt);
/* The same check of a value computed on the host (a float). */
int tt_op_check_host_value_fits(tt_lower_t *L, double v, tt_dtype_t dt);
/* The same for a value that may be a device 0-dim tensor (masked_fill and
 * index_fill with a Tensor value: CPU's value.item() then Scalar::to): a
 * device value gets a device-side check (api: raised at the op in Debug
 * mode, at the next synchronization point otherwise); a complex value must
 * have a zero imaginary part for a real dt. Returns 0 on a recorded error. */
int tt_op_check_value_fits(tt_lower_t *L, int i, tt_dtype_t dt);
/* CPU's sub_check for sub/rsub (real and complex lowerings): a bool operand
 * (tensor or number) is refused with PyTorch's message; NULL otherwise. */
tt_status_t tt_op_sub_check(tt_lower_t *L);
/* CPU's fills of an expanded self (masked_fill_, index_fill_: PyTorch's
 * has_internal_overlap() == Yes, a size > 1 dim of stride 0), which it warns
 * about and computes, writing the value through every alias: the
 * expanded dims into bdims, ascending; their count. 0 for none, or where
 * self still overlaps without them (the write keeps its overlap error). */
int tt_op_expanded_dims(const tt_tensor_ref_t *self, int64_t *bdims);
/* v (rank dims) reduced by kind over the nb expanded dims bdims and
 * broadcast back, so every alias of an element holds what all of them do
 * (TT_RED_OR of a mask: some alias selected; TT_RED_SUM: all their terms),
 * and the write marked as one through aliases (L->alias_write). */
tt_val_t tt_op_alias_reduce(tt_lower_t *L, tt_reduce_t kind, tt_val_t v, int rank, const int64_t *dims, int nb,
                            const int64_t *bdims);

#endif
