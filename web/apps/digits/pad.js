// The drawing pad: strokes from mouse, touch and pen (Pointer Events), kept as
// point lists in [0, 1] pad coordinates so that the screen (any size, any
// pixel ratio) and the model's raster draw exactly the same shapes.
// Without a pointer the pad is drawn from the keyboard: arrow keys move a pen
// (Shift: finer steps), Space puts it down or lifts it, Escape lifts it. It can
// also hold a picture instead of strokes (a held-out MNIST digit, already in
// the model's 28x28 form), so that predicting and teaching need no drawing.
// Fires 'change' (a stroke grew, ended, was undone or cleared; a picture came or went).

export const LINE_WIDTH = 0.08;   // of the pad's side: MNIST-like strokes for a digit filling the pad
export const RASTER = 280;        // side of the raster the model's input is cut from
const KEY_STEP = 0.04, FINE_STEP = 0.01;   // pen moves per arrow key, of the pad's side

export class Pad extends EventTarget {
  constructor(canvas) {
    super();
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.strokes = [];
    this.current = null;      // the stroke being drawn
    this.pointerId = null;
    this.last = null;         // the pointer's last position, on the pad or off it
    this.gestures = 0;        // pointer strokes so far: the pieces of one share a number
    this.version = 0;         // bumps on every change: what a prediction was made for
    this.picture = null;      // {pixels: Float32Array(784) in [0, 1], label} instead of strokes
    this.pen = [0.5, 0.5];    // the keyboard's pen, in pad coordinates
    this.penDown = false;
    this.raster = document.createElement('canvas');
    this.raster.width = this.raster.height = RASTER;
    this.rasterCtx = this.raster.getContext('2d', {willReadFrequently: true});
    this.listen();
    new ResizeObserver(() => this.resize()).observe(canvas);
    this.resize();
  }

  get empty() {
    return this.strokes.length === 0 && !this.picture;
  }

  /** Puts a 28x28 picture (levels in [0, 1]) on the pad in place of any drawing. */
  setPicture(pixels, label) {
    this.strokes = [];
    this.current = null;
    this.pointerId = null;
    this.penDown = false;
    this.picture = {pixels, label};
    this.changed();
  }

  listen() {
    const c = this.canvas;
    c.addEventListener('pointerdown', (e) => {
      if (this.pointerId !== null || (e.pointerType === 'mouse' && e.button !== 0)) return;
      e.preventDefault();
      c.setPointerCapture(e.pointerId);
      this.picture = null;      // drawing starts over a picture: the picture goes
      this.pointerId = e.pointerId;
      const clamp = (v) => Math.min(1, Math.max(0, v));   // on the pad, up to the pixel's rounding
      this.last = this.point(e).map(clamp);
      this.current = [this.last];
      this.current.gesture = ++this.gestures;
      this.strokes.push(this.current);
      this.changed();
    });
    c.addEventListener('pointermove', (e) => {
      if (e.pointerId !== this.pointerId) return;
      // Coalesced events keep fast strokes smooth when the page is busy.
      const events = e.getCoalescedEvents?.() ?? [];
      let grew = false;
      for (const ev of events.length ? events : [e]) grew = this.follow(this.point(ev)) || grew;
      if (grew) this.changed();
    });
    const end = (e) => {
      if (e.pointerId !== this.pointerId) return;
      this.pointerId = null;
      this.current = null;
      this.changed();
    };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    c.addEventListener('keydown', (e) => this.key(e));
    c.addEventListener('focus', () => this.draw());
    c.addEventListener('blur', () => {
      if (this.penDown) this.lift();
      this.draw();
    });
  }

