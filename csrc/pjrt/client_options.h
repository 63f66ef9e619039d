/* PJRT_Client_Create's options written as text, as a user gives them in
 * TORCH_TPU_PJRT_CLIENT_OPTIONS: "name=value,name=value". Each plugin has its
 * own names (XLA's CUDA plugin: preallocate, memory_fraction, allocator, ...;
 * the CPU plugin: cpu_device_count); a plugin that validates them refuses an
 * unknown name when the client is created.
 *
 * A value is typed by its spelling: true/false -> bool; a decimal integer ->
 * int64; a decimal number with '.' or an exponent -> float; anything else ->
 * string. Not thread safe per object; objects are independent. */
#ifndef TT_PJRT_CLIENT_OPTIONS_H
#define TT_PJRT_CLIENT_OPTIONS_H

#include <stddef.h>

#include "base/status.h"
#include "pjrt/pjrt_api.h"

typedef struct tt_pjrt_client_options_s {
  PJRT_NamedValue *items; /* count used, one spare slot for an option the core adds */
  size_t count;
  char *text; /* owned copy of the text: names and string values point into it */
} tt_pjrt_client_options_t;

/* Parses `text` (NULL or empty: no options). Errors (TT_INVALID_ARGUMENT) name
 * `source` (the variable), the offending entry and the expected form. */
tt_status_t tt_pjrt_client_options_parse(const char *text, const char *source, tt_pjrt_client_options_t *out);
/* Index of the option called `name`, or -1. */
int tt_pjrt_client_options_find(const tt_pjrt_client_options_t *o, const char *name);
/* Appends an int64 option into the spare slot (name must outlive `o`). */
void tt_pjrt_client_options_add_int(tt_pjrt_client_options_t *o, const char *name, int64_t value);
void tt_pjrt_client_options_free(tt_pjrt_client_options_t *o);

#endif
