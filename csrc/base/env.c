/* The declared environment variables and their one reading. */
#include "base/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"

static const tt_env_decl_t kDecls[TT_ENV_COUNT] = {
    [TT_ENV_PJRT_PLUGIN] = {"TORCH_TPU_PJRT_PLUGIN", TT_ENV_TEXT, "discovered",
                            "the PJRT plugin to load (overrides discovery)"},
    [TT_ENV_PJRT_CLIENT_OPTIONS] = {"TORCH_TPU_PJRT_CLIENT_OPTIONS", TT_ENV_TEXT, "none",
                                    "options of the plugin's client, name=value,... (e.g. XLA's CUDA plugin: "
                                    "preallocate=false,memory_fraction=0.5)"},
    [TT_ENV_TPU_LIBRARY_PATH] = {"TPU_LIBRARY_PATH", TT_ENV_TEXT, "unset",
                                 "libtpu, used when a TPU is present (/dev/accel0 or /dev/vfio/0)"},
    [TT_ENV_DEFER_AND_FUSE] = {"TORCH_TPU_DEFER_AND_FUSE", TT_ENV_FLAG, "off", "start in DeferAndFuse eager mode"},
    [TT_ENV_LAUNCH_BLOCKING] = {"TORCH_TPU_LAUNCH_BLOCKING", TT_ENV_FLAG, "off",
                                "start in Debug eager mode: every op waits for its result"},
    [TT_ENV_DETECT_REPEATED_OPS] = {"TORCH_TPU_DETECT_REPEATED_OPS", TT_ENV_FLAG, "on",
                                    "the repeated-ops heuristic of DeferAndFuse"},
    [TT_ENV_DEFER_CHUNK_OPS] = {"TORCH_TPU_DEFER_CHUNK_OPS", TT_ENV_COUNT_VALUE, "16",
                                "ops in DeferAndFuse's first chunk of a step (0: no chunks)"},
    [TT_ENV_DUMP_HLO_ON_ERROR] = {"TORCH_TPU_DUMP_HLO_ON_ERROR", TT_ENV_FLAG, "off",
                                  "append the StableHLO module text to compile errors"},
    [TT_ENV_DUMP_MODULES_TO] = {"TORCH_TPU_DUMP_MODULES_TO", TT_ENV_TEXT, "unset",
                                "a directory: the StableHLO text of every module compiled (not those found in the "
                                "compile cache) is written there, one file per compile"},
    [TT_ENV_CPU_FALLBACK] = {"TORCH_TPU_CPU_FALLBACK", TT_ENV_FLAG, "off",
                             "run ops with no TPU lowering on the CPU"},
    [TT_ENV_EAGER_BUCKETS] = {"TORCH_TPU_EAGER_BUCKETS", TT_ENV_FLAG, "off",
                              "eager cat grows tensors in power-of-two buckets; ops on them compile once per bucket"},
    [TT_ENV_EAGER_BUCKET_MIN] = {"TORCH_TPU_EAGER_BUCKET_MIN", TT_ENV_COUNT_VALUE, "128",
                                 "eager buckets: the least capacity of a grown dim while the tensor stays within "
                                 "65536 elements (1: every power of two is a bucket)"},
    [TT_ENV_FUSE_COMPILED_CALLS] = {"TORCH_TPU_FUSE_COMPILED_CALLS", TT_ENV_FLAG, "on",
                                    "torch.compile'd graphs called one after another (a training step's forward, "
                                    "backward and optimizer step) run as one program at the next sync"},
    [TT_ENV_TIER1_MAX_ENTRIES] = {"TORCH_TPU_TIER1_COMPILATION_CACHE_MAX_ENTRIES", TT_ENV_COUNT_VALUE, "4096",
                                  "executables kept in process memory (0: no limit)"},
    [TT_ENV_TIER2] = {"TORCH_TPU_TIER2_COMPILATION_CACHE", TT_ENV_FLAG, "on when WORLD_SIZE > 1",
                      "the host-local compile cache (tier 2)"},
    [TT_ENV_TIER2_DIR] = {"TORCH_TPU_TIER2_COMPILATION_CACHE_DIR", TT_ENV_TEXT, "/dev/shm/torchtpu-cache-<uid>",
                          "where tier 2 lives"},
    [TT_ENV_TIER2_MAX_BYTES] = {"TORCH_TPU_TIER2_COMPILATION_CACHE_MAX_BYTES", TT_ENV_BYTES, "2G",
                                "size limit of tier 2 (0: none)"},
    [TT_ENV_TIER3_ROOT] = {"TORCH_TPU_TIER3_COMPILATION_CACHE_ROOT", TT_ENV_TEXT,
                           "$XDG_CACHE_HOME/torchtpu/compile, else ~/.cache/torchtpu/compile",
                           "where the persistent compile cache (tier 3) lives; off, 0, false or no: no tier 3"},
    [TT_ENV_TIER3_MAX_BYTES] = {"TORCH_TPU_TIER3_COMPILATION_CACHE_MAX_BYTES", TT_ENV_BYTES, "20G",
                                "size limit of tier 3 (0: none)"},
    [TT_ENV_ASYNC_COMPILE] = {"TORCH_TPU_ASYNC_COMPILE", TT_ENV_FLAG, "on",
                              "compile in the background (off: on the calling thread)"},
    [TT_ENV_COMPILE_THREADS] = {"TORCH_TPU_COMPILE_THREADS", TT_ENV_COUNT_VALUE, "one per core, at most 4",
                                "background compile threads"},
    [TT_ENV_TIERED_COMPILE] = {"TORCH_TPU_TIERED_COMPILE", TT_ENV_COUNT_VALUE, "0 (off)",
                               "N > 0: compile new programs quickly first, and optimized once run N more times "
                               "and the program set is steady"},
    [TT_ENV_XLA_OPT_LEVEL] = {"TORCH_TPU_XLA_OPTIMIZATION_LEVEL", TT_ENV_COUNT_VALUE,
                              "1 on XLA's CPU plugin, the plugin's own elsewhere",
                              "XLA's backend optimization level (0-3; 3 is XLA's default) for every compile"},
    [TT_ENV_SMALL_PROGRAM_ELEMENTS] = {"TORCH_TPU_SMALL_PROGRAM_ELEMENTS", TT_ENV_COUNT_VALUE,
                                       "8192 on XLA's CPU plugin, 0 (off) elsewhere",
                                       "programs whose every tensor has at most this many elements (no matrix product "
                                       "or convolution) compile with XLA CPU's classic emitters (faster to compile, "
                                       "as fast to run at that size)"},
    [TT_ENV_WORLD_SIZE] = {"WORLD_SIZE", TT_ENV_COUNT_VALUE, "1",
                           "processes of the job (torchrun's); > 1 turns tier 2 on"},
    [TT_ENV_XDG_CACHE_HOME] = {"XDG_CACHE_HOME", TT_ENV_TEXT, "~/.cache",
                               "the user's cache directory (an absolute path): tier 3's default lives under it"},
    [TT_ENV_HOME] = {"HOME", TT_ENV_TEXT, "the password database's home directory",
                     "the user's home: ~/.cache/torchtpu/compile is tier 3's default without XDG_CACHE_HOME"},
};

