// Type declarations for glint-ml (the JS API over Glint's WebAssembly engine).
// Names and signatures follow TensorFlow.js 4.x where they exist.
/**
 * A 64-bit integer with long.js's fields and methods (TF.js's Long type), as
 * util.fingerPrint64 and util.hexToLong return it (glint-ml's own, on BigInt).
 */
export interface Long {
  readonly high: number;
  readonly low: number;
  readonly unsigned: boolean;
  toString(radix?: number): string;
  toNumber(): number;
  toBigInt(): bigint;
  toSigned(): Long;
  toUnsigned(): Long;
  isZero(): boolean;
  isNegative(): boolean;
  equals(other: LongLike): boolean;
  compare(other: LongLike): number;
  add(other: LongLike): Long;
  subtract(other: LongLike): Long;
  multiply(other: LongLike): Long;
  divide(other: LongLike): Long;
  modulo(other: LongLike): Long;
  and(other: LongLike): Long;
  or(other: LongLike): Long;
  xor(other: LongLike): Long;
  not(): Long;
  negate(): Long;
  shiftLeft(bits: number | Long): Long;
  shiftRight(bits: number | Long): Long;
  shiftRightUnsigned(bits: number | Long): Long;
  // long.js's short names
  sub(other: LongLike): Long;
  mul(other: LongLike): Long;
  div(other: LongLike): Long;
  mod(other: LongLike): Long;
  eq(other: LongLike): boolean;
  comp(other: LongLike): number;
  neg(): Long;
  shl(bits: number | Long): Long;
  shr(bits: number | Long): Long;
  shru(bits: number | Long): Long;
}
/** What Long's arithmetic takes: another Long, a number, a decimal string or a bigint. */
export type LongLike = Long | number | string | bigint;

/**
 * complex64 tensors come only from complex(), cast() and the FFTs: tensor() refuses the dtype, as TF.js does.
 * string tensors hold UTF-8 strings in JS: layout ops, equal/notEqual and tf.string take them.
 */
export type DataType = 'float32' | 'int32' | 'bool' | 'complex64' | 'string';
export type TypedArray = Float32Array | Int32Array | Uint8Array;
export type TensorLike = number | boolean | number[] | number[][] | number[][][] | number[][][][] |
    boolean[] | boolean[][] | boolean[][][] | TypedArray | string | string[] | string[][] | string[][][] | Uint8Array[];
export type Shape = number[];

export class GlintError extends Error {}

export interface ReadyOptions {
  /** 'auto' (default): the pthreads build when the page is cross-origin isolated. */
  threads?: 'auto' | boolean;
  /**
   * 'auto' (default): the build whose GEMM and convolution kernels use relaxed SIMD's
   * fused multiply-add (glint-st-relaxed.wasm, glint-mt-relaxed.wasm) where the engine
   * validates relaxed SIMD, else (or when that file does not load) the plain one.
   * true: that build or an error; false: the plain build.
   */
  relaxedSimd?: 'auto' | boolean;
  /** Where glint-st.mjs / glint-mt.mjs and their .wasm live (default: the package's dist/). */
  wasmPath?: string;
  print?: (s: string) => void;
  printErr?: (s: string) => void;
  /**
   * Called as the engine's .wasm downloads (in a page; not for a copy embedded in the
   * bundle): loaded bytes so far and the total (null when the server gives no plain
   * Content-Length, e.g. a compressed response). Through glint.worker() too.
   */
  onProgress?: (progress: {file: string; loaded: number; total: number | null}) => void;
  /**
   * false: no WebGPU device is requested (the webgpu backend stays unavailable). A GPU
   * object (navigator.gpu's kind, e.g. from node's `webgpu` package) is used instead of
   * navigator.gpu. In node the device is acquired here for true or a GPU object, else at
   * the first setBackend('webgpu'), from the optional package `webgpu` (Dawn). In a page,
   * 'auto' (default) asks for an adapter unless WebGL's renderer is software (then at
   * the first setBackend('webgpu')); true always asks.
   */
  webgpu?: boolean | 'auto' | {requestAdapter(options?: object): Promise<any>};
}
/**
 * Starts the engine; resolves when ops can run. In a page or worker, await it before
 * the first op. In node the first op starts the engine with these defaults when
 * nothing called ready() (as TF.js programs expect); options that need another build
 * (wasmPath, threads: true) must then come before any op.
 */
export function ready(options?: ReadyOptions): Promise<void>;
export function isReady(): boolean;
export const version: string;

