/*===- replay_main.c - run a fuzz target over saved inputs ---------------===*
 *
 * The same target, without libFuzzer: each file named, or each file in each
 * directory named, is run once. The test command replays the seed and
 * regression corpora with it in every build, sanitized or not.
 *
 *===--------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int replayFile(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  size_t size = 0, capacity = 4096;
  uint8_t *data = malloc(capacity);
  size_t got;
  while (data && (got = fread(data + size, 1, capacity - size, f)) > 0) {
    size += got;
    if (size == capacity) {
      uint8_t *bigger = realloc(data, capacity *= 2);
      if (!bigger)
        free(data);
      data = bigger;
    }
  }
  int failed = ferror(f) || !data;
  fclose(f);
  if (failed) {
    free(data);
    fprintf(stderr, "replay: cannot read %s\n", path);
    return 1;
  }
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  replayed++;
  return 0;
}

static int compareNames(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's files in name order, so that a failure reproduces. */
static int replayDirectory(const char *path) {
  DIR *dir = opendir(path);
  if (!dir) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return 1;
  }
  char **names = NULL;
  size_t count = 0, capacity = 0;
  int failed = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] == '.')
      continue;
    if (count == capacity) {
      char **bigger = realloc(names, (capacity = capacity ? 2 * capacity : 64) * sizeof *names);
      if (!bigger) {
        failed = 1;
        break;
      }
      names = bigger;
    }
    size_t length = strlen(path) + strlen(e->d_name) + 2;
    if (!(names[count] = malloc(length))) {
      failed = 1;
      break;
    }
    snprintf(names[count++], length, "%s/%s", path, e->d_name);
  }
  closedir(dir);
  if (count)
    qsort(names, count, sizeof *names, compareNames);
  for (size_t i = 0; i < count; i++) {
    if (!failed)
      failed = replayFile(names[i]);
    free(names[i]);
  }
  free(names);
  if (failed)
    fprintf(stderr, "replay: %s: out of memory or unreadable\n", path);
  return failed;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s does not exist\n", argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode) ? replayDirectory(argv[i]) : replayFile(argv[i]))
      return 1;
  }
  printf("replayed %lu inputs\n", replayed);
  return 0;
}