const tt_env_decl_t *tt_env_decl(int id) { return id >= 0 && id < TT_ENV_COUNT ? &kDecls[id] : NULL; }

void tt_env_read(tt_env_t *env) {
  for (int i = 0; i < TT_ENV_COUNT; i++) {
    const char *v = getenv(kDecls[i].name);
    env->text[i] = v && *v ? tt_strdup(v) : NULL;
  }
}

void tt_env_free(tt_env_t *env) {
  for (int i = 0; i < TT_ENV_COUNT; i++) {
    tt_free(env->text[i]);
    env->text[i] = NULL;
  }
}

const char *tt_env_text(const tt_env_t *env, tt_env_id_t id) { return env->text[id]; }

int tt_env_flag(const tt_env_t *env, tt_env_id_t id, int dflt) {
  const char *v = env->text[id];
  if (!v) return dflt;
  return strcmp(v, "0") && strcasecmp(v, "false") && strcasecmp(v, "no") && strcasecmp(v, "off");
}

int64_t tt_env_count(const tt_env_t *env, tt_env_id_t id, int64_t dflt) {
  const char *v = env->text[id];
  if (!v) return dflt;
  char *end;
  long long n = strtoll(v, &end, 10);
  if (*end || n < 0) {
    fprintf(stderr, "torchtpu: warning: %s='%s' is not a count; using the default (%s)\n", kDecls[id].name, v,
            kDecls[id].dflt);
    return dflt;
  }
  return n;
}
