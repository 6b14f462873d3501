/*===- amp_rt.h - amp-opt mixed-precision runtime, C ABI ------------------===*\
|*                                                                            *|
|* libamp_rt: the runtime that code lowered by amp-lower-to-runtime calls,    *|
|* and that C/C++ programs can call directly. Two backends, chosen at run     *|
|* time: "cpu" (always built; oneDNN, with native bf16 on AVX512_BF16 CPUs,   *|
|* F16C widening, OpenBLAS as the fallback) and "cuda" (cuBLAS / cuDNN / own  *|
|* kernels, in libamp_rt_cuda.so, dlopen()ed only when selected, so libamp_rt *|
|* loads on machines without CUDA).                                           *|
|*                                                                            *|
|* See docs/runtime.md for the full contract.                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RT_H
#define AMP_RT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define AMP_RT_API __declspec(dllexport)
#else
#define AMP_RT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Conventions
 *
 * - Every C API function returns an amp_rt_status. On failure nothing has
 *   been written to outputs (except where noted), and amp_rt_last_error()
 *   returns a message naming the function and the cause, e.g.
 *   "amp_rt_gemm: lda (3) < K (4) for row-major A without transpose".
 *   The message is per thread and stays until the next failing call.
 * - Matrices are row-major. Leading dimensions and strides are in elements.
 * - f16 and bf16 values are stored as uint16_t bit patterns.
 * - Low-precision products always accumulate in f32. Contractions also
 *   take f32 inputs (with an f32 output): the f32 baseline of a program
 *   runs on the same kernels.
 * - Bad arguments (null pointers, negative sizes, mismatched shapes, unknown
 *   dtypes) return AMP_RT_ERROR_INVALID_ARGUMENT; they never crash.
 * - Calls are thread safe; the runtime serializes them internally.
 *===----------------------------------------------------------------------===*/

typedef enum amp_rt_status {
  AMP_RT_SUCCESS = 0,
  AMP_RT_ERROR_INVALID_ARGUMENT = 1,    /* bad pointer / size / shape / dtype */
  AMP_RT_ERROR_UNSUPPORTED = 2,         /* valid but not implemented here */
  AMP_RT_ERROR_BACKEND_UNAVAILABLE = 3, /* e.g. cuda requested, no device */
  AMP_RT_ERROR_OUT_OF_MEMORY = 4,       /* host or device allocation */
  AMP_RT_ERROR_BACKEND = 5, /* a CUDA / cuBLAS / cuDNN / BLAS call failed */
  AMP_RT_ERROR_INTERNAL = 6
} amp_rt_status;

typedef enum amp_rt_dtype {
  AMP_RT_F32 = 0,
  AMP_RT_F16 = 1, /* IEEE binary16, uint16_t storage */
  AMP_RT_BF16 = 2 /* bfloat16, uint16_t storage */
} amp_rt_dtype;

/* Message of the last failing call on this thread ("" if none). Never NULL. */
AMP_RT_API const char *amp_rt_last_error(void);
/* Status of the last failing call on this thread (AMP_RT_SUCCESS if none). */
AMP_RT_API amp_rt_status amp_rt_last_status(void);
/* Clears the per-thread error. */
AMP_RT_API void amp_rt_clear_error(void);
/* Short name of a status, e.g. "AMP_RT_ERROR_INVALID_ARGUMENT". */
AMP_RT_API const char *amp_rt_status_string(amp_rt_status status);

/*===----------------------------------------------------------------------===*
 * Backend selection
 *
 * The backend is chosen on first use: env AMP_RT_BACKEND=cpu|cuda; unset or
 * empty means cuda when libamp_rt_cuda.so loads and a device answers, cpu
 * otherwise. AMP_RT_BACKEND=cuda without a usable device makes every call
 * fail with AMP_RT_ERROR_BACKEND_UNAVAILABLE and a message saying why (the
 * runtime does not silently fall back). Any other value is an error too.
 *===----------------------------------------------------------------------===*/

/* Name of the active backend ("cpu" or "cuda"); selects it if needed. Returns
 * "none" when the requested backend is unavailable (see amp_rt_last_error). */
