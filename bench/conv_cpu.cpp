//===- conv_cpu.cpp - amp_rt cpu convolutions vs oneDNN: resnet18 layers --===//
//
// The convolution shapes of resnet18 (224x224 input, batch 8 by default), in
// NHWC (filter RSCK: linalg conv_2d_nhwc_hwcf, what amp-gen-model
// emits) and NCHW (filter KCRS: linalg conv_2d_nchw_fchw, what torch
// exports), in all three directions, f32 output, beta = 0:
//
//   amp-bf16   amp_rt_conv2d_{forward,backward_data,backward_filter}, BF16 in
//   amp-f32    the same with F32 in (n/a while the runtime lacks it)
//   dnnl-bf16  oneDNN convolution, bf16 in, f32 out, every operand in the
//              layout oneDNN prefers (format_tag::any; primitive created and
//              inputs reordered once per shape, outside the timed loop, so
//              this is oneDNN's kernel alone); n/a where oneDNN has no bf16
//              convolution or only its reference one
//   dnnl-f32   the same in f32
//
// --layouts=nchw16c (in --layouts=all): forward only, amp-bf16 / amp-f32 are
// the MLIR entry points amp_rt_conv2d_nchw16c_fchw_{bf16,f32}_f32_overwrite
// on activations blocked by 16 channels and padded beforehand, which is how
// code lowered by amp-block-convs calls them (docs/passes.md); the dnnl
// columns are the NCHW ones. Layers with fewer than 16 channels are n/a.
//
// All variants of one layer and layout (twelve: 4 x 3 directions) are timed
// interleaved, best sample of each (bench_util.h). GF/s = 2*N*K*P*Q*C*R*S
// per direction; the "network" row sums count x time over the layers (the
// backward-data total leaves out conv1, whose input needs no gradient; so
// does the blocked one, as conv1 has 3 channels).
//
// Usage: amp-bench-conv-cpu [--quick] [--batch=N]
//                           [--layouts=nhwc|nchw|nchw16c|both|all]
//                           [--min-time=S] [--min-rounds=N] [--gap=S]
//                           [--stable-rounds=N] [--max-rounds=N]
//
//===----------------------------------------------------------------------===//

#include "bench_util.h"
#include "conv_variants.h"

#include <functional>
#include <memory>
#include <unordered_map>

using namespace ampbench;

