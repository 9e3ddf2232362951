# What `cmake --install build --prefix P` puts under P, in GNU's layout:
#   bin/          the tools, and bench-gen (synthetic executables of any size)
#   lib/          libThunkyPlugin.so (dialect, C API, passes, translations),
#                 thunky/libThunkyExampleKernels.so (the README's host kernel),
#                 libThunkyRuntime and libThunkyFormat (no MLIR; .so and .a)
#   lib/cmake/Thunky/  ThunkyConfig.cmake: find_package(Thunky) and the
#                 imported targets Thunky::Plugin, Thunky::Runtime(Static),
#                 Thunky::Format(Static)
#   lib/pkgconfig/ thunky.pc (the C API with MLIR), thunky-runtime.pc
#   include/thunky-c/  the public headers; include/thunky/xla/ the schema's
#                 generated headers they include
#   share/doc/thunky/  the docs, the example pass and tool as their own projects,
#                 and JAX's 8-GPU FSDP step (examples/jax/)
#   share/thunky/scripts/ check_equivalence.sh (bin/thunky-check-equivalence)
#                 and encode.sh, with the schema in share/thunky/format/proto
#   share/thunky/python/  the Python package: `pip install` it, with any
#                 Python 3.9+, offline; the wheel records this prefix's lib/
# Everything is relocatable: the config and .pc files find the prefix from
# where they are, and the installed binaries find lib/ through $ORIGIN.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(THUNKY_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Thunky)
set(CMAKE_INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
if(THUNKY_ENABLE_MLIR)
  list(APPEND CMAKE_INSTALL_RPATH ${LLVM_LIBRARY_DIR})
endif()
# Targets were made before this file set the rpath: give it to each.
macro(thunky_install_binaries)
  set_target_properties(${ARGN} PROPERTIES INSTALL_RPATH "${CMAKE_INSTALL_RPATH}")
  install(TARGETS ${ARGN}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endmacro()

thunky_install_binaries(thunky-run thunky-container ThunkyFormat ThunkyRuntime)
# bench-gen links thunky statically: it has no rpath to change.
install(TARGETS bench-gen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET ThunkyRuntimeShared)
  thunky_install_binaries(ThunkyFormatShared ThunkyRuntimeShared)
endif()
if(THUNKY_ENABLE_MLIR)
  thunky_install_binaries(thunky-opt thunky-translate ThunkyPlugin)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/thunky-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${THUNKY_PROTO_INCLUDE_DIR}/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/thunky FILES_MATCHING PATTERN "*.h")

# The proof script, and what it encodes textprotos with (protoc and the
# schema; encode.sh finds format/proto beside scripts/).
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/check_equivalence.sh
  ${PROJECT_SOURCE_DIR}/scripts/encode.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/thunky/scripts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/format/proto/ DESTINATION
  ${CMAKE_INSTALL_DATADIR}/thunky/format/proto FILES_MATCHING PATTERN "*.proto")
file(RELATIVE_PATH THUNKY_BIN_TO_DATADIR /prefix/${CMAKE_INSTALL_BINDIR}
  /prefix/${CMAKE_INSTALL_DATADIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/thunky-check-equivalence.in
  ${PROJECT_BINARY_DIR}/cmake/thunky-check-equivalence @ONLY)
install(PROGRAMS ${PROJECT_BINARY_DIR}/cmake/thunky-check-equivalence
  DESTINATION ${CMAKE_INSTALL_BINDIR})

# The Python package's source, and the way from it to the libraries
# (python/build_backend/thunky_build.py reads it when it builds the wheel).
set(THUNKY_PYTHON_DIR ${CMAKE_INSTALL_DATADIR}/thunky/python)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION ${THUNKY_PYTHON_DIR}
  PATTERN __pycache__ EXCLUDE PATTERN _installed.py EXCLUDE)
file(RELATIVE_PATH THUNKY_PYTHON_TO_LIBDIR /prefix/${THUNKY_PYTHON_DIR}
  /prefix/${CMAKE_INSTALL_LIBDIR})
file(WRITE ${PROJECT_BINARY_DIR}/cmake/libdir.txt "${THUNKY_PYTHON_TO_LIBDIR}\n")
install(FILES ${PROJECT_BINARY_DIR}/cmake/libdir.txt DESTINATION ${THUNKY_PYTHON_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/pass-plugin ${PROJECT_SOURCE_DIR}/examples/c-tool
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
# The README's tour: its module, its executable and the host kernel that
# runs the executable's fusion.
install(FILES ${PROJECT_SOURCE_DIR}/examples/train_step.mlir
  ${PROJECT_SOURCE_DIR}/examples/executable.textproto DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(TARGETS ThunkyExampleKernels LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/thunky)
# A real executable to try everything on: JAX 0.11.2's 8-GPU FSDP training
# step, as XLA's AOT compiler wrote it (97 KB).
install(FILES
  ${PROJECT_SOURCE_DIR}/test/Translate/jax-fixtures/0.11.2/containers/aot/train-step-fsdp.exe
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/jax)

# find_package(Thunky): where MLIR was found at build time is only a hint.
set(THUNKY_MLIR_DIR "${MLIR_DIR}")
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ThunkyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/ThunkyConfig.cmake
  INSTALL_DESTINATION ${THUNKY_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: a minor release may break the C API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/ThunkyConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/ThunkyConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/ThunkyConfigVersion.cmake DESTINATION ${THUNKY_CMAKE_DIR})

set(THUNKY_PC_MLIR_INCLUDE_DIR "${MLIR_INCLUDE_DIRS}")
foreach(pc thunky thunky-runtime)
  if(pc STREQUAL thunky AND NOT THUNKY_ENABLE_MLIR)
    continue()
  endif()
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${PROJECT_BINARY_DIR}/cmake/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${pc}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
