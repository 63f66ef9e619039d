/* Module texts written out as they are compiled (exec/module_dump.h). */
#include "exec/module_dump.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/engine.h"

static void warn_once(tt_engine_t *e, const char *path, int err) {
  if (atomic_exchange(&e->module_dump_warned, 1)) return;
  fprintf(stderr, "torchtpu: TORCH_TPU_DUMP_MODULES_TO: cannot write %s (errno %d); modules are not dumped\n", path,
          err);
}

void tt_module_dump(tt_engine_t *e, const char *what, const tt_strbuf_t *text) {
  const char *dir = tt_env_text(&e->env, TT_ENV_DUMP_MODULES_TO);
  if (!dir || !text->data) return;
  if (mkdir(dir, 0777) && errno != EEXIST) {
    warn_once(e, dir, errno);
    return;
  }
  char name[96];
  size_t k = 0;
  for (const char *p = what ? what : "module"; *p && k < 80; p++, k++) {
    char ch = *p;
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
             ch == '_' || ch == '-';
    name[k] = ok ? ch : '_';
  }
  name[k] = 0;
  char path[4096];
  int n = atomic_fetch_add(&e->modules_dumped, 1) + 1;
  snprintf(path, sizeof path, "%s/%ld-%04d-%s.mlir", dir, (long)getpid(), n, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    warn_once(e, path, errno);
    return;
  }
  size_t w = fwrite(text->data, 1, text->len, f);
  int bad = w != text->len;
  if (fclose(f) || bad) warn_once(e, path, errno);
}
