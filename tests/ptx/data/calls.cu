#include <cstdio>
struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape(){} };
struct Sq : Shape { float s; __device__ Sq(float x):s(x){} __device__ float area() const override { return s*s; } };
struct Ci : Shape { float r; __device__ Ci(float x):r(x){} __device__ float area() const override { return 3.14f*r*r; } };
__device__ __noinline__ int fib(int n){ return n<2?n:fib(n-1)+fib(n-2);}
typedef float (*fp)(float);
__device__ float f1(float x){return x*2;} __device__ float f2(float x){return x+1;}
__device__ fp table[2]={f1,f2};
__constant__ float cc[16] = {1,2,3,4.5f};
__device__ int gcount;
struct Big { double a; int b[5]; float c; };
__device__ __noinline__ Big mk(Big x, int k){ x.b[k&3]+=k; x.a*=k; return x; }
__device__ float3 cross(float3 a, float3 b){return make_float3(a.y*b.z-a.z*b.y,a.z*b.x-a.x*b.z,a.x*b.y-a.y*b.x);}
__device__ __noinline__ bool hit(float3 o, float3 d, float3 c, float r, float* t){ float3 oc=make_float3(o.x-c.x,o.y-c.y,o.z-c.z); float b=oc.x*d.x+oc.y*d.y+oc.z*d.z; float cc2=oc.x*oc.x+oc.y*oc.y+oc.z*oc.z-r*r; float disc=b*b-cc2; if(disc<0) return false; *t=-b-sqrtf(disc); return *t>0; }
__global__ void k(float* o, int sel, Big bb, int n){
  Shape* s; if(sel&1) s=new Sq(o[0]); else s=new Ci(o[1]);
  o[2]=s->area(); delete s; o[3]=table[sel&1](o[4]); o[5]=cc[sel&15]; atomicAdd(&gcount,1);
  int loc[32]; for(int i=0;i<n;i++) loc[(i*7)&31]=i; o[6]=loc[sel&31];
  Big r=mk(bb,sel); o[7]=r.a+r.b[2]; printf("hello %d %f\n", sel, o[0]); o[8]=fib(sel);
  float t; if(hit(make_float3(0,0,0),make_float3(0,0,1),make_float3(0,0,5),1,&t)) o[9]=t; float3 x=cross(make_float3(o[0],o[1],o[2]),make_float3(o[3],o[4],o[5])); o[10]=x.x+x.y+x.z;
  if(sel<0) __trap(); if(sel==99) asm("exit;");
}
__global__ void __launch_bounds__(256,4) lb(float* o){ o[threadIdx.x]*=2; }