namespace {

struct Layer {
  const char *name;
  int64_t C, K, H, R, stride, pad;
  int count;          // occurrences in the network
  int64_t groups = 0; // 0: dense; C: depthwise
};

// resnet18 at 224x224: conv1, then per stage the 3x3 convs (the first of
// stages 2-4 strided) and the strided 1x1 downsample of the shortcut.
const Layer kResnet18[] = {
    {"conv1 7x7/2 3>64 @224", 3, 64, 224, 7, 2, 3, 1},
    {"3x3 64>64 @56", 64, 64, 56, 3, 1, 1, 4},
    {"3x3/2 64>128 @56", 64, 128, 56, 3, 2, 1, 1},
    {"1x1/2 64>128 @56", 64, 128, 56, 1, 2, 0, 1},
    {"3x3 128>128 @28", 128, 128, 28, 3, 1, 1, 3},
    {"3x3/2 128>256 @28", 128, 256, 28, 3, 2, 1, 1},
    {"1x1/2 128>256 @28", 128, 256, 28, 1, 2, 0, 1},
    {"3x3 256>256 @14", 256, 256, 14, 3, 1, 1, 3},
    {"3x3/2 256>512 @14", 256, 512, 14, 3, 2, 1, 1},
    {"1x1/2 256>512 @14", 256, 512, 14, 1, 2, 0, 1},
    {"3x3 512>512 @7", 512, 512, 7, 3, 1, 1, 3},
};

// mobilenet_v2 at 224x224: its 17 depthwise 3x3 convolutions (groups =
// channels), the strided ones starting a stage.
const Layer kMobilenetV2Depthwise[] = {
    {"dw 3x3 32 @112", 32, 32, 112, 3, 1, 1, 1, 32},
    {"dw 3x3/2 96 @112", 96, 96, 112, 3, 2, 1, 1, 96},
    {"dw 3x3 144 @56", 144, 144, 56, 3, 1, 1, 1, 144},
    {"dw 3x3/2 144 @56", 144, 144, 56, 3, 2, 1, 1, 144},
    {"dw 3x3 192 @28", 192, 192, 28, 3, 1, 1, 2, 192},
    {"dw 3x3/2 192 @28", 192, 192, 28, 3, 2, 1, 1, 192},
    {"dw 3x3 384 @14", 384, 384, 14, 3, 1, 1, 4, 384},
    {"dw 3x3 576 @14", 576, 576, 14, 3, 1, 1, 2, 576},
    {"dw 3x3/2 576 @14", 576, 576, 14, 3, 2, 1, 1, 576},
    {"dw 3x3 960 @7", 960, 960, 7, 3, 1, 1, 3, 960},
};

/// A network's layer table. In resnet18 conv1's input needs no gradient,
/// and its 3 channels stay unblocked: its totals leave it out there.
struct Network {
  const char *name;
  const Layer *layers;
  size_t size;
  bool firstIsStem;
};
const Network kNetworks[] = {
    {"resnet18", kResnet18, std::size(kResnet18), true},
    {"mobilenet_v2-depthwise", kMobilenetV2Depthwise,
     std::size(kMobilenetV2Depthwise), false},
};

const char *kDirName[3] = {"forward", "backward-data", "backward-filter"};
enum Impl { AmpBf16 = 0, AmpF32 = 1, DnnlBf16 = 2, DnnlF32 = 3 };
const char *kImplName[4] = {"amp-bf16", "amp-f32", "dnnl-bf16", "dnnl-f32"};

struct Row {
  double best[3][4];
  bool ok[3][4];
};

// NCHW16C: NCHW blocked by 16 channels, forward only (the MLIR entry points
// of amp-block-convs).
const int NCHW16C = 2;

/// The command line.
struct Options {
  double minTime = 0.2;
  int minRounds = 5;
  int64_t batch = 8;
  std::vector<int> layouts = {AMP_RT_NHWC, AMP_RT_NCHW};
  const Network *net = &kNetworks[0];
};

/// Reads the flags into `o`; false on a bad one.
bool parseArgs(int argc, char **argv, Options &o) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (std::strcmp(a, "--quick") == 0)
      quick = true;
    else if (std::strncmp(a, "--batch=", 8) == 0 && std::atoi(a + 8) > 0)
      o.batch = std::atoi(a + 8);
    else if (std::strncmp(a, "--min-time=", 11) == 0)
      o.minTime = std::atof(a + 11);
    else if (std::strncmp(a, "--min-rounds=", 13) == 0)
      o.minRounds = std::atoi(a + 13);
    else if (std::strncmp(a, "--gap=", 6) == 0)
      gapSeconds() = std::atof(a + 6);
    else if (std::strncmp(a, "--stable-rounds=", 16) == 0)
      stableRounds() = std::atoi(a + 16);
    else if (std::strncmp(a, "--max-rounds=", 13) == 0)
      maxRounds() = std::atoi(a + 13);
    else if (std::strcmp(a, "--layouts=nhwc") == 0)
      o.layouts = {AMP_RT_NHWC};
    else if (std::strcmp(a, "--layouts=nchw") == 0)
      o.layouts = {AMP_RT_NCHW};
    else if (std::strcmp(a, "--layouts=nhwc,nchw") == 0 ||
             std::strcmp(a, "--layouts=both") == 0)
      o.layouts = {AMP_RT_NHWC, AMP_RT_NCHW};
    else if (std::strcmp(a, "--layouts=nchw16c") == 0)
      o.layouts = {NCHW16C};
    else if (std::strcmp(a, "--layouts=all") == 0)
      o.layouts = {AMP_RT_NHWC, AMP_RT_NCHW, NCHW16C};
    else if (std::strcmp(a, "--layers=resnet18") == 0)
      o.net = &kNetworks[0];
    else if (std::strcmp(a, "--layers=mobilenet_v2") == 0)
      o.net = &kNetworks[1];
    else
      return false;
  }
  if (quick) {
    o.batch = 1;
    o.minTime = std::min(o.minTime, 0.05);
    o.minRounds = std::min(o.minRounds, 2);
    gapSeconds() = std::min(gapSeconds(), 0.05);
    stableRounds() = std::min(stableRounds(), 1);
  }
  return true;
}

