/* Executables: compile StableHLO, count outputs, serialize, deserialize. */
#include <stdio.h>
#include <string.h>

#include "base/blocking.h"
#include "base/alloc.h"
#include "pjrt/pjrt_internal.h"

static tt_status_t oom(void) { return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory"); }

/* Appends `v` as a protobuf varint (int64 values go as their two's
 * complement, so -1 takes ten bytes). Returns the new length. */
static size_t put_varint(unsigned char *p, size_t n, uint64_t v) {
  while (v >= 0x80) {
    p[n++] = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  p[n++] = (unsigned char)v;
  return n;
}

/* XLA's debug options we override: excess precision lets the compiler keep
 * values in more precision than their type (skip roundings); the backend
 * optimization level (default 3) trades code speed for compile time. */
static const char kExcessPrecision[] = "xla_allow_excess_precision";
static const char kOptLevel[] = "xla_backend_optimization_level";
static const char kFusionEmitters[] = "xla_cpu_use_fusion_emitters";

/* Appends one env_option_overrides map entry (CompileOptionsProto field 7):
 * {key (1) = name, value (2) = OptionOverrideProto{field = v}} where field
 * is bool_field (2) or int_field (3), both varints. */
static size_t put_override(unsigned char *out, size_t m, const char *name, int field, uint64_t v) {
  unsigned char value[12];
  size_t vn = 0;
  value[vn++] = (unsigned char)(field << 3); /* varint */
  vn = put_varint(value, vn, v);
  size_t klen = strlen(name);
  size_t entry = 2 + klen + 2 + vn; /* key tag+len+bytes, value tag+len+bytes (all < 128) */
  out[m++] = (7 << 3) | 2;
  m = put_varint(out, m, entry);
  out[m++] = (1 << 3) | 2;
  m = put_varint(out, m, klen);
  memcpy(out + m, name, klen);
  m += klen;
  out[m++] = (2 << 3) | 2;
  m = put_varint(out, m, vn);
  memcpy(out + m, value, vn);
  return m + vn;
}

/* A serialized xla.CompileOptionsProto holding executable_build_options
 * (field 3) = {device_ordinal (1) = -1, num_replicas (4) = n,
 * num_partitions (5) = 1} and the debug options asked for as
 * env_option_overrides (field 7), the override map XLA merges into its
 * default debug options (setting debug_options itself would replace all of
 * them): exact precision (excess precision false), fast (optimization
 * level 0) or another optimization level. An empty message would mean 0
 * replicas and 0 partitions, which the compiler rejects; device_ordinal -1
 * leaves device placement to the default assignment, as JAX does. */
static size_t encode_compile_options(const tt_pjrt_compile_options_t *o, unsigned char out[256]) {
  unsigned char inner[40];
  size_t n = 0;
  inner[n++] = (1 << 3) | 0; /* device_ordinal, varint */
  n = put_varint(inner, n, (uint64_t)(int64_t)-1);
  inner[n++] = (4 << 3) | 0; /* num_replicas */
  n = put_varint(inner, n, (uint64_t)o->num_replicas);
  inner[n++] = (5 << 3) | 0; /* num_partitions */
  n = put_varint(inner, n, 1);
  size_t m = 0;
  out[m++] = (3 << 3) | 2; /* executable_build_options, length-delimited */
  m = put_varint(out, m, n);
  memcpy(out + m, inner, n);
  m += n;
  if (o->exact_precision) m = put_override(out, m, kExcessPrecision, 2, 0);
  if (o->fast)
    m = put_override(out, m, kOptLevel, 3, 0);
  else if (o->opt_level >= 0)
    m = put_override(out, m, kOptLevel, 3, (uint64_t)o->opt_level);
  if (o->classic_emitters) m = put_override(out, m, kFusionEmitters, 2, 0);
  return m;
}

/* Fills num_outputs and num_replicas, which live on the unloaded view of the
 * executable (a new object we must destroy). */
static tt_status_t describe(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe) {
  const PJRT_Api *api = rt->plugin.api;
  TT_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, g, executable);
  g.loaded_executable = exe->exe;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin,
                                          TT_PJRT_CALL(api, LoadedExecutable_GetExecutable, &g),
                                          "PJRT_LoadedExecutable_GetExecutable"));
  TT_PJRT_ARGS(PJRT_Executable_Count_Args, o, count);
  o.executable = g.executable;
  tt_status_t status = tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(api, Executable_NumOutputs, &o), "PJRT_Executable_NumOutputs");
  TT_PJRT_ARGS(PJRT_Executable_Count_Args, r, count);
  r.executable = g.executable;
  if (!status)
    status = tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(api, Executable_NumReplicas, &r),
                                  "PJRT_Executable_NumReplicas");
  TT_PJRT_ARGS(PJRT_Executable_Destroy_Args, d, executable);
  d.executable = g.executable;
  tt_status_free(tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(api, Executable_Destroy, &d),
                                      "PJRT_Executable_Destroy"));
  exe->num_outputs = o.count;
  exe->num_replicas = (int)r.count;
  return status;
}

