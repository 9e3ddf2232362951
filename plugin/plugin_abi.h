/*===- plugin_abi.h - mlir-opt's plugin entry points, seen from C -------===*
 *
 * mlir-opt finds a plugin through two extern "C" functions returning these
 * plain structs (mlir/Tools/Plugins/{Dialect,Pass}Plugin.h). abi_check.cpp
 * proves at build time that they match MLIR's own declarations.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PLUGIN_ABI_H
#define THUNKY_PLUGIN_ABI_H

#include <stdint.h>

#define THUNKY_MLIR_PLUGIN_API_VERSION 1

typedef struct ThunkyDialectPluginInfo {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  void (*registerDialectRegistryCallbacks)(void *registry);
} ThunkyDialectPluginInfo;

typedef struct ThunkyPassPluginInfo {
  uint32_t apiVersion;
  const char *pluginName;
  const char *pluginVersion;
  void (*registerPassRegistryCallbacks)(void);
} ThunkyPassPluginInfo;

#endif /* THUNKY_PLUGIN_ABI_H */
