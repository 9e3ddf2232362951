/*===- jax_pickle.h - the pickle jax.experimental.serialize_executable writes -===*
 *
 * serialize(compiled) pickles the executable's Python objects with the
 * executable's own bytes (client.serialize_executable: thunky's container
 * layers) as the persistent id ('exec', bytes). The pickle is read as a
 * stream of opcodes, never run: the one ('exec', bytes) is found, and the
 * rest is kept to be written again around other bytes. Private to the
 * container.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_FORMAT_JAX_PICKLE_H
#define THUNKY_FORMAT_JAX_PICKLE_H

#include "thunky-c/base/Bytes.h"

/* Whether `in` starts as a pickle of protocol 2 or later does. */
bool thunkyJaxPickleLooksLike(ThunkyBytes in);

/* The executable's bytes in the pickle `in` (*payload, pointing into it),
 * and the pickle less the opcode that held them (*rest, appended to it)
 * with where they were (*at) and the frame that held them (*frame: where
 * its FRAME opcode is in *rest, its length less theirs; -1 for none).
 * False, saying why and at which byte, for anything but a pickle of one
 * ('exec', bytes). */
bool thunkyJaxPickleRead(ThunkyBytes in, ThunkyBytes *payload, ThunkyBuffer *rest, size_t *at,
                         int64_t *frame, ThunkyError *error);

/* Appends `rest` with `payload` put back at `at`, the frame at `frame`
 * (thunkyJaxPickleRead's) grown to hold it. */
bool thunkyJaxPickleWrite(ThunkyBytes rest, size_t at, int64_t frame, ThunkyBytes payload,
                          ThunkyBuffer *out, ThunkyError *error);

#endif /* THUNKY_FORMAT_JAX_PICKLE_H */
