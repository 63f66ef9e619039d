/* The foreign-module table: parse a StableHLO module's text once, rename its
 * symbols for splicing into our module, keep its entry signature. */
#include "ir/foreign.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/strbuf.h"

/* Process-wide and append-only, like an interned string table: an entry is
 * immutable and its key is a hash of the text, so graphs, fingerprints and
 * the on-disk cache tiers can name it by key alone. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tt_foreign_t **table;
static uint64_t *check_hashes; /* a second hash of each text: a collision is an error */
static int count, cap;

#define MAX_DEFS 1024

typedef struct parse_s {
  const char *p, *end;
} parse_t;

static int is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* p at an opening quote: the position after the closing one. */
static const char *skip_string(const char *p, const char *end) {
  for (p++; p < end; p++) {
    if (*p == '\\') p++;
    else if (*p == '"') return p + 1;
  }
  return end;
}

/* p at `open`: the position of its matching `close` (strings skipped), or NULL. */
static const char *match(const char *p, const char *end, char open, char close) {
  int depth = 0;
  while (p < end) {
    if (*p == '"') {
      p = skip_string(p, end);
      continue;
    }
    if (*p == open) depth++;
    else if (*p == close && --depth == 0) return p;
    p++;
  }
  return NULL;
}

static int starts(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 && (p + n == end || !is_ident(p[n]));
}

/* The symbol defined at p ("func.func [vis] @name" or "sdy.mesh @name"):
 * sets name and len and returns 1. */
static int symbol_def(const char *p, const char *end, const char **name, size_t *len) {
  const char *q;
  if (starts(p, end, "func.func")) q = p + 9;
  else if (starts(p, end, "sdy.mesh")) q = p + 8;
  else return 0;
  q = skip_ws(q, end);
  for (int k = 0; k < 3; k++) {
    static const char *vis[] = {"public", "private", "nested"};
    if (starts(q, end, vis[k])) {
      q = skip_ws(q + strlen(vis[k]), end);
      break;
    }
  }
  if (q >= end || *q != '@') return 0;
  const char *s = ++q;
  while (q < end && is_ident(*q)) q++;
  if (q == s) return 0;
  *name = s;
  *len = (size_t)(q - s);
  return 1;
}

static tt_status_t parse_type(const char **pp, const char *end, tt_type_t *t) {
  const char *p = skip_ws(*pp, end);
  if (!starts(p, end, "tensor") || p + 6 >= end || p[6] != '<') {
    const char *e = p;
    while (e < end && e - p < 40 && *e != ',' && *e != ')' && *e != '\n') e++;
    return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: only tensor arguments and results are supported, got '%.*s'",
                          (int)(e - p), p);
  }
  const char *close = match(p + 6, end, '<', '>');
  if (!close) return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: unterminated tensor type");
  const char *q = p + 7;
  memset(t, 0, sizeof *t);
  for (;;) {
    const char *d = q;
    int64_t v = 0;
    while (q < close && *q >= '0' && *q <= '9') v = v * 10 + (*q++ - '0');
    if (q < close && *q == '?')
      return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: dynamic dimensions ('?') are not supported");
    if (q > d && q < close && *q == 'x') {
      if (t->rank == TT_MAX_RANK)
        return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: rank above %d is not supported", TT_MAX_RANK);
      t->dims[t->rank++] = v;
      q++;
      continue;
    }
    q = d;
    break;
  }
  const char *e = q;
  while (e < close && *e != ',') e++; /* an encoding (", #...") is not ours to keep */
  if (e != close)
    return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: tensor encodings are not supported ('%.*s')",
                          (int)(close - p + 1), p);
  t->dtype = TT_DTYPE_INVALID;
  for (int k = 0; k < TT_DTYPE_COUNT; k++) {
    const char *m = tt_dtype_mlir((tt_dtype_t)k);
    if (m && strlen(m) == (size_t)(e - q) && memcmp(m, q, (size_t)(e - q)) == 0) t->dtype = (tt_dtype_t)k;
  }
  if (t->dtype == TT_DTYPE_INVALID)
    return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: element type '%.*s' has no PyTorch dtype here",
                          (int)(e - q), q);
  *pp = close + 1;
  return TT_OK_STATUS;
}

/* After a type: an optional attribute dictionary ({jax.result_info = ...}). */
static const char *skip_attrs(const char *p, const char *end) {
  p = skip_ws(p, end);
  if (p < end && *p == '{') {
    const char *c = match(p, end, '{', '}');
    p = c ? c + 1 : end;
  }
  return skip_ws(p, end);
}

/* Appends t to the growable type list (*v, *n, *cap); 0 when out of memory. */
static int push_type(tt_type_t **v, int *n, int *cap, const tt_type_t *t) {
  if (*n == *cap) {
    int ncap = *cap ? 2 * *cap : 16;
    tt_type_t *nv = tt_realloc(*v, sizeof(tt_type_t) * (size_t)ncap);
    if (!nv) return 0;
    *v = nv;
    *cap = ncap;
  }
  (*v)[(*n)++] = *t;
  return 1;
}

/* Reads types separated by commas (each with optional attributes) up to
 * the closing ')' into a new list. */
