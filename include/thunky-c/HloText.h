/* thunky-c/HloText.h moved to thunky-c/format/HloText.h, the folder of the format library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/format/HloText.h"
