/* thunky-c/Runtime.h moved to thunky-c/runtime/Runtime.h, the folder of the runtime library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/runtime/Runtime.h"
