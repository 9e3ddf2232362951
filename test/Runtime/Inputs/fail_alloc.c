/*===- fail_alloc.c - fail one allocation of a process, for tests ---------===*
 *
 * Preloaded (LD_PRELOAD) into a tool, it makes the Nth call of malloc,
 * calloc or realloc return NULL, once: THUNKY_FAIL_ALLOC=N. With
 * THUNKY_FAIL_ALLOC_COUNT set it writes how many calls it saw at exit, so
 * that fail_each_allocation.py can fail each in turn. Let through are a
 * call the dynamic loader makes (thread-local storage: glibc aborts when
 * it fails, which is not the tool's to handle) and one made on behalf of
 * the simulated CUDA libraries, which are the test's and not thunky's.
 *
 *===--------------------------------------------------------------------===*/
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* glibc's own allocator, under names no preload replaces. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_long calls;
static long failAt;

__attribute__((constructor)) static void readTarget(void) {
  const char *n = getenv("THUNKY_FAIL_ALLOC");
  failAt = n ? atol(n) : 0;
  /* backtrace loads its unwinder on first use, allocating: not later. */
  void *frame;
  backtrace(&frame, 1);
  atomic_store(&calls, 0);
}

__attribute__((destructor)) static void report(void) {
  if (!getenv("THUNKY_FAIL_ALLOC_COUNT"))
    return;
  char line[64];
  int n = snprintf(line, sizeof line, "fail_alloc: %ld allocations\n", atomic_load(&calls));
  (void)!write(2, line, (size_t)n);
}

static int inLibrary(const void *address, const char *part) {
  Dl_info info;
  return dladdr(address, &info) && info.dli_fname && strstr(info.dli_fname, part);
}

static int excluded(const void *caller) {
  if (inLibrary(caller, "/ld-linux"))
    return 1;
  void *frames[64];
  int n = backtrace(frames, 64);
  for (int i = 0; i < n; i++)
    if (inLibrary(frames[i], "/cuda-sim/") || inLibrary(frames[i], "/cupti-sim/"))
      return 1;
  return 0;
}

static int failing(const void *caller) {
  return atomic_fetch_add(&calls, 1) + 1 == failAt && failAt > 0 && !excluded(caller);
}

/* thunky builds with hidden visibility; these must replace glibc's. */
#define SHIM __attribute__((visibility("default")))

SHIM void *malloc(size_t n) {
  if (failing(__builtin_return_address(0)))
    return errno = ENOMEM, NULL;
  return __libc_malloc(n);
}

SHIM void *calloc(size_t count, size_t size) {
  if (failing(__builtin_return_address(0)))
    return errno = ENOMEM, NULL;
  return __libc_calloc(count, size);
}

SHIM void *realloc(void *p, size_t n) {
  if (failing(__builtin_return_address(0)))
    return errno = ENOMEM, NULL;
  return __libc_realloc(p, n);
}