AMP_RT_API const char *amp_rt_backend_name(void);
/* Switches backend: "cpu", "cuda", or NULL / "" to apply the first-use rule
 * above again (reading AMP_RT_BACKEND now). On failure no backend is active
 * and calls fail until a successful amp_rt_select_backend.
 * Frees the previous backend's staging caches. Leaving the cuda backend
 * while buffers it created with amp_rt_buffer_create are alive is
 * AMP_RT_ERROR_INVALID_ARGUMENT (cpu buffers are host memory and stay
 * usable). Not to be called concurrently with work on other threads. */
AMP_RT_API amp_rt_status amp_rt_select_backend(const char *name);
/* 1 if the cuda backend can be used on this machine, else 0 (never fails). */
AMP_RT_API int amp_rt_cuda_available(void);

/*===----------------------------------------------------------------------===*
 * Device memory (ownership)
 *
 * Compute functions take plain pointers. A pointer that lies inside a buffer
 * returned by amp_rt_buffer_create is "resident": on the cuda backend it is
 * device memory and is used in place, with no copies. Any other pointer is
 * host memory: the cuda backend copies it to a runtime-owned staging buffer
 * before the call and copies outputs back before returning. On the cpu
 * backend everything is host memory and buffers are 64-byte aligned host
 * allocations, so code written against this API runs on both backends.
 *
 * - The caller owns buffers: they live until amp_rt_buffer_free (or until
 *   the process ends); the runtime never frees them by itself.
 * - Staging buffers are owned by the runtime: they are cached and reused
 *   (grown geometrically, never per call) and released by
 *   amp_rt_release_cached_memory, amp_rt_select_backend or at exit.
 * - Ordering: calls whose every operand is resident run asynchronously on
 *   the runtime's single CUDA stream and return before the GPU finishes;
 *   calls with any host operand, downloads and amp_rt_synchronize wait for
 *   the stream. Work is executed in call order. Errors of asynchronous work
 *   surface at the next synchronizing call.
 * - On the cpu backend, every call is synchronous.
 *===----------------------------------------------------------------------===*/

/* Allocates `bytes` (> 0) of backend memory; *ptr receives its address. */
AMP_RT_API amp_rt_status amp_rt_buffer_create(size_t bytes, void **ptr);
/* Frees a buffer returned by amp_rt_buffer_create (waits for pending work).
 * Any other pointer is AMP_RT_ERROR_INVALID_ARGUMENT; NULL is a no-op. */
AMP_RT_API amp_rt_status amp_rt_buffer_free(void *ptr);
/* Copies `bytes` from host memory `src` to `dst`, which must lie, with all
 * `bytes`, inside one buffer. Returns once `src` may be reused. */
AMP_RT_API amp_rt_status amp_rt_buffer_upload(void *dst, const void *src,
                                              size_t bytes);
/* Copies `bytes` from `src` (inside one buffer) to host memory `dst`, after
 * all previously issued work has finished. */
AMP_RT_API amp_rt_status amp_rt_buffer_download(void *dst, const void *src,
                                                size_t bytes);
/* Waits for all issued work; reports errors of asynchronous work. */
AMP_RT_API amp_rt_status amp_rt_synchronize(void);
/* Frees the runtime's staging buffers (they are re-created on demand). */
AMP_RT_API amp_rt_status amp_rt_release_cached_memory(void);

/*===----------------------------------------------------------------------===*
 * GEMM:  C = alpha * op(A) * op(B) + beta * C       (row-major)
 *
 * op(A) is MxK: A is MxK with lda >= K, or KxM with lda >= M if trans_a.
 * op(B) is KxN: B is KxN with ldb >= N, or NxK with ldb >= K if trans_b.
 * C is MxN with ldc >= N. ab_type is F32, F16 or BF16 (A and B share it);
 * c_type is F32 or the same type as ab_type (so F32 inputs give an F32
 * output). Products accumulate in f32 (f32 inputs: f32 FMA, no TF32 or
 * bf16 shortcut on any backend). When beta
 * is 0, C is not read (NaNs in it do not propagate), as in BLAS. M, N or K
 * may be 0 (K == 0 gives C = beta * C). C may overlap A or B: an input that
 * shares memory with C is read from a copy taken before the call stores.
 *===----------------------------------------------------------------------===*/

AMP_RT_API amp_rt_status amp_rt_gemm(amp_rt_dtype ab_type, amp_rt_dtype c_type,
                                     int trans_a, int trans_b, int64_t M,
                                     int64_t N, int64_t K, float alpha,
                                     const void *A, int64_t lda, const void *B,
                                     int64_t ldb, float beta, void *C,
                                     int64_t ldc);

