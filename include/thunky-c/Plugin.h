/* thunky-c/Plugin.h moved to thunky-c/plugin/Plugin.h, the folder of the plugin library.
 * This header forwards there so that code written against thunky 0.2
 * still builds; it goes in the release after 0.3. */
#include "thunky-c/plugin/Plugin.h"
