/*===- stages.h - the rewrite passes thunky-optimize runs as stages -----===*/
#ifndef THUNKY_PASSES_STAGES_H
#define THUNKY_PASSES_STAGES_H

#include "thunky-c/passes/PassKit.h"

extern const ThunkyPassInfo thunkyFlattenSequentialInfo;
extern const ThunkyPassInfo thunkyFoldSlicesInfo;
extern const ThunkyPassInfo thunkyElideCopiesInfo;
extern const ThunkyPassInfo thunkyPackScratchInfo;

#endif /* THUNKY_PASSES_STAGES_H */
