# lit configuration for thunky. Run through ctest, or directly:
#   /usr/lib/llvm-22/bin/lit -sv build/test
import os
import sys

import lit.formats

config.name = "thunky"
config.test_format = lit.formats.ShTest(execute_external=False)

config.suffixes = [".mlir", ".test", ".c"]
# test/CudaSim is the simulated CUDA driver's source, not tests.
config.excludes = ["lit.site.cfg.py.in", "CMakeLists.txt", "Inputs", "CudaSim"]
config.test_source_root = os.path.join(config.thunky_src_root, "test")
config.test_exec_root = os.path.join(config.thunky_obj_root, "test")

# Our tools first, then LLVM's (FileCheck, not, mlir-opt), then the Python
# that runs lit: the tests' scripts call python3 often, and a
# version manager's shim (pyenv's) found first costs half a second a call.
config.environment["PATH"] = os.pathsep.join(
    [os.path.join(config.thunky_obj_root, "bin"), config.llvm_tools_dir,
     os.path.dirname(sys.executable),
     config.environment.get("PATH", os.environ.get("PATH", ""))])
config.python_executable = sys.executable

plugin = os.path.join(config.thunky_obj_root, "lib", "libThunkyPlugin.so")
# A plugin path without a slash goes through dlopen's search path, and a
# failed load is only a warning in mlir-opt: always pass an absolute path.
config.substitutions.append(("%thunky_plugin", plugin))
# In a sanitizer build the plugin needs ASan's runtime, which stock mlir-opt
# (not instrumented, and leaking on exit as LLVM tools do) does not load.
mlir_opt = "mlir-opt"
MLIR_OPT_ASAN = "ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0"
if config.asan_runtime:
    # allow_user_poisoning=0 as in scripts/test.sh: the plugin's inline
    # allocator code poisons slabs that libMLIR then uses.
    mlir_opt = "env LD_PRELOAD=%s %s mlir-opt" % (config.asan_runtime, MLIR_OPT_ASAN)
    # The few tests that repeat the same code over whole corpora
    # (`UNSUPPORTED: asan`) run in the plain build only; each path they
    # take runs under ASan in a smaller test that names them.
    config.available_features.add("asan")
config.substitutions.append(
    ("%mlir_opt_plugins",
     "%s --load-dialect-plugin=%s --load-pass-plugin=%s" % (mlir_opt, plugin, plugin)))
config.substitutions.append(("%mlir_opt", mlir_opt))
config.substitutions.append(
    ("%example_pass", os.path.join(config.thunky_obj_root, "lib", "libExamplePass.so")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(
    ("%example_kernels",
     os.path.join(config.thunky_obj_root, "lib", "libThunkyExampleKernels.so")))
config.substitutions.append(
    ("%test_kernels", os.path.join(config.thunky_obj_root, "lib", "libThunkyTestKernels.so")))
config.substitutions.append(
    ("%fail_each_allocation", "%s %s --shim %s" % (
        config.python_executable,
        os.path.join(config.thunky_src_root, "test", "Runtime", "Inputs", "fail_each_allocation.py"),
        os.path.join(config.thunky_obj_root, "lib", "libThunkyFailAlloc.so"))))
config.substitutions.append(
    ("%mlp_step_kernels",
     os.path.join(config.thunky_obj_root, "lib", "libThunkyMlpStepKernels.so")))
config.substitutions.append(("%thunky_src", config.thunky_src_root))
config.substitutions.append(
    ("%llvm_include", os.path.join(os.path.dirname(config.llvm_tools_dir), "include")))
config.substitutions.append(("%thunky_bin", os.path.join(config.thunky_obj_root, "bin")))
config.substitutions.append(("%shared", config.thunky_shared_dir))
config.substitutions.append(("%scripts", os.path.join(config.thunky_src_root, "scripts")))

# Translation tests: protoc with the project's schema, and the round trip.
for name, message in [("exe", "xla.gpu.GpuExecutableProto"),
                      ("aot", "xla.HumanReadableAotExecutable"),
                      ("options", "xla.ExecutableAndOptionsProto"),
                      ("ifrt_metadata", "xla.ifrt.SerializedXlaExecutableMetadata")]:
    for verb in ("encode", "decode", "roundtrip"):
        config.substitutions.append(
            ("%%%s_%s" % (verb, name),
             "bash %s/scripts/%s.sh %s" % (config.thunky_src_root, verb, message)))
config.suffixes.append(".textproto")

if config.cuda_backend:
    config.available_features.add("cuda-backend")
    # The simulated CUDA driver (test/CudaSim) in place of a GPU's, with the
    # host kernels that stand in for device code; it fails a process that
    # leaks what it made. THUNKY_CUPTI_PATH names where CUPTI is, whatever
    # the loader's cache holds: under %cuda_sim a folder without it, so a
    # timeline's device times come from the gate (and NVIDIA's CUPTI never
    # meets the simulated driver); under %cupti_sim the simulated CUPTI's.
    sim = os.path.join(config.thunky_obj_root, "lib", "cuda-sim")
    sim_env = "env LD_LIBRARY_PATH=%s THUNKY_CUDA_SIM_CHECK_LEAKS=1 THUNKY_CUDA_SIM_LIBRARIES=%s:%s" % (
        sim, os.path.join(config.thunky_obj_root, "lib", "libThunkyTestKernels.so"),
        os.path.join(config.thunky_obj_root, "lib", "libThunkyExampleKernels.so"))
    config.substitutions.append(("%cuda_sim", sim_env + " THUNKY_CUPTI_PATH=" + sim))
    config.substitutions.append(
        ("%cupti_sim", sim_env + " THUNKY_CUPTI_PATH=" +
         os.path.join(config.thunky_obj_root, "lib", "cupti-sim", "libcupti.so.13")))

# The Python package's tests (test/Python) need numpy, and pip's into a
# venv (Debian's python3-numpy, python3-venv, python3-pip).
import importlib.util
if importlib.util.find_spec("numpy"):
    config.available_features.add("python-numpy")
if importlib.util.find_spec("venv") and importlib.util.find_spec("ensurepip") and \
        importlib.util.find_spec("pip"):
    config.available_features.add("python-venv")

if os.path.isdir(os.path.join(config.thunky_shared_dir, "reference")):
    config.available_features.add("shared")
else:
    lit_config.note("%s not found: tests that read the team's shared facts "
                    "(REQUIRES: shared) are reported UNSUPPORTED"
                    % config.thunky_shared_dir)

if config.asan_runtime:
    # lit's workers unpickle the format by its module's name.
    sys.path.insert(0, config.test_source_root)
    import sanitized_format
    config.test_format = sanitized_format.SanitizedShTest(
        {var: config.environment.get(var, "") for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS")},
        MLIR_OPT_ASAN)
