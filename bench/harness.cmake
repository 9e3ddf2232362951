# bench/run's two helpers, built into build/bin with the tools. Include from
# bench/CMakeLists.txt: include(${CMAKE_CURRENT_SOURCE_DIR}/harness.cmake)
# (needs the ThunkyFormat and ThunkyRuntime targets, built with or without MLIR).

# bench-unpack: the floor under import, protobuf-c unpacking the input alone
# (ThunkyFormat finds the executable in a container, untimed).
add_executable(bench-unpack ${CMAKE_CURRENT_LIST_DIR}/unpack.c)
target_link_libraries(bench-unpack PRIVATE ThunkyFormat ThunkyRuntime) # ThunkyRuntime: the clock
set_target_properties(bench-unpack PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin
  LINKER_LANGUAGE CXX)

# bench-dispatch: host-backend cost per kernel command against a bare loop.
# The bare loop calls the same empty kernel through a volatile function
# pointer, so that it cannot be inlined or dropped.
add_executable(bench-dispatch ${CMAKE_CURRENT_LIST_DIR}/dispatch.c)
target_link_libraries(bench-dispatch PRIVATE ThunkyRuntime)
set_target_properties(bench-dispatch PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin
  LINKER_LANGUAGE CXX)
