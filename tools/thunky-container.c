/*===- thunky-container.c - look inside and build executable containers -===*
 *
 *   thunky-container info FILE
 *   thunky-container ls DIR
 *   thunky-container records FILE
 *   thunky-container unpack FILE -o EXE [--options OUT] [--metadata OUT]
 *   thunky-container pack --as LAYERING EXE -o FILE [--options IN]
 *                         [--metadata IN] [--compression none|snappy]
 *                         [--cache zlib|zstd]
 *   thunky-container hlo FILE [--launch NAME]
 *
 * `info` names the layers of an executable file, `ls` lists the executables
 * of an XLA dump or a JAX compilation cache folder, `records` lists a riegeli
 * file's records, `unpack` takes the bare GpuExecutableProto (and what the
 * outer layers carry) out, `pack` puts one back in any layering (and, with
 * --cache, in a JAX compilation cache entry of compile time 0), `hlo`
 * prints the HLO module XLA compiled (or what one launch runs). Plain C:
 * no MLIR, so it runs wherever thunky-run does.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Container.h"

#include "container_ls.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/format/HloText.h"
#include "thunky-c/format/Riegeli.h"
#include "thunky-c/Version.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: thunky-container info FILE\n"
    "       thunky-container ls DIR\n"
    "       thunky-container records FILE\n"
    "       thunky-container unpack FILE -o EXE [--options OUT] [--metadata OUT]\n"
    "       thunky-container pack --as LAYERING EXE -o FILE [--options IN] [--metadata IN]\n"
    "                             [--compression none|snappy] [--cache zlib|zstd]\n"
    "       thunky-container hlo FILE [--launch NAME]\n"
    "       thunky-container --version\n"
    "layerings: executable, split, options, split-options, ifrt+options, ifrt+split-options\n";

static int fail(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "thunky-container: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 2; /* every failure, as thunky-run's (docs/runtime.md#exit-status) */
}

/* Reads a whole file; "-" is stdin. */
static bool readFile(const char *path, ThunkyBuffer *out) {
  ThunkyError error;
  if (!thunkyBufferReadFile(out, path, &error)) {
    fail("%s", error.message, "");
    return false;
  }
  return true;
}

/* Writes all of data or nothing: a temporary file renamed into place. */
static bool writeFile(const char *path, ThunkyBytes data) {
  if (strcmp(path, "-") == 0)
    return fwrite(data.data, 1, data.size, stdout) == data.size && fflush(stdout) == 0;
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE *f = fopen(temporary, "wb");
  bool ok = f && fwrite(data.data, 1, data.size, f) == data.size;
  ok = f && fclose(f) == 0 && ok && rename(temporary, path) == 0;
  if (!ok) {
    remove(temporary);
    fail("cannot write %s: %s", path, strerror(errno));
  }
  return ok;
}

typedef struct {
  const char *command, *input, *output, *options, *metadata, *as, *compression, *launch;
  const char *cache;
} Args;

/* A bad command line: one line saying what is wrong, exit status 2. */
static bool badUsage(const char *fmt, const char *a) {
  fputs("thunky-container: ", stderr);
  fprintf(stderr, fmt, a);
  fputs(" (--help shows the usage)\n", stderr);
  return false;
}

