# lit configuration for a thunky pass plugin's tests: copy this folder into
# your project and run
#
#   /usr/lib/llvm-22/bin/lit -v test --param thunky_prefix=PREFIX \
#       --param plugin=path/to/libMyPass.so
#
# thunky_prefix is where thunky is installed (cmake --install's --prefix;
# else $THUNKY_PREFIX, else found from pkg-config's thunky.pc). Tests are
# the .mlir files here; substitutions, each an absolute path:
#   %thunky_opt        thunky-opt with your plugin loaded (its passes are flags)
#   %thunky_translate  thunky-translate (--import-thunky, --export-thunky)
#   %thunky_run        thunky-run (--compare to prove a rewrite kept the meaning)
#   %mlir_opt          stock mlir-opt-22 with thunky's and your plugin loaded
#   %plugin            your plugin's library
# FileCheck and not come from LLVM 22's tools folder.
import os
import shutil
import subprocess

import lit.formats

config.name = "thunky-pass-plugin"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)


def fail(message):
    lit_config.fatal(message)


def prefix():
    given = lit_config.params.get("thunky_prefix") or os.environ.get("THUNKY_PREFIX")
    if given:
        return os.path.abspath(given)
    if shutil.which("pkg-config"):
        out = subprocess.run(["pkg-config", "--variable=prefix", "thunky"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    fail("where is thunky installed? --param thunky_prefix=PREFIX, or set THUNKY_PREFIX")


root = prefix()
tools = {name: os.path.join(root, "bin", name)
         for name in ("thunky-opt", "thunky-translate", "thunky-run")}
thunky_plugin = os.path.join(root, "lib", "libThunkyPlugin.so")
for path in list(tools.values()) + [thunky_plugin]:
    if not os.path.exists(path):
        fail(f"{path} is missing: is {root} a thunky prefix (cmake --install)?")

plugin = lit_config.params.get("plugin")
if not plugin:
    fail("which plugin? --param plugin=path/to/libMyPass.so")
plugin = os.path.abspath(plugin)
if not os.path.exists(plugin):
    fail(f"{plugin}: no such plugin (build it first)")

llvm_tools = "/usr/lib/llvm-22/bin"
config.environment["PATH"] = os.pathsep.join([llvm_tools, os.environ.get("PATH", "")])
# A plugin that fails to load is only a warning in mlir-opt: paths are
# absolute, and thunky-opt stops on one.
config.substitutions += [
    ("%thunky_opt", f"{tools['thunky-opt']} --load-pass-plugin={plugin}"),
    ("%thunky_translate", tools["thunky-translate"]),
    ("%thunky_run", tools["thunky-run"]),
    ("%mlir_opt", f"{llvm_tools}/mlir-opt --load-dialect-plugin={thunky_plugin} "
                  f"--load-pass-plugin={thunky_plugin} --load-pass-plugin={plugin}"),
    ("%plugin", plugin),
]
