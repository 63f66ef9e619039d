/* CPU's refusals of complex values (see complex_refusal.h). */
#include "ops/complex_refusal.h"

#include <string.h>

#include "ops/dispatch_refusal.h"

typedef enum {
  K_DISPATCH, /* text: the kernel whose AT_DISPATCH has no complex case */
  K_NOT_IMPL, /* text: CPU's NotImplementedError */
  K_RUNTIME,  /* text: CPU's RuntimeError */
} kind_t;

typedef struct {
  const char *packet;   /* the functional name: "clamp_min" for clamp_min_.Tensor */
  const char *overload; /* "" the default overload, NULL any */
  kind_t kind;
  const char *text;
} row_t;

#define CLAMP_MSG "clamp is not supported for complex types"

/* The first matching row wins: specific overloads first. */
static const row_t kRows[] = {
    {"amax", NULL, K_DISPATCH, "max_values_cpu"},
    {"amin", NULL, K_DISPATCH, "min_values_cpu"},
    {"aminmax", NULL, K_DISPATCH, "aminmax_cpu"},
    {"argmax", NULL, K_RUNTIME, "argmax(): does not support complex input"},
    {"argmin", NULL, K_RUNTIME, "argmin(): does not support complex input"},
    {"clamp_max", "Tensor", K_DISPATCH, "minimum_cpu"},
    {"clamp_min", "Tensor", K_DISPATCH, "maximum_cpu"},
    {"clamp", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"clamp_max", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"clamp_min", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"hardtanh", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"relu", NULL, K_NOT_IMPL, CLAMP_MSG},
    {"cummax", NULL, K_DISPATCH, "cummax_cpu"},
    {"cummin", NULL, K_DISPATCH, "cummin_cpu"},
    {"floor_divide", NULL, K_DISPATCH, "div_floor_cpu"},
    {"fmax", NULL, K_RUNTIME, "fmax not implemented for complex tensors."},
    {"fmin", NULL, K_RUNTIME, "fmin not implemented for complex tensors."},
    {"maximum", NULL, K_RUNTIME, "maximum not implemented for complex tensors."},
    {"minimum", NULL, K_RUNTIME, "minimum not implemented for complex tensors."},
    {"heaviside", NULL, K_RUNTIME, "heaviside is not yet implemented for complex tensors."},
    {"fmod", NULL, K_DISPATCH, "fmod_cpu"},
    {"remainder", NULL, K_DISPATCH, "remainder_cpu"},
    {"ge", NULL, K_DISPATCH, "ge_cpu"},
    {"gt", NULL, K_DISPATCH, "gt_cpu"},
    {"le", NULL, K_DISPATCH, "le_cpu"},
    {"lt", NULL, K_DISPATCH, "lt_cpu"},
    {"kthvalue", NULL, K_DISPATCH, "kthvalue_cpu"},
    {"max", "", K_DISPATCH, "max_all"},
    {"max", "dim", K_RUNTIME, "max(): does not support complex input"},
    {"min", "", K_DISPATCH, "min_all"},
    {"min", "dim", K_RUNTIME, "min(): does not support complex input"},
    {"median", "", K_DISPATCH, "median_cpu"},
    {"median", "dim", K_DISPATCH, "median_out"},
    {"nanmedian", "", K_DISPATCH, "median_cpu"},
    {"nanmedian", "dim", K_DISPATCH, "median_out"},
    {"round", "decimals", K_DISPATCH, "round_cpu"},
    {"round", "", K_DISPATCH, "round_vml_cpu"},
    {"sort", NULL, K_RUNTIME, " Sort does not support complex dtypes on CPU"}, /* sic: CPU's leading space */
    {"topk", NULL, K_RUNTIME, " topk does not support complex dtypes on CPU"},
    {"threshold", NULL, K_DISPATCH, "threshold_cpu"},
    {"floor", NULL, K_NOT_IMPL, "floor is not supported for complex inputs"},
    {"ceil", NULL, K_NOT_IMPL, "ceil is not supported for complex inputs"},
    {"trunc", NULL, K_NOT_IMPL, "trunc is not supported for complex inputs"},
    {"isposinf", NULL, K_RUNTIME, "isposinf does not support complex inputs."},
    {"isneginf", NULL, K_RUNTIME, "isneginf does not support complex inputs."},
    {"deg2rad", NULL, K_RUNTIME, "deg2rad is not supported for complex tensors."},
    {"rad2deg", NULL, K_RUNTIME, "rad2deg is not supported for complex tensors."},
};

static const row_t *find_row(const tt_op_def_t *def) {
  /* "clamp_min_.Tensor" -> packet "clamp_min", overload "Tensor" */
  const char *dot = strchr(def->name, '.');
  size_t plen = dot ? (size_t)(dot - def->name) : strlen(def->name);
  if ((def->flags & TT_OPF_INPLACE) && plen > 1 && def->name[plen - 1] == '_') plen--;
  const char *overload = dot ? dot + 1 : "";
  for (size_t i = 0; i < sizeof kRows / sizeof kRows[0]; i++) {
    const row_t *r = &kRows[i];
    if (strlen(r->packet) != plen || strncmp(r->packet, def->name, plen)) continue;
    if (r->overload && strcmp(r->overload, overload)) continue;
    return r;
  }
  return NULL;
}

int tt_complex_refusal_before_shapes(const tt_op_def_t *def) {
  const row_t *r = find_row(def);
  return r && r->kind != K_DISPATCH;
}

tt_status_t tt_complex_refusal(const tt_op_def_t *def, tt_dtype_t dt) {
  const row_t *r = find_row(def);
  if (r) {
    switch (r->kind) {
      case K_DISPATCH: return tt_op_refuse_dtype(dt, "%s", r->text);
      case K_NOT_IMPL: return tt_status_make(TT_NOT_IMPLEMENTED, "%s", r->text);
      case K_RUNTIME: return tt_status_make(TT_INVALID_ARGUMENT, "%s", r->text);
    }
  }
  return NULL;
}