/* `batch` independent GEMMs; matrix i of A starts at A + i * stride_a
 * elements (likewise B, C). Strides must not make C matrices overlap. */
AMP_RT_API amp_rt_status amp_rt_gemm_batched(
    amp_rt_dtype ab_type, amp_rt_dtype c_type, int trans_a, int trans_b,
    int64_t M, int64_t N, int64_t K, float alpha, const void *A, int64_t lda,
    int64_t stride_a, const void *B, int64_t ldb, int64_t stride_b, float beta,
    void *C, int64_t ldc, int64_t stride_c, int64_t batch);

/*===----------------------------------------------------------------------===*
 * 2-D convolution (cross-correlation, as in cuDNN and PyTorch)
 *
 * Input x: N,C,H,W in `layout` order (NHWC: x[n][h][w][c]; NCHW:
 * x[n][c][h][w]). Filter w: K output channels, R x S window, C / groups input
 * channels, in `filter_layout` order. Output y: N,K,P,Q in `layout` order with
 *   P = (H + 2*pad_h - dil_h*(R-1) - 1) / stride_h + 1   (likewise Q from W).
 * All tensors are dense (no padding between elements).
 *
 *   forward:          y  = alpha * conv(x, w)            + beta * y
 *   backward_data:    dx = alpha * conv_transpose(dy, w)  + beta * dx
 *   backward_filter:  dw = alpha * sum_n corr(x, dy)      + beta * dw
 *
 * Inputs (x, w for forward; dy, w for backward_data; x, dy for
 * backward_filter) have in_type F32, F16 or BF16; the output has out_type
 * F32 or in_type. f32 accumulation. beta == 0: output not read. An input
 * that shares memory with the output is read from a copy.
 *
 * Grouped convolutions (groups = G > 1; 0 and 1 mean a dense one): C and K
 * are multiples of G, and output channel k reads only the C / G input
 * channels of its group g = k / (K / G), c = g * (C / G) + c'. The filter
 * has C / G input channels (w[k][c'][r][s] in KCRS, and so on). Depthwise
 * is G = C (K = C times a channel multiplier): a C x R x S filter is KCRS
 * with C / G = 1, an R x S x C one RSCK.
 *
 * Zero-initialize the descriptor (`amp_rt_conv2d_desc d = {0};`) before
 * setting its fields, so that fields it gains later (as groups) default
 * to their old behaviour.
 *===----------------------------------------------------------------------===*/

typedef enum amp_rt_layout { AMP_RT_NHWC = 0, AMP_RT_NCHW = 1 } amp_rt_layout;

typedef enum amp_rt_filter_layout {
  AMP_RT_FILTER_DEFAULT = 0, /* KRSC for NHWC, KCRS for NCHW (as cuDNN) */
  AMP_RT_FILTER_KRSC = 1,    /* w[k][r][s][c] */
  AMP_RT_FILTER_KCRS = 2,    /* w[k][c][r][s] (linalg FCHW) */
  AMP_RT_FILTER_RSCK = 3     /* w[r][s][c][k] (linalg HWCF) */
} amp_rt_filter_layout;

typedef struct amp_rt_conv2d_desc {
  amp_rt_layout layout;
  amp_rt_filter_layout filter_layout;
  int64_t N, H, W, C;   /* input: batch, height, width, channels (all >= 1) */
  int64_t K;            /* output channels (>= 1) */
  int64_t R, S;         /* filter height, width (>= 1) */
  int64_t pad_h, pad_w; /* zero padding on both sides (>= 0) */
  int64_t stride_h, stride_w; /* >= 1 */
  int64_t dil_h, dil_w;       /* >= 1 */
  int64_t groups; /* 0 or 1: dense; G > 1 divides C and K (see above) */
} amp_rt_conv2d_desc;

/* Output height P and width Q of `desc` (error if the window does not fit). */
AMP_RT_API amp_rt_status amp_rt_conv2d_output_size(
    const amp_rt_conv2d_desc *desc, int64_t *P, int64_t *Q);

AMP_RT_API amp_rt_status amp_rt_conv2d_forward(
    const amp_rt_conv2d_desc *desc, amp_rt_dtype in_type, amp_rt_dtype out_type,
    float alpha, const void *x, const void *w, float beta, void *y);

AMP_RT_API amp_rt_status amp_rt_conv2d_backward_data(
    const amp_rt_conv2d_desc *desc, amp_rt_dtype in_type, amp_rt_dtype out_type,
    float alpha, const void *dy, const void *w, float beta, void *dx);

