"""Running a lowered function on the CPU (for --check): the export lowered
to a shared library by scripts/lower-to-llvm.sh and LLVM's tools, called
through its C interface with PyTorch tensors as memref descriptors."""

import ctypes
import os
import shlex
import subprocess
import sys
import time

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

def run_tool(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("torch-to-amp: command failed ({}):\n{}\n{}".format(
            r.returncode, " ".join(shlex.quote(c) for c in cmd),
            r.stderr[-4000:]))
    return r


def compile_to_shared_library(mlir_file, work, tag, llvm_bin, fast=False):
    """mlir_file (tensors) -> shared library exporting _mlir_ciface_<f>.
    fast: through the fast pipeline (libamp_rt's kernels, OpenMP loops,
    NCHW convolutions on blocked activations), linked with libamp_rt and
    LLVM's libomp."""
    llvm_dialect = os.path.join(work, tag + ".llvm.mlir")
    ll = os.path.join(work, tag + ".ll")
    obj = os.path.join(work, tag + ".o")
    lib = os.path.join(work, tag + ".so")
    env = dict(os.environ)
    # lower-to-llvm.sh runs amp-opt's amp-lower-to-llvm pipeline.
    env.setdefault("AMP_OPT", os.path.join(REPO, "build", "bin", "amp-opt"))
    with open(llvm_dialect, "w") as out:
        r = subprocess.run(
            [os.path.join(REPO, "scripts", "lower-to-llvm.sh")]
            + (["--fast"] if fast else [])
            + [mlir_file, "--llvm-request-c-wrappers"], stdout=out,
            stderr=subprocess.PIPE,
            text=True, env=env)
    if r.returncode != 0:
        sys.exit(f"torch-to-amp: lower-to-llvm.sh {mlir_file} failed:\n"
                 + r.stderr[-4000:])
    run_tool([os.path.join(llvm_bin, "mlir-translate"), "--mlir-to-llvmir",
              llvm_dialect, "-o", ll])
    run_tool([os.path.join(llvm_bin, "opt"), "-O3", "-mcpu=native", ll,
              "-S", "-o", ll + ".opt"])
    run_tool([os.path.join(llvm_bin, "llc"), "-O3", "-mcpu=native",
              "-relocation-model=pic", "-filetype=obj", ll + ".opt",
              "-o", obj])
    llvm_lib = os.path.join(os.path.dirname(llvm_bin), "lib")
    link = ["cc", "-shared", "-o", lib, obj, "-lm"]
    if os.path.exists(os.path.join(llvm_lib, "libmlir_float16_utils.so")):
        # __truncsfbf2 (f32 -> bf16) is missing from Debian 12's libgcc.
        link += ["-lmlir_float16_utils"]
    # memrefCopy (copies that bufferization leaves).
    link += [f"-L{llvm_lib}", "-lmlir_c_runner_utils", f"-Wl,-rpath,{llvm_lib}"]
    if fast:
        rt_lib = os.path.join(os.path.dirname(env["AMP_OPT"]), "..", "lib")
        link += [f"-L{rt_lib}", "-lamp_rt", f"-Wl,-rpath,{rt_lib}", "-lomp"]
    run_tool(link)
    return lib


_CTYPE = {torch.float32: ctypes.c_float, torch.float64: ctypes.c_double,
          torch.int64: ctypes.c_int64, torch.int32: ctypes.c_int32,
          torch.bool: ctypes.c_bool}


def memref_struct(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def to_memref(t):
    t = t.contiguous()
    d = memref_struct(t.dim())()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i in range(t.dim()):
        d.sizes[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d, t  # keep t alive


def call_shared_library(lib, func_name, call_args, result):
    """Calls _mlir_ciface_<func_name>(&result, &arg0, ...) of `lib`.
    `result` is a tensor of the result's shape and dtype (one result)."""
    so = ctypes.CDLL(lib)
    fn = getattr(so, "_mlir_ciface_" + func_name)
    keep = [to_memref(a) for a in call_args]
    out = memref_struct(result.dim())()
    fn.restype = None
    fn(ctypes.byref(out), *[ctypes.byref(d) for d, _ in keep])
    n = result.numel()
    elem = _CTYPE[result.dtype]
    size = ctypes.sizeof(elem)
    buf = (elem * n).from_address(out.aligned + out.offset * size)
    flat = torch.frombuffer(bytearray(buf), dtype=result.dtype)
    strides = [out.strides[i] for i in range(result.dim())]
    expected = list(result.contiguous().stride())
    if result.dim() and strides != expected:
        sys.exit(f"torch-to-amp: unexpected result strides {strides}")
    return flat.reshape(result.shape)


def call_training_step(lib, func_name, call_args, results):
    """Calls _mlir_ciface_<func_name>(&results, &arg0, ...) of a function
    with several results (the C wrapper returns them in one struct of
    memref descriptors); `results` are tensors of their shapes and dtypes."""
    so = ctypes.CDLL(lib)
    fn = getattr(so, "_mlir_ciface_" + func_name)
    keep = [to_memref(a) for a in call_args]
    fields = [(f"r{i}", memref_struct(r.dim())) for i, r in enumerate(results)]
    out = type("Results", (ctypes.Structure,), {"_fields_": fields})()
    fn.restype = None
    fn(ctypes.byref(out), *[ctypes.byref(d) for d, _ in keep])
    values = []
    for i, r in enumerate(results):
        d = getattr(out, f"r{i}")
        elem = _CTYPE[r.dtype]
        size = ctypes.sizeof(elem)
        strides = [d.strides[k] for k in range(r.dim())]
        if r.dim() and strides != list(r.contiguous().stride()):
            sys.exit(f"torch-to-amp: unexpected strides {strides} of "
                     f"result {i}")
        buf = (elem * r.numel()).from_address(d.aligned + d.offset * size)
        values.append(torch.frombuffer(bytearray(buf), dtype=r.dtype)
                      .reshape(r.shape))
    return values


def compile_and_run(args, work, programs, call):
    """Compiles each (tag, file) of `programs` to a shared library and runs
    it with `call(lib)`; returns {tag: result}."""
    runs = {}
    for tag, f in programs:
        t0 = time.time()
        lib = compile_to_shared_library(f, work, tag, args.llvm_bin,
                                        fast=args.check_pipeline == "fast")
        t1 = time.time()
        runs[tag] = call(lib)
        print(f"  ran {tag}: compile {t1 - t0:.1f} s, "
              f"run {time.time() - t1:.1f} s")
    return runs
