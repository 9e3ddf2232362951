/* thunky-c/Executable.h moved to thunky-c/format/Executable.h, the folder of the format library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/format/Executable.h"
