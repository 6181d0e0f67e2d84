#pragma once
// The calls into webgpu_lib.js (the browser's navigator.gpu); objects are
// integer handles, 0 meaning none. Only Emscripten builds have them.
#include <cstdint>

extern "C" {
/// 1 when the page handed the module a usable device (Module.glintWebGPU);
/// 2 when it is lost and the page is asking for a new one; else 0.
int glint_wgpu_init();
/// JSON of the adapter and limits into dst when it fits; the length it needs.
int glint_wgpu_info(char* dst, int capacity);
/// 1 where glint_wgpu_read works (a canvas exists); 0 in node.
int glint_wgpu_can_read_sync();
/// The JS-run precision self-test's pairs and sum; returns n (0: none).
int glint_wgpu_self_test(uint32_t* sent, uint32_t* back, int capacity, float* sum);
int glint_wgpu_buffer_create(double bytes);
void glint_wgpu_buffer_destroy(int id);
void glint_wgpu_write(int id, const void* src, double bytes);
void glint_wgpu_copy(int src, int dst, double bytes);
int glint_wgpu_pipeline(const char* wgsl, int numInputs, int numOutputs);
/// Forgets a pipeline (work already recorded with it keeps it alive).
void glint_wgpu_pipeline_release(int id);
/// ids: numInputs input buffers then numOutputs output buffers.
void glint_wgpu_dispatch(int pipeline, const int32_t* ids, const float* params, int numParams,
                         int x, int y, int z);
void glint_wgpu_flush();
/// Submits the recorded work and hands buffer id's GPUBuffer to JS as
/// Module.__glintGpuBuffer (Tensor.dataToGPU).
void glint_wgpu_export(int id);
void glint_wgpu_read(int id, void* dst, double bytes);
int glint_wgpu_read_start(int id, double bytes);
int glint_wgpu_read_poll(int readId);
int glint_wgpu_read_take(int readId, void* dst);
void glint_wgpu_read_drop(int readId);
int glint_wgpu_lost();
/// GPU timing on (1: returns 1 where the device has timestamp-query) or off.
int glint_wgpu_timing(int on);
/// The kernel the next dispatches belong to (while timing).
void glint_wgpu_timing_label(const char* kernel);
void glint_wgpu_lose();
}