static bool parseArgs(int argc, char **argv, Args *a) {
  a->command = argv[1];
  if (strcmp(a->command, "info") && strcmp(a->command, "records") &&
      strcmp(a->command, "unpack") && strcmp(a->command, "pack") && strcmp(a->command, "hlo"))
    return badUsage("unknown command '%s' (info, ls, records, unpack, pack or hlo)", a->command);
  for (int i = 2; i < argc; i++) {
    const char **slot = !strcmp(argv[i], "-o")              ? &a->output
                        : !strcmp(argv[i], "--options")     ? &a->options
                        : !strcmp(argv[i], "--metadata")    ? &a->metadata
                        : !strcmp(argv[i], "--as")          ? &a->as
                        : !strcmp(argv[i], "--compression") ? &a->compression
                        : !strcmp(argv[i], "--launch")      ? &a->launch
                        : !strcmp(argv[i], "--cache")       ? &a->cache
                                                            : NULL;
    if (slot && i + 1 >= argc)
      return badUsage("%s needs a value", argv[i]);
    /* info and records read one file; unpack writes, pack also builds;
     * hlo may pick a launch. */
    bool applies = slot && ((!strcmp(a->command, "pack") && slot != &a->launch) ||
                            (!strcmp(a->command, "unpack") && slot != &a->as &&
                             slot != &a->compression && slot != &a->launch &&
                             slot != &a->cache) ||
                            (!strcmp(a->command, "hlo") && slot == &a->launch));
    if (slot && !applies) {
      fprintf(stderr, "thunky-container: %s does not apply to %s (--help shows the usage)\n",
              argv[i], a->command);
      return false;
    }
    if (slot)
      *slot = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1])
      return badUsage("unknown option '%s'", argv[i]);
    else if (a->input)
      return badUsage("one FILE only; '%s' is a second", argv[i]);
    else
      a->input = argv[i];
  }
  return a->input || badUsage("%s needs a FILE", a->command);
}

static int info(const Args *a, ThunkyBytes in) {
  ThunkyContainer c;
  ThunkyError error;
  char line[1024];
  if (!thunkyInputExpectExecutable(in.data, in.size, a->input, &error) ||
      !thunkyContainerCreate(in.data, in.size, NULL, &c, &error))
    return fail("%s: %s", a->input, error.message);
  thunkyContainerDescribe(&c, line, sizeof line);
  printf("%s\n", line);
  thunkyContainerDestroy(&c);
  return 0;
}

static int records(const Args *a, ThunkyBytes in) {
  ThunkyRecordFile file;
  ThunkyError error;
  if (!thunkyRiegeliRead(in.data, in.size, THUNKY_DEFAULT_MAX_DECODED_BYTES, &file, &error))
    return fail("%s: %s", a->input, error.message);
  for (size_t i = 0; i < file.count; i++)
    printf("record %zu: %zu bytes\n", i, file.records[i].size);
  thunkyRecordFileDestroy(&file);
  return 0;
}

static int unpack(const Args *a, ThunkyBytes in) {
  ThunkyContainer c;
  ThunkyError error;
  if (!a->output)
    return badUsage("%s needs -o EXE", "unpack"), 2;
  if (!thunkyInputExpectExecutable(in.data, in.size, a->input, &error) ||
      !thunkyContainerCreate(in.data, in.size, NULL, &c, &error))
    return fail("%s: %s", a->input, error.message);
  bool ok = writeFile(a->output, c.executable) &&
            (!a->options || writeFile(a->options, c.options)) &&
            (!a->metadata || writeFile(a->metadata, c.metadata));
  thunkyContainerDestroy(&c);
  return ok ? 0 : 2;
}

