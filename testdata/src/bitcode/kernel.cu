// Device code without the CUDA/HIP SDK: attributes spelled out, launch API declared by hand.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
struct dim3 { unsigned x, y, z; };
typedef struct CUstream_st *cudaStream_t;
extern "C" int cudaLaunchKernel(const void *, dim3, dim3, void **, unsigned long, cudaStream_t);
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, cudaStream_t);
__device__ int devcounter;
__device__ float twice(float v) { return 2.0f * v; }
__global__ void scale(float *x, float f) { x[0] = twice(x[0]) * f + devcounter; }
int host_only(int a) { return a + 1; }
