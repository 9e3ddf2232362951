/*===- file_bytes.c - a whole file, mapped where it can be ---------------===*/
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include "thunky-c/base/Bytes.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

bool thunkyFileBytesCreate(ThunkyFileBytes *f, const char *path, ThunkyError *error) {
  *f = (ThunkyFileBytes){.data = (const uint8_t *)""};
  int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uintmax_t)st.st_size <= SIZE_MAX) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m != MAP_FAILED) {
      close(fd);
      f->mapping = m, f->data = m, f->size = (size_t)st.st_size;
      return true;
    }
  }
  if (fd >= 0)
    close(fd);
  /* Empty, not a regular file, or not mappable: read it, which also says
   * what is wrong when it cannot be opened. */
  if (!thunkyBufferReadFile(&f->buffer, path, error)) {
    thunkyBufferDestroy(&f->buffer);
    return false;
  }
  f->data = f->buffer.data ? f->buffer.data : f->data, f->size = f->buffer.size;
  return true;
}

void thunkyFileBytesDestroy(ThunkyFileBytes *f) {
  if (f->mapping)
    munmap(f->mapping, f->size);
  thunkyBufferDestroy(&f->buffer);
  *f = (ThunkyFileBytes){.data = (const uint8_t *)""};
}
