// The shape classes of virtual_dispatch. Their virtual methods are defined
// in the library module (lib/virtual_dispatch_lib.cu); the kernels build the
// objects (the constructors are inline here) and call the methods through
// base-class pointers. nvcc emits each vtable, .weak, in the unit that
// constructs the objects (virtual_dispatch.ptx), naming the methods it only
// declares; the model's linker binds them to the library's definitions.
#pragma once

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float perimeter() const = 0;
  __device__ virtual void scale(float s) = 0;
};

struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override;
  __device__ float perimeter() const override;
  __device__ void scale(float s) override;
};

struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override;
  __device__ float perimeter() const override;
  __device__ void scale(float s) override;
};

// Right triangle with legs a and b.
struct RightTriangle : Shape {
  float a, b;
  __device__ RightTriangle(float a_, float b_) : a(a_), b(b_) {}
  __device__ float area() const override;
  __device__ float perimeter() const override;
  __device__ void scale(float s) override;
};