/// What the run accumulates: notes, and the network summary lines.
struct RunState {
  const Options &opts;
  CpuInfo cpu;
  double goalF32;
  Notes notes;
  std::vector<std::string> summary;

  void note(const std::string &n) { notes.add(n); }
};

/// One layout of the run: NHWC, NCHW or NCHW blocked by 16 channels.
struct LayoutCase {
  bool blocked, nhwc;
  amp_rt_layout layout;
  const char *name, *shortName;

  explicit LayoutCase(int option)
      : blocked(option == NCHW16C),
        nhwc(!blocked && amp_rt_layout(option) == AMP_RT_NHWC),
        layout(blocked ? AMP_RT_NCHW : amp_rt_layout(option)),
        name(blocked ? "NCHW blocked by 16 channels, filter KCRS "
                       "(amp-block-convs)"
             : nhwc  ? "NHWC, filter RSCK (linalg conv_2d_nhwc_hwcf)"
                     : "NCHW, filter KCRS (linalg conv_2d_nchw_fchw)"),
        shortName(blocked ? "NCHW16C"
                  : nhwc  ? "NHWC"
                          : "NCHW") {}
  int directions() const { return blocked ? 1 : 3; }
};

/// The operands and results of one layer, f32 and bf16 (exact values).
struct LayerBuffers {
  std::vector<float> x, w, dy, y, dx, dw;
  std::vector<uint16_t> xb, wb, dyb;
  LayerBuffers(size_t nx, size_t nw, size_t ny)
      : x(nx), w(nw), dy(ny), y(ny), dx(nx), dw(nw), xb(nx), wb(nw), dyb(ny) {
    fillExact(x, 3);
    fillExact(w, 4);
    fillExact(dy, 5);
    amp_rt_convert(AMP_RT_BF16, xb.data(), AMP_RT_F32, x.data(), nx);
    amp_rt_convert(AMP_RT_BF16, wb.data(), AMP_RT_F32, w.data(), nw);
    amp_rt_convert(AMP_RT_BF16, dyb.data(), AMP_RT_F32, dy.data(), ny);
  }
  /// The two inputs of direction `dir` in bf16 or f32.
  std::pair<const void *, const void *> inputs(int dir, bool bf16) const {
    const void *xs = bf16 ? (const void *)xb.data() : (const void *)x.data();
    const void *ws = bf16 ? (const void *)wb.data() : (const void *)w.data();
    const void *dys = bf16 ? (const void *)dyb.data() : (const void *)dy.data();
    if (dir == Fwd)
      return {xs, ws};
    if (dir == BwdData)
      return {dys, ws};
    return {xs, dys};
  }
};

/// The libamp_rt call of one direction, plain layouts.
std::function<amp_rt_status()> ampCall(const amp_rt_conv2d_desc &d,
                                       amp_rt_dtype t, const void *in0,
                                       const void *in1, float *out, int dir) {
  return [d, t, in0, in1, out, dir]() {
    if (dir == Fwd)
      return amp_rt_conv2d_forward(&d, t, AMP_RT_F32, 1.0f, in0, in1, 0.0f,
                                   out);
    if (dir == BwdData)
      return amp_rt_conv2d_backward_data(&d, t, AMP_RT_F32, 1.0f, in0, in1,
                                         0.0f, out);
    return amp_rt_conv2d_backward_filter(&d, t, AMP_RT_F32, 1.0f, in0, in1,
                                         0.0f, out);
  };
}

