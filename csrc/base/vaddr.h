/* Host addresses for device storages: each storage that PyTorch sees gets a
 * unique address range of its real size, so data_ptr() compares, offsets
 * and nbytes behave as on CPU. The ranges are carved from large PROT_NONE,
 * MAP_NORESERVE reservations: they use no host memory, and any accidental
 * host access faults instead of reading garbage. A few large reservations
 * (not one mapping per storage) keep vm.max_map_count out of reach.
 * Thread safety: a mutex guards the allocator. */
#ifndef TT_BASE_VADDR_H
#define TT_BASE_VADDR_H

#include <stdint.h>

/* A range of at least nbytes (> 0), 64-byte aligned; its capacity (what
 * tt_vaddr_free takes back) in out_capacity. Returns 0 when the address
 * space is exhausted. */
uint64_t tt_vaddr_alloc(uint64_t nbytes, uint64_t *out_capacity);
void tt_vaddr_free(uint64_t addr, uint64_t capacity);
/* Bytes reserved so far (all reservations) and ranges handed out. */
uint64_t tt_vaddr_reserved_bytes(void);
uint64_t tt_vaddr_live_ranges(void);

#endif
