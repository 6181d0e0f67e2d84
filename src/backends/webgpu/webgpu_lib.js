// The webgpu backend's reach into navigator.gpu (linked with --js-library).
// Emscripten 3.1.6's own WebGPU bindings predate the final spec, so the C++
// side (webgpu_api.h) sees integer handles and these few calls. The device
// is acquired asynchronously before the module starts (the JS API, or a test
// page, passes it as Module.glintWebGPU = {adapter, device}); everything
// here is synchronous.
//
// Dispatches are recorded into one compute pass and submitted together: at a
// read, an upload, or when the per-dispatch parameter slots run out. Each
// dispatch's scalars (learning rates...) get a 256-byte slot of one storage
// buffer, written once per submit, so no buffer is created per dispatch.
//
// A synchronous read has no WebGPU call: as TF.js does, the bytes go through a
// canvas. A compute pass spreads them 3 per pixel (alpha 255, so an 'opaque'
// canvas keeps them exact) into a staging buffer, which is copied into the
// texture of an OffscreenCanvas configured for WebGPU, drawn into a 2D canvas
// and read with getImageData. Asynchronous reads use mapAsync. Outside a
// page (node through Dawn) there is no canvas: reads are asynchronous only,
// and the C++ side serves what it can from host copies (webgpu_backend.cpp).
//
// Usage flags are the spec's numbers: node's WebGPU bindings install no
// GPU* globals.
mergeInto(LibraryManager.library, {
  $GW: {
    U_MAP_READ: 1, U_COPY_SRC: 4, U_COPY_DST: 8, U_STORAGE: 128, STAGE_COMPUTE: 4, MAP_READ: 1,
    TEX_COPY_DST: 2,
    device: null, adapter: null, objs: [null], freeIds: [],
    encoder: null, pass: null, slot: 0, paramsBuf: null, paramsHost: null, dummy: null,
    layouts: {}, lost: false, lostWhy: '', reads: {}, nextRead: 1, canvas: null,
    // Bind groups by layout and buffers (a training step repeats its dispatches
    // on the same pooled buffers), and which groups each buffer is in, so
    // that a destroyed buffer takes its groups along. Mappable buffers for
    // asynchronous reads, by size, reused once read.
    groups: {}, groupsOf: {}, numGroups: 0, MAX_GROUPS: 8192, staging: {},
    // Counters for glint.webgpu.stats(): what a training step costs the host.
    counts: {dispatches: 0, bindGroupsMade: 0, submits: 0, pipelinesMade: 0},
    // GPU timing (glint.webgpu.startKernelTiming): while on, each dispatch is
    // a compute pass of its own whose start and end the GPU timestamps; the
    // pairs are resolved at each submit and summed per kernel name as they land.
    timing: null, TIMED: 2048,
    SLOTS: 512, SLOT_BYTES: 256, CANVAS: 256,
    put: function(o) {
      var id = GW.freeIds.length ? GW.freeIds.pop() : GW.objs.length;
      GW.objs[id] = o;
      return id;
    },
    drop: function(id) {
      GW.objs[id] = null;
      GW.freeIds.push(id);
    },
    // Bind group layout of a kernel with nIn inputs and nOut outputs: inputs
    // read-only storage, outputs read-write storage, then the parameter slot.
    layout: function(nIn, nOut) {
      var key = nIn + ',' + nOut;
      if (GW.layouts[key]) return GW.layouts[key];
      var entries = [];
      // The parameter slot's offset is dynamic: one bind group serves every slot.
      for (var k = 0; k < nIn + nOut + 1; ++k) {
        var type = k < nIn || k == nIn + nOut ? 'read-only-storage' : 'storage';
        entries.push({binding: k, visibility: GW.STAGE_COMPUTE,
                      buffer: {type: type, hasDynamicOffset: k == nIn + nOut}});
      }
      var bgl = GW.device.createBindGroupLayout({entries: entries});
      var pl = GW.device.createPipelineLayout({bindGroupLayouts: [bgl]});
      return GW.layouts[key] = {bgl: bgl, pl: pl, key: key};
    },
    // The bind group of `layout` over buffer ids (0: the dummies) and the
    // parameter buffer, made once.
    group: function(layout, ids, nIn) {
      var key = layout.key + ':' + ids.join(',');
      var g = GW.groups[key];
      if (g) return g;
      if (GW.numGroups >= GW.MAX_GROUPS) GW.forgetGroups();
      var entries = [];
      for (var k = 0; k < ids.length; ++k) {
        var id = ids[k];
        // Empty tensors have no buffer: a dummy, one for inputs and one for
        // outputs (a buffer may not be bound read-only and writable at once).
        entries.push({binding: k, resource: {buffer: id ? GW.objs[id] : k < nIn ? GW.dummy : GW.dummyOut}});
      }
      entries.push({binding: ids.length, resource: {buffer: GW.paramsBuf, offset: 0, size: GW.SLOT_BYTES}});
      g = GW.groups[key] = GW.device.createBindGroup({layout: layout.bgl, entries: entries});
      ++GW.numGroups;
      ++GW.counts.bindGroupsMade;
      for (var j = 0; j < ids.length; ++j) {
        if (!ids[j]) continue;
        (GW.groupsOf[ids[j]] = GW.groupsOf[ids[j]] || []).push(key);
      }
      return g;
    },
    forgetGroups: function() {
      GW.groups = {};
      GW.groupsOf = {};
      GW.numGroups = 0;
    },
    forgetBuffer: function(id) {
      var keys = GW.groupsOf[id];
      if (!keys) return;
      for (var i = 0; i < keys.length; ++i) {
        if (GW.groups[keys[i]]) {
          delete GW.groups[keys[i]];
          --GW.numGroups;
        }
      }
      delete GW.groupsOf[id];
    },
    ensurePass: function() {
      if (!GW.encoder) GW.encoder = GW.device.createCommandEncoder();
      if (!GW.pass) GW.pass = GW.encoder.beginComputePass();
    },
    flush: function() {
      if (!GW.encoder) return;
      if (GW.pass) GW.pass.end();
      GW.pass = null;
      var timed = GW.timing && GW.timing.labels.length ? GW.timingResolve() : null;
      if (GW.slot) GW.device.queue.writeBuffer(GW.paramsBuf, 0, GW.paramsHost.buffer, 0, GW.slot * GW.SLOT_BYTES);
      GW.device.queue.submit([GW.encoder.finish()]);
      ++GW.counts.submits;
      GW.encoder = null;
      GW.slot = 0;
      if (timed) GW.timingCollect(timed);
    },
    timingStart: function() {
      var t = GW.timing;
      t.set = GW.device.createQuerySet({type: 'timestamp', count: 2 * GW.TIMED});
      t.labels = [];
    },
    // Encodes the resolve of this submit's timestamps; a fresh query set for the next.
    timingResolve: function() {
      var t = GW.timing, n = t.labels.length, bytes = 16 * n;
      var resolved = GW.device.createBuffer({size: bytes, usage: 0x200 /* QUERY_RESOLVE */ | GW.U_COPY_SRC});
      var read = GW.device.createBuffer({size: bytes, usage: GW.U_MAP_READ | GW.U_COPY_DST});
      GW.encoder.resolveQuerySet(t.set, 0, 2 * n, resolved, 0);
      GW.encoder.copyBufferToBuffer(resolved, 0, read, 0, bytes);
      var batch = {set: t.set, labels: t.labels, resolved: resolved, read: read};
      GW.timingStart();
      return batch;
    },
    timingCollect: function(b) {
      var t = GW.timing;
      t.pending.push(b.read.mapAsync(GW.MAP_READ).then(function() {
        var ns = new BigInt64Array(b.read.getMappedRange());
        for (var i = 0; i < b.labels.length; ++i) {
          var d = Number(ns[2 * i + 1] - ns[2 * i]);
          var row = t.rows[b.labels[i]] = t.rows[b.labels[i]] || {calls: 0, ns: 0};
          ++row.calls;
          row.ns += Math.max(0, d);
        }
        b.read.unmap();
      }, function() {}).then(function() {
        b.read.destroy();
        b.resolved.destroy();
        b.set.destroy();
      }));
    },
    // Pipeline that spreads bytes [p.x, p.x + p.y) of `src` three per pixel.
    expandPipeline: null,
    expand: function() {
      if (GW.expandPipeline) return GW.expandPipeline;
      var code =
        '@group(0) @binding(0) var<storage, read> src: array<u32>;\n' +
        '@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n' +
        '@group(0) @binding(2) var<storage, read> p: array<u32>;\n' +
        'fn byteAt(b: u32) -> u32 { if (b >= p[0] + p[1]) { return 0u; } return (src[b >> 2u] >> ((b & 3u) << 3u)) & 255u; }\n' +
        '@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>,\n' +
        '    @builtin(num_workgroups) n: vec3<u32>) {\n' +
        '  let px = g.x + g.y * n.x * 64u;\n' +
        '  if (px >= p[2]) { return; }\n' +
        '  let b = p[0] + px * 3u;\n' +
        '  dst[px] = byteAt(b) | (byteAt(b + 1u) << 8u) | (byteAt(b + 2u) << 16u) | 0xff000000u;\n' +
        '}\n';
      var layout = GW.layout(1, 1);
      GW.expandPipeline = GW.device.createComputePipeline({
        layout: layout.pl, compute: {module: GW.device.createShaderModule({code: code}), entryPoint: 'main'}});
      return GW.expandPipeline;
    },
    readCanvas: function() {
      if (GW.canvas) return GW.canvas;
      var N = GW.CANVAS;
      var gpuCanvas = new OffscreenCanvas(N, N);
      var ctx = gpuCanvas.getContext('webgpu');
      var format = typeof navigator !== 'undefined' && navigator.gpu && navigator.gpu.getPreferredCanvasFormat ?
          navigator.gpu.getPreferredCanvasFormat() : 'bgra8unorm';
      if (format != 'rgba8unorm' && format != 'bgra8unorm') format = 'bgra8unorm';
      ctx.configure({device: GW.device, format: format, usage: GW.TEX_COPY_DST, alphaMode: 'opaque'});
      var host = new OffscreenCanvas(N, N).getContext('2d', {willReadFrequently: true});
      var pixels = GW.device.createBuffer({size: N * N * 4, usage: GW.U_STORAGE | GW.U_COPY_SRC});
      var params = GW.device.createBuffer({size: 16, usage: GW.U_STORAGE | GW.U_COPY_DST});
      return GW.canvas = {gpuCanvas: gpuCanvas, ctx: ctx, host: host, pixels: pixels, params: params, bgra: format == 'bgra8unorm'};
    },
  },

  glint_wgpu_init__deps: ['$GW'],
  glint_wgpu_init: function() {
    var g = Module['glintWebGPU'];
    // A spare device handed over in advance replaces a lost one at once.
    if (GW.lost && g && g.device === GW.device && Module['glintWebGPUSpare']) {
      g = Module['glintWebGPU'] = Module['glintWebGPUSpare'];
      Module['glintWebGPUSpare'] = null;
    }
    if (!g || !g.device) return 0;
    // Lost, and the page (web/package/src/webgpu.js) is asking for a new one: 2.
    if (GW.device === g.device) return !GW.lost ? 1 : Module['glintWebGPUWatched'] ? 2 : 0;
    Module['glintWebGPULost'] = false;
    GW.device = g.device;
    GW.adapter = g.adapter || null;
    GW.lost = false;
    GW.layouts = {};
    GW.forgetGroups();
    GW.staging = {};
    GW.expandPipeline = null;
    GW.canvas = null;
    GW.encoder = null;
    GW.pass = null;
    GW.slot = 0;
    var device = g.device;
    device.lost.then(function(info) {
      if (GW.device !== device) return;
      GW.lost = true;
      Module['glintWebGPULost'] = true;
      GW.lostWhy = (info && info.message) || 'device lost';
    });
    GW.paramsBuf = device.createBuffer({size: GW.SLOTS * GW.SLOT_BYTES, usage: GW.U_STORAGE | GW.U_COPY_DST});
    GW.paramsHost = new Float32Array(GW.SLOTS * GW.SLOT_BYTES / 4);
    GW.dummy = device.createBuffer({size: 16, usage: GW.U_STORAGE});
    GW.dummyOut = device.createBuffer({size: 16, usage: GW.U_STORAGE});
    // For the page: resolves once every read in flight has landed.
    Module['glintWebGPUSettled'] = function() {
      return Promise.all(Object.keys(GW.reads).map(function(k) { return GW.reads[k].done; }));
    };
    Module['glintWebGPUCounts'] = function() { return Object.assign({}, GW.counts); };
    // For data(): resolves when read `rid` has landed (waiting on mapAsync
    // itself, not polling, wakes it as soon as the GPU is done).
    Module['glintWebGPUReadDone'] = function(rid) {
      var r = GW.reads[rid];
      return r ? r.done : Promise.resolve();
    };
    return 1;
  },

  // JSON with the adapter's identity and the limits the backend relies on;
  // returns the length it needs (written when it fits in cap).
  glint_wgpu_info__deps: ['$GW'],
  glint_wgpu_info: function(dst, cap) {
    var a = GW.adapter, d = GW.device;
    var info = (a && a.info) || {};
    var s = JSON.stringify({
      vendor: info.vendor || '', architecture: info.architecture || '', device: info.device || '',
      description: info.description || '', fallback: !!(a && (a.isFallbackAdapter || info.isFallbackAdapter)),
      f16: !!(a && a.features && a.features.has('shader-f16')),
      maxStorageBuffersPerShaderStage: d.limits.maxStorageBuffersPerShaderStage,
      maxStorageBufferBindingSize: d.limits.maxStorageBufferBindingSize,
      maxBufferSize: d.limits.maxBufferSize,
      maxComputeWorkgroupsPerDimension: d.limits.maxComputeWorkgroupsPerDimension,
      maxComputeInvocationsPerWorkgroup: d.limits.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupStorageSize: d.limits.maxComputeWorkgroupStorageSize,
    });
    var need = lengthBytesUTF8(s) + 1;
    if (need <= cap) stringToUTF8(s, dst, cap);
    return need;
  },

  // 1 where a blocking read can go through a canvas (a page or a worker).
  glint_wgpu_can_read_sync: function() { return typeof OffscreenCanvas === 'function' ? 1 : 0; },

  // The precision self-test web/package/src/webgpu.js ran on this device when
  // it acquired it: n (bits sent, bits back) pairs into sent/back and the sum;
  // returns n, or 0 when the device came without one.
  glint_wgpu_self_test__deps: ['$GW'],
  glint_wgpu_self_test: function(sent, back, cap, sumPtr) {
    var g = Module['glintWebGPU'];
    var t = g && g.device === GW.device ? g.selfTest : null;
    if (!t || !t.sent || t.sent.length > cap) return 0;
    HEAPU32.set(t.sent, sent >> 2);
    HEAPU32.set(t.back, back >> 2);
    HEAPF32[sumPtr >> 2] = t.sum;
    return t.sent.length;
  },

  glint_wgpu_buffer_create__deps: ['$GW'],
  glint_wgpu_buffer_create: function(bytes) {
    try {
      return GW.put(GW.device.createBuffer({size: bytes,
          usage: GW.U_STORAGE | GW.U_COPY_SRC | GW.U_COPY_DST}));
    } catch (e) {
      return 0;
    }
  },

  glint_wgpu_buffer_destroy__deps: ['$GW'],
  glint_wgpu_buffer_destroy: function(id) {
    var b = GW.objs[id];
    if (!b) return;
    // A buffer still used by recorded work must outlive it: submit first.
    GW.flush();
    b.destroy();
    GW.forgetBuffer(id);
    GW.drop(id);
  },

  // Uploads bytes (padded to 4: writeBuffer's rule) after the recorded work,
  // which may still read the buffer's previous contents.
  glint_wgpu_write__deps: ['$GW'],
  glint_wgpu_write: function(id, src, bytes) {
    GW.flush();
    var padded = (bytes + 3) & ~3;
    if (padded == bytes) {
      GW.device.queue.writeBuffer(GW.objs[id], 0, HEAPU8.buffer, src, bytes);
    } else {
      var tmp = new Uint8Array(padded);
      tmp.set(HEAPU8.subarray(src, src + bytes));
      GW.device.queue.writeBuffer(GW.objs[id], 0, tmp.buffer, 0, padded);
    }
  },

  glint_wgpu_copy__deps: ['$GW'],
  glint_wgpu_copy: function(srcId, dstId, bytes) {
    if (GW.pass) GW.pass.end();
    GW.pass = null;
    if (!GW.encoder) GW.encoder = GW.device.createCommandEncoder();
    GW.encoder.copyBufferToBuffer(GW.objs[srcId], 0, GW.objs[dstId], 0, (bytes + 3) & ~3);
  },

  // A compute pipeline for WGSL `code` with nIn inputs and nOut outputs.
  // Compilation errors surface asynchronously: they are logged with the source.
  glint_wgpu_pipeline__deps: ['$GW'],
  glint_wgpu_pipeline: function(codePtr, nIn, nOut) {
    var code = UTF8ToString(codePtr);
    var module = GW.device.createShaderModule({code: code});
    if (module.getCompilationInfo) {
      module.getCompilationInfo().then(function(info) {
        var errs = info.messages.filter(function(m) { return m.type == 'error'; });
        if (errs.length) {
          console.error('glint webgpu: WGSL error: ' + errs.map(function(m) {
            return m.lineNum + ':' + m.linePos + ' ' + m.message; }).join('; ') + '\n' + code);
        }
      });
    }
    var layout = GW.layout(nIn, nOut);
    ++GW.counts.pipelinesMade;
    var pipe = GW.device.createComputePipeline({layout: layout.pl, compute: {module: module, entryPoint: 'main'}});
    return GW.put({pipe: pipe, layout: layout, nIn: nIn, nOut: nOut});
  },

  glint_wgpu_pipeline_release__deps: ['$GW'],
  glint_wgpu_pipeline_release: function(id) {
    if (GW.objs[id]) GW.drop(id);
  },

  // Records one dispatch: ids = nIn inputs then nOut outputs (0: an empty
  // buffer); params = nParams floats for this dispatch's slot.
  glint_wgpu_dispatch__deps: ['$GW'],
  glint_wgpu_dispatch: function(pipeId, idsPtr, paramsPtr, nParams, x, y, z) {
    var p = GW.objs[pipeId];
    var n = p.nIn + p.nOut;
    if (GW.slot == GW.SLOTS || (GW.timing && GW.timing.labels.length == GW.TIMED)) GW.flush();
    GW.ensurePass();
    var ids = Array.prototype.slice.call(HEAP32.subarray(idsPtr >> 2, (idsPtr >> 2) + n));
    var slot = GW.slot++;
    var words = GW.SLOT_BYTES / 4;
    if (nParams) GW.paramsHost.set(HEAPF32.subarray(paramsPtr >> 2, (paramsPtr >> 2) + nParams), slot * words);
    var t = GW.timing;
    if (t) {
      // A pass of its own, timestamped at its start and end.
      GW.pass.end();
      var k = t.labels.length;
      t.labels.push(t.label);
      GW.pass = GW.encoder.beginComputePass({timestampWrites: {querySet: t.set,
          beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1}});
    }
    GW.pass.setPipeline(p.pipe);
    GW.pass.setBindGroup(0, GW.group(p.layout, ids, p.nIn), [slot * GW.SLOT_BYTES]);
    GW.pass.dispatchWorkgroups(x, y, z);
    ++GW.counts.dispatches;
    if (t) {
      GW.pass.end();
      GW.pass = null;
    }
  },

  // GPU timing on or off; 1 when on (the device has timestamp-query).
  glint_wgpu_timing__deps: ['$GW'],
  glint_wgpu_timing: function(on) {
    if (!on) {
      if (GW.timing) GW.flush();
      GW.timing = null;
      return 0;
    }
    if (!GW.device || !GW.device.features || !GW.device.features.has('timestamp-query')) return 0;
    if (GW.timing) return 1;
    GW.flush();
    GW.timing = {label: '', labels: [], pending: [], rows: {}};
    GW.timingStart();
    var timing = GW.timing;
    // For glint.webgpu.kernelTimes(): every timed dispatch so far, once landed.
    Module['glintWebGPUTimes'] = function() {
      if (GW.timing === timing) GW.flush();
      return Promise.all(timing.pending).then(function() { return timing.rows; });
    };
    return 1;
  },

  glint_wgpu_timing_label__deps: ['$GW'],
  glint_wgpu_timing_label: function(ptr) {
    if (GW.timing) GW.timing.label = UTF8ToString(ptr);
  },

  glint_wgpu_flush__deps: ['$GW'],
  glint_wgpu_flush: function() { GW.flush(); },

  // Tensor.dataToGPU: the buffer for the page's own work, after what was recorded.
  glint_wgpu_export__deps: ['$GW'],
  glint_wgpu_export: function(id) {
    GW.flush();
    Module['__glintGpuBuffer'] = id ? GW.objs[id] : null;
  },

  // Blocking read of `bytes` bytes of buffer id into dst (see the top).
  glint_wgpu_read__deps: ['$GW'],
  glint_wgpu_read: function(id, dst, bytes) {
    GW.flush();
    var c = GW.readCanvas();
    var N = GW.CANVAS, perChunk = N * N * 3;
    var pipe = GW.expand();
    var group = GW.device.createBindGroup({layout: GW.layout(1, 1).bgl, entries: [
      {binding: 0, resource: {buffer: GW.objs[id]}}, {binding: 1, resource: {buffer: c.pixels}},
      {binding: 2, resource: {buffer: c.params}}]});
    for (var off = 0; off < bytes; off += perChunk) {
      var n = Math.min(perChunk, bytes - off);
      var px = Math.ceil(n / 3);
      var rows = Math.ceil(px / N), width = rows > 1 ? N : px;
      GW.device.queue.writeBuffer(c.params, 0, new Uint32Array([off, n, px, 0]));
      var enc = GW.device.createCommandEncoder();
      var pass = enc.beginComputePass();
      pass.setPipeline(pipe);
      pass.setBindGroup(0, group, [0]);
      var groups = Math.ceil(px / 64);
      pass.dispatchWorkgroups(Math.min(groups, 65535), Math.ceil(groups / 65535));
      pass.end();
      enc.copyBufferToTexture({buffer: c.pixels, bytesPerRow: N * 4}, {texture: c.ctx.getCurrentTexture()},
                              {width: width, height: rows});
      GW.device.queue.submit([enc.finish()]);
      c.host.clearRect(0, 0, width, rows);
      c.host.drawImage(c.gpuCanvas, 0, 0);
      var d = c.host.getImageData(0, 0, width, rows).data;
      var out = HEAPU8;
      var base = dst + off;
      for (var i = 0, k = 0; i < n; i += 3, k += 4) {
        var r = c.bgra ? d[k + 2] : d[k], b = c.bgra ? d[k] : d[k + 2];
        out[base + i] = r;
        if (i + 1 < n) out[base + i + 1] = d[k + 1];
        if (i + 2 < n) out[base + i + 2] = b;
      }
    }
  },

  // Asynchronous read: a copy into a mappable buffer, then mapAsync. Returns a
  // read id to poll (1 ready, 0 not yet, -1 failed) and then take.
  glint_wgpu_read_start__deps: ['$GW'],
  glint_wgpu_read_start: function(id, bytes) {
    var padded = Math.max(4, (bytes + 3) & ~3);
    var spare = GW.staging[padded];
    var staging = spare && spare.length ? spare.pop() :
        GW.device.createBuffer({size: padded, usage: GW.U_MAP_READ | GW.U_COPY_DST});
    if (GW.pass) GW.pass.end();
    GW.pass = null;
    if (!GW.encoder) GW.encoder = GW.device.createCommandEncoder();
    if (bytes) GW.encoder.copyBufferToBuffer(GW.objs[id], 0, staging, 0, padded);
    GW.flush();
    var r = {staging: staging, state: 0, bytes: bytes, size: padded, device: GW.device};
    r.done = staging.mapAsync(GW.MAP_READ).then(function() { r.state = 1; }, function() { r.state = -1; });
    var rid = GW.nextRead++;
    GW.reads[rid] = r;
    return rid;
  },

  glint_wgpu_read_poll__deps: ['$GW'],
  glint_wgpu_read_poll: function(rid) {
    var r = GW.reads[rid];
    return r ? r.state : -1;
  },

  glint_wgpu_read_take__deps: ['$GW'],
  glint_wgpu_read_take: function(rid, dst) {
    var r = GW.reads[rid];
    delete GW.reads[rid];
    if (!r) return 0;
    var ok = r.state == 1;
    try {
      if (ok && r.bytes) HEAPU8.set(new Uint8Array(r.staging.getMappedRange(), 0, r.bytes), dst);
      if (ok) r.staging.unmap();
    } catch (e) {
      ok = false;  // the device went away after the map finished
    }
    // Kept for the next read of this size (a step reads the same few sizes).
    var spare = GW.staging[r.size] = GW.staging[r.size] || [];
    if (ok && r.device === GW.device && spare.length < 4) spare.push(r.staging);
    else r.staging.destroy();
    return ok ? 1 : 0;
  },

  glint_wgpu_read_drop__deps: ['$GW'],
  glint_wgpu_read_drop: function(rid) {
    var r = GW.reads[rid];
    delete GW.reads[rid];
    if (r) r.staging.destroy();
  },

  glint_wgpu_lost__deps: ['$GW'],
  glint_wgpu_lost: function() { return GW.lost || (Module['glintWebGPU'] && Module['glintWebGPU'].device !== GW.device) ? 1 : 0; },

  // Test hook: destroys the device, as a driver reset would.
  glint_wgpu_lose__deps: ['$GW'],
  glint_wgpu_lose: function() {
    GW.lost = true;
    Module['glintWebGPULost'] = true;
    GW.lostWhy = 'device destroyed (forced)';
    GW.pass = null;
    GW.encoder = null;
    GW.device.destroy();
  },
});