/// Sets up variant `im` of direction `dir` on one layer and runs it once
/// into `out`; false (with var.why) when it cannot run.
bool setUpVariant(Variant &var, std::unique_ptr<DnnlConv> &dn, int dir, int im,
                  const LayoutCase &lc, const Layer &L,
                  const amp_rt_conv2d_desc &d, int64_t P, int64_t Q,
                  const LayerBuffers &buf, float *out, RunState &run) {
  bool bf16 = im == AmpBf16 || im == DnnlBf16;
  auto [in0, in1] = buf.inputs(dir, bf16);
  if (lc.blocked && dir != Fwd) {
    var.why = "the blocked entry points are forward only";
    return false;
  }
  if (lc.blocked && (im == AmpBf16 || im == AmpF32)) {
    if (L.C % 16 || L.K % 16) {
      var.why = "channels not blocks of 16";
      return false;
    }
    auto call = blockedForward(d, P, Q, bf16, buf.x, out);
    call.first();
    call.second(); // unblocks the result into `out` for the check
    var.run = call.first;
    return true;
  }
  if (im == AmpBf16 || im == AmpF32) {
    auto call = ampCall(d, bf16 ? AMP_RT_BF16 : AMP_RT_F32, in0, in1, out, dir);
    amp_rt_clear_error();
    amp_rt_status st = call();
    if (st != AMP_RT_SUCCESS) {
      var.why = std::string(kImplName[im]) + ": " + amp_rt_status_string(st) +
                ": " + amp_rt_last_error();
      run.note(var.why);
      return false;
    }
    var.run = [call] { call(); };
    return true;
  }
  dn.reset(new DnnlConv);
  DnnlConv &c = *dn;
  var.why = c.init(d, P, Q, Dir(dir), bf16, const_cast<void *>(in0),
                   const_cast<void *>(in1), out);
  std::string what = std::string(kImplName[im]) + " " + kDirName[dir] + " (" +
                     lc.shortName + ")";
  if (!var.why.empty()) {
    run.note(what + ": " + var.why);
    return false;
  }
  run.note(what + " implementation: " + c.impl);
  var.run = [&c] { c.run(); };
  c.run();
  c.check();
  return true;
}

/// Every variant of every direction on one layer, measured interleaved.
/// Returns false when the layer's shape is invalid.
bool measureLayer(const Layer &L, const LayoutCase &lc, RunState &run, Row &row,
                  double &gflop) {
  amp_rt_conv2d_desc d{};
  d.layout = lc.layout;
  d.filter_layout = lc.nhwc ? AMP_RT_FILTER_RSCK : AMP_RT_FILTER_KCRS;
  d.N = run.opts.batch;
  d.H = d.W = L.H;
  d.C = L.C;
  d.K = L.K;
  d.R = d.S = L.R;
  d.pad_h = d.pad_w = L.pad;
  d.stride_h = d.stride_w = L.stride;
  d.dil_h = d.dil_w = 1;
  d.groups = L.groups;
  const int64_t cg = L.groups > 1 ? d.C / L.groups : d.C;
  int64_t P = 0, Q = 0;
  if (amp_rt_conv2d_output_size(&d, &P, &Q) != AMP_RT_SUCCESS) {
    std::fprintf(stderr, "%s: %s\n", L.name, amp_rt_last_error());
    return false;
  }
  size_t nx = size_t(d.N * d.C * d.H * d.W), nw = size_t(d.K * cg * d.R * d.S),
         ny = size_t(d.N * d.K * P * Q);
  LayerBuffers buf(nx, nw, ny);
  float *outs[3] = {buf.y.data(), buf.dx.data(), buf.dw.data()};
  size_t outN[3] = {ny, nx, nw};

  Variant v[3][4];
  std::unique_ptr<DnnlConv> dn[3][4];
  std::vector<float> ref[3];
  for (int dir = 0; dir < 3; ++dir)
    for (int im = 0; im < 4; ++im) {
      Variant &var = v[dir][im];
      var.name = std::string(kImplName[im]) + " " + kDirName[dir];
      float *out = outs[dir];
      std::fill(out, out + outN[dir], -7.0f);
      if (!setUpVariant(var, dn[dir][im], dir, im, lc, L, d, P, Q, buf, out,
                        run))
        continue;
      var.ok = true;
      // The first result of each direction is the reference of the rest.
      if (ref[dir].empty()) {
        ref[dir].assign(out, out + outN[dir]);
        continue;
      }
      double diff = maxRelDiff(out, ref[dir].data(), outN[dir]);
      if (diff > 1e-3)
        run.note(var.name + " (" + L.name + "): result differs (max rel " +
                 std::to_string(diff) + ")");
    }
  std::vector<Variant *> all;
  for (int dir = 0; dir < lc.directions(); ++dir)
    for (int im = 0; im < 4; ++im)
      all.push_back(&v[dir][im]);
  measureInterleaved(all, run.opts.minTime, run.opts.minRounds);
  for (int dir = 0; dir < 3; ++dir)
    for (int im = 0; im < 4; ++im) {
      row.ok[dir][im] = v[dir][im].ok;
      row.best[dir][im] = v[dir][im].best;
    }
  gflop = 2.0 * double(d.N) * double(d.K) * double(P) * double(Q) * double(cg) *
          double(d.R) * double(d.S) * 1e-9;
  return true;
}

