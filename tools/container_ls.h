/*===- container_ls.h - thunky-container ls -----------------------------===*/
#ifndef THUNKY_TOOLS_CONTAINER_LS_H
#define THUNKY_TOOLS_CONTAINER_LS_H

/* Lists the executables in folder `dir` (an XLA dump, a JAX compilation
 * cache): each with its thunks, bytes, layering and module, one a line,
 * in name order; a file that is none is left out, one that should be and
 * does not read is reported on stderr. 0, or 1 when any did not read. */
int containerList(const char *dir);

#endif /* THUNKY_TOOLS_CONTAINER_LS_H */
