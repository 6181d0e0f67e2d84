// glint.data.webcam and glint.data.microphone (browser only), as TF.js's:
// iterators whose capture() returns the current video frame as a tensor, or
// the last spectrogram / waveform of the microphone.
import {GlintError} from './core.js';
import {tensor} from './tensor.js';
import {fromPixels} from './browser.js';
import {image} from './image.js';

function needMedia(op, kind) {
  if (typeof navigator === 'undefined' || !navigator.mediaDevices?.getUserMedia)
    throw new GlintError(`[${op}] needs a browser page with navigator.mediaDevices.getUserMedia (a secure context: https or localhost) for the ${kind}`);
}

class WebcamIterator {
  constructor(video, config) {
    this.video = video;
    this.config = config;
    this.isClosed = true;
  }

  async start() {
    const {deviceId, facingMode, resizeWidth, resizeHeight} = this.config;
    const video = {};
    if (deviceId) video.deviceId = {exact: deviceId};
    if (facingMode) video.facingMode = facingMode;
    const w = resizeWidth ?? (this.video.width || undefined);
    const h = resizeHeight ?? (this.video.height || undefined);
    if (w) video.width = w;
    if (h) video.height = h;
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({video});
    } catch (e) {
      throw new GlintError(`[data.webcam] the camera could not be opened: ${e.name}: ${e.message}`);
    }
    this.video.srcObject = this.stream;
    this.video.muted = true;
    this.video.playsInline = true;
    if (this.video.readyState < 2)
      await new Promise((resolve) => this.video.addEventListener('loadeddata', resolve, {once: true}));
    await this.video.play();
    this.isClosed = false;
  }

  stop() {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.video.srcObject = null;
    this.isClosed = true;
  }

  /**
   * The current frame, int32 [height, width, 3]; float32 when resized to
   * resizeWidth x resizeHeight (bilinear; with centerCrop, the largest centred
   * region of that aspect ratio first), as TF.js.
   */
  async capture() {
    if (this.isClosed) throw new GlintError('[data.webcam] capture: the webcam is stopped (call start())');
    const frame = fromPixels(this.video);
    const {resizeWidth, resizeHeight, centerCrop} = this.config;
    const [h, w] = frame.shape;
    const th = resizeHeight ?? (this.video.height || h), tw = resizeWidth ?? (this.video.width || w);
    if (th === h && tw === w) return frame;
    try {
      const batch = frame.expandDims(0);
      let out;
      if (centerCrop) {
        const scale = Math.min(h / th, w / tw);
        const ch = (th * scale) / h, cw = (tw * scale) / w;
        const box = [(1 - ch) / 2, (1 - cw) / 2, (1 + ch) / 2, (1 + cw) / 2];
        out = image.cropAndResize(batch.cast('float32'), [box], [0], [th, tw]);
      } else {
        out = image.resizeBilinear(batch, [th, tw]);
      }
      const y = out.squeeze([0]);
      batch.dispose();
      out.dispose();
      return y;
    } finally {
      frame.dispose();
    }
  }

  async next() {
    if (this.isClosed) return {value: null, done: true};
    return {value: await this.capture(), done: false};
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** A started WebcamIterator; a hidden <video> when none is given (then resizeWidth/Height are needed). */
export async function webcam(webcamVideoElement, webcamConfig = {}) {
  needMedia('data.webcam', 'camera');
  let video = webcamVideoElement;
  if (!video) {
    const {resizeWidth, resizeHeight} = webcamConfig;
    if (!resizeWidth || !resizeHeight)
      throw new GlintError('[data.webcam] without a <video> element, webcamConfig needs resizeWidth and resizeHeight');
    video = document.createElement('video');
    video.width = resizeWidth;
    video.height = resizeHeight;
  } else if (typeof HTMLVideoElement === 'function' && !(video instanceof HTMLVideoElement)) {
    throw new GlintError('[data.webcam] webcamVideoElement must be a <video> element');
  }
  const it = new WebcamIterator(video, webcamConfig);
  await it.start();
  return it;
}

class MicrophoneIterator {
  constructor(config) {
    this.fftSize = config.fftSize ?? 1024;
    if (!Number.isInteger(Math.log2(this.fftSize)) || this.fftSize < 16 || this.fftSize > 8192)
      throw new GlintError(`[data.microphone] fftSize must be a power of 2 in [16, 8192], got ${this.fftSize}`);
    this.numFrames = config.numFramesPerSpectrogram ?? 43;
    if (!(Number.isInteger(this.numFrames) && this.numFrames > 0))
      throw new GlintError(`[data.microphone] numFramesPerSpectrogram must be a positive integer, got ${this.numFrames}`);
    this.columns = config.columnTruncateLength ?? this.fftSize;  // the analyser has fftSize bins
    if (!(Number.isInteger(this.columns) && this.columns >= 1 && this.columns <= this.fftSize))
      throw new GlintError(`[data.microphone] columnTruncateLength must be an integer in [1, fftSize = ${this.fftSize}], got ${this.columns}`);
    this.sampleRateHz = config.sampleRateHz ?? 44100;
    this.smoothing = config.smoothingTimeConstant ?? 0;
    this.includeSpectrogram = config.includeSpectrogram !== false;
    this.includeWaveform = config.includeWaveform === true;
    this.audioTrackConstraints = config.audioTrackConstraints;
    this.isClosed = true;
  }

  async start() {
    const AudioContextClass = globalThis.AudioContext ?? globalThis.webkitAudioContext;
    if (!AudioContextClass) throw new GlintError('[data.microphone] this browser has no AudioContext');
    try {
      this.stream = await navigator.mediaDevices.getUserMedia({audio: this.audioTrackConstraints ?? true, video: false});
    } catch (e) {
      throw new GlintError(`[data.microphone] the microphone could not be opened: ${e.name}: ${e.message}`);
    }
    this.context = new AudioContextClass({sampleRate: this.sampleRateHz});
    if (this.context.sampleRate !== this.sampleRateHz)
      throw new GlintError(`[data.microphone] asked for ${this.sampleRateHz} Hz, the audio context runs at ${this.context.sampleRate} Hz`);
    const source = this.context.createMediaStreamSource(this.stream);
    this.analyser = this.context.createAnalyser();
    this.analyser.fftSize = this.fftSize * 2;
    this.analyser.smoothingTimeConstant = this.smoothing;
    source.connect(this.analyser);
    // A context made without a user gesture may start suspended: nothing flows then.
    if (this.context.state === 'suspended') await this.context.resume();
    this.freq = new Float32Array(this.fftSize);
    this.time = new Float32Array(this.fftSize);
    this.isClosed = false;
  }

  stop() {
    for (const track of this.stream?.getTracks() ?? []) track.stop();
    this.context?.close();
    this.isClosed = true;
  }

  /**
   * {spectrogram: [numFrames, columnTruncateLength, 1] in dB, waveform:
   * [numFrames * fftSize, 1]}: numFramesPerSpectrogram frames, one every
   * fftSize / sampleRate seconds.
   */
  async capture() {
    if (this.isClosed) throw new GlintError('[data.microphone] capture: the microphone is stopped (call start())');
    const spectrogram = new Float32Array(this.numFrames * this.columns);
    const waveform = new Float32Array(this.numFrames * this.fftSize);
    const periodMs = (this.fftSize / this.sampleRateHz) * 1000;
    for (let f = 0; f < this.numFrames; ++f) {
      await new Promise((resolve) => setTimeout(resolve, periodMs));
      if (this.includeSpectrogram) {
        this.analyser.getFloatFrequencyData(this.freq);  // silence reads as -Infinity dB
        spectrogram.set(this.freq.subarray(0, this.columns), f * this.columns);
      }
      if (this.includeWaveform) {
        this.analyser.getFloatTimeDomainData(this.time);
        waveform.set(this.time, f * this.fftSize);
      }
    }
    const out = {};
    if (this.includeSpectrogram) out.spectrogram = tensor(spectrogram, [this.numFrames, this.columns, 1]);
    if (this.includeWaveform) out.waveform = tensor(waveform, [this.numFrames * this.fftSize, 1]);
    return out;
  }

  async next() {
    if (this.isClosed) return {value: null, done: true};
    return {value: await this.capture(), done: false};
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

/** A started MicrophoneIterator (TF.js's config names). */
export async function microphone(microphoneConfig = {}) {
  needMedia('data.microphone', 'microphone');
  const it = new MicrophoneIterator(microphoneConfig);
  await it.start();
  return it;
}
