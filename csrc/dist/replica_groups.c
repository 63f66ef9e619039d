/* Completing and checking a split into replica groups; formatting them. */
#include "dist/replica_groups.h"

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

static tt_status_t oom(void) { return tt_status_make(TT_OUT_OF_MEMORY, "out of host memory"); }

/* Up to 16 ranks of `v` as "[a, b, ...]" into buf, for error messages. */
static const char *rank_list(const int *v, int n, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len + 16 < cap; i++) {
    if (i == 16) {
      len += (size_t)snprintf(buf + len, cap - len, ", ... (%d in all)", n);
      break;
    }
    len += (size_t)snprintf(buf + len, cap - len, "%s%d", i ? ", " : "", v[i]);
  }
  return buf;
}

static tt_status_t check_world(int world) {
  if (world < 1 || world > (1 << 20))
    return tt_status_make(TT_VALUE_ERROR, "replica groups: world size must be in [1, 2^20], got %d",
                          world);
  return TT_OK_STATUS;
}

/* owner[r] = index of the group holding r, or -1. Checks range and overlap. */
static tt_status_t mark_owners(int world, int num_known, const int *sizes, const int *ranks,
                               int *owner) {
  for (int r = 0; r < world; r++) owner[r] = -1;
  size_t k = 0;
  for (int gi = 0; gi < num_known; gi++) {
    for (int j = 0; j < sizes[gi]; j++, k++) {
      int r = ranks[k];
      if (r < 0 || r >= world)
        return tt_status_make(TT_VALUE_ERROR,
                              "replica groups: rank %d in subgroup %d is outside the world of %d "
                              "ranks [0, %d)",
                              r, gi, world, world);
      if (owner[r] == gi)
        return tt_status_make(TT_VALUE_ERROR, "replica groups: rank %d appears twice in subgroup %d",
                              r, gi);
      if (owner[r] >= 0)
        return tt_status_make(TT_VALUE_ERROR,
                              "replica groups: rank %d is in subgroup %d and in subgroup %d; the "
                              "subgroups of a split must not overlap",
                              r, owner[r], gi);
      owner[r] = gi;
    }
  }
  return TT_OK_STATUS;
}

static tt_status_t check_sizes(int num_known, const int *sizes) {
  if (num_known < 1 || !sizes)
    return tt_status_make(TT_VALUE_ERROR, "replica groups: at least one subgroup is needed");
  for (int gi = 0; gi < num_known; gi++) {
    if (sizes[gi] < 1)
      return tt_status_make(TT_VALUE_ERROR, "replica groups: subgroup %d is empty", gi);
    if (sizes[gi] != sizes[0])
      return tt_status_make(TT_VALUE_ERROR,
                            "replica groups: subgroup %d has %d ranks but subgroup 0 has %d; "
                            "StableHLO's replica_groups needs every group of a split to have the "
                            "same size, so this uneven split has no single collective lowering",
                            gi, sizes[gi], sizes[0]);
  }
  return TT_OK_STATUS;
}

tt_status_t tt_dist_groups_resolve(int world, int num_known, const int *sizes, const int *ranks,
                                   tt_dist_groups_t *out) {
  memset(out, 0, sizeof *out);
  TT_RETURN_IF_ERROR(check_world(world));
  TT_RETURN_IF_ERROR(check_sizes(num_known, sizes));
  int size = sizes[0];
  if ((int64_t)num_known * size > world)
    return tt_status_make(TT_VALUE_ERROR,
                          "replica groups: %d subgroups of %d ranks do not fit in a world of %d",
                          num_known, size, world);
  int *owner = tt_malloc((size_t)world * sizeof *owner);
  int *left = tt_malloc((size_t)world * sizeof *left);
  if (!owner || !left) {
    tt_free(owner);
    tt_free(left);
    return oom();
  }
  tt_status_t status = mark_owners(world, num_known, sizes, ranks, owner);
  int num_left = 0;
  for (int r = 0; r < world && !status; r++)
    if (owner[r] < 0) left[num_left++] = r;
  if (!status && num_left % size != 0) {
    char buf[256];
    status = tt_status_make(
        TT_VALUE_ERROR,
        "replica groups: subgroups of %d ranks in a world of %d leave %d ranks [%s] that do not "
        "fill whole groups of %d; StableHLO's replica_groups needs every group of a split to have "
        "the same size, so this uneven split has no single collective lowering (use subgroups "
        "whose size divides the world size, or name the split's other subgroups)",
        size, world, num_left, rank_list(left, num_left, buf, sizeof buf), size);
  }
  if (!status) {
    out->ranks = tt_malloc((size_t)world * sizeof *out->ranks);
    if (!out->ranks) status = oom();
  }
  if (!status) {
    size_t known = (size_t)num_known * (size_t)size;
    memcpy(out->ranks, ranks, known * sizeof *ranks);
    memcpy(out->ranks + known, left, (size_t)num_left * sizeof *left);
    out->world = world;
    out->group_size = size;
    out->num_groups = world / size;
  }
  tt_free(owner);
  tt_free(left);
  return status;
}

