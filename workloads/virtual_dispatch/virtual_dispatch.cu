// Virtual functions on device-side objects. construct_shapes builds one
// object per element with placement new (so the vtable pointers are device
// addresses); eval_shapes then calls the virtual methods through base-class
// pointers. Which class an element gets is read from memory, so the calls in
// eval_shapes cannot be devirtualised and stay indirect calls through the
// vtable (CARS: an indirect call is charged the largest FRU of its targets).
//
// The methods are the paper's library module (CARS compiles the common
// device functions as a separate module): lib/virtual_dispatch_lib.cu, its
// own translation unit, which the model links with this one (ptx/link.h),
// so the virtual calls into it follow the full ABI. The vtables nvcc emits
// here name methods this unit only declares; the linker resolves them.
// Compiled with -rdc=true (separate compilation):
// rfsim: rdc
// rfsim: link lib/virtual_dispatch_lib

#include <new>

#include "lib/virtual_dispatch_lib.cuh"

// Every slot of `storage` is big enough and aligned for any of the shapes.
struct alignas(16) ShapeSlot {
  unsigned char bytes[32];
};
static_assert(sizeof(Circle) <= sizeof(ShapeSlot) && sizeof(Rect) <= sizeof(ShapeSlot) &&
                  sizeof(RightTriangle) <= sizeof(ShapeSlot),
              "ShapeSlot too small");

// kind[i]: 0 circle (p0 = radius), 1 rectangle (p0 x p1), 2 right triangle (legs p0, p1).
extern "C" __global__ void construct_shapes(const int* __restrict__ kind,
                                            const float2* __restrict__ params,
                                            ShapeSlot* __restrict__ storage,
                                            Shape** __restrict__ shapes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float2 p = params[i];
  void* slot = &storage[i];
  Shape* s;
  switch (kind[i]) {
    case 0: s = new (slot) Circle(p.x); break;
    case 1: s = new (slot) Rect(p.x, p.y); break;
    default: s = new (slot) RightTriangle(p.x, p.y); break;
  }
  shapes[i] = s;
}

// out[i] = area and perimeter of shape i after scaling it by factor[i].
extern "C" __global__ void eval_shapes(Shape* const* __restrict__ shapes,
                                       const float* __restrict__ factor,
                                       float2* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Shape* s = shapes[i];
  s->scale(factor[i]);
  out[i] = make_float2(s->area(), s->perimeter());
}