static tt_status_t parse_type_list(const char **pp, const char *end, int arguments, tt_type_t **out, int *out_n) {
  const char *p = *pp;
  int cap = 0;
  *out = NULL;
  *out_n = 0;
  while (p < end && *p != ')') {
    if (arguments) {
      if (*p != '%') return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: cannot read the entry's arguments");
      while (p < end && *p != ':') p++;
      p++;
    }
    tt_type_t t;
    TT_RETURN_IF_ERROR(parse_type(&p, end, &t));
    if (*out_n == TT_FOREIGN_MAX_SIGNATURE || !push_type(out, out_n, &cap, &t))
      return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: more than %d %s, or out of host memory",
                            TT_FOREIGN_MAX_SIGNATURE, arguments ? "arguments" : "results");
    p = skip_attrs(p, end);
    if (p < end && *p == ',') p = skip_ws(p + 1, end);
  }
  *pp = p;
  return TT_OK_STATUS;
}

/* p just after "@name": "(%a: T {attrs}, ...) -> (T {attrs}, ...)" or "-> T".
 * On error the caller frees f's lists (foreign_free). */
static tt_status_t parse_signature(const char *p, const char *end, tt_foreign_t *f) {
  p = skip_ws(p, end);
  if (p >= end || *p != '(') return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: entry function without arguments list");
  p = skip_ws(p + 1, end);
  TT_RETURN_IF_ERROR(parse_type_list(&p, end, 1, &f->in, &f->nin));
  if (!f->in && !(f->in = tt_calloc(1, sizeof(tt_type_t)))) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
  p = skip_ws(p + 1, end);
  if (starts(p, end, "->") || (end - p >= 2 && p[0] == '-' && p[1] == '>')) {
    p = skip_ws(p + 2, end);
    if (p < end && *p == '(') {
      p = skip_ws(p + 1, end);
      TT_RETURN_IF_ERROR(parse_type_list(&p, end, 0, &f->out, &f->nout));
    } else {
      tt_type_t t;
      int cap = 0;
      TT_RETURN_IF_ERROR(parse_type(&p, end, &t));
      if (!push_type(&f->out, &f->nout, &cap, &t)) return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
    }
  }
  if (f->nout == 0) return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: the entry function returns nothing");
  return TT_OK_STATUS;
}

static void foreign_free(tt_foreign_t *f) {
  if (!f) return;
  tt_free(f->in);
  tt_free(f->out);
  tt_free(f->funcs);
  tt_free(f);
}

typedef struct defs_s {
  const char *name[MAX_DEFS];
  size_t len[MAX_DEFS];
  int n;
} defs_t;

static int is_def(const defs_t *d, const char *s, size_t n) {
  for (int i = 0; i < d->n; i++)
    if (d->len[i] == n && memcmp(d->name[i], s, n) == 0) return 1;
  return 0;
}

