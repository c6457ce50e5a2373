# lit configuration for tilec's text tests.
#
# A test is a .tile (source) or .ir (IR text) file whose `// RUN:` lines
# run %tilec and FileCheck.  The build directory comes from the lit param
# build_dir (ctest passes it), else <root>/build.  Substitutions:
#   %tilec            the CLI of that build
#   FileCheck, not    LLVM 19's tools (not falls back to util/not.py)
#   %expect-exit N    runs the rest of the line, which must exit with N
#   %ptxas            CUDA's ptxas; with it the feature `ptxas`, so a test
#                     saying `REQUIRES: ptxas` is UNSUPPORTED without CUDA
#   %examples         the dsl_examples/ directory
#   %python           the Python running lit; %scripts the scripts/ directory
import os
import shutil
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".tile", ".ir"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(config.test_source_root)
util_dir = os.path.join(config.test_source_root, "util")
build_dir = os.path.abspath(lit_config.params.get("build_dir", os.path.join(root, "build")))
# Output/ goes under the build directory, so build/ and build-asan/ can run
# the suite at once without sharing temporary files.
config.test_exec_root = os.path.join(build_dir, "lit")
config.excludes = ["unit", "interp", "runtime", "gpu", "util", "Output", "lit.cfg.py"]

tilec = os.path.join(build_dir, "tilec")
if not os.path.exists(tilec):
    lit_config.fatal("tilec not found at %s (build first, or pass --param build_dir=DIR)" % tilec)


def find_tool(names):
    for n in names:
        p = os.path.join("/usr/lib/llvm-19/bin", n)
        if os.path.exists(p):
            return p
        p = shutil.which(n)
        if p:
            return p
    return None


filecheck = find_tool(["FileCheck", "FileCheck-19"])
if not filecheck:
    lit_config.fatal("FileCheck not found (install llvm-19-tools)")
not_tool = find_tool(["not"]) or "%s %s" % (sys.executable, os.path.join(util_dir, "not.py"))
expect_exit = "%s %s" % (sys.executable, os.path.join(util_dir, "expect-exit.py"))

config.substitutions.append(("%expect-exit", expect_exit))
config.substitutions.append(("%tilec", tilec))
config.substitutions.append(("%examples", os.path.join(root, "dsl_examples")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%scripts", os.path.join(root, "scripts")))
# Word-bounded and only in command position, so file names are left alone.
config.substitutions.append((r"\bFileCheck\b", filecheck))
config.substitutions.append((r"(^|\|\s*|;\s*|&&\s*|\|\|\s*)not\b", r"\g<1>" + not_tool))

ptxas = shutil.which("ptxas")
if not ptxas and os.path.exists("/usr/local/cuda/bin/ptxas"):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.warning("ptxas not found: tests with REQUIRES: ptxas will be UNSUPPORTED")

# Sanitizer settings reach the tilec processes the tests start.
# TILEC_VERIFY_EACH=1 (set by ctest) runs the IR verifier after every pass.
for var in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "CUDA_VISIBLE_DEVICES", "TILEC_VERIFY_EACH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
