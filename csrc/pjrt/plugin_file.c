/* Checks a plugin file's ELF structure before dlopen maps it: a truncated or
 * corrupt copy would otherwise fault (SIGBUS) inside the loader when it
 * touches a page past the end of the file. Only what the loader relies on
 * is checked: header, machine, program headers and section header table,
 * each within the file's size. */
#define _POSIX_C_SOURCE 200809L

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pjrt/pjrt_internal.h"

#define BAD_HINT                                                                            \
  "; the file may be truncated or corrupt (an interrupted download or copy): reinstall it " \
  "(for the default plugin: pip install --force-reinstall xla-cpu-pjrt) or set "            \
  "TORCH_TPU_PJRT_PLUGIN to the path of a PJRT plugin .so"

#define NOT_ELF "it does not start with the ELF magic bytes (it is not an ELF shared library)"

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#define HOST_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#define HOST_MACHINE_NAME "aarch64"
#else
#error "torchtpu supports x86-64 and aarch64 hosts"
#endif

static int read_at(int fd, void *buf, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    got += (size_t)r;
  }
  return 1;
}

/* [off, off + count * entsize) lies within the file. */
static int table_fits(uint64_t off, uint64_t count, uint64_t entsize, uint64_t file_size) {
  uint64_t bytes, end;
  if (__builtin_mul_overflow(count, entsize, &bytes) || __builtin_add_overflow(off, bytes, &end)) return 0;
  return end <= file_size;
}

static tt_status_t bad(const char *path, uint64_t size, const char *what) {
  return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s' (%llu bytes) is not a loadable shared library: %s" BAD_HINT,
                        path, (unsigned long long)size, what);
}

static tt_status_t check_header(const char *path, uint64_t size, const Elf64_Ehdr *h) {
  if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0) return bad(path, size, NOT_ELF);
  if (h->e_ident[EI_CLASS] != ELFCLASS64) return bad(path, size, "it is not a 64-bit ELF file");
  if (h->e_ident[EI_DATA] != ELFDATA2LSB) return bad(path, size, "it is not a little-endian ELF file");
  if (h->e_type != ET_DYN) return bad(path, size, "it is an ELF file but not a shared object (ELF type is not ET_DYN)");
  if (h->e_machine != HOST_MACHINE)
    return bad(path, size, "it is built for another machine than this " HOST_MACHINE_NAME " host");
  if (h->e_phnum == 0 || h->e_phentsize != sizeof(Elf64_Phdr))
    return bad(path, size, "its program header table is missing or malformed");
  if (!table_fits(h->e_phoff, h->e_phnum, h->e_phentsize, size))
    return bad(path, size, "its program header table reaches past the end of the file");
  return TT_OK_STATUS;
}

/* e_shnum 0 with a table present means the count is in entry 0 (extended
 * numbering): entry 0 must still be in the file. */
static tt_status_t check_sections(const char *path, uint64_t size, const Elf64_Ehdr *h) {
  if (h->e_shoff != 0 && (h->e_shentsize != sizeof(Elf64_Shdr) ||
                          !table_fits(h->e_shoff, h->e_shnum ? h->e_shnum : 1, h->e_shentsize, size)))
    return bad(path, size, "its section header table reaches past the end of the file");
  return TT_OK_STATUS;
}

tt_status_t tt_pjrt_plugin_check_file(const char *path, uint64_t file_size) {
  if (file_size == 0) return bad(path, file_size, "the file is empty");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return tt_status_make(TT_UNAVAILABLE, "PJRT plugin '%s' cannot be opened for reading (%s); set "
                          "TORCH_TPU_PJRT_PLUGIN to the path of a readable PJRT plugin .so", path, strerror(errno));
  Elf64_Ehdr h;
  tt_status_t st = TT_OK_STATUS;
  if (file_size < sizeof h || !read_at(fd, &h, sizeof h, 0)) {
    unsigned char magic[SELFMAG] = {0};
    int elf = file_size >= SELFMAG && read_at(fd, magic, SELFMAG, 0) && memcmp(magic, ELFMAG, SELFMAG) == 0;
    st = bad(path, file_size, elf ? "the file ends inside its ELF header" : NOT_ELF);
  }
  if (!st) st = check_header(path, file_size, &h);
  for (int i = 0; !st && i < h.e_phnum; i++) {
    Elf64_Phdr ph;
    if (!read_at(fd, &ph, sizeof ph, h.e_phoff + (uint64_t)i * sizeof ph)) {
      st = bad(path, file_size, "its program headers cannot be read");
      break;
    }
    if (ph.p_type != PT_NULL && !table_fits(ph.p_offset, 1, ph.p_filesz, file_size)) {
      char what[200];
      snprintf(what, sizeof what,
               "program header %d (%s) covers file bytes %llu to %llu, past the end of the file", i,
               ph.p_type == PT_LOAD ? "a loadable segment" : "a segment", (unsigned long long)ph.p_offset,
               (unsigned long long)(ph.p_offset + ph.p_filesz));
      st = bad(path, file_size, what);
    }
  }
  if (!st) st = check_sections(path, file_size, &h);
  close(fd);
  return st;
}
