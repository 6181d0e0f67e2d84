#pragma once
// The kernel this thread is running (runKernel sets it around the kernel's
// function): a GPU backend labels its work with it for per-kernel GPU timing.

namespace glint {

/// The name of the kernel running on this thread; "" outside kernels.
const char* runningKernel();

}  // namespace glint
