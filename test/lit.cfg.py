# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lib", "Inputs", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amp_obj_root, "test")

config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%amp_libs", config.amp_libs_dir))
config.substitutions.append(("%amp_src", config.amp_src_root))
config.substitutions.append(("%amp_tools", config.amp_tools_dir))
# The generated examples (amp-gen-model's output, written by the build).
config.substitutions.append(("%amp_examples",
                             os.path.join(config.amp_obj_root, "examples")))
config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
config.substitutions.append(("%PYTHON", "python3"))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# scripts/lower-to-llvm.sh runs amp-opt's amp-lower-to-llvm pipeline: the
# amp-opt of this build, not one on PATH or in another build directory.
config.environment["AMP_OPT"] = os.path.join(config.amp_tools_dir, "amp-opt")

tools = ["amp-gen-model", "amp-opt", "amp-run", "amp-bench-runtime-ab",
         "mlir-opt", "mlir-runner"]
llvm_config.add_tool_substitutions(
    tools, [config.amp_tools_dir, config.llvm_tools_dir])

# The 8x8 handwritten digits of scikit-learn (Debian: python3-sklearn), which
# the amp-run training tests (test/Run) use: feature `digits`, `%digits`.
def find_digits():
    candidates = [os.environ.get("AMP_DIGITS_CSV", ""),
                  "/usr/lib/python3/dist-packages/sklearn/datasets/data/"
                  "digits.csv.gz"]
    try:
        import importlib.util
        spec = importlib.util.find_spec("sklearn")
        if spec and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                candidates.append(
                    os.path.join(loc, "datasets", "data", "digits.csv.gz"))
    except Exception:
        pass
    for c in candidates:
        if c and os.path.isfile(c):
            return c
    return None


digits = find_digits()
if digits:
    config.available_features.add("digits")
config.substitutions.append(("%digits", digits or "/nonexistent/digits.csv.gz"))

# libamp_rt of this build (runtime/), which code lowered with
# amp-lower-to-runtime calls: `%amp_rt_lib`, feature `amp-runtime` when built.
amp_rt_lib = os.path.join(config.amp_libs_dir,
                          "libamp_rt" + config.llvm_shlib_ext)
if os.path.isfile(amp_rt_lib):
    config.available_features.add("amp-runtime")
config.substitutions.append(("%amp_rt_lib", amp_rt_lib))

# The runtime's gtest binary (test/Unit runs all of it): feature
# `amp-runtime-unittests` and `%amp_runtime_unittests`, for tests that rerun
# some of its cases under another environment.
rt_unittests = os.path.join(config.amp_tools_dir, "AMPRuntimeUnitTests")
if os.path.isfile(rt_unittests):
    config.available_features.add("amp-runtime-unittests")
config.substitutions.append(("%amp_runtime_unittests", rt_unittests))

# The CPU's AVX-512 (F, BW and VL: what oneDNN's bf16 kernels and their
# emulation need): feature `avx512`, for tests that run libamp_rt's native
# bf16 path under AMP_RT_CPU_BF16=emulate on CPUs without AVX512_BF16.
def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


if {"avx512f", "avx512bw", "avx512vl"} <= cpu_flags():
    config.available_features.add("avx512")

# The PyTorch export path (scripts/setup-torch.sh: torch, torchvision and
# torch-mlir in a venv, 6 GB, not installed by CI): feature `torch`,
# `%torch_python`. Found as $AMP_TORCH_VENV or ~/.venvs/amp-torch.
def find_torch_python():
    venv = os.environ.get("AMP_TORCH_VENV") or os.path.expanduser(
        "~/.venvs/amp-torch")
    python = os.path.join(venv, "bin", "python")
    import glob
    if os.path.isfile(python) and glob.glob(
            os.path.join(venv, "lib", "python3*", "site-packages",
                         "torch_mlir")):
        return python
    return None


torch_python = find_torch_python()
if torch_python:
    config.available_features.add("torch")
config.substitutions.append(("%torch_python", torch_python or "false"))
