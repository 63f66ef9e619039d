/* Our own declarations of the part of the PJRT C API that torchtpu calls.
 *
 * Layouts follow the public ABI of openxla/xla's PJRT C API, major version 0,
 * written here at the layout of API minor 105. Rules of that ABI we rely on:
 *  - every args struct starts with {size_t struct_size; void *extension_start},
 *    and struct_size is offsetof(last field) + sizeof(last field);
 *  - a plugin rejects a caller struct_size smaller than its own, and accepts a
 *    larger one (fields it does not know are ignored), so these structs must
 *    be at least as new as any plugin we load; zero-init every args struct;
 *  - PJRT_Api is a header followed by function pointers; new slots are only
 *    ever appended, so a slot's index is stable from minor 57 on (0.57
 *    rearranged the table; older plugins are refused).
 * Only the fields we need are named; nothing here is upstream text. */
#ifndef TT_PJRT_PJRT_API_H
#define TT_PJRT_PJRT_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The API layout these declarations describe, and the oldest we accept. */
#define TT_PJRT_HEADER_MAJOR 0
#define TT_PJRT_HEADER_MINOR 105
#define TT_PJRT_MIN_MINOR 57

/* The size the ABI expects in an args struct's struct_size. */
#define TT_PJRT_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* Declares `type name` zeroed with struct_size set: the one way we build args. */
#define TT_PJRT_ARGS(type, name, last) \
  type name;                           \
  memset(&name, 0, sizeof name);       \
  name.struct_size = TT_PJRT_SIZE(type, last)

/* Opaque plugin objects. */
typedef struct PJRT_Error PJRT_Error;
typedef struct PJRT_Event PJRT_Event;
typedef struct PJRT_Client PJRT_Client;
typedef struct PJRT_Device PJRT_Device;
typedef struct PJRT_Memory PJRT_Memory;
typedef struct PJRT_DeviceDescription PJRT_DeviceDescription;
typedef struct PJRT_Executable PJRT_Executable;
typedef struct PJRT_LoadedExecutable PJRT_LoadedExecutable;
typedef struct PJRT_Buffer PJRT_Buffer;
typedef struct PJRT_SerializedExecutable PJRT_SerializedExecutable;
typedef struct PJRT_Extension_Base PJRT_Extension_Base; /* we never walk extensions */

/* ------------------------------------------------------------------ enums */

typedef enum {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

typedef enum {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64 = 1,
  PJRT_NamedValue_kInt64List = 2,
  PJRT_NamedValue_kFloat = 3,
  PJRT_NamedValue_kBool = 4,
} PJRT_NamedValue_Type;

/* Element types; the values are the enum's order in the ABI. */
typedef enum {
  PJRT_Buffer_Type_INVALID = 0,
  PJRT_Buffer_Type_PRED = 1,
  PJRT_Buffer_Type_S8 = 2,
  PJRT_Buffer_Type_S16 = 3,
  PJRT_Buffer_Type_S32 = 4,
  PJRT_Buffer_Type_S64 = 5,
  PJRT_Buffer_Type_U8 = 6,
  PJRT_Buffer_Type_U16 = 7,
  PJRT_Buffer_Type_U32 = 8,
  PJRT_Buffer_Type_U64 = 9,
  PJRT_Buffer_Type_F16 = 10,
  PJRT_Buffer_Type_F32 = 11,
  PJRT_Buffer_Type_F64 = 12,
  PJRT_Buffer_Type_BF16 = 13,
  PJRT_Buffer_Type_C64 = 14,
  PJRT_Buffer_Type_C128 = 15,
} PJRT_Buffer_Type;

typedef enum {
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall = 0,
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes = 1,
  PJRT_HostBufferSemantics_kImmutableZeroCopy = 2,
  PJRT_HostBufferSemantics_kMutableZeroCopy = 3,
} PJRT_HostBufferSemantics;

/* ------------------------------------------------------------ small types */

typedef struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  int major_version;
  int minor_version;
} PJRT_Api_Version;

typedef struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const char *name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char *string_value;
    int64_t int64_value;
    const int64_t *int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size; /* elements for lists and strings, 1 for scalars */
} PJRT_NamedValue;

typedef struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  char *code;
  size_t code_size;
  const char *format;
  size_t format_size;
} PJRT_Program;

