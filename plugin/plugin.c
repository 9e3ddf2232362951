/*===- plugin.c - the entry points stock mlir-opt looks for -------------===*
 *
 * One library serves as both a dialect plugin and a pass plugin:
 *   mlir-opt --load-dialect-plugin=libThunkyPlugin.so \
 *            --load-pass-plugin=libThunkyPlugin.so -p 'builtin.module(...)'
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/passes/Passes.h"
#include "thunky-c/plugin/Plugin.h"
#include "thunky-c/Version.h"

static void registerDialects(void *registry) {
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__thunky__(),
                                 (MlirDialectRegistry){registry});
}

THUNKY_DEFINE_DIALECT_PLUGIN("thunky", THUNKY_VERSION, registerDialects)
THUNKY_DEFINE_PASS_PLUGIN("thunky", THUNKY_VERSION, thunkyRegisterPasses)
