// The library module of virtual_dispatch (virtual_dispatch.cu has the
// kernels): the shapes' virtual methods, compiled as their own translation
// unit as the CARS paper compiles the common device functions (a separate
// module); the model links the two modules (ptx/link.h) as nvlink does. nvcc
// compiles each unit without knowing the other, so the kernels' virtual
// calls into this unit follow the full ABI. The methods are strong, visible
// definitions; the vtables that point at them are in the kernels' unit.
// rfsim: rdc

#include "virtual_dispatch_lib.cuh"

__device__ float Circle::area() const { return 3.14159265f * r * r; }
__device__ float Circle::perimeter() const { return 2.0f * 3.14159265f * r; }
__device__ void Circle::scale(float s) { r *= s; }

__device__ float Rect::area() const { return w * h; }
__device__ float Rect::perimeter() const { return 2.0f * (w + h); }
__device__ void Rect::scale(float s) {
  w *= s;
  h *= s;
}

__device__ float RightTriangle::area() const { return 0.5f * a * b; }
__device__ float RightTriangle::perimeter() const { return a + b + sqrtf(a * a + b * b); }
__device__ void RightTriangle::scale(float s) {
  a *= s;
  b *= s;
}