static int pack(const Args *a, ThunkyBytes in) {
  ThunkyContainer c = {.executable = in};
  ThunkyBuffer options = {0}, metadata = {0}, out = {0};
  ThunkyError error;
  ThunkyCompression compression = THUNKY_COMPRESSION_SNAPPY;
  if (!a->as)
    return badUsage("%s needs --as LAYERING", "pack"), 2;
  if (!thunkyLayeringParse(a->as, strlen(a->as), &c.layering))
    return badUsage("--as '%s' names no layering (executable, split, options, split-options, "
                    "ifrt+options or ifrt+split-options)", a->as), 2;
  if (!a->output)
    return badUsage("%s needs -o FILE", "pack"), 2;
  if (a->compression && !strcmp(a->compression, "none"))
    compression = THUNKY_COMPRESSION_NONE;
  else if (a->compression && strcmp(a->compression, "snappy"))
    return badUsage("--compression '%s': none or snappy", a->compression), 2;
  if (a->cache && strcmp(a->cache, "zlib") && strcmp(a->cache, "zstd"))
    return badUsage("--cache '%s': zlib or zstd", a->cache), 2;
  c.cache = !a->cache                  ? THUNKY_CACHE_NONE
            : !strcmp(a->cache, "zlib") ? THUNKY_CACHE_ZLIB
                                        : THUNKY_CACHE_ZSTD;
  if (thunkyLayeringHasEnvelope(c.layering) && !a->metadata)
    return badUsage("--as %s needs --metadata (an xla.ifrt.SerializedXlaExecutableMetadata)",
                    a->as), 2;
  /* A packed file is no executable to pack: say so, not that it is
   * malformed as one. */
  ThunkyContainer found;
  if (thunkyContainerCreate(in.data, in.size, NULL, &found, &error)) {
    ThunkyLayering layering = found.layering;
    thunkyContainerDestroy(&found);
    if (layering != THUNKY_LAYERING_EXECUTABLE) {
      fprintf(stderr, "thunky-container: %s: already packed (%s): pack takes a bare "
                      "GpuExecutableProto, which `thunky-container unpack %s -o EXE` takes out\n",
              a->input, thunkyLayeringName(layering), a->input);
      return 2;
    }
  }
  bool ok = (!a->options || readFile(a->options, &options)) &&
            (!a->metadata || readFile(a->metadata, &metadata));
  c.options = (ThunkyBytes){options.data, options.size};
  c.metadata = (ThunkyBytes){metadata.data, metadata.size};
  if (ok && !thunkyContainerWrite(&c, compression, &out, &error))
    ok = fail("%s: %s", a->input, error.message) == 0;
  ok = ok && writeFile(a->output, (ThunkyBytes){out.data, out.size});
  thunkyBufferDestroy(&options), thunkyBufferDestroy(&metadata), thunkyBufferDestroy(&out);
  return ok ? 0 : 2;
}

static int hlo(const Args *a, ThunkyBytes in) {
  ThunkyExecutable *exe;
  ThunkyError error;
  if (!thunkyInputExpectExecutable(in.data, in.size, a->input, &error) ||
      !thunkyExecutableCreate(in.data, in.size, NULL, &exe, &error))
    return fail("%s: %s", a->input, error.message);
  const Xla__HloModuleProtoWithConfig *kept = exe->proto->hlo_module_with_config;
  bool ok = false;
  if (!kept || !kept->hlo_module)
    fail("%s: %s", a->input, "the executable holds no HLO module (hlo_module_with_config is empty)");
  else if (a->launch ? !thunkyHloTextPrintLaunch(stdout, kept->hlo_module, a->launch, &error)
                     : !thunkyHloTextPrintModule(stdout, kept->hlo_module, kept->config, &error))
    fail("%s: %s", a->input, error.message);
  else
    ok = true;
  thunkyExecutableDestroy(exe);
  return ok ? 0 : 2;
}

int main(int argc, char **argv) {
  Args a = {0};
  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage, stdout);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    puts("thunky-container " THUNKY_VERSION);
    return 0;
  }
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  if (argc >= 2 && !strcmp(argv[1], "ls"))
    return argc == 3
               ? containerList(argv[2])
               : (fputs("thunky-container: ls takes one DIR (--help shows the usage)\n", stderr),
                  2);
  if (!parseArgs(argc, argv, &a))
    return 2;
  int (*run)(const Args *, ThunkyBytes) = !strcmp(a.command, "info")      ? info
                                          : !strcmp(a.command, "records") ? records
                                          : !strcmp(a.command, "unpack")  ? unpack
                                          : !strcmp(a.command, "hlo")     ? hlo
                                                                          : pack;
  ThunkyFileBytes in;
  ThunkyError error;
  if (!thunkyFileBytesCreate(&in, a.input, &error))
    return fail("%s", error.message, "");
  int status = run(&a, (ThunkyBytes){in.data, in.size});
  thunkyFileBytesDestroy(&in);
  return status;
}
