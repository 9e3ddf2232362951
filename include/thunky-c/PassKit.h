/* thunky-c/PassKit.h moved to thunky-c/passes/PassKit.h, the folder of the passes library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/passes/PassKit.h"
