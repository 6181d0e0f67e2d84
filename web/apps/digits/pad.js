// The drawing pad: strokes from mouse, touch and pen (Pointer Events), kept as
// point lists in [0, 1] pad coordinates so that the screen (any size, any
// pixel ratio) and the model's raster draw exactly the same shapes.
// Fires 'change' (a stroke grew, ended, was undone or cleared).

export const LINE_WIDTH = 0.08;   // of the pad's side: MNIST-like strokes for a digit filling the pad
export const RASTER = 280;        // side of the raster the model's input is cut from

export class Pad extends EventTarget {
  constructor(canvas) {
    super();
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.strokes = [];
    this.current = null;      // the stroke being drawn
    this.pointerId = null;
    this.version = 0;         // bumps on every change: what a prediction was made for
    this.raster = document.createElement('canvas');
    this.raster.width = this.raster.height = RASTER;
    this.rasterCtx = this.raster.getContext('2d', {willReadFrequently: true});
    this.listen();
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  get empty() {
    return this.strokes.length === 0;
  }

  listen() {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      if (this.pointerId !== null || (e.pointerType === 'mouse' && e.button !== 0)) return;
      e.preventDefault();
      c.setPointerCapture(e.pointerId);
      this.pointerId = e.pointerId;
      this.current = [this.point(e)];
      this.strokes.push(this.current);
      this.changed();
    });
    c.addEventListener('pointermove', (e) => {
      if (e.pointerId !== this.pointerId) return;
      // Coalesced events keep fast strokes smooth when the page is busy.
      const events = e.getCoalescedEvents?.() ?? [];
      for (const ev of events.length ? events : [e]) this.current.push(this.point(ev));
      this.changed();
    });
    const end = (e) => {
      if (e.pointerId !== this.pointerId) return;
      this.pointerId = null;
      this.current = null;
      this.changed();
    };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
  }

  point(e) {
    const r = this.canvas.getBoundingClientRect();
    const clamp = (v) => Math.min(1, Math.max(0, v));
    return [clamp((e.clientX - r.left) / r.width), clamp((e.clientY - r.top) / r.height)];
  }

  undo() {
    if (!this.strokes.length) return;
    this.strokes.pop();
    this.pointerId = null;
    this.current = null;
    this.changed();
  }

  clear() {
    if (!this.strokes.length) return;
    this.strokes = [];
    this.pointerId = null;
    this.current = null;
    this.changed();
  }

  changed() {
    ++this.version;
    this.draw();
    this.dispatchEvent(new Event('change'));
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    const side = Math.round(this.canvas.clientWidth * dpr);
    if (side > 0 && this.canvas.width !== side) {
      this.canvas.width = this.canvas.height = side;
      this.draw();
    }
  }

  draw() {
    const {ctx, canvas} = this;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.strokeStyle = ctx.fillStyle = getComputedStyle(canvas).color || '#111';
    paint(ctx, this.strokes, canvas.width);
  }

  /** The ink as levels in [0, 1], RASTER x RASTER, anti-aliased by the canvas. */
  ink() {
    const ctx = this.rasterCtx;
    ctx.clearRect(0, 0, RASTER, RASTER);
    ctx.strokeStyle = ctx.fillStyle = '#000';
    paint(ctx, this.strokes, RASTER);
    const rgba = ctx.getImageData(0, 0, RASTER, RASTER).data;
    const out = new Float32Array(RASTER * RASTER);
    for (let i = 0; i < out.length; ++i) out[i] = rgba[4 * i + 3] / 255;
    return out;
  }
}

/** Strokes as round-capped paths, smoothed through segment midpoints. */
function paint(ctx, strokes, side) {
  const lw = LINE_WIDTH * side;
  ctx.lineWidth = lw;
  ctx.lineCap = ctx.lineJoin = 'round';
  for (const s of strokes) {
    const p = s.map(([x, y]) => [x * side, y * side]);
    if (p.length === 1) {
      ctx.beginPath();
      ctx.arc(p[0][0], p[0][1], lw / 2, 0, 2 * Math.PI);
      ctx.fill();
      continue;
    }
    ctx.beginPath();
    ctx.moveTo(p[0][0], p[0][1]);
    for (let i = 1; i < p.length - 1; ++i) {
      ctx.quadraticCurveTo(p[i][0], p[i][1], (p[i][0] + p[i + 1][0]) / 2, (p[i][1] + p[i + 1][1]) / 2);
    }
    ctx.lineTo(p[p.length - 1][0], p[p.length - 1][1]);
    ctx.stroke();
  }
}
