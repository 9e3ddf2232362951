/* thunky-c/CommandBuffers.h moved to thunky-c/runtime/CommandBuffers.h, the folder of the runtime library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/runtime/CommandBuffers.h"