AMP_RT_API amp_rt_status amp_rt_conv2d_backward_filter(
    const amp_rt_conv2d_desc *desc, amp_rt_dtype in_type, amp_rt_dtype out_type,
    float alpha, const void *x, const void *dy, float beta, void *dw);

/*===----------------------------------------------------------------------===*
 * Loss scaling
 *===----------------------------------------------------------------------===*/

/* For each of the n tensors (tensors[i]: counts[i] elements of dtypes[i],
 * F32, F16 or BF16), in place: x = x * inv_scale (in f32, rounded back to
 * nearest-even for 16-bit tensors). *found_inf is set to 1 if any unscaled
 * element is inf or NaN (which includes every non-finite input), else 0.
 * On the cuda backend this is one kernel launch over all tensors; when
 * found_inf is resident the flag is written on the device and the call does
 * not wait for the GPU. inv_scale must be finite. */
AMP_RT_API amp_rt_status amp_rt_unscale_and_check(void *const *tensors,
                                                  const amp_rt_dtype *dtypes,
                                                  const int64_t *counts,
                                                  int64_t n, float inv_scale,
                                                  int32_t *found_inf);

/* PyTorch GradScaler's update, then a clamp:
 *   if found_inf: scale *= backoff; good_steps = 0
 *   else: good_steps += 1
 *         if good_steps == interval:
 *           if isfinite(scale * growth): scale *= growth
 *           good_steps = 0
 *   scale = min(max(scale, min_scale), max_scale)
 * (computed in f32). Requires growth > 0, 0 < backoff, interval >= 1,
 * 0 <= min_scale <= max_scale (max_scale may be +inf). */
AMP_RT_API amp_rt_status amp_rt_update_scale(float *scale, int32_t *good_steps,
                                             int found_inf, float growth,
                                             float backoff, int32_t interval,
                                             float min_scale, float max_scale);

/* Same rule with the overflow flag read from *found_inf (e.g. the flag that
 * amp_rt_unscale_and_check wrote). When scale, good_steps and found_inf are
 * all resident on the cuda backend, this is one kernel and does not wait. */
AMP_RT_API amp_rt_status amp_rt_update_scale_from_flag(
    float *scale, int32_t *good_steps, const int32_t *found_inf, float growth,
    float backoff, int32_t interval, float min_scale, float max_scale);

/*===----------------------------------------------------------------------===*
 * cpu backend: kernel choice
 *
 * The cpu backend picks its kernels at run time, so one binary serves every
 * x86-64 CPU: bf16 contractions run as oneDNN primitives on the native
 * AVX512_BF16 instructions (f32 accumulation) when cpuid reports them with
 * OS support and oneDNN accepts a bf16 primitive; otherwise bf16, like f16
 * always, is widened exactly to f32 and runs on the f32 kernels (oneDNN
 * f32, or OpenBLAS with env AMP_RT_CPU_F32=openblas). Env AMP_RT_CPU_BF16=0
 * switches the native path off (read once, when the cpu backend is first
 * created). AMP_RT_VERBOSE=1 prints amp_rt_cpu_kernels() to stderr on the
 * first contraction. These calls work whatever backend is active.
 *===----------------------------------------------------------------------===*/

/* enable = 1: run bf16 natively (AMP_RT_ERROR_UNSUPPORTED, with the reason,
 * when this CPU or oneDNN cannot); 0: widen bf16 to f32 like f16. Takes
 * effect from the next call. */
AMP_RT_API amp_rt_status amp_rt_cpu_set_native_bf16(int enable);
/* One line naming the cpu kernels in use, e.g. "bf16: oneDNN 2.6.3 native
 * (avx512_bf16); f16: widened to f32 (F16C/AVX2) + oneDNN 2.6.3 f32; f32:
 * oneDNN 2.6.3 f32". Never NULL; valid for the life of the process. */
AMP_RT_API const char *amp_rt_cpu_kernels(void);
/* Convolution filters kept in the kernels' blocked layouts across calls:
 * a call whose filter has exactly the bytes of a kept one (compared in
 * full, never trusted by address) skips the filter's reorder. The budget
 * (copies and packings) is env AMP_RT_FILTER_CACHE_MB, default 256; 0 keeps
 * none. set_filter_cache sets it in bytes, dropping what no longer fits;
 * filter_cache_stats reports the lookups that hit and missed and the bytes
 * held (any pointer may be NULL). */