tt_status_t tt_dist_groups_world(int world, tt_dist_groups_t *out) {
  memset(out, 0, sizeof *out);
  TT_RETURN_IF_ERROR(check_world(world));
  out->ranks = tt_malloc((size_t)world * sizeof *out->ranks);
  if (!out->ranks) return oom();
  for (int r = 0; r < world; r++) out->ranks[r] = r;
  out->world = world;
  out->num_groups = 1;
  out->group_size = world;
  return TT_OK_STATUS;
}

/* Sort key for the color split: (color, key, rank). */
typedef struct {
  int color, key, rank;
} colored_t;

static int colored_cmp(const colored_t *a, const colored_t *b) {
  if (a->color != b->color) return a->color < b->color ? -1 : 1;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->rank < b->rank ? -1 : a->rank > b->rank;
}

tt_status_t tt_dist_groups_from_colors(int world, const int *colors, const int *keys,
                                       tt_dist_groups_t *out) {
  memset(out, 0, sizeof *out);
  TT_RETURN_IF_ERROR(check_world(world));
  colored_t *v = tt_malloc((size_t)world * sizeof *v);
  int *sizes = tt_malloc((size_t)world * sizeof *sizes);
  int *ranks = tt_malloc((size_t)world * sizeof *ranks);
  tt_status_t status = (!v || !sizes || !ranks) ? oom() : TT_OK_STATUS;
  int n = 0, num_groups = 0;
  for (int r = 0; r < world && !status; r++) {
    if (colors[r] < 0) continue;
    colored_t c = {colors[r], keys ? keys[r] : 0, r};
    int i = n++; /* insertion sort: worlds are small and this keeps it stable */
    while (i > 0 && colored_cmp(&c, &v[i - 1]) < 0) {
      v[i] = v[i - 1];
      i--;
    }
    v[i] = c;
  }
  for (int i = 0; i < n && !status; i++) {
    if (i == 0 || v[i].color != v[i - 1].color) sizes[num_groups++] = 0;
    sizes[num_groups - 1]++;
    ranks[i] = v[i].rank;
  }
  if (!status && num_groups == 0)
    status = tt_status_make(TT_VALUE_ERROR, "replica groups: every rank of %d has a negative "
                            "color, so the split names no group", world);
  if (!status) status = tt_dist_groups_resolve(world, num_groups, sizes, ranks, out);
  tt_free(v);
  tt_free(sizes);
  tt_free(ranks);
  return status;
}

void tt_dist_groups_free(tt_dist_groups_t *g) {
  if (!g) return;
  tt_free(g->ranks);
  memset(g, 0, sizeof *g);
}

int tt_dist_groups_find(const tt_dist_groups_t *g, int rank, int *out_pos) {
  for (int i = 0; i < g->num_groups * g->group_size; i++)
    if (g->ranks[i] == rank) {
      if (out_pos) *out_pos = i % g->group_size;
      return i / g->group_size;
    }
  if (out_pos) *out_pos = -1;
  return -1;
}

