/* thunky-c/Translate.h moved to thunky-c/translate/Translate.h, the folder of the translate library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/translate/Translate.h"
