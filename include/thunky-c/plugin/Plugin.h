/*===- thunky-c/plugin/Plugin.h - mlir-opt's plugin entry points, from C -------===*
 *
 * mlir-opt (and thunky-opt) find a plugin through two extern "C" functions
 * that return plain structs (mlir/Tools/Plugins/{Dialect,Pass}Plugin.h).
 * These are the same structs in C; thunky's build checks at compile time
 * that they match MLIR's (plugin/abi_check.cpp). A pass plugin written in C
 * defines its entry point with one macro:
 *
 *   static void registerPasses(void) { thunkyRegisterPass(createMyPass); }
 *   THUNKY_DEFINE_PASS_PLUGIN("my-passes", "1.0", registerPasses)
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_PLUGIN_H
#define THUNKY_C_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
#define THUNKY_PLUGIN_EXTERN_C extern "C"
#else
#define THUNKY_PLUGIN_EXTERN_C
#endif

/* The plugin API version of MLIR 22 (MLIR_PLUGIN_API_VERSION). */
#define THUNKY_MLIR_PLUGIN_API_VERSION 1

/* What --load-dialect-plugin gets: registerDialectRegistryCallbacks is given
 * an MlirDialectRegistry's pointer (wrap it: (MlirDialectRegistry){registry}). */
typedef struct ThunkyDialectPluginInfo {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  void (*registerDialectRegistryCallbacks)(void *registry);
} ThunkyDialectPluginInfo;

/* What --load-pass-plugin gets: registerPassRegistryCallbacks registers the
 * plugin's passes (thunkyRegisterPass, thunky-c/passes/Passes.h). */
typedef struct ThunkyPassPluginInfo {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  void (*registerPassRegistryCallbacks)(void);
} ThunkyPassPluginInfo;

#define THUNKY_PLUGIN_EXPORT THUNKY_PLUGIN_EXTERN_C __attribute__((visibility("default")))

/* Defines mlirGetPassPluginInfo, the function --load-pass-plugin looks up,
 * for a plugin named `name` (a string) at `version` (a string) whose passes
 * `registerPasses` (a void(void) function) registers. Use once per library. */
#define THUNKY_DEFINE_PASS_PLUGIN(name, version, registerPasses)                \
  THUNKY_PLUGIN_EXPORT ThunkyPassPluginInfo mlirGetPassPluginInfo(void) {      \
    ThunkyPassPluginInfo info = {THUNKY_MLIR_PLUGIN_API_VERSION, name, version, \
                                 registerPasses};                              \
    return info;                                                               \
  }

/* Defines mlirGetDialectPluginInfo, which --load-dialect-plugin looks up;
 * `registerDialects` is a void(void *registry) function. */
#define THUNKY_DEFINE_DIALECT_PLUGIN(name, version, registerDialects)             \
  THUNKY_PLUGIN_EXPORT ThunkyDialectPluginInfo mlirGetDialectPluginInfo(void) {  \
    ThunkyDialectPluginInfo info = {THUNKY_MLIR_PLUGIN_API_VERSION, name, version, \
                                    registerDialects};                           \
    return info;                                                                 \
  }

#endif /* THUNKY_C_PLUGIN_H */