static void format_rows(tt_strbuf_t *sb, const int *v, int rows, int cols) {
  if (rows == 0) {
    tt_strbuf_appendf(sb, "dense<> : tensor<0x%dxi64>", cols);
    return;
  }
  tt_strbuf_append(sb, "dense<[");
  for (int i = 0; i < rows; i++) {
    tt_strbuf_append(sb, i ? ", [" : "[");
    for (int j = 0; j < cols; j++) tt_strbuf_appendf(sb, "%s%d", j ? ", " : "", v[i * cols + j]);
    tt_strbuf_append(sb, "]");
  }
  tt_strbuf_appendf(sb, "]> : tensor<%dx%dxi64>", rows, cols);
}

void tt_dist_groups_format(const tt_dist_groups_t *g, tt_strbuf_t *sb) {
  format_rows(sb, g->ranks, g->num_groups, g->group_size);
}

tt_status_t tt_dist_pairs_make(int world, int num_pairs, const int *pairs, tt_dist_pairs_t *out) {
  memset(out, 0, sizeof *out);
  TT_RETURN_IF_ERROR(check_world(world));
  if (num_pairs < 0 || num_pairs > world)
    return tt_status_make(TT_VALUE_ERROR,
                          "collective_permute: %d source/target pairs in a world of %d (each rank "
                          "sends at most once)",
                          num_pairs, world);
  for (int i = 0; i < num_pairs; i++) {
    for (int k = 0; k < 2; k++) {
      int r = pairs[2 * i + k];
      if (r < 0 || r >= world)
        return tt_status_make(TT_VALUE_ERROR,
                              "collective_permute: %s %d of pair %d is outside the world of %d "
                              "ranks",
                              k ? "target" : "source", r, i, world);
      for (int j = 0; j < i; j++)
        if (pairs[2 * j + k] == r)
          return tt_status_make(TT_VALUE_ERROR,
                                "collective_permute: rank %d is the %s of pairs %d and %d; each "
                                "rank may %s one buffer per collective_permute",
                                r, k ? "target" : "source", j, i, k ? "receive" : "send");
    }
  }
  out->pairs = tt_malloc((size_t)(num_pairs ? num_pairs : 1) * 2 * sizeof *out->pairs);
  if (!out->pairs) return oom();
  if (num_pairs) memcpy(out->pairs, pairs, (size_t)num_pairs * 2 * sizeof *pairs);
  out->world = world;
  out->num_pairs = num_pairs;
  return TT_OK_STATUS;
}

tt_status_t tt_dist_pairs_in_groups(const tt_dist_groups_t *g, int num_pairs, const int *local,
                                    tt_dist_pairs_t *out) {
  memset(out, 0, sizeof *out);
  if (num_pairs < 0 || num_pairs > g->group_size)
    return tt_status_make(TT_VALUE_ERROR,
                          "collective_permute: %d pairs in groups of %d ranks", num_pairs,
                          g->group_size);
  for (int i = 0; i < 2 * num_pairs; i++)
    if (local[i] < 0 || local[i] >= g->group_size)
      return tt_status_make(TT_VALUE_ERROR,
                            "collective_permute: group position %d of pair %d is outside a group "
                            "of %d ranks",
                            local[i], i / 2, g->group_size);
  size_t n = (size_t)num_pairs * (size_t)g->num_groups;
  int *all = tt_malloc((n ? n : 1) * 2 * sizeof *all);
  if (!all) return oom();
  for (int gi = 0; gi < g->num_groups; gi++)
    for (int i = 0; i < num_pairs; i++) {
      const int *row = g->ranks + (size_t)gi * g->group_size;
      all[2 * ((size_t)gi * num_pairs + i)] = row[local[2 * i]];
      all[2 * ((size_t)gi * num_pairs + i) + 1] = row[local[2 * i + 1]];
    }
  tt_status_t status = tt_dist_pairs_make(g->world, (int)n, all, out);
  tt_free(all);
  return status;
}

void tt_dist_pairs_free(tt_dist_pairs_t *p) {
  if (!p) return;
  tt_free(p->pairs);
  memset(p, 0, sizeof *p);
}

void tt_dist_pairs_format(const tt_dist_pairs_t *p, tt_strbuf_t *sb) {
  format_rows(sb, p->pairs, p->num_pairs, 2);
}