AMP_RT_API amp_rt_status amp_rt_cpu_set_filter_cache(size_t bytes);
AMP_RT_API amp_rt_status amp_rt_cpu_filter_cache_stats(int64_t *hits,
                                                       int64_t *misses,
                                                       size_t *bytes);

/*===----------------------------------------------------------------------===*
 * Conversions (host memory, any backend; round to nearest even, inf and NaN
 * kept (NaN stays NaN, quiet), subnormals exact; F16C/AVX2 when available)
 *===----------------------------------------------------------------------===*/

AMP_RT_API amp_rt_status amp_rt_convert(amp_rt_dtype dst_type, void *dst,
                                        amp_rt_dtype src_type, const void *src,
                                        int64_t count);
AMP_RT_API uint16_t amp_rt_f32_to_f16(float x);
AMP_RT_API float amp_rt_f16_to_f32(uint16_t x);
AMP_RT_API uint16_t amp_rt_f32_to_bf16(float x);
AMP_RT_API float amp_rt_bf16_to_f32(uint16_t x);

/* clang-format off */
/*===----------------------------------------------------------------------===*
 * MLIR-facing entry points
 *
 * Called from code lowered by amp-lower-to-runtime. Each is declared in MLIR
 * with {llvm.emit_c_interface}, so the C symbol is _mlir_ciface_<name> and
 * every memref argument is a pointer to a strided memref descriptor
 * {allocated, aligned, offset, sizes[rank], strides[rank]}. Any strides
 * (>= 0) work: operands whose innermost stride is not 1 are packed first.
 * Element types: f16 / bf16 memrefs hold uint16_t, f32 memrefs hold float.
 *
 * Semantics are the linalg ops' on buffers: the output ACCUMULATES
 * (C += A*B, O += conv(I, F)); each function also has an _overwrite twin
 * (amp_rt_matmul_bf16_f32_overwrite, ...) with the same arguments that
 * overwrites it instead (C = A*B, beta = 0: C is never read, so it may hold
 * garbage or NaN), which amp-lower-to-runtime calls where the IR zero-fills
 * the output right before the op. Both use f32 accumulation and one rounding of
 * the final sum when the output is f16/bf16; convolutions have no padding
 * (the IR pads explicitly) and the output shape must be consistent with the
 * input (linalg's (OH-1)*sh + (KH-1)*dh + 1 <= H).
 *
 * <in> is f32, f16 or bf16; <out> is f32 or the same type as <in>. So the
 * 20 functions (40 with the _overwrite twins) are, for each of the four ops below, the suffixes
 * _f16_f32, _f16_f16, _bf16_f32, _bf16_bf16 and _f32_f32 (the f32
 * baseline: all three memrefs f32, same accumulating semantics).
 *
 * The functions return nothing. On an error (shape mismatch, null pointer,
 * backend failure) they print "amp_rt: <message>" to stderr and abort()
 * (a wrong result must not go unnoticed), unless the error mode is
 * AMP_RT_ERRORS_RECORD (env AMP_RT_ON_ERROR=record, or
 * amp_rt_set_error_mode): then the output is left unchanged and the error
 * is kept for amp_rt_last_status / amp_rt_last_error.
 *
 * MLIR declarations (shown for f16 -> f32; the others substitute types):
 *
 *   func.func private @amp_rt_matmul_f16_f32(
 *       memref<?x?xf16, strided<[?, ?], offset: ?>>,  // A: MxK (KxM if transA)
 *       memref<?x?xf16, strided<[?, ?], offset: ?>>,  // B: KxN (NxK if transB)
 *       memref<?x?xf32, strided<[?, ?], offset: ?>>,  // C: MxN, += op(A)op(B)
 *       i32, i32)                                      // transA, transB (0/1)
 *       attributes {llvm.emit_c_interface}
 *
 *   func.func private @amp_rt_batch_matmul_f16_f32(
 *       memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>,  // A: BxMxK (BxKxM)
 *       memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>,  // B: BxKxN (BxNxK)
 *       memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>,  // C: BxMxN
 *       i32, i32)                                          // transA, transB
 *       attributes {llvm.emit_c_interface}
 *
 *   func.func private @amp_rt_conv2d_nhwc_hwcf_f16_f32(
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // I: NxHxWxC
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // F: KHxKWxCxF
 *       memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>,  // O: NxOHxOWxF
 *       i64, i64, i64, i64)  // strideH, strideW, dilationH, dilationW
 *       attributes {llvm.emit_c_interface}
 *
 *   func.func private @amp_rt_conv2d_nchw_fchw_f16_f32(
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // I: NxCxHxW
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // F: FxCxKHxKW
 *       memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>,  // O: NxFxOHxOW
 *       i64, i64, i64, i64)  // strideH, strideW, dilationH, dilationW
 *       attributes {llvm.emit_c_interface}
 *
 *   func.func private @amp_rt_conv2d_nchw16c_fchw_f16_f32(
 *       memref<?x?x?x?x16xf16, strided<[?, ?, ?, ?, ?], offset: ?>>,
 *                                // I: N x C/16 x H x W x 16 (nChw16c)
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // F: FxCxKHxKW
 *       memref<?x?x?x?x16xf32, strided<[?, ?, ?, ?, ?], offset: ?>>,
 *                                // O: N x F/16 x OH x OW x 16 (nChw16c)
 *       i64, i64, i64, i64)  // strideH, strideW, dilationH, dilationW
 *       attributes {llvm.emit_c_interface}
 *
 *   func.func private @amp_rt_depthwise_conv2d_nchw_chw_f16_f32(
 *       memref<?x?x?x?xf16, strided<[?, ?, ?, ?], offset: ?>>,  // I: NxCxHxW
 *       memref<?x?x?xf16, strided<[?, ?, ?], offset: ?>>,        // F: CxKHxKW
 *       memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>,  // O: NxCxOHxOW
 *       i64, i64, i64, i64)  // strideH, strideW, dilationH, dilationW
 *       attributes {llvm.emit_c_interface}
 *
 *   (and amp_rt_depthwise_conv2d_nhwc_hwc_*: I NxHxWxC, F KHxKWxC, O
 *   NxOHxOWxC: linalg.depthwise_conv_2d_nhwc_hwc)
 *
 *   (and amp_rt_conv2d_ngchw_gfchw_*: 5-D memrefs I NxGxCxHxW, F GxFxCxKHxKW,
 *   O NxGxFxOHxOW: linalg.conv_2d_ngchw_gfchw, run as the NCHW convolution
 *   with groups = G; in I and O the G and C / F dimensions, in F the G and
 *   F dimensions, must be one strided run, as in any contiguous buffer)
 *
 *   (and amp_rt_depthwise_conv2d_nchw16c_chw_*: I and O blocked as below,
 *   F CxKHxKW: linalg.depthwise_conv_2d_nchw_chw after amp-block-convs;
 *   amp_rt_conv2d_nchw_fchw_nchw16c_*: I NCHW, F FCHW, O blocked: a
 *   convolution whose input channels 16 does not divide, such as a stem;
 *   amp_rt_conv2d_backward_filter_nchw16c_*: X N x C/16 x H x W x 16 and
 *   DY N x F/16 x OH x OW x 16 blocked, O F x C x KH x KW: the weight
 *   gradient O[f, c, r, s] += sum over n, p, q of X[n, c, p * strideH +
 *   r * dilationH, q * strideW + s * dilationW] * DY[n, f, p, q] of the
 *   forward convolution with those strides and dilations; X may have more
 *   rows and columns than that reads; amp_rt_conv2d_backward_filter_
 *   nchw_nchw16c_*: the same with X NCHW, a stem's image)
 *
 * The nchw16c form is linalg.conv_2d_nchw_fchw on activations blocked by 16
 * channels (x[n][c/16][h][w][c%16], oneDNN's nChw16c), as
 * amp-block-convs writes it: oneDNN's convolutions read and write that
 * layout without a reorder. Where the backend cannot (a GPU, a CPU path
 * without oneDNN, f16 inputs), the call unblocks into NCHW copies and runs
 * the nchw_fchw form.
 *
 * (linalg.conv_2d_* carry strides and dilations as attributes; the lowering
 * passes them as i64 constants. For _f16_f16 the third memref is f16, for
 * _bf16_f32 the first two are bf16, for _bf16_bf16 all three are bf16, for
 * _f32_f32 all three are f32.)
 *===----------------------------------------------------------------------===*/
