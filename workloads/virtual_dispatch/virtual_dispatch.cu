// Virtual functions on device-side objects. construct_shapes builds one
// object per element with placement new (so the vtable pointers are device
// addresses); eval_shapes then calls the virtual methods through base-class
// pointers. Which class an element gets is read from memory, so the calls in
// eval_shapes cannot be devirtualised and stay indirect calls through the
// vtable (CARS: an indirect call is charged the largest FRU of its targets).

#include <new>

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float perimeter() const = 0;
  __device__ virtual void scale(float s) = 0;
};

struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
  __device__ float perimeter() const override { return 2.0f * 3.14159265f * r; }
  __device__ void scale(float s) override { r *= s; }
};

struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
  __device__ float perimeter() const override { return 2.0f * (w + h); }
  __device__ void scale(float s) override { w *= s; h *= s; }
};

// Right triangle with legs a and b.
struct RightTriangle : Shape {
  float a, b;
  __device__ RightTriangle(float a_, float b_) : a(a_), b(b_) {}
  __device__ float area() const override { return 0.5f * a * b; }
  __device__ float perimeter() const override { return a + b + sqrtf(a * a + b * b); }
  __device__ void scale(float s) override { a *= s; b *= s; }
};

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
