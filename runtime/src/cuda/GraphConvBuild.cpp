//===- GraphConvBuild.cpp - cuDNN graph API plans for convolutions --------===//
//
// One plan per problem: tensor, convolution and operation descriptors, an
// operation graph of that one operation, heuristics (mode A) for it, and the
// first of the engine configurations they return that passes the numerics
// filter, fits the workspace limit and finalizes as an execution plan
// (GraphConv.cpp runs them).
//
//===----------------------------------------------------------------------===//

#include "GraphConv.h"

#include <cstdio>
#include <string>
#include <vector>

namespace amp {
namespace rt {
namespace cuda {

GraphConvPlans::Plan::~Plan() {
  plan.reset();
  while (!parts.empty())
    parts.pop_back();
}
namespace {

/// The first failing cuDNN call of a plan build.
struct BuildError {
  const char *what = nullptr;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;

  bool set(const char *w, cudnnStatus_t s) {
    what = w;
    status = s;
    return false;
  }
  std::string message() const {
    return std::string(what) + " failed: " + cudnnGetErrorString(status);
  }
};

// In functions that take a BuildError &err and return bool.
#define GRAPH_STEP(call, what)                                                 \
  do {                                                                         \
    cudnnStatus_t s_ = (call);                                                 \
    if (s_ != CUDNN_STATUS_SUCCESS)                                            \
      return err.set(what, s_);                                                \
  } while (false)

/// Sets attribute `name` of GraphDescriptor `desc` to `count` values of
/// `type` at `values`.
#define GRAPH_SET(desc, name, type, count, values)                             \
  GRAPH_STEP(                                                                  \
      cudnnBackendSetAttribute((desc).get(), name, type, count, values),       \
      "setting " #name)

cudnnStatus_t setDescriptor(cudnnBackendDescriptor_t d,
                            cudnnBackendAttributeName_t name,
                            cudnnBackendDescriptor_t value) {
  return cudnnBackendSetAttribute(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                  &value);
}

/// Attribute names of one convolution operation, by tensor role: x is X or
/// DX, w is W or DW, y is Y or DY.
struct ConvOpNames {
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

ConvOpNames convOpNames(ConvDirection dir) {
  switch (dir) {
  case ConvDirection::Forward:
    return {CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
  case ConvDirection::BackwardData:
    return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
            CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
  case ConvDirection::BackwardFilter:
    break;
  }
  return {CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
          CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
}
/// Numerical notes of engines that break the contract: rounded inputs, a
/// reduction in less than f32, or transforms (FFT, Winograd) that round
/// intermediate values and spread a NaN beyond the outputs that read it.
bool rejectedNote(cudnnBackendNumericalNote_t note) {
  switch (note) {
  case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
  case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
  case CUDNN_NUMERICAL_NOTE_FFT:
  case CUDNN_NUMERICAL_NOTE_WINOGRAD:
  case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
  case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
  case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
    return true;
  default:
    return false;
  }
}
/// A finalized tensor descriptor.
bool makeTensor(GraphDescriptor &t, int64_t uid, amp_rt_dtype type,
                const std::array<int64_t, 4> &dims,
                const std::array<int64_t, 4> &strides, int64_t alignment,
                BuildError &err) {
  const cudnnDataType_t dataType = cudnnType(type);
  GRAPH_STEP(t.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR), "creating a tensor");
  GRAPH_SET(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dataType);
  GRAPH_SET(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  GRAPH_SET(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  GRAPH_SET(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  GRAPH_SET(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1,
            &alignment);
  GRAPH_STEP(cudnnBackendFinalize(t.get()), "finalizing a tensor");
  return true;
}

/// A finalized 2-d cross-correlation with f32 compute.
bool makeConvolution(GraphDescriptor &c, const amp_rt_conv2d_desc &d,
                     BuildError &err) {
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  const int64_t dims = 2, pad[2] = {d.pad_h, d.pad_w},
                dilation[2] = {d.dil_h, d.dil_w},
                stride[2] = {d.stride_h, d.stride_w};
  GRAPH_STEP(c.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR),
             "creating the convolution descriptor");
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1,
            &compute);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1,
            &mode);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation);
  GRAPH_SET(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2,
            stride);
  GRAPH_STEP(cudnnBackendFinalize(c.get()),
             "finalizing the convolution descriptor");
  return true;
}

/// Appends to `parts` the x, w and y tensors, the convolution, the
/// operation and, last, the finalized operation graph.
bool makeGraph(cudnnHandle_t handle, ConvDirection dir, const ConvProblem &p,
               amp_rt_dtype inType, amp_rt_dtype outType, float alpha,
               float beta, int64_t alignment,
               std::vector<GraphDescriptor> &parts, BuildError &err) {
  const amp_rt_conv2d_desc &d = p.desc;
  const bool nhwc = d.layout == AMP_RT_NHWC;
  // Dimensions in the graph API's order, strides from the storage layout.
  // A grouped convolution has no group-count attribute: cuDNN infers
  // G = C / (the filter's C) from x's and w's dimensions, so w is
  // [K, C/G, R, S].
  const std::array<int64_t, 4> xDims = {d.N, d.C, d.H, d.W},
                               yDims = {d.N, d.K, p.P, p.Q},
                               wDims = {d.K, filterChannels(d), d.R, d.S};
  const std::array<int64_t, 4> xStrides =
      nhwc ? std::array<int64_t, 4>{d.H * d.W * d.C, 1, d.W * d.C, d.C}
           : std::array<int64_t, 4>{d.C * d.H * d.W, d.H * d.W, d.W, 1};
  const std::array<int64_t, 4> yStrides =
      nhwc ? std::array<int64_t, 4>{p.P * p.Q * d.K, 1, p.Q * d.K, d.K}
           : std::array<int64_t, 4>{d.K * p.P * p.Q, p.P * p.Q, p.Q, 1};
  const std::array<int64_t, 4> wStrides = filterStrides(d.filter_layout, d);
  // The operation's output is y, dx or dw; its inputs are the other two.
  const amp_rt_dtype xType =
      dir == ConvDirection::BackwardData ? outType : inType;
  const amp_rt_dtype wType =
      dir == ConvDirection::BackwardFilter ? outType : inType;
  const amp_rt_dtype yType = dir == ConvDirection::Forward ? outType : inType;

  GraphDescriptor x, w, y, conv, op, graph;
  if (!makeTensor(x, kUidX, xType, xDims, xStrides, alignment, err) ||
      !makeTensor(w, kUidW, wType, wDims, wStrides, alignment, err) ||
      !makeTensor(y, kUidY, yType, yDims, yStrides, alignment, err) ||
      !makeConvolution(conv, d, err))
    return false;

  const ConvOpNames names = convOpNames(dir);
  GRAPH_STEP(op.create(names.type), "creating the convolution operation");
  cudnnBackendDescriptor_t o = op.get();
  GRAPH_STEP(setDescriptor(o, names.x, x.get()),
             "setting the operation's x tensor");
  GRAPH_STEP(setDescriptor(o, names.w, w.get()),
             "setting the operation's w tensor");
  GRAPH_STEP(setDescriptor(o, names.y, y.get()),
             "setting the operation's y tensor");
  GRAPH_STEP(setDescriptor(o, names.conv, conv.get()),
             "setting the operation's convolution descriptor");
  // Scaling factors are float for every compute type but double.
  GRAPH_STEP(
      cudnnBackendSetAttribute(o, names.alpha, CUDNN_TYPE_FLOAT, 1, &alpha),
      "setting the operation's alpha");
  GRAPH_STEP(
      cudnnBackendSetAttribute(o, names.beta, CUDNN_TYPE_FLOAT, 1, &beta),
      "setting the operation's beta");
  GRAPH_STEP(cudnnBackendFinalize(o), "finalizing the convolution operation");

  GRAPH_STEP(graph.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR),
             "creating the operation graph");
  GRAPH_SET(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
            1, &o);
  // Deprecated (optional) since cuDNN 9.8, required before: set it and let
  // finalization say whether it was needed.
  (void)cudnnBackendSetAttribute(graph.get(), CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                 CUDNN_TYPE_HANDLE, 1, &handle);
  GRAPH_STEP(cudnnBackendFinalize(graph.get()),
             "finalizing the operation graph");

  for (GraphDescriptor *part : {&x, &w, &y, &conv, &op, &graph})
    parts.push_back(std::move(*part));
  return true;
}

/// The engine configurations that heuristics mode A returns for `graph`,
/// best first; the heuristics descriptor is appended to `parts`.
bool heuristicConfigs(cudnnBackendDescriptor_t graph,
                      std::vector<GraphDescriptor> &parts,
                      std::vector<GraphDescriptor> &configs, BuildError &err) {
  const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  GraphDescriptor heur;
  GRAPH_STEP(heur.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR),
             "creating the engine heuristics");
  GRAPH_SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
  GRAPH_SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  GRAPH_STEP(cudnnBackendFinalize(heur.get()),
             "finalizing the engine heuristics");
  int64_t count = 0;
  GRAPH_STEP(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      nullptr),
             "counting CUDNN_ATTR_ENGINEHEUR_RESULTS");
  // cuDNN fills in descriptors that the caller created.
  configs.clear();
  configs.resize(size_t(std::max<int64_t>(count, 0)));
  std::vector<cudnnBackendDescriptor_t> raw;
  for (GraphDescriptor &c : configs) {
    GRAPH_STEP(c.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR),
               "creating an engine configuration");
    raw.push_back(c.get());
  }
  int64_t returned = 0;
  if (count > 0)
    GRAPH_STEP(cudnnBackendGetAttribute(
                   heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                   CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()),
               "getting CUDNN_ATTR_ENGINEHEUR_RESULTS");
  configs.resize(size_t(std::clamp<int64_t>(returned, 0, count)));
  parts.push_back(std::move(heur));
  return true;
}

/// Why an engine configuration was passed over without an error.
enum class Skip { None, Notes, Workspace };

/// Builds in `plan` the execution plan of engine configuration `config`,
/// unless its engine has a rejected numerical note or the plan needs more
/// than `maxWorkspace` bytes of workspace (`skip` says which). An engine
/// whose notes cannot be read is not used either (an error).
bool tryConfig(cudnnHandle_t handle, cudnnBackendDescriptor_t config,
               size_t maxWorkspace, GraphDescriptor &plan, int64_t &workspace,
               int64_t &engineIndex, Skip &skip, BuildError &err) {
  skip = Skip::None;
  GraphDescriptor engine;
  GRAPH_STEP(engine.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR),
             "creating an engine descriptor");
  cudnnBackendDescriptor_t e = engine.get();
  int64_t n = 0;
  GRAPH_STEP(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e),
             "getting CUDNN_ATTR_ENGINECFG_ENGINE");
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t noteCount = 0;
  GRAPH_STEP(cudnnBackendGetAttribute(
                 e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &noteCount, notes),
             "getting CUDNN_ATTR_ENGINE_NUMERICAL_NOTE");
  noteCount =
      std::clamp<int64_t>(noteCount, 0, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
  if (std::any_of(notes, notes + noteCount, rejectedNote)) {
    skip = Skip::Notes;
    return true;
  }
  engineIndex = -1;
  (void)cudnnBackendGetAttribute(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                 CUDNN_TYPE_INT64, 1, &n, &engineIndex);
  // Known before finalizing since cuDNN 9.2; the plan says it again below.
  int64_t configWorkspace = 0;
  if (cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE,
                               CUDNN_TYPE_INT64, 1, &n,
                               &configWorkspace) == CUDNN_STATUS_SUCCESS &&
      uint64_t(configWorkspace) > maxWorkspace) {
    skip = Skip::Workspace;
    return true;
  }