/* Execute options, minor-105 layout (multi_slice_config came in 0.97). */
typedef struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  void **send_callbacks;
  void **recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t *non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  void *context;
  const char *call_location;
  size_t num_tasks;
  int *task_ids;
  int64_t *incarnation_ids;
  void *multi_slice_config;
} PJRT_ExecuteOptions;

/* ------------------------------------------------------------- args structs */

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Error *error;
} PJRT_Error_Destroy_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Error *error;
  const char *message; /* not NUL-terminated; lives as long as `error` */
  size_t message_size;
} PJRT_Error_Message_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Error *error;
  PJRT_Error_Code code;
} PJRT_Error_GetCode_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
} PJRT_Plugin_Initialize_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_NamedValue *attributes; /* live for the whole process */
  size_t num_attributes;
} PJRT_Plugin_Attributes_Args;

/* Event_Destroy and Event_Await take the same shape. */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
} PJRT_Event_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Event *event;
  bool is_ready; /* out */
} PJRT_Event_IsReady_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_NamedValue *create_options;
  size_t num_options;
  void *kv_get_callback;
  void *kv_get_user_arg;
  void *kv_put_callback;
  void *kv_put_user_arg;
  PJRT_Client *client; /* out */
  void *kv_try_get_callback;
  void *kv_try_get_user_arg;
} PJRT_Client_Create_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
} PJRT_Client_Destroy_Args;

/* Client_PlatformName and Client_PlatformVersion take the same shape. */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const char *str; /* out, owned by the client */
  size_t str_size;
} PJRT_Client_String_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  PJRT_Device *const *devices; /* out, owned by the client */
  size_t num_devices;
} PJRT_Client_AddressableDevices_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const PJRT_Program *program;
  const char *compile_options; /* serialized xla.CompileOptionsProto */
  size_t compile_options_size;
  PJRT_LoadedExecutable *executable; /* out */
} PJRT_Client_Compile_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const void *data;
  PJRT_Buffer_Type type;
  const int64_t *dims;
  size_t num_dims;
  const int64_t *byte_strides;
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device *device;
  PJRT_Memory *memory;
  void *device_layout;
  PJRT_Event *done_with_host_buffer; /* out */
  PJRT_Buffer *buffer;               /* out */
} PJRT_Client_BufferFromHostBuffer_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_DeviceDescription *device_description;
  const char *device_kind; /* out */
  size_t device_kind_size;
} PJRT_DeviceDescription_Kind_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  PJRT_DeviceDescription *device_description; /* out */
} PJRT_Device_GetDescription_Args;

/* The allocator's counters for one device; each *_is_set says whether the
 * plugin filled the field before it. */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Device *device;
  int64_t bytes_in_use; /* out */
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit;
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes;
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
} PJRT_Device_MemoryStats_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
} PJRT_Executable_Destroy_Args;

/* Executable_NumOutputs and Executable_NumReplicas take the same shape. */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Executable *executable;
  size_t count; /* out */
} PJRT_Executable_Count_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  const PJRT_Executable *executable;
  const char *serialized_bytes; /* out, lives as long as serialized_executable */
  size_t serialized_bytes_size;
  PJRT_SerializedExecutable *serialized_executable;
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable *exec);
} PJRT_Executable_Serialize_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
} PJRT_LoadedExecutable_Destroy_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *loaded_executable;
  PJRT_Executable *executable; /* out, caller destroys */
} PJRT_LoadedExecutable_GetExecutable_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  PJRT_Device *const *addressable_devices; /* out */
  size_t num_addressable_devices;
} PJRT_LoadedExecutable_AddressableDevices_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_LoadedExecutable *executable;
  PJRT_ExecuteOptions *options;
  PJRT_Buffer *const *const *argument_lists; /* [num_devices][num_args] */
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer **const *output_lists;  /* [num_devices][num_outputs], caller-owned */
  PJRT_Event **device_complete_events; /* optional */
  PJRT_Device *execute_device;         /* optional */
} PJRT_LoadedExecutable_Execute_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Client *client;
  const char *serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable *loaded_executable; /* out */
  const char *overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
} PJRT_Executable_DeserializeAndLoad_Args;

