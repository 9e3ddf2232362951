/* thunky-c/Ops.h moved to thunky-c/dialect/Ops.h, the folder of the dialect library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/dialect/Ops.h"
