#include <cassert>
#include <cstdio>
__managed__ int mcount;
__device__ int dtab[] = {1,2,3,5,8};
__device__ const char* names[] = {"a", "bb", "ccc"};
__global__ void sw(int* o, int k){ int v; switch(o[threadIdx.x]&15){ case 0: v=k*3; break; case 1: v=k+7; break; case 2: v=k^9; break; case 3: v=k-11; break; case 4: v=k*k; break; case 5: v=k>>2; break; case 6: v=k<<3; break; case 7: v=~k; break; case 8: v=k/3; break; case 9: v=k%5; break; case 10: v=-k; break; default: v=0; } o[threadIdx.x]=v+dtab[k&3]+names[k&1][0]; }
__global__ void as(int* o){ assert(o[0] > 0); int lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane)); o[lane]=mcount; __brkpt(); }
__global__ void __launch_bounds__(128, 2) lb2(float* o){ __shared__ float s[128]; s[threadIdx.x]=o[threadIdx.x]; __syncthreads(); o[threadIdx.x]=s[127-threadIdx.x]; }
__device__ void rec(int* o, int d){ if(d==0) return; int loc[8]; for(int i=0;i<8;i++) loc[i]=o[i]+d; rec(loc, d-1); o[d&7]=loc[d&7]; }
__global__ void recur(int* o, int d){ rec(o, d); }
__global__ void vla(int* o, int n){ int* p=(int*)malloc(n*sizeof(int)); for(int i=0;i<n;i++) p[i]=i; o[0]=p[n-1]; free(p); }
