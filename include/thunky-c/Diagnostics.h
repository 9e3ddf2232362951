/* thunky-c/Diagnostics.h moved to thunky-c/dialect/Diagnostics.h, the folder of the dialect library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/dialect/Diagnostics.h"