  GRAPH_STEP(plan.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR),
             "creating an execution plan");
  // Deprecated (optional) since cuDNN 9.8, required before.
  (void)cudnnBackendSetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                 CUDNN_TYPE_HANDLE, 1, &handle);
  GRAPH_SET(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
            CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config);
  GRAPH_STEP(cudnnBackendFinalize(plan.get()), "finalizing an execution plan");
  GRAPH_STEP(cudnnBackendGetAttribute(plan.get(),
                                      CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                      CUDNN_TYPE_INT64, 1, &n, &workspace),
             "getting CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE");
  if (workspace < 0 || uint64_t(workspace) > maxWorkspace)
    skip = Skip::Workspace;
  return true;
}
} // namespace

std::unique_ptr<GraphConvPlans::Plan>
GraphConvPlans::build(cudnnHandle_t handle, ConvDirection dir,
                      const ConvProblem &p, amp_rt_dtype inType,
                      amp_rt_dtype outType, float alpha, float beta,
                      int64_t alignment) {
  auto result = std::make_unique<Plan>();
  // A refusal keeps no descriptors (`result` releases them in order).
  auto refuse = [&](const std::string &reason) {
    auto refused = std::make_unique<Plan>();
    refused->why = reason;
    return refused;
  };

  BuildError err;
  std::vector<GraphDescriptor> configs;
  if (!makeGraph(handle, dir, p, inType, outType, alpha, beta, alignment,
                 result->parts, err) ||
      !heuristicConfigs(result->parts.back().get(), result->parts, configs,
                        err))
    return refuse(err.message());

  int notes = 0, large = 0, failed = 0;
  BuildError lastFailure;
  for (size_t i = 0; i < configs.size(); ++i) {
    GraphDescriptor plan;
    int64_t workspace = 0, engine = -1;
    BuildError configErr;
    Skip skip;
    if (!tryConfig(handle, configs[i].get(), maxWorkspace, plan, workspace,
                   engine, skip, configErr)) {
      ++failed;
      lastFailure = configErr;
      continue;
    }
    if (skip != Skip::None) {
      ++(skip == Skip::Notes ? notes : large);
      continue;
    }
    result->parts.push_back(std::move(configs[i]));
    result->plan = std::move(plan);
    result->workspace = workspace;
    result->engine = engine;
    result->config = i + 1;
    result->configs = configs.size();
    return result;
  }
  char buf[256];
  std::snprintf(
      buf, sizeof(buf),
      "no usable engine among the %zu configurations of heuristics "
      "mode A (%d with rejected numerical notes, %d over the %zu-byte "
      "workspace limit, %d failed)",
      configs.size(), notes, large, maxWorkspace, failed);
  std::string reason = buf;
  if (failed)
    reason += "; last failure: " + lastFailure.message();
  return refuse(reason);
}
} // namespace cuda
} // namespace rt
} // namespace amp
