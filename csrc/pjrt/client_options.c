/* Parsing of PJRT client options from text (pjrt/client_options.h). */
#include "pjrt/client_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static void set_name(PJRT_NamedValue *v, const char *name) {
  memset(v, 0, sizeof *v);
  v->struct_size = TT_PJRT_SIZE(PJRT_NamedValue, value_size);
  v->name = name;
  v->name_size = strlen(name);
  v->value_size = 1;
}

/* Types `value` by its spelling (see the header). */
static void set_value(PJRT_NamedValue *v, const char *value) {
  char *end = NULL;
  if (!strcmp(value, "true") || !strcmp(value, "false")) {
    v->type = PJRT_NamedValue_kBool;
    v->bool_value = value[0] == 't';
    return;
  }
  errno = 0;
  long long i = strtoll(value, &end, 10);
  if (*value && !*end && !errno) {
    v->type = PJRT_NamedValue_kInt64;
    v->int64_value = i;
    return;
  }
  errno = 0;
  double d = strtod(value, &end);
  if (*value && !*end && !errno && strpbrk(value, ".eE") && !strpbrk(value, "xXnN")) {
    v->type = PJRT_NamedValue_kFloat;
    v->float_value = (float)d;
    return;
  }
  v->type = PJRT_NamedValue_kString;
  v->string_value = value;
  v->value_size = strlen(value);
}

tt_status_t tt_pjrt_client_options_parse(const char *text, const char *source, tt_pjrt_client_options_t *out) {
  memset(out, 0, sizeof *out);
  size_t entries = 1;
  for (const char *p = text ? text : ""; *p; p++) entries += *p == ',';
  out->items = tt_calloc(entries + 1, sizeof *out->items);
  out->text = tt_strdup(text ? text : "");
  if (!out->items || !out->text) {
    tt_pjrt_client_options_free(out);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory reading %s", source);
  }
  char *save = NULL;
  for (char *entry = strtok_r(out->text, ",", &save); entry; entry = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(entry, '=');
    if (!eq || eq == entry || !eq[1]) {
      tt_status_t s = tt_status_make(TT_INVALID_ARGUMENT,
                                     "%s: '%s' is not name=value (expected e.g. "
                                     "preallocate=false,memory_fraction=0.5)",
                                     source, entry);
      tt_pjrt_client_options_free(out);
      return s;
    }
    *eq = '\0';
    if (tt_pjrt_client_options_find(out, entry) >= 0) {
      tt_status_t s = tt_status_make(TT_INVALID_ARGUMENT, "%s: option '%s' is given twice", source, entry);
      tt_pjrt_client_options_free(out);
      return s;
    }
    PJRT_NamedValue *v = &out->items[out->count++];
    set_name(v, entry);
    set_value(v, eq + 1);
  }
  return TT_OK_STATUS;
}

int tt_pjrt_client_options_find(const tt_pjrt_client_options_t *o, const char *name) {
  for (size_t i = 0; i < o->count; i++)
    if (o->items[i].name_size == strlen(name) && !memcmp(o->items[i].name, name, o->items[i].name_size))
      return (int)i;
  return -1;
}

void tt_pjrt_client_options_add_int(tt_pjrt_client_options_t *o, const char *name, int64_t value) {
  PJRT_NamedValue *v = &o->items[o->count++];
  set_name(v, name);
  v->type = PJRT_NamedValue_kInt64;
  v->int64_value = value;
}

void tt_pjrt_client_options_free(tt_pjrt_client_options_t *o) {
  tt_free(o->items);
  tt_free(o->text);
  memset(o, 0, sizeof *o);
}
