/* The one allocator hook all core memory goes through, so tests can inject failures. */
#ifndef TT_BASE_ALLOC_H
#define TT_BASE_ALLOC_H

#include <stddef.h>

void *tt_malloc(size_t n);
void *tt_calloc(size_t count, size_t n);
void *tt_realloc(void *p, size_t n);
void tt_free(void *p);
char *tt_strdup(const char *s);

/* Test hook: after `countdown` more successful allocations, every allocation
 * fails until reset with a negative countdown. Not thread safe; tests only. */
void tt_alloc_fail_after(long countdown);

#endif
