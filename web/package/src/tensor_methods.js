// The Tensor (and Variable) methods TF.js has beyond those ops.js installs:
// method forms of the composite ops, rank aliases, casts and read-backs.
import {GlintError} from './core.js';
import {Tensor, variable} from './tensor.js';
import {ops} from './ops.js';
import * as composite from './ops_composite.js';
import * as layout from './ops_layout.js';
import * as more from './ops_more.js';
import * as host from './ops_host.js';
import * as select from './ops_select.js';
import {image} from './image.js';
import {TensorBuffer} from './tensor_buffer.js';
import {computeStrides} from './util_more.js';
import {named} from './ops_dtype_rules.js';
import {fft, ifft, rfft, irfft} from './ops_fft.js';

const P = Tensor.prototype;

// Read-only shape facts TF.js tensors carry.
Object.defineProperties(P, {
  strides: {get() {
    return computeStrides(this.shape);
  }, configurable: true},
  rankType: {get() {
    return this.rank < 5 ? String(this.rank) : 'higher';
  }, configurable: true},
});

function rankAlias(rank) {
  return function(...shape) {
    if (shape.length !== rank) {
      throw new GlintError(`[as${rank}D] expects ${rank} dimensions: got ${JSON.stringify(shape)}`);
    }
    return ops.reshape(this, shape);
  };
}

Object.assign(P, {
  fft() {
    return fft(this);
  },
  ifft() {
    return ifft(this);
  },
  rfft(fftLength) {
    return rfft(this, fftLength);
  },
  irfft() {
    return irfft(this);
  },
  throwIfDisposed() {
    this._assertLive();
  },
  asScalar() {
    if (this.size !== 1) throw new GlintError(`[asScalar] the tensor must have size 1: got shape [${this.shape}]`);
    return ops.reshape(this, []);
  },
  as3D: rankAlias(3),
  as4D: rankAlias(4),
  as5D: rankAlias(5),
  reshapeAs(x) {
    return named('reshapeAs', () => ops.reshape(this, x.shape));
  },
  toBool() {
    return ops.cast(this, 'bool');
  },
  toFloat() {
    return ops.cast(this, 'float32');
  },
  toInt() {
    return ops.cast(this, 'int32');
  },
  variable(trainable = true, name, dtype) {
    if (dtype && dtype !== this.dtype) {
      const c = ops.cast(this, dtype);
      try {
        return variable(c, trainable, name);
      } finally {
        c.dispose();
      }
    }
    return variable(this, trainable, name);
  },
  /** A TensorBuffer over a copy of the values (async read). */
  async buffer() {
    return new TensorBuffer(this.shape, this.dtype, await this.data());
  },
  bufferSync() {
    return new TensorBuffer(this.shape, this.dtype, this.dataSync());
  },
  /** The raw bytes of the values. */
  async bytes() {
    const d = await this.data();
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  },
  concat(x, axis = 0) {
    return ops.concat([this, ...(Array.isArray(x) ? x : [x])], axis);
  },
  stack(x, axis = 0) {
    return ops.stack([this, ...(Array.isArray(x) ? x : [x])], axis);
  },
  where(condition, x) {
    return ops.where(condition, this, x);
  },
  batchNorm(mean, variance, offset, scale, varianceEpsilon) {
    return ops.batchNorm(this, mean, variance, offset, scale, varianceEpsilon);
  },
  conv2dTranspose(filter, outputShape, strides, pad) {
    return ops.conv2dTranspose(this, filter, outputShape, strides, pad);
  },
  depthwiseConv2d(filter, strides, pad, dataFormat, dilations) {
    return ops.depthwiseConv2d(this, filter, strides, pad, dataFormat, dilations);
  },
  unsortedSegmentSum(segmentIds, numSegments) {
    return ops.unsortedSegmentSum(this, segmentIds, numSegments);
  },
  resizeBilinear(newShape2D, alignCorners, halfPixelCenters) {
    return image.resizeBilinear(this, newShape2D, alignCorners, halfPixelCenters);
  },
  resizeNearestNeighbor(newShape2D, alignCorners, halfPixelCenters) {
    return image.resizeNearestNeighbor(this, newShape2D, alignCorners, halfPixelCenters);
  },
});

// x.op(...args) === op(x, ...args)
const FORWARDED = {
  broadcastTo: composite.broadcastTo, conv1d: composite.conv1d, cosh: composite.cosh,
  sinh: composite.sinh, tan: composite.tan, cumsum: composite.cumsum, divNoNan: composite.divNoNan,
  euclideanNorm: composite.euclideanNorm, expm1: composite.expm1, isFinite: composite.isFinite,
  isInf: composite.isInf, isNaN: composite.isNaN, logSigmoid: composite.logSigmoid,
  norm: composite.norm, prelu: composite.prelu, step: composite.step,
  depthToSpace: layout.depthToSpace, spaceToBatchND: layout.spaceToBatchND,
  batchToSpaceND: layout.batchToSpaceND, mirrorPad: layout.mirrorPad,
  localResponseNormalization: more.localResponseNormalization, separableConv2d: more.separableConv2d,
  pool: more.pool, unique: host.unique, topk: select.topk, dilation2d: select.dilation2d,
  cumprod: select.cumprod,
};
for (const [name, fn] of Object.entries(FORWARDED)) {
  if (!(name in P)) {
    P[name] = function(...args) {
      return fn(this, ...args);
    };
  }
}