/// One row of a direction's table (a layer, or the network's total, which
/// gets the goals' verdicts and a summary line).
void printLine(const char *name, const char *n, double gf, const double *t,
               const bool *ok, bool network, int dir, const LayoutCase &lc,
               RunState &run) {
  double g[4];
  for (int im = 0; im < 4; ++im)
    g[im] = gf / t[im];
  double bestF32 =
      std::max(ok[AmpF32] ? g[AmpF32] : 0.0, ok[DnnlF32] ? g[DnnlF32] : 0.0);
  std::string rF32 =
      fmtRatio(g[AmpBf16] / g[AmpF32], ok[AmpBf16] && ok[AmpF32]);
  std::string rBest =
      fmtRatio(g[AmpBf16] / bestF32, ok[AmpBf16] && bestF32 > 0);
  std::string rDnnl =
      fmtRatio(g[AmpBf16] / g[DnnlBf16], ok[AmpBf16] && ok[DnnlBf16]);
  if (network && ok[AmpBf16] && bestF32 > 0)
    rBest += g[AmpBf16] / bestF32 >= run.goalF32 ? " ok" : " MISS";
  if (network && run.cpu.avx512bf16 && ok[AmpBf16] && ok[DnnlBf16])
    rDnnl += g[AmpBf16] / g[DnnlBf16] >= 0.95 ? " ok" : " MISS";
  std::printf("%-22s %3s %7.2f %8s %8s %9s %8s | %-9s %-14s %-14s\n", name, n,
              gf, fmt(g[AmpBf16], ok[AmpBf16]).c_str(),
              fmt(g[AmpF32], ok[AmpF32]).c_str(),
              fmt(g[DnnlBf16], ok[DnnlBf16]).c_str(),
              fmt(g[DnnlF32], ok[DnnlF32]).c_str(), rF32.c_str(), rBest.c_str(),
              rDnnl.c_str());
  if (!network)
    return;
  char s[256];
  std::snprintf(s, sizeof(s),
                "%s %-15s network: amp-bf16 %s GF/s; bf16/f32 %s, "
                "bf16/best-f32 %s, bf16/dnnl-bf16 %s",
                lc.shortName, kDirName[dir],
                fmt(g[AmpBf16], ok[AmpBf16]).c_str(), rF32.c_str(),
                rBest.c_str(), rDnnl.c_str());
  run.summary.push_back(s);
}

