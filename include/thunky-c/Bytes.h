/* thunky-c/Bytes.h moved to thunky-c/base/Bytes.h, the folder of the base library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/base/Bytes.h"