/* Buffer_Destroy takes this shape. */
typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
} PJRT_Buffer_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  size_t on_device_size_in_bytes; /* out */
} PJRT_Buffer_OnDeviceSizeInBytes_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *src;
  void *host_layout; /* NULL: the buffer's own (dense row-major for us) */
  void *dst;         /* NULL: only query dst_size */
  size_t dst_size;
  PJRT_Event *event; /* out */
} PJRT_Buffer_ToHostBuffer_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  PJRT_Event *event; /* out */
} PJRT_Buffer_ReadyEvent_Args;

typedef struct {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Buffer *buffer;
  uintptr_t buffer_pointer; /* out */
} PJRT_Buffer_UnsafePointer_Args;

/* ------------------------------------------------------------- the table */

/* Slot indices into PJRT_Api.fn, counted from the first function pointer.
 * Only the ones we call are named. */
enum {
  TT_PJRT_SLOT_Error_Destroy = 0,
  TT_PJRT_SLOT_Error_Message = 1,
  TT_PJRT_SLOT_Error_GetCode = 2,
  TT_PJRT_SLOT_Plugin_Initialize = 3,
  TT_PJRT_SLOT_Plugin_Attributes = 4,
  TT_PJRT_SLOT_Event_Destroy = 5,
  TT_PJRT_SLOT_Event_IsReady = 6,
  TT_PJRT_SLOT_Event_Await = 8,
  TT_PJRT_SLOT_Client_Create = 10,
  TT_PJRT_SLOT_Client_Destroy = 11,
  TT_PJRT_SLOT_Client_PlatformName = 12,
  TT_PJRT_SLOT_Client_PlatformVersion = 14,
  TT_PJRT_SLOT_Client_AddressableDevices = 16,
  TT_PJRT_SLOT_Client_Compile = 20,
  TT_PJRT_SLOT_Client_BufferFromHostBuffer = 22,
  TT_PJRT_SLOT_DeviceDescription_Kind = 26,
  TT_PJRT_SLOT_Device_GetDescription = 29,
  TT_PJRT_SLOT_Device_MemoryStats = 34,
  TT_PJRT_SLOT_Executable_Destroy = 40,
  TT_PJRT_SLOT_Executable_NumReplicas = 42,
  TT_PJRT_SLOT_Executable_NumOutputs = 44,
  TT_PJRT_SLOT_Executable_Serialize = 49,
  TT_PJRT_SLOT_LoadedExecutable_Destroy = 50,
  TT_PJRT_SLOT_LoadedExecutable_GetExecutable = 51,
  TT_PJRT_SLOT_LoadedExecutable_AddressableDevices = 52,
  TT_PJRT_SLOT_LoadedExecutable_Execute = 55,
  TT_PJRT_SLOT_Executable_DeserializeAndLoad = 56,
  TT_PJRT_SLOT_Buffer_Destroy = 58,
  TT_PJRT_SLOT_Buffer_OnDeviceSizeInBytes = 64,
  TT_PJRT_SLOT_Buffer_ToHostBuffer = 70,
  TT_PJRT_SLOT_Buffer_ReadyEvent = 72,
  TT_PJRT_SLOT_Buffer_UnsafePointer = 73,
  TT_PJRT_SLOT_LAST_USED = 73, /* keep equal to the highest slot above */
};

/* A generic function pointer: slots are stored as this and cast back to the
 * real type at the call (function-pointer casts are well defined in C). */
typedef void (*tt_pjrt_fn_t)(void);

typedef struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base *extension_start;
  PJRT_Api_Version pjrt_api_version;
  tt_pjrt_fn_t fn[]; /* struct_size tells how many the plugin has */
} PJRT_Api;

/* Smallest PJRT_Api.struct_size that still holds every slot we call. */
#define TT_PJRT_API_MIN_SIZE \
  (offsetof(PJRT_Api, fn) + (TT_PJRT_SLOT_LAST_USED + 1) * sizeof(tt_pjrt_fn_t))

/* Calls slot `name` of `api` with `args`: TT_PJRT_CALL(api, Client_Compile, &a).
 * Every slot we call returns PJRT_Error* except the two error helpers, which
 * have TT_PJRT_CALL_VOID. */
#define TT_PJRT_CALL(api, name, args) \
  (((PJRT_Error * (*)(void *))(api)->fn[TT_PJRT_SLOT_##name])((void *)(args)))
#define TT_PJRT_CALL_VOID(api, name, args) \
  (((void (*)(void *))(api)->fn[TT_PJRT_SLOT_##name])((void *)(args)))

#endif