/// The table of one direction: every layer, then the network's total.
void printDirection(int dir, const LayoutCase &lc, const std::vector<Row> &rows,
                    const std::vector<double> &gflop, RunState &run) {
  std::printf("\n%s, %s, batch %lld\n", kDirName[dir], lc.name,
              (long long)run.opts.batch);
  std::printf("%-22s %3s %7s %8s %8s %9s %8s | %-9s %-14s %-14s\n", "layer",
              "n", "GFLOP", "amp-bf16", "amp-f32", "dnnl-bf16", "dnnl-f32",
              "bf16/f32", "bf16/best-f32", "bf16/dnnl-bf16");
  double totFlop = 0, totTime[4] = {0, 0, 0, 0};
  bool totOk[4] = {true, true, true, true};
  const Network &net = *run.opts.net;
  int layers = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Layer &L = net.layers[i];
    double t[4];
    for (int im = 0; im < 4; ++im)
      t[im] = rows[i].best[dir][im];
    char n[8];
    std::snprintf(n, sizeof(n), "%d", L.count);
    printLine(L.name, n, gflop[i], t, rows[i].ok[dir], false, dir, lc, run);
    // conv1's input needs no gradient; in blocked form it has 3 channels.
    if ((dir == BwdData || lc.blocked) && i == 0 && net.firstIsStem)
      continue;
    layers += L.count;
    totFlop += L.count * gflop[i];
    for (int im = 0; im < 4; ++im) {
      totTime[im] += L.count * t[im];
      totOk[im] &= rows[i].ok[dir][im];
    }
  }
  char n[8];
  std::snprintf(n, sizeof(n), "%d", layers);
  printLine("network (n x layer)", n, totFlop, totTime, totOk, true, dir, lc,
            run);
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (!parseArgs(argc, argv, opts)) {
    std::fprintf(stderr,
                 "usage: %s [--quick] [--batch=N] "
                 "[--layouts=nhwc|nchw|nchw16c|both|all] "
                 "[--layers=resnet18|mobilenet_v2] "
                 "[--min-time=S] [--min-rounds=N] [--gap=S] "
                 "[--stable-rounds=N] [--max-rounds=N]\n",
                 argv[0]);
    return 2;
  }
  if (!selectCpuBackend())
    return 1;
  std::string title = std::string("Convolutions: ") + opts.net->name +
                      "'s layers at 224x224, f32 output, beta = 0; GF/s of "
                      "the best sample, variants interleaved in one run";
  RunState run{opts, printHeader(title.c_str())};
  std::printf("batch %lld; rounds: >= %d, >= %.2f s per variant, until no "
              "best improved in %d rounds (at most %d); samples >= 0.05 s, "
              "each after %.2f s idle\n",
              (long long)opts.batch, opts.minRounds, opts.minTime,
              stableRounds(), maxRounds(), gapSeconds());
  run.goalF32 = run.cpu.avx512bf16 ? 1.8 : 0.95;
  std::printf("reference goals (those of the GEMMs, applied to the network "
              "totals): amp-bf16 >= %.2fx best f32%s\n",
              run.goalF32,
              run.cpu.avx512bf16 ? ", >= 0.95x dnnl-bf16"
                                 : " (no AVX512_BF16)");

  for (int layoutOption : opts.layouts) {
    LayoutCase lc(layoutOption);
    std::vector<Row> rows;
    std::vector<double> gflop;
    for (size_t i = 0; i < opts.net->size; ++i) {
      const Layer &L = opts.net->layers[i];
      Row row;
      double gf = 0;
      if (!measureLayer(L, lc, run, row, gf))
        return 1;
      rows.push_back(row);
      gflop.push_back(gf);
      std::fprintf(stderr, ".");
    }
    std::fprintf(stderr, "\n");
    for (int dir = 0; dir < lc.directions(); ++dir)
      printDirection(dir, lc, rows, gflop, run);
  }
  std::printf("\nsummary (network totals; ok/MISS against the reference "
              "goals):\n");
  for (const std::string &s : run.summary)
    std::printf("  %s\n", s.c_str());
  run.notes.printWithLoad();
  return 0;
}
