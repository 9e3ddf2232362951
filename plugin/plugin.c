/*===- plugin.c - the entry points stock mlir-opt looks for -------------===*
 *
 * One library serves as both a dialect plugin and a pass plugin:
 *   mlir-opt --load-dialect-plugin=libThunkyPlugin.so \
 *            --load-pass-plugin=libThunkyPlugin.so -p 'builtin.module(...)'
 *
 *===--------------------------------------------------------------------===*/
#include "plugin_abi.h"

#include "thunky-c/Dialect.h"
#include "thunky-c/Passes.h"
#include "thunky-c/Version.h"

#define THUNKY_PLUGIN_EXPORT __attribute__((visibility("default")))

static void registerDialects(void *registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(),
                                 (MlirDialectRegistry){registry});
}

THUNKY_PLUGIN_EXPORT ThunkyDialectPluginInfo mlirGetDialectPluginInfo(void) {
  return (ThunkyDialectPluginInfo){THUNKY_MLIR_PLUGIN_API_VERSION, "thunky",
                                   THUNKY_VERSION, registerDialects};
}

THUNKY_PLUGIN_EXPORT ThunkyPassPluginInfo mlirGetPassPluginInfo(void) {
  return (ThunkyPassPluginInfo){THUNKY_MLIR_PLUGIN_API_VERSION, "thunky",
                                THUNKY_VERSION, thunkyRegisterPasses};
}
