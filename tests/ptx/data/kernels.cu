#include <cstdio>
#include <cuda_fp16.h>
__global__ void vadd(const float* a, const float* b, float* c, int n){int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) c[i]=a[i]+b[i];}
#define TS 16
__global__ void sgemm(const float* __restrict__ A, const float* __restrict__ B, float* C, int M, int N, int K, float alpha, float beta){
 __shared__ float As[TS][TS], Bs[TS][TS];
 int r=blockIdx.y*TS+threadIdx.y, c=blockIdx.x*TS+threadIdx.x; float acc=0;
 for(int t=0;t<K;t+=TS){ As[threadIdx.y][threadIdx.x]= (r<M&&t+threadIdx.x<K)?A[r*K+t+threadIdx.x]:0; Bs[threadIdx.y][threadIdx.x]=(c<N&&t+threadIdx.y<K)?B[(t+threadIdx.y)*N+c]:0; __syncthreads();
 #pragma unroll
 for(int k=0;k<TS;k++) acc+=As[threadIdx.y][k]*Bs[k][threadIdx.x]; __syncthreads(); }
 if(r<M&&c<N) C[r*N+c]=alpha*acc+beta*C[r*N+c];}
__global__ void reduce(const float4* in, float* out, int n){
 __shared__ float s[32]; float v=0; for(int i=blockIdx.x*blockDim.x+threadIdx.x;i<n;i+=gridDim.x*blockDim.x){float4 x=__ldg(&in[i]); v+=x.x+x.y+x.z+x.w;}
 for(int o=16;o>0;o>>=1) v+=__shfl_xor_sync(0xffffffff,v,o);
 if((threadIdx.x&31)==0) s[threadIdx.x>>5]=v; __syncthreads();
 if(threadIdx.x<32){ v = threadIdx.x < blockDim.x/32 ? s[threadIdx.x]:0; for(int o=16;o>0;o>>=1) v+=__shfl_down_sync(0xffffffff,v,o); if(threadIdx.x==0) atomicAdd(out,v);} }
__global__ void hist(const unsigned char* d, unsigned* h, int n){ __shared__ unsigned sh[256]; for(int i=threadIdx.x;i<256;i+=blockDim.x) sh[i]=0; __syncthreads();
 for(int i=blockIdx.x*blockDim.x+threadIdx.x;i<n;i+=blockDim.x*gridDim.x) atomicAdd(&sh[d[i]],1u); __syncthreads();
 for(int i=threadIdx.x;i<256;i+=blockDim.x) atomicAdd(&h[i],sh[i]); }
__global__ void bfs(const int* rowp, const int* col, int* dist, int* frontier_changed, int level, int n){
 int v=blockIdx.x*blockDim.x+threadIdx.x; if(v>=n||dist[v]!=level) return; for(int e=rowp[v];e<rowp[v+1];e++){int u=col[e]; if(atomicCAS(&dist[u],-1,level+1)==-1) *frontier_changed=1;} }
__global__ void spmv(const int* rp, const int* ci, const double* val, const double* x, double* y, int n){int r=blockIdx.x*blockDim.x+threadIdx.x; if(r<n){double s=0; for(int j=rp[r];j<rp[r+1];j++) s+=val[j]*x[ci[j]]; y[r]=s;}}
__global__ void nbody(float4* p, float3* acc, int n, float eps){int i=blockIdx.x*blockDim.x+threadIdx.x; if(i>=n) return; float4 pi=p[i]; float3 a={0,0,0};
 for(int j=0;j<n;j++){float4 pj=p[j]; float dx=pj.x-pi.x,dy=pj.y-pi.y,dz=pj.z-pi.z; float d2=dx*dx+dy*dy+dz*dz+eps; float inv=rsqrtf(d2); float s=pj.w*inv*inv*inv; a.x+=dx*s;a.y+=dy*s;a.z+=dz*s;} acc[i]=a;}
__global__ void f64k(double* x, int n){int i=threadIdx.x; if(i<n){ double v=x[i]; x[i]=sqrt(v)/(v+1.0)+exp(v)+sin(v)+log(v)+pow(v,2.5)+fma(v,v,v)+(double)(long long)v+floor(v);}}
__global__ void misc(unsigned* o, const unsigned* in, float* f, long long* ll){ unsigned a=in[threadIdx.x], b=in[threadIdx.x+1];
 o[0]=__brev(a); o[1]=__popc(a); o[2]=__clz(a); o[3]=__byte_perm(a,b,0x5410); o[4]=(a&b)|(~a&in[2]); o[5]=__ballot_sync(0xffffffff,a>3); o[6]=__all_sync(0xffffffff,a); o[7]=__any_sync(0xffffffff,b);
 o[8]=__ffs(a); o[9]=__funnelshift_l(a,b,5); o[10]=__activemask(); o[11]=__umulhi(a,b); o[12]=(a>>3)&0x1f; o[13]=__float2int_rn(f[0]); o[14]=__float_as_uint(__saturatef(f[1])); o[15]=__sad(a,b,3);
 o[17]=__match_any_sync(0xffffffff,a); o[18]=__dp4a(a,b,3u); o[19]=__usad(a,b,1);  f[2]=__fdividef(f[0],f[1]); f[3]=__sinf(f[0])+__cosf(f[1])+__expf(f[2])+__logf(f[3]); f[4]=fminf(f[0],f[1])+fabsf(f[2])+copysignf(f[0],f[1]);
 ll[0]=__mul64hi(ll[1],ll[2]); ll[1]=__clzll(ll[3]); ll[2]=ll[3]/ll[4]; ll[3]=ll[4]%ll[5]; ll[4]=(unsigned long long)ll[5]/ (unsigned long long)ll[6]; o[20]=a/b; o[21]=a%b; o[22]=int(a)/int(b);
 __half h=__float2half(f[5]); f[6]=__half2float(h*h); ll[5]=__double2ll_rd((double)f[7]); o[23]=atomicMax(o+24,a); o[24]=atomicExch(o+25,b); atomicMin((int*)o+26,3); atomicOr(o+27,1); atomicAnd(o+28,2); atomicXor(o+29,3); atomicInc(o+30,10); atomicDec(o+31,10);
 atomicAdd(f+8,1.0f); atomicAdd((double*)(ll+9),2.0); atomicAdd((unsigned long long*)ll+10,1ull); __threadfence(); __threadfence_block(); __syncwarp(); o[32]=clock(); ll[11]=clock64(); o[33]=__shfl_sync(0xffffffff,a,3); o[34]=__shfl_up_sync(0xffffffff,a,1);
 __nanosleep(100); o[35]=__syncthreads_count(a>2); o[36]=__syncthreads_or(a); o[37]=__syncthreads_and(b); o[38]=__ldg(in+4); o[39]=__ldcs(in+5); __stcs(o+40,a); o[41]= __ldcg(in+6); o[42]=*(volatile unsigned*)in; }