export class Tensor {
  readonly id: number;
  readonly shape: number[];
  readonly dtype: DataType;
  readonly rank: number;
  readonly size: number;
  readonly isDisposed: boolean;
  /** Blocking read-back: on gl it waits for the GPU. Prefer data(). */
  dataSync(): TypedArray;
  /** Read-back that does not stall the GPU pipeline (a fence polled between tasks). */
  data(): Promise<TypedArray>;
  /**
   * On the webgpu backend: a copy of the values in a GPUBuffer of glint's device
   * (webgpu.device()), alive until tensorRef is disposed. Other backends throw.
   */
  dataToGPU(options?: object): {tensorRef: Tensor; buffer: any};
  arraySync(): any;
  array(): Promise<any>;
  dispose(): void;
  clone(): Tensor;
  toString(): string;
  print(): void;
  asType(dtype: DataType): Tensor;
  fft(): Tensor;
  ifft(): Tensor;
  rfft(fftLength?: number): Tensor;
  irfft(): Tensor;
  as1D(): Tensor;
  as2D(rows: number, columns: number): Tensor;
  add(b: Tensor | TensorLike): Tensor;
  sub(b: Tensor | TensorLike): Tensor;
  mul(b: Tensor | TensorLike): Tensor;
  div(b: Tensor | TensorLike): Tensor;
  pow(b: Tensor | TensorLike): Tensor;
  maximum(b: Tensor | TensorLike): Tensor;
  minimum(b: Tensor | TensorLike): Tensor;
  squaredDifference(b: Tensor | TensorLike): Tensor;
  equal(b: Tensor | TensorLike): Tensor;
  greater(b: Tensor | TensorLike): Tensor;
  less(b: Tensor | TensorLike): Tensor;
  neg(): Tensor;
  abs(): Tensor;
  exp(): Tensor;
  log(): Tensor;
  sqrt(): Tensor;
  square(): Tensor;
  relu(): Tensor;
  sigmoid(): Tensor;
  tanh(): Tensor;
  sum(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  mean(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  max(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  min(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  argMax(axis?: number): Tensor;
  argMin(axis?: number): Tensor;
  softmax(dim?: number): Tensor;
  matMul(b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  reshape(shape: number[]): Tensor;
  flatten(): Tensor;
  transpose(perm?: number[]): Tensor;
  slice(begin: number | number[], size?: number | number[]): Tensor;
  gather(indices: Tensor | number[], axis?: number, batchDims?: number): Tensor;
  expandDims(axis?: number): Tensor;
  squeeze(axis?: number[]): Tensor;
  cast(dtype: DataType): Tensor;
  /** Row-major strides without the last (1); rankType: the rank as a string, 'higher' from 5. */
  readonly strides: number[];
  readonly rankType: string;
  throwIfDisposed(): void;
  asScalar(): Tensor;
  as3D(rows: number, columns: number, depth: number): Tensor;
  as4D(rows: number, columns: number, depth: number, depth2: number): Tensor;
  as5D(rows: number, columns: number, depth: number, depth2: number, depth3: number): Tensor;
  reshapeAs(x: Tensor): Tensor;
  toBool(): Tensor;
  toFloat(): Tensor;
  toInt(): Tensor;
  variable(trainable?: boolean, name?: string, dtype?: DataType): Variable;
  buffer(): Promise<TensorBuffer>;
  bufferSync(): TensorBuffer;
  bytes(): Promise<Uint8Array>;
  concat(x: Tensor | Tensor[], axis?: number): Tensor;
  stack(x: Tensor | Tensor[], axis?: number): Tensor;
  where(condition: Tensor | TensorLike, x: Tensor | TensorLike): Tensor;
  unique(axis?: number): {values: Tensor; indices: Tensor};
  depthToSpace(blockSize: number, dataFormat?: 'NHWC'): Tensor;
  spaceToBatchND(blockShape: number[], paddings: number[][]): Tensor;
  batchToSpaceND(blockShape: number[], crops: number[][]): Tensor;
  mirrorPad(paddings: Array<[number, number]>, mode: 'reflect' | 'symmetric'): Tensor;
  topk(k?: number, sorted?: boolean): {values: Tensor; indices: Tensor};
  asin(): Tensor; acos(): Tensor; atan(): Tensor; asinh(): Tensor; acosh(): Tensor; atanh(): Tensor;
  erf(): Tensor;
  atan2(b: Tensor | TensorLike): Tensor;
  resizeBilinear(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  resizeNearestNeighbor(size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean):
      Tensor;
  // ---- generated by scripts/gen_types.mjs: chained ops (edit the op, not these)
  all(axis?: Axis, keepDims?: boolean): Tensor;
  any(axis?: Axis, keepDims?: boolean): Tensor;
  avgPool(filterSize: Pair, strides?: Pair, pad?: Padding): Tensor;
  batchNorm(mean: T, variance: T, offset?: T, scale?: T, varianceEpsilon?: number): Tensor;
  broadcastTo(shape: number[]): Tensor;
  ceil(): Tensor;
  clipByValue(min: number, max: number): Tensor;
  conv1d(filter: T, stride?: number, pad?: 'valid' | 'same' | number, dataFormat?: 'NWC',
      dilation?: number): Tensor;
  conv2d(filter: T, strides?: Pair, pad?: WindowPadding, dataFormat?: 'NHWC',
      dilations?: Pair): Tensor;
  conv2dTranspose(filter: T, outputShape: number[], strides?: Pair, pad?: Padding): Tensor;
  cos(): Tensor;
  cosh(): Tensor;
  cumprod(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  cumsum(axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
  depthwiseConv2d(filter: T, strides?: Pair, pad?: WindowPadding, dataFormat?: 'NHWC',
      dilations?: Pair): Tensor;
  dilation2d(filter: T, strides: Pair, pad: 'valid' | 'same', dilations?: Pair,
      dataFormat?: 'NHWC'): Tensor;
  divNoNan(b: T): Tensor;
  dot(b: T): Tensor;
  elu(): Tensor;
  euclideanNorm(axis?: number | number[] | null, keepDims?: boolean): Tensor;
  expm1(): Tensor;
  floor(): Tensor;
  floorDiv(b: T): Tensor;
  gelu(approximate?: boolean): Tensor;
  greaterEqual(b: T): Tensor;
  isFinite(): Tensor;
  isInf(): Tensor;
  isNaN(): Tensor;
  leakyRelu(alpha?: number): Tensor;
  lessEqual(b: T): Tensor;
  localResponseNormalization(depthRadius?: number, bias?: number, alpha?: number,
      beta?: number): Tensor;
  log1p(): Tensor;
  logSigmoid(): Tensor;
  logSoftmax(axis?: number): Tensor;
  logSumExp(axis?: Axis, keepDims?: boolean): Tensor;
  logicalAnd(b: T): Tensor;
  logicalNot(): Tensor;
  logicalOr(b: T): Tensor;
  logicalXor(b: T): Tensor;
  maxPool(filterSize: Pair, strides?: Pair, pad?: WindowPadding): Tensor;
  mod(b: T): Tensor;
  norm(ord?: number | 'euclidean' | 'fro', axis?: number | number[] | null,
      keepDims?: boolean): Tensor;
  notEqual(b: T): Tensor;
  oneHot(depth: number, onValue?: number, offValue?: number, dtype?: DataType): Tensor;
  onesLike(): Tensor;
  pad(paddings: Array<[number, number]>, constantValue?: number): Tensor;
  pool(windowShape: Pair, poolingType: 'avg' | 'max', pad: 'valid' | 'same', dilations?: Pair,
      strides?: Pair): Tensor;
  prelu(alpha: T): Tensor;
  prod(axis?: Axis, keepDims?: boolean): Tensor;
  reciprocal(): Tensor;
  relu6(): Tensor;
  reverse(axis?: number | number[]): Tensor;
  round(): Tensor;
  rsqrt(): Tensor;
  selu(): Tensor;
  separableConv2d(depthwiseFilter: T, pointwiseFilter: T, strides: Pair,
      pad: 'valid' | 'same' | number, dilation?: Pair, dataFormat?: 'NHWC'): Tensor;
  sign(): Tensor;
  sin(): Tensor;
  sinh(): Tensor;
  softplus(): Tensor;
  split(numOrSizeSplits: number | number[], axis?: number): Tensor[];
  step(alpha?: number): Tensor;
  stridedSlice(begin: number[], end: number[], strides?: number[], beginMask?: number,
      endMask?: number, ellipsisMask?: number, newAxisMask?: number, shrinkAxisMask?: number): Tensor;
  tan(): Tensor;
  tile(reps: number[]): Tensor;
  unsortedSegmentSum(segmentIds: T, numSegments: number): Tensor;
  unstack(axis?: number): Tensor[];
  zerosLike(): Tensor;
  // ---- end of generated chained ops
}

export class Variable extends Tensor {
  readonly name: string;
  trainable: boolean;
  assign(value: Tensor): void;
}
/** A custom layer's weight (Layer.addWeight): read() is the variable itself. Also made directly, as in TF.js. */
export class LayerVariable extends Variable {
  constructor(val: Tensor, dtype?: DataType, name?: string, trainable?: boolean, constraint?: unknown);
  readonly originalName: string;
  constraint: unknown;
  read(): Variable;
  write(value: Tensor): this;
}

export function tensor(values: TensorLike, shape?: number[], dtype?: DataType): Tensor;
export function scalar(value: number | boolean | string, dtype?: DataType): Tensor;
export function tensor1d(values: TensorLike, dtype?: DataType): Tensor;
export function tensor2d(values: TensorLike, shape?: [number, number], dtype?: DataType): Tensor;
export function tensor3d(values: TensorLike, shape?: [number, number, number], dtype?: DataType): Tensor;
export function tensor4d(values: TensorLike, shape?: [number, number, number, number], dtype?: DataType): Tensor;
export function tensor5d(values: TensorLike, shape?: [number, number, number, number, number], dtype?: DataType): Tensor;
export function tensor6d(values: TensorLike, shape?: [number, number, number, number, number, number],
                         dtype?: DataType): Tensor;
export function variable(initial: Tensor | TensorLike, trainable?: boolean, name?: string): Variable;

export type TensorContainer = void | Tensor | number | string | TensorContainer[] |
    {[key: string]: TensorContainer};
/** Disposes every tensor fn creates except those it returns (and kept ones). */
export function tidy<T extends TensorContainer>(fn: () => T): T;
export function tidy<T extends TensorContainer>(name: string, fn: () => T): T;
export function keep<T extends Tensor>(t: T): T;
export function dispose(container: TensorContainer): void;

// ---- Engine ---------------------------------------------------------------------------

export interface BackendStatus {
  name: string; priority: number; available: boolean; reason: string; software: boolean;
}
/** The WebAssembly build in use (backendInfo().build). */
export interface BuildInfo {
  name: 'glint-st' | 'glint-mt';
  threads: boolean;
  /** Whether the relaxed-SIMD variant of the build runs (ReadyOptions.relaxedSimd). */
  relaxedSimd: boolean;
  /** Why it does not (the engine lacks relaxed SIMD, relaxedSimd: false, its file did not load); null when it runs. */
  relaxedSimdWhy: string | null;
  /** Why the threads build was wanted but not used (null when it was not wanted or runs). */
  fallback: string | null;
  /** Where the wasm came from: its URL or file, or 'embedded' (the copy in the JS bundle). */
  wasmFrom: string;
  /** The build's files as fetched. */
  files: string[];
}

/** One backend's time for a calibration's step (msPerStep -1: the step failed there). */
export interface BackendTiming { backend: string; msPerStep: number; runs: number; error: string; }
/** What a calibration measured: the step, each backend's time, the one it kept. */
export interface Calibration { what: string; timings: BackendTiming[]; chosen: string; }
export interface CalibrateOptions {
  /** Default: every available backend except reference and software renderers. */
  candidates?: string[];
  /** Untimed steps first on each backend (shader compilation); default 2. */
  warmup?: number;
  /** Timed steps at most on each backend (default 5), stopping past budgetMs (default 500). */
  runs?: number; budgetMs?: number;
}
export interface BackendInfo {
  active: string; why: string; backends: BackendStatus[]; build: BuildInfo;
  /** True once a calibration chose the active backend; calibration: the last one. */
  calibrated: boolean; calibration?: Calibration;
  /** True until setBackend or a calibration chose on purpose (fit() then calibrates). */
  chosenAutomatically: boolean;
  /** What a calibration times by default. */
  calibrationCandidates: string[];
}
export interface MemoryInfo {
  numTensors: number; numDataBuffers: number; numBytes: number; unreliable: boolean;
  bytesPerBackend: {[backend: string]: number}; numAllocations: number; numPoolHits: number;
  /** JS handles alive (tensors the page has not disposed). */
  numHandles: number;
}
/** true; a promise of true where the device is acquired first (webgpu in node). Await either. */
export function setBackend(name: 'webgpu' | 'gl' | 'cpu' | 'reference' | string): boolean | Promise<boolean>;
export function getBackend(): string;
/** URLs this context fetched for Glint (script, modules, wasm): for an offline cache. */
export function loadedResources(): string[];
/** Checks every kernel's outputs; the first NaN/Infinity throws a GlintError naming the kernel. */
export function enableDebugMode(on?: boolean): void;
/** gl stores float32 kernel outputs as float16 (train with loss scaling); others ignore it. */
export function setFloat16Activations(on?: boolean): void;
export function backendInfo(): BackendInfo;
export function memory(): MemoryInfo;
/** Disposes every live variable, model weights and optimizer state included (TF.js's disposeVariables). */
export function disposeVariables(): void;
export function releaseUnusedMemory(): void;
export function setSeed(seed: number): void;
/** Threads the cpu backend's kernels use, the calling one included (at most the workers the pthreads build started; 1 without threads). */
export function setNumThreads(n: number): void;
export function getNumThreads(): number;
export function kernelTable(): {[kernel: string]: string[]};
/** The webgpu backend's counters, and a forced device loss for tests. */
export const webgpu: {
  stats(): {available: boolean, buffers?: number, pooledBuffers?: number, pooledBytes?: number,
            pipelinesCached?: number, bytes?: number,
            deviceLosses?: number, variablesRestored?: number, variablesMoved?: number,
            dispatches?: number, submits?: number, bindGroupsMade?: number, pipelinesMade?: number};
  loseDevice(): void;
  /** The GPUDevice the webgpu backend runs on (null before setBackend('webgpu')). */
  device(): any;
  /** Tests: the kernels' GPU forms also on a software adapter (SwiftShader). */
  forceGpuKernels(on?: boolean): void;
  /** The precision self-test's verdict on [sent, back] float bits and the GPU's sum of 1..1000. */
  classifySelfTest(pairs: Array<[number, number]>, sum: number):
      {usable: boolean, why: string, deviations: string[]};
  /** GPU timing by kernel (timestamp queries) from now on; false where the device has none. */
  startKernelTiming(): boolean;
  /** Stops it; one row per kernel, the most GPU time first. */
  stopKernelTiming(): Promise<Array<{kernel: string, calls: number, totalMs: number, meanUs: number}>>;
};

// ---- Ops (also under glint.ops) --------------------------------------------------------

type T = Tensor | TensorLike;
type Axis = number | number[] | null;
type Pair = number | [number, number];
type Padding = 'valid' | 'same';
/** TF.js's window paddings: a name, a number (height and width, both sides), or explicit NHWC pairs. */
type WindowPadding = Padding | number | [[0, 0], [number, number], [number, number], [0, 0]];
export function neg(x: T): Tensor; export function abs(x: T): Tensor;
export function exp(x: T): Tensor; export function log(x: T): Tensor;
export function log1p(x: T): Tensor; export function sqrt(x: T): Tensor;
export function rsqrt(x: T): Tensor; export function square(x: T): Tensor;
export function reciprocal(x: T): Tensor; export function relu(x: T): Tensor;
export function relu6(x: T): Tensor; export function elu(x: T): Tensor;
export function selu(x: T): Tensor; export function sigmoid(x: T): Tensor;
export function tanh(x: T): Tensor; export function softplus(x: T): Tensor;
export function sin(x: T): Tensor; export function cos(x: T): Tensor;
export function sign(x: T): Tensor; export function floor(x: T): Tensor;
export function ceil(x: T): Tensor; export function round(x: T): Tensor;
export function logicalNot(x: T): Tensor; export function zerosLike(x: T): Tensor;
export function onesLike(x: T): Tensor;
export function leakyRelu(x: T, alpha?: number): Tensor;
export function gelu(x: T, approximate?: boolean): Tensor;
export function add(a: T, b: T): Tensor; export function sub(a: T, b: T): Tensor;
export function mul(a: T, b: T): Tensor; export function div(a: T, b: T): Tensor;
export function pow(a: T, b: T): Tensor; export function maximum(a: T, b: T): Tensor;
export function minimum(a: T, b: T): Tensor; export function squaredDifference(a: T, b: T): Tensor;
export function floorDiv(a: T, b: T): Tensor; export function mod(a: T, b: T): Tensor;
export function equal(a: T, b: T): Tensor; export function notEqual(a: T, b: T): Tensor;
export function less(a: T, b: T): Tensor; export function lessEqual(a: T, b: T): Tensor;
export function greater(a: T, b: T): Tensor; export function greaterEqual(a: T, b: T): Tensor;
export function logicalAnd(a: T, b: T): Tensor; export function logicalOr(a: T, b: T): Tensor;
export function logicalXor(a: T, b: T): Tensor;
export function where(condition: T, a: T, b: T): Tensor;
export function cast(x: T, dtype: DataType): Tensor;
export function clipByValue(x: T, min: number, max: number): Tensor;
export function sum(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function mean(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function max(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function min(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function prod(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function logSumExp(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function any(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function all(x: T, axis?: Axis, keepDims?: boolean): Tensor;
export function argMax(x: T, axis?: number): Tensor;
export function argMin(x: T, axis?: number): Tensor;
export function softmax(logits: T, dim?: number): Tensor;
export function logSoftmax(logits: T, axis?: number): Tensor;
export function moments(x: T, axis?: Axis, keepDims?: boolean): {mean: Tensor; variance: Tensor};
export function batchNorm(x: T, mean: T, variance: T, offset?: T, scale?: T,
                          varianceEpsilon?: number): Tensor;
export function matMul(a: T, b: T, transposeA?: boolean, transposeB?: boolean): Tensor;
export function dot(a: T, b: T): Tensor;
export function conv2d(x: T, filter: T, strides?: Pair, pad?: WindowPadding, dataFormat?: 'NHWC',
                       dilations?: Pair): Tensor;
export function depthwiseConv2d(x: T, filter: T, strides?: Pair, pad?: WindowPadding,
                                dataFormat?: 'NHWC', dilations?: Pair): Tensor;
export function conv2dTranspose(x: T, filter: T, outputShape: number[], strides?: Pair,
                                pad?: Padding): Tensor;
export function maxPool(x: T, filterSize: Pair, strides?: Pair, pad?: WindowPadding): Tensor;
export function avgPool(x: T, filterSize: Pair, strides?: Pair, pad?: Padding): Tensor;
export interface KernelInfo {
  name: string; bytesAdded: number; totalBytesSnapshot: number; tensorsAdded: number; totalTensorsSnapshot: number;
  inputShapes: number[][]; outputShapes: number[][]; kernelTimeMs: number; extraInfo: string;
}
export interface ProfileInfo<R = unknown> {
  newBytes: number; newTensors: number; peakBytes: number; kernels: KernelInfo[]; result: R; kernelNames: string[];
}
/** The kernels f runs (sync or async) with the memory each added, as TF.js's tf.profile. */
export function profile<R>(f: () => R | Promise<R>): Promise<ProfileInfo<R>>;
type Triple = number | [number, number, number];
/** 3-D windows, NDHWC; a rank-4 x is one example [d, h, w, c]. */
export function conv3d(x: T, filter: T, strides?: Triple, pad?: Padding | number, dataFormat?: 'NDHWC',
                       dilations?: Triple): Tensor;
export function conv3dTranspose(x: T, filter: T, outputShape: number[], strides?: Triple,
                                pad?: Padding): Tensor;
export function maxPool3d(x: T, filterSize?: Triple, strides?: Triple, pad?: Padding | number,
                          dimRoundingMode?: 'floor' | 'round' | 'ceil', dataFormat?: 'NDHWC'): Tensor;
export function avgPool3d(x: T, filterSize?: Triple, strides?: Triple, pad?: Padding,
                          dimRoundingMode?: 'floor' | 'round' | 'ceil', dataFormat?: 'NDHWC'): Tensor;
export function reshape(x: T, shape: number[]): Tensor;
export function transpose(x: T, perm?: number[]): Tensor;
export function concat(tensors: T[], axis?: number): Tensor;
export function stack(tensors: T[], axis?: number): Tensor;
export function split(x: T, numOrSizeSplits: number | number[], axis?: number): Tensor[];
export function unstack(x: T, axis?: number): Tensor[];
export function slice(x: T, begin: number | number[], size?: number | number[]): Tensor;
export function stridedSlice(x: T, begin: number[], end: number[], strides?: number[],
                             beginMask?: number, endMask?: number, ellipsisMask?: number,
                             newAxisMask?: number, shrinkAxisMask?: number): Tensor;
export function pad(x: T, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function gather(x: T, indices: T, axis?: number, batchDims?: number): Tensor;
export function unsortedSegmentSum(x: T, segmentIds: T, numSegments: number): Tensor;
/** int32 unless dtype says otherwise, as TF.js. */
export function oneHot(indices: T, depth: number, onValue?: number, offValue?: number,
                       dtype?: DataType): Tensor;
export function tile(x: T, reps: number[]): Tensor;
// Composed from the ops above (differentiable, on every backend).
export function linspace(start: number, stop: number, num: number): Tensor;
export function addN(tensors: T[]): Tensor;
export function eye(numRows: number, numColumns?: number, batchShape?: number[],
                    dtype?: DataType): Tensor;
export function clone(x: T): Tensor;
export function print(x: T): void;
export function outerProduct(v1: T, v2: T): Tensor;
export function norm(x: T, ord?: number | 'euclidean' | 'fro', axis?: number | number[] | null,
                     keepDims?: boolean): Tensor;
export function euclideanNorm(x: T, axis?: number | number[] | null, keepDims?: boolean): Tensor;
export function logSigmoid(x: T): Tensor;
export function step(x: T, alpha?: number): Tensor;
export function divNoNan(a: T, b: T): Tensor;
export function isNaN(x: T): Tensor;
export function isInf(x: T): Tensor;
export function isFinite(x: T): Tensor;
export function tan(x: T): Tensor;
export function sinh(x: T): Tensor;
export function cosh(x: T): Tensor;
export function cumsum(x: T, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
export function slice1d(x: T, begin: number, size: number): Tensor;
export function slice2d(x: T, begin: [number, number], size: [number, number]): Tensor;
export function slice3d(x: T, begin: number[], size: number[]): Tensor;
export function slice4d(x: T, begin: number[], size: number[]): Tensor;
export function concat1d(tensors: T[]): Tensor;
export function concat2d(tensors: T[], axis: number): Tensor;
export function concat3d(tensors: T[], axis: number): Tensor;
export function concat4d(tensors: T[], axis: number): Tensor;
export function reverse1d(x: T): Tensor;
export function reverse2d(x: T, axis?: number | number[]): Tensor;
export function reverse3d(x: T, axis?: number | number[]): Tensor;
export function reverse4d(x: T, axis?: number | number[]): Tensor;
export function pad1d(x: T, paddings: [number, number], constantValue?: number): Tensor;
export function pad2d(x: T, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function pad3d(x: T, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function pad4d(x: T, paddings: Array<[number, number]>, constantValue?: number): Tensor;
export function prelu(x: T, alpha: T): Tensor;
export function expm1(x: T): Tensor;
export function broadcastTo(x: T, shape: number[]): Tensor;
export function meshgrid(x: T, y?: T, options?: {indexing?: 'xy' | 'ij'}): Tensor[];
export function conv1d(x: T, filter: T, stride?: number, pad?: 'valid' | 'same' | number,
                       dataFormat?: 'NWC', dilation?: number): Tensor;
/** No gradient for indices; x's gradient flows (TF.js has none). */
export function gatherND(x: T, indices: T): Tensor;
/** Reads the mask, then gathers. */
export function booleanMaskAsync(x: T, mask: T, axis?: number): Promise<Tensor>;
/** Reads condition; [count, rank] int32 coordinates of its true elements. */
export function whereAsync(condition: T): Promise<Tensor>;
export const math: {confusionMatrix(labels: T, predictions: T, numClasses: number): Tensor};
export function expandDims(x: T, axis?: number): Tensor;
export function squeeze(x: T, axis?: number[]): Tensor;
export function reverse(x: T, axis?: number | number[]): Tensor;
export function fill(shape: number[], value: number | string, dtype?: DataType): Tensor;
export function zeros(shape: number[], dtype?: DataType): Tensor;
export function ones(shape: number[], dtype?: DataType): Tensor;
export function range(start: number, stop: number, step?: number, dtype?: DataType): Tensor;
export function randomUniform(shape: number[], minval?: number, maxval?: number,
                              dtype?: 'float32', seed?: number): Tensor;
export function randomNormal(shape: number[], mean?: number, stdDev?: number,
                             dtype?: 'float32', seed?: number): Tensor;
export function truncatedNormal(shape: number[], mean?: number, stdDev?: number,
                                dtype?: 'float32', seed?: number): Tensor;
export function dropout(x: T, rate: number, noiseShape?: number[], seed?: number): Tensor;
export const fused: {
  matMul(args: {a: T; b: T; transposeA?: boolean; transposeB?: boolean; bias?: T;
                activation?: 'linear' | 'relu' | 'relu6' | 'elu' | 'sigmoid' | 'tanh' | 'leakyrelu';
                leakyreluAlpha?: number}): Tensor;
  conv2d(args: FusedWindowArgs): Tensor;
  depthwiseConv2d(args: FusedWindowArgs): Tensor;
};
export interface FusedWindowArgs {
  x: T; filter: T; strides: Pair; pad: WindowPadding; dataFormat?: 'NHWC'; dilations?: Pair; bias?: T;
  activation?: 'linear' | 'relu' | 'relu6' | 'elu' | 'sigmoid' | 'leakyrelu' | 'prelu';
  preluActivationWeights?: T; leakyreluAlpha?: number;
}
// ---- generated by scripts/gen_types.mjs: glint.ops, each op by name
export const ops: {
  readonly abs: typeof abs;
  readonly acos: typeof acos;
  readonly acosh: typeof acosh;
  readonly add: typeof add;
  readonly addN: typeof addN;
  readonly all: typeof all;
  readonly any: typeof any;
  readonly argMax: typeof argMax;
  readonly argMin: typeof argMin;
  readonly asin: typeof asin;
  readonly asinh: typeof asinh;
  readonly atan: typeof atan;
  readonly atan2: typeof atan2;
  readonly atanh: typeof atanh;
  readonly avgPool: typeof avgPool;
  readonly batchNorm: typeof batchNorm;
  readonly booleanMaskAsync: typeof booleanMaskAsync;
  readonly broadcastTo: typeof broadcastTo;
  readonly cast: typeof cast;
  readonly ceil: typeof ceil;
  readonly clipByValue: typeof clipByValue;
  readonly clone: typeof clone;
  readonly concat: typeof concat;
  readonly concat1d: typeof concat1d;
  readonly concat2d: typeof concat2d;
  readonly concat3d: typeof concat3d;
  readonly concat4d: typeof concat4d;
  readonly conv1d: typeof conv1d;
  readonly conv2d: typeof conv2d;
  readonly conv2dTranspose: typeof conv2dTranspose;
  readonly cos: typeof cos;
  readonly cosh: typeof cosh;
  readonly cumsum: typeof cumsum;
  readonly depthwiseConv2d: typeof depthwiseConv2d;
  readonly div: typeof div;
  readonly divNoNan: typeof divNoNan;
  readonly dot: typeof dot;
  readonly dropout: typeof dropout;
  readonly elu: typeof elu;
  readonly equal: typeof equal;
  readonly erf: typeof erf;
  readonly euclideanNorm: typeof euclideanNorm;
  readonly exp: typeof exp;
  readonly expandDims: typeof expandDims;
  readonly expm1: typeof expm1;
  readonly eye: typeof eye;
  readonly fill: typeof fill;
  readonly flatten: (x: T) => Tensor;
  readonly floor: typeof floor;
  readonly floorDiv: typeof floorDiv;
  readonly fused: typeof fused;
  readonly gather: typeof gather;
  readonly gatherND: typeof gatherND;
  readonly gelu: typeof gelu;
  readonly greater: typeof greater;
  readonly greaterEqual: typeof greaterEqual;
  readonly isFinite: typeof isFinite;
  readonly isInf: typeof isInf;
  readonly isNaN: typeof isNaN;
  readonly leakyRelu: typeof leakyRelu;
  readonly less: typeof less;
  readonly lessEqual: typeof lessEqual;
  readonly linspace: typeof linspace;
  readonly log: typeof log;
  readonly log1p: typeof log1p;
  readonly logSigmoid: typeof logSigmoid;
  readonly logSoftmax: typeof logSoftmax;
  readonly logSumExp: typeof logSumExp;
  readonly logicalAnd: typeof logicalAnd;
  readonly logicalNot: typeof logicalNot;
  readonly logicalOr: typeof logicalOr;
  readonly logicalXor: typeof logicalXor;
  readonly matMul: typeof matMul;
  readonly max: typeof max;
  readonly maxPool: typeof maxPool;
  readonly maximum: typeof maximum;
  readonly mean: typeof mean;
  readonly meshgrid: typeof meshgrid;
  readonly min: typeof min;
  readonly minimum: typeof minimum;
  readonly mod: typeof mod;
  readonly moments: typeof moments;
  readonly mul: typeof mul;
  readonly neg: typeof neg;
  readonly norm: typeof norm;
  readonly notEqual: typeof notEqual;
  readonly oneHot: typeof oneHot;
  readonly ones: typeof ones;
  readonly onesLike: typeof onesLike;
  readonly outerProduct: typeof outerProduct;
  readonly pad: typeof pad;
  readonly pad1d: typeof pad1d;
  readonly pad2d: typeof pad2d;
  readonly pad3d: typeof pad3d;
  readonly pad4d: typeof pad4d;
  readonly pow: typeof pow;
  readonly prelu: typeof prelu;
  readonly print: typeof print;
  readonly prod: typeof prod;
  readonly randomNormal: typeof randomNormal;
  readonly randomUniform: typeof randomUniform;
  readonly range: typeof range;
  readonly reciprocal: typeof reciprocal;
  readonly relu: typeof relu;
  readonly relu6: typeof relu6;
  readonly reshape: typeof reshape;
  readonly reverse: typeof reverse;
  readonly reverse1d: typeof reverse1d;
  readonly reverse2d: typeof reverse2d;
  readonly reverse3d: typeof reverse3d;
  readonly reverse4d: typeof reverse4d;
  readonly round: typeof round;
  readonly rsqrt: typeof rsqrt;
  readonly selu: typeof selu;
  readonly sigmoid: typeof sigmoid;
  readonly sign: typeof sign;
  readonly sin: typeof sin;
  readonly sinh: typeof sinh;
  readonly slice: typeof slice;
  readonly slice1d: typeof slice1d;
  readonly slice2d: typeof slice2d;
  readonly slice3d: typeof slice3d;
  readonly slice4d: typeof slice4d;
  readonly softmax: typeof softmax;
  readonly softplus: typeof softplus;
  readonly split: typeof split;
  readonly sqrt: typeof sqrt;
  readonly square: typeof square;
  readonly squaredDifference: typeof squaredDifference;
  readonly squeeze: typeof squeeze;
  readonly stack: typeof stack;
  readonly step: typeof step;
  readonly stridedSlice: typeof stridedSlice;
  readonly sub: typeof sub;
  readonly sum: typeof sum;
  readonly tan: typeof tan;
  readonly tanh: typeof tanh;
  readonly tile: typeof tile;
  readonly transpose: typeof transpose;
  readonly truncatedNormal: typeof truncatedNormal;
  readonly unsortedSegmentSum: typeof unsortedSegmentSum;
  readonly unstack: typeof unstack;
  readonly where: typeof where;
  readonly whereAsync: typeof whereAsync;
  readonly zeros: typeof zeros;
  readonly zerosLike: typeof zerosLike;
};
// ---- end of generated glint.ops
/** TF.js's loss reductions (tf.Reduction). */
export enum Reduction { NONE = 0, MEAN = 1, SUM = 2, SUM_BY_NONZERO_WEIGHTS = 3 }
type Weights = T | number | undefined;
/**
 * tf.losses as TF.js: weighted and reduced (default SUM_BY_NONZERO_WEIGHTS); plus Glint's
 * Keras-style per-sample losses (categoricalCrossentropy, ...) under their Keras names.
 */
export const losses: {
  absoluteDifference(labels: T, predictions: T, weights?: Weights, reduction?: Reduction): Tensor;
  computeWeightedLoss(losses: T, weights?: Weights, reduction?: Reduction): Tensor;
  cosineDistance(labels: T, predictions: T, axis: number, weights?: Weights, reduction?: Reduction): Tensor;
  hingeLoss(labels: T, predictions: T, weights?: Weights, reduction?: Reduction): Tensor;
  huberLoss(labels: T, predictions: T, weights?: Weights, delta?: number, reduction?: Reduction): Tensor;
  logLoss(labels: T, predictions: T, weights?: Weights, epsilon?: number, reduction?: Reduction): Tensor;
  meanSquaredError(labels: T, predictions: T, weights?: Weights, reduction?: Reduction): Tensor;
  sigmoidCrossEntropy(multiClassLabels: T, logits: T, weights?: Weights, labelSmoothing?: number,
                      reduction?: Reduction): Tensor;
  softmaxCrossEntropy(onehotLabels: T, logits: T, weights?: Weights, labelSmoothing?: number,
                      reduction?: Reduction): Tensor;
  // Keras's losses, by the names a model's compile() takes: per sample, (yTrue, yPred).
  meanAbsoluteError: LossOrMetricFn;
  meanAbsolutePercentageError: LossOrMetricFn;
  meanSquaredLogarithmicError: LossOrMetricFn;
  categoricalCrossentropy: LossOrMetricFn;
  sparseCategoricalCrossentropy: LossOrMetricFn;
  binaryCrossentropy: LossOrMetricFn;
  huber: LossOrMetricFn;
  logCosh: LossOrMetricFn;
  cosineSimilarity: LossOrMetricFn;
  kullbackLeiblerDivergence: LossOrMetricFn;
  poisson: LossOrMetricFn;
  hinge: LossOrMetricFn;
  squaredHinge: LossOrMetricFn;
  categoricalHinge: LossOrMetricFn;
};
/** A Keras-style loss or metric: the value per sample of yPred against yTrue. */
export type LossOrMetricFn = (yTrue: T, yPred: T) => Tensor;
export const metrics: {
  binaryAccuracy: LossOrMetricFn;
  categoricalAccuracy: LossOrMetricFn;
  sparseCategoricalAccuracy: LossOrMetricFn;
  precision: LossOrMetricFn;
  recall: LossOrMetricFn;
  meanSquaredError: LossOrMetricFn;
  meanAbsoluteError: LossOrMetricFn;
  topKCategoricalAccuracy: LossOrMetricFn;
  sparseTopKCategoricalAccuracy: LossOrMetricFn;
  MSE: LossOrMetricFn;
  mse: LossOrMetricFn;
  MAE: LossOrMetricFn;
  mae: LossOrMetricFn;
  meanAbsolutePercentageError: LossOrMetricFn;
  MAPE: LossOrMetricFn;
  mape: LossOrMetricFn;
  binaryCrossentropy: LossOrMetricFn;
  categoricalCrossentropy: LossOrMetricFn;
  sparseCategoricalCrossentropy: LossOrMetricFn;
  cosineProximity: LossOrMetricFn;
  r2Score: LossOrMetricFn;
};

// ---- Gradients ----------------------------------------------------------------------------

export function grad(f: (x: Tensor) => Tensor): (x: T, dy?: Tensor) => Tensor;
export function grads(f: (...xs: Tensor[]) => Tensor): (xs: T[], dy?: Tensor) => Tensor[];
export function valueAndGrad(f: (x: Tensor) => Tensor):
    (x: T, dy?: Tensor) => {value: Tensor; grad: Tensor};
export function valueAndGrads(f: (...xs: Tensor[]) => Tensor):
    (xs: T[], dy?: Tensor) => {value: Tensor; grads: Tensor[]};
export function variableGrads(f: () => Tensor, varList?: Variable[]):
    {value: Tensor; grads: {[name: string]: Tensor}};

// ---- Optimizers ----------------------------------------------------------------------------

export interface LossScale {
  enabled?: boolean;
  /** Initial (and, while not dynamic, fixed) scale; default 32768. */
  scale?: number;
  /** Halve on a non-finite step, double after growthInterval finite steps (default true). */
  dynamic?: boolean;
  growthInterval?: number;
  minScale?: number;
}
export class Optimizer {
  readonly iterations: number;
  readonly learningRate: number;
  readonly lossScale: Required<LossScale>;
  /** Steps skipped for non-finite gradients while loss scaling was on. */
  readonly skippedSteps: number;
  setLossScale(options?: LossScale): void;
  getClassName(): string;
  getConfig(): object;
  setLearningRate(lr: number): void;
  minimize(f: () => Tensor, returnCost?: boolean, varList?: Variable[]): Tensor | null;
  applyGradients(grads: {[name: string]: Tensor}, varList: Variable[]): void;
  dispose(): void;
}
export class SGDOptimizer extends Optimizer {
  constructor(learningRate: number);
}
export class MomentumOptimizer extends Optimizer {
  constructor(learningRate: number, momentum: number, useNesterov?: boolean);
}
export class AdamOptimizer extends Optimizer {
  constructor(learningRate: number, beta1: number, beta2: number, epsilon?: number | null);
}
export class AdamaxOptimizer extends Optimizer {
  constructor(learningRate: number, beta1: number, beta2: number, epsilon?: number | null, decay?: number);
}
export class RMSPropOptimizer extends Optimizer {
  constructor(learningRate: number, decay?: number, momentum?: number, epsilon?: number | null,
              centered?: boolean);
}
export class AdagradOptimizer extends Optimizer {
  constructor(learningRate: number, initialAccumulatorValue?: number);
}
export class AdadeltaOptimizer extends Optimizer {
  constructor(learningRate: number, rho: number, epsilon?: number | null);
}
/** train's factories as static methods. */
export class OptimizerConstructors {
  static sgd(learningRate: number): SGDOptimizer;
  static momentum(learningRate: number, momentum: number, useNesterov?: boolean): MomentumOptimizer;
  static adam(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number): AdamOptimizer;
  static adamax(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number,
                decay?: number): AdamaxOptimizer;
  static rmsprop(learningRate: number, decay?: number, momentum?: number, epsilon?: number,
                 centered?: boolean): RMSPropOptimizer;
  static adagrad(learningRate: number, initialAccumulatorValue?: number): AdagradOptimizer;
  static adadelta(learningRate?: number, rho?: number, epsilon?: number): AdadeltaOptimizer;
}
export const train: {
  sgd(learningRate: number): Optimizer;
  momentum(learningRate: number, momentum: number, useNesterov?: boolean): Optimizer;
  adam(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number): Optimizer;
  adamw(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number,
        weightDecay?: number): Optimizer;
  adamax(learningRate?: number, beta1?: number, beta2?: number, epsilon?: number,
         decay?: number): Optimizer;
  rmsprop(learningRate: number, decay?: number, momentum?: number, epsilon?: number,
          centered?: boolean): Optimizer;
  adagrad(learningRate: number, initialAccumulatorValue?: number): Optimizer;
  adadelta(learningRate?: number, rho?: number, epsilon?: number): Optimizer;
};

// ---- Layers and models ----------------------------------------------------------------------

export class SymbolicTensor {
  readonly shape: Array<number | null>;
  readonly dtype: DataType;
  readonly name: string;
}
export function input(args: {shape?: number[]; batchShape?: Array<number | null>; name?: string;
                             dtype?: DataType}): SymbolicTensor;

/** Layer arguments as TF.js takes them (camelCase), e.g. {units: 10, activation: 'relu'}. */
export type LayerArgs = {[key: string]: any};
/** An initializer, regularizer or constraint as a layer argument: its Keras config. */
export interface ConfigObject {
  className: string;
  config: {[key: string]: unknown};
  getClassName(): string;
  getConfig(): {[key: string]: unknown};
}
type ConfigFactory = (args?: {[key: string]: unknown}) => ConfigObject;
export const initializers: {
  zeros: ConfigFactory; ones: ConfigFactory; constant(args: {value: number}): ConfigObject;
  randomNormal: ConfigFactory; randomUniform: ConfigFactory; truncatedNormal: ConfigFactory;
  varianceScaling(args?: {scale?: number; mode?: 'fanIn' | 'fanOut' | 'fanAvg';
                          distribution?: 'normal' | 'uniform' | 'truncatedNormal'; seed?: number}): ConfigObject;
  glorotUniform: ConfigFactory; glorotNormal: ConfigFactory; heUniform: ConfigFactory;
  heNormal: ConfigFactory; leCunUniform: ConfigFactory; leCunNormal: ConfigFactory;
  orthogonal: ConfigFactory; identity: ConfigFactory;
};
export const regularizers: {
  l1(args?: {l1?: number}): ConfigObject; l2(args?: {l2?: number}): ConfigObject;
  l1l2(args?: {l1?: number; l2?: number}): ConfigObject;
};
export const constraints: {
  maxNorm(args?: {maxValue?: number; axis?: number}): ConfigObject;
  minMaxNorm(args?: {minValue?: number; maxValue?: number; axis?: number; rate?: number}): ConfigObject;
  nonNeg(): ConfigObject;
  unitNorm(args?: {axis?: number}): ConfigObject;
};
type LayerShape = Array<number | null>;
/** An initializer, regularizer or constraint: a name, or tf.initializers.* and the like. */
type ConfigArg = string | {getClassName(): string; getConfig(): object};
/**
 * Built-in layers come from tf.layers.*; a custom layer extends this class
 * (constructor(config) calling super(config), build, call,
 * computeOutputShape, getConfig, static get className()) and is registered
 * with tf.serialization.registerClass to be loaded back.
 */
export class Layer {
  constructor(config?: {name?: string; trainable?: boolean; inputShape?: LayerShape;
                        batchInputShape?: LayerShape; batchSize?: number; inputDim?: number;
                        dtype?: DataType; [key: string]: unknown});
  static fromConfig<T extends Layer>(cls: new (config: any) => T, config: object): T;
  /** Custom layers: creates the weights (the first apply, or loading). */
  build(inputShape: LayerShape | LayerShape[]): void;
  /** Custom layers: the forward computation, on concrete tensors. */
  call(inputs: Tensor | Tensor[], kwargs: {training?: boolean}): Tensor | Tensor[];
  computeOutputShape(inputShape: LayerShape | LayerShape[]): LayerShape | LayerShape[];
  /** Custom layers, in build: a weight that fit trains and model.save keeps. */
  addWeight(name: string, shape: number[], dtype?: DataType, initializer?: ConfigArg,
            regularizer?: ConfigArg, trainable?: boolean, constraint?: ConfigArg): LayerVariable;
  readonly name: string;
  readonly built: boolean;
  trainable: boolean;
  readonly weights: Variable[];
  readonly trainableWeights: Variable[];
  getClassName(): string;
  getConfig(): object;
  countParams(): number;
  /** The symbolic tensors of the layer's first call in a model (for cutting a model at this layer). */
  readonly input: SymbolicTensor | SymbolicTensor[];
  readonly output: SymbolicTensor | SymbolicTensor[];
  apply(inputs: SymbolicTensor | SymbolicTensor[], kwargs?: object): SymbolicTensor | SymbolicTensor[];
  apply(inputs: Tensor | Tensor[], kwargs?: {training?: boolean}): Tensor | Tensor[];
  getWeights(): Tensor[];
  setWeights(weights: Tensor[]): void;
  /** Whether the layer keeps states between calls (a stateful RNN). */
  readonly stateful: boolean;
  /** A stateful layer's states back to zeros (RNN: or to the given values). */
  resetStates(states?: Tensor | Tensor[]): void;
  dispose(): void;
}
/** The base of a JS RNN cell: stateSize, and call([x, ...states]) returning [output, ...newStates]. */
export class RNNCell extends Layer {
  stateSize: number | number[];
}
export interface RNNLayerArgs extends LayerArgs {
  cell: Layer | Layer[];
  returnSequences?: boolean; returnState?: boolean; goBackwards?: boolean; stateful?: boolean; unroll?: boolean;
}
/** A recurrent layer over any cell (a list of cells: stacked); subclassable, as TF.js's. */
export class RNN extends Layer {
  constructor(args: RNNLayerArgs);
  readonly cell: Layer;
  readonly returnSequences: boolean;
  readonly returnState: boolean;
  readonly goBackwards: boolean;
  readonly unroll: boolean;
  /** A stateful RNN's kept states (nulls before it has any). */
  readonly states: Array<Tensor | null>;
}
export const layers: {
  dense(args: LayerArgs): Layer; conv2d(args: LayerArgs): Layer; lstm(args: LayerArgs): Layer;
  gru(args: LayerArgs): Layer; flatten(args?: LayerArgs): Layer;
  maxPooling2d(args?: LayerArgs): Layer; dropout(args: LayerArgs): Layer;
  conv1d(args: LayerArgs): Layer; conv3d(args: LayerArgs): Layer; conv3dTranspose(args: LayerArgs): Layer;
  cropping2D(args: LayerArgs): Layer; maxPooling1d(args?: LayerArgs): Layer;
  averagePooling1d(args?: LayerArgs): Layer; maxPooling3d(args?: LayerArgs): Layer;
  averagePooling3d(args?: LayerArgs): Layer; globalMaxPooling1d(args?: LayerArgs): Layer;
  globalAveragePooling1d(args?: LayerArgs): Layer;
  bidirectional(args: {layer: Layer; mergeMode?: string}): Layer;
  timeDistributed(args: {layer: Layer}): Layer;
  maximum(args?: LayerArgs): Layer; minimum(args?: LayerArgs): Layer;
  subtract(args?: LayerArgs): Layer;
  dot(args: LayerArgs & {axes: number | [number, number]; normalize?: boolean}): Layer;
  reLU(args?: LayerArgs & {maxValue?: number; negativeSlope?: number; threshold?: number}): Layer;
  leakyReLU(args?: LayerArgs & {alpha?: number}): Layer;
  prelu(args?: LayerArgs & {alphaInitializer?: string | object; alphaRegularizer?: string | object;
                            alphaConstraint?: string | object; sharedAxes?: number | number[]}): Layer;
  elu(args?: LayerArgs & {alpha?: number}): Layer;
  thresholdedReLU(args?: LayerArgs & {theta?: number}): Layer;
  softmax(args?: LayerArgs & {axis?: number | number[]}): Layer;
  repeatVector(args: LayerArgs & {n: number}): Layer;
  alphaDropout(args: LayerArgs & {rate: number; noiseShape?: number[]; seed?: number}): Layer;
  gaussianDropout(args: LayerArgs & {rate: number; seed?: number}): Layer;
  gaussianNoise(args: LayerArgs & {stddev: number; seed?: number}): Layer;
  spatialDropout1d(args: LayerArgs & {rate: number; seed?: number}): Layer;
  rescaling(args: LayerArgs & {scale: number; offset?: number}): Layer;
  centerCrop(args: LayerArgs & {height: number; width: number}): Layer;
  resizing(args: LayerArgs & {height: number; width: number; interpolation?: 'bilinear' | 'nearest';
                              cropToAspectRatio?: boolean}): Layer;
  randomWidth(args: LayerArgs & {factor: number | [number, number]; interpolation?: 'bilinear' | 'nearest';
                                 seed?: number}): Layer;
  categoryEncoding(args: LayerArgs & {numTokens: number; outputMode?: 'oneHot' | 'multiHot' | 'count'}): Layer;
  masking(args?: LayerArgs & {maskValue?: number}): Layer;
  simpleRNNCell(args: LayerArgs): Layer; lstmCell(args: LayerArgs): Layer; gruCell(args: LayerArgs): Layer;
  stackedRNNCells(args: LayerArgs & {cells: Layer[]}): Layer;
  rnn(args: RNNLayerArgs): RNN;
  convLstm2d(args: LayerArgs & {filters: number; kernelSize: number | number[]}): Layer;
  convLstm2dCell(args: LayerArgs & {filters: number; kernelSize: number | number[]}): Layer;
  inputLayer(args: LayerArgs): Layer; activation(args: LayerArgs & {activation: string}): Layer;
  reshape(args: LayerArgs & {targetShape: number[]}): Layer;
  permute(args: LayerArgs & {dims: number[]}): Layer;
  embedding(args: LayerArgs & {inputDim: number; outputDim: number}): Layer;
  depthwiseConv2d(args: LayerArgs): Layer; separableConv2d(args: LayerArgs): Layer;
  conv2dTranspose(args: LayerArgs): Layer; averagePooling2d(args?: LayerArgs): Layer;
  globalAveragePooling2d(args?: LayerArgs): Layer; globalMaxPooling2d(args?: LayerArgs): Layer;
  zeroPadding2d(args?: LayerArgs): Layer; upSampling2d(args?: LayerArgs): Layer;
  batchNormalization(args?: LayerArgs): Layer; layerNormalization(args?: LayerArgs): Layer;
  simpleRNN(args: LayerArgs): Layer;
  add(args?: LayerArgs): Layer; multiply(args?: LayerArgs): Layer;
  concatenate(args?: LayerArgs): Layer; average(args?: LayerArgs): Layer;
  // TF.js's other names for the same layers
  convolution2d(args: LayerArgs): Layer; maxPool2d(args?: LayerArgs): Layer;
  avgPool2d(args?: LayerArgs): Layer; averagePool2d(args?: LayerArgs): Layer;
  avgPooling2d(args?: LayerArgs): Layer; globalAvgPool2d(args?: LayerArgs): Layer;
  globalMaxPool2d(args?: LayerArgs): Layer; maxPool1d(args?: LayerArgs): Layer;
  avgPool1d(args?: LayerArgs): Layer; avgPooling1d(args?: LayerArgs): Layer;
  avgPool3d(args?: LayerArgs): Layer; avgPooling3d(args?: LayerArgs): Layer;
  globalMaxPool1d(args?: LayerArgs): Layer;
  input: typeof input;
} & {Layer: typeof Layer; RNN: typeof RNN; RNNCell: typeof RNNCell};

export type Logs = {[name: string]: number};
export type LossSpec = string | ((yTrue: Tensor, yPred: Tensor) => Tensor);
export interface CustomCallbackArgs {
  onTrainBegin?(logs?: Logs): void | Promise<void>;
  onTrainEnd?(logs?: Logs): void | Promise<void>;
  onEpochBegin?(epoch: number, logs?: Logs): void | Promise<void>;
  onEpochEnd?(epoch: number, logs?: Logs): void | Promise<void>;
  onBatchBegin?(batch: number, logs?: Logs): void | Promise<void>;
  onBatchEnd?(batch: number, logs?: Logs): void | Promise<void>;
}
export interface ModelFitArgs {
  batchSize?: number; epochs?: number; shuffle?: boolean; validationSplit?: number;
  validationData?: [Tensor | Tensor[], Tensor | Tensor[]];
  callbacks?: CustomCallbackArgs | CustomCallbackArgs[];
  initialEpoch?: number; verbose?: 0 | 1 | 2;
  /** 'auto' (default): yield for an animation frame after frameBudgetMs of work. */
  yieldEvery?: 'auto' | 'batch' | 'epoch' | 'never';
  frameBudgetMs?: number;
  /** Seeds the shuffles. */
  seed?: number;
  /**
   * true (default): while no backend was chosen on purpose and more than one fast one is
   * available, time a step on each first and keep the fastest (LayersModel.calibrateBackend).
   */
  calibrate?: boolean;
  /**
   * Loss weight per class id ({0: 1, 1: 5}), single-output models: each
   * sample's loss is multiplied by its class's weight (class ids from [n] /
   * [n, 1] targets, or the argMax of one-hot rows). Every class must be listed.
   */
  classWeight?: {[classId: number]: number};
}
export interface History {
  epoch: number[]; history: {[name: string]: number[]};
  params: {epochs: number; batchSize: number; samples: number};
}
export interface ModelArtifacts {
  modelTopology: object; weightSpecs: object[]; weightData: ArrayBuffer;
  format?: string; generatedBy?: string; convertedBy?: string | null;
  trainingConfig?: object; userDefinedMetadata?: object;
  /** Graph models: {inputs, outputs} tensor names and shapes. */
  signature?: object;
}
export interface SaveResult {modelArtifactsInfo: object; responses?: Response[]}
export interface IOHandler {
  save?(artifacts: ModelArtifacts): Promise<SaveResult>;
  load?(): Promise<ModelArtifacts>;
}

export class LayersModel extends Layer {
  /** Resets the states of every stateful layer (stateful RNNs). */
  resetStates(): void;
  readonly inputs: SymbolicTensor[];
  readonly outputs: SymbolicTensor[];
  readonly layers: Layer[];
  readonly metricsNames: string[];
  readonly optimizer: Optimizer;
  readonly isTraining: boolean;
  stopTraining: boolean;
  getLayer(nameOrIndex: string | number): Layer;
  /** loss: a name, or a function (yTrue, yPred) => per-sample losses (not in worker mode). */
  compile(args: {optimizer?: string | Optimizer; loss: LossSpec | LossSpec[]; metrics?: string[]}): void;
  summary(lineLength?: number, positions?: number[], printFn?: (s: string) => void): void;
  fit(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: ModelFitArgs): Promise<History>;
  fitDataset(dataset: Dataset<any>, args?: {epochs?: number; batchesPerEpoch?: number;
                                         callbacks?: CustomCallbackArgs | CustomCallbackArgs[];
                                         validationData?: any; verbose?: number}): Promise<History>;
  evaluate(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: {batchSize?: number}): Tensor | Tensor[];
  evaluateLogs(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: {batchSize?: number}): Logs;
  /** evaluateLogs without a blocking read (what webgpu in node needs). */
  evaluateLogsAsync(x: Tensor | Tensor[], y: Tensor | Tensor[], args?: {batchSize?: number}): Promise<Logs>;
  predict(x: Tensor | Tensor[], args?: {batchSize?: number}): Tensor | Tensor[];
  predictOnBatch(x: Tensor | Tensor[]): Tensor | Tensor[];
  trainOnBatch(x: Tensor | Tensor[], y: Tensor | Tensor[]): Promise<number | number[]>;
  /** sampleWeights: float32 [n], each sample's loss weight. */
  trainOnBatchSync(x: Tensor | Tensor[], y: Tensor | Tensor[], sampleWeights?: Tensor): Logs;
  /** One step without a blocking read (what webgpu in node needs); resolves to the logs. */
  trainOnBatchLogs(x: Tensor | Tensor[], y: Tensor | Tensor[], sampleWeights?: Tensor): Promise<Logs>;
  /** Times a training step on each fast backend, keeps the fastest; weights and optimizer state put back. */
  calibrateBackend(x: Tensor | Tensor[], y: Tensor | Tensor[], options?: CalibrateOptions): Promise<Calibration>;
  save(handlerOrUrl: IOHandler | string, config?: {includeOptimizer?: boolean;
       quantize?: 'float16' | 'uint8'; userDefinedMetadata?: object}): Promise<SaveResult>;
  toArtifacts(config?: {includeOptimizer?: boolean; quantize?: 'float16' | 'uint8'}): ModelArtifacts;
  loadWeightsFromArtifacts(artifacts: ModelArtifacts): void;
}
export class Sequential extends LayersModel {
  add(layer: Layer): void;
  pop(): void;
}
export function sequential(config?: {layers?: Layer[]; name?: string}): Sequential;
export function model(args: {inputs: SymbolicTensor | SymbolicTensor[];
                             outputs: SymbolicTensor | SymbolicTensor[]; name?: string}): LayersModel;
export function modelFromArtifacts(artifacts: ModelArtifacts): LayersModel;
export function loadLayersModel(pathOrHandler: string | IOHandler, options?: {
  onProgress?: (fraction: number) => void; retries?: number; backoffMs?: number;
  requestInit?: RequestInit; fetchFunc?: typeof fetch}): Promise<LayersModel>;

/** An input or output of a graph model; shape null when the rank is unknown, -1 for an unknown size. */
export interface GraphTensorInfo {
  name: string;
  shape: number[] | null;
  dtype: DataType;
}
/** A TF.js graph model (format 'graph-model'), run by the engine. */
export class GraphModel {
  readonly inputs: GraphTensorInfo[];
  readonly outputs: GraphTensorInfo[];
  readonly inputNodes: string[];
  readonly outputNodes: string[];
  readonly metadata: object | undefined;
  predict(inputs: Tensor | Tensor[] | {[name: string]: Tensor}): Tensor | Tensor[];
  /** Named tensors ("node" or "node:1"), intermediate nodes included; a string asks for one. */
  execute(inputs: Tensor | Tensor[] | {[name: string]: Tensor}, outputs?: string | string[]): Tensor | Tensor[];
  /** As execute; awaits the reads its nodes need where the backend has no synchronous one (webgpu in node),
   *  and registered ops that return a Promise. */
  executeAsync(inputs: Tensor | Tensor[] | {[name: string]: Tensor},
               outputs?: string | string[]): Promise<Tensor | Tensor[]>;
  /** predict, awaiting what executeAsync awaits (registered ops' Promises, reads). */
  predictAsync(inputs: Tensor | Tensor[] | {[name: string]: Tensor}): Promise<Tensor | Tensor[]>;
  dispose(): void;
}
export function graphModelFromArtifacts(artifacts: ModelArtifacts): GraphModel;
export function loadGraphModel(pathOrHandler: string | IOHandler, options?: {
  onProgress?: (fraction: number) => void; retries?: number; backoffMs?: number;
  requestInit?: RequestInit; fetchFunc?: typeof fetch}): Promise<GraphModel>;

export const io: {
  browserIndexedDB(name: string): IOHandler;
  browserLocalStorage(name: string): IOHandler;
  browserDownloads(name?: string): IOHandler;
  http(url: string, options?: object): IOHandler;
  fileSystem(path: string): IOHandler;
  listModels(): Promise<{[url: string]: object}>;
  removeModel(url: string): Promise<object>;
  getSaveHandler(handlerOrUrl: IOHandler | string): IOHandler;
  getLoadHandler(handlerOrUrl: IOHandler | string, options?: object): IOHandler;
  /** A save handler that hands the artifacts to saveFn. */
  withSaveHandler(saveFn: (artifacts: ModelArtifacts) => Promise<SaveResult | void>): IOHandler;
  /** A load handler over artifacts in memory (or the older topology, specs, data form). */
  fromMemory(artifacts: ModelArtifacts): IOHandler;
  fromMemory(modelTopology: object, weightSpecs?: object[], weightData?: ArrayBuffer,
             trainingConfig?: object): IOHandler;
  fromMemorySync(artifacts: ModelArtifacts): IOHandlerSync;
  fromMemorySync(modelTopology: object, weightSpecs?: object[], weightData?: ArrayBuffer,
                 trainingConfig?: object): IOHandlerSync;
  withSaveHandlerSync(saveFn: (artifacts: ModelArtifacts) => SaveResult | void): IOHandlerSync;
  concatenateArrayBuffers(buffers: ArrayBuffer[] | ArrayBuffer): ArrayBuffer;
  encodeWeights(tensors: {[name: string]: Tensor} | Array<{name: string; tensor: Tensor}>, group?: string):
      Promise<{data: ArrayBuffer; specs: WeightsManifestEntry[]}>;
  decodeWeights(weightData: ArrayBuffer | ArrayBuffer[], specs: WeightsManifestEntry[]): {[name: string]: Tensor};
  getModelArtifactsInfoForJSON(modelArtifacts: ModelArtifacts): ModelArtifactsInfo;
  getModelArtifactsForJSON(modelJSON: ModelJSON,
      loadWeights: (manifest: WeightsManifestGroup[]) => Promise<[WeightsManifestEntry[], ArrayBuffer]>):
      Promise<ModelArtifacts>;
  getModelArtifactsForJSONSync(modelJSON: ModelJSON, weightSpecs?: WeightsManifestEntry[],
                               weightData?: ArrayBuffer): ModelArtifacts;
  getWeightSpecs(weightsManifest: WeightsManifestGroup[]): WeightsManifestEntry[];
  isHTTPScheme(url: string): boolean;
  /** Deprecated in TF.js: http. */
  browserHTTPRequest(path: string, loadOptions?: object): IOHandler;
  registerSaveRouter(router: (url: string) => IOHandler | null): void;
  registerLoadRouter(router: (url: string, loadOptions?: object) => IOHandler | null): void;
  getSaveHandlers(url: string): IOHandler[];
  getLoadHandlers(url: string, loadOptions?: object): IOHandler[];
  copyModel(sourceURL: string, destURL: string): Promise<ModelArtifactsInfo>;
  moveModel(sourceURL: string, destURL: string): Promise<ModelArtifactsInfo>;
  weightsLoaderFactory(fetchWeightsFunction: (urls: string[]) => Promise<ArrayBuffer[]>):
      (manifest: WeightsManifestGroup[], filePathPrefix?: string, weightNames?: string[]) =>
      Promise<{[name: string]: Tensor}>;
  loadWeights(manifest: WeightsManifestGroup[], filePathPrefix?: string, weightNames?: string[],
              requestInit?: RequestInit): Promise<{[name: string]: Tensor}>;
  CompositeArrayBuffer: typeof CompositeArrayBuffer;
  decodeWeightsStream(weightStream: ReadableStream<ArrayBuffer | Uint8Array>, specs: WeightsManifestEntry[]):
      Promise<{[name: string]: Tensor}>;
  /** A load handler over File objects: [model.json, ...weight files]. */
  browserFiles(files: File[]): IOHandler;
};
/** Several buffers read as one. */
export class CompositeArrayBuffer {
  static join(buffers?: ArrayBuffer[] | ArrayBuffer): ArrayBuffer;
  constructor(buffers?: ArrayBuffer | ArrayBuffer[] | TypedArray | TypedArray[]);
  readonly byteLength: number;
  slice(start?: number, end?: number): ArrayBuffer;
}
export interface WeightsManifestEntry {
  name: string; shape: number[]; dtype: 'float32' | 'int32' | 'bool' | string; group?: string;
  quantization?: {dtype: 'uint8' | 'uint16' | 'float16'; min?: number; scale?: number};
}
export interface WeightsManifestGroup {paths: string[]; weights: WeightsManifestEntry[]}
export interface ModelJSON {
  modelTopology: object; weightsManifest?: WeightsManifestGroup[]; format?: string; generatedBy?: string;
  convertedBy?: string | null; trainingConfig?: object; signature?: object; userDefinedMetadata?: object;
}
export interface ModelArtifactsInfo {
  dateSaved: Date; modelTopologyType: 'JSON' | 'GraphDef'; modelTopologyBytes?: number;
  weightSpecsBytes?: number; weightDataBytes?: number;
}
export interface IOHandlerSync {
  save?(artifacts: ModelArtifacts): SaveResult;
  load?(): ModelArtifacts;
}

// ---- Callbacks and utilities ---------------------------------------------------------------

/** A base for callback classes: fit and fitDataset call setModel, then the hooks. */
export class Callback implements CustomCallbackArgs {
  model: LayersModel | null;
  setModel(model: LayersModel): void;
  onTrainBegin(logs?: Logs): Promise<void>;
  onTrainEnd(logs?: Logs): Promise<void>;
  onEpochBegin(epoch: number, logs?: Logs): Promise<void>;
  onEpochEnd(epoch: number, logs?: Logs): Promise<void>;
  onBatchBegin(batch: number, logs?: Logs): Promise<void>;
  onBatchEnd(batch: number, logs?: Logs): Promise<void>;
}
export class CustomCallback extends Callback {
  constructor(args: CustomCallbackArgs);
}
export interface EarlyStoppingArgs {
  monitor?: string; minDelta?: number; patience?: number; verbose?: number;
  mode?: 'auto' | 'min' | 'max'; baseline?: number;
  /** Beyond TF.js: at the stop, the best epoch's weights go back into the model. */
  restoreBestWeights?: boolean;
}
/**
 * Stops fit once `monitor` has not improved for `patience` epochs (run inside the
 * engine's fit loop; after a fit, wait, best and stoppedEpoch are its state).
 */
export class EarlyStopping extends Callback {
  constructor(args?: EarlyStoppingArgs);
  stoppedEpoch: number;
  wait: number;
  best: number | undefined;
}
export const callbacks: {earlyStopping(args?: EarlyStoppingArgs): EarlyStopping};
/** Records each epoch's number and logs. */
export class History extends Callback {
  epoch: number[];
  history: {[name: string]: number[]};
  syncData(): Promise<void>;
}
/** Callbacks called together, in order. */
export class CallbackList {
  constructor(callbacks?: Callback[], queueLength?: number);
  callbacks: Callback[];
  append(callback: Callback): void;
  setParams(params: object): void;
  setModel(model: LayersModel): void;
  onTrainBegin(logs?: Logs): Promise<void>;
  onTrainEnd(logs?: Logs): Promise<void>;
  onEpochBegin(epoch: number, logs?: Logs): Promise<void>;
  onEpochEnd(epoch: number, logs?: Logs): Promise<void>;
  onBatchBegin(batch: number, logs?: Logs): Promise<void>;
  onBatchEnd(batch: number, logs?: Logs): Promise<void>;
}
/** What a layer accepts. */
export class InputSpec {
  constructor(args: {dtype?: DataType; shape?: Array<number | null>; ndim?: number; maxNDim?: number;
                     minNDim?: number; axes?: {[axis: number]: number}});
  dtype?: DataType; shape?: Array<number | null>; ndim?: number; maxNDim?: number; minNDim?: number;
  axes?: {[axis: number]: number};
}
/** Resolves on the next animation frame (a task turn where there are no frames). */
export function nextFrame(): Promise<void>;
/**
 * registerClass: a custom layer class (static className) that a loaded
 * model.json may name. Custom initializers, regularizers and constraints are
 * not supported (it throws for them).
 */
export class Serializable {
  getClassName(): string;
  static fromConfig<C>(cls: new (config: object) => C, config: object): C;
}
export const serialization: {
  registerClass<T extends typeof Layer>(cls: T): T;
  Serializable: typeof Serializable;
  getRegisteredName(cls: {className: string}): string;
  SerializationMap: typeof SerializationMap;
};
export class SerializationMap {
  classNameMap: {[className: string]: [Function, Function]};
  static getMap(): SerializationMap;
  static register<T extends typeof Layer>(cls: T): T;
}
/**
 * f(...inputs, save) returns {value, gradFunc(dy, saved)}: the result computes
 * value, and its gradient is gradFunc's (one tensor per input).
 */
export function customGrad(
    f: (...args: any[]) => {value: Tensor; gradFunc: (dy: Tensor, saved: Tensor[]) => Tensor | Tensor[]}):
    (...inputs: Tensor[]) => Tensor;

export const util: {
  assert(expr: boolean, msg: string | (() => string)): void;
  shuffle(array: any[] | Float32Array | Int32Array | Uint32Array | Uint8Array): void;
  shuffleCombo(array: any[] | ArrayLike<number>, array2: any[] | ArrayLike<number>): void;
  createShuffledIndices(n: number): Uint32Array;
  sizeFromShape(shape: number[]): number;
  clamp(min: number, x: number, max: number): number;
  sum(array: ArrayLike<number>): number;
  randUniform(a: number, b: number): number;
  isTypedArray(a: unknown): boolean;
  flatten(values: unknown): unknown[];
  arraysEqual(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean;
  now(): number;
  /** Farmhash's Fingerprint64 of the first len bytes, as an unsigned Long (long.js's API, as TF.js). */
  fingerPrint64(s: Uint8Array | number[], len?: number): Long;
  hexToLong(hex: string): Long;
  nearestLargerEven(val: number): number;
  swap<V>(object: {[index: number]: V}, left: number, right: number): void;
  distSquared(a: ArrayLike<number>, b: ArrayLike<number>): number;
  assertShapesMatch(shapeA: number[], shapeB: number[], errorMessagePrefix?: string): void;
  assertNonNull(a: unknown): void;
  assertNonNegativeIntegerDimensions(shape: number[]): void;
  isScalarShape(shape: number[]): boolean;
  arraysEqualWithNull(n1: Array<number | null>, n2: Array<number | null>): boolean;
  isInt(a: number): boolean;
  tanh(x: number): number;
  sizeToSquarishShape(size: number): [number, number];
  rightPad(a: string, size: number): string;
  repeatedTry(checkFn: () => boolean, delayFn?: (counter: number) => number, maxCounter?: number,
              scheduleFn?: (functionRef: Function, delay: number) => void): Promise<void>;
  inferFromImplicitShape(shape: number[], size: number): number[];
  parseAxisParam(axis: number | number[] | null | undefined, shape: number[]): number[];
  squeezeShape(shape: number[], axis?: number[]): {newShape: number[]; keptDims: number[]};
  getTypedArrayFromDType(dtype: DataType, size: number): TypedArray;
  getArrayFromDType(dtype: DataType | 'string', size: number): TypedArray | string[];
  checkConversionForErrors(vals: ArrayLike<number>, dtype: DataType): void;
  isValidDtype(dtype: string): boolean;
  hasEncodingLoss(oldType: string, newType: string): boolean;
  bytesPerElement(dtype: string): number;
  bytesFromStringArray(arr: Uint8Array[]): number;
  isString(value: unknown): value is string;
  isBoolean(value: unknown): boolean;
  isNumber(value: unknown): boolean;
  inferDtype(values: unknown): DataType | 'string';
  isFunction(f: unknown): boolean;
  nearestDivisor(size: number, start: number): number;
  computeStrides(shape: number[]): number[];
  locToIndex(locs: number[], rank: number, strides: number[]): number;
  indexToLoc(index: number, rank: number, strides: number[]): number[];
  toNestedArray(shape: number[], a: ArrayLike<number>, isComplex?: boolean): number | any[];
  makeOnesTypedArray(size: number, dtype: DataType): TypedArray;
  makeZerosTypedArray(size: number, dtype: DataType): TypedArray;
  makeZerosNestedTypedArray(shape: number[], dtype: DataType): number | any[];
  isPromise(object: unknown): object is Promise<unknown>;
  createScalarValue(value: number | boolean | string, dtype: DataType | 'string'): TypedArray | Uint8Array[];
  toTypedArray(a: TensorLike, dtype: DataType): TypedArray;
  convertBackendValuesAndArrayBuffer(data: TypedArray | ArrayBuffer | Uint8Array[], dtype: DataType):
      TypedArray | Uint8Array[];
  encodeString(s: string, encoding?: string): Uint8Array;
  decodeString(bytes: Uint8Array, encoding?: string): string;
  fetch(path: string, requestInits?: RequestInit): Promise<Response>;
};

// ---- More ops composed in JS (ops_layout.js, ops_more.js), buffers, globals -------------------

/** A mutable host-side array with a shape; toTensor() makes a tensor of it. */
export class TensorBuffer {
  constructor(shape: number[], dtype?: DataType, values?: TypedArray);
  readonly shape: number[];
  readonly dtype: DataType;
  readonly size: number;
  readonly strides: number[];
  readonly rank: number;
  values: TypedArray;
  set(value: number | boolean, ...locs: number[]): void;
  get(...locs: number[]): number;
  locToIndex(locs: number[]): number;
  indexToLoc(index: number): number[];
  toTensor(): Tensor;
}
export function buffer(shape: number[], dtype?: DataType, values?: TypedArray): TensorBuffer;
export function depthToSpace(x: T, blockSize: number, dataFormat?: 'NHWC'): Tensor;
export function spaceToBatchND(x: T, blockShape: number[], paddings: number[][]): Tensor;
export function batchToSpaceND(x: T, blockShape: number[], crops: number[][]): Tensor;
export function mirrorPad(x: T, paddings: Array<[number, number]>, mode: 'reflect' | 'symmetric'): Tensor;
export function diag(x: T): Tensor;
export function scatterND(indices: T, updates: T, shape: number[]): Tensor;
export function sparseToDense(sparseIndices: T, sparseValues: T, outputShape: number[], defaultValue?: T): Tensor;
export function batchNorm2d(x: T, mean: T, variance: T, offset?: T, scale?: T, varianceEpsilon?: number): Tensor;
export function batchNorm3d(x: T, mean: T, variance: T, offset?: T, scale?: T, varianceEpsilon?: number): Tensor;
export function batchNorm4d(x: T, mean: T, variance: T, offset?: T, scale?: T, varianceEpsilon?: number): Tensor;
export function separableConv2d(x: T, depthwiseFilter: T, pointwiseFilter: T, strides: Pair,
                                pad: 'valid' | 'same' | number, dilation?: Pair, dataFormat?: 'NHWC'): Tensor;
export function localResponseNormalization(x: T, depthRadius?: number, bias?: number, alpha?: number,
                                           beta?: number): Tensor;
export function movingAverage(v: T, x: T, decay: number | Tensor, step?: number | Tensor,
                              zeroDebias?: boolean): Tensor;
export function searchSorted(sortedSequence: T, values: T, side?: 'left' | 'right'): Tensor;
export function lowerBound(sortedSequence: T, values: T): Tensor;
export function upperBound(sortedSequence: T, values: T): Tensor;
export function bincount(x: T, weights: T, size: number): Tensor;
export function denseBincount(x: T, weights: T, size: number, binaryOutput?: boolean): Tensor;
export function rand(shape: number[], randFunction: () => number, dtype?: DataType): Tensor;
export function randomStandardNormal(shape: number[], dtype?: 'float32' | 'int32', seed?: number): Tensor;
export function randomUniformInt(shape: number[], minval: number, maxval: number, seed?: number | string): Tensor;
export function upcastType(typeA: string, typeB: string): string;
export function sumOutType(type: string): string;
export function op<F extends (...args: any[]) => any>(f: {[name: string]: F}): F;
export function ensureShape(x: Tensor, shape: Array<number | null>): Tensor;
export function pool(input: T, windowShape: Pair, poolingType: 'avg' | 'max', pad: 'valid' | 'same',
                     dilations?: Pair, strides?: Pair): Tensor;
export function unique(x: T, axis?: number): {values: Tensor; indices: Tensor};
export function setdiff1dAsync(x: T, y: T): Promise<[Tensor, Tensor]>;
export function inTopKAsync(predictions: T, targets: T, k?: number): Promise<Tensor>;
export function basicLSTMCell(forgetBias: T, lstmKernel: T, lstmBias: T, data: T, c: T, h: T): [Tensor, Tensor];
export function multiRNNCell(lstmCells: Array<(data: Tensor, c: Tensor, h: Tensor) => [Tensor, Tensor]>,
                             data: T, c: Tensor[], h: Tensor[]): [Tensor[], Tensor[]];
/** TF.js's flag registry, with the flags Glint gives meaning (DEBUG, PROD, IS_BROWSER, IS_NODE, ...). */
export class Environment {
  get(flagName: string): number | boolean | string;
  getAsync(flagName: string): Promise<number | boolean | string>;
  getBool(flagName: string): boolean;
  getNumber(flagName: string): number;
  getString(flagName: string): string;
  getFlags(): {[flag: string]: number | boolean | string};
  readonly features: {[flag: string]: number | boolean | string};
  set(flagName: string, value: number | boolean | string): void;
  setFlags(flags: {[flag: string]: number | boolean | string}): void;
  registerFlag(flagName: string, evaluationFn: () => number | boolean | string,
               setHook?: (value: number | boolean | string) => void): void;
  reset(): void;
}
export const ENV: Environment;
export function env(): Environment;
/** One or two operands, an explicit '->', no index repeated within an operand. */
export function einsum(equation: string, ...tensors: T[]): Tensor;
/** The k largest along the last axis, largest first (ties: lower index first). */
export function topk(x: T, k?: number, sorted?: boolean): {values: Tensor; indices: Tensor};
export function dilation2d(x: T, filter: T, strides: Pair, pad: 'valid' | 'same', dilations?: Pair,
                           dataFormat?: 'NHWC'): Tensor;
/** A repeated index takes its last update. */
export function tensorScatterUpdate(tensor: T, indices: T, updates: T): Tensor;
export function broadcastArgs(s0: T, s1: T): Tensor;
export function bitwiseAnd(x: T, y: T): Tensor;
/** In float32; an int32 input keeps its dtype (truncated toward zero), as in TF.js. */
export function asin(x: T): Tensor;
export function acos(x: T): Tensor;
export function atan(x: T): Tensor;
export function asinh(x: T): Tensor;
export function acosh(x: T): Tensor;
export function atanh(x: T): Tensor;
/** The Gauss error function; int32 inputs give float32. */
export function erf(x: T): Tensor;
/** The angle of (b, a); int32 operands give int32 (truncated), as in TF.js. */
export function atan2(a: T, b: T): Tensor;
export function maxPoolWithArgmax(x: T, filterSize: Pair, strides: Pair, pad: 'valid' | 'same',
                                  includeBatchInIndex?: boolean): {result: Tensor; indexes: Tensor};
export function multinomial(logits: T, numSamples: number, seed?: number, normalized?: boolean): Tensor;
/** As TF.js: samples with mean alpha * beta. */
export function randomGamma(shape: number[], alpha: number, beta?: number, dtype?: 'float32' | 'int32',
                            seed?: number): Tensor;
export function cumprod(x: T, axis?: number, exclusive?: boolean, reverse?: boolean): Tensor;
export function disableDeprecationWarnings(): void;
export function deprecationWarn(msg: string): void;
/** Debug mode off; Glint keeps validating arguments. */
export function enableProdMode(): void;
export const Rank: {readonly R0: 'R0'; readonly R1: 'R1'; readonly R2: 'R2'; readonly R3: 'R3';
  readonly R4: 'R4'; readonly R5: 'R5'; readonly R6: 'R6'};
export function enclosingPowerOfTwo(value: number): number;
/** kernelMs is f's time on the CPU backends, {error} on GPU backends (no timer queries). */
export function time(f: () => void): Promise<{wallMs: number; kernelMs: number | {error: string}}>;
export function cosineWindow(windowLength: number, a: number, b: number): Tensor;
export function loadGraphModelSync(modelSource: IOHandlerSync | ModelArtifacts | [ModelJSON, ArrayBuffer?]):
    GraphModel;
export function raggedRange(starts: T, limits: T, deltas: T): {rtNestedSplits: Tensor; rtDenseValues: Tensor};
export const sparse: {
  sparseSegmentSum(data: T, indices: T, segmentIds: T): Tensor;
  sparseSegmentMean(data: T, indices: T, segmentIds: T): Tensor;
  sparseReshape(inputIndices: T, inputShape: T, newShape: T): {outputIndices: Tensor; outputShape: Tensor};
  sparseFillEmptyRows(indices: T, values: T, denseShape: T, defaultValue: T):
      {outputIndices: Tensor; outputValues: Tensor; emptyRowIndicator: Tensor; reverseIndexMap: Tensor};
};
export const linalg: {
  bandPart(a: T, numLower: number, numUpper: number): Tensor;
  gramSchmidt(xs: Tensor): Tensor;
  gramSchmidt(xs: Tensor[]): Tensor[];
  /** Householder QR over the last two axes: [q, r]. */
  qr(x: T, fullMatrices?: boolean): [Tensor, Tensor];
};
export const signal: {
  hannWindow(windowLength: number): Tensor;
  hammingWindow(windowLength: number): Tensor;
  frame(signal: T, frameLength: number, frameStep: number, padEnd?: boolean, padValue?: number): Tensor;
  /** Short-time Fourier transform of a 1-D signal: [frames, fftLength / 2 + 1], complex64. */
  stft(signal: T, frameLength: number, frameStep: number, fftLength?: number,
       windowFn?: (length: number) => Tensor): Tensor;
};
/** The rows `indices` picks from a ragged tensor (row splits over dense values), as TF.js. */
export function raggedGather(paramsNestedSplits: T[], paramsDenseValues: T, indices: T, outputRaggedRank: number):
    {outputNestedSplits: Tensor[]; outputDenseValues: Tensor};
/** A ragged tensor (values and a row partition per ragged dimension) as a dense one, padded with defaultValue. */
export function raggedTensorToTensor(shape: T, values: T, defaultValue: T, rowPartitionTensors: T[],
                                     rowPartitionTypes: string[]): Tensor;
/** A graph-model op written in JS: the node's inputs and attributes (decoded as TF.js gives them) in. */
/** It may return a Promise of its tensors: executeAsync and predictAsync await it; execute refuses it. */
export type OpExecutor = (node: {inputs: Tensor[], attrs: {[key: string]: unknown}}) =>
    Tensor | Tensor[] | Promise<Tensor | Tensor[]>;
/** Registers a graph-model op for models loaded from now on (in place of a built-in op of that name too). */
export function registerOp(name: string, opFunc: OpExecutor): void;
export function deregisterOp(name: string): void;
/** complex64 from two real tensors of one shape; real(x) and imag(x) take them apart. */
export function complex(real: T, imag: T): Tensor;
export function real(input: T): Tensor;
export function imag(input: T): Tensor;
/** The DFT over the innermost axis. */
export function fft(input: T): Tensor;
/** The inverse DFT over the innermost axis, scaled by 1/n. */
export function ifft(input: T): Tensor;
/** The DFT of a real signal: fftLength / 2 + 1 complex values (input cut or zero-padded to fftLength). */
export function rfft(input: T, fftLength?: number): Tensor;
/** The real signal of length 2 (m - 1) whose rfft is the m values (a 1-D input gives [1, length], as TF.js). */
export function irfft(input: T): Tensor;
export const spectral: {fft: typeof fft; ifft: typeof ifft; rfft: typeof rfft; irfft: typeof irfft};
/** tf.string: on string tensors (or arrays of strings). */
export const string: {
  /** Splits each element of a 1-D tensor at every byte of delimiter ('' : every byte): a sparse result. */
  stringSplit(input: Tensor | string[], delimiter: Tensor | string, skipEmpty?: boolean):
      {indices: Tensor; values: Tensor; shape: Tensor};
  stringNGrams(data: Tensor | string[], dataSplits: Tensor | number[], separator: string, nGramWidths: number[],
               leftPad: string, rightPad: string, padWidth: number, preserveShortSequences: boolean):
      {nGrams: Tensor; nGramsSplits: Tensor};
  /** Fingerprint64 of each string modulo numBuckets: int32, the input's shape. */
  stringToHashBucketFast(input: Tensor | string[], numBuckets: number): Tensor;
  staticRegexReplace(input: Tensor | string[], pattern: string, rewrite: string, replaceGlobal?: boolean): Tensor;
};
export const models: {
  modelFromJSON(modelAndWeightsConfig: ModelJSON & {pathPrefix?: string} | object): Promise<LayersModel>;
};

// ---- Data -------------------------------------------------------------------------------------

export class Dataset<E> implements AsyncIterable<E> {
  [Symbol.asyncIterator](): AsyncIterator<E>;
  map<F>(fn: (e: E) => F): Dataset<F>;
  take(n: number): Dataset<E>;
  skip(n: number): Dataset<E>;
  repeat(count?: number): Dataset<E>;
  shuffle(bufferSize: number, seed?: number): Dataset<E>;
  batch(size: number, smallLastBatch?: boolean): Dataset<any>;
  forEachAsync(fn: (e: E) => void | Promise<void>): Promise<void>;
  toArray(): Promise<E[]>;
}
export interface ColumnConfig {
  required?: boolean; dtype?: DataType; default?: number | string | boolean; isLabel?: boolean;
}
export interface CSVConfig {
  hasHeader?: boolean; columnNames?: string[]; columnConfigs?: {[column: string]: ColumnConfig};
  configuredColumnsOnly?: boolean; delimiter?: string; delimWhitespace?: boolean;
}
export class CSVDataset extends Dataset<{[column: string]: any}> {
  constructor(source: string, csvConfig?: CSVConfig);
  columnNames(): Promise<string[]>;
}
export interface DataSource {iterator(): Promise<AsyncIterableIterator<Uint8Array>>}
export class FileDataSource implements DataSource {
  constructor(input: File | Blob | Uint8Array | string, options?: {chunkSize?: number});
  iterator(): Promise<AsyncIterableIterator<Uint8Array>>;
}
export class URLDataSource implements DataSource {
  constructor(url: string, fileOptions?: {chunkSize?: number; requestInit?: RequestInit});
  iterator(): Promise<AsyncIterableIterator<Uint8Array>>;
}
export class TextLineDataset extends Dataset<string> {
  constructor(input: DataSource);
}
export const data: {
  Dataset: typeof Dataset;
  array<E>(items: E[]): Dataset<E>;
  generator<E>(gen: () => Iterator<E> | AsyncIterator<E>): Dataset<E>;
  zip(datasets: Dataset<any>[] | {[key: string]: Dataset<any>}): Dataset<any>;
  /** Rows of a CSV file (a URL; file:// in node) as objects, {xs, ys} when a column isLabel. */
  csv(source: string, csvConfig?: CSVConfig): CSVDataset;
  CSVDataset: typeof CSVDataset;
  FileDataSource: typeof FileDataSource;
  URLDataSource: typeof URLDataSource;
  TextLineDataset: typeof TextLineDataset;
  /** Calls f() per element: f returns (a promise of) {value, done}. */
  func<E>(f: () => IteratorResult<E> | Promise<IteratorResult<E>>): Dataset<E>;
  /** The camera as an iterator of frames (browser only); see WebcamConfig. */
  webcam(webcamVideoElement?: HTMLVideoElement | null, webcamConfig?: WebcamConfig): Promise<WebcamIterator>;
  /** The microphone as an iterator of spectrograms / waveforms (browser only). */
  microphone(microphoneConfig?: MicrophoneConfig): Promise<MicrophoneIterator>;
};
export interface WebcamConfig {
  facingMode?: 'user' | 'environment';
  deviceId?: string;
  resizeWidth?: number;
  resizeHeight?: number;
  centerCrop?: boolean;
}
export interface WebcamIterator extends AsyncIterator<Tensor> {
  /** int32 [height, width, 3]; float32 when resized. */
  capture(): Promise<Tensor>;
  start(): Promise<void>;
  stop(): void;
  isClosed: boolean;
  [Symbol.asyncIterator](): WebcamIterator;
}
export interface MicrophoneConfig {
  sampleRateHz?: number;
  fftSize?: number;
  columnTruncateLength?: number;
  numFramesPerSpectrogram?: number;
  audioTrackConstraints?: MediaTrackConstraints;
  smoothingTimeConstant?: number;
  includeSpectrogram?: boolean;
  includeWaveform?: boolean;
}
export interface MicrophoneIterator extends AsyncIterator<{spectrogram?: Tensor; waveform?: Tensor}> {
  capture(): Promise<{spectrogram?: Tensor; waveform?: Tensor}>;
  start(): Promise<void>;
  stop(): void;
  isClosed: boolean;
  [Symbol.asyncIterator](): MicrophoneIterator;
}

// ---- Images: tf.browser and tf.image ------------------------------------------------------------

export type PixelData = {width: number; height: number; data: Uint8Array | Uint8ClampedArray};
export type PixelSource = PixelData | ImageData | HTMLImageElement | HTMLCanvasElement | HTMLVideoElement |
    ImageBitmap | OffscreenCanvas;
export const browser: {
  /** int32 [height, width, numChannels] (1: red, 3: RGB, 4: RGBA). */
  fromPixels(pixels: PixelSource, numChannels?: 1 | 3 | 4): Tensor;
  fromPixelsAsync(pixels: PixelSource, numChannels?: 1 | 3 | 4): Promise<Tensor>;
  /** RGBA bytes of a [h, w] or [h, w, 1|3|4] tensor (float32 in [0, 1], int32 in [0, 255]); drawn on canvas if given. */
  toPixels(img: Tensor | TensorLike, canvas?: HTMLCanvasElement): Promise<Uint8ClampedArray>;
  /** Paints a [h, w] or [h, w, 1|3|4] tensor (float32 in [0, 1], int32 in [0, 255]) onto a canvas at once. */
  draw(image: Tensor | TensorLike, canvas: HTMLCanvasElement | OffscreenCanvas,
       options?: {imageOptions?: {alpha?: number},
                  contextOptions?: {contextType?: string, contextAttributes?: object}}): void;
};
export const image: {
  resizeBilinear(images: Tensor, size: [number, number], alignCorners?: boolean, halfPixelCenters?: boolean): Tensor;
  resizeNearestNeighbor(images: Tensor, size: [number, number], alignCorners?: boolean,
                        halfPixelCenters?: boolean): Tensor;
  cropAndResize(image: Tensor, boxes: Tensor | number[][], boxInd: Tensor | number[], cropSize: [number, number],
                method?: 'bilinear' | 'nearest', extrapolationValue?: number): Tensor;
  flipLeftRight(image: Tensor): Tensor;
  rgbToGrayscale(image: Tensor): Tensor;
  grayscaleToRGB(image: Tensor): Tensor;
  threshold(image: Tensor, method?: 'binary' | 'otsu', inverted?: boolean, threshValue?: number): Tensor;
  transform(image: Tensor, transforms: Tensor | number[][], interpolation?: 'nearest' | 'bilinear',
            fillMode?: 'constant' | 'reflect' | 'wrap' | 'nearest', fillValue?: number,
            outputShape?: [number, number]): Tensor;
  rotateWithOffset(image: Tensor, radians: number, fillValue?: number | [number, number, number],
                   center?: number | [number, number]): Tensor;
  nonMaxSuppression(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                    scoreThreshold?: number): Tensor;
  nonMaxSuppressionAsync(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                         scoreThreshold?: number): Promise<Tensor>;
  nonMaxSuppressionWithScore(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                             scoreThreshold?: number, softNmsSigma?: number):
      {selectedIndices: Tensor; selectedScores: Tensor};
  nonMaxSuppressionWithScoreAsync(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                                  scoreThreshold?: number, softNmsSigma?: number):
      Promise<{selectedIndices: Tensor; selectedScores: Tensor}>;
  nonMaxSuppressionPadded(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                          scoreThreshold?: number, padToMaxOutputSize?: boolean):
      {selectedIndices: Tensor; validOutputs: Tensor};
  nonMaxSuppressionPaddedAsync(boxes: Tensor, scores: Tensor, maxOutputSize: number, iouThreshold?: number,
                               scoreThreshold?: number, padToMaxOutputSize?: boolean):
      Promise<{selectedIndices: Tensor; validOutputs: Tensor}>;
};

// ---- Worker mode -------------------------------------------------------------------------------

/** The objects that stay in the worker and reach the page as references (Remote). */
export type Remotable = Tensor | Layer | Optimizer | SymbolicTensor | Dataset<any> | GraphModel;

/**
 * A value as the page receives it from the worker: its objects (Remotable) as
 * references, data as a structured copy (an object's functions are left out).
 */
export type FromWorker<T> =
  T extends Remotable ? Remote<T> :
  T extends (...args: any[]) => any ? never :
  T extends ArrayBufferView | ArrayBuffer | Date | string | number | boolean | bigint | null | undefined ? T :
  T extends readonly unknown[] ? {[I in keyof T]: FromWorker<T[I]>} :
  T extends object ? {[K in keyof T as T[K] extends (...args: any[]) => any ? never : K]: FromWorker<T[K]>} :
  T;

/**
 * What the page may pass where the API takes a T: the worker's own objects
 * as references, a call's result before it arrives, and callbacks, which the
 * worker calls back with its values as the page receives them.
 */
export type ToWorker<T> =
  T extends Remotable ? T | Remote<T> :
  T extends (...args: infer A) => any ? (...args: {[I in keyof A]: FromWorker<A[I]>}) => unknown :
  T extends ArrayBufferView | ArrayBuffer | Date | string | number | boolean | bigint | null | undefined ? T :
  T extends object ? {[K in keyof T]: ToWorker<T[K]>} :
  T;

/** A call's result: a Promise, whose methods may be called before it arrives (one round trip). */
export type Pipelined<T> = Promise<FromWorker<T>> & (T extends Remotable ? Remote<T> : unknown);

/** A property read through a reference: awaited, its value; its methods may be called on it. */
export type RemoteProperty<T> = PromiseLike<FromWorker<T>> & (T extends object ? Remote<T> : unknown);

/**
 * An object in the worker, seen from the page: every method returns a
 * Pipelined result and every property read a RemoteProperty (awaited, its
 * value). Overloaded methods take their last signature's types.
 */
export type Remote<T> = {
  readonly [K in keyof T]: T[K] extends (...args: infer A) => infer R ?
      (...args: {[I in keyof A]: ToWorker<A[I]>}) => Pipelined<Awaited<R>> :
      RemoteProperty<T[K]>;
};

/**
 * The API with the engine in a Web Worker, proxied: every call and every
 * property read returns a Promise; objects stay in the worker as references.
 * A call's result may be passed on, or its methods called, before it arrives
 * (promise pipelining): the chain goes out at once and costs one round trip.
 */
export type RemoteApi = Remote<typeof import('./index.js')> & {terminate(): void};
export function worker(options?: {ready?: ReadyOptions; backend?: string; url?: string | URL}):
    Promise<RemoteApi>;