static tt_status_t parse_module(const char *text, size_t len, uint64_t key, tt_foreign_t **out) {
  const char *end = text + len, *p = text;
  /* The module op, after any attribute aliases (#loc = ...) before it. */
  for (;;) {
    p = skip_ws(p, end);
    if (p >= end) return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: no 'module' in the text");
    if (starts(p, end, "module")) break;
    while (p < end && *p != '\n') p++;
  }
  p = skip_ws(p + 6, end);
  if (p < end && *p == '@') {
    p++;
    while (p < end && is_ident(*p)) p++;
  }
  p = skip_ws(p, end);
  if (starts(p, end, "attributes")) {
    p = skip_ws(p + 10, end);
    const char *c = p < end && *p == '{' ? match(p, end, '{', '}') : NULL;
    if (!c) return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: unreadable module attributes");
    p = skip_ws(c + 1, end);
  }
  const char *body_end = p < end && *p == '{' ? match(p, end, '{', '}') : NULL;
  if (!body_end) return tt_status_make(TT_INVALID_ARGUMENT, "foreign module: the module has no body");
  const char *body = p + 1;

  /* The symbols the module defines (top level or not: renaming is textual). */
  defs_t *d = tt_calloc(1, sizeof *d);
  tt_foreign_t *f = tt_calloc(1, sizeof *f);
  if (!d || !f) {
    tt_free(d);
    tt_free(f);
    return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory");
  }
  f->key = key;
  snprintf(f->entry, sizeof f->entry, "tt_ff%016llx_", (unsigned long long)key);
  const char *entry_sig = NULL, *public_sig = NULL, *public_name = NULL;
  size_t public_len = 0;
  int npublic = 0;
  for (const char *q = body; q < body_end;) {
    if (*q == '"') {
      q = skip_string(q, body_end);
      continue;
    }
    const char *name;
    size_t nlen;
    if ((q == body || !is_ident(q[-1])) && symbol_def(q, body_end, &name, &nlen)) {
      if (d->n == MAX_DEFS) {
        tt_free(d);
        foreign_free(f);
        return tt_status_make(TT_NOT_IMPLEMENTED, "foreign module: more than %d symbols", MAX_DEFS);
      }
      d->name[d->n] = name;
      d->len[d->n++] = nlen;
      if (starts(q, body_end, "func.func")) {
        const char *vis = skip_ws(q + 9, body_end);
        if (nlen == 4 && memcmp(name, "main", 4) == 0) entry_sig = name + nlen;
        if (starts(vis, body_end, "public") || *vis == '@') {
          npublic++;
          public_sig = name + nlen;
          public_name = name;
          public_len = nlen;
        }
      }
      q = name + nlen;
      continue;
    }
    q++;
  }
  tt_status_t s = TT_OK_STATUS;
  if (!entry_sig && npublic == 1) {
    entry_sig = public_sig;
  } else if (!entry_sig) {
    s = tt_status_make(TT_INVALID_ARGUMENT, "foreign module: no @main function and %d public functions", npublic);
  } else {
    public_name = "main";
    public_len = 4;
  }
  if (!s) {
    size_t used = strlen(f->entry);
    if (public_len + used + 1 > sizeof f->entry) s = tt_status_make(TT_INVALID_ARGUMENT, "foreign module: entry name too long");
    else memcpy(f->entry + used, public_name, public_len), f->entry[used + public_len] = 0;
  }
  if (!s) s = parse_signature(entry_sig, body_end, f);
  /* The renamed text: definitions and references of the module's symbols get
   * the prefix; functions become private (only our @main is public). */
  tt_strbuf_t sb;
  tt_strbuf_init(&sb);
  const char *copied = body;
  for (const char *q = body; !s && q < body_end;) {
    if (*q == '"') {
      q = skip_string(q, body_end);
      continue;
    }
    if ((q == body || !is_ident(q[-1])) && starts(q, body_end, "func.func")) {
      const char *v = skip_ws(q + 9, body_end);
      tt_strbuf_appendf(&sb, "%.*sfunc.func private ", (int)(q - copied), copied);
      for (int k = 0; k < 3; k++) {
        static const char *vis[] = {"public", "private", "nested"};
        if (starts(v, body_end, vis[k])) v = skip_ws(v + strlen(vis[k]), body_end);
      }
      q = copied = v;
      continue;
    }
    if (*q == '@') {
      const char *n0 = q + 1, *n1 = n0;
      while (n1 < body_end && is_ident(*n1)) n1++;
      if (is_def(d, n0, (size_t)(n1 - n0))) {
        tt_strbuf_appendf(&sb, "%.*s@tt_ff%016llx_%.*s", (int)(q - copied), copied, (unsigned long long)key,
                          (int)(n1 - n0), n0);
        copied = n1;
      }
      q = n1;
      continue;
    }
    q++;
  }
  if (!s) {
    tt_strbuf_appendf(&sb, "%.*s\n", (int)(body_end - copied), copied);
    s = tt_strbuf_status(&sb);
  }
  tt_free(d);
  if (s) {
    tt_strbuf_free(&sb);
    foreign_free(f);
    return s;
  }
  f->funcs = sb.data; /* owned now */
  *out = f;
  return TT_OK_STATUS;
}

tt_status_t tt_foreign_intern(const char *text, size_t len, uint64_t *out_key) {
  uint64_t key = tt_hash_bytes(TT_HASH_SEED, text, len);
  uint64_t check = tt_hash_bytes(TT_HASH_SEED ^ 0x2545f4914f6cdd1dULL, text, len) ^ (uint64_t)len;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < count; i++)
    if (table[i]->key == key) {
      int same = check_hashes[i] == check;
      pthread_mutex_unlock(&mu);
      if (!same) return tt_status_make(TT_INTERNAL, "foreign module: two different modules share hash %016llx",
                                       (unsigned long long)key);
      *out_key = key;
      return TT_OK_STATUS;
    }
  pthread_mutex_unlock(&mu);
  tt_foreign_t *f = NULL;
  TT_RETURN_IF_ERROR(parse_module(text, len, key, &f)); /* outside the lock: may be large */
  pthread_mutex_lock(&mu);
  for (int i = 0; i < count; i++)
    if (table[i]->key == key) { /* another thread interned it meanwhile */
      pthread_mutex_unlock(&mu);
      foreign_free(f);
      *out_key = key;
      return TT_OK_STATUS;
    }
  if (count == cap) {
    int ncap = cap ? 2 * cap : 16;
    tt_foreign_t **nt = tt_realloc(table, sizeof(*nt) * (size_t)ncap);
    if (nt) table = nt;
    uint64_t *nh = nt ? tt_realloc(check_hashes, sizeof(*nh) * (size_t)ncap) : NULL;
    if (nh) check_hashes = nh;
    if (!nt || !nh) {
      pthread_mutex_unlock(&mu);
      foreign_free(f);
      return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory interning a foreign module");
    }
    cap = ncap;
  }
  table[count] = f;
  check_hashes[count++] = check;
  pthread_mutex_unlock(&mu);
  *out_key = key;
  return TT_OK_STATUS;
}

const tt_foreign_t *tt_foreign_get(uint64_t key) {
  const tt_foreign_t *f = NULL;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < count && !f; i++)
    if (table[i]->key == key) f = table[i];
  pthread_mutex_unlock(&mu);
  return f;
}