/* Wraps a freshly loaded executable; on failure it is released. */
static tt_status_t wrap(tt_pjrt_runtime_t *rt, PJRT_LoadedExecutable *loaded,
                        tt_pjrt_executable_t **out_exe) {
  tt_pjrt_executable_t *exe = tt_calloc(1, sizeof *exe);
  if (!exe) {
    TT_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args, d, executable);
    d.executable = loaded;
    tt_status_free(tt_pjrt_error_status(
        &rt->plugin, TT_PJRT_CALL(rt->plugin.api, LoadedExecutable_Destroy, &d),
        "PJRT_LoadedExecutable_Destroy"));
    return oom();
  }
  exe->exe = loaded;
  tt_status_t status = describe(rt, exe);
  if (status) {
    tt_pjrt_executable_destroy(rt, exe);
    return status;
  }
  *out_exe = exe;
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_compile(tt_pjrt_runtime_t *rt, const char *mlir, size_t len,
                            int num_replicas, const char *what, tt_pjrt_executable_t **out_exe) {
  tt_pjrt_compile_options_t o = {num_replicas, 0, 0, -1, 0};
  return tt_pjrt_compile_with(rt, mlir, len, &o, what, out_exe);
}

tt_status_t tt_pjrt_compile_with(tt_pjrt_runtime_t *rt, const char *mlir, size_t len,
                                 const tt_pjrt_compile_options_t *o, const char *what,
                                 tt_pjrt_executable_t **out_exe) {
  *out_exe = NULL;
  if (o->num_replicas < 1)
    return tt_status_make(TT_INVALID_ARGUMENT, "%s: num_replicas must be >= 1, got %d",
                          what ? what : "compile", o->num_replicas);
  static const char kFormat[] = "mlir"; /* MLIR text or bytecode */
  PJRT_Program program;
  memset(&program, 0, sizeof program);
  program.struct_size = TT_PJRT_SIZE(PJRT_Program, format_size);
  program.code = (char *)(uintptr_t)mlir; /* the field is in/out elsewhere; Compile only reads */
  program.code_size = len;
  program.format = kFormat;
  program.format_size = sizeof kFormat - 1;

  unsigned char options[256];
  TT_PJRT_ARGS(PJRT_Client_Compile_Args, a, executable);
  a.client = rt->client;
  a.program = &program;
  a.compile_options = (const char *)options;
  a.compile_options_size = encode_compile_options(o, options);
  char label[256];
  snprintf(label, sizeof label, "compiling %s", what ? what : "a StableHLO module");
  void *token = tt_blocking_begin(); /* a compile is a host wait: the embedding may run other threads */
  PJRT_Error *err = TT_PJRT_CALL(rt->plugin.api, Client_Compile, &a);
  tt_blocking_end(token);
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin, err, label));
  return wrap(rt, a.executable, out_exe);
}

size_t tt_pjrt_executable_num_outputs(const tt_pjrt_executable_t *exe) { return exe->num_outputs; }

void tt_pjrt_executable_destroy(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe) {
  if (!exe) return;
  TT_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args, d, executable);
  d.executable = exe->exe;
  tt_status_free(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, LoadedExecutable_Destroy, &d),
      "PJRT_LoadedExecutable_Destroy"));
  tt_free(exe);
}

/* Copies the plugin-owned serialization into tt_malloc memory and frees the
 * plugin's copy. */
static tt_status_t take_serialized(PJRT_Executable_Serialize_Args *s, void **out_data,
                                   size_t *out_size) {
  void *copy = tt_malloc(s->serialized_bytes_size ? s->serialized_bytes_size : 1);
  if (copy && s->serialized_bytes_size) memcpy(copy, s->serialized_bytes, s->serialized_bytes_size);
  if (s->serialized_executable_deleter) s->serialized_executable_deleter(s->serialized_executable);
  if (!copy) return oom();
  *out_data = copy;
  *out_size = s->serialized_bytes_size;
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_executable_serialize(tt_pjrt_runtime_t *rt, tt_pjrt_executable_t *exe,
                                         void **out_data, size_t *out_size) {
  *out_data = NULL;
  *out_size = 0;
  const PJRT_Api *api = rt->plugin.api;
  TT_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args, g, executable);
  g.loaded_executable = exe->exe;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(&rt->plugin,
                                          TT_PJRT_CALL(api, LoadedExecutable_GetExecutable, &g),
                                          "PJRT_LoadedExecutable_GetExecutable"));
  TT_PJRT_ARGS(PJRT_Executable_Serialize_Args, s, serialized_executable_deleter);
  s.executable = g.executable;
  tt_status_t status = tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(api, Executable_Serialize, &s), "PJRT_Executable_Serialize");
  if (!status) status = take_serialized(&s, out_data, out_size);
  TT_PJRT_ARGS(PJRT_Executable_Destroy_Args, d, executable);
  d.executable = g.executable;
  tt_status_free(tt_pjrt_error_status(&rt->plugin, TT_PJRT_CALL(api, Executable_Destroy, &d),
                                      "PJRT_Executable_Destroy"));
  return status;
}

tt_status_t tt_pjrt_executable_deserialize(tt_pjrt_runtime_t *rt, const void *data, size_t size,
                                           tt_pjrt_executable_t **out_exe) {
  *out_exe = NULL;
  TT_PJRT_ARGS(PJRT_Executable_DeserializeAndLoad_Args, a,
               overridden_serialized_compile_options_size);
  a.client = rt->client;
  a.serialized_executable = data;
  a.serialized_executable_size = size;
  TT_RETURN_IF_ERROR(tt_pjrt_error_status(
      &rt->plugin, TT_PJRT_CALL(rt->plugin.api, Executable_DeserializeAndLoad, &a),
      "PJRT_Executable_DeserializeAndLoad"));
  return wrap(rt, a.loaded_executable, out_exe);
}