/* clang-format on */

/* Strided memref descriptors as MLIR lays them out (element type erased). */
typedef struct amp_rt_memref_2d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} amp_rt_memref_2d;

typedef struct amp_rt_memref_3d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} amp_rt_memref_3d;

typedef struct amp_rt_memref_4d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
} amp_rt_memref_4d;

typedef struct amp_rt_memref_5d {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[5];
  int64_t strides[5];
} amp_rt_memref_5d;

typedef enum amp_rt_error_mode {
  AMP_RT_ERRORS_ABORT = 0, /* default: print to stderr and abort() */
  AMP_RT_ERRORS_RECORD = 1 /* record for amp_rt_last_status and return */
} amp_rt_error_mode;

/* Error mode of the MLIR-facing entry points (the C API always returns). */
AMP_RT_API void amp_rt_set_error_mode(amp_rt_error_mode mode);

/* SUFFIX is empty (accumulate) or _overwrite. */
#define AMP_RT_DECLARE_MLIR_ENTRY_POINTS_(IN, OUT, SUFFIX)                          \
  AMP_RT_API void _mlir_ciface_amp_rt_matmul_##IN##_##OUT##SUFFIX(                  \
      amp_rt_memref_2d *A, amp_rt_memref_2d *B, amp_rt_memref_2d *C,                \
      int32_t transA, int32_t transB);                                              \
  AMP_RT_API void _mlir_ciface_amp_rt_batch_matmul_##IN##_##OUT##SUFFIX(            \
      amp_rt_memref_3d *A, amp_rt_memref_3d *B, amp_rt_memref_3d *C,                \
      int32_t transA, int32_t transB);                                              \
  AMP_RT_API void _mlir_ciface_amp_rt_conv2d_nhwc_hwcf_##IN##_##OUT##SUFFIX(        \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);                \
  AMP_RT_API void _mlir_ciface_amp_rt_conv2d_nchw_fchw_##IN##_##OUT##SUFFIX(        \
      amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_4d *O,                \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);                \
  AMP_RT_API void _mlir_ciface_amp_rt_conv2d_ngchw_gfchw_##IN##_##OUT##SUFFIX(      \
      amp_rt_memref_5d *I, amp_rt_memref_5d *F, amp_rt_memref_5d *O,                \
      int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);                \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_depthwise_conv2d_nhwc_hwc_##IN##_##OUT##SUFFIX(           \
          amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,            \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_depthwise_conv2d_nchw_chw_##IN##_##OUT##SUFFIX(           \
          amp_rt_memref_4d *I, amp_rt_memref_3d *F, amp_rt_memref_4d *O,            \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_conv2d_nchw_fchw_nchw16c_##IN##_##OUT##SUFFIX(            \
          amp_rt_memref_4d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,            \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_depthwise_conv2d_nchw16c_chw_##IN##_##OUT##SUFFIX(        \
          amp_rt_memref_5d *I, amp_rt_memref_3d *F, amp_rt_memref_5d *O,            \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_conv2d_nchw16c_fchw_##IN##_##OUT##SUFFIX(                 \
          amp_rt_memref_5d *I, amp_rt_memref_4d *F, amp_rt_memref_5d *O,            \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_conv2d_backward_filter_nchw16c_##IN##_##OUT##SUFFIX(      \
          amp_rt_memref_5d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,           \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);            \
  AMP_RT_API void                                                                   \
      _mlir_ciface_amp_rt_conv2d_backward_filter_nchw_nchw16c_##IN##_##OUT##SUFFIX( \
          amp_rt_memref_4d *X, amp_rt_memref_5d *DY, amp_rt_memref_4d *O,           \
          int64_t strideH, int64_t strideW, int64_t dilH, int64_t dilW);
#define AMP_RT_DECLARE_MLIR_ENTRY_POINTS(IN, OUT)                              \
  AMP_RT_DECLARE_MLIR_ENTRY_POINTS_(IN, OUT, )                                 \
  AMP_RT_DECLARE_MLIR_ENTRY_POINTS_(IN, OUT, _overwrite)

AMP_RT_DECLARE_MLIR_ENTRY_POINTS(f16, f32)
AMP_RT_DECLARE_MLIR_ENTRY_POINTS(f16, f16)
AMP_RT_DECLARE_MLIR_ENTRY_POINTS(bf16, f32)
AMP_RT_DECLARE_MLIR_ENTRY_POINTS(bf16, bf16)
AMP_RT_DECLARE_MLIR_ENTRY_POINTS(f32, f32)

#ifdef __cplusplus
}
#endif

#endif /* AMP_RT_H */
