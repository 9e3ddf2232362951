//===- abi_check.cpp - plugin structs match MLIR's -------------*- C++ -*-===//
//
// thunky-c/plugin/Plugin.h declares mlir-opt's plugin structs in C; if MLIR changes them,
// the build stops here rather than mlir-opt crashing at load time.
//
//===----------------------------------------------------------------------===//

#include "thunky-c/plugin/Plugin.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <cstddef>

static_assert(THUNKY_MLIR_PLUGIN_API_VERSION == MLIR_PLUGIN_API_VERSION,
              "mlir-opt's plugin API version changed");
static_assert(sizeof(ThunkyDialectPluginInfo) ==
              sizeof(mlir::DialectPluginLibraryInfo));
static_assert(offsetof(ThunkyDialectPluginInfo, registerDialectRegistryCallbacks) ==
              offsetof(mlir::DialectPluginLibraryInfo,
                       registerDialectRegistryCallbacks));
static_assert(sizeof(ThunkyPassPluginInfo) ==
              sizeof(mlir::PassPluginLibraryInfo));
static_assert(offsetof(ThunkyPassPluginInfo, registerPassRegistryCallbacks) ==
              offsetof(mlir::PassPluginLibraryInfo,
                       registerPassRegistryCallbacks));