  key(e) {
    const step = e.shiftKey ? FINE_STEP : KEY_STEP;
    const moves = {ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step]};
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (moves[e.key]) {
      const [dx, dy] = moves[e.key];
      this.pen = [Math.min(1, Math.max(0, this.pen[0] + dx)), Math.min(1, Math.max(0, this.pen[1] + dy))];
      if (this.penDown) {
        this.current.push([...this.pen]);
        this.changed();
      } else {
        this.draw();
      }
    } else if (e.key === ' ') {
      if (this.penDown) {
        this.lift();
      } else {
        this.picture = null;
        this.penDown = true;
        this.current = [[...this.pen]];
        this.strokes.push(this.current);
        this.changed();
      }
    } else if (e.key === 'Escape' && this.penDown) {
      this.lift();
    } else {
      return;
    }
    e.preventDefault();   // arrows and Space would scroll the page
  }

  lift() {
    this.penDown = false;
    this.current = null;
    this.changed();
  }

  /** Where the pointer is, in pad coordinates: outside [0, 1] when it is off the pad (captured). */
  point(e) {
    const r = this.canvas.getBoundingClientRect();
    return [(e.clientX - r.left) / r.width, (e.clientY - r.top) / r.height];
  }

  /**
   * The pointer moved from this.last to p: the part of that move on the pad is ink.
   * Off the pad nothing is drawn (the stroke is cut at the border); coming back
   * in starts a new stroke of the same gesture at the border. Returns whether ink grew.
   */
  follow(p) {
    const seg = clip(this.last, p);
    this.last = p;
    if (!seg) return false;
    if (!this.current) {
      this.current = [seg.from];
      this.current.gesture = this.gestures;
      this.strokes.push(this.current);
    }
    this.current.push(seg.to);
    if (seg.cut) this.current = null;
    return true;
  }

  undo() {
    if (this.empty) return;
    if (this.picture) {
      this.picture = null;
    } else {
      // A stroke that left the pad and came back is one gesture: undone as one.
      const {gesture} = this.strokes.pop();
      while (gesture !== undefined && this.strokes.at(-1)?.gesture === gesture) this.strokes.pop();
    }
    this.pointerId = null;
    this.current = null;
    this.penDown = false;
    this.changed();
  }

  clear() {
    if (this.empty) return;
    this.strokes = [];
    this.picture = null;
    this.pointerId = null;
    this.current = null;
    this.penDown = false;
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
    const ink = getComputedStyle(canvas).color || '#111';
    ctx.strokeStyle = ctx.fillStyle = ink;
    if (this.picture) paintPicture(ctx, this.picture.pixels, canvas.width);
    paint(ctx, this.strokes, canvas.width);
    // The keyboard's pen, while the pad has keyboard focus: a ring, filled when down.
    if (document.activeElement === canvas && canvas.matches(':focus-visible')) {
      const [x, y] = this.pen.map((v) => v * canvas.width);
      const r = (LINE_WIDTH / 2 + 0.012) * canvas.width;
      ctx.save();
      ctx.lineWidth = Math.max(2, 0.008 * canvas.width);
      ctx.strokeStyle = getComputedStyle(canvas).getPropertyValue('--pen').trim() || ink;
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.restore();
    }
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

/** A 28x28 picture (levels in [0, 1]) as ink of the context's fill colour, scaled to side. */
function paintPicture(ctx, pixels, side) {
  const cell = side / 28;
  const alpha = ctx.globalAlpha;
  for (let i = 0; i < 784; ++i) {
    if (pixels[i] <= 0) continue;
    ctx.globalAlpha = pixels[i];
    ctx.fillRect((i % 28) * cell, Math.floor(i / 28) * cell, Math.ceil(cell), Math.ceil(cell));
  }
  ctx.globalAlpha = alpha;
}

/**
 * The part of the segment a-b inside the pad [0, 1]^2 (Liang-Barsky): {from, to,
 * cut: whether b is outside}, or null when the segment misses the pad.
 */
function clip(a, b) {
  const [x0, y0] = a, dx = b[0] - x0, dy = b[1] - y0;
  let t0 = 0, t1 = 1;
  for (const [p, q] of [[-dx, x0], [dx, 1 - x0], [-dy, y0], [dy, 1 - y0]]) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const r = q / p;
    if (p < 0) {
      if (r > t1) return null;
      t0 = Math.max(t0, r);
    } else {
      if (r < t0) return null;
      t1 = Math.min(t1, r);
    }
  }
  const at = (t) => (t === 0 ? a : t === 1 ? b : [x0 + t * dx, y0 + t * dy]);
  return {from: at(t0), to: at(t1), cut: t1 < 1};
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
